// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/types.h"

namespace cairn::model {

using Properties = std::map<std::string, std::string>;
using FieldName = std::vector<std::string>;  // a column path: {"col", "nested"}

/// Who created and last changed an object, and when (epoch milliseconds).
struct Audit {
  std::string creator;
  int64_t create_time = 0;
  std::optional<std::string> last_modifier;
  std::optional<int64_t> last_modified_time;
  bool operator==(const Audit&) const = default;
};

/// An expression: literal, field reference, function call, or unparsed SQL.
struct Expression {
  enum class Kind { kLiteral, kField, kFunction, kUnparsed };
  Kind kind = Kind::kField;
  TypePtr data_type;                 // literal
  std::optional<std::string> value;  // literal (SQL NULL is data type null, value "NULL")
  FieldName field_name;              // field
  std::string func_name;             // function
  std::vector<Expression> args;      // function
  std::string unparsed;              // unparsed
  bool operator==(const Expression& o) const;
};

/// A table-level partitioning transform.
struct Transform {
  std::string
      strategy;  // identity, year, month, day, hour, bucket, truncate, list, range, function
  FieldName field_name;                // identity/year/month/day/hour/truncate/range
  std::vector<FieldName> field_names;  // bucket/list
  int num_buckets = 0;                 // bucket
  int width = 0;                       // truncate
  std::string func_name;               // function
  std::vector<Expression> args;        // function
  std::string assignments_json;        // list/range assignments, kept verbatim (JSON array text)
  bool operator==(const Transform&) const = default;
};

struct Distribution {
  std::string strategy = "none";  // none, hash, range, even
  int number = 0;
  std::vector<Expression> args;
  bool operator==(const Distribution&) const = default;
};

struct SortOrder {
  Expression term;
  std::string direction = "asc";              // asc | desc
  std::string null_ordering = "nulls_first";  // nulls_first | nulls_last
  bool operator==(const SortOrder&) const = default;
};

struct Index {
  std::string index_type;  // PRIMARY_KEY, UNIQUE_KEY, ...
  std::optional<std::string> name;
  std::vector<FieldName> field_names;
  Properties properties;
  bool operator==(const Index&) const = default;
};

struct Column {
  std::string name;
  TypePtr type;
  std::optional<std::string> comment;
  bool nullable = true;
  bool auto_increment = false;
  std::optional<Expression> default_value;
  bool operator==(const Column& o) const;
};

/// A table as the object model sees it, whatever the source.
struct Table {
  std::string name;
  std::optional<std::string> comment;
  std::vector<Column> columns;
  Properties properties;
  std::vector<Transform> partitioning;
  Distribution distribution;
  std::vector<SortOrder> sort_orders;
  std::vector<Index> indexes;
  Audit audit;
};

/// Column position for add/move: first, after a column, or the default (last).
struct ColumnPosition {
  enum class Kind { kDefault, kFirst, kAfter };
  Kind kind = Kind::kDefault;
  std::string after;
};

/// One change of a table alter request; several are applied atomically, in order.
struct TableChange {
  enum class Kind {
    kRename,
    kUpdateComment,
    kSetProperty,
    kRemoveProperty,
    kAddColumn,
    kRenameColumn,
    kUpdateColumnDefaultValue,
    kUpdateColumnType,
    kUpdateColumnComment,
    kUpdateColumnPosition,
    kUpdateColumnNullability,
    kDeleteColumn,
    kUpdateColumnAutoIncrement,
    kAddIndex,
    kDeleteIndex,
  };
  Kind kind = Kind::kRename;
  std::string new_name;                     // rename, renameColumn
  std::optional<std::string> new_schema;    // rename
  std::optional<std::string> comment;       // updateComment, addColumn, updateColumnComment
  std::string property;                     // set/remove property
  std::string value;                        // setProperty
  FieldName field_name;                     // column changes
  TypePtr type;                             // addColumn, updateColumnType
  ColumnPosition position;                  // addColumn, updateColumnPosition
  bool nullable = true;                     // addColumn, updateColumnNullability
  bool auto_increment = false;              // addColumn, updateColumnAutoIncrement
  std::optional<Expression> default_value;  // addColumn, updateColumnDefaultValue
  bool if_exists = false;                   // deleteColumn, deleteIndex
  Index index;                              // addIndex
  std::string index_name;                   // deleteIndex
};

/// Schema and metalake/catalog changes share these simple shapes.
struct EntityChange {
  enum class Kind { kRename, kUpdateComment, kSetProperty, kRemoveProperty };
  Kind kind = Kind::kSetProperty;
  std::string new_name;
  std::optional<std::string> comment;
  std::string property;
  std::string value;
};

}  // namespace cairn::model
