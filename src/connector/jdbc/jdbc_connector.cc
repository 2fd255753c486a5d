// SPDX-License-Identifier: Apache-2.0
#include "connector/jdbc/jdbc_connector.h"

#include <algorithm>
#include <filesystem>
#include <span>

#include "common/util.h"
#include "connector/external_rows.h"
#include "connector/jdbc/jdbc_dialect.h"
#include "store/metadata_store.h"

namespace cairn::connector {

namespace jdbc {

namespace {

constexpr const char* kUrl = "jdbc-url";
constexpr const char* kUser = "jdbc-user";
constexpr const char* kPassword = "jdbc-password";
constexpr const char* kDatabase = "jdbc-database";
constexpr const char* kPoolMin = "jdbc.pool.min-size";
constexpr const char* kPoolMax = "jdbc.pool.max-size";
constexpr const char* kTlsCaFile = "jdbc-tls-ca-file";
constexpr const char* kAllowInsecure = "jdbc-allow-insecure-credentials";

Result<int> PoolSize(const model::Properties& props, const char* key, int fallback) {
  auto it = props.find(key);
  if (it == props.end()) return fallback;
  auto n = ParseInt64(Trim(it->second));
  if (!n || *n < 0 || *n > 1000) {
    return InvalidArgument("Property '{}' must be an integer between 0 and 1000, got '{}'", key,
                           it->second);
  }
  return static_cast<int>(*n);
}

// The TLS mode a URL's query asks for: PostgreSQL's `sslmode` (libpq's and pgJDBC's values);
// MySQL's `sslMode` (Connector/J's and MariaDB Connector/J's values) or the older `useSSL`.
// nullopt: the parameter is not one of these.
Result<std::optional<TlsMode>> UrlTlsMode(Flavor flavor, std::string_view key,
                                          std::string_view value) {
  struct Name {
    std::string_view text;
    TlsMode mode;
  };
  static constexpr Name kPg[] = {
      {"disable", TlsMode::kDisable},     {"allow", TlsMode::kAllow},
      {"prefer", TlsMode::kPrefer},       {"require", TlsMode::kRequire},
      {"verify-ca", TlsMode::kVerifyCa},  {"verify-full", TlsMode::kVerifyFull}};
  static constexpr Name kMy[] = {
      {"disabled", TlsMode::kDisable},        {"disable", TlsMode::kDisable},
      {"preferred", TlsMode::kPrefer},        {"required", TlsMode::kRequire},
      {"trust", TlsMode::kRequire},           {"verify_ca", TlsMode::kVerifyCa},
      {"verify-ca", TlsMode::kVerifyCa},      {"verify_identity", TlsMode::kVerifyFull},
      {"verify-full", TlsMode::kVerifyFull}};
  std::span<const Name> names;
  if (flavor == Flavor::kPostgres && key == "sslmode") {
    names = kPg;
  } else if (flavor == Flavor::kMysql && EqualsIgnoreCase(key, "sslMode")) {
    names = kMy;
  } else if (flavor == Flavor::kMysql && EqualsIgnoreCase(key, "useSSL")) {
    if (EqualsIgnoreCase(value, "true")) return std::optional<TlsMode>(TlsMode::kRequire);
    if (EqualsIgnoreCase(value, "false")) return std::optional<TlsMode>(TlsMode::kDisable);
    return InvalidArgument("Property '{}': useSSL must be true or false, not '{}'", kUrl, value);
  } else {
    return std::optional<TlsMode>();
  }
  for (const auto& n : names) {
    if (EqualsIgnoreCase(value, n.text)) return std::optional<TlsMode>(n.mode);
  }
  std::string known;
  for (const auto& n : names) known += (known.empty() ? "" : ", ") + std::string(n.text);
  return InvalidArgument("Property '{}': {}={} is not a TLS mode (one of {})", kUrl, key, value,
                         known);
}

// Settles how the connection is protected. Credentials go to another machine only over TLS that
// verifies the server, unless the catalog allows otherwise: a password sent to an unverified
// server is a password given to whoever answers.
Status SettleTls(const model::Properties& props, std::optional<TlsMode> asked,
                 ConnectOptions& c) {
  if (auto it = props.find(kTlsCaFile); it != props.end() && !Trim(it->second).empty()) {
    const std::string file(Trim(it->second));
    if (!c.tls_ca_file.empty() && c.tls_ca_file != file) {
      return InvalidArgument("Property '{}' ('{}') and the URL's sslrootcert ('{}') disagree",
                             kTlsCaFile, file, c.tls_ca_file);
    }
    c.tls_ca_file = file;
  }
  if (!c.tls_ca_file.empty()) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(c.tls_ca_file, ec)) {
      return InvalidArgument("Property '{}' = '{}' is not a readable file (a PEM CA bundle)",
                             kTlsCaFile, c.tls_ca_file);
    }
  }
  const bool here = IsLoopbackHost(c.host);
  if (asked) {
    c.tls = *asked;
  } else if (!c.tls_ca_file.empty() || !here) {
    c.tls = TlsMode::kVerifyFull;
  } else {
    c.tls = TlsMode::kSourceDefault;
  }
  CAIRN_ASSIGN_OR_RETURN(bool allow_insecure, BoolProperty(props, kAllowInsecure, false));
  if (!here && !Verifies(c.tls) && !allow_insecure) {
    return InvalidArgument(
        "Property '{}': the connection to {} would not verify the server's certificate, and "
        "'{}' would be sent to whoever answers; use a verifying TLS mode (PostgreSQL "
        "sslmode=verify-full, MySQL sslMode=VERIFY_IDENTITY, the default), with '{}' for a "
        "private CA, or set '{}' to true",
        kUrl, c.host, kPassword, kTlsCaFile, kAllowInsecure);
  }
  return Ok();
}

}  // namespace

