// SPDX-License-Identifier: Apache-2.0
#include <cstdlib>

#include <openssl/x509.h>

#include "connector/jdbc/jdbc_session.h"

namespace cairn::connector::jdbc {

std::string TrustedCaFile(const ConnectOptions& options) {
  if (!options.tls_ca_file.empty()) return options.tls_ca_file;
  if (const char* env = std::getenv(X509_get_default_cert_file_env()); env != nullptr && *env) {
    return env;
  }
  return X509_get_default_cert_file();
}

}  // namespace cairn::connector::jdbc
