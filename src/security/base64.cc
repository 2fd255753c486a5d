// SPDX-License-Identifier: Apache-2.0
#include "security/base64.h"

#include <array>
#include <cstdint>

namespace cairn::security {

namespace {

constexpr std::string_view kStdAlphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
constexpr std::string_view kUrlAlphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

constexpr int8_t kInvalid = -1;

constexpr std::array<int8_t, 256> MakeDecodeTable(std::string_view alphabet) {
  std::array<int8_t, 256> table{};
  for (auto& entry : table) {
    entry = kInvalid;
  }
  for (size_t i = 0; i < alphabet.size(); ++i) {
    table[static_cast<unsigned char>(alphabet[i])] = static_cast<int8_t>(i);
  }
  return table;
}

constexpr std::array<int8_t, 256> kStdTable = MakeDecodeTable(kStdAlphabet);
constexpr std::array<int8_t, 256> kUrlTable = MakeDecodeTable(kUrlAlphabet);

std::string Encode(std::string_view data, std::string_view alphabet, bool pad) {
  std::string out;
  out.reserve((data.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 3 <= data.size(); i += 3) {
    const uint32_t v = (static_cast<uint32_t>(static_cast<unsigned char>(data[i])) << 16) |
                       (static_cast<uint32_t>(static_cast<unsigned char>(data[i + 1])) << 8) |
                       static_cast<uint32_t>(static_cast<unsigned char>(data[i + 2]));
    out.push_back(alphabet[(v >> 18) & 0x3F]);
    out.push_back(alphabet[(v >> 12) & 0x3F]);
    out.push_back(alphabet[(v >> 6) & 0x3F]);
    out.push_back(alphabet[v & 0x3F]);
  }
  const size_t rest = data.size() - i;
  if (rest == 1) {
    const uint32_t v = static_cast<uint32_t>(static_cast<unsigned char>(data[i])) << 16;
    out.push_back(alphabet[(v >> 18) & 0x3F]);
    out.push_back(alphabet[(v >> 12) & 0x3F]);
    if (pad) {
      out.append("==");
    }
  } else if (rest == 2) {
    const uint32_t v = (static_cast<uint32_t>(static_cast<unsigned char>(data[i])) << 16) |
                       (static_cast<uint32_t>(static_cast<unsigned char>(data[i + 1])) << 8);
    out.push_back(alphabet[(v >> 18) & 0x3F]);
    out.push_back(alphabet[(v >> 12) & 0x3F]);
    out.push_back(alphabet[(v >> 6) & 0x3F]);
    if (pad) {
      out.push_back('=');
    }
  }
  return out;
}

// Decodes unpadded text (padding already stripped and checked by the caller).
std::optional<std::string> DecodeUnpadded(std::string_view text,
                                          const std::array<int8_t, 256>& table) {
  if (text.size() % 4 == 1) {
    return std::nullopt;  // one leftover character carries only 6 bits: never a whole byte
  }
  std::string out;
  out.reserve(text.size() / 4 * 3 + 2);
  uint32_t acc = 0;
  int bits = 0;
  for (const char c : text) {
    const int8_t v = table[static_cast<unsigned char>(c)];
    if (v == kInvalid) {
      return std::nullopt;
    }
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((acc >> bits) & 0xFF));
    }
  }
  // Leftover bits (2 or 4) must be zero for the encoding to be canonical.
  if (bits > 0 && (acc & ((1U << bits) - 1)) != 0) {
    return std::nullopt;
  }
  return out;
}

// Splits off '=' padding; nullopt when padding is malformed. `required` demands a multiple of 4.
std::optional<std::string_view> StripPadding(std::string_view text, bool required) {
  size_t pad = 0;
  while (pad < text.size() && pad < 3 && text[text.size() - 1 - pad] == '=') {
    ++pad;
  }
  const std::string_view body = text.substr(0, text.size() - pad);
  if (pad > 2) {
    return std::nullopt;
  }
  if (pad > 0 || required) {
    if (text.size() % 4 != 0) {
      return std::nullopt;
    }
    // The padding must be exactly what the body length implies.
    const size_t expected = (4 - body.size() % 4) % 4;
    if (pad != expected) {
      return std::nullopt;
    }
  }
  return body;
}

}  // namespace

std::string Base64Encode(std::string_view data) { return Encode(data, kStdAlphabet, true); }

std::string Base64UrlEncode(std::string_view data) { return Encode(data, kUrlAlphabet, false); }

std::optional<std::string> Base64Decode(std::string_view text) {
  const auto body = StripPadding(text, /*required=*/true);
  if (!body) {
    return std::nullopt;
  }
  return DecodeUnpadded(*body, kStdTable);
}

std::optional<std::string> Base64UrlDecode(std::string_view text) {
  const auto body = StripPadding(text, /*required=*/false);
  if (!body) {
    return std::nullopt;
  }
  return DecodeUnpadded(*body, kUrlTable);
}

}  // namespace cairn::security