Result<JdbcSettings> ParseJdbcProperties(Flavor flavor, const model::Properties& props) {
  JdbcSettings s;
  s.flavor = flavor;
  auto get = [&](const char* key) -> std::optional<std::string> {
    auto it = props.find(key);
    if (it == props.end()) return std::nullopt;
    return it->second;
  };
  auto url = get(kUrl);
  if (!url || Trim(*url).empty()) return InvalidArgument("Property '{}' is required", kUrl);
  const std::string text(Trim(*url));
  const std::vector<std::string_view> prefixes =
      flavor == Flavor::kPostgres
          ? std::vector<std::string_view>{"jdbc:postgresql://"}
          : std::vector<std::string_view>{"jdbc:mysql://", "jdbc:mariadb://"};
  std::string rest;
  for (auto p : prefixes) {
    if (text.size() > p.size() && EqualsIgnoreCase(std::string_view(text).substr(0, p.size()), p)) {
      rest = text.substr(p.size());
    }
  }
  if (rest.empty()) {
    return InvalidArgument("Property '{}' must start with {}, got '{}'", kUrl,
                           flavor == Flavor::kPostgres ? "jdbc:postgresql://" : "jdbc:mysql://",
                           text);
  }
  std::string query;
  if (auto q = rest.find('?'); q != std::string::npos) {
    query = rest.substr(q + 1);
    rest = rest.substr(0, q);
  }
  std::string authority = rest;
  std::string path;
  if (auto slash = rest.find('/'); slash != std::string::npos) {
    authority = rest.substr(0, slash);
    path = rest.substr(slash + 1);
  }
  if (authority.find(',') != std::string::npos) {
    return InvalidArgument("Property '{}': several hosts in one URL are not supported", kUrl);
  }
  if (authority.find('@') != std::string::npos) {
    return InvalidArgument("Property '{}': put the user in '{}', not in the URL", kUrl, kUser);
  }
  std::string host = authority;
  std::string port;
  if (!authority.empty() && authority[0] == '[') {
    auto close = authority.find(']');
    if (close == std::string::npos) return InvalidArgument("Property '{}' has a bad host", kUrl);
    host = authority.substr(1, close - 1);
    if (close + 1 < authority.size()) {
      if (authority[close + 1] != ':') return InvalidArgument("Property '{}' has a bad host", kUrl);
      port = authority.substr(close + 2);
    }
  } else if (auto colon = authority.rfind(':'); colon != std::string::npos) {
    host = authority.substr(0, colon);
    port = authority.substr(colon + 1);
  }
  if (host.empty()) return InvalidArgument("Property '{}' has no host: '{}'", kUrl, text);
  s.connect.host = host;
  if (!port.empty()) {
    auto n = ParseInt64(port);
    if (!n || *n < 1 || *n > 65535) {
      return InvalidArgument("Property '{}' has a bad port '{}'", kUrl, port);
    }
    s.connect.port = static_cast<int>(*n);
  } else {
    s.connect.port = flavor == Flavor::kPostgres ? 5432 : 3306;
  }
  auto decoded = PercentDecode(path);
  if (!decoded) return InvalidArgument("Property '{}' has a bad database name", kUrl);
  const std::string url_db = *decoded;
  std::optional<TlsMode> tls_mode;
  for (const auto& kv : Split(query, '&')) {
    auto eq = kv.find('=');
    if (eq == std::string::npos) continue;
    const std::string key = kv.substr(0, eq);
    if (EqualsIgnoreCase(key, "password") || EqualsIgnoreCase(key, "user")) {
      return InvalidArgument("Property '{}': put credentials in '{}' and '{}', not in the URL",
                             kUrl, kUser, kPassword);
    }
    const std::string value = kv.substr(eq + 1);
    CAIRN_ASSIGN_OR_RETURN(auto mode, UrlTlsMode(flavor, key, value));
    if (mode) tls_mode = mode;
    if (flavor == Flavor::kPostgres && key == "sslrootcert") {
      auto file = PercentDecode(value);
      if (!file || file->empty()) {
        return InvalidArgument("Property '{}' has a bad sslrootcert", kUrl);
      }
      s.connect.tls_ca_file = *file;
    }
  }
  CAIRN_RETURN_IF_ERROR(SettleTls(props, tls_mode, s.connect));
  s.url = text.substr(0, text.find('?'));

  auto user = get(kUser);
  if (!user || user->empty()) return InvalidArgument("Property '{}' is required", kUser);
  s.connect.user = *user;
  auto password = get(kPassword);
  if (!password) return InvalidArgument("Property '{}' is required", kPassword);
  s.connect.password = *password;

  auto database = get(kDatabase);
  if (flavor == Flavor::kPostgres) {
    if (!database || database->empty()) {
      return InvalidArgument("Property '{}' is required for PostgreSQL catalogs", kDatabase);
    }
    if (url_db.empty()) {
      return InvalidArgument("Property '{}' must name the database: {}/<database>", kUrl,
                             "jdbc:postgresql://host:port");
    }
    if (*database != url_db) {
      return InvalidArgument("Property '{}' ('{}') must match the database of '{}' ('{}')",
                             kDatabase, *database, kUrl, url_db);
    }
    s.connect.database = *database;
  }
  CAIRN_ASSIGN_OR_RETURN(s.pool_min, PoolSize(props, kPoolMin, 2));
  CAIRN_ASSIGN_OR_RETURN(s.pool_max, PoolSize(props, kPoolMax, 10));
  if (s.pool_max < 1) return InvalidArgument("Property '{}' must be at least 1", kPoolMax);
  if (s.pool_min > s.pool_max) {
    return InvalidArgument("Property '{}' ({}) must not exceed '{}' ({})", kPoolMin, s.pool_min,
                           kPoolMax, s.pool_max);
  }
  return s;
}

