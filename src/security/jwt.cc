// SPDX-License-Identifier: Apache-2.0
#include "security/jwt.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <sstream>
#include <system_error>

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/hmac.h>
#include <openssl/rsa.h>

#include "json/json_util.h"
#include "security/base64.h"

namespace cairn::security {

namespace {

using Json = nlohmann::json;

constexpr size_t kMaxTokenBytes = 64 * 1024;
constexpr size_t kMaxJwksBytes = 1024 * 1024;
constexpr size_t kMinHs256SecretBytes = 32;
constexpr int kMinRsaBits = 2048;
constexpr size_t kP256CoordinateBytes = 32;
constexpr int64_t kMaxSkewSecs = 24 * 60 * 60;

template <typename... Args>
Error Unauthenticated(fmt::format_string<Args...> f, Args&&... args) {
  return MakeError(ErrorCode::kUnauthenticated, EntityKind::kNone, f, std::forward<Args>(args)...);
}

// Attacker-chosen header and claim values may appear in messages (and so in logs): cap their
// length and replace anything that is not printable ASCII.
std::string Shown(std::string_view s) {
  constexpr size_t kMax = 64;
  std::string out;
  for (size_t i = 0; i < s.size() && i < kMax; ++i) {
    const char c = s[i];
    out.push_back(c >= 0x20 && c < 0x7F ? c : '?');
  }
  if (s.size() > kMax) {
    out.append("...");
  }
  return out;
}

int64_t SaturatingAdd(int64_t a, int64_t b) {
  int64_t out = 0;
  if (__builtin_add_overflow(a, b, &out)) {
    return b > 0 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
  }
  return out;
}

const unsigned char* Bytes(std::string_view s) {
  return reinterpret_cast<const unsigned char*>(s.data());
}

// A NumericDate claim (RFC 7519 §2): integer or fractional seconds. nullopt when absent;
// an error when present with another type.
Result<std::optional<int64_t>> NumericDate(const Json& claims, const char* name) {
  auto it = claims.find(name);
  if (it == claims.end()) {
    return std::optional<int64_t>();
  }
  if (it->is_number_integer() && !it->is_number_unsigned()) {
    return std::optional<int64_t>(it->get<int64_t>());
  }
  if (it->is_number_unsigned()) {
    const uint64_t v = it->get<uint64_t>();
    const auto max = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
    return std::optional<int64_t>(v > max ? std::numeric_limits<int64_t>::max()
                                          : static_cast<int64_t>(v));
  }
  if (it->is_number_float()) {
    const double v = it->get<double>();
    if (!std::isfinite(v)) {
      return Unauthenticated("Malformed token: claim '{}' is not a finite number", name);
    }
    // Clamp well inside the int64 range so the conversion is defined.
    constexpr double kLimit = 9.0e18;
    return std::optional<int64_t>(static_cast<int64_t>(std::floor(std::clamp(v, -kLimit, kLimit))));
  }
  return Unauthenticated("Malformed token: claim '{}' must be a number", name);
}

Result<Json> DecodeJsonSegment(std::string_view segment, std::string_view what) {
  const std::optional<std::string> text = Base64UrlDecode(segment);
  if (!text) {
    return Unauthenticated("Malformed token: {} is not base64url", what);
  }
  auto parsed = json::ParseJson(*text);
  if (!parsed.has_value() || !parsed->is_object()) {
    return Unauthenticated("Malformed token: {} is not a JSON object", what);
  }
  return std::move(parsed).value();
}

Result<BignumPtr> JwkBignum(const Json& jwk, const char* member, size_t exact_bytes = 0) {
  auto text = json::GetString(jwk, member);
  if (!text.has_value()) {
    return InvalidArgument("missing string member '{}'", member);
  }
  const std::optional<std::string> bytes = Base64UrlDecode(*text);
  if (!bytes || bytes->empty()) {
    return InvalidArgument("member '{}' is not base64url", member);
  }
  if (exact_bytes != 0 && bytes->size() != exact_bytes) {
    return InvalidArgument("member '{}' must be {} bytes", member, exact_bytes);
  }
  BignumPtr bn(BN_bin2bn(Bytes(*bytes), static_cast<int>(bytes->size()), nullptr));
  if (!bn) {
    return Internal("BN_bin2bn failed: {}", TakeOpensslError());
  }
  return bn;
}

// Builds a public EVP_PKEY of `type` ("RSA" or "EC") from provider parameters and runs the
// provider's public-key check (RSA sanity, EC point on the curve).
Result<EvpPkeyPtr> PkeyFromParams(const char* type, OSSL_PARAM_BLD* bld) {
  OsslParamPtr params(OSSL_PARAM_BLD_to_param(bld));
  EvpPkeyCtxPtr ctx(EVP_PKEY_CTX_new_from_name(nullptr, type, nullptr));
  if (!params || !ctx || EVP_PKEY_fromdata_init(ctx.get()) != 1) {
    return Internal("cannot prepare {} key import: {}", type, TakeOpensslError());
  }
  EVP_PKEY* raw = nullptr;
  if (EVP_PKEY_fromdata(ctx.get(), &raw, EVP_PKEY_PUBLIC_KEY, params.get()) != 1) {
    return InvalidArgument("invalid {} public key: {}", type, TakeOpensslError());
  }
  EvpPkeyPtr pkey(raw);
  EvpPkeyCtxPtr check(EVP_PKEY_CTX_new_from_pkey(nullptr, pkey.get(), nullptr));
  if (!check || EVP_PKEY_public_check(check.get()) != 1) {
    return InvalidArgument("invalid {} public key: {}", type, TakeOpensslError());
  }
  return pkey;
}

Result<EvpPkeyPtr> RsaKeyFromJwk(const Json& jwk) {
  BignumPtr n;
  BignumPtr e;
  { CAIRN_ASSIGN_OR_RETURN(n, JwkBignum(jwk, "n")); }
  { CAIRN_ASSIGN_OR_RETURN(e, JwkBignum(jwk, "e")); }
  OsslParamBldPtr bld(OSSL_PARAM_BLD_new());
  if (!bld || OSSL_PARAM_BLD_push_BN(bld.get(), OSSL_PKEY_PARAM_RSA_N, n.get()) != 1 ||
      OSSL_PARAM_BLD_push_BN(bld.get(), OSSL_PKEY_PARAM_RSA_E, e.get()) != 1) {
    return Internal("cannot build RSA parameters: {}", TakeOpensslError());
  }
  EvpPkeyPtr pkey;
  { CAIRN_ASSIGN_OR_RETURN(pkey, PkeyFromParams("RSA", bld.get())); }
  if (EVP_PKEY_get_bits(pkey.get()) < kMinRsaBits) {
    return InvalidArgument("RSA key has {} bits; at least {} are required",
                           EVP_PKEY_get_bits(pkey.get()), kMinRsaBits);
  }
  return pkey;
}

Result<EvpPkeyPtr> EcKeyFromJwk(const Json& jwk) {
  BignumPtr x;
  BignumPtr y;
  { CAIRN_ASSIGN_OR_RETURN(x, JwkBignum(jwk, "x", kP256CoordinateBytes)); }
  { CAIRN_ASSIGN_OR_RETURN(y, JwkBignum(jwk, "y", kP256CoordinateBytes)); }
  // Uncompressed SEC1 point: 0x04 || X || Y, coordinates left-padded to 32 bytes.
  std::string point(1 + 2 * kP256CoordinateBytes, '\0');
  point[0] = 0x04;
  auto* out = reinterpret_cast<unsigned char*>(point.data());
  if (BN_bn2binpad(x.get(), out + 1, kP256CoordinateBytes) < 0 ||
      BN_bn2binpad(y.get(), out + 1 + kP256CoordinateBytes, kP256CoordinateBytes) < 0) {
    return InvalidArgument("EC coordinates do not fit P-256");
  }
  OsslParamBldPtr bld(OSSL_PARAM_BLD_new());
  if (!bld ||
      OSSL_PARAM_BLD_push_utf8_string(bld.get(), OSSL_PKEY_PARAM_GROUP_NAME, "P-256", 0) != 1 ||
      OSSL_PARAM_BLD_push_octet_string(bld.get(), OSSL_PKEY_PARAM_PUB_KEY, point.data(),
                                       point.size()) != 1) {
    return Internal("cannot build EC parameters: {}", TakeOpensslError());
  }
  return PkeyFromParams("EC", bld.get());
}

// True when the optional JWK member `name` is absent or a string equal to `expected`.
bool AbsentOrEquals(const Json& jwk, const char* name, std::string_view expected) {
  auto it = jwk.find(name);
  return it == jwk.end() || (it->is_string() && it->get<std::string>() == expected);
}

bool KeyOpsAllowVerify(const Json& jwk) {
  auto it = jwk.find("key_ops");
  if (it == jwk.end()) {
    return true;
  }
  if (!it->is_array()) {
    return false;
  }
  for (const Json& op : *it) {
    if (op.is_string() && op.get<std::string>() == "verify") {
      return true;
    }
  }
  return false;
}

// ES256 signatures in JWS are raw r || s (RFC 7518 §3.4); EVP wants a DER ECDSA-Sig-Value.
std::optional<std::string> RawEcdsaToDer(std::string_view raw) {
  if (raw.size() != 2 * kP256CoordinateBytes) {
    return std::nullopt;
  }
  BignumPtr r(BN_bin2bn(Bytes(raw), kP256CoordinateBytes, nullptr));
  BignumPtr s(BN_bin2bn(Bytes(raw) + kP256CoordinateBytes, kP256CoordinateBytes, nullptr));
  EcdsaSigPtr sig(ECDSA_SIG_new());
  if (!r || !s || !sig || ECDSA_SIG_set0(sig.get(), r.get(), s.get()) != 1) {
    TakeOpensslError();
    return std::nullopt;
  }
  // ECDSA_SIG_set0 took ownership of r and s.
  (void)r.release();
  (void)s.release();
  unsigned char* der = nullptr;
  const int len = i2d_ECDSA_SIG(sig.get(), &der);
  OpensslBytesPtr owned(der);
  if (len <= 0) {
    TakeOpensslError();
    return std::nullopt;
  }
  return std::string(reinterpret_cast<const char*>(owned.get()), static_cast<size_t>(len));
}

// One EVP_MD_CTX per call: the shared EVP_PKEY is only read, so concurrent calls are safe.
bool VerifyWithKey(EVP_PKEY* pkey, bool rsa, std::string_view signing_input,
                   std::string_view signature) {
  EvpMdCtxPtr ctx(EVP_MD_CTX_new());
  EVP_PKEY_CTX* pctx = nullptr;  // owned by ctx
  if (!ctx || EVP_DigestVerifyInit(ctx.get(), &pctx, EVP_sha256(), nullptr, pkey) != 1) {
    TakeOpensslError();
    return false;
  }
  if (rsa && EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PADDING) != 1) {
    TakeOpensslError();
    return false;
  }
  const int rc = EVP_DigestVerify(ctx.get(), Bytes(signature), signature.size(),
                                  Bytes(signing_input), signing_input.size());
  if (rc != 1) {
    TakeOpensslError();
    return false;
  }
  return true;
}

bool VerifyHs256(std::string_view secret, std::string_view signing_input,
                 std::string_view signature) {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int mac_len = 0;
  if (HMAC(EVP_sha256(), secret.data(), static_cast<int>(secret.size()), Bytes(signing_input),
           signing_input.size(), mac, &mac_len) == nullptr) {
    TakeOpensslError();
    return false;
  }
  const bool ok = signature.size() == mac_len && CRYPTO_memcmp(mac, signature.data(), mac_len) == 0;
  OPENSSL_cleanse(mac, sizeof(mac));
  return ok;
}

}  // namespace

