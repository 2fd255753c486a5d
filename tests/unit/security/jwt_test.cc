// SPDX-License-Identifier: Apache-2.0
#include "security/jwt.h"

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <openssl/bio.h>
#include <openssl/core_names.h>
#include <openssl/hmac.h>
#include <openssl/pem.h>

#include "matchers.h"
#include "security/base64.h"
#include "security/openssl_util.h"

namespace cairn::security {
namespace {

using ::cairn::testing::HasErrorMessage;
using ::cairn::testing::IsError;
using ::cairn::testing::IsOk;
using Json = nlohmann::json;

constexpr int64_t kNow = 1'767'225'600;  // 2026-01-01T00:00:00Z
constexpr char kIssuer[] = "https://idp.example.com";
constexpr char kAudience[] = "cairn";
constexpr char kSecret[] = "0123456789abcdef0123456789abcdef-hs256";

struct BioDeleter {
  void operator()(BIO* p) const { BIO_free(p); }
};

const unsigned char* Bytes(std::string_view s) {
  return reinterpret_cast<const unsigned char*>(s.data());
}

std::string BnBytes(const EVP_PKEY* pkey, const char* param, int pad = 0) {
  BIGNUM* raw = nullptr;
  EXPECT_EQ(EVP_PKEY_get_bn_param(pkey, param, &raw), 1) << param;
  BignumPtr bn(raw);
  const int len = pad > 0 ? pad : BN_num_bytes(bn.get());
  std::string out(static_cast<size_t>(len), '\0');
  EXPECT_GT(BN_bn2binpad(bn.get(), reinterpret_cast<unsigned char*>(out.data()), len), 0);
  return out;
}

// Test-side signer: produces compact JWS tokens with the private keys generated below.
class Signer {
 public:
  static std::string DigestSign(EVP_PKEY* pkey, std::string_view input) {
    EvpMdCtxPtr ctx(EVP_MD_CTX_new());
    EXPECT_EQ(EVP_DigestSignInit(ctx.get(), nullptr, EVP_sha256(), nullptr, pkey), 1);
    size_t len = 0;
    EXPECT_EQ(EVP_DigestSign(ctx.get(), nullptr, &len, Bytes(input), input.size()), 1);
    std::string sig(len, '\0');
    EXPECT_EQ(EVP_DigestSign(ctx.get(), reinterpret_cast<unsigned char*>(sig.data()), &len,
                             Bytes(input), input.size()),
              1);
    sig.resize(len);
    return sig;
  }

  // DER ECDSA-Sig-Value -> raw r || s, 32 bytes each (RFC 7518 §3.4).
  static std::string DerToRaw(const std::string& der) {
    const unsigned char* p = Bytes(der);
    EcdsaSigPtr sig(d2i_ECDSA_SIG(nullptr, &p, static_cast<long>(der.size())));  // NOLINT
    EXPECT_TRUE(sig != nullptr);
    const BIGNUM* r = nullptr;
    const BIGNUM* s = nullptr;
    ECDSA_SIG_get0(sig.get(), &r, &s);
    std::string out(64, '\0');
    BN_bn2binpad(r, reinterpret_cast<unsigned char*>(out.data()), 32);
    BN_bn2binpad(s, reinterpret_cast<unsigned char*>(out.data()) + 32, 32);
    return out;
  }

  static std::string Hmac(std::string_view key, std::string_view input) {
    unsigned char mac[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()), Bytes(input), input.size(), mac,
         &len);
    return {reinterpret_cast<const char*>(mac), len};
  }

  static std::string Input(const Json& header, const Json& payload) {
    return Base64UrlEncode(header.dump()) + "." + Base64UrlEncode(payload.dump());
  }

