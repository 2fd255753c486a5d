// SPDX-License-Identifier: Apache-2.0
#include "store/mysql/mysql_connection.h"

#include <mysql.h>

#include <cctype>
#include <cstring>
#include <type_traits>
#include <utility>

#include "common/util.h"

namespace cairn::store::mysql {
namespace {

// Client errors that mean the server connection is gone or was never made (CR_CONNECTION_ERROR,
// CR_CONN_HOST_ERROR, CR_SERVER_GONE_ERROR, CR_SERVER_LOST, CR_SERVER_LOST_EXTENDED, and
// MariaDB's "connection killed" and "server shutdown in progress").
bool IsConnectionError(unsigned int code) {
  return code == 2002 || code == 2003 || code == 2006 || code == 2013 || code == 2055 ||
         code == 4031 || code == 1927 || code == 1053;
}

constexpr unsigned int kDuplicateKey = 1062;
constexpr unsigned int kNoReferencedRow = 1452;
constexpr unsigned int kNoReferencedRowOld = 1216;
constexpr unsigned int kLockWaitTimeout = 1205;
constexpr unsigned int kDeadlock = 1213;
constexpr unsigned int kNeedReprepare = 1615;
constexpr unsigned int kDataTooLong = 1406;

}  // namespace

Result<MysqlUrl> ParseMysqlUrl(std::string_view url) {
  constexpr std::string_view kScheme = "mysql://";
  auto bad = [](std::string_view why) {
    return InvalidArgument("cairn.store.mysql.url must be mysql://user:password@host:port/database"
                           " ({})",
                           why);
  };
  if (!url.starts_with(kScheme)) return bad("no mysql:// scheme");
  std::string_view rest = url.substr(kScheme.size());
  MysqlUrl out;
  std::string_view query;
  if (const size_t q = rest.find('?'); q != std::string_view::npos) {
    query = rest.substr(q + 1);
    rest = rest.substr(0, q);
  }
  const size_t slash = rest.find('/');
  if (slash == std::string_view::npos || slash + 1 >= rest.size()) return bad("no database");
  auto database = PercentDecode(rest.substr(slash + 1));
  if (!database || database->find('/') != std::string::npos) return bad("a malformed database");
  out.database = *database;
  std::string_view authority = rest.substr(0, slash);
  if (const size_t at = authority.rfind('@'); at != std::string_view::npos) {
    const std::string_view userinfo = authority.substr(0, at);
    authority = authority.substr(at + 1);
    const size_t colon = userinfo.find(':');
    auto user = PercentDecode(userinfo.substr(0, colon));
    auto password = colon == std::string_view::npos
                        ? std::optional<std::string>("")
                        : PercentDecode(userinfo.substr(colon + 1));
    if (!user || !password) return bad("malformed user information");
    out.user = *user;
    out.password = *password;
  }
  if (!authority.empty()) {
    const size_t colon = authority.rfind(':');
    out.host = std::string(authority.substr(0, colon));
    if (colon != std::string_view::npos) {
      const std::optional<int64_t> port = ParseInt64(authority.substr(colon + 1));
      if (!port || *port < 1 || *port > 65535) return bad("a malformed port");
      out.port = static_cast<unsigned int>(*port);
    }
  }
  for (const auto& part : Split(query, '&')) {
    if (part.empty()) continue;
    const size_t eq = part.find('=');
    const std::string_view key = std::string_view(part).substr(0, eq);
    auto value =
        PercentDecode(eq == std::string::npos ? "" : std::string_view(part).substr(eq + 1));
    if (key == "socket" && value && !value->empty()) {
      out.socket = *value;
    } else {
      return bad(fmt::format("unknown option '{}'", key));
    }
  }
  if (out.host.empty() && out.socket.empty()) return bad("no host");
  return out;
}

std::string RedactMysqlUrl(std::string_view url) {
  std::string out(url);
  const size_t scheme = out.find("://");
  if (scheme == std::string::npos) return out;
  const size_t start = scheme + 3;
  const size_t end = out.find_first_of("/?", start);
  const size_t at = out.rfind('@', end == std::string::npos ? std::string::npos : end);
  if (at == std::string::npos || at < start) return out;
  const size_t colon = out.find(':', start);
  if (colon != std::string::npos && colon < at) out.replace(colon + 1, at - colon - 1, "***");
  return out;
}

std::pair<std::string, std::vector<size_t>> TranslatePlaceholders(std::string_view sql) {
  std::string text;
  text.reserve(sql.size());
  std::vector<size_t> order;
  char quote = 0;
  for (size_t i = 0; i < sql.size(); ++i) {
    const char c = sql[i];
    if (quote != 0) {
      text += c;
      if (c == quote) quote = 0;
      continue;
    }
    if (c == '\'' || c == '"' || c == '`') {
      quote = c;
      text += c;
      continue;
    }
    if (c == '$' && i + 1 < sql.size() && std::isdigit(static_cast<unsigned char>(sql[i + 1]))) {
      size_t j = i + 1;
      size_t n = 0;
      while (j < sql.size() && std::isdigit(static_cast<unsigned char>(sql[j]))) {
        n = n * 10 + static_cast<size_t>(sql[j] - '0');
        ++j;
      }
      text += '?';
      order.push_back(n == 0 ? 0 : n - 1);
      i = j - 1;
      continue;
    }
    text += c;
  }
  return {std::move(text), std::move(order)};
}

MysqlConnection::MysqlConnection(MYSQL* conn) : conn_(conn) {}

MysqlConnection::~MysqlConnection() {
  for (auto& [sql, prepared] : prepared_) mysql_stmt_close(prepared.stmt);
  mysql_close(conn_);
}

Result<std::unique_ptr<MysqlConnection>> MysqlConnection::Connect(const MysqlUrl& url) {
  MYSQL* conn = mysql_init(nullptr);
  if (conn == nullptr) return Unavailable("mysql: out of memory while connecting");
  const unsigned int connect_timeout = 10;
  const unsigned int io_timeout = 30;
  mysql_optionsv(conn, MYSQL_OPT_CONNECT_TIMEOUT, &connect_timeout);
  mysql_optionsv(conn, MYSQL_OPT_READ_TIMEOUT, &io_timeout);
  mysql_optionsv(conn, MYSQL_OPT_WRITE_TIMEOUT, &io_timeout);
  mysql_optionsv(conn, MYSQL_SET_CHARSET_NAME, "utf8mb4");
  // Found rows, not changed rows, count as affected: an UPDATE that matched its row succeeded.
  const unsigned long flags = CLIENT_MULTI_STATEMENTS | CLIENT_FOUND_ROWS;
  if (mysql_real_connect(conn, url.socket.empty() ? url.host.c_str() : nullptr, url.user.c_str(),
                         url.password.c_str(), url.database.c_str(), url.port,
                         url.socket.empty() ? nullptr : url.socket.c_str(), flags) == nullptr) {
    std::string message = mysql_error(conn);
    mysql_close(conn);
    return Unavailable("mysql: cannot connect: {}", message);
  }
  std::unique_ptr<MysqlConnection> out(new MysqlConnection(conn));
  // Strict: a value that does not fit is an error, never silently cut. READ COMMITTED, as on
  // PostgreSQL: a compare-and-set reads the latest committed version.
  CAIRN_RETURN_IF_ERROR(out->ExecuteScript(
      "SET SESSION sql_mode = 'STRICT_ALL_TABLES,NO_BACKSLASH_ESCAPES,NO_ENGINE_SUBSTITUTION,"
      "ERROR_FOR_DIVISION_BY_ZERO'; SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED; "
      "SET NAMES utf8mb4 COLLATE utf8mb4_bin"));
  return out;
}

Error MysqlConnection::Fail(std::string_view what, unsigned int code, const char* message) {
  const std::string text = message != nullptr ? message : "";
  if (code == kDuplicateKey) {
    return MakeError(ErrorCode::kAlreadyExists, EntityKind::kNone, "mysql: {}: {}", what, text);
  }
  if (code == kNoReferencedRow || code == kNoReferencedRowOld) {
    return MakeError(ErrorCode::kNotFound, EntityKind::kNone, "mysql: {}: {}", what, text);
  }
  if (IsConnectionError(code)) {
    broken_ = true;
    return Unavailable("mysql: {}: {}", what, text);
  }
  if (code == kDataTooLong) {
    // A name longer than its key column allows (docs/operations.md#replicas): the caller's.
    return InvalidArgument("a value is longer than the MySQL store keeps: {}", text);
  }
  if (code == kDeadlock || code == kLockWaitTimeout) {
    return Unavailable("mysql: {}: {}", what, text);
  }
  return Internal("mysql: {}: {} (error {})", what, text, code);
}

Error MysqlConnection::FailConn(std::string_view what) {
  return Fail(what, mysql_errno(conn_), mysql_error(conn_));
}

Error MysqlConnection::FailStmt(std::string_view what, MYSQL_STMT* stmt) {
  return Fail(what, mysql_stmt_errno(stmt), mysql_stmt_error(stmt));
}

Result<MysqlConnection::Prepared*> MysqlConnection::Prepare(std::string_view sql) {
  auto it = prepared_.find(std::string(sql));
  if (it != prepared_.end()) return &it->second;
  auto [text, order] = TranslatePlaceholders(sql);
  MYSQL_STMT* stmt = mysql_stmt_init(conn_);
  if (stmt == nullptr) return FailConn("prepare");
  if (mysql_stmt_prepare(stmt, text.data(), text.size()) != 0) {
    Error error = FailStmt("prepare", stmt);
    mysql_stmt_close(stmt);
    return error;
  }
  it = prepared_.emplace(std::string(sql), Prepared{stmt, std::move(order)}).first;
  return &it->second;
}

Result<SqlRows> MysqlConnection::Execute(std::string_view sql,
                                         const std::vector<SqlParam>& params) {
  affected_ = 0;
  for (int attempt = 0;; ++attempt) {
    CAIRN_ASSIGN_OR_RETURN(Prepared * prepared, Prepare(sql));
    MYSQL_STMT* stmt = prepared->stmt;
    const size_t count = prepared->order.size();
    std::vector<MYSQL_BIND> binds(count);
    std::vector<long long> ints(count);
    std::vector<unsigned long> lengths(count);
    for (size_t i = 0; i < count; ++i) {
      std::memset(&binds[i], 0, sizeof(MYSQL_BIND));
      const size_t index = prepared->order[i];
      if (index >= params.size()) {
        return Internal("mysql: the statement names parameter ${} of {}", index + 1, params.size());
      }
      std::visit(
          [&](const auto& value) {
            using T = std::decay_t<decltype(value)>;
            if constexpr (std::is_same_v<T, int64_t>) {
              ints[i] = value;
              binds[i].buffer_type = MYSQL_TYPE_LONGLONG;
              binds[i].buffer = &ints[i];
            } else if constexpr (std::is_same_v<T, std::string>) {
              lengths[i] = value.size();
              binds[i].buffer_type = MYSQL_TYPE_STRING;
              binds[i].buffer = const_cast<char*>(value.data());
              binds[i].buffer_length = value.size();
              binds[i].length = &lengths[i];
            } else {
              binds[i].buffer_type = MYSQL_TYPE_NULL;
            }
          },
          params[index]);
    }
    if (count > 0 && mysql_stmt_bind_param(stmt, binds.data()) != 0) {
      return FailStmt("bind", stmt);
    }
    if (mysql_stmt_execute(stmt) != 0) {
      // The server drops a prepared statement when a table it reads changed shape: prepare again.
      if (mysql_stmt_errno(stmt) == kNeedReprepare && attempt == 0) {
        mysql_stmt_close(stmt);
        prepared_.erase(std::string(sql));
        continue;
      }
      Error error = FailStmt("execute", stmt);
      if (broken_) {
        // A statement of a lost connection cannot be used again.
        mysql_stmt_close(stmt);
        prepared_.erase(std::string(sql));
      }
      return error;
    }
    SqlRows rows;
    MYSQL_RES* meta = mysql_stmt_result_metadata(stmt);
    if (meta != nullptr) {
      const unsigned int columns = mysql_num_fields(meta);
      mysql_free_result(meta);
      if (mysql_stmt_store_result(stmt) != 0) return FailStmt("read", stmt);
      std::vector<MYSQL_BIND> out(columns);
      std::vector<unsigned long> sizes(columns);
      std::vector<my_bool> nulls(columns);
      for (unsigned int c = 0; c < columns; ++c) {
        std::memset(&out[c], 0, sizeof(MYSQL_BIND));
        out[c].buffer_type = MYSQL_TYPE_STRING;
        out[c].length = &sizes[c];
        out[c].is_null = &nulls[c];
      }
      if (mysql_stmt_bind_result(stmt, out.data()) != 0) {
        mysql_stmt_free_result(stmt);
        return FailStmt("bind result", stmt);
      }
      for (;;) {
        const int rc = mysql_stmt_fetch(stmt);
        if (rc == MYSQL_NO_DATA) break;
        if (rc == 1) {
          Error error = FailStmt("fetch", stmt);
          mysql_stmt_free_result(stmt);
          return error;
        }
        SqlRow row;
        row.reserve(columns);
        for (unsigned int c = 0; c < columns; ++c) {
          if (nulls[c]) {
            row.emplace_back(std::nullopt);
            continue;
          }
          std::string value(sizes[c], '\0');
          if (sizes[c] > 0) {
            MYSQL_BIND column;
            std::memset(&column, 0, sizeof(MYSQL_BIND));
            unsigned long got = 0;
            column.buffer_type = MYSQL_TYPE_STRING;
            column.buffer = value.data();
            column.buffer_length = sizes[c];
            column.length = &got;
            if (mysql_stmt_fetch_column(stmt, &column, c, 0) != 0) {
              Error error = FailStmt("fetch column", stmt);
              mysql_stmt_free_result(stmt);
              return error;
            }
          }
          row.emplace_back(std::move(value));
        }
        rows.push_back(std::move(row));
      }
      mysql_stmt_free_result(stmt);
      affected_ = static_cast<int64_t>(rows.size());
    } else {
      affected_ = static_cast<int64_t>(mysql_stmt_affected_rows(stmt));
    }
    return rows;
  }
}

Status MysqlConnection::ExecuteScript(std::string_view sql) {
  if (mysql_real_query(conn_, sql.data(), sql.size()) != 0) return FailConn("script");
  for (;;) {
    MYSQL_RES* result = mysql_store_result(conn_);
    if (result != nullptr) mysql_free_result(result);
    const int next = mysql_next_result(conn_);
    if (next == -1) break;
    if (next > 0) return FailConn("script");
  }
  affected_ = 0;
  return Ok();
}

Status MysqlConnection::Begin() {
  CAIRN_RETURN_IF_ERROR(ExecuteScript("START TRANSACTION"));
  in_transaction_ = true;
  return Ok();
}

Status MysqlConnection::Commit() {
  in_transaction_ = false;
  return ExecuteScript("COMMIT");
}

Status MysqlConnection::Rollback() {
  if (!in_transaction_) return Ok();
  in_transaction_ = false;
  return ExecuteScript("ROLLBACK");
}

}  // namespace cairn::store::mysql
