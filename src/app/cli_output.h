// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace cairn::app::cli {

/// Rows under a header, each column as wide as its widest cell (in code points), two spaces
/// apart, without trailing blanks. Control characters in cells are written as `\xNN`, so a
/// name cannot move the cursor of the terminal that shows it.
void PrintTable(std::ostream& out, const std::vector<std::string>& header,
                const std::vector<std::vector<std::string>>& rows);

/// `Label:  value` lines, the values aligned after the widest label.
void PrintFields(std::ostream& out, const std::vector<std::pair<std::string, std::string>>& fields);

/// A JSON document as scripts read it: indented by two, invalid UTF-8 replaced, one newline.
void PrintJsonDocument(std::ostream& out, const nlohmann::ordered_json& doc);

/// `object[key]`, or a null value when `object` is not an object or has no such member (never
/// throws, never inserts).
const nlohmann::ordered_json& Member(const nlohmann::ordered_json& object, std::string_view key);

/// A JSON value as one cell: a string as it is, null or a missing value as "", anything else
/// as compact JSON.
std::string CellText(const nlohmann::ordered_json& value);

/// `key=value` pairs of a JSON object, comma-separated, in key order.
std::string PropertiesText(const nlohmann::ordered_json& properties);

/// A Gravitino column type (`"long"`, or a complex type object) as SQL-like text:
/// `struct<a: integer NOT NULL>`, `list<string>`, `map<string, long>`.
std::string TypeText(const nlohmann::ordered_json& type);

/// A Gravitino expression (field reference, literal or function call) as text: `a.b`, `10`,
/// `bucket(4, id)`.
std::string ExpressionText(const nlohmann::ordered_json& expression);

/// One partitioning transform as text: `identity(name)`, `bucket(4, id)`, `truncate(10, s)`.
std::string TransformText(const nlohmann::ordered_json& transform);

/// One sort order as text: `id ASC NULLS_FIRST`.
std::string SortOrderText(const nlohmann::ordered_json& order);

/// A table's distribution as text: `hash(id) into 8`, `none`.
std::string DistributionText(const nlohmann::ordered_json& distribution);

}  // namespace cairn::app::cli