namespace {

using store::EntityRecord;
using store::EntityType;

class JdbcConnector final : public Connector, public SchemaCatalog, public TableCatalog {
 public:
  JdbcConnector(CatalogInfo info, JdbcSettings settings, std::unique_ptr<Dialect> dialect,
                store::MetadataStore* store)
      : info_(std::move(info)),
        settings_(std::move(settings)),
        dialect_(std::move(dialect)),
        rows_(store, info_.catalog_id, info_.name),
        pool_(MakeFactory(settings_), PoolOptions(settings_, std::to_string(info_.catalog_id))) {
    Provide<SchemaCatalog>(this);
    Provide<TableCatalog>(this);
  }

  Status TestConnection() override {
    auto session = MakeFactory(settings_)();
    if (!session) return Wrap(std::move(session).error());
    auto ok = (*session)->Query("SELECT 1");
    if (!ok) return Wrap(std::move(ok).error());
    return Ok();
  }

  // ---- schemas ----

  Result<std::vector<std::string>> ListSchemas() override {
    CAIRN_ASSIGN_OR_RETURN(auto lease, Acquire());
    CAIRN_ASSIGN_OR_RETURN(Rows rows, Run(*lease, dialect_->ListSchemasSql()));
    return Column0(rows);
  }

  Result<model::Schema> CreateSchema(const CallContext& ctx, const model::Schema& schema) override {
    CAIRN_ASSIGN_OR_RETURN(auto statements, dialect_->CreateSchemaSql(schema));
    CAIRN_ASSIGN_OR_RETURN(auto lease, Acquire());
    auto done = Execute(*lease, statements);
    if (!done) {
      if (done.error().code == ErrorCode::kAlreadyExists) {
        return AlreadyExists(EntityKind::kSchema, "Schema {}.{} already exists", info_.name,
                             schema.name);
      }
      return std::move(done).error();
    }
    auto row = rows_.ClaimSchema(schema.name, ctx);
    model::Schema out;
    out.name = schema.name;
    if (schema.comment && !schema.comment->empty()) out.comment = schema.comment;
    if (row) out.audit = row->audit;
    return out;
  }

