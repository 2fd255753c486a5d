// SPDX-License-Identifier: Apache-2.0
// Connections of the JDBC catalogs to their source databases, and their per-catalog pool.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "common/metrics.h"
#include "common/result.h"

namespace cairn::connector::jdbc {

using Row = std::vector<std::optional<std::string>>;  // text values; nullopt is SQL NULL
using Rows = std::vector<Row>;

/// How a connection to the source is protected, weakest first. kSourceDefault leaves it to the
/// client library (libpq: TLS when the server offers it, unverified; MariaDB: plain TCP) and is
/// the default only toward this machine; toward any other the default is kVerifyFull.
enum class TlsMode { kSourceDefault, kDisable, kAllow, kPrefer, kRequire, kVerifyCa, kVerifyFull };

/// True for the modes that check the server's certificate against a trusted CA.
inline bool Verifies(TlsMode mode) {
  return mode == TlsMode::kVerifyCa || mode == TlsMode::kVerifyFull;
}

/// Where and how to connect, from a catalog's jdbc-* properties.
struct ConnectOptions {
  std::string host = "127.0.0.1";
  int port = 0;
  std::string database;  // PostgreSQL: the database; MySQL: empty (a catalog spans databases)
  std::string user;
  std::string password;
  TlsMode tls = TlsMode::kSourceDefault;
  std::string tls_ca_file;    // PEM CAs a verifying mode trusts; empty: the system's bundle
  int connect_timeout_s = 5;  // libpq counts whole seconds, at least 2
  int io_timeout_s = 30;      // how long one statement may take before the connection is dropped
};

/// One open connection to a source database. Not thread-safe; the pool hands it to one caller
/// at a time.
///
/// Errors of Query: kUnavailable when the connection is lost (then Broken() is true);
/// kAlreadyExists / kNotFound for duplicate / undefined objects; kPermissionDenied when the
/// source refuses; kInvalidArgument for everything else the source rejects. Messages are the
/// source's own words.
class Session {
 public:
  virtual ~Session() = default;
  /// Runs exactly one statement and returns its rows. A failed statement inside a transaction
  /// rolls the transaction back.
  virtual Result<Rows> Query(const std::string& sql) = 0;
  virtual bool Broken() const = 0;
  /// True when the last statement got no answer within the I/O timeout (the source hangs).
  virtual bool TimedOut() const = 0;
  /// A cheap round trip that tells whether the connection still works.
  virtual bool Ping() = 0;
};

/// The CA bundle a verifying mode checks the server against: the catalog's, else the system's
/// (OpenSSL's default file, or $SSL_CERT_FILE).
std::string TrustedCaFile(const ConnectOptions& options);

struct PoolStats;

using SessionFactory = std::function<Result<std::unique_ptr<Session>>()>;

/// Opens libpq / MariaDB client connections. Connection failures are kConnectionFailed with the
/// client library's message (never the password).
Result<std::unique_ptr<Session>> ConnectPostgres(const ConnectOptions& options);
Result<std::unique_ptr<Session>> ConnectMysql(const ConnectOptions& options);

/// A bounded pool of sessions for one catalog. Connections are opened lazily, up to `max_size`;
/// up to `min_size` idle ones are kept however long they idle, more are closed after a minute.
/// A caller waits at most `wait` for a free connection. When the source hangs (a statement got
/// no answer in time, or connecting failed only after `slow_connect`), callers fail at once for
/// `hold_off` instead of each waiting for the timeouts again. Thread-safe.
class SessionPool {
 public:
  struct Options {
    int min_size = 2;
    int max_size = 10;
    std::chrono::milliseconds wait{5000};
    std::chrono::milliseconds idle_check{30000};   // ping idle connections older than this
    std::chrono::milliseconds idle_close{60000};   // close idle ones above min_size after this
    std::chrono::milliseconds slow_connect{3000};  // a failed connect this slow: source hangs
    std::chrono::milliseconds hold_off{5000};      // how long a hanging source is not tried
    std::string name;  // the catalog's id: set, the pool is in ReadPoolStats
  };

  SessionPool(SessionFactory factory, Options options);
  ~SessionPool();
  SessionPool(const SessionPool&) = delete;
  SessionPool& operator=(const SessionPool&) = delete;

  /// A borrowed session, returned to the pool when destroyed (closed if broken).
  class Lease {
   public:
    Lease(SessionPool* pool, std::unique_ptr<Session> session)
        : pool_(pool), session_(std::move(session)) {}
    Lease(Lease&& o) noexcept = default;
    Lease& operator=(Lease&&) = delete;
    ~Lease();
    Session* operator->() { return session_.get(); }
    Session& operator*() { return *session_; }

   private:
    SessionPool* pool_;
    std::unique_ptr<Session> session_;
  };

  /// A free session, a new one, or an error: kConnectionFailed when connecting fails,
  /// kUnavailable when every connection stays busy for `wait`.
  Result<Lease> Acquire();

  int open_count();
  int idle_count();

 private:
  struct Idle {
    std::unique_ptr<Session> session;
    std::chrono::steady_clock::time_point since;
  };
  Result<Lease> AcquireUncounted();
  void Release(std::unique_ptr<Session> session);
  friend std::vector<PoolStats> ReadPoolStats();

  SessionFactory factory_;
  Options options_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<Idle> idle_;  // guarded by mu_
  int open_ = 0;            // guarded by mu_: idle + leased + being opened
  std::chrono::steady_clock::time_point hold_until_{};  // guarded by mu_
  std::string hold_reason_;                             // guarded by mu_
  int leased_ = 0;                                      // guarded by mu_
  metrics::Histogram wait_{metrics::LatencyBuckets()};  // how long Acquire took, when it lent
  metrics::Counter acquired_;
  metrics::Counter timeouts_;          // no connection came free in time
  metrics::Counter connect_failures_;  // opening a connection failed
};

/// One named pool's figures, for /metrics.
struct PoolStats {
  std::string name;
  int open = 0;  // idle + leased + being opened
  int leased = 0;
  int max = 0;
  uint64_t acquired = 0;
  uint64_t timeouts = 0;
  uint64_t connect_failures = 0;
  metrics::Histogram::Snapshot wait;
};

/// Every live pool that has a name, by name.
std::vector<PoolStats> ReadPoolStats();

}  // namespace cairn::connector::jdbc
