// SPDX-License-Identifier: Apache-2.0
// Gravitino's JSON serde for types, columns and table requests: a body is parsed as the API
// parses it; an accepted type is written and read back as the same type.
#include "api/gravitino/serde.h"
#include "fuzz_util.h"
#include "model/types.h"

using cairn::api::gravitino::Json;
using cairn::fuzz::Check;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto body = cairn::api::gravitino::ParseBody(std::string(cairn::fuzz::Text(data, size)));
  if (!body) return 0;
  (void)cairn::api::gravitino::TableFromJson(*body);
  (void)cairn::api::gravitino::TableUpdatesFromJson(*body);
  const Json& type = body->contains("type") ? (*body)["type"] : *body;
  auto t = cairn::api::gravitino::TypeFromJson(type, "type");
  if (t) {
    Check(cairn::model::TypeDepth(*t) <= cairn::model::kMaxTypeDepth,
          "an accepted type is within the nesting limit");
    const Json written = Json::parse(cairn::api::gravitino::TypeToJson(**t).dump());
    auto again = cairn::api::gravitino::TypeFromJson(written, "type");
    Check(again.has_value() && cairn::model::TypesEqual(*t, *again),
          "a written type reads back as the same type");
  }
  if (auto c = cairn::api::gravitino::ColumnFromJson(*body, "column")) {
    (void)cairn::api::gravitino::ColumnToJson(*c);
  }
  return 0;
}
