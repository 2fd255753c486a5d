// SPDX-License-Identifier: Apache-2.0
// What a caller hands the remote signer and the tracing layer: an S3 request (URL, method, body)
// and a traceparent header. Nothing crashes, what is addressed is named as clean s3:// locations,
// a signature carries exactly one Authorization, and a parsed traceparent writes back as itself.
#include <algorithm>
#include <string>

#include "common/trace.h"
#include "fuzz_util.h"
#include "storage/sigv4.h"

using cairn::fuzz::Check;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text = cairn::fuzz::Text(data, size);

  if (auto parent = cairn::trace::ParseTraceparent(text)) {
    const std::string written = cairn::trace::FormatTraceparent(*parent);
    auto again = cairn::trace::ParseTraceparent(written);
    Check(again.has_value() && cairn::trace::FormatTraceparent(*again) == written,
          "a traceparent writes back as itself");
  }

  // Line 1: the URL; line 2: the method; the rest: the body.
  const size_t first = text.find('\n');
  const std::string_view url_text = text.substr(0, first);
  std::string_view rest = first == std::string_view::npos ? "" : text.substr(first + 1);
  const size_t second = rest.find('\n');
  const std::string method(rest.substr(0, second));
  const std::string_view body = second == std::string_view::npos ? "" : rest.substr(second + 1);

  auto url = cairn::storage::ParseHttpUrl(url_text);
  if (!url) return 0;
  Check(url->scheme == "http" || url->scheme == "https", "only http(s) URLs parse");
  cairn::storage::S3Options s3;
  s3.endpoint = "http://127.0.0.1:9000";
  s3.access_key_id = "AKID";
  s3.secret_access_key = "secret";
  if (auto target = cairn::storage::S3RequestTarget(*url, s3, method, body)) {
    for (const auto* list : {&target->objects, &target->prefixes}) {
      for (const auto& location : *list) {
        Check(location.rfind("s3://", 0) == 0, "targets are s3:// locations");
        Check(location.find("/../") == std::string::npos && !location.ends_with("/.."),
              "no target climbs out of its prefix");
      }
    }
    Check(!target->objects.empty() || !target->prefixes.empty(), "a target names something");
  }
  const auto headers = cairn::storage::SignS3Request(method, *url, {{"Authorization", "x"}}, s3,
                                                     "us-east-1", 0);
  Check(std::count_if(headers.begin(), headers.end(),
                      [](const auto& h) { return h.first == "Authorization"; }) == 1,
        "one Authorization");
  return 0;
}