  Result<model::Schema> LoadSchema(std::string_view name) override {
    CAIRN_ASSIGN_OR_RETURN(auto lease, Acquire());
    CAIRN_ASSIGN_OR_RETURN(auto found, FindSchema(*lease, name));
    if (!found) return SchemaMissing(name);
    model::Schema out = std::move(*found);
    if (auto row = rows_.TouchSchema(name)) out.audit = row->audit;
    return out;
  }

  Result<model::Schema> AlterSchema(const CallContext& /*ctx*/, std::string_view name,
                                    const std::vector<model::EntityChange>& /*changes*/) override {
    return Unsupported("{} catalogs do not support altering schemas (schema {}.{})",
                       dialect_->Name(), info_.name, name);
  }

  Result<bool> DropSchema(const CallContext& /*ctx*/, std::string_view name,
                          bool cascade) override {
    CAIRN_ASSIGN_OR_RETURN(auto lease, Acquire());
    CAIRN_ASSIGN_OR_RETURN(auto found, FindSchema(*lease, name));
    if (!found) {
      rows_.ForgetSchema(name);
      return false;
    }
    if (!cascade) {
      CAIRN_ASSIGN_OR_RETURN(std::string sql, dialect_->ListTablesSql(name));
      CAIRN_ASSIGN_OR_RETURN(Rows tables, Run(*lease, sql));
      if (!tables.empty()) return NotEmpty(name, tables.size());
    }
    auto done = Run(*lease, dialect_->DropSchemaSql(name, cascade));
    if (!done) {
      if (done.error().code == ErrorCode::kNotEmpty) return NotEmpty(name, 0);
      if (done.error().code == ErrorCode::kNotFound) return false;
      return std::move(done).error();
    }
    rows_.ForgetSchema(name);
    return true;
  }

  Result<bool> HasSchemas() override {
    CAIRN_ASSIGN_OR_RETURN(auto names, ListSchemas());
    const auto builtin = dialect_->BuiltinSchemas();
    for (const auto& n : names) {
      if (std::find(builtin.begin(), builtin.end(), n) == builtin.end()) return true;
    }
    return false;
  }

  // ---- tables ----

  Result<std::vector<std::string>> ListTables(std::string_view schema) override {
    CAIRN_ASSIGN_OR_RETURN(auto lease, Acquire());
    CAIRN_ASSIGN_OR_RETURN(auto found, FindSchema(*lease, schema));
    if (!found) return SchemaMissing(schema);
    CAIRN_ASSIGN_OR_RETURN(std::string sql, dialect_->ListTablesSql(schema));
    CAIRN_ASSIGN_OR_RETURN(Rows rows, Run(*lease, sql));
    auto names = Column0(rows);
    // Listed tables get their rows; tables dropped in the source by hand lose theirs.
    rows_.SeeObjects(EntityType::kTable, schema, names, /*complete=*/true);
    return names;
  }

