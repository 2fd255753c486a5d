// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/result.h"
#include "governance/access_control.h"
#include "security/jwt.h"
#include "store/metadata_store.h"

namespace cairn::service {

struct AuthnConfig {
  /// Tried in this order: `simple` (user name of Basic auth, no password; no header = anonymous),
  /// `basic` (local users with salted PBKDF2 password hashes), `oauth2` (Bearer JWTs),
  /// `certificate` (the common name of a client certificate the TLS handshake verified).
  std::vector<std::string> authenticators = {"simple"};
  security::JwtConfig jwt;
  std::string jwks_file;
  std::string jwks_url;  // fetched once at start (the identity provider's jwks_uri)
  std::string groups_claim = "groups";
};

/// The authenticate stage, shared by every interface: turns the Authorization header into a
/// principal or a kUnauthenticated error (401 with a challenge). Secrets never reach logs or
/// errors. Safe to call from many threads.
class Authenticator {
 public:
  /// kInvalidArgument for an unknown authenticator name or a bad OAuth2 configuration.
  static Result<std::unique_ptr<Authenticator>> Make(AuthnConfig config,
                                                     store::MetadataStore& store);

  /// `client_certificate_cn`: the common name of the client certificate the TLS handshake
  /// verified, if any; with the `certificate` authenticator it is the principal of a request
  /// that sends no Authorization header.
  Result<governance::Principal> Authenticate(std::optional<std::string_view> authorization,
                                             std::string_view client_certificate_cn = {}) const;
  /// The `WWW-Authenticate` value of a 401.
  std::string Challenge() const;

  bool basic_enabled() const { return basic_; }
  /// Local users of the `basic` authenticator.
  Status AddBasicUser(const std::string& name, const std::string& password,
                      const model::Audit& audit);
  Result<bool> RemoveBasicUser(const std::string& name);
  /// Creates the local user unless it exists (the first administrator of a `basic` server).
  /// kInvalidArgument when `basic` is not enabled or the password is too short.
  Status EnsureBasicUser(const std::string& name, const std::string& password);
  Result<std::vector<std::string>> ListBasicUsers();

 private:
  Authenticator(AuthnConfig config, store::MetadataStore& store);
  Result<governance::Principal> Basic(const std::string& user, const std::string& password) const;

  AuthnConfig config_;
  store::MetadataStore& store_;
  bool simple_ = false;
  bool basic_ = false;
  bool certificate_ = false;
  std::optional<security::JwtVerifier> jwt_;
  // Names this authenticator in each thread's memo of the last `simple` header (Authenticate).
  const uint64_t serial_;

  // A successful PBKDF2 check is remembered briefly by a digest of the credentials, so keep-alive
  // clients do not pay the slow hash on every request.
  mutable std::mutex mu_;
  mutable std::unordered_map<std::string, std::chrono::steady_clock::time_point>
      verified_;  // guarded by mu_
};

}  // namespace cairn::service