Result<JwtVerifier> JwtVerifier::Make(JwtConfig config) {
  if (config.hs256_secret.empty() && config.jwks_json.empty()) {
    return InvalidArgument("JWT verification needs an HS256 secret or a JWKS");
  }
  if (!config.hs256_secret.empty() && config.hs256_secret.size() < kMinHs256SecretBytes) {
    return InvalidArgument("The HS256 secret must be at least {} bytes", kMinHs256SecretBytes);
  }
  if (config.allowed_skew_secs < 0 || config.allowed_skew_secs > kMaxSkewSecs) {
    return InvalidArgument("allowed_skew_secs must be in [0, {}]", kMaxSkewSecs);
  }
  if (config.principal_claim.empty()) {
    return InvalidArgument("The JWT principal claim name must not be empty");
  }
  JwtVerifier verifier;
  if (!config.jwks_json.empty()) {
    auto doc = json::ParseJson(config.jwks_json);
    if (!doc.has_value()) {
      return InvalidArgument("The JWKS is not valid JSON");
    }
    auto keys = json::GetArray(*doc, "keys");
    if (!keys.has_value()) {
      return InvalidArgument("The JWKS must be an object with a 'keys' array");
    }
    size_t index = 0;
    for (const Json& jwk : **keys) {
      const size_t i = index++;
      if (!jwk.is_object()) {
        return InvalidArgument("JWKS key #{} is not an object", i);
      }
      auto kty = json::GetString(jwk, "kty");
      if (!kty.has_value()) {
        return InvalidArgument("JWKS key #{} has no 'kty'", i);
      }
      std::string kid;
      if (auto it = jwk.find("kid"); it != jwk.end()) {
        if (!it->is_string()) {
          return InvalidArgument("JWKS key #{} has a non-string 'kid'", i);
        }
        kid = it->get<std::string>();
      }
      if (!AbsentOrEquals(jwk, "use", "sig") || !KeyOpsAllowVerify(jwk)) {
        continue;  // an encryption key or one not meant for verification
      }
      Key key;
      key.kid = kid;
      Result<EvpPkeyPtr> pkey = Internal("unreachable");
      if (*kty == "RSA") {
        if (!AbsentOrEquals(jwk, "alg", "RS256")) {
          continue;  // e.g. PS256 or RS512: not an algorithm this verifier implements
        }
        key.type = KeyType::kRsa;
        pkey = RsaKeyFromJwk(jwk);
      } else if (*kty == "EC") {
        if (!AbsentOrEquals(jwk, "crv", "P-256") || !AbsentOrEquals(jwk, "alg", "ES256")) {
          continue;
        }
        if (jwk.find("crv") == jwk.end()) {
          return InvalidArgument("JWKS key #{} ('{}') has no 'crv'", i, Shown(kid));
        }
        key.type = KeyType::kEcP256;
        pkey = EcKeyFromJwk(jwk);
      } else {
        continue;  // "oct", "OKP", ...: never used for verification here
      }
      if (!pkey.has_value()) {
        return InvalidArgument("JWKS key #{} ('{}'): {}", i, Shown(kid), pkey.error().message);
      }
      key.pkey = std::move(pkey).value();
      if (!kid.empty()) {
        for (const Key& other : verifier.keys_) {
          if (other.kid == kid) {
            return InvalidArgument("JWKS key id '{}' appears more than once", Shown(kid));
          }
        }
      }
      verifier.keys_.push_back(std::move(key));
    }
    if (verifier.keys_.empty() && config.hs256_secret.empty()) {
      return InvalidArgument("The JWKS has no usable RS256 or ES256 signing key");
    }
  }
  verifier.config_ = std::move(config);
  return verifier;
}

