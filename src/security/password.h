// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>
#include <string_view>

namespace cairn::security {

/// PBKDF2 iteration count for new hashes (OWASP 2023 guidance for PBKDF2-HMAC-SHA256).
inline constexpr int kPbkdf2Iterations = 210'000;

/// Hashes `password` with PBKDF2-HMAC-SHA256, a fresh random 16-byte salt and kPbkdf2Iterations
/// iterations, encoded as `pbkdf2-sha256$<iterations>$<salt base64>$<hash base64>` (standard,
/// padded base64; 32-byte hash). The result is safe to store and to show; the password is not kept.
/// Aborts the process if the OpenSSL random generator or KDF fails: a server that cannot produce
/// salts must not keep running. Thread-safe; deliberately slow (tens of milliseconds).
std::string HashPassword(std::string_view password);

/// True when `password` matches `encoded` (a HashPassword result; any iteration count in
/// [1000, 10,000,000] is accepted so the default can be raised without invalidating old hashes).
/// The hash comparison is constant-time. False on a wrong password and on any malformed,
/// truncated or tampered encoding; never fails otherwise. Thread-safe.
bool VerifyPassword(std::string_view password, std::string_view encoded);

}  // namespace cairn::security
