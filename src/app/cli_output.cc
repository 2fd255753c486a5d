// SPDX-License-Identifier: Apache-2.0
#include "app/cli_output.h"

#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/util.h"

namespace cairn::app::cli {

using json = nlohmann::ordered_json;

namespace {

// Display width in code points (UTF-8 continuation bytes take no column).
size_t Width(std::string_view s) {
  return static_cast<size_t>(std::count_if(
      s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

std::string Compact(const json& value) {
  return value.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string JoinFieldName(const json& name) {
  if (!name.is_array()) return CellText(name);
  std::vector<std::string> parts;
  for (const auto& p : name) parts.push_back(CellText(p));
  return Join(parts, ".");
}

std::string Upper(const json& value) { return ToUpper(CellText(value)); }

}  // namespace

void PrintTable(std::ostream& out, const std::vector<std::string>& header,
                const std::vector<std::vector<std::string>>& rows) {
  std::vector<std::vector<std::string>> cells;
  cells.reserve(rows.size() + 1);
  cells.push_back(header);
  for (const auto& row : rows) {
    std::vector<std::string> safe;
    safe.reserve(row.size());
    for (const auto& cell : row) safe.push_back(EscapeControl(cell));
    cells.push_back(std::move(safe));
  }
  std::vector<size_t> widths(header.size(), 0);
  for (const auto& row : cells) {
    for (size_t i = 0; i < row.size() && i < widths.size(); ++i) {
      widths[i] = std::max(widths[i], Width(row[i]));
    }
  }
  for (const auto& row : cells) {
    std::string line;
    for (size_t i = 0; i < row.size() && i < widths.size(); ++i) {
      if (i > 0) line += "  ";
      line += row[i];
      if (i + 1 < row.size()) line.append(widths[i] - Width(row[i]), ' ');
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out << line << "\n";
  }
}

void PrintFields(std::ostream& out,
                 const std::vector<std::pair<std::string, std::string>>& fields) {
  size_t width = 0;
  for (const auto& [label, value] : fields) width = std::max(width, Width(label) + 1);
  for (const auto& [label, value] : fields) {
    std::string line = label + ":";
    line.append(width - Width(label) - 1 + 2, ' ');
    line += EscapeControl(value);
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out << line << "\n";
  }
}

const json& Member(const json& object, std::string_view key) {
  static const json kNull;
  if (!object.is_object()) return kNull;
  auto it = object.find(key);
  return it == object.end() ? kNull : *it;
}

void PrintJsonDocument(std::ostream& out, const json& doc) {
  out << doc.dump(2, ' ', false, json::error_handler_t::replace) << "\n";
}

std::string CellText(const json& value) {
  if (value.is_null() || value.is_discarded()) return "";
  if (value.is_string()) return value.get<std::string>();
  return Compact(value);
}

std::string PropertiesText(const json& properties) {
  if (!properties.is_object()) return CellText(properties);
  std::vector<std::string> parts;
  for (const auto& [k, v] : properties.items()) parts.push_back(k + "=" + CellText(v));
  return Join(parts, ", ");
}

std::string TypeText(const json& type) {
  if (type.is_string()) return type.get<std::string>();
  if (!type.is_object() || !type.contains("type")) return CellText(type);
  const std::string kind = CellText(type["type"]);
  if (kind == "struct" && type.contains("fields") && type["fields"].is_array()) {
    std::vector<std::string> fields;
    for (const auto& f : type["fields"]) {
      std::string text = CellText(Member(f, "name")) + ": " + TypeText(Member(f, "type"));
      if (f.contains("nullable") && f["nullable"].is_boolean() && !f["nullable"].get<bool>()) {
        text += " NOT NULL";
      }
      fields.push_back(std::move(text));
    }
    return "struct<" + Join(fields, ", ") + ">";
  }
  if (kind == "list") return "list<" + TypeText(Member(type, "elementType")) + ">";
  if (kind == "map") {
    return "map<" + TypeText(Member(type, "keyType")) + ", " + TypeText(Member(type, "valueType")) +
           ">";
  }
  if (kind == "union" && type.contains("types") && type["types"].is_array()) {
    std::vector<std::string> types;
    for (const auto& t : type["types"]) types.push_back(TypeText(t));
    return "union<" + Join(types, ", ") + ">";
  }
  if (kind == "unparsed")
    return (Member(type, "unparsedType").is_null() ? kind : CellText(Member(type, "unparsedType")));
  if (kind == "external")
    return (Member(type, "catalogString").is_null() ? kind
                                                    : CellText(Member(type, "catalogString")));
  return Compact(type);
}

std::string ExpressionText(const json& expression) {
  if (!expression.is_object()) return CellText(expression);
  const std::string kind = CellText(Member(expression, "type"));
  if (kind == "field") return JoinFieldName(Member(expression, "fieldName"));
  if (kind == "literal") return CellText(Member(expression, "value"));
  if (kind == "function") {
    std::vector<std::string> args;
    if (auto it = expression.find("funcArgs"); it != expression.end() && it->is_array()) {
      for (const auto& a : *it) args.push_back(ExpressionText(a));
    }
    return CellText(Member(expression, "funcName")) + "(" + Join(args, ", ") + ")";
  }
  return Compact(expression);
}

std::string TransformText(const json& transform) {
  if (!transform.is_object()) return CellText(transform);
  const std::string strategy = CellText(Member(transform, "strategy"));
  std::vector<std::string> args;
  if (strategy == "bucket") args.push_back(CellText(Member(transform, "numBuckets")));
  if (strategy == "truncate") args.push_back(CellText(Member(transform, "width")));
  if (strategy == "function") {
    if (auto it = transform.find("funcArgs"); it != transform.end() && it->is_array()) {
      for (const auto& a : *it) args.push_back(ExpressionText(a));
    }
    return CellText(Member(transform, "funcName")) + "(" + Join(args, ", ") + ")";
  }
  if (auto it = transform.find("fieldName"); it != transform.end()) {
    args.push_back(JoinFieldName(*it));
  }
  if (auto it = transform.find("fieldNames"); it != transform.end() && it->is_array()) {
    for (const auto& name : *it) args.push_back(JoinFieldName(name));
  }
  if (strategy.empty()) return Compact(transform);
  return strategy + "(" + Join(args, ", ") + ")";
}

std::string SortOrderText(const json& order) {
  if (!order.is_object()) return CellText(order);
  std::string text = ExpressionText(Member(order, "sortTerm"));
  if (order.contains("direction")) text += " " + Upper(Member(order, "direction"));
  if (order.contains("nullOrdering")) text += " " + Upper(Member(order, "nullOrdering"));
  return text;
}

std::string DistributionText(const json& distribution) {
  if (!distribution.is_object()) return CellText(distribution);
  const std::string strategy = Member(distribution, "strategy").is_null()
                                   ? std::string("none")
                                   : CellText(Member(distribution, "strategy"));
  std::vector<std::string> args;
  if (auto it = distribution.find("funcArgs"); it != distribution.end() && it->is_array()) {
    for (const auto& a : *it) args.push_back(ExpressionText(a));
  }
  std::string text = strategy;
  if (!args.empty()) text += "(" + Join(args, ", ") + ")";
  if (auto it = distribution.find("number");
      it != distribution.end() && it->is_number_integer() && it->get<int64_t>() > 0) {
    text += fmt::format(" into {}", it->get<int64_t>());
  }
  return text;
}

}  // namespace cairn::app::cli
