// SPDX-License-Identifier: Apache-2.0
#include <poll.h>

#include <cerrno>
#include <chrono>
#include <string_view>

#include <libpq-fe.h>

#include "common/trace.h"
#include "common/util.h"
#include "connector/jdbc/jdbc_session.h"

namespace cairn::connector::jdbc {

namespace {

std::string CleanMessage(const char* text) {
  std::string s = text != nullptr ? text : "";
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  // libpq messages start with "ERROR:  "; the caller adds its own context.
  for (std::string_view prefix : {"ERROR:  ", "FATAL:  "}) {
    if (s.rfind(prefix, 0) == 0) s = s.substr(prefix.size());
  }
  auto nl = s.find('\n');
  if (nl != std::string::npos) s = s.substr(0, nl);
  return s;
}

class PgSession final : public Session {
 public:
  PgSession(PGconn* conn, int io_timeout_s) : conn_(conn), io_timeout_s_(io_timeout_s) {}
  ~PgSession() override { PQfinish(conn_); }

  Result<Rows> Query(const std::string& sql) override {
    trace::Span span("jdbc.query", trace::Kind::kClient);
    if (span.recording()) {
      span.Set("db.system", "postgresql");
      // The statement's verb, not its text: literals may hold what a trace should not.
      span.Set("db.operation.name", std::string_view(sql).substr(0, sql.find_first_of(" \n")));
    }
    auto rows = Run(sql);
    if (!rows) span.Fail(rows.error().message);
    return rows;
  }

  Result<Rows> Run(const std::string& sql) {
    // Sent asynchronously so that a source that stops answering (a frozen server keeps the TCP
    // connection open) cannot hold the caller longer than the I/O timeout. The extended query
    // protocol runs exactly one statement: text spliced into it cannot start another.
    if (PQsendQueryParams(conn_, sql.c_str(), 0, nullptr, nullptr, nullptr, nullptr, 0) == 0) {
      broken_ = true;
      return Unavailable("the connection to the source was lost: {}",
                         CleanMessage(PQerrorMessage(conn_)));
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(io_timeout_s_);
    PGresult* res = nullptr;  // the first error result, else the last result
    for (;;) {
      while (PQisBusy(conn_)) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
            deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) {
          // No PQcancel: against a source that hangs it would hang as well. The connection is
          // dropped instead, and the server's statement_timeout ends the statement there.
          if (res != nullptr) PQclear(res);
          broken_ = true;
          timed_out_ = true;
          return Unavailable("the source did not answer within {} s", io_timeout_s_);
        }
        pollfd pfd{PQsocket(conn_), POLLIN, 0};
        const int ready = poll(&pfd, 1, static_cast<int>(left.count()));
        if (ready < 0 && errno != EINTR) {
          broken_ = true;
          if (res != nullptr) PQclear(res);
          return Unavailable("the connection to the source was lost");
        }
        if (PQconsumeInput(conn_) == 0) {
          broken_ = true;
          if (res != nullptr) PQclear(res);
          return Unavailable("the connection to the source was lost: {}",
                             CleanMessage(PQerrorMessage(conn_)));
        }
      }
      PGresult* next = PQgetResult(conn_);
      if (next == nullptr) break;
      // Keep the first error of a script; it says what went wrong.
      const bool have_error = res != nullptr && PQresultStatus(res) != PGRES_TUPLES_OK &&
                              PQresultStatus(res) != PGRES_COMMAND_OK;
      if (have_error) {
        PQclear(next);
        continue;
      }
      if (res != nullptr) PQclear(res);
      res = next;
    }
    const ExecStatusType status = res != nullptr ? PQresultStatus(res) : PGRES_FATAL_ERROR;
    if (status == PGRES_TUPLES_OK || status == PGRES_COMMAND_OK) {
      Rows rows;
      if (status == PGRES_TUPLES_OK) {
        const int n = PQntuples(res);
        const int cols = PQnfields(res);
        rows.reserve(n);
        for (int r = 0; r < n; ++r) {
          Row row;
          row.reserve(cols);
          for (int c = 0; c < cols; ++c) {
            if (PQgetisnull(res, r, c)) {
              row.emplace_back(std::nullopt);
            } else {
              row.emplace_back(std::string(PQgetvalue(res, r, c), PQgetlength(res, r, c)));
            }
          }
          rows.push_back(std::move(row));
        }
      }
      PQclear(res);
      return rows;
    }
    std::string state;
    std::string message;
    if (res != nullptr) {
      const char* s = PQresultErrorField(res, PG_DIAG_SQLSTATE);
      if (s != nullptr) state = s;
      const char* m = PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY);
      message = m != nullptr ? m : CleanMessage(PQresultErrorMessage(res));
      PQclear(res);
    }
    if (message.empty()) message = CleanMessage(PQerrorMessage(conn_));
    if (PQstatus(conn_) != CONNECTION_OK) broken_ = true;
    // A failed statement inside an explicit transaction block leaves it aborted.
    if (!broken_ && PQtransactionStatus(conn_) == PQTRANS_INERROR) {
      auto rolled_back = Query("ROLLBACK");
      (void)rolled_back;
    }
    if (broken_ || state.rfind("08", 0) == 0 || state.rfind("57P", 0) == 0) {
      broken_ = true;
      return Unavailable("the connection to the source was lost: {}", message);
    }
    if (state == "42P06" || state == "42P07" || state == "42701" || state == "42710" ||
        state == "23505") {
      return AlreadyExists(EntityKind::kNone, "{}", message);
    }
    if (state == "3F000" || state == "42P01" || state == "42703" || state == "42704") {
      return NotFound(EntityKind::kNone, "{}", message);
    }
    if (state == "42501" || state.rfind("28", 0) == 0) {
      return MakeError(ErrorCode::kPermissionDenied, EntityKind::kNone, "{}", message);
    }
    if (state == "2BP01") return MakeError(ErrorCode::kNotEmpty, EntityKind::kNone, "{}", message);
    return InvalidArgument("{}", message);
  }

