// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/result.h"
#include "storage/file_io.h"

namespace cairn::storage {

/// Short-lived keys from STS.
struct TemporaryCredentials {
  std::string access_key_id;
  std::string secret_access_key;
  std::string session_token;
  int64_t expiration_ms = 0;
};

struct AssumeRoleRequest {
  std::string role_arn;     // optional for MinIO
  std::string external_id;  // optional
  std::string session_name = "cairn";
  std::string policy;  // inline session policy (JSON)
  int64_t duration_secs = 3600;
};

/// Calls STS AssumeRole at `sts_endpoint`, signed with the long-term keys in `caller`.
/// kUnavailable when STS cannot be reached or refuses (with its error code and message).
Result<TemporaryCredentials> AssumeRole(const S3Options& caller, const std::string& sts_endpoint,
                                        const AssumeRoleRequest& request);

/// A session policy that allows reading (and, with `write`, writing and deleting) the objects
/// under each `s3://bucket/prefix` location, and listing inside those prefixes only.
/// kInvalidArgument when a location is not on S3.
Result<std::string> ScopedS3Policy(const std::vector<std::string>& locations, bool write);

/// What a caller may do with the vended keys.
enum class AccessLevel { kRead, kReadWrite };

/// One vended credential, in Gravitino's shape (`credentialType`, `expireTimeInMs`,
/// `credentialInfo`).
struct Credential {
  std::string type;            // "s3-token", "s3-secret-key"
  int64_t expire_time_ms = 0;  // 0 for keys that do not expire
  std::map<std::string, std::string> info;
  /// Names the content: two credentials a vendor hands out with the same nonzero serial have
  /// the same type, expiry and values (so what is rendered from one serves for the other).
  /// 0: not known.
  uint64_t serial = 0;
};

/// Vends storage credentials for one catalog, configured from its properties
/// (`credential-providers`, `s3-*`, `s3-token-expire-in-secs`, `s3-role-arn`, `s3-external-id`,
/// `s3-token-service-endpoint`, `credential-cache-expire-ratio`). Tokens are cached per
/// (locations, access level) and re-minted once `ratio` of their lifetime has passed, so a
/// caller always gets most of a token's life. Thread-safe.
class CredentialVendor {
 public:
  /// kInvalidArgument naming the property when the configuration is incomplete or unknown.
  static Result<CredentialVendor> FromProperties(const std::map<std::string, std::string>& props);

  CredentialVendor() = default;
  CredentialVendor(const CredentialVendor& other);
  CredentialVendor& operator=(const CredentialVendor& other);

  /// Whether any provider is configured (otherwise Vend answers an empty list).
  bool enabled() const { return !providers_.empty(); }
  const std::vector<std::string>& providers() const { return providers_; }

  Result<std::vector<Credential>> Vend(const std::vector<std::string>& locations, AccessLevel level,
                                       int64_t now_ms);
  /// The same credentials, shared with the vendor's cache instead of copied (a vended load
  /// asks on every request).
  Result<std::vector<std::shared_ptr<const Credential>>> VendShared(
      const std::vector<std::string>& locations, AccessLevel level, int64_t now_ms);

 private:
  std::vector<std::string> providers_;
  S3Options s3_;
  std::string sts_endpoint_;
  std::string role_arn_;
  std::string external_id_;
  int64_t token_secs_ = 3600;
  double cache_ratio_ = 0.15;
  uint64_t serial_ = 0;  // of the long-term keys' credential: new with every configuration

  struct Cached {
    std::shared_ptr<const Credential> credential;
    int64_t refresh_at_ms = 0;
  };
  std::mutex mu_;
  std::unordered_map<std::string, Cached> cache_;
  std::shared_ptr<const Credential> long_term_;  // s3-secret-key's, built with the configuration
};

}  // namespace cairn::storage
