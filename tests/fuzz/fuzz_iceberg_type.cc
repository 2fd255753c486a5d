// SPDX-License-Identifier: Apache-2.0
// Iceberg types: the primitive type parser on raw text, and type JSON through the schema parser
// (as a create-table body's column) and the model conversion (as metadata read back).
#include "fuzz_util.h"
#include "iceberg/commit.h"
#include "iceberg/schema.h"
#include "json/json_util.h"
#include "model/types.h"

using cairn::fuzz::Check;
using cairn::iceberg::Json;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text = cairn::fuzz::Text(data, size);

  // The raw text as a primitive type string: what is accepted is written in a form that reads
  // back as itself.
  if (auto canonical = cairn::iceberg::CanonicalPrimitiveType(text)) {
    auto again = cairn::iceberg::CanonicalPrimitiveType(*canonical);
    Check(again.has_value() && *again == *canonical, "canonical type text is a fixed point");
    const int version = cairn::iceberg::MinFormatVersion(Json(*canonical));
    Check(version == 1 || version == 3, "a format version Iceberg has");
  }

  // The text as a type JSON.
  auto type = cairn::json::ParseOrderedJson(text);
  if (!type) return 0;
  (void)cairn::iceberg::CheckTypeDepth(*type, "type");
  if (auto model = cairn::iceberg::FromIcebergType(*type)) {
    (void)cairn::model::TypeDepth(*model, 1'000'000);
    int last_id = 0;
    (void)cairn::iceberg::ToIcebergType(*model, "c", &last_id);
  }
  Json field = Json::object();
  field["id"] = 1;
  field["name"] = "c";
  field["required"] = false;
  field["type"] = *type;
  Json schema = Json::object();
  schema["type"] = "struct";
  schema["fields"] = Json::array({std::move(field)});
  auto parsed = cairn::iceberg::ParseSchemaJson(schema);
  if (!parsed) return 0;
  Check(cairn::iceberg::CheckTypeDepth((*parsed)["fields"][0]["type"], "type").has_value(),
        "an accepted type is within the nesting limit");
  auto again = cairn::iceberg::ParseSchemaJson(*parsed);
  Check(again.has_value() && *again == *parsed, "an accepted schema parses to itself");
  return 0;
}
