// SPDX-License-Identifier: Apache-2.0
#include "storage/credentials.h"

#include <algorithm>
#include <atomic>
#include <cmath>

#include <nlohmann/json.hpp>

#include "common/util.h"
#include "storage/s3_client.h"

namespace cairn::storage {

namespace {

constexpr size_t kMaxPolicyBytes = 2048;  // STS's limit for an inline session policy

std::string FormEncode(const std::vector<std::pair<std::string, std::string>>& fields) {
  std::string out;
  for (const auto& [k, v] : fields) {
    if (!out.empty()) out += '&';
    out += AwsUriEncode(k, false);
    out += '=';
    out += AwsUriEncode(v, false);
  }
  return out;
}

const std::string* Find(const std::map<std::string, std::string>& props, const char* key) {
  auto it = props.find(key);
  return it == props.end() || Trim(it->second).empty() ? nullptr : &it->second;
}

}  // namespace

Result<TemporaryCredentials> AssumeRole(const S3Options& caller, const std::string& sts_endpoint,
                                        const AssumeRoleRequest& request) {
  S3Options opts = caller;
  opts.endpoint = sts_endpoint;
  opts.session_token.clear();
  S3Client client(opts);
  std::vector<std::pair<std::string, std::string>> form = {
      {"Action", "AssumeRole"},
      {"Version", "2011-06-15"},
      {"DurationSeconds", std::to_string(request.duration_secs)},
      {"RoleSessionName", request.session_name},
  };
  if (!request.policy.empty()) form.emplace_back("Policy", request.policy);
  if (!request.role_arn.empty()) form.emplace_back("RoleArn", request.role_arn);
  if (!request.external_id.empty()) form.emplace_back("ExternalId", request.external_id);
  const std::string body = FormEncode(form);
  S3Request req;
  req.method = "POST";
  req.service = "sts";
  req.body = body;
  req.headers.emplace_back("Content-Type", "application/x-www-form-urlencoded");
  CAIRN_ASSIGN_OR_RETURN(auto resp, client.Send(req));
  if (resp.status != 200) {
    return Unavailable("STS at {} refused AssumeRole: {}", client.endpoint(), S3ErrorText(resp));
  }
  TemporaryCredentials out;
  const std::string creds = XmlElement(resp.body, "Credentials");
  out.access_key_id = XmlElement(creds, "AccessKeyId");
  out.secret_access_key = XmlElement(creds, "SecretAccessKey");
  out.session_token = XmlElement(creds, "SessionToken");
  out.expiration_ms = ParseIsoTimeMs(XmlElement(creds, "Expiration"));
  if (out.access_key_id.empty() || out.secret_access_key.empty() || out.session_token.empty()) {
    return Unavailable("STS at {} answered AssumeRole without credentials", client.endpoint());
  }
  return out;
}

Result<std::string> ScopedS3Policy(const std::vector<std::string>& locations, bool write) {
  nlohmann::ordered_json objects = nlohmann::ordered_json::array();
  std::map<std::string, nlohmann::ordered_json> list_prefixes;  // bucket -> prefixes
  for (const auto& location : locations) {
    CAIRN_ASSIGN_OR_RETURN(auto loc, ParseS3Location(location));
    std::string prefix = loc.key;
    while (!prefix.empty() && prefix.back() == '/') prefix.pop_back();
    if (prefix.empty()) {
      return InvalidArgument("refusing to vend credentials for the whole bucket '{}'", loc.bucket);
    }
    objects.push_back("arn:aws:s3:::" + loc.bucket + "/" + prefix + "/*");
    auto& prefixes = list_prefixes[loc.bucket];
    if (prefixes.is_null()) prefixes = nlohmann::ordered_json::array();
    prefixes.push_back(prefix + "/*");
    prefixes.push_back(prefix + "/");
    prefixes.push_back(prefix);
  }
  nlohmann::ordered_json actions = {"s3:GetObject", "s3:GetObjectVersion"};
  if (write) {
    for (const char* a : {"s3:PutObject", "s3:DeleteObject", "s3:AbortMultipartUpload",
                          "s3:ListMultipartUploadParts"}) {
      actions.push_back(a);
    }
  }
  nlohmann::ordered_json statements = nlohmann::ordered_json::array();
  statements.push_back({{"Effect", "Allow"}, {"Action", actions}, {"Resource", objects}});
  for (const auto& [bucket, prefixes] : list_prefixes) {
    statements.push_back({{"Effect", "Allow"},
                          {"Action", {"s3:ListBucket"}},
                          {"Resource", {"arn:aws:s3:::" + bucket}},
                          {"Condition", {{"StringLike", {{"s3:prefix", prefixes}}}}}});
    statements.push_back({{"Effect", "Allow"},
                          {"Action", {"s3:GetBucketLocation"}},
                          {"Resource", {"arn:aws:s3:::" + bucket}}});
  }
  nlohmann::ordered_json policy = {{"Version", "2012-10-17"}, {"Statement", statements}};
  std::string text = policy.dump();
  if (text.size() > kMaxPolicyBytes) {
    return InvalidArgument("the session policy for {} locations exceeds {} bytes", locations.size(),
                           kMaxPolicyBytes);
  }
  return text;
}

namespace {

uint64_t NextCredentialSerial() {
  static std::atomic<uint64_t> next{0};
  return ++next;
}

}  // namespace

Result<CredentialVendor> CredentialVendor::FromProperties(
    const std::map<std::string, std::string>& props) {
  CredentialVendor v;
  if (const auto* p = Find(props, "credential-providers")) {
    for (auto& part : Split(*p, ',')) {
      std::string name(Trim(part));
      if (name.empty()) continue;
      if (name != "s3-token" && name != "s3-secret-key") {
        return InvalidArgument(
            "Invalid property 'credential-providers': unknown provider '{}' (supported: "
            "s3-token, s3-secret-key)",
            name);
      }
      if (std::find(v.providers_.begin(), v.providers_.end(), name) == v.providers_.end())
        v.providers_.push_back(name);
    }
  }
  v.s3_ = StorageOptions::FromProperties(props).s3;
  v.s3_.session_token.clear();
  if (const auto* p = Find(props, "s3-token-service-endpoint")) v.sts_endpoint_ = *p;
  if (v.sts_endpoint_.empty()) {
    v.sts_endpoint_ = v.s3_.endpoint.empty()
                          ? fmt::format("https://sts.{}.amazonaws.com", v.s3_.region)
                          : v.s3_.endpoint;
  }
  if (const auto* p = Find(props, "s3-role-arn")) v.role_arn_ = *p;
  if (const auto* p = Find(props, "s3-external-id")) v.external_id_ = *p;
  if (const auto* p = Find(props, "s3-token-expire-in-secs")) {
    char* end = nullptr;
    const long long secs = std::strtoll(p->c_str(), &end, 10);
    if (end == p->c_str() || *end != '\0' || secs < 900 || secs > 43200) {
      return InvalidArgument(
          "Invalid property 's3-token-expire-in-secs': expected seconds between 900 and 43200, "
          "got '{}'",
          *p);
    }
    v.token_secs_ = secs;
  }
  if (const auto* p = Find(props, "credential-cache-expire-ratio")) {
    char* end = nullptr;
    const double ratio = std::strtod(p->c_str(), &end);
    if (end == p->c_str() || *end != '\0' || !(ratio >= 0.0 && ratio < 1.0)) {
      return InvalidArgument(
          "Invalid property 'credential-cache-expire-ratio': expected a number in [0, 1), got '{}'",
          *p);
    }
    v.cache_ratio_ = ratio;
  }
  if (v.enabled() && (v.s3_.access_key_id.empty() || v.s3_.secret_access_key.empty())) {
    return InvalidArgument(
        "Missing property 's3-access-key-id' or 's3-secret-access-key': required by "
        "credential-providers '{}'",
        props.at("credential-providers"));
  }
  v.serial_ = NextCredentialSerial();
  auto long_term = std::make_shared<Credential>();
  long_term->type = "s3-secret-key";
  long_term->info = {{"s3-access-key-id", v.s3_.access_key_id},
                     {"s3-secret-access-key", v.s3_.secret_access_key}};
  long_term->serial = v.serial_;
  v.long_term_ = std::move(long_term);
  return v;
}

CredentialVendor::CredentialVendor(const CredentialVendor& other)
    : providers_(other.providers_),
      s3_(other.s3_),
      sts_endpoint_(other.sts_endpoint_),
      role_arn_(other.role_arn_),
      external_id_(other.external_id_),
      token_secs_(other.token_secs_),
      cache_ratio_(other.cache_ratio_),
      serial_(other.serial_),
      long_term_(other.long_term_) {}

CredentialVendor& CredentialVendor::operator=(const CredentialVendor& other) {
  if (this != &other) {
    providers_ = other.providers_;
    s3_ = other.s3_;
    sts_endpoint_ = other.sts_endpoint_;
    role_arn_ = other.role_arn_;
    external_id_ = other.external_id_;
    token_secs_ = other.token_secs_;
    cache_ratio_ = other.cache_ratio_;
    serial_ = other.serial_;
    long_term_ = other.long_term_;
    std::lock_guard lock(mu_);
    cache_.clear();
  }
  return *this;
}

Result<std::vector<Credential>> CredentialVendor::Vend(const std::vector<std::string>& locations,
                                                       AccessLevel level, int64_t now_ms) {
  CAIRN_ASSIGN_OR_RETURN(auto shared, VendShared(locations, level, now_ms));
  std::vector<Credential> out;
  out.reserve(shared.size());
  for (const auto& c : shared) out.push_back(*c);
  return out;
}

Result<std::vector<std::shared_ptr<const Credential>>> CredentialVendor::VendShared(
    const std::vector<std::string>& locations, AccessLevel level, int64_t now_ms) {
  std::vector<std::shared_ptr<const Credential>> out;
  out.reserve(providers_.size());
  for (const auto& provider : providers_) {
    if (provider == "s3-secret-key") {
      out.push_back(long_term_);
      continue;
    }
    // s3-token: keys that reach only these locations, cached by the sorted locations.
    std::string key = level == AccessLevel::kReadWrite ? "rw" : "r";
    std::vector<std::string> sorted;
    if (locations.size() == 1) {
      key += '\n';
      key += locations[0];
    } else {
      sorted = locations;
      std::sort(sorted.begin(), sorted.end());
      for (const auto& l : sorted) key += "\n" + l;
    }
    {
      std::lock_guard lock(mu_);
      auto it = cache_.find(key);
      if (it != cache_.end() && now_ms < it->second.refresh_at_ms) {
        out.push_back(it->second.credential);
        continue;
      }
    }
    if (locations.size() == 1) sorted = locations;
    CAIRN_ASSIGN_OR_RETURN(auto policy, ScopedS3Policy(sorted, level == AccessLevel::kReadWrite));
    AssumeRoleRequest req;
    req.role_arn = role_arn_;
    req.external_id = external_id_;
    req.policy = std::move(policy);
    req.duration_secs = token_secs_;
    CAIRN_ASSIGN_OR_RETURN(auto temp, AssumeRole(s3_, sts_endpoint_, req));
    auto c = std::make_shared<Credential>();
    c->type = provider;
    c->expire_time_ms = temp.expiration_ms > 0 ? temp.expiration_ms : now_ms + token_secs_ * 1000;
    c->info = {{"s3-access-key-id", temp.access_key_id},
               {"s3-secret-access-key", temp.secret_access_key},
               {"s3-session-token", temp.session_token}};
    c->serial = NextCredentialSerial();
    const int64_t lifetime = std::max<int64_t>(0, c->expire_time_ms - now_ms);
    {
      std::lock_guard lock(mu_);
      if (cache_.size() > 10000) cache_.clear();  // bounded; entries are cheap to re-mint
      cache_[key] = Cached{c, now_ms + static_cast<int64_t>(std::llround(lifetime * cache_ratio_))};
    }
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace cairn::storage
