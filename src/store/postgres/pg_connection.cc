// SPDX-License-Identifier: Apache-2.0
#include "store/postgres/pg_connection.h"

#include <array>
#include <cstring>
#include <type_traits>
#include <utility>

#include <libpq-fe.h>

#include "common/util.h"
#include "store/postgres/libpq_util.h"

namespace cairn::store::postgres {
namespace {

// Maps a failed result (or a null one, when libpq could not even send the query).
Error MapError(PGconn* conn, const PGresult* result, std::string_view what) {
  const char* state = result != nullptr ? PQresultErrorField(result, PG_DIAG_SQLSTATE) : nullptr;
  const std::string_view sqlstate = state != nullptr ? state : "";
  const std::string_view message =
      TrimMessage(result != nullptr ? PQresultErrorMessage(result) : PQerrorMessage(conn));
  if (sqlstate == "23505") {
    return MakeError(ErrorCode::kAlreadyExists, EntityKind::kNone, "postgres: {}: {}", what,
                     message);
  }
  if (sqlstate == "23503") {  // foreign_key_violation: a referenced row does not exist
    return MakeError(ErrorCode::kNotFound, EntityKind::kNone, "postgres: {}: {}", what, message);
  }
  if (sqlstate == "40001" || sqlstate == "40P01" || sqlstate.starts_with("08") ||
      sqlstate == "57P01" || sqlstate == "57P02" || sqlstate == "57P03" ||
      PQstatus(conn) != CONNECTION_OK) {
    return Unavailable("postgres: {}: {}", what, message);
  }
  return Internal("postgres: {}: {} (SQLSTATE {})", what, message,
                  sqlstate.empty() ? "none" : sqlstate);
}

// Checks a result for success; a command result and a tuples result are both fine.
Status CheckResult(PGconn* conn, const PGresult* result, std::string_view what) {
  if (result != nullptr) {
    const ExecStatusType status = PQresultStatus(result);
    if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) {
      return Ok();
    }
  }
  return MapError(conn, result, what);
}

}  // namespace

void PgConnection::Finish::operator()(pg_conn* conn) const { PQfinish(conn); }

PgConnection::PgConnection(std::unique_ptr<pg_conn, Finish> conn) : conn_(std::move(conn)) {}
PgConnection::~PgConnection() = default;

Result<std::unique_ptr<PgConnection>> PgConnection::Connect(const std::string& url) {
  if (url.empty()) {
    return InvalidArgument("postgres store needs a connection url");
  }
  // The URL comes after connect_timeout so a timeout the URL sets overrides our default.
  const std::array<const char*, 3> keywords = {"connect_timeout", "dbname", nullptr};
  const std::array<const char*, 3> values = {"10", url.c_str(), nullptr};
  std::unique_ptr<pg_conn, Finish> conn(
      PQconnectdbParams(keywords.data(), values.data(), /*expand_dbname=*/1));
  if (!conn) {
    return Unavailable("postgres: out of memory while connecting");
  }
  if (PQstatus(conn.get()) != CONNECTION_OK) {
    return Unavailable("postgres: cannot connect: {}", TrimMessage(PQerrorMessage(conn.get())));
  }
  // Notices ("relation already exists, skipping") would go to stderr otherwise.
  PQsetNoticeProcessor(
      conn.get(), [](void*, const char*) {}, nullptr);
  if (PQsetClientEncoding(conn.get(), "UTF8") != 0) {
    return Internal("postgres: cannot set client encoding UTF8: {}",
                    TrimMessage(PQerrorMessage(conn.get())));
  }
  return std::unique_ptr<PgConnection>(new PgConnection(std::move(conn)));
}

