// SPDX-License-Identifier: Apache-2.0
#include "storage/file_io.h"
#include "storage/s3_client.h"

namespace cairn::storage {

namespace {

// The scheme and bucket part of a location (`s3://bucket`), used to rebuild child locations.
std::string LocationRoot(std::string_view location, const S3Location& parsed) {
  const size_t scheme_end = location.find("://");
  return std::string(location.substr(0, scheme_end + 3)) + parsed.bucket;
}

class S3FileIO final : public FileIO {
 public:
  explicit S3FileIO(S3Options options) : client_(std::move(options)) {}

  Result<std::string> Read(std::string_view location) override {
    CAIRN_ASSIGN_OR_RETURN(auto loc, ParseS3Location(location));
    S3Request req;
    req.bucket = loc.bucket;
    req.key = loc.key;
    CAIRN_ASSIGN_OR_RETURN(auto resp, client_.Send(req));
    if (resp.status == 200) return std::move(resp.body);
    if (resp.status == 404)
      return NotFound(EntityKind::kNone, "file '{}' does not exist", location);
    return Failure("read", location, resp);
  }

  Status WriteNew(std::string_view location, std::string_view data) override {
    CAIRN_ASSIGN_OR_RETURN(auto loc, ParseS3Location(location));
    S3Request req;
    req.method = "PUT";
    req.bucket = loc.bucket;
    req.key = loc.key;
    req.body = data;
    // Conditional create: the store refuses to overwrite an existing object.
    req.headers.emplace_back("If-None-Match", "*");
    CAIRN_ASSIGN_OR_RETURN(auto resp, client_.Send(req));
    if (resp.status == 200) return Ok();
    if (resp.status == 412 || resp.status == 409) {
      // After a retry the object may be our own first attempt, whose answer was lost.
      if (resp.attempts > 1) {
        auto same = SameContent(loc, data);
        if (same && *same) return Ok();
      }
      return AlreadyExists(EntityKind::kNone, "file '{}' already exists", location);
    }
    return Failure("write", location, resp);
  }

  Result<bool> Exists(std::string_view location) override {
    CAIRN_ASSIGN_OR_RETURN(auto loc, ParseS3Location(location));
    S3Request req;
    req.method = "HEAD";
    req.bucket = loc.bucket;
    req.key = loc.key;
    CAIRN_ASSIGN_OR_RETURN(auto resp, client_.Send(req));
    if (resp.status == 200) return true;
    if (resp.status != 404) return Failure("stat", location, resp);
    // Not an object: a "directory" exists when any object lies below it.
    std::string prefix = loc.key;
    if (prefix.empty()) return true;  // the bucket root (the listing below would 404 if absent)
    if (prefix.back() != '/') prefix += '/';
    S3Request list;
    list.bucket = loc.bucket;
    list.query = {{"list-type", "2"}, {"prefix", prefix}, {"max-keys", "1"}};
    CAIRN_ASSIGN_OR_RETURN(auto listed, client_.Send(list));
    if (listed.status == 404) return false;
    if (listed.status != 200) return Failure("list", location, listed);
    return XmlElement(listed.body, "KeyCount") != "0" &&
           !XmlElements(listed.body, "Contents").empty();
  }

  Result<std::vector<std::string>> List(std::string_view location) override {
    CAIRN_ASSIGN_OR_RETURN(auto entries, ListEntries(location));
    std::vector<std::string> out;
    out.reserve(entries.size());
    for (auto& e : entries) out.push_back(std::move(e.name));
    return out;
  }