  Result<model::Table> CreateTable(const CallContext& ctx, std::string_view schema,
                                   const model::Table& table) override {
    CAIRN_ASSIGN_OR_RETURN(auto statements, dialect_->CreateTableSql(schema, table));
    CAIRN_ASSIGN_OR_RETURN(auto lease, Acquire());
    CAIRN_ASSIGN_OR_RETURN(auto found, FindSchema(*lease, schema));
    if (!found) return SchemaMissing(schema);
    auto done = Execute(*lease, statements);
    if (!done) {
      if (done.error().code == ErrorCode::kAlreadyExists) {
        // A duplicate column or index name is the request's fault, not a taken table name.
        CAIRN_ASSIGN_OR_RETURN(auto existing, dialect_->LoadTable(*lease, schema, table.name));
        if (existing) return TableExists(schema, table.name);
        return InvalidArgument("{}", done.error().message);
      }
      return std::move(done).error();
    }
    auto row = rows_.ClaimObject(EntityType::kTable, schema, table.name, ctx);
    CAIRN_ASSIGN_OR_RETURN(auto loaded, Wrapped(dialect_->LoadTable(*lease, schema, table.name)));
    if (!loaded)
      return Unavailable("Table {}.{}.{} vanished right after its creation", info_.name, schema,
                         table.name);
    if (row) loaded->audit = row->audit;
    return std::move(*loaded);
  }

  Result<model::Table> LoadTable(std::string_view schema, std::string_view name) override {
    CAIRN_ASSIGN_OR_RETURN(auto lease, Acquire());
    CAIRN_ASSIGN_OR_RETURN(auto loaded, Wrapped(dialect_->LoadTable(*lease, schema, name)));
    if (!loaded) {
      CAIRN_ASSIGN_OR_RETURN(auto found, FindSchema(*lease, schema));
      if (!found) return SchemaMissing(schema);
      return TableMissing(schema, name);
    }
    if (auto row = rows_.TouchObject(EntityType::kTable, schema, name)) loaded->audit = row->audit;
    return std::move(*loaded);
  }

  Result<model::Table> AlterTable(const CallContext& ctx, std::string_view schema,
                                  std::string_view name,
                                  const std::vector<model::TableChange>& changes) override {
    CAIRN_ASSIGN_OR_RETURN(auto lease, Acquire());
    CAIRN_ASSIGN_OR_RETURN(auto loaded, Wrapped(dialect_->LoadTable(*lease, schema, name)));
    if (!loaded) {
      CAIRN_ASSIGN_OR_RETURN(auto found, FindSchema(*lease, schema));
      if (!found) return SchemaMissing(schema);
      return TableMissing(schema, name);
    }
    model::Table target = *loaded;
    CAIRN_ASSIGN_OR_RETURN(auto statements, dialect_->AlterTableSql(schema, target, changes));
    auto done = Execute(*lease, statements);
    if (!done && !dialect_->TransactionalDdl() && target.name != name) {
      // MySQL commits each statement: when the rename went through before a later change
      // failed, the owner follows the table to its new name all the same.
      auto old_table = dialect_->LoadTable(*lease, schema, name);
      auto new_table = dialect_->LoadTable(*lease, schema, target.name);
      if (old_table && !*old_table && new_table && *new_table) {
        (void)rows_.MoveObject(EntityType::kTable, schema, name, schema, target.name, ctx);
      }
    }
    if (!done) {
      if (done.error().code == ErrorCode::kAlreadyExists && target.name != name) {
        CAIRN_ASSIGN_OR_RETURN(auto clash, dialect_->LoadTable(*lease, schema, target.name));
        if (clash) return TableExists(schema, target.name);
      }
      if (done.error().code == ErrorCode::kAlreadyExists ||
          done.error().code == ErrorCode::kNotFound) {
        return InvalidArgument("{}", done.error().message);
      }
      return std::move(done).error();
    }
    std::optional<EntityRecord> row =
        rows_.MoveObject(EntityType::kTable, schema, name, schema, target.name, ctx);
    CAIRN_ASSIGN_OR_RETURN(auto after, Wrapped(dialect_->LoadTable(*lease, schema, target.name)));
    if (!after) return TableMissing(schema, target.name);
    if (row) after->audit = row->audit;
    return std::move(*after);
  }

