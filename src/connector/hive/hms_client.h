// SPDX-License-Identifier: Apache-2.0
// Pooled Thrift connections to a Hive Metastore (docs/hive.md): binary protocol over a buffered
// socket with connect, send and receive timeouts; a call that fails on the transport is retried
// once on a fresh connection to the next URI. Safe to use from many threads.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "connector/connector.h"

namespace cairn::hms {
class ThriftHiveMetastoreClient;
class Table;
}  // namespace cairn::hms

namespace cairn::connector::hive {

struct MetastoreUri {
  std::string host;
  int port = 9083;
  std::string text;  // as written: thrift://host:port
};

/// Parses `metastore.uris` (or the property `property`): comma-separated `thrift://host[:port]`.
/// kInvalidArgument naming the property otherwise.
Result<std::vector<MetastoreUri>> ParseMetastoreUris(std::string_view text,
                                                     std::string_view property = "metastore.uris");

struct HmsOptions {
  std::vector<MetastoreUri> uris;
  int connect_timeout_ms = 5000;
  int io_timeout_ms = 30000;
  int pool_max = 4;
  int pool_wait_ms = 5000;
  /// After a call or a connection attempt ran into its timeout, how long calls fail at once
  /// instead of each waiting for the timeout again (a hanging metastore).
  int hold_off_ms = 5000;
};

/// The connection settings of a catalog that talks to a metastore: the URIs from the property
/// `uris_property`, `client.pool-size` (1..100), and the server's connection limits (`deps`, the
/// JDBC catalogs' settings). kInvalidArgument naming the property at fault.
Result<HmsOptions> ParseHmsOptions(const model::Properties& props, std::string_view uris_property,
                                   const ConnectorDeps& deps);

/// What a metastore call failed with, in the metastore's words: the exception type decides the
/// code (NoSuchObjectException kNotFound, AlreadyExistsException kAlreadyExists,
/// InvalidObjectException / InvalidOperationException / MetaException kInvalidArgument, an
/// unknown method kUnsupported), transport failures kConnectionFailed (could not connect) or
/// kUnavailable (the connection broke or timed out). The entity is left to the caller. After a
/// timeout, calls fail at once with kUnavailable for `hold_off_ms`.
class HmsPool {
 public:
  using Client = hms::ThriftHiveMetastoreClient;

  explicit HmsPool(HmsOptions options);
  ~HmsPool();
  HmsPool(const HmsPool&) = delete;
  HmsPool& operator=(const HmsPool&) = delete;

  /// Runs `fn` on a pooled client. `what` names the call in errors ("get_table_req").
  Status Run(std::string_view what, const std::function<void(Client&)>& fn);

  /// Opens a new connection and lists the databases: kConnectionFailed when no URI answers.
  Status Ping();

  const HmsOptions& options() const { return options_; }

 private:
  struct Conn;
  Result<std::unique_ptr<Conn>> Connect();
  Result<std::unique_ptr<Conn>> Acquire();
  void Release(std::unique_ptr<Conn> conn);
  void Discard();
  void DropIdle();  // closes every idle connection (after one was found broken)
  void HoldOff(std::string reason);

  HmsOptions options_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::unique_ptr<Conn>> idle_;  // guarded by mu_
  int open_ = 0;                             // guarded by mu_: idle + in use + being opened
  size_t next_uri_ = 0;                      // guarded by mu_
  std::chrono::steady_clock::time_point hold_until_{};  // guarded by mu_
  std::string hold_reason_;                             // guarded by mu_
};

/// The metastore objects of `names`, tables of database `db`, fetched 100 at a time
/// (`get_table_objects_by_name_req`). Errors as HmsPool::Run's.
Result<std::vector<hms::Table>> GetTableObjects(HmsPool& pool, const std::string& db,
                                                const std::vector<std::string>& names);

}  // namespace cairn::connector::hive