  static std::string Rs256(EVP_PKEY* key, Json header, const Json& payload) {
    header["alg"] = "RS256";
    const std::string input = Input(header, payload);
    return input + "." + Base64UrlEncode(DigestSign(key, input));
  }
  static std::string Es256(EVP_PKEY* key, Json header, const Json& payload) {
    header["alg"] = "ES256";
    const std::string input = Input(header, payload);
    return input + "." + Base64UrlEncode(DerToRaw(DigestSign(key, input)));
  }
  static std::string Hs256(std::string_view secret, Json header, const Json& payload) {
    header["alg"] = "HS256";
    const std::string input = Input(header, payload);
    return input + "." + Base64UrlEncode(Hmac(secret, input));
  }
};

class JwtTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    rsa_.reset(EVP_PKEY_Q_keygen(nullptr, nullptr, "RSA", static_cast<size_t>(2048)));
    ec_.reset(EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256"));
    rsa_other_.reset(EVP_PKEY_Q_keygen(nullptr, nullptr, "RSA", static_cast<size_t>(2048)));
    ASSERT_TRUE(rsa_ && ec_ && rsa_other_);
  }
  static void TearDownTestSuite() {
    rsa_.reset();
    ec_.reset();
    rsa_other_.reset();
  }

  static Json RsaJwk(EVP_PKEY* key, const std::string& kid) {
    return {{"kty", "RSA"},
            {"kid", kid},
            {"use", "sig"},
            {"alg", "RS256"},
            {"n", Base64UrlEncode(BnBytes(key, OSSL_PKEY_PARAM_RSA_N))},
            {"e", Base64UrlEncode(BnBytes(key, OSSL_PKEY_PARAM_RSA_E))}};
  }
  static Json EcJwk(EVP_PKEY* key, const std::string& kid) {
    return {{"kty", "EC"},
            {"kid", kid},
            {"crv", "P-256"},
            {"x", Base64UrlEncode(BnBytes(key, OSSL_PKEY_PARAM_EC_PUB_X, 32))},
            {"y", Base64UrlEncode(BnBytes(key, OSSL_PKEY_PARAM_EC_PUB_Y, 32))}};
  }
  static std::string Jwks() {
    return Json{{"keys", {RsaJwk(rsa_.get(), "rsa-1"), EcJwk(ec_.get(), "ec-1")}}}.dump();
  }
  static std::string RsaPublicPem() {
    std::unique_ptr<BIO, BioDeleter> bio(BIO_new(BIO_s_mem()));
    EXPECT_EQ(PEM_write_bio_PUBKEY(bio.get(), rsa_.get()), 1);
    char* data = nullptr;
    const long len = BIO_get_mem_data(bio.get(), &data);  // NOLINT(google-runtime-int)
    return {data, static_cast<size_t>(len)};
  }

  static JwtConfig Config() {
    JwtConfig config;
    config.issuer = kIssuer;
    config.audiences = {kAudience};
    config.hs256_secret = kSecret;
    config.jwks_json = Jwks();
    return config;
  }
  static JwtVerifier Verifier(JwtConfig config = Config()) {
    auto v = JwtVerifier::Make(std::move(config));
    EXPECT_THAT(v, IsOk());
    return std::move(v).value();
  }
  static Json Claims() {
    return {{"iss", kIssuer},   {"aud", kAudience}, {"sub", "alice"},
            {"iat", kNow - 10}, {"nbf", kNow - 10}, {"exp", kNow + 3600}};
  }
  static Json Kid(const std::string& kid) { return {{"typ", "JWT"}, {"kid", kid}}; }

  static inline EvpPkeyPtr rsa_;  // NOLINT(cppcoreguidelines-avoid-non-const-global-variables)
  static inline EvpPkeyPtr ec_;   // NOLINT(cppcoreguidelines-avoid-non-const-global-variables)
  static inline EvpPkeyPtr
      rsa_other_;  // NOLINT(cppcoreguidelines-avoid-non-const-global-variables)
};

TEST_F(JwtTest, ValidRs256) {
  const JwtVerifier v = Verifier();
  EXPECT_EQ(v.key_count(), 2U);
  auto r = v.Verify(Signer::Rs256(rsa_.get(), Kid("rsa-1"), Claims()), kNow);
  ASSERT_THAT(r, IsOk());
  EXPECT_EQ(r->principal, "alice");
  EXPECT_EQ(r->claims["iss"], kIssuer);
}