  Result<bool> DropTable(const CallContext& /*ctx*/, std::string_view schema, std::string_view name,
                         bool /*purge*/) override {
    CAIRN_ASSIGN_OR_RETURN(auto lease, Acquire());
    CAIRN_ASSIGN_OR_RETURN(auto found, FindSchema(*lease, schema));
    if (!found) return SchemaMissing(schema);
    auto done = Run(*lease, dialect_->DropTableSql(schema, name));
    if (!done) {
      if (done.error().code == ErrorCode::kNotFound) return false;
      return std::move(done).error();
    }
    rows_.ForgetObject(EntityType::kTable, schema, name);
    return true;
  }

  // The source keeps its data when the catalog goes; the ownership rows go with the catalog row.
  Status DropAll() override { return Ok(); }

 private:
  static SessionFactory MakeFactory(const JdbcSettings& s) {
    const ConnectOptions options = s.connect;
    if (s.flavor == Flavor::kPostgres) return [options] { return ConnectPostgres(options); };
    return [options] { return ConnectMysql(options); };
  }

  static SessionPool::Options PoolOptions(const JdbcSettings& s, std::string name) {
    SessionPool::Options o;
    o.name = std::move(name);
    o.min_size = s.pool_min;
    o.max_size = s.pool_max;
    o.wait = std::chrono::milliseconds(s.pool_wait_ms);
    // A failed connect that took most of the connect timeout means the host does not answer.
    o.slow_connect = std::chrono::milliseconds(s.connect.connect_timeout_s * 800);
    return o;
  }

  // Connection problems name the catalog and its source, never the credentials.
  Error Wrap(Error e) const {
    if (e.code == ErrorCode::kConnectionFailed) {
      return MakeError(ErrorCode::kConnectionFailed, EntityKind::kCatalog,
                       "Catalog {} cannot connect to its {} source {}: {}", info_.name,
                       dialect_->Name(), settings_.url, e.message);
    }
    if (e.code == ErrorCode::kUnavailable) {
      return MakeError(ErrorCode::kUnavailable, EntityKind::kCatalog,
                       "Catalog {} ({} source {}): {}", info_.name, dialect_->Name(), settings_.url,
                       e.message);
    }
    if (e.code == ErrorCode::kPermissionDenied) {
      return MakeError(ErrorCode::kPermissionDenied, EntityKind::kNone,
                       "The {} source of catalog {} refused: {}", dialect_->Name(), info_.name,
                       e.message);
    }
    if (e.entity == EntityKind::kNone && (e.code == ErrorCode::kInvalidArgument)) {
      e.message =
          fmt::format("{} error in catalog {}: {}", dialect_->Name(), info_.name, e.message);
    }
    return e;
  }

  template <typename T>
  Result<T> Wrapped(Result<T> r) const {
    if (!r) return Wrap(std::move(r).error());
    return r;
  }

  Result<SessionPool::Lease> Acquire() { return Wrapped(pool_.Acquire()); }

  Result<Rows> Run(Session& session, const std::string& sql) {
    auto r = session.Query(sql);
    if (!r) {
      if (r.error().code == ErrorCode::kUnavailable) return Wrap(std::move(r).error());
      return std::move(r).error();
    }
    return r;
  }