Result<const JwtVerifier::Key*> JwtVerifier::SelectKey(KeyType type, const Json& header) const {
  const char* alg = type == KeyType::kRsa ? "RS256" : "ES256";
  auto kid_it = header.find("kid");
  if (kid_it != header.end()) {
    if (!kid_it->is_string()) {
      return Unauthenticated("Malformed token: header 'kid' must be a string");
    }
    const auto& kid = kid_it->get_ref<const std::string&>();
    for (const Key& key : keys_) {
      if (!key.kid.empty() && key.kid == kid) {
        if (key.type != type) {
          return Unauthenticated("Unsupported alg: key '{}' is not a {} key", Shown(kid), alg);
        }
        return &key;
      }
    }
    return Unauthenticated("Unknown kid '{}'", Shown(kid));
  }
  const Key* found = nullptr;
  size_t count = 0;
  for (const Key& key : keys_) {
    if (key.type == type) {
      found = &key;
      ++count;
    }
  }
  if (count != 1) {
    return Unauthenticated("Token has no kid and {} {} keys are configured", count, alg);
  }
  return found;
}

Result<JwtClaims> JwtVerifier::Verify(std::string_view token, int64_t now_secs) const {
  if (token.empty()) {
    return Unauthenticated("Malformed token: empty");
  }
  if (token.size() > kMaxTokenBytes) {
    return Unauthenticated("Malformed token: longer than {} bytes", kMaxTokenBytes);
  }
  const size_t dot1 = token.find('.');
  const size_t dot2 = dot1 == std::string_view::npos ? dot1 : token.find('.', dot1 + 1);
  if (dot2 == std::string_view::npos || token.find('.', dot2 + 1) != std::string_view::npos) {
    return Unauthenticated("Malformed token: expected three '.'-separated segments");
  }
  const std::string_view header_b64 = token.substr(0, dot1);
  const std::string_view payload_b64 = token.substr(dot1 + 1, dot2 - dot1 - 1);
  const std::string_view signature_b64 = token.substr(dot2 + 1);
  if (header_b64.empty() || payload_b64.empty()) {
    return Unauthenticated("Malformed token: empty header or payload segment");
  }

  Json header;
  { CAIRN_ASSIGN_OR_RETURN(header, DecodeJsonSegment(header_b64, "header")); }
  auto alg_it = header.find("alg");
  if (alg_it == header.end() || !alg_it->is_string()) {
    return Unauthenticated("Malformed token: header has no 'alg'");
  }
  const auto& alg = alg_it->get_ref<const std::string&>();
  // Only the three algorithms below exist here; "none" (any spelling) and everything else is
  // refused before a key is looked at. Keys come only from the configuration, never from the
  // token's jku/jwk/x5u/x5c headers.
  enum class Alg { kRs256, kEs256, kHs256 };
  Alg which{};
  bool enabled = false;
  if (alg == "RS256") {
    which = Alg::kRs256;
    enabled = std::any_of(keys_.begin(), keys_.end(),
                          [](const Key& k) { return k.type == KeyType::kRsa; });
  } else if (alg == "ES256") {
    which = Alg::kEs256;
    enabled = std::any_of(keys_.begin(), keys_.end(),
                          [](const Key& k) { return k.type == KeyType::kEcP256; });
  } else if (alg == "HS256") {
    which = Alg::kHs256;
    enabled = !config_.hs256_secret.empty();
  }
  if (!enabled) {
    return Unauthenticated("Unsupported alg '{}'", Shown(alg));
  }
  if (header.contains("crit")) {
    return Unauthenticated("Malformed token: unsupported critical header parameters");
  }

  const Key* key = nullptr;
  if (which != Alg::kHs256) {
    CAIRN_ASSIGN_OR_RETURN(
        key, SelectKey(which == Alg::kRs256 ? KeyType::kRsa : KeyType::kEcP256, header));
  }
  const std::optional<std::string> payload_text = Base64UrlDecode(payload_b64);
  if (!payload_text) {
    return Unauthenticated("Malformed token: payload is not base64url");
  }
  const std::optional<std::string> signature = Base64UrlDecode(signature_b64);
  if (!signature || signature->empty()) {
    return Unauthenticated("Malformed token: signature is missing or not base64url");
  }

  const std::string_view signing_input = token.substr(0, dot2);
  bool valid = false;
  switch (which) {
    case Alg::kRs256:
      valid = signature->size() == static_cast<size_t>(EVP_PKEY_get_size(key->pkey.get())) &&
              VerifyWithKey(key->pkey.get(), /*rsa=*/true, signing_input, *signature);
      break;
    case Alg::kEs256: {
      const std::optional<std::string> der = RawEcdsaToDer(*signature);
      valid = der.has_value() && VerifyWithKey(key->pkey.get(), /*rsa=*/false, signing_input, *der);
      break;
    }
    case Alg::kHs256:
      valid = VerifyHs256(config_.hs256_secret, signing_input, *signature);
      break;
  }
  if (!valid) {
    return Unauthenticated("Bad signature ({})", alg);
  }

  // Only now, with the signature verified, are the claims parsed and trusted.
  auto parsed = json::ParseJson(*payload_text);
  if (!parsed.has_value() || !parsed->is_object()) {
    return Unauthenticated("Malformed token: payload is not a JSON object");
  }
  Json claims = std::move(parsed).value();

  const int64_t skew = config_.allowed_skew_secs;
  std::optional<int64_t> exp;
  std::optional<int64_t> nbf;
  std::optional<int64_t> iat;
  { CAIRN_ASSIGN_OR_RETURN(exp, NumericDate(claims, "exp")); }
  { CAIRN_ASSIGN_OR_RETURN(nbf, NumericDate(claims, "nbf")); }
  { CAIRN_ASSIGN_OR_RETURN(iat, NumericDate(claims, "iat")); }
  if (!exp && config_.require_expiry) {
    return Unauthenticated("Token has no expiry (exp)");
  }
  // Saturating so that extreme clock or claim values cannot overflow the comparisons.
  const int64_t earliest = SaturatingAdd(now_secs, -skew);
  const int64_t latest = SaturatingAdd(now_secs, skew);
  if (exp && earliest >= *exp) {
    return Unauthenticated("Token expired at {} (now {})", *exp, now_secs);
  }
  if (nbf && latest < *nbf) {
    return Unauthenticated("Token not yet valid: nbf {} is in the future (now {})", *nbf, now_secs);
  }
  if (iat && latest < *iat) {
    return Unauthenticated("Token not yet valid: iat {} is in the future (now {})", *iat, now_secs);
  }

  if (!config_.issuer.empty()) {
    auto iss = claims.find("iss");
    if (iss == claims.end() || !iss->is_string()) {
      return Unauthenticated("Wrong issuer: token has no 'iss'");
    }
    if (iss->get_ref<const std::string&>() != config_.issuer) {
      return Unauthenticated("Wrong issuer '{}'", Shown(iss->get_ref<const std::string&>()));
    }
  }

  if (!config_.audiences.empty()) {
    auto aud = claims.find("aud");
    if (aud == claims.end()) {
      return Unauthenticated("Wrong audience: token has no 'aud'");
    }
    auto accepted = [this](const Json& value) {
      return value.is_string() &&
             std::find(config_.audiences.begin(), config_.audiences.end(),
                       value.get_ref<const std::string&>()) != config_.audiences.end();
    };
    bool ok = false;
    if (aud->is_array()) {
      ok = std::any_of(aud->begin(), aud->end(), accepted);
    } else {
      ok = accepted(*aud);
    }
    if (!ok) {
      return Unauthenticated("Wrong audience: token is not for this service");
    }
  }

  auto principal = claims.find(config_.principal_claim);
  if (principal == claims.end() || principal->is_null()) {
    return Unauthenticated("Missing principal claim '{}'", config_.principal_claim);
  }
  if (!principal->is_string() || principal->get_ref<const std::string&>().empty()) {
    return Unauthenticated("Principal claim '{}' must be a non-empty string",
                           config_.principal_claim);
  }
  JwtClaims result;
  result.principal = principal->get<std::string>();
  result.claims = std::move(claims);
  return result;
}

Result<std::string> LoadJwksFile(const std::string& path) {
  std::error_code ec;
  const bool exists = std::filesystem::exists(path, ec);
  if (ec || !exists) {
    return NotFound(EntityKind::kNone, "JWKS file '{}' does not exist", path);
  }
  const uintmax_t size = std::filesystem::file_size(path, ec);
  if (ec) {
    return InvalidArgument("Cannot read JWKS file '{}': {}", path, ec.message());
  }
  if (size > kMaxJwksBytes) {
    return InvalidArgument("JWKS file '{}' is larger than {} bytes", path, kMaxJwksBytes);
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return InvalidArgument("Cannot open JWKS file '{}'", path);
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) {
    return InvalidArgument("Cannot read JWKS file '{}'", path);
  }
  std::string out = std::move(text).str();
  if (out.size() > kMaxJwksBytes) {
    return InvalidArgument("JWKS file '{}' is larger than {} bytes", path, kMaxJwksBytes);
  }
  return out;
}

}  // namespace cairn::security
