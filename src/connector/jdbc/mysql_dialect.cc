// SPDX-License-Identifier: Apache-2.0
#include <algorithm>
#include <map>

#include "common/util.h"
#include "connector/jdbc/jdbc_dialect.h"
#include "connector/jdbc/jdbc_types.h"

namespace cairn::connector::jdbc {

namespace {

using K = model::TableChange::Kind;

constexpr const char* kSystemDatabases =
    "('mysql', 'information_schema', 'performance_schema', 'sys')";

std::string Ident(std::string_view name) {
  std::string out = "`";
  for (char c : name) {
    if (c == '`') out.push_back('`');
    out.push_back(c);
  }
  out.push_back('`');
  return out;
}

Result<std::string> Lit(std::string_view text) { return SqlStringLiteral(text, true); }

std::string Qualified(std::string_view schema, std::string_view table) {
  return Ident(schema) + "." + Ident(table);
}

bool IsNullLiteral(const std::optional<model::Expression>& e) {
  return e && e->kind == model::Expression::Kind::kLiteral &&
         (!e->data_type || e->data_type->kind == model::TypeKind::kNull);
}

std::optional<int64_t> Int(const std::optional<std::string>& v) {
  if (!v) return std::nullopt;
  return ParseInt64(*v);
}

std::optional<std::string> NonEmpty(const std::optional<std::string>& v) {
  if (!v || v->empty()) return std::nullopt;
  return v;
}

// The fractional-second digits of a datetime column, which MySQL wants CURRENT_TIMESTAMP to repeat.
int TimePrecision(const model::Type& t) {
  if (t.kind == model::TypeKind::kTimestamp || t.kind == model::TypeKind::kTimestampTz ||
      t.kind == model::TypeKind::kTime) {
    return t.precision;
  }
  return -1;
}

// `name` type NULL|NOT NULL [AUTO_INCREMENT] [DEFAULT expr] [COMMENT '...']
Result<std::string> ColumnSql(const model::Column& c) {
  if (!c.type) return InvalidArgument("Column '{}' has no type", c.name);
  CAIRN_ASSIGN_OR_RETURN(std::string type, MysqlTypeFromModel(*c.type));
  std::string sql = Ident(c.name) + " " + type + (c.nullable ? " NULL" : " NOT NULL");
  if (c.auto_increment) sql += " AUTO_INCREMENT";
  if (c.default_value && !c.auto_increment && !IsNullLiteral(c.default_value)) {
    CAIRN_ASSIGN_OR_RETURN(std::string d,
                           DefaultValueSql(*c.default_value, true, TimePrecision(*c.type)));
    sql += " DEFAULT " + d;
  }
  if (c.comment) {
    CAIRN_ASSIGN_OR_RETURN(std::string text, Lit(*c.comment));
    sql += " COMMENT " + text;
  }
  return sql;
}

Result<std::string> IndexSql(const model::Index& index) {
  std::vector<std::string> cols;
  for (const auto& f : index.field_names) {
    if (f.size() != 1) return InvalidArgument("Index columns must be top-level column names");
    cols.push_back(Ident(f[0]));
  }
  if (cols.empty()) return InvalidArgument("An index needs at least one column");
  const std::string list = " (" + Join(cols, ", ") + ")";
  if (EqualsIgnoreCase(index.index_type, "PRIMARY_KEY")) {
    // MySQL names every primary key PRIMARY.
    return "PRIMARY KEY" + list;
  }
  if (EqualsIgnoreCase(index.index_type, "UNIQUE_KEY")) {
    std::string sql = "UNIQUE KEY";
    if (index.name && !index.name->empty()) sql += " " + Ident(*index.name);
    return sql + list;
  }
  return InvalidArgument("Index type '{}' is not supported; use PRIMARY_KEY or UNIQUE_KEY",
                         index.index_type);
}

std::string PositionSql(const model::ColumnPosition& p) {
  if (p.kind == model::ColumnPosition::Kind::kFirst) return " FIRST";
  if (p.kind == model::ColumnPosition::Kind::kAfter) return " AFTER " + Ident(p.after);
  return "";
}

const model::Column* FindColumn(const model::Table& t, const std::string& name) {
  for (const auto& c : t.columns) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

class MysqlDialect final : public Dialect {
 public:
  std::string_view Name() const override { return "MySQL"; }
  bool TransactionalDdl() const override { return false; }

  std::string ListSchemasSql() const override {
    return std::string(
               "SELECT SCHEMA_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME NOT "
               "IN ") +
           kSystemDatabases + " ORDER BY SCHEMA_NAME";
  }

  std::vector<std::string> BuiltinSchemas() const override { return {}; }

  Result<std::string> LoadSchemaSql(std::string_view name) const override {
    CAIRN_ASSIGN_OR_RETURN(std::string n, Lit(name));
    return "SELECT SCHEMA_NAME, NULL FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = " + n +
           " AND SCHEMA_NAME NOT IN " + kSystemDatabases;
  }

  Result<std::vector<std::string>> CreateSchemaSql(const model::Schema& s) const override {
    if (s.comment && !s.comment->empty()) {
      return Unsupported("MySQL does not support schema comments (schema {})", s.name);
    }
    if (!s.properties.empty()) {
      return InvalidArgument("MySQL does not support properties on schema create (got '{}')",
                             s.properties.begin()->first);
    }
    return std::vector<std::string>{"CREATE DATABASE " + Ident(s.name)};
  }

  std::string DropSchemaSql(std::string_view name, bool /*cascade*/) const override {
    return "DROP DATABASE " + Ident(name);
  }

  Result<std::string> ListTablesSql(std::string_view schema) const override {
    CAIRN_ASSIGN_OR_RETURN(std::string s, Lit(schema));
    return "SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = " + s +
           " AND TABLE_TYPE = 'BASE TABLE' ORDER BY TABLE_NAME";
  }

  Result<std::optional<model::Table>> LoadTable(Session& session, std::string_view schema,
                                                std::string_view name) const override {
    CAIRN_ASSIGN_OR_RETURN(std::string s, Lit(schema));
    CAIRN_ASSIGN_OR_RETURN(std::string n, Lit(name));
    const std::string where = " WHERE TABLE_SCHEMA = " + s + " AND TABLE_NAME = " + n;
    CAIRN_ASSIGN_OR_RETURN(Rows head,
                           session.Query("SELECT TABLE_COMMENT, ENGINE, AUTO_INCREMENT FROM "
                                         "information_schema.TABLES" +
                                         where + " AND TABLE_TYPE = 'BASE TABLE'"));
    if (head.empty()) return std::optional<model::Table>();
    model::Table t;
    t.name = std::string(name);
    t.comment = NonEmpty(head[0][0]);
    // The table options Gravitino reports (and accepts at creation).
    if (head[0][1]) t.properties["engine"] = *head[0][1];
    if (head[0][2]) t.properties["auto-increment-offset"] = *head[0][2];
    CAIRN_ASSIGN_OR_RETURN(
        Rows cols,
        session.Query("SELECT COLUMN_NAME, DATA_TYPE, COLUMN_TYPE, IS_NULLABLE, COLUMN_DEFAULT, "
                      "COLUMN_COMMENT, EXTRA, CHARACTER_MAXIMUM_LENGTH, NUMERIC_PRECISION, "
                      "NUMERIC_SCALE, DATETIME_PRECISION FROM information_schema.COLUMNS" +
                      where + " ORDER BY ORDINAL_POSITION"));
    for (const auto& r : cols) {
      model::Column c;
      c.name = r[0].value_or("");
      MysqlColumnType mt{r[1].value_or(""), r[2].value_or(""), Int(r[7]),
                         Int(r[8]),         Int(r[9]),         Int(r[10])};
      c.type = MysqlTypeToModel(mt);
      c.nullable = r[3].value_or("YES") == "YES";
      c.comment = NonEmpty(r[5]);
      const std::string extra = ToLower(r[6].value_or(""));
      c.auto_increment = extra.find("auto_increment") != std::string::npos;
      if (!c.auto_increment) {
        if (extra.find("generated") != std::string::npos &&
            extra.find("default_generated") == std::string::npos) {
          // A generated column (VIRTUAL / STORED GENERATED) has no default to report.
          c.default_value = std::nullopt;
        } else {
          c.default_value = MysqlDefaultToModel(r[4], c.type, c.nullable);
        }
      }
      t.columns.push_back(std::move(c));
    }
    CAIRN_ASSIGN_OR_RETURN(
        Rows idx,
        session.Query("SELECT INDEX_NAME, COLUMN_NAME FROM information_schema.STATISTICS" + where +
                      " AND NON_UNIQUE = 0 ORDER BY INDEX_NAME = 'PRIMARY' DESC, "
                      "INDEX_NAME, SEQ_IN_INDEX"));
    for (const auto& r : idx) {
      const std::string index_name = r[0].value_or("");
      if (t.indexes.empty() || t.indexes.back().name != index_name) {
        model::Index index;
        index.index_type = index_name == "PRIMARY" ? "PRIMARY_KEY" : "UNIQUE_KEY";
        index.name = index_name;
        t.indexes.push_back(std::move(index));
      }
      t.indexes.back().field_names.push_back({r[1].value_or("")});
    }
    return std::optional<model::Table>(std::move(t));
  }

  Result<std::vector<std::string>> CreateTableSql(std::string_view schema,
                                                  const model::Table& t) const override {
    if (!t.partitioning.empty()) {
      return InvalidArgument("MySQL catalogs do not support partitioning (table {})", t.name);
    }
    if (t.distribution.strategy != "none" && !t.distribution.strategy.empty()) {
      return InvalidArgument("MySQL catalogs do not support distribution (table {})", t.name);
    }
    if (!t.sort_orders.empty()) {
      return InvalidArgument("MySQL catalogs do not support sort orders (table {})", t.name);
    }
    if (t.columns.empty()) return InvalidArgument("Table {} needs at least one column", t.name);
    for (const auto& c : t.columns) {
      if (c.default_value) CAIRN_RETURN_IF_ERROR(CheckRequestedDefault(c.name, *c.default_value));
    }
    std::string options;
    for (const auto& [key, value] : t.properties) {
      if (key == "engine") {
        if (value.empty() ||
            value.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOP"
                                    "QRSTUVWXYZ0123456789_") != std::string::npos) {
          return InvalidArgument("Property 'engine' has an invalid value '{}'", value);
        }
        options += " ENGINE=" + value;
      } else if (key == "auto-increment-offset") {
        auto n = ParseInt64(value);
        if (!n || *n < 1) {
          return InvalidArgument("Property 'auto-increment-offset' must be a positive integer");
        }
        options += " AUTO_INCREMENT=" + std::to_string(*n);
      } else {
        return InvalidArgument(
            "Table property '{}' is not supported by MySQL catalogs; supported: engine, "
            "auto-increment-offset",
            key);
      }
    }
    std::vector<std::string> parts;
    for (const auto& c : t.columns) {
      CAIRN_ASSIGN_OR_RETURN(std::string def, ColumnSql(c));
      parts.push_back(std::move(def));
    }
    for (const auto& i : t.indexes) {
      CAIRN_ASSIGN_OR_RETURN(std::string def, IndexSql(i));
      parts.push_back(std::move(def));
    }
    std::string sql = "CREATE TABLE " + Qualified(schema, t.name) + " (" + Join(parts, ", ") + ")";
    sql += options;
    if (t.comment) {
      CAIRN_ASSIGN_OR_RETURN(std::string text, Lit(*t.comment));
      sql += " COMMENT=" + text;
    }
    return std::vector<std::string>{sql};
  }

  Result<std::vector<std::string>> AlterTableSql(
      std::string_view schema, model::Table& t,
      const std::vector<model::TableChange>& changes) const override {
    std::vector<std::string> out;
    for (const auto& c : changes) {
      const std::string alter = "ALTER TABLE " + Qualified(schema, t.name) + " ";
      const std::string name = c.field_name.empty() ? "" : c.field_name.back();
      const bool column_existed = FindColumn(t, name) != nullptr;
      if ((c.kind == K::kAddColumn || c.kind == K::kUpdateColumnDefaultValue) && c.default_value) {
        CAIRN_RETURN_IF_ERROR(CheckRequestedDefault(name, *c.default_value));
      }
      const bool index_existed =
          std::any_of(t.indexes.begin(), t.indexes.end(),
                      [&](const model::Index& i) { return i.name == c.index_name; });
      CAIRN_RETURN_IF_ERROR(ApplyChange(t, c));
      // The column as it is after this change, for MODIFY COLUMN (which restates all of it).
      auto modify = [&](const std::string& column, const std::string& position) -> Status {
        const model::Column* now = FindColumn(t, column);
        if (now == nullptr) return InvalidArgument("Column '{}' does not exist", column);
        CAIRN_ASSIGN_OR_RETURN(std::string def, ColumnSql(*now));
        out.push_back(alter + "MODIFY COLUMN " + def + position);
        return Ok();
      };
      switch (c.kind) {
        case K::kRename:
          if (c.new_schema && *c.new_schema != schema) {
            return InvalidArgument("MySQL catalogs cannot move a table to another schema");
          }
          out.push_back(alter + "RENAME TO " + Qualified(schema, c.new_name));
          break;
        case K::kUpdateComment: {
          CAIRN_ASSIGN_OR_RETURN(std::string text, Lit(c.comment.value_or("")));
          out.push_back(alter + "COMMENT = " + text);
          break;
        }
        case K::kSetProperty:
        case K::kRemoveProperty:
          return Unsupported("MySQL catalogs do not support altering table properties");
        case K::kAddColumn: {
          const model::Column* added = FindColumn(t, name);
          CAIRN_ASSIGN_OR_RETURN(std::string def, ColumnSql(*added));
          out.push_back(alter + "ADD COLUMN " + def + PositionSql(c.position));
          break;
        }
        case K::kRenameColumn:
          out.push_back(alter + "RENAME COLUMN " + Ident(name) + " TO " + Ident(c.new_name));
          break;
        case K::kUpdateColumnDefaultValue:
          if (!c.default_value || IsNullLiteral(c.default_value)) {
            out.push_back(alter + "ALTER COLUMN " + Ident(name) + " DROP DEFAULT");
          } else {
            const model::Column* now = FindColumn(t, name);
            CAIRN_ASSIGN_OR_RETURN(
                std::string d,
                DefaultValueSql(*c.default_value, true, now ? TimePrecision(*now->type) : -1));
            out.push_back(alter + "ALTER COLUMN " + Ident(name) + " SET DEFAULT " + d);
          }
          break;
        case K::kUpdateColumnType:
        case K::kUpdateColumnComment:
        case K::kUpdateColumnNullability:
        case K::kUpdateColumnAutoIncrement:
          CAIRN_RETURN_IF_ERROR(modify(name, ""));
          break;
        case K::kUpdateColumnPosition:
          CAIRN_RETURN_IF_ERROR(modify(name, PositionSql(c.position)));
          break;
        case K::kDeleteColumn:
          if (!column_existed) break;  // ifExists and absent: nothing to do
          out.push_back(alter + "DROP COLUMN " + Ident(name));
          break;
        case K::kAddIndex: {
          CAIRN_ASSIGN_OR_RETURN(std::string def, IndexSql(c.index));
          out.push_back(alter + "ADD " + def);
          break;
        }
        case K::kDeleteIndex:
          if (!index_existed) break;  // ifExists and absent
          if (c.index_name == "PRIMARY") {
            out.push_back(alter + "DROP PRIMARY KEY");
          } else {
            out.push_back(alter + "DROP INDEX " + Ident(c.index_name));
          }
          break;
      }
    }
    return out;
  }

  std::string DropTableSql(std::string_view schema, std::string_view name) const override {
    return "DROP TABLE " + Qualified(schema, name);
  }
};

}  // namespace

std::unique_ptr<Dialect> MakeMysqlDialect() { return std::make_unique<MysqlDialect>(); }

}  // namespace cairn::connector::jdbc