  Status Execute(Session& session, const std::vector<std::string>& statements) {
    if (statements.empty()) return Ok();
    if (dialect_->TransactionalDdl() && statements.size() > 1) {
      // All or nothing: a failing statement rolls the transaction back (see Session::Query).
      auto begun = Run(session, "BEGIN");
      if (!begun) return Wrap(std::move(begun).error());
      for (const auto& sql : statements) {
        auto r = Run(session, sql);
        if (!r) return Wrap(std::move(r).error());
      }
      auto committed = Run(session, "COMMIT");
      if (!committed) return Wrap(std::move(committed).error());
      return Ok();
    }
    for (const auto& sql : statements) {
      auto r = Run(session, sql);
      if (!r) return Wrap(std::move(r).error());
    }
    return Ok();
  }

  static std::vector<std::string> Column0(const Rows& rows) {
    std::vector<std::string> out;
    out.reserve(rows.size());
    for (const auto& r : rows) out.push_back(r.empty() ? "" : r[0].value_or(""));
    return out;
  }

  Result<std::optional<model::Schema>> FindSchema(Session& session, std::string_view name) {
    CAIRN_ASSIGN_OR_RETURN(std::string sql, dialect_->LoadSchemaSql(name));
    CAIRN_ASSIGN_OR_RETURN(Rows rows, Wrapped(Run(session, sql)));
    if (rows.empty()) return std::optional<model::Schema>();
    model::Schema s;
    s.name = std::string(name);
    if (rows[0].size() > 1 && rows[0][1] && !rows[0][1]->empty()) s.comment = rows[0][1];
    return std::optional<model::Schema>(std::move(s));
  }

  Error SchemaMissing(std::string_view schema) const {
    return NotFound(EntityKind::kSchema, "Schema {}.{} does not exist", info_.name, schema);
  }
  Error TableMissing(std::string_view schema, std::string_view name) const {
    return NotFound(EntityKind::kTable, "Table {}.{}.{} does not exist", info_.name, schema, name);
  }
  Error TableExists(std::string_view schema, std::string_view name) const {
    return AlreadyExists(EntityKind::kTable, "Table {}.{}.{} already exists", info_.name, schema,
                         name);
  }
  Error NotEmpty(std::string_view schema, size_t tables) const {
    if (tables > 0) {
      return MakeError(
          ErrorCode::kNotEmpty, EntityKind::kSchema,
          "Schema {}.{} is not empty, it has {} table(s); drop them first or use cascade",
          info_.name, schema, tables);
    }
    return MakeError(ErrorCode::kNotEmpty, EntityKind::kSchema,
                     "Schema {}.{} is not empty; drop its objects first or use cascade", info_.name,
                     schema);
  }

  CatalogInfo info_;
  JdbcSettings settings_;
  std::unique_ptr<Dialect> dialect_;
  ExternalRows rows_;  // owners of the source's schemas and tables (external_rows.h)
  SessionPool pool_;
};

Result<std::unique_ptr<Connector>> Make(Flavor flavor, const CatalogInfo& info,
                                        const ConnectorDeps& deps) {
  CAIRN_ASSIGN_OR_RETURN(JdbcSettings settings, ParseJdbcProperties(flavor, info.properties));
  settings.connect.connect_timeout_s = std::max(2, deps.jdbc_connect_timeout_s);
  settings.connect.io_timeout_s = std::max(1, deps.jdbc_statement_timeout_s);
  settings.pool_wait_ms = std::max(0, deps.jdbc_pool_wait_ms);
  auto dialect = flavor == Flavor::kPostgres ? MakePostgresDialect() : MakeMysqlDialect();
  return std::unique_ptr<Connector>(
      std::make_unique<JdbcConnector>(info, std::move(settings), std::move(dialect), deps.store));
}

}  // namespace

}  // namespace jdbc

void RegisterJdbcConnectors(ConnectorRegistry& registry) {
  registry.Register("jdbc-postgresql", model::CatalogType::kRelational,
                    [](const CatalogInfo& info, const ConnectorDeps& deps) {
                      return jdbc::Make(jdbc::Flavor::kPostgres, info, deps);
                    });
  registry.Register("jdbc-mysql", model::CatalogType::kRelational,
                    [](const CatalogInfo& info, const ConnectorDeps& deps) {
                      return jdbc::Make(jdbc::Flavor::kMysql, info, deps);
                    });
}

}  // namespace cairn::connector
