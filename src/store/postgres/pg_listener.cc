// SPDX-License-Identifier: Apache-2.0
#include "store/postgres/pg_listener.h"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <memory>
#include <utility>

#include <libpq-fe.h>
#include <spdlog/spdlog.h>

#include "store/postgres/libpq_util.h"

namespace cairn::store::postgres {
namespace {

using Clock = std::chrono::steady_clock;

struct ConnCloser {
  void operator()(PGconn* conn) const { PQfinish(conn); }
};
using Conn = std::unique_ptr<PGconn, ConnCloser>;

}  // namespace

PgListener::PgListener(std::string url, std::string channel,
                       std::function<void(std::string_view)> on_notify,
                       std::function<void(bool)> on_state, std::chrono::milliseconds heartbeat)
    : url_(std::move(url)),
      channel_(std::move(channel)),
      on_notify_(std::move(on_notify)),
      on_state_(std::move(on_state)),
      heartbeat_(std::max(heartbeat, std::chrono::milliseconds(50))) {
  if (::pipe2(wake_, O_CLOEXEC | O_NONBLOCK) != 0) {
    wake_[0] = wake_[1] = -1;
  }
  thread_ = std::thread([this] { Run(); });
}

PgListener::~PgListener() {
  stop_.store(true, std::memory_order_release);
  if (wake_[1] >= 0) {
    const char byte = 1;
    [[maybe_unused]] const ssize_t n = ::write(wake_[1], &byte, 1);
  }
  if (thread_.joinable()) thread_.join();
  for (int fd : wake_) {
    if (fd >= 0) ::close(fd);
  }
}

void PgListener::Run() {
  // Waits up to `timeout` for the socket (or only for the stop pipe when socket < 0).
  // Returns 1 when the socket is readable, 0 on timeout, -1 when asked to stop.
  auto wait = [this](int socket, std::chrono::milliseconds timeout) {
    std::array<pollfd, 2> fds{};
    fds[0] = {wake_[0], POLLIN, 0};
    fds[1] = {socket, POLLIN, 0};
    const int count = socket >= 0 ? 2 : 1;
    for (;;) {
      if (stop_.load(std::memory_order_acquire)) return -1;
      const int rc = ::poll(fds.data(), count, static_cast<int>(timeout.count()));
      if (rc < 0 && errno == EINTR) continue;
      if (stop_.load(std::memory_order_acquire) || (fds[0].revents != 0)) return -1;
      if (rc > 0 && count == 2 && fds[1].revents != 0) return 1;
      return 0;
    }
  };

  // The connection's own timeouts bound how long a dead peer can hold a round trip: keepalives
  // probe an idle socket, and the user timeout drops one whose sent data stays unacknowledged.
  const std::string user_timeout = std::to_string(heartbeat_.count() * 3);
  // The URL comes last, so what it sets wins. The application name tells an operator looking at
  // pg_stat_activity which connection is the feed.
  const std::array<const char*, 9> keywords = {
      "connect_timeout",  "keepalives",       "keepalives_idle", "keepalives_interval",
      "keepalives_count", "tcp_user_timeout", "application_name", "dbname",
      nullptr};
  const std::array<const char*, 9> values = {"5",
                                             "1",
                                             "5",
                                             "2",
                                             "2",
                                             user_timeout.c_str(),
                                             "cairn-change-feed",
                                             url_.c_str(),
                                             nullptr};
  const std::string listen = "LISTEN " + channel_;

  std::chrono::milliseconds backoff(50);
  bool warned = false;
  while (!stop_.load(std::memory_order_acquire)) {
    Conn conn(PQconnectdbParams(keywords.data(), values.data(), /*expand_dbname=*/1));
    if (conn && PQstatus(conn.get()) == CONNECTION_OK) {
      PQsetNoticeProcessor(conn.get(), [](void*, const char*) {}, nullptr);
      ResultPtr r(PQexec(conn.get(), listen.c_str()));
      if (!r || PQresultStatus(r.get()) != PGRES_COMMAND_OK) {
        if (!warned) {
          spdlog::warn("event=store_listener state=failed channel={} error=\"{}\"", channel_,
                       TrimMessage(PQerrorMessage(conn.get())));
          warned = true;
        }
        conn.reset();
      }
    } else {
      if (!warned) {
        spdlog::warn("event=store_listener state=down channel={} error=\"{}\"", channel_,
                     conn ? TrimMessage(PQerrorMessage(conn.get())) : std::string_view("out of memory"));
        warned = true;
      }
      conn.reset();
    }
    if (!conn) {
      if (wait(-1, backoff) < 0) break;
      backoff = std::min(backoff * 2, heartbeat_);
      continue;
    }

    listening_.store(true, std::memory_order_release);
    on_state_(true);
    spdlog::info("event=store_listener state=listening channel={}", channel_);
    warned = false;
    backoff = std::chrono::milliseconds(50);
    Clock::time_point heard = Clock::now();
    bool stopped = false;
    for (;;) {
      while (PGnotify* n = PQnotifies(conn.get())) {
        on_notify_(n->extra == nullptr ? "" : n->extra);
        PQfreemem(n);
      }
      const auto idle =
          std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - heard);
      const auto left = std::max(heartbeat_ - idle, std::chrono::milliseconds(0));
      const int rc = wait(PQsocket(conn.get()), left);
      if (rc < 0) {
        stopped = true;
        break;
      }
      if (rc > 0) {
        if (PQconsumeInput(conn.get()) == 0) break;
        heard = Clock::now();
        continue;
      }
      if (Clock::now() - heard >= heartbeat_) {
        ResultPtr r(PQexec(conn.get(), "SELECT 1"));
        if (!r || PQresultStatus(r.get()) != PGRES_TUPLES_OK ||
            PQstatus(conn.get()) != CONNECTION_OK) {
          break;
        }
        heard = Clock::now();
      }
    }
    listening_.store(false, std::memory_order_release);
    if (stopped) break;
    spdlog::warn("event=store_listener state=lost channel={} error=\"{}\"", channel_,
                 TrimMessage(PQerrorMessage(conn.get())));
    warned = true;
    on_state_(false);
  }
}

}  // namespace cairn::store::postgres
