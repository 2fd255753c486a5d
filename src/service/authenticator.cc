// SPDX-License-Identifier: Apache-2.0
#include "service/authenticator.h"

#include <algorithm>
#include <atomic>
#include <cstdint>

#include <nlohmann/json.hpp>
#include <openssl/evp.h>

#include "common/util.h"
#include "json/json_util.h"
#include "security/base64.h"
#include "security/jwks_fetch.h"
#include "security/password.h"

namespace cairn::service {

using governance::Principal;
using store::EntityRecord;
using store::EntityType;

namespace {

bool HasControlCharacter(std::string_view s) {
  return std::any_of(s.begin(), s.end(), [](char ch) {
    const auto c = static_cast<unsigned char>(ch);
    return c < 0x20 || c == 0x7f;
  });
}

constexpr auto kVerifiedTtl = std::chrono::minutes(5);

std::string Sha256(std::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(data.data(), data.size(), out, &len, EVP_sha256(), nullptr);
  return std::string(reinterpret_cast<const char*>(out), len);
}

Error Unauthenticated(std::string message) {
  return Error{ErrorCode::kUnauthenticated, EntityKind::kNone, std::move(message)};
}

std::atomic<uint64_t> next_serial{1};

// Under `simple` the caller is the name a Basic header carries, checked against nothing: each
// thread keeps the last such header and its name, and a keep-alive client sending the same
// header again is named without decoding it.
struct SimpleMemo {
  uint64_t authenticator = 0;  // Authenticator::serial_; 0: empty
  std::string header;
  std::string user;
};
thread_local SimpleMemo simple_memo;

}  // namespace

Authenticator::Authenticator(AuthnConfig config, store::MetadataStore& store)
    : config_(std::move(config)),
      store_(store),
      serial_(next_serial.fetch_add(1, std::memory_order_relaxed)) {}

Result<std::unique_ptr<Authenticator>> Authenticator::Make(AuthnConfig config,
                                                           store::MetadataStore& store) {
  std::unique_ptr<Authenticator> a(new Authenticator(std::move(config), store));
  for (const auto& name : a->config_.authenticators) {
    if (name == "simple") {
      a->simple_ = true;
    } else if (name == "certificate") {
      a->certificate_ = true;
    } else if (name == "basic") {
      a->basic_ = true;
    } else if (name == "oauth2") {
      security::JwtConfig jwt = a->config_.jwt;
      if (!a->config_.jwks_file.empty()) {
        CAIRN_ASSIGN_OR_RETURN(jwt.jwks_json, security::LoadJwksFile(a->config_.jwks_file));
      } else if (!a->config_.jwks_url.empty()) {
        auto fetched = security::FetchJwks(a->config_.jwks_url);
        if (!fetched)
          return InvalidArgument("cairn.authenticator.oauth2.jwks-url: {}",
                                 fetched.error().message);
        jwt.jwks_json = std::move(*fetched);
      }
      auto verifier = security::JwtVerifier::Make(jwt);
      if (!verifier) {
        return InvalidArgument("cairn.authenticator.oauth2: {}", verifier.error().message);
      }
      a->jwt_.emplace(std::move(*verifier));
    } else {
      return InvalidArgument(
          "Unknown authenticator '{}' in cairn.authenticators; expected simple, basic, oauth2 "
          "or certificate",
          name);
    }
  }
  if (a->simple_ && a->basic_) {
    return InvalidArgument(
        "cairn.authenticators: 'simple' and 'basic' both take Basic credentials; configure one");
  }
  if (!a->simple_ && !a->basic_ && !a->jwt_ && !a->certificate_)
    return InvalidArgument("cairn.authenticators must not be empty");
  return a;
}

std::string Authenticator::Challenge() const {
  std::vector<std::string> challenges;
  if (simple_ || basic_) challenges.emplace_back(R"(Basic realm="cairn")");
  if (jwt_) challenges.emplace_back(R"(Bearer realm="cairn")");
  return Join(challenges, ", ");
}

Status Authenticator::EnsureBasicUser(const std::string& name, const std::string& password) {
  if (!basic_)
    return InvalidArgument(
        "cairn.authenticator.basic.bootstrap-user needs 'basic' in cairn.authenticators");
  auto existing = store_.Get(EntityType::kIdpUser, 0, name);
  if (existing) return Ok();
  if (existing.error().code != ErrorCode::kNotFound) return std::move(existing).error();
  model::Audit audit;
  audit.creator = "system";
  audit.create_time = NowMillis();
  auto s = AddBasicUser(name, password, audit);
  if (!s && s.error().code == ErrorCode::kAlreadyExists) return Ok();  // another replica won
  return s;
}

Result<Principal> Authenticator::Authenticate(std::optional<std::string_view> authorization,
                                              std::string_view client_certificate_cn) const {
  if (certificate_ && !client_certificate_cn.empty()) {
    // A verified client certificate names the caller, unless the request also carries
    // credentials a verifying authenticator checks (a password under `basic`, a token under
    // `oauth2`): those name whom a certified service calls for. `simple` verifies nothing, so
    // it never overrides a certificate.
    const std::string_view header = authorization ? Trim(*authorization) : std::string_view();
    const std::string scheme = ToLower(header.substr(0, header.find(' ')));
    const bool verified_header = (scheme == "basic" && basic_) || (scheme == "bearer" && jwt_);
    if (!verified_header) {
      if (HasControlCharacter(client_certificate_cn))
        return Unauthenticated("The client certificate's common name is not a principal name");
      return Principal{std::string(client_certificate_cn), {}};
    }
  }
  if (simple_ && authorization && simple_memo.authenticator == serial_ &&
      simple_memo.header == *authorization) {
    return Principal{simple_memo.user, {}};
  }
  if (!authorization || Trim(*authorization).empty()) {
    if (simple_) return Principal{"anonymous", {}};
    return Unauthenticated(certificate_ && !jwt_ && !basic_
                               ? "Authentication is required: present a client certificate"
                               : "Authentication is required: send an Authorization header");
  }
  std::string_view header = Trim(*authorization);
  const size_t space = header.find(' ');
  const std::string scheme = ToLower(header.substr(0, space));
  const std::string_view credentials =
      space == std::string_view::npos ? "" : Trim(header.substr(space + 1));
  if (scheme == "basic" && (simple_ || basic_)) {
    auto decoded = security::Base64Decode(credentials);
    if (!decoded) {
      if (simple_) return Principal{"anonymous", {}};
      return Unauthenticated("Malformed Basic credentials");
    }
    const size_t colon = decoded->find(':');
    const std::string user = decoded->substr(0, colon);
    if (simple_) {
      Principal p{user.empty() ? "anonymous" : user, {}};
      simple_memo = SimpleMemo{serial_, std::string(*authorization), p.user};
      return p;
    }
    const std::string password = colon == std::string::npos ? "" : decoded->substr(colon + 1);
    return Basic(user, password);
  }
  if (scheme == "bearer" && jwt_) {
    auto claims = jwt_->Verify(credentials, NowMillis() / 1000);
    if (!claims) return std::move(claims).error();
    Principal p{claims->principal, {}};
    auto groups = claims->claims.find(config_.groups_claim);
    if (groups != claims->claims.end() && groups->is_array()) {
      for (const auto& g : *groups) {
        if (g.is_string()) p.groups.push_back(g.get<std::string>());
      }
    }
    return p;
  }
  // `simple` asserts nothing about identity; credentials it does not understand (PyIceberg sends
  // "Bearer None" when it has no token) make the caller anonymous rather than failing.
  if (simple_) return Principal{"anonymous", {}};
  return Unauthenticated(
      fmt::format("The provided credentials are not supported: {} authentication is not enabled",
                  scheme.empty() ? "this" : scheme));
}

Result<Principal> Authenticator::Basic(const std::string& user, const std::string& password) const {
  if (user.empty()) return Unauthenticated("Invalid user name or password");
  // HMAC pads a short key with zero bytes, so "pw" and "pw\0" hash alike; stored passwords
  // hold no control character, and a presented one that does is wrong.
  if (HasControlCharacter(password)) return Unauthenticated("Invalid user name or password");
  const std::string key = Sha256(user + '\0' + password);
  const auto now = std::chrono::steady_clock::now();
  {
    std::lock_guard lock(mu_);
    auto it = verified_.find(key);
    if (it != verified_.end() && it->second > now) return Principal{user, {}};
  }
  auto row = store_.Get(EntityType::kIdpUser, 0, user);
  if (!row) {
    if (row.error().code == ErrorCode::kNotFound)
      return Unauthenticated("Invalid user name or password");
    return std::move(row).error();
  }
  auto payload = json::ParseJsonOrDiscarded(row->payload);
  const std::string encoded = payload.is_object() ? payload.value("password", "") : "";
  if (!security::VerifyPassword(password, encoded))
    return Unauthenticated("Invalid user name or password");
  std::lock_guard lock(mu_);
  if (verified_.size() > 10000) verified_.clear();
  verified_[key] = now + kVerifiedTtl;
  return Principal{user, {}};
}

Status Authenticator::AddBasicUser(const std::string& name, const std::string& password,
                                   const model::Audit& audit) {
  if (Trim(name).empty()) return InvalidArgument("Field 'user' must not be empty");
  if (password.size() < 8)
    return InvalidArgument("Field 'password' must have at least 8 characters");
  if (HasControlCharacter(password))
    return InvalidArgument("Field 'password' must not contain control characters");
  if (HasControlCharacter(name))
    return InvalidArgument("Field 'user' must not contain control characters");
  EntityRecord row;
  row.type = EntityType::kIdpUser;
  row.parent_id = 0;
  row.name = name;
  row.payload = nlohmann::json{{"password", security::HashPassword(password)}}.dump();
  row.audit = audit;
  auto inserted = store_.Insert(row);
  if (!inserted) {
    if (inserted.error().code == ErrorCode::kAlreadyExists) {
      return AlreadyExists(EntityKind::kUser, "User {} already exists", name);
    }
    return std::move(inserted).error();
  }
  return Ok();
}

Result<bool> Authenticator::RemoveBasicUser(const std::string& name) {
  auto row = store_.Get(EntityType::kIdpUser, 0, name);
  if (!row) {
    if (row.error().code == ErrorCode::kNotFound) return false;
    return std::move(row).error();
  }
  {
    std::lock_guard lock(mu_);
    verified_.clear();
  }
  return store_.Delete(row->id);
}

Result<std::vector<std::string>> Authenticator::ListBasicUsers() {
  CAIRN_ASSIGN_OR_RETURN(auto rows, store_.List(EntityType::kIdpUser, 0, "", 0));
  std::vector<std::string> out;
  for (const auto& r : rows) out.push_back(r.name);
  return out;
}

}  // namespace cairn::service
