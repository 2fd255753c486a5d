// SPDX-License-Identifier: Apache-2.0
#include <mysql.h>

#include <chrono>
#include <mutex>

#include "common/trace.h"
#include "connector/jdbc/jdbc_session.h"

namespace cairn::connector::jdbc {

namespace {

// Client errors that mean the server connection is gone (CR_SERVER_GONE_ERROR, CR_SERVER_LOST,
// CR_SERVER_LOST_EXTENDED, CR_CONNECTION_ERROR, CR_CONN_HOST_ERROR).
bool IsConnectionError(unsigned int code) {
  return code == 2006 || code == 2013 || code == 2055 || code == 2002 || code == 2003 ||
         code == 4031;
}

class MysqlSession final : public Session {
 public:
  MysqlSession(MYSQL* conn, int io_timeout_s) : conn_(conn), io_timeout_s_(io_timeout_s) {}
  ~MysqlSession() override { mysql_close(conn_); }

  Result<Rows> Query(const std::string& sql) override {
    trace::Span span("jdbc.query", trace::Kind::kClient);
    if (span.recording()) {
      span.Set("db.system", "mysql");
      // The statement's verb, not its text: literals may hold what a trace should not.
      span.Set("db.operation.name", std::string_view(sql).substr(0, sql.find_first_of(" \n")));
    }
    auto rows = Run(sql);
    if (!rows) span.Fail(rows.error().message);
    return rows;
  }

  Result<Rows> Run(const std::string& sql) {
    started_ = std::chrono::steady_clock::now();
    if (mysql_real_query(conn_, sql.data(), sql.size()) != 0) return Fail();
    MYSQL_RES* res = mysql_store_result(conn_);
    Rows rows;
    if (res == nullptr) {
      if (mysql_field_count(conn_) != 0) return Fail();
      return rows;
    }
    const unsigned int cols = mysql_num_fields(res);
    while (MYSQL_ROW r = mysql_fetch_row(res)) {
      unsigned long* lengths = mysql_fetch_lengths(res);
      Row row;
      row.reserve(cols);
      for (unsigned int c = 0; c < cols; ++c) {
        if (r[c] == nullptr) {
          row.emplace_back(std::nullopt);
        } else {
          row.emplace_back(std::string(r[c], lengths[c]));
        }
      }
      rows.push_back(std::move(row));
    }
    mysql_free_result(res);
    return rows;
  }

  bool Broken() const override { return broken_; }
  bool TimedOut() const override { return timed_out_; }

  bool Ping() override {
    if (mysql_ping(conn_) != 0) broken_ = true;
    return !broken_;
  }

 private:
  Error Fail() {
    const unsigned int code = mysql_errno(conn_);
    const std::string message = mysql_error(conn_);
    if (IsConnectionError(code)) {
      broken_ = true;
      // The client library reports a read timeout as a lost connection; the time tells.
      if (std::chrono::steady_clock::now() - started_ >=
          std::chrono::seconds(io_timeout_s_) - std::chrono::milliseconds(500)) {
        timed_out_ = true;
        return Unavailable("the source did not answer within {} s", io_timeout_s_);
      }
      return Unavailable("the connection to the source was lost: {}", message);
    }
    switch (code) {
      case 1007:  // database exists
      case 1050:  // table exists
      case 1060:  // duplicate column
      case 1061:  // duplicate key name
      case 1068:  // multiple primary keys
        return AlreadyExists(EntityKind::kNone, "{}", message);
      case 1008:  // cannot drop a database that does not exist
      case 1051:  // unknown table (DROP TABLE)
      case 1049:  // unknown database
      case 1146:  // no such table
      case 1054:  // unknown column
      case 1091:  // cannot drop a column or key that does not exist
        return NotFound(EntityKind::kNone, "{}", message);
      case 1044:
      case 1045:
      case 1142:
      case 1143:
        return MakeError(ErrorCode::kPermissionDenied, EntityKind::kNone, "{}", message);
      default:
        return InvalidArgument("{}", message);
    }
  }

  MYSQL* conn_;
  int io_timeout_s_;
  std::chrono::steady_clock::time_point started_{};
  bool broken_ = false;
  bool timed_out_ = false;
};

}  // namespace

Result<std::unique_ptr<Session>> ConnectMysql(const ConnectOptions& o) {
  static std::once_flag init;
  std::call_once(init, [] { mysql_library_init(0, nullptr, nullptr); });
  MYSQL* conn = mysql_init(nullptr);
  if (conn == nullptr) {
    return MakeError(ErrorCode::kConnectionFailed, EntityKind::kCatalog,
                     "cannot allocate a MySQL connection");
  }
  unsigned int connect_timeout = static_cast<unsigned int>(o.connect_timeout_s);
  unsigned int io_timeout = static_cast<unsigned int>(o.io_timeout_s);
  mysql_options(conn, MYSQL_OPT_CONNECT_TIMEOUT, &connect_timeout);
  mysql_options(conn, MYSQL_OPT_READ_TIMEOUT, &io_timeout);
  mysql_options(conn, MYSQL_OPT_WRITE_TIMEOUT, &io_timeout);
  unsigned int protocol = MYSQL_PROTOCOL_TCP;  // JDBC URLs always mean TCP, even for localhost
  mysql_options(conn, MYSQL_OPT_PROTOCOL, &protocol);
  mysql_options(conn, MYSQL_SET_CHARSET_NAME, "utf8mb4");
  // Literals are written with backslash escapes; make sure the session reads them that way.
  mysql_options(conn, MYSQL_INIT_COMMAND,
                "SET SESSION sql_mode = REPLACE(@@sql_mode, 'NO_BACKSLASH_ESCAPES', '')");
  // MariaDB Connector/C has no "prefer": any mode from require up insists on TLS, and it checks
  // the certificate and the host name together, so verify-ca is checked as verify-full.
  const std::string ca_file = TrustedCaFile(o);
  if (o.tls >= TlsMode::kRequire) {
    my_bool enforce = 1;
    my_bool verify = Verifies(o.tls) ? 1 : 0;
    mysql_options(conn, MYSQL_OPT_SSL_ENFORCE, &enforce);
    mysql_options(conn, MYSQL_OPT_SSL_VERIFY_SERVER_CERT, &verify);
    if (verify) mysql_options(conn, MYSQL_OPT_SSL_CA, ca_file.c_str());
  }
  const std::string host = o.host == "localhost" ? "127.0.0.1" : o.host;
  if (mysql_real_connect(conn, host.c_str(), o.user.c_str(), o.password.c_str(), nullptr,
                         static_cast<unsigned int>(o.port > 0 ? o.port : 3306), nullptr,
                         0) == nullptr) {
    std::string message = mysql_error(conn);
    mysql_close(conn);
    return MakeError(ErrorCode::kConnectionFailed, EntityKind::kCatalog, "{}", message);
  }
  return std::unique_ptr<Session>(std::make_unique<MysqlSession>(conn, o.io_timeout_s));
}

}  // namespace cairn::connector::jdbc