TEST_F(JwtTest, ValidEs256) {
  auto r = Verifier().Verify(Signer::Es256(ec_.get(), Kid("ec-1"), Claims()), kNow);
  ASSERT_THAT(r, IsOk());
  EXPECT_EQ(r->principal, "alice");
}

TEST_F(JwtTest, ValidHs256) {
  auto r = Verifier().Verify(Signer::Hs256(kSecret, {{"typ", "JWT"}}, Claims()), kNow);
  ASSERT_THAT(r, IsOk());
  EXPECT_EQ(r->principal, "alice");
}

TEST_F(JwtTest, KidlessTokenUsesTheOnlyKeyOfItsType) {
  const JwtVerifier v = Verifier();
  EXPECT_THAT(v.Verify(Signer::Rs256(rsa_.get(), Json::object(), Claims()), kNow), IsOk());
  EXPECT_THAT(v.Verify(Signer::Es256(ec_.get(), Json::object(), Claims()), kNow), IsOk());

  JwtConfig two = Config();
  two.jwks_json = Json{{"keys", {RsaJwk(rsa_.get(), "a"), RsaJwk(rsa_other_.get(), "b")}}}.dump();
  auto r =
      Verifier(std::move(two)).Verify(Signer::Rs256(rsa_.get(), Json::object(), Claims()), kNow);
  EXPECT_THAT(r, IsError(ErrorCode::kUnauthenticated));
  EXPECT_THAT(r, HasErrorMessage("no kid"));
}

TEST_F(JwtTest, ForgedSignatureRejected) {
  const JwtVerifier v = Verifier();
  // Signed by a different RSA key, presented under the trusted kid.
  auto r = v.Verify(Signer::Rs256(rsa_other_.get(), Kid("rsa-1"), Claims()), kNow);
  EXPECT_THAT(r, IsError(ErrorCode::kUnauthenticated));
  EXPECT_THAT(r, HasErrorMessage("Bad signature"));

  // A valid token whose payload was swapped afterwards.
  const std::string good = Signer::Es256(ec_.get(), Kid("ec-1"), Claims());
  Json evil = Claims();
  evil["sub"] = "admin";
  const size_t dot1 = good.find('.');
  const size_t dot2 = good.rfind('.');
  const std::string swapped =
      good.substr(0, dot1 + 1) + Base64UrlEncode(evil.dump()) + good.substr(dot2);
  EXPECT_THAT(v.Verify(swapped, kNow), HasErrorMessage("Bad signature"));

  // Wrong HS256 secret.
  EXPECT_THAT(v.Verify(Signer::Hs256("another-secret-that-is-long-enough!!", {}, Claims()), kNow),
              HasErrorMessage("Bad signature"));

  // A flipped signature byte.
  std::string flipped = Signer::Rs256(rsa_.get(), Kid("rsa-1"), Claims());
  flipped[flipped.size() - 5] = flipped[flipped.size() - 5] == 'A' ? 'B' : 'A';
  EXPECT_THAT(v.Verify(flipped, kNow), HasErrorMessage("Bad signature"));

  // ES256 signature of the wrong length (e.g. DER instead of raw).
  Json header = Kid("ec-1");
  header["alg"] = "ES256";
  const std::string input = Signer::Input(header, Claims());
  const std::string der = Signer::DigestSign(ec_.get(), input);
  EXPECT_THAT(v.Verify(input + "." + Base64UrlEncode(der), kNow), HasErrorMessage("Bad signature"));
}

TEST_F(JwtTest, AlgNoneRejected) {
  const JwtVerifier v = Verifier();
  for (const char* alg : {"none", "None", "NONE"}) {
    const std::string token = Signer::Input({{"alg", alg}, {"typ", "JWT"}}, Claims()) + ".";
    auto r = v.Verify(token, kNow);
    EXPECT_THAT(r, IsError(ErrorCode::kUnauthenticated));
    EXPECT_THAT(r, HasErrorMessage("Unsupported alg")) << alg;
  }
}

