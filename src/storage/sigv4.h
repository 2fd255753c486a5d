// SPDX-License-Identifier: Apache-2.0
// AWS Signature Version 4 for S3 requests a client will send itself: the catalog signs them
// (remote signing) instead of handing out keys. docs/storage.md#remote-signing.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/result.h"
#include "storage/file_io.h"

namespace cairn::storage {

using HeaderList = std::vector<std::pair<std::string, std::string>>;

/// An http(s) URL taken apart as sent: `path` and `query` still percent-encoded.
struct HttpUrl {
  std::string scheme;  // "http" or "https"
  std::string host;    // without brackets for IPv6
  int port = 0;        // 0: the scheme's default
  std::string path;    // starts with '/'
  std::string query;   // without '?'
  /// host[:port] as the Host header carries it (the port only when not the default).
  std::string Authority() const;
};

/// kInvalidArgument for anything but an absolute http(s) URL.
Result<HttpUrl> ParseHttpUrl(std::string_view url);

/// What an S3 request addresses, as s3:// locations: the objects it reads or writes, and the
/// prefixes it lists.
struct S3Target {
  std::vector<std::string> objects;
  std::vector<std::string> prefixes;
};

/// What a `method` request to `url` (with `body`, for a multi-object delete) addresses on the
/// storage of `s3`. kInvalidArgument (the caller refuses with 403) when the URL is not that
/// endpoint (path-style or virtual-hosted), a key has a `.` or `..` segment, or the request is
/// one this signer does not take: bucket-level requests other than listing a prefix and
/// deleting keys.
Result<S3Target> S3RequestTarget(const HttpUrl& url, const S3Options& s3, std::string_view method,
                                 std::string_view body);

/// True when listing `prefix` shows only what lies under `location` (LocationWithin for objects).
bool PrefixWithin(std::string_view prefix, std::string_view location);

/// Signs a request to `url` with `keys` (SigV4, service s3, `region`, at `now_ms`): returns the
/// headers to send, the client's own (but any Authorization, X-Amz-Date and
/// X-Amz-Security-Token it had) followed by X-Amz-Date, X-Amz-Content-Sha256 (UNSIGNED-PAYLOAD
/// unless the client gave one), X-Amz-Security-Token (with a session token) and Authorization.
/// Signed are Host and every Content-MD5, Content-Type and X-Amz-* header.
HeaderList SignS3Request(std::string_view method, const HttpUrl& url, const HeaderList& headers,
                         const S3Options& keys, std::string_view region, int64_t now_ms);

}  // namespace cairn::storage
