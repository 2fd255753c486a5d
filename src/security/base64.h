// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace cairn::security {

/// Standard base64 (RFC 4648 §4, alphabet A-Z a-z 0-9 + /) with '=' padding.
std::string Base64Encode(std::string_view data);

/// URL-safe base64 (RFC 4648 §5, alphabet A-Z a-z 0-9 - _) without padding, as JWS uses.
std::string Base64UrlEncode(std::string_view data);

/// Decodes standard base64. The input must be padded to a multiple of four characters; nullopt on
/// any other character (including whitespace), bad padding, or non-zero unused trailing bits (so
/// every byte string has exactly one accepted encoding).
std::optional<std::string> Base64Decode(std::string_view text);

/// Decodes URL-safe base64. Padding is optional, but when present it must be complete and correct;
/// nullopt on any other character, an impossible length, or non-zero unused trailing bits.
std::optional<std::string> Base64UrlDecode(std::string_view text);

}  // namespace cairn::security
