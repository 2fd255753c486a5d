// SPDX-License-Identifier: Apache-2.0
// The bounded JSON parse helpers: never crash, refuse exactly what nests deeper than the limit,
// and agree with nlohmann's own parser on everything else.
#include <nlohmann/json.hpp>

#include "fuzz_util.h"
#include "json/json_util.h"

using cairn::fuzz::Check;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text = cairn::fuzz::Text(data, size);
  const bool shallow = cairn::json::CheckJsonDepth(text).has_value();
  auto plain = cairn::json::ParseJson(text);
  auto ordered = cairn::json::ParseOrderedJson(text);
  Check(plain.has_value() == ordered.has_value(), "plain and ordered parsers agree");
  Check(cairn::json::ParseJsonOrDiscarded(text).is_discarded() != plain.has_value(),
        "ParseJsonOrDiscarded agrees with ParseJson");
  Check(cairn::json::ParseOrderedJsonOrDiscarded(text).is_discarded() != ordered.has_value(),
        "ParseOrderedJsonOrDiscarded agrees with ParseOrderedJson");
  if (!shallow) {
    Check(!plain.has_value(), "a document deeper than the limit is refused");
    return 0;
  }
  // Within the limit nlohmann's recursive parts are safe: compare with its own parsers.
  const bool accepted = nlohmann::json::accept(text.begin(), text.end());
  Check(plain.has_value() == accepted, "accepts exactly what nlohmann accepts");
  if (!accepted) return 0;
  const nlohmann::json reference = nlohmann::json::parse(text.begin(), text.end());
  Check(*plain == reference, "plain value as nlohmann's");
  const nlohmann::ordered_json ordered_reference =
      nlohmann::ordered_json::parse(text.begin(), text.end());
  Check(*ordered == ordered_reference, "ordered value as nlohmann's, members in the same order");
  Check(cairn::json::ToOrderedJson(*plain) == nlohmann::ordered_json::parse(reference.dump()),
        "ToOrderedJson is parsing the dump");
  // What is written reads back as the same value.
  auto again = cairn::json::ParseOrderedJson(cairn::json::DumpJson(*ordered));
  Check(again.has_value() && *again == *ordered, "dump and parse round trip");
  return 0;
}