TEST_F(JwtTest, UnconfiguredAndUnknownAlgsRejected) {
  JwtConfig jwks_only = Config();
  jwks_only.hs256_secret.clear();
  EXPECT_THAT(Verifier(std::move(jwks_only)).Verify(Signer::Hs256(kSecret, {}, Claims()), kNow),
              HasErrorMessage("Unsupported alg 'HS256'"));

  JwtConfig hs_only = Config();
  hs_only.jwks_json.clear();
  EXPECT_THAT(
      Verifier(std::move(hs_only)).Verify(Signer::Rs256(rsa_.get(), Kid("rsa-1"), Claims()), kNow),
      HasErrorMessage("Unsupported alg 'RS256'"));

  const std::string ps256 = Signer::Input({{"alg", "PS256"}, {"kid", "rsa-1"}}, Claims()) + ".AAAA";
  EXPECT_THAT(Verifier().Verify(ps256, kNow), HasErrorMessage("Unsupported alg 'PS256'"));
}

TEST_F(JwtTest, HmacWithPublicKeyAsSecretRejected) {
  const std::string pem = RsaPublicPem();
  ASSERT_GT(pem.size(), 32U);
  const std::string token = Signer::Hs256(pem, Kid("rsa-1"), Claims());

  // JWKS only: HS256 is not enabled at all.
  JwtConfig jwks_only = Config();
  jwks_only.hs256_secret.clear();
  auto r = Verifier(std::move(jwks_only)).Verify(token, kNow);
  EXPECT_THAT(r, IsError(ErrorCode::kUnauthenticated));
  EXPECT_THAT(r, HasErrorMessage("Unsupported alg"));

  // Both enabled: HS256 verifies with the configured secret only, never with a JWKS key.
  EXPECT_THAT(Verifier().Verify(token, kNow), HasErrorMessage("Bad signature"));

  // The raw modulus bytes as the secret fare no better.
  const std::string n = BnBytes(rsa_.get(), OSSL_PKEY_PARAM_RSA_N);
  EXPECT_THAT(Verifier().Verify(Signer::Hs256(n, Kid("rsa-1"), Claims()), kNow),
              HasErrorMessage("Bad signature"));
}

TEST_F(JwtTest, KeyTypeMustMatchAlg) {
  // ES256 naming the RSA key's kid, and RS256 naming the EC key's kid.
  auto r = Verifier().Verify(Signer::Es256(ec_.get(), Kid("rsa-1"), Claims()), kNow);
  EXPECT_THAT(r, IsError(ErrorCode::kUnauthenticated));
  EXPECT_THAT(r, HasErrorMessage("not a ES256 key"));
  EXPECT_THAT(Verifier().Verify(Signer::Rs256(rsa_.get(), Kid("ec-1"), Claims()), kNow),
              HasErrorMessage("not a RS256 key"));
}

TEST_F(JwtTest, Expired) {
  const JwtVerifier v = Verifier();
  Json claims = Claims();
  claims["exp"] = kNow - 61;
  auto r = v.Verify(Signer::Rs256(rsa_.get(), Kid("rsa-1"), claims), kNow);
  EXPECT_THAT(r, IsError(ErrorCode::kUnauthenticated));
  EXPECT_THAT(r, HasErrorMessage("expired"));
  claims["exp"] = kNow - 30;  // within the skew
  EXPECT_THAT(v.Verify(Signer::Rs256(rsa_.get(), Kid("rsa-1"), claims), kNow), IsOk());
  claims["exp"] = static_cast<double>(kNow) - 120.5;  // fractional NumericDate
  EXPECT_THAT(v.Verify(Signer::Rs256(rsa_.get(), Kid("rsa-1"), claims), kNow),
              HasErrorMessage("expired"));
  claims["exp"] = "tomorrow";
  EXPECT_THAT(v.Verify(Signer::Rs256(rsa_.get(), Kid("rsa-1"), claims), kNow),
              HasErrorMessage("must be a number"));
}

