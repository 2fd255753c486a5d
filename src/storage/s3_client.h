// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/result.h"
#include "storage/file_io.h"

namespace cairn::storage {

/// `s3://bucket/key` (or `s3a://`) split into its parts. kInvalidArgument when malformed.
struct S3Location {
  std::string bucket;
  std::string key;  // without a leading slash; may be empty (the bucket root)
};
Result<S3Location> ParseS3Location(std::string_view location);

/// One HTTP exchange with an S3-compatible endpoint.
struct S3Request {
  std::string method = "GET";
  std::string bucket;                                      // empty for service-level calls (STS)
  std::string key;                                         // object key, unencoded
  std::vector<std::pair<std::string, std::string>> query;  // unencoded; sent sorted
  std::vector<std::pair<std::string, std::string>> headers;
  std::string_view body;       // streamed from memory; must outlive the call
  std::string service = "s3";  // SigV4 service name ("s3" or "sts")
  bool idempotent = true;      // whether a transport failure may be retried blindly
};

struct S3Response {
  long status = 0;
  std::string body;
  std::map<std::string, std::string> headers;  // lower-cased names
  int attempts = 0;
};

/// Signs (SigV4, by libcurl) and sends requests, retrying 5xx, throttling and transport errors
/// with exponential backoff. Connections are kept alive per thread. Thread-safe.
class S3Client {
 public:
  explicit S3Client(S3Options options);

  /// The response for any HTTP status; an error only when no response could be had
  /// (kUnavailable, naming the endpoint).
  Result<S3Response> Send(const S3Request& request) const;

  /// The endpoint requests go to (`http://host:port` or AWS's regional one).
  const std::string& endpoint() const { return endpoint_; }
  const S3Options& options() const { return options_; }

 private:
  /// Send without the metrics; `attempts` says how many were made.
  Result<S3Response> SendOnce(const S3Request& request, int& attempts) const;
  std::string Url(const S3Request& request) const;

  S3Options options_;
  std::string endpoint_;
};

/// `<Error><Code>X</Code><Message>Y</Message>` of an S3/STS error body as "X: Y" (or the status).
std::string S3ErrorText(const S3Response& response);

/// Inner texts of every `<tag>...</tag>` in `xml` (no nesting of the same tag), entity-decoded.
std::vector<std::string> XmlElements(std::string_view xml, std::string_view tag);
/// The first element's text, or empty.
std::string XmlElement(std::string_view xml, std::string_view tag);

/// Milliseconds since the epoch for an ISO-8601 UTC time (`2026-11-29T17:03:05.123Z`); 0 if bad.
int64_t ParseIsoTimeMs(std::string_view text);

/// Lower-case hex of a digest ("sha256" or "md5") of `data`.
std::string HexDigest(std::string_view algorithm, std::string_view data);

/// AWS's URI encoding (RFC 3986 unreserved kept; `/` kept when `keep_slash`).
std::string AwsUriEncode(std::string_view text, bool keep_slash);

}  // namespace cairn::storage
