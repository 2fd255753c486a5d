// SPDX-License-Identifier: Apache-2.0
// Metadata files as the server reads them back from storage, a registered file or a remote
// catalog: parsed, converted to the Gravitino model, normalized, committed to and written.
#include "fuzz_util.h"
#include "iceberg/commit.h"
#include "iceberg/table_metadata.h"
#include "json/json_util.h"
#include "model/table.h"

using cairn::fuzz::Check;
using cairn::iceberg::Json;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text = cairn::fuzz::Text(data, size);
  (void)cairn::iceberg::StorageLocations(text);
  auto md = cairn::iceberg::ParseMetadata(text);
  if (!md) return 0;
  (void)cairn::iceberg::TableFromMetadata(*md);
  (void)cairn::iceberg::CurrentSchema(*md);
  (void)cairn::iceberg::PropertiesOf(*md);
  const Json normalized = cairn::iceberg::NormalizeMetadata(*md);
  auto back = cairn::iceberg::ParseMetadata(cairn::iceberg::ToJsonText(normalized));
  Check(back.has_value(), "normalized metadata reads back");
  (void)cairn::iceberg::CheckTableRequirements(&*md, Json::array());
  static const Json kSetProperty = Json::array(
      {Json::object({{"action", "set-properties"}, {"updates", Json::object({{"k", "v"}})}})});
  for (const Json* updates : {&kSetProperty}) {
    auto out = cairn::iceberg::ApplyTableUpdates(&*md, *updates, 1);
    if (!out) continue;
    auto again = cairn::iceberg::ParseMetadata(cairn::iceberg::ToJsonText(*out));
    Check(again.has_value() && *again == *out, "a commit's metadata reads back as itself");
  }
  (void)cairn::iceberg::ApplyTableUpdates(Json(*md), Json::array(), 1);

  // Gravitino alters on the file, on its first column (or a made-up one).
  using Kind = cairn::model::TableChange::Kind;
  std::string first = "c";
  if (const Json* schema = cairn::iceberg::CurrentSchema(*md)) {
    auto fields = schema->find("fields");
    if (fields != schema->end() && fields->is_array() && !fields->empty() &&
        fields->front().is_object()) {
      auto name = fields->front().find("name");
      if (name != fields->front().end() && name->is_string()) first = name->get<std::string>();
    }
  }
  std::vector<cairn::model::TableChange> changes;
  auto change = [&](Kind kind, cairn::model::FieldName name) -> cairn::model::TableChange& {
    changes.emplace_back();
    changes.back().kind = kind;
    changes.back().field_name = std::move(name);
    return changes.back();
  };
  change(Kind::kAddColumn, {"fz_new"}).type =
      cairn::model::MakePrimitive(cairn::model::TypeKind::kLong);
  change(Kind::kAddColumn, {first, "fz_nested"}).type =
      cairn::model::MakeList(cairn::model::MakePrimitive(cairn::model::TypeKind::kString), true);
  change(Kind::kRenameColumn, {first}).new_name = "fz_renamed";
  change(Kind::kUpdateColumnType, {first}).type =
      cairn::model::MakePrimitive(cairn::model::TypeKind::kLong);
  change(Kind::kUpdateColumnComment, {first}).comment = "c";
  change(Kind::kUpdateColumnPosition, {first}).position.kind =
      cairn::model::ColumnPosition::Kind::kFirst;
  change(Kind::kUpdateColumnNullability, {first}).nullable = true;
  change(Kind::kDeleteColumn, {first});
  change(Kind::kSetProperty, {}).property = "k";
  change(Kind::kUpdateComment, {}).comment = "c";
  for (const auto& c : changes) {
    auto out = cairn::iceberg::ApplyTableChanges(*md, {c}, 1);
    if (!out) continue;
    auto again = cairn::iceberg::ParseMetadata(cairn::iceberg::ToJsonText(*out));
    Check(again.has_value() && *again == *out, "an altered table's metadata reads back as itself");
    (void)cairn::iceberg::TableFromMetadata(*out);
  }
  return 0;
}