TEST_F(JwtTest, MissingExpiry) {
  Json claims = Claims();
  claims.erase("exp");
  const std::string token = Signer::Hs256(kSecret, {}, claims);
  EXPECT_THAT(Verifier().Verify(token, kNow), HasErrorMessage("no expiry"));
  JwtConfig lax = Config();
  lax.require_expiry = false;
  EXPECT_THAT(Verifier(std::move(lax)).Verify(token, kNow), IsOk());
}

TEST_F(JwtTest, NotYetValid) {
  const JwtVerifier v = Verifier();
  Json claims = Claims();
  claims["nbf"] = kNow + 120;
  auto r = v.Verify(Signer::Es256(ec_.get(), Kid("ec-1"), claims), kNow);
  EXPECT_THAT(r, IsError(ErrorCode::kUnauthenticated));
  EXPECT_THAT(r, HasErrorMessage("nbf"));
  claims["nbf"] = kNow + 30;  // within the skew
  EXPECT_THAT(v.Verify(Signer::Es256(ec_.get(), Kid("ec-1"), claims), kNow), IsOk());
  claims["iat"] = kNow + 600;
  EXPECT_THAT(v.Verify(Signer::Es256(ec_.get(), Kid("ec-1"), claims), kNow),
              HasErrorMessage("iat"));
}

TEST_F(JwtTest, WrongIssuer) {
  Json claims = Claims();
  claims["iss"] = "https://evil.example.com";
  auto r = Verifier().Verify(Signer::Rs256(rsa_.get(), Kid("rsa-1"), claims), kNow);
  EXPECT_THAT(r, IsError(ErrorCode::kUnauthenticated));
  EXPECT_THAT(r, HasErrorMessage("Wrong issuer"));
  claims.erase("iss");
  EXPECT_THAT(Verifier().Verify(Signer::Rs256(rsa_.get(), Kid("rsa-1"), claims), kNow),
              HasErrorMessage("Wrong issuer"));
}

TEST_F(JwtTest, WrongAudience) {
  Json claims = Claims();
  claims["aud"] = "someone-else";
  auto r = Verifier().Verify(Signer::Rs256(rsa_.get(), Kid("rsa-1"), claims), kNow);
  EXPECT_THAT(r, IsError(ErrorCode::kUnauthenticated));
  EXPECT_THAT(r, HasErrorMessage("Wrong audience"));
  claims["aud"] = Json::array({"a", "b"});
  EXPECT_THAT(Verifier().Verify(Signer::Rs256(rsa_.get(), Kid("rsa-1"), claims), kNow),
              HasErrorMessage("Wrong audience"));
  claims.erase("aud");
  EXPECT_THAT(Verifier().Verify(Signer::Rs256(rsa_.get(), Kid("rsa-1"), claims), kNow),
              HasErrorMessage("Wrong audience"));
}

TEST_F(JwtTest, AudienceArrayContainingOurs) {
  Json claims = Claims();
  claims["aud"] = Json::array({"other", 42, kAudience});
  EXPECT_THAT(Verifier().Verify(Signer::Rs256(rsa_.get(), Kid("rsa-1"), claims), kNow), IsOk());
}

TEST_F(JwtTest, UnknownKid) {
  auto r = Verifier().Verify(Signer::Rs256(rsa_.get(), Kid("rotated-away"), Claims()), kNow);
  EXPECT_THAT(r, IsError(ErrorCode::kUnauthenticated));
  EXPECT_THAT(r, HasErrorMessage("Unknown kid 'rotated-away'"));
}

