// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <memory>
#include <string>

#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>

namespace cairn::security {

/// unique_ptr deleters for the OpenSSL objects this layer owns. Every OpenSSL allocation is held
/// by one of these from the moment it is created.
struct EvpPkeyDeleter {
  void operator()(EVP_PKEY* p) const { EVP_PKEY_free(p); }
};
struct EvpPkeyCtxDeleter {
  void operator()(EVP_PKEY_CTX* p) const { EVP_PKEY_CTX_free(p); }
};
struct EvpMdCtxDeleter {
  void operator()(EVP_MD_CTX* p) const { EVP_MD_CTX_free(p); }
};
struct BignumDeleter {
  void operator()(BIGNUM* p) const { BN_free(p); }
};
struct EcdsaSigDeleter {
  void operator()(ECDSA_SIG* p) const { ECDSA_SIG_free(p); }
};
struct OsslParamBldDeleter {
  void operator()(OSSL_PARAM_BLD* p) const { OSSL_PARAM_BLD_free(p); }
};
struct OsslParamDeleter {
  void operator()(OSSL_PARAM* p) const { OSSL_PARAM_free(p); }
};
struct OpensslFreeDeleter {
  void operator()(unsigned char* p) const { OPENSSL_free(p); }
};

using EvpPkeyPtr = std::unique_ptr<EVP_PKEY, EvpPkeyDeleter>;
using EvpPkeyCtxPtr = std::unique_ptr<EVP_PKEY_CTX, EvpPkeyCtxDeleter>;
using EvpMdCtxPtr = std::unique_ptr<EVP_MD_CTX, EvpMdCtxDeleter>;
using BignumPtr = std::unique_ptr<BIGNUM, BignumDeleter>;
using EcdsaSigPtr = std::unique_ptr<ECDSA_SIG, EcdsaSigDeleter>;
using OsslParamBldPtr = std::unique_ptr<OSSL_PARAM_BLD, OsslParamBldDeleter>;
using OsslParamPtr = std::unique_ptr<OSSL_PARAM, OsslParamDeleter>;
using OpensslBytesPtr = std::unique_ptr<unsigned char, OpensslFreeDeleter>;

/// Drains this thread's OpenSSL error queue and returns the first reason string (or "unknown
/// error"). Call after every failed OpenSSL call so stale errors never leak into later calls.
std::string TakeOpensslError();

}  // namespace cairn::security
