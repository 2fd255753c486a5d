// SPDX-License-Identifier: Apache-2.0
#include "security/password.h"

#include <cstdint>
#include <cstdlib>
#include <optional>
#include <vector>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#include "common/util.h"
#include "security/base64.h"

namespace cairn::security {

namespace {

constexpr std::string_view kScheme = "pbkdf2-sha256";
constexpr size_t kSaltBytes = 16;
constexpr size_t kHashBytes = 32;
constexpr int64_t kMinIterations = 1000;
constexpr int64_t kMaxIterations = 10'000'000;  // bounds the CPU an attacker-supplied hash can cost

std::optional<std::string> Pbkdf2(std::string_view password, std::string_view salt, int iterations,
                                  size_t length) {
  std::string out(length, '\0');
  // The casts adapt std::string storage to OpenSSL's unsigned char* API.
  const int ok =
      PKCS5_PBKDF2_HMAC(password.data(), static_cast<int>(password.size()),
                        reinterpret_cast<const unsigned char*>(salt.data()),
                        static_cast<int>(salt.size()), iterations, EVP_sha256(),
                        static_cast<int>(out.size()), reinterpret_cast<unsigned char*>(out.data()));
  if (ok != 1) {
    OPENSSL_cleanse(out.data(), out.size());
    return std::nullopt;
  }
  return out;
}

}  // namespace

std::string HashPassword(std::string_view password) {
  std::string salt(kSaltBytes, '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(salt.data()), static_cast<int>(salt.size())) !=
      1) {
    std::abort();
  }
  auto hash = Pbkdf2(password, salt, kPbkdf2Iterations, kHashBytes);
  if (!hash) {
    std::abort();
  }
  std::string encoded = std::string(kScheme) + "$" + std::to_string(kPbkdf2Iterations) + "$" +
                        Base64Encode(salt) + "$" + Base64Encode(*hash);
  OPENSSL_cleanse(hash->data(), hash->size());
  return encoded;
}

bool VerifyPassword(std::string_view password, std::string_view encoded) {
  const std::vector<std::string> parts = Split(encoded, '$');
  if (parts.size() != 4 || parts[0] != kScheme) {
    return false;
  }
  const std::optional<int64_t> iterations = ParseInt64(parts[1]);
  if (!iterations || *iterations < kMinIterations || *iterations > kMaxIterations ||
      parts[1] != std::to_string(*iterations)) {
    return false;
  }
  const std::optional<std::string> salt = Base64Decode(parts[2]);
  std::optional<std::string> expected = Base64Decode(parts[3]);
  if (!salt || salt->size() < 8 || salt->size() > 64 || !expected || expected->size() < 16 ||
      expected->size() > 64) {
    return false;
  }
  std::optional<std::string> actual =
      Pbkdf2(password, *salt, static_cast<int>(*iterations), expected->size());
  if (!actual) {
    return false;
  }
  const bool match = CRYPTO_memcmp(actual->data(), expected->data(), expected->size()) == 0;
  OPENSSL_cleanse(actual->data(), actual->size());
  return match;
}

}  // namespace cairn::security
