// SPDX-License-Identifier: Apache-2.0
#include "store/sql_idempotency_store.h"

#include <string_view>

#include "common/util.h"

namespace cairn::store {
namespace {

constexpr int64_t kRunning = 0;
constexpr int64_t kFinal = 1;

constexpr std::string_view kInsertSql =
    "INSERT INTO idempotency_keys (principal, idem_key, fingerprint, state, lease_until, "
    "expires_at) VALUES ($1, $2, $3, 0, $4, $5) ON CONFLICT (principal, idem_key) DO NOTHING "
    "RETURNING state";

// MySQL's spelling: IGNORE skips only the duplicate key here (the table has no other constraint
// an insert of these values could break), and RETURNING answers no row for a skipped insert.
constexpr std::string_view kInsertMysqlSql =
    "INSERT IGNORE INTO idempotency_keys (principal, idem_key, fingerprint, state, lease_until, "
    "expires_at) VALUES ($1, $2, $3, 0, $4, $5) RETURNING state";

constexpr std::string_view kSelectSql =
    "SELECT fingerprint, state, lease_until, expires_at, status, content_type, headers, body "
    "FROM idempotency_keys WHERE principal = $1 AND idem_key = $2";

// Takes over a row exactly as it was read: an expired key, or a running one whose server died.
constexpr std::string_view kTakeOverSql =
    "UPDATE idempotency_keys SET fingerprint = $3, state = 0, lease_until = $4, expires_at = $5, "
    "status = 0, content_type = '', headers = '', body = '' WHERE principal = $1 AND "
    "idem_key = $2 AND state = $6 AND lease_until = $7 AND expires_at = $8 RETURNING state";
// MySQL has no UPDATE ... RETURNING: the affected row count tells whether the take-over won.
constexpr std::string_view kTakeOverMysqlSql =
    "UPDATE idempotency_keys SET fingerprint = $3, state = 0, lease_until = $4, expires_at = $5, "
    "status = 0, content_type = '', headers = '', body = '' WHERE principal = $1 AND "
    "idem_key = $2 AND state = $6 AND lease_until = $7 AND expires_at = $8";

constexpr std::string_view kFinishSql =
    "UPDATE idempotency_keys SET state = 1, lease_until = 0, status = $3, content_type = $4, "
    "headers = $5, body = $6, expires_at = $7 WHERE principal = $1 AND idem_key = $2";

constexpr std::string_view kReleaseSql =
    "DELETE FROM idempotency_keys WHERE principal = $1 AND idem_key = $2 AND state = 0";

constexpr std::string_view kPurgeSql =
    "DELETE FROM idempotency_keys WHERE expires_at < $1 RETURNING state";

// A row that vanished between the insert and the read (released or purged) is claimed again;
// this many rounds at most.
constexpr int kClaimRounds = 4;

Result<int64_t> Int(const SqlRow& row, size_t i) {
  const std::optional<int64_t> v = i < row.size() && row[i] ? ParseInt64(*row[i]) : std::nullopt;
  if (!v) return Internal("idempotency_keys: column {} is not an integer", i);
  return *v;
}

std::string Text(const SqlRow& row, size_t i) { return i < row.size() && row[i] ? *row[i] : ""; }

}  // namespace

Result<KeyClaim> SqlIdempotencyStore::Claim(const std::string& principal, const std::string& key,
                                            const std::string& fingerprint, int64_t now_ms,
                                            int64_t lease_until, int64_t expires_at) {
  CAIRN_ASSIGN_OR_RETURN(auto conn, pool_.Acquire());
  const bool mysql = conn->dialect() == Dialect::kMysql;
  for (int round = 0; round < kClaimRounds; ++round) {
    CAIRN_ASSIGN_OR_RETURN(SqlRows inserted,
                           conn->Execute(mysql ? kInsertMysqlSql : kInsertSql,
                                         {principal, key, fingerprint, lease_until, expires_at}));
    if (!inserted.empty()) return KeyClaim{KeyClaim::Outcome::kClaimed, {}};
    CAIRN_ASSIGN_OR_RETURN(SqlRows rows, conn->Execute(kSelectSql, {principal, key}));
    if (rows.empty()) continue;
    const SqlRow& row = rows.front();
    CAIRN_ASSIGN_OR_RETURN(int64_t state, Int(row, 1));
    CAIRN_ASSIGN_OR_RETURN(int64_t lease, Int(row, 2));
    CAIRN_ASSIGN_OR_RETURN(int64_t expires, Int(row, 3));
    const bool expired = expires < now_ms;
    if (!expired && Text(row, 0) != fingerprint) return KeyClaim{KeyClaim::Outcome::kMismatch, {}};
    if (!expired && state == kFinal) {
      KeyClaim found{KeyClaim::Outcome::kFinished, {}};
      CAIRN_ASSIGN_OR_RETURN(int64_t status, Int(row, 4));
      found.answer.status = static_cast<int>(status);
      found.answer.content_type = Text(row, 5);
      found.answer.headers = Text(row, 6);
      found.answer.body = Text(row, 7);
      return found;
    }
    if (!expired && state == kRunning && lease >= now_ms) {
      return KeyClaim{KeyClaim::Outcome::kRunning, {}};
    }
    CAIRN_ASSIGN_OR_RETURN(SqlRows taken,
                           conn->Execute(mysql ? kTakeOverMysqlSql : kTakeOverSql,
                                         {principal, key, fingerprint, lease_until, expires_at,
                                          state, lease, expires}));
    if (!taken.empty() || (mysql && conn->AffectedRows() == 1)) {
      return KeyClaim{KeyClaim::Outcome::kClaimed, {}};
    }
  }
  return Unavailable("idempotency key {} is contended; retry", key);
}

Status SqlIdempotencyStore::Finish(const std::string& principal, const std::string& key,
                                   const StoredAnswer& answer, int64_t expires_at) {
  CAIRN_ASSIGN_OR_RETURN(auto conn, pool_.Acquire());
  CAIRN_RETURN_IF_ERROR(conn->Execute(
      kFinishSql, {principal, key, static_cast<int64_t>(answer.status), answer.content_type,
                   answer.headers, answer.body, expires_at}));
  return Ok();
}

Status SqlIdempotencyStore::Release(const std::string& principal, const std::string& key) {
  CAIRN_ASSIGN_OR_RETURN(auto conn, pool_.Acquire());
  CAIRN_RETURN_IF_ERROR(conn->Execute(kReleaseSql, {principal, key}));
  return Ok();
}

Result<int64_t> SqlIdempotencyStore::Purge(int64_t now_ms) {
  CAIRN_ASSIGN_OR_RETURN(auto conn, pool_.Acquire());
  CAIRN_ASSIGN_OR_RETURN(SqlRows gone, conn->Execute(kPurgeSql, {now_ms}));
  return static_cast<int64_t>(gone.size());
}

}  // namespace cairn::store
