// SPDX-License-Identifier: Apache-2.0
// JSON of the Gravitino REST API <-> the object model. Field names follow Gravitino 1.3's DTOs;
// enums are read case-insensitively and written lower-case (index types upper-case).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/result.h"
#include "model/entities.h"
#include "model/json_codec.h"
#include "model/table.h"

namespace cairn::api::gravitino {

using Json = nlohmann::json;
using OrderedJson = nlohmann::ordered_json;

/// Parses a request body; kInvalidArgument "Malformed json request" on bad JSON or a non-object.
Result<Json> ParseBody(const std::string& body);

// Types, expressions and columns: the model's own codec (model/json_codec.h), which connectors
// that keep columns in Cairn's store use too.
using model::ColumnFromJson;
using model::ColumnToJson;
using model::ExpressionFromJson;
using model::ExpressionToJson;
using model::TypeFromJson;
using model::TypeToJson;

Result<model::Transform> TransformFromJson(const Json& j, const std::string& field);
OrderedJson TransformToJson(const model::Transform& t);

Result<model::Distribution> DistributionFromJson(const Json& j, const std::string& field);
OrderedJson DistributionToJson(const model::Distribution& d);

Result<model::SortOrder> SortOrderFromJson(const Json& j, const std::string& field);
OrderedJson SortOrderToJson(const model::SortOrder& s);

Result<model::Index> IndexFromJson(const Json& j, const std::string& field);
OrderedJson IndexToJson(const model::Index& i);

OrderedJson AuditToJson(const model::Audit& a);

/// TableCreateRequest (name, comment, columns, properties, partitioning, distribution,
/// sortOrders, indexes).
Result<model::Table> TableFromJson(const Json& j);
OrderedJson TableToJson(const model::Table& t);

OrderedJson MetalakeToJson(const model::Metalake& m);
OrderedJson CatalogToJson(const model::Catalog& c);
OrderedJson SchemaToJson(const model::Schema& s);

/// FilesetCreateRequest (name, comment, type, storageLocation, storageLocations, properties). A
/// bare `storageLocation` is kept under location name "unknown".
Result<model::Fileset> FilesetFromJson(const Json& j);
/// FilesetDTO; `storageLocation` is the "unknown" location when there is one.
OrderedJson FilesetToJson(const model::Fileset& f);
/// FileInfoDTO: name, isDir, size, lastModified (epoch ms), path.
OrderedJson FileInfoToJson(const model::FileInfo& f);

/// `{"updates":[...]}` of a metalake or catalog (rename, updateComment, setProperty,
/// removeProperty), a fileset (the same plus removeComment) or a schema (setProperty,
/// removeProperty only).
Result<std::vector<model::EntityChange>> EntityUpdatesFromJson(const Json& body, EntityKind kind);
/// `{"updates":[...]}` of a table, every `@type` of Gravitino 1.3.
Result<std::vector<model::TableChange>> TableUpdatesFromJson(const Json& body);

/// Reads an optional string field that may be null or absent. kInvalidArgument when present
/// with another type.
Result<std::optional<std::string>> OptionalString(const Json& j, const char* field);
/// Reads a required non-empty string field.
Result<std::string> RequiredString(const Json& j, const char* field);
/// The names of an association request (`tagsToAdd`, `policiesToRemove`, ...): an array of
/// non-blank strings, or absent or null (empty).
Result<std::vector<std::string>> NameListFromJson(const Json& j, const char* field);
/// True when `field` is missing from `j` or null.
bool IsNullOrAbsent(const Json& j, const char* field);
/// Reads an optional `properties` map of strings (null or absent -> empty).
Result<model::Properties> PropertiesFromJson(const Json& j, const char* field);

}  // namespace cairn::api::gravitino