  Result<std::vector<FileEntry>> ListEntries(std::string_view location) override {
    CAIRN_ASSIGN_OR_RETURN(auto loc, ParseS3Location(location));
    std::string prefix = loc.key;
    if (!prefix.empty() && prefix.back() != '/') prefix += '/';
    const std::string root = LocationRoot(location, loc);
    std::vector<FileEntry> out;
    auto add = [&](std::string_view key, bool is_dir, int64_t size, int64_t modified) {
      std::string_view name = key.substr(prefix.size());
      if (is_dir && !name.empty() && name.back() == '/') name.remove_suffix(1);
      if (name.empty()) return;  // the "directory marker" object of the prefix itself
      FileEntry e;
      e.name = std::string(name);
      e.location = root + "/" + prefix + e.name;
      e.is_dir = is_dir;
      e.size = size;
      e.last_modified_ms = modified;
      out.push_back(std::move(e));
    };
    std::string token;
    do {
      CAIRN_ASSIGN_OR_RETURN(auto page, ListPage(loc.bucket, prefix, "/", token));
      for (const auto& contents : XmlElements(page, "Contents")) {
        add(XmlElement(contents, "Key"), false, std::atoll(XmlElement(contents, "Size").c_str()),
            ParseIsoTimeMs(XmlElement(contents, "LastModified")));
      }
      for (const auto& common : XmlElements(page, "CommonPrefixes")) {
        add(XmlElement(common, "Prefix"), true, 0, 0);
      }
      token = XmlElement(page, "IsTruncated") == "true" ? XmlElement(page, "NextContinuationToken")
                                                        : std::string();
    } while (!token.empty());
    return out;
  }

  Status Delete(std::string_view location) override {
    CAIRN_ASSIGN_OR_RETURN(auto loc, ParseS3Location(location));
    S3Request req;
    req.method = "DELETE";
    req.bucket = loc.bucket;
    req.key = loc.key;
    CAIRN_ASSIGN_OR_RETURN(auto resp, client_.Send(req));
    if (resp.status == 204 || resp.status == 200 || resp.status == 404) return Ok();
    return Failure("delete", location, resp);
  }

  Status DeletePrefix(std::string_view location) override {
    CAIRN_ASSIGN_OR_RETURN(auto loc, ParseS3Location(location));
    std::string prefix = loc.key;
    if (!prefix.empty() && prefix.back() != '/') prefix += '/';
    if (prefix.empty()) {
      return InvalidArgument("refusing to delete every object of bucket '{}'", loc.bucket);
    }
    const std::string root = LocationRoot(location, loc);
    std::string token;
    do {
      // Keys are collected page by page (no delimiter: the whole tree under the prefix).
      CAIRN_ASSIGN_OR_RETURN(auto page, ListPage(loc.bucket, prefix, "", token));
      for (const auto& contents : XmlElements(page, "Contents")) {
        CAIRN_RETURN_IF_ERROR(Delete(root + "/" + XmlElement(contents, "Key")));
      }
      token = XmlElement(page, "IsTruncated") == "true" ? XmlElement(page, "NextContinuationToken")
                                                        : std::string();
    } while (!token.empty());
    return Ok();
  }

 private:
  Result<std::string> ListPage(const std::string& bucket, const std::string& prefix,
                               const std::string& delimiter, const std::string& token) {
    S3Request req;
    req.bucket = bucket;
    req.query = {{"list-type", "2"}, {"prefix", prefix}};
    if (!delimiter.empty()) req.query.emplace_back("delimiter", delimiter);
    if (!token.empty()) req.query.emplace_back("continuation-token", token);
    CAIRN_ASSIGN_OR_RETURN(auto resp, client_.Send(req));
    if (resp.status == 200) return std::move(resp.body);
    if (resp.status == 404) {
      return NotFound(EntityKind::kNone, "bucket '{}' does not exist at {}", bucket,
                      client_.endpoint());
    }
    return Failure("list", fmt::format("s3://{}/{}", bucket, prefix), resp);
  }

  Result<bool> SameContent(const S3Location& loc, std::string_view data) {
    S3Request req;
    req.method = "HEAD";
    req.bucket = loc.bucket;
    req.key = loc.key;
    CAIRN_ASSIGN_OR_RETURN(auto resp, client_.Send(req));
    if (resp.status != 200) return false;
    std::string etag = resp.headers["etag"];
    if (etag.size() >= 2 && etag.front() == '"') etag = etag.substr(1, etag.size() - 2);
    return etag == HexDigest("md5", data);
  }

  Error Failure(std::string_view what, std::string_view location, const S3Response& resp) {
    return Unavailable("cannot {} '{}' at {}: {}", what, location, client_.endpoint(),
                       S3ErrorText(resp));
  }

  S3Client client_;
};

}  // namespace

Result<std::unique_ptr<FileIO>> MakeS3FileIO(const S3Options& options) {
  return std::unique_ptr<FileIO>(std::make_unique<S3FileIO>(options));
}

}  // namespace cairn::storage
