// SPDX-License-Identifier: Apache-2.0
// Column types, default-value expressions and columns as JSON in the shape of Gravitino's DTOs:
// what the Gravitino API reads and writes, and what connectors that keep a table's columns in
// Cairn's own store persist. Errors name the field at fault (`columns[0].type.elementType`).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/result.h"
#include "model/table.h"
#include "model/types.h"

namespace cairn::model {

Result<TypePtr> TypeFromJson(const nlohmann::json& j, const std::string& field);
nlohmann::ordered_json TypeToJson(const Type& type);

Result<Expression> ExpressionFromJson(const nlohmann::json& j, const std::string& field);
nlohmann::ordered_json ExpressionToJson(const Expression& e);

Result<Column> ColumnFromJson(const nlohmann::json& j, const std::string& field);
nlohmann::ordered_json ColumnToJson(const Column& c);

/// The field readers the codecs above share with the other readers of Gravitino JSON. `ctx`
/// is the path of the enclosing object ("" at the top); errors name `ctx.field`.
namespace json_fields {

using Json = nlohmann::json;
using OrderedJson = nlohmann::ordered_json;

/// "an object", "a string", ... for messages.
std::string TypeName(const Json& j);
/// kInvalidArgument "Field 'f' must be <expected>, got <what it is>".
Error WrongType(const std::string& field, const char* expected, const Json& got);
/// The member `field` of an object; nullptr when absent, null, or `j` is no object.
const Json* Find(const Json& j, const char* field);
std::string Path(const std::string& parent, const char* field);
Result<bool> OptionalBool(const Json& j, const char* field, bool fallback, const std::string& ctx);
Result<int> OptionalInt(const Json& j, const char* field, int fallback, const std::string& ctx);
/// A required string member.
Result<std::string> StringIn(const Json& j, const char* field, const std::string& ctx);
/// A non-empty array of non-empty strings (`["a", "b"]` names nested field a.b).
Result<FieldName> FieldNameFromJson(const Json& j, const char* field, const std::string& ctx);
Result<std::vector<FieldName>> FieldNamesFromJson(const Json& j, const char* field,
                                                  const std::string& ctx);
/// An optional array of expressions (absent: none).
Result<std::vector<Expression>> ExpressionsFromJson(const Json& j, const char* field,
                                                    const std::string& ctx);
OrderedJson FieldNameToJson(const FieldName& f);

}  // namespace json_fields

}  // namespace cairn::model