  bool Broken() const override { return broken_ || PQstatus(conn_) != CONNECTION_OK; }
  bool TimedOut() const override { return timed_out_; }

  bool Ping() override {
    auto r = Query("SELECT 1");
    return r.has_value();
  }

 private:
  PGconn* conn_;
  int io_timeout_s_;
  bool broken_ = false;
  bool timed_out_ = false;
};

}  // namespace

Result<std::unique_ptr<Session>> ConnectPostgres(const ConnectOptions& o) {
  const std::string port = std::to_string(o.port > 0 ? o.port : 5432);
  const std::string timeout = std::to_string(o.connect_timeout_s);
  const std::string tcp_user_timeout = std::to_string(o.io_timeout_s * 1000);
  // Statements that run longer than the I/O timeout are cancelled by the server itself.
  const std::string server_options = fmt::format(
      "-c statement_timeout={} -c standard_conforming_strings=on", o.io_timeout_s * 1000);
  std::vector<const char*> keys = {"host",
                                   "port",
                                   "dbname",
                                   "user",
                                   "password",
                                   "connect_timeout",
                                   "tcp_user_timeout",
                                   "keepalives",
                                   "keepalives_idle",
                                   "keepalives_interval",
                                   "keepalives_count",
                                   "application_name",
                                   "options",
                                   "client_encoding"};
  std::vector<const char*> values = {o.host.c_str(),
                                     port.c_str(),
                                     o.database.c_str(),
                                     o.user.c_str(),
                                     o.password.c_str(),
                                     timeout.c_str(),
                                     tcp_user_timeout.c_str(),
                                     "1",
                                     "10",
                                     "5",
                                     "3",
                                     "cairn",
                                     server_options.c_str(),
                                     "UTF8"};
  // libpq's own names for the modes; kSourceDefault leaves sslmode to libpq (prefer).
  static constexpr const char* kModes[] = {nullptr,   "disable",   "allow",      "prefer",
                                           "require", "verify-ca", "verify-full"};
  const std::string ca_file = TrustedCaFile(o);
  if (const char* mode = kModes[static_cast<int>(o.tls)]; mode != nullptr) {
    keys.push_back("sslmode");
    values.push_back(mode);
  }
  // A verifying mode checks against the catalog's CA bundle or the system's (libpq's own default,
  // ~/.postgresql/root.crt, is not where a server keeps its trust).
  if (Verifies(o.tls) || !o.tls_ca_file.empty()) {
    keys.push_back("sslrootcert");
    values.push_back(ca_file.c_str());
  }
  keys.push_back(nullptr);
  values.push_back(nullptr);
  PGconn* conn = PQconnectdbParams(keys.data(), values.data(), 0);
  if (conn == nullptr) {
    return MakeError(ErrorCode::kConnectionFailed, EntityKind::kCatalog,
                     "cannot allocate a PostgreSQL connection");
  }
  if (PQstatus(conn) != CONNECTION_OK) {
    std::string message = CleanMessage(PQerrorMessage(conn));
    PQfinish(conn);
    return MakeError(ErrorCode::kConnectionFailed, EntityKind::kCatalog, "{}", message);
  }
  return std::unique_ptr<Session>(std::make_unique<PgSession>(conn, o.io_timeout_s));
}

}  // namespace cairn::connector::jdbc
