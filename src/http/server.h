// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "common/result.h"
#include "message/message.h"

namespace cairn::http {

/// TLS on the listener. With `cert_file` empty the server speaks plain HTTP.
struct TlsOptions {
  std::string cert_file;       // PEM: the server's certificate, then its chain
  std::string key_file;        // PEM: its private key
  std::string client_ca_file;  // PEM: set, clients may present a certificate one of these signed
  bool require_client_cert = false;  // with client_ca_file: a handshake without one fails
  // The three files' change times are checked this often and the context rebuilt when one
  // changed (SIGHUP does it at once); 0: on SIGHUP only. New connections get the new context,
  // open ones keep theirs.
  int reload_interval_ms = 5000;

  bool enabled() const { return !cert_file.empty(); }
};

struct ServerOptions {
  std::string host = "127.0.0.1";
  int port = 8090;  // 0 picks a free port
  // Most threads that run connections and their (possibly blocking) handlers: one per available
  // CPU always, more (up to this) while every running one is blocked in a handler.
  int worker_threads = 4;
  size_t max_body_bytes = 10 * 1024 * 1024;
  size_t max_header_bytes = 64 * 1024;
  int idle_timeout_ms = 60'000;    // keep-alive idle and slow-client read timeout
  int shutdown_grace_ms = 15'000;  // in-flight requests may finish within this
  // A handler's work that runs past this is abandoned with a 503 (common/deadline.h); 0: none.
  int request_deadline_ms = 60'000;
  TlsOptions tls;
};

/// Handles one request on one of the server's threads. Must not throw (a throw becomes a 500).
using Handler = std::function<Response(const Request&)>;

/// Renders a transport-level error (bad request, body too large, handler crash) in the format
/// of the protocol that owns the request's path. `partial` holds what was parsed of the request
/// (method, target, path, request id, remote address; headers and body may be missing).
using ErrorRenderer =
    std::function<Response(int status, std::string_view message, const Request& partial)>;

/// The HTTP/1.1 server: one thread per available CPU runs the accept loop and the per-connection
/// coroutines, each connection on a strand of its own, and calls the handler inline. When every
/// running thread is blocked in a handler (store, fsync, storage, a remote catalog), spare threads
/// are started, up to `worker_threads`, and retire once idle.
class Server {
 public:
  Server(ServerOptions options, Handler handler, ErrorRenderer error_renderer);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  /// Loads the TLS files (when configured), binds and listens. kInvalidArgument when a TLS file
  /// cannot be used; kUnavailable when the address cannot be bound.
  Status Listen();
  /// The bound port (after Listen).
  int port() const;
  /// Serves until Stop() or SIGINT/SIGTERM, then lets in-flight requests finish (up to the grace
  /// period) and returns. A handler still running a moment after the grace ends the process
  /// (exit status 0, with a warning logged): a stop never waits on a handler.
  void Run();
  /// Asks Run() to return; safe from any thread.
  void Stop();

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace cairn::http