TEST_F(JwtTest, MalformedSegments) {
  const JwtVerifier v = Verifier();
  const std::string good = Signer::Rs256(rsa_.get(), Kid("rsa-1"), Claims());
  const size_t dot1 = good.find('.');
  const size_t dot2 = good.rfind('.');
  const std::string header = good.substr(0, dot1);
  const std::string payload = good.substr(dot1 + 1, dot2 - dot1 - 1);
  const std::string sig = good.substr(dot2 + 1);
  ASSERT_THAT(v.Verify(good, kNow), IsOk());

  const std::vector<std::string> bad = {
      "",
      "abc",
      header + "." + payload,
      good + ".",
      good + "." + sig,
      "." + payload + "." + sig,
      header + ".." + sig,
      header + "." + payload + ".",
      header + "." + payload + ".!!!",
      "e30." + payload + "." + sig,                              // {} : no alg
      Base64UrlEncode("[1]") + "." + payload + "." + sig,        // header not an object
      Base64UrlEncode("{\"alg\":") + "." + payload + "." + sig,  // header not JSON
      "%%%." + payload + "." + sig,                              // header not base64url
      header + ".%%%." + sig,                                    // payload not base64url
      header + "." + Base64UrlEncode("not json") + "." + sig,
      std::string(70 * 1024, 'a'),
  };
  for (const std::string& token : bad) {
    auto r = v.Verify(token, kNow);
    EXPECT_THAT(r, IsError(ErrorCode::kUnauthenticated)) << token.substr(0, 80);
  }
  EXPECT_THAT(v.Verify(header + "." + payload, kNow), HasErrorMessage("Malformed token"));
  EXPECT_THAT(v.Verify("e30." + payload + "." + sig, kNow), HasErrorMessage("no 'alg'"));

  // A correctly signed payload that is not JSON (claims are parsed only after the signature).
  Json h = Kid("rsa-1");
  h["alg"] = "RS256";
  const std::string input = Base64UrlEncode(h.dump()) + "." + Base64UrlEncode("not json");
  EXPECT_THAT(v.Verify(input + "." + Base64UrlEncode(Signer::DigestSign(rsa_.get(), input)), kNow),
              HasErrorMessage("payload is not a JSON object"));

  // Critical header extensions are refused.
  Json crit = Kid("rsa-1");
  crit["crit"] = Json::array({"b64"});
  crit["b64"] = false;
  EXPECT_THAT(v.Verify(Signer::Rs256(rsa_.get(), crit, Claims()), kNow),
              HasErrorMessage("critical"));
}

TEST_F(JwtTest, CustomPrincipalClaim) {
  JwtConfig config = Config();
  config.principal_claim = "preferred_username";
  const JwtVerifier v = Verifier(std::move(config));
  Json claims = Claims();
  claims["preferred_username"] = "svc-ingest";
  auto r = v.Verify(Signer::Es256(ec_.get(), Kid("ec-1"), claims), kNow);
  ASSERT_THAT(r, IsOk());
  EXPECT_EQ(r->principal, "svc-ingest");

  auto missing = v.Verify(Signer::Es256(ec_.get(), Kid("ec-1"), Claims()), kNow);
  EXPECT_THAT(missing, IsError(ErrorCode::kUnauthenticated));
  EXPECT_THAT(missing, HasErrorMessage("Missing principal claim 'preferred_username'"));

  claims["preferred_username"] = 7;
  EXPECT_THAT(v.Verify(Signer::Es256(ec_.get(), Kid("ec-1"), claims), kNow),
              HasErrorMessage("non-empty string"));
}

