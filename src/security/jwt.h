// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/result.h"
#include "security/openssl_util.h"

namespace cairn::security {

/// What a JwtVerifier accepts. At least one of hs256_secret and jwks_json must be set.
struct JwtConfig {
  /// When non-empty, the token's "iss" must be a string equal to it.
  std::string issuer;
  /// When non-empty, the token's "aud" (a string or an array of strings) must contain one of these.
  std::vector<std::string> audiences;
  /// The top-level claim holding the principal name; it must be a non-empty string.
  std::string principal_claim = "sub";
  /// Leeway for exp, nbf and iat against the caller's clock.
  int64_t allowed_skew_secs = 60;
  /// Enables HS256 when non-empty. RFC 7518 §3.2: at least 32 bytes.
  std::string hs256_secret;
  /// A JWKS document ({"keys":[...]}). RSA keys (>= 2048 bits) enable RS256, EC P-256 keys enable
  /// ES256. Keys with "use" other than "sig", or of another kty/curve, are skipped.
  std::string jwks_json;
  /// When true (the default), a token without "exp" is rejected.
  bool require_expiry = true;
};

/// A verified token: the principal and all payload claims.
struct JwtClaims {
  std::string principal;
  nlohmann::json claims;
};

/// Verifies compact JWS tokens (RS256, ES256, HS256) against fixed keys and claim rules.
/// Immutable after Make: Verify may be called concurrently from any number of threads.
/// Move-only (it owns OpenSSL key objects).
class JwtVerifier {
 public:
  /// Parses the JWKS and builds the keys. kInvalidArgument when neither HS256 nor a JWKS is
  /// configured, the HS256 secret is shorter than 32 bytes, the JWKS is not valid JSON or has a
  /// malformed RSA/EC key, a key id repeats, an RSA key is shorter than 2048 bits, an EC point is
  /// not on P-256, or the JWKS yields no usable key while HS256 is off.
  static Result<JwtVerifier> Make(JwtConfig config);

  /// Checks the token's structure, algorithm, key, signature and then its claims, at time
  /// `now_secs` (seconds since the Unix epoch). kUnauthenticated with a message naming the first
  /// failed check: malformed token, unsupported algorithm ("none", or one not configured; the key
  /// selected by "kid" must be of the algorithm's type), unknown kid, bad signature, expired, not
  /// yet valid, wrong issuer, wrong audience, missing principal claim. Messages never contain the
  /// token, a signature or a secret; attacker-chosen header values are truncated and sanitized.
  Result<JwtClaims> Verify(std::string_view token, int64_t now_secs) const;

  /// Number of usable JWKS keys (RSA + EC), for diagnostics and tests.
  size_t key_count() const { return keys_.size(); }

 private:
  enum class KeyType { kRsa, kEcP256 };
  struct Key {
    std::string kid;  // empty when the JWK has none
    KeyType type = KeyType::kRsa;
    EvpPkeyPtr pkey;
  };

  JwtVerifier() = default;

  Result<const Key*> SelectKey(KeyType type, const nlohmann::json& header) const;

  JwtConfig config_;
  std::vector<Key> keys_;
};

/// Reads a JWKS file (at most 1 MiB) as text for JwtConfig::jwks_json. kNotFound when it does not
/// exist, kInvalidArgument when it cannot be read or is too large. Does not parse it.
Result<std::string> LoadJwksFile(const std::string& path);

}  // namespace cairn::security
