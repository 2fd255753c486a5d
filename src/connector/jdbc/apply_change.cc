// SPDX-License-Identifier: Apache-2.0
#include <algorithm>

#include "common/util.h"
#include "connector/jdbc/jdbc_dialect.h"

namespace cairn::connector::jdbc {

namespace {

Result<std::string> TopLevel(const model::FieldName& name) {
  if (name.size() != 1 || name[0].empty()) {
    return InvalidArgument(
        "Column '{}' must be a top-level column name: nested columns are not "
        "supported by JDBC catalogs",
        Join(name, "."));
  }
  return name[0];
}

std::vector<model::Column>::iterator FindColumn(model::Table& t, const std::string& name) {
  return std::find_if(t.columns.begin(), t.columns.end(),
                      [&](const model::Column& c) { return c.name == name; });
}

}  // namespace

Status ApplyChange(model::Table& t, const model::TableChange& c) {
  using K = model::TableChange::Kind;
  if (c.kind == K::kRename) {
    t.name = c.new_name;
    return Ok();
  }
  if (c.kind == K::kUpdateComment) {
    t.comment = c.comment;
    return Ok();
  }
  if (c.kind == K::kSetProperty || c.kind == K::kRemoveProperty) return Ok();
  if (c.kind == K::kAddIndex) {
    t.indexes.push_back(c.index);
    return Ok();
  }
  if (c.kind == K::kDeleteIndex) {
    auto it = std::find_if(t.indexes.begin(), t.indexes.end(),
                           [&](const model::Index& i) { return i.name == c.index_name; });
    if (it == t.indexes.end()) {
      if (c.if_exists) return Ok();
      return InvalidArgument("Index '{}' does not exist in table {}", c.index_name, t.name);
    }
    t.indexes.erase(it);
    return Ok();
  }
  CAIRN_ASSIGN_OR_RETURN(std::string name, TopLevel(c.field_name));
  auto col = FindColumn(t, name);
  if (c.kind == K::kAddColumn) {
    if (col != t.columns.end()) {
      return AlreadyExists(EntityKind::kColumn, "Column '{}' already exists in table {}", name,
                           t.name);
    }
    model::Column added;
    added.name = name;
    added.type = c.type;
    added.comment = c.comment;
    added.nullable = c.nullable;
    added.auto_increment = c.auto_increment;
    added.default_value = c.default_value;
    auto pos = t.columns.end();
    if (c.position.kind == model::ColumnPosition::Kind::kFirst) pos = t.columns.begin();
    if (c.position.kind == model::ColumnPosition::Kind::kAfter) {
      pos = FindColumn(t, c.position.after);
      if (pos == t.columns.end()) {
        return InvalidArgument("Column '{}' does not exist in table {}", c.position.after, t.name);
      }
      ++pos;
    }
    t.columns.insert(pos, std::move(added));
    return Ok();
  }
  if (col == t.columns.end()) {
    if (c.kind == K::kDeleteColumn && c.if_exists) return Ok();
    return InvalidArgument("Column '{}' does not exist in table {}", name, t.name);
  }
  switch (c.kind) {
    case K::kRenameColumn:
      if (FindColumn(t, c.new_name) != t.columns.end()) {
        return AlreadyExists(EntityKind::kColumn, "Column '{}' already exists in table {}",
                             c.new_name, t.name);
      }
      col->name = c.new_name;
      for (auto& index : t.indexes) {
        for (auto& f : index.field_names) {
          if (f.size() == 1 && f[0] == name) f[0] = c.new_name;
        }
      }
      break;
    case K::kUpdateColumnDefaultValue:
      col->default_value = c.default_value;
      break;
    case K::kUpdateColumnType:
      col->type = c.type;
      break;
    case K::kUpdateColumnComment:
      col->comment = c.comment;
      break;
    case K::kUpdateColumnNullability:
      col->nullable = c.nullable;
      break;
    case K::kUpdateColumnAutoIncrement:
      col->auto_increment = c.auto_increment;
      break;
    case K::kUpdateColumnPosition: {
      model::Column moved = *col;
      t.columns.erase(col);
      auto pos = t.columns.end();
      if (c.position.kind == model::ColumnPosition::Kind::kFirst) pos = t.columns.begin();
      if (c.position.kind == model::ColumnPosition::Kind::kAfter) {
        pos = FindColumn(t, c.position.after);
        if (pos == t.columns.end()) {
          return InvalidArgument("Column '{}' does not exist in table {}", c.position.after,
                                 t.name);
        }
        ++pos;
      }
      t.columns.insert(pos, std::move(moved));
      break;
    }
    case K::kDeleteColumn:
      t.columns.erase(col);
      break;
    default:
      break;
  }
  return Ok();
}

}  // namespace cairn::connector::jdbc