Result<SqlRows> PgConnection::Execute(std::string_view sql, const std::vector<SqlParam>& params) {
  // Text-format parameters; libpq wants NUL-terminated strings, so integers are rendered once.
  std::vector<std::string> storage(params.size());
  std::vector<const char*> values(params.size(), nullptr);
  for (size_t i = 0; i < params.size(); ++i) {
    std::visit(
        [&](const auto& value) {
          using T = std::decay_t<decltype(value)>;
          if constexpr (std::is_same_v<T, int64_t>) {
            storage[i] = std::to_string(value);
            values[i] = storage[i].c_str();
          } else if constexpr (std::is_same_v<T, std::string>) {
            values[i] = value.c_str();
          }
        },
        params[i]);
  }
  const std::string text(sql);
  ResultPtr result;
  if (params.empty()) {
    // DDL and transaction control (possibly several statements): no plan worth keeping.
    result.reset(PQexecParams(conn_.get(), text.c_str(), 0, nullptr, nullptr, nullptr, nullptr, 0));
  } else {
    // Statements with parameters are prepared once per connection and then only executed, so
    // the server parses and plans each of them once instead of on every call.
    auto it = prepared_.find(text);
    if (it == prepared_.end()) {
      std::string name = "cairn_" + std::to_string(prepared_.size());
      ResultPtr prepared(PQprepare(conn_.get(), name.c_str(), text.c_str(),
                                   static_cast<int>(params.size()), nullptr));
      CAIRN_RETURN_IF_ERROR(CheckResult(conn_.get(), prepared.get(), "prepare"));
      it = prepared_.emplace(text, std::move(name)).first;
    }
    result.reset(PQexecPrepared(conn_.get(), it->second.c_str(), static_cast<int>(params.size()),
                                values.data(), nullptr, nullptr, /*resultFormat=*/0));
  }
  affected_ = 0;
  CAIRN_RETURN_IF_ERROR(CheckResult(conn_.get(), result.get(), "execute"));
  {
    const char* tuples = PQcmdTuples(result.get());
    affected_ = tuples != nullptr && *tuples != '\0' ? ParseInt64(tuples).value_or(0) : 0;
  }

  SqlRows rows;
  const int tuples = PQntuples(result.get());
  const int fields = PQnfields(result.get());
  rows.reserve(static_cast<size_t>(tuples));
  for (int r = 0; r < tuples; ++r) {
    SqlRow row;
    row.reserve(static_cast<size_t>(fields));
    for (int c = 0; c < fields; ++c) {
      if (PQgetisnull(result.get(), r, c) != 0) {
        row.emplace_back(std::nullopt);
      } else {
        row.emplace_back(std::string(PQgetvalue(result.get(), r, c),
                                     static_cast<size_t>(PQgetlength(result.get(), r, c))));
      }
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

Status PgConnection::ExecuteScript(std::string_view sql) {
  const std::string text(sql);
  // PQexec runs several statements; the last result carries the first error, if any.
  ResultPtr result(PQexec(conn_.get(), text.c_str()));
  return CheckResult(conn_.get(), result.get(), "script");
}

Status PgConnection::Begin() { return ExecuteScript("BEGIN"); }
Status PgConnection::Commit() { return ExecuteScript("COMMIT"); }

Status PgConnection::Rollback() {
  if (PQtransactionStatus(conn_.get()) == PQTRANS_IDLE) {
    return Ok();
  }
  return ExecuteScript("ROLLBACK");
}

bool PgConnection::IsBroken() const { return PQstatus(conn_.get()) != CONNECTION_OK; }

std::string RedactConnectionUrl(std::string_view url) {
  std::string out(url);
  const size_t scheme = out.find("://");
  if (scheme != std::string::npos) {
    const size_t start = scheme + 3;
    const size_t end = out.find_first_of("/?", start);
    const size_t at = out.rfind('@', end == std::string::npos ? out.size() : end);
    if (at != std::string::npos && at > start) {
      const size_t colon = out.find(':', start);
      if (colon != std::string::npos && colon < at) {
        out.replace(colon + 1, at - colon - 1, "****");
      }
    }
  }
  // Keyword form, or a password in the URI query string.
  for (const std::string_view key : {"password=", "password%3D"}) {
    size_t pos = 0;
    while ((pos = out.find(key, pos)) != std::string::npos) {
      const size_t value = pos + key.size();
      size_t end = out.find_first_of(" &", value);
      if (end == std::string::npos) end = out.size();
      out.replace(value, end - value, "****");
      pos = value + 4;
    }
  }
  return out;
}

}  // namespace cairn::store::postgres
