// SPDX-License-Identifier: Apache-2.0
// The schema parser (create-table, add-schema, views) and everything a new table's schema goes
// through: fresh ids, the format-version check, the metadata written and read back.
#include "fuzz_util.h"
#include "iceberg/commit.h"
#include "iceberg/schema.h"
#include "iceberg/table_metadata.h"
#include "json/json_util.h"

using cairn::fuzz::Check;
using cairn::iceberg::Json;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto schema = cairn::json::ParseOrderedJson(cairn::fuzz::Text(data, size));
  if (!schema) return 0;
  if (auto parsed = cairn::iceberg::ParseSchemaJson(*schema)) {
    auto again = cairn::iceberg::ParseSchemaJson(*parsed);
    Check(again.has_value() && *again == *parsed, "an accepted schema parses to itself");
    Check(cairn::iceberg::SameSchemaJson(*parsed, *again), "a schema is the same as itself");
    std::vector<int> ids;
    cairn::iceberg::CollectFieldIds(*parsed, &ids);
    for (int id : ids) {
      Check(cairn::iceberg::FindTypeById(*parsed, id) != nullptr, "every id has a type");
      Check(cairn::iceberg::FindFieldPath(*parsed, id).has_value(), "every id has a path");
    }
    (void)cairn::iceberg::MinFormatVersion(*parsed);
    (void)cairn::iceberg::FromIcebergSchema(*parsed);
  }
  // As a create-table request, in every format version.
  for (const char* version : {"1", "2", "3"}) {
    Json request = Json::object();
    request["name"] = "t";
    request["schema"] = *schema;
    request["properties"] = Json::object({{"format-version", version}});
    auto md = cairn::iceberg::NewTableMetadataFromRest(request, "file:///w/t", 1);
    if (!md) continue;
    auto back = cairn::iceberg::ParseMetadata(cairn::iceberg::ToJsonText(*md));
    Check(back.has_value(), "the metadata written for a new table reads back");
    Check(*back == *md, "and is the same document");
    (void)cairn::iceberg::TableFromMetadata(*back);
    Check(cairn::iceberg::ApplyTableUpdates(&*back, Json::array(), 2).has_value(),
          "a new table takes an empty commit");
  }
  return 0;
}