TEST_F(JwtTest, MakeRejectsBadConfig) {
  EXPECT_THAT(JwtVerifier::Make(JwtConfig{}), IsError(ErrorCode::kInvalidArgument));

  JwtConfig short_secret;
  short_secret.hs256_secret = "too-short";
  EXPECT_THAT(JwtVerifier::Make(short_secret), IsError(ErrorCode::kInvalidArgument));

  auto with_jwks = [](std::string jwks) {
    JwtConfig c;
    c.jwks_json = std::move(jwks);
    return JwtVerifier::Make(std::move(c));
  };
  EXPECT_THAT(with_jwks("{"), IsError(ErrorCode::kInvalidArgument));
  EXPECT_THAT(with_jwks("[]"), IsError(ErrorCode::kInvalidArgument));
  EXPECT_THAT(with_jwks(R"({"keys":[]})"), HasErrorMessage("no usable"));
  EXPECT_THAT(with_jwks(R"({"keys":[{"kty":"oct","k":"AAAA"}]})"), HasErrorMessage("no usable"));
  EXPECT_THAT(with_jwks(R"({"keys":[{"kty":"RSA","n":"AQAB"}]})"),
              IsError(ErrorCode::kInvalidArgument));

  Json dup{{"keys", {RsaJwk(rsa_.get(), "k"), EcJwk(ec_.get(), "k")}}};
  EXPECT_THAT(with_jwks(dup.dump()), HasErrorMessage("more than once"));

  // A point that is not on P-256.
  Json off_curve = EcJwk(ec_.get(), "ec");
  std::string y = *Base64UrlDecode(off_curve["y"].get<std::string>());
  y[31] = static_cast<char>(y[31] ^ 1);
  off_curve["y"] = Base64UrlEncode(y);
  EXPECT_THAT(with_jwks(Json{{"keys", {off_curve}}}.dump()), IsError(ErrorCode::kInvalidArgument));

  // A 1024-bit RSA key.
  EvpPkeyPtr small(EVP_PKEY_Q_keygen(nullptr, nullptr, "RSA", static_cast<size_t>(1024)));
  ASSERT_TRUE(small);
  EXPECT_THAT(with_jwks(Json{{"keys", {RsaJwk(small.get(), "small")}}}.dump()),
              HasErrorMessage("2048"));

  // Encryption keys and other algorithms are skipped, not fatal.
  Json enc = RsaJwk(rsa_other_.get(), "enc");
  enc["use"] = "enc";
  Json ps = RsaJwk(rsa_other_.get(), "ps");
  ps["alg"] = "PS256";
  auto skipped = with_jwks(Json{{"keys", {enc, ps, EcJwk(ec_.get(), "ec")}}}.dump());
  ASSERT_THAT(skipped, IsOk());
  EXPECT_EQ(skipped->key_count(), 1U);
}

TEST_F(JwtTest, LoadJwksFile) {
  const std::filesystem::path path =
      std::filesystem::temp_directory_path() / ("cairn_jwks_test_" + std::to_string(::getpid()));
  {
    std::ofstream out(path);
    out << Jwks();
  }
  auto text = LoadJwksFile(path.string());
  ASSERT_THAT(text, IsOk());
  EXPECT_EQ(*text, Jwks());
  JwtConfig config = Config();
  config.jwks_json = *text;
  EXPECT_THAT(JwtVerifier::Make(std::move(config)), IsOk());
  std::filesystem::remove(path);
  EXPECT_THAT(LoadJwksFile(path.string()), IsError(ErrorCode::kNotFound));
}

TEST_F(JwtTest, ConcurrentVerify) {
  const JwtVerifier v = Verifier();
  const std::vector<std::string> tokens = {
      Signer::Rs256(rsa_.get(), Kid("rsa-1"), Claims()),
      Signer::Es256(ec_.get(), Kid("ec-1"), Claims()),
      Signer::Hs256(kSecret, {}, Claims()),
  };
  const std::string forged = Signer::Rs256(rsa_other_.get(), Kid("rsa-1"), Claims());
  std::atomic<int> ok{0};
  std::atomic<int> rejected{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 50; ++i) {
        if (v.Verify(tokens[static_cast<size_t>(i + t) % tokens.size()], kNow).has_value()) {
          ++ok;
        }
        if (!v.Verify(forged, kNow).has_value()) {
          ++rejected;
        }
      }
    });
  }
  for (auto& th : threads) {
    th.join();
  }
  EXPECT_EQ(ok.load(), 400);
  EXPECT_EQ(rejected.load(), 400);
}

}  // namespace
}  // namespace cairn::security
