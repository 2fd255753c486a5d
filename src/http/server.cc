// SPDX-License-Identifier: Apache-2.0
#include "http/server.h"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <filesystem>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <list>
#include <mutex>
#include <thread>
#include <vector>

#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <spdlog/spdlog.h>
#include <sys/syscall.h>

#include "common/deadline.h"
#include "common/util.h"
#include "http/asio.h"
#include "http/request_parser.h"
#include "http/response_head.h"

namespace cairn::http {

namespace asio = boost::asio;
using asio::awaitable;
using asio::use_awaitable;
using asio::ip::tcp;
namespace ssl = boost::asio::ssl;
// Connections run on the io_context's own executor, named by its type rather than through
// asio's type-erased `any_io_executor`, and on no strand: a connection's coroutine has one
// operation pending at a time, and what other threads do to it (a deadline passed, a shutdown)
// they do with shutdown(2) on its descriptor.
using Executor = asio::io_context::executor_type;
template <class T = void>
using Task = asio::awaitable<T, Executor>;
constexpr asio::use_awaitable_t<Executor> use_task;
using Socket = asio::basic_stream_socket<tcp, Executor>;
using TlsStream = ssl::stream<Socket>;
using Timer = asio::basic_waitable_timer<std::chrono::steady_clock,
                                         asio::wait_traits<std::chrono::steady_clock>, Executor>;

namespace {

// A TLS context from the configured files: TLS 1.2 or later, forward-secret AEAD suites for
// 1.2 (1.3's are all such), client certificates checked against the client CA when one is set.
Result<std::shared_ptr<ssl::context>> MakeTlsContext(const TlsOptions& o) {
  auto ctx = std::make_shared<ssl::context>(ssl::context::tls_server);
  boost::system::error_code ec;
  ctx->set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 |
                       ssl::context::no_sslv3 | ssl::context::no_tlsv1 |
                       ssl::context::no_tlsv1_1 | ssl::context::single_dh_use,
                   ec);
  SSL_CTX* native = ctx->native_handle();
  SSL_CTX_set_min_proto_version(native, TLS1_2_VERSION);
  SSL_CTX_set_cipher_list(native,
                          "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:"
                          "ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384:"
                          "ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305");
  SSL_CTX_set_options(native, SSL_OP_NO_RENEGOTIATION | SSL_OP_CIPHER_SERVER_PREFERENCE);
  ctx->use_certificate_chain_file(o.cert_file, ec);
  if (ec) {
    return InvalidArgument("cairn.server.tls.cert-file '{}' is not a usable PEM certificate: {}",
                           o.cert_file, ec.message());
  }
  // Refuses a key that is not the certificate's own ("key values mismatch") as well.
  ctx->use_private_key_file(o.key_file, ssl::context::pem, ec);
  if (ec) {
    return InvalidArgument(
        "cairn.server.tls.key-file '{}' is not a usable PEM private key of "
        "cairn.server.tls.cert-file: {}",
        o.key_file, ec.message());
  }
  if (!o.client_ca_file.empty()) {
    ctx->load_verify_file(o.client_ca_file, ec);
    STACK_OF(X509_NAME)* names = SSL_load_client_CA_file(o.client_ca_file.c_str());
    if (ec || names == nullptr) {
      return InvalidArgument("cairn.server.tls.client-ca-file '{}' holds no usable PEM "
                             "certificate{}",
                             o.client_ca_file, ec ? ": " + ec.message() : "");
    }
    SSL_CTX_set_client_CA_list(native, names);  // named to clients choosing a certificate
    ctx->set_verify_mode(ssl::verify_peer | (o.require_client_cert
                                                 ? ssl::verify_fail_if_no_peer_cert
                                                 : ssl::verify_none),
                         ec);
    static const unsigned char kSessionContext[] = "cairn";
    SSL_CTX_set_session_id_context(native, kSessionContext, sizeof(kSessionContext) - 1);
  }
  return ctx;
}

// The subject's common name of the certificate the handshake verified; empty when there is
// none (no client CA, or the client sent no certificate).
std::string VerifiedPeerCommonName(SSL* ssl) {
  X509* cert = SSL_get_peer_certificate(ssl);
  if (cert == nullptr) return {};
  std::string cn;
  if (SSL_get_verify_result(ssl) == X509_V_OK) {
    X509_NAME* subject = X509_get_subject_name(cert);
    const int index = X509_NAME_get_index_by_NID(subject, NID_commonName, -1);
    if (index >= 0) {
      ASN1_STRING* data = X509_NAME_ENTRY_get_data(X509_NAME_get_entry(subject, index));
      unsigned char* utf8 = nullptr;
      const int len = ASN1_STRING_to_UTF8(&utf8, data);
      if (len > 0) cn.assign(reinterpret_cast<const char*>(utf8), static_cast<size_t>(len));
      OPENSSL_free(utf8);
    }
  }
  X509_free(cert);
  return cn;
}

std::string NextRequestId() {
  static const std::string prefix = RandomUuid().substr(0, 8);
  static std::atomic<uint64_t> counter{0};
  // `<prefix>-<counter, at least 6 digits>`, built without a format string: one per request.
  char digits[24];
  uint64_t n = ++counter;
  size_t len = 0;
  do {
    digits[len++] = static_cast<char>('0' + n % 10);
    n /= 10;
  } while (n != 0);
  while (len < 6) digits[len++] = '0';
  std::string id;
  id.reserve(prefix.size() + 1 + len);
  id += prefix;
  id += '-';
  while (len > 0) id += digits[--len];
  return id;
}

/// An answer as sent: its head (status line and header), then the body's three parts (see
/// Response::spliced), so a cached metadata file goes from the cache to the socket without a
/// copy in between.
struct Answer {
  std::string head;
  std::string body;
  std::shared_ptr<const std::string> middle;
  std::string tail;

  std::array<std::string_view, 4> Parts() const {
    return {head, body, middle ? std::string_view(*middle) : std::string_view(), tail};
  }
};

/// Room a connection's read asks for at least: most requests fit whole, and an idle keep-alive
/// connection holds little more.
constexpr size_t kMinRead = 4096;

/// A connection's unread bytes: the request being read starts at `begin`.
class ReadBuffer {
 public:
  std::string_view Unread() const { return {data_.get() + begin_, end_ - begin_}; }
  /// The first `n` unread bytes have been used. A buffer a large request made large is let
  /// go once read: an idle keep-alive connection holds little.
  void Consume(size_t n) {
    begin_ += n;
    if (begin_ != end_) return;
    begin_ = end_ = 0;
    if (cap_ > kKeptCapacity) {
      data_.reset();
      cap_ = 0;
    }
  }
  /// Room for at least `min_free` more bytes after the unread ones, without making the whole
  /// larger than `max_size` (false: the unread bytes alone fill that).
  bool Reserve(size_t min_free, size_t max_size) {
    if (cap_ - end_ >= min_free) return true;
    const size_t unread = end_ - begin_;
    if (unread >= max_size) return false;
    const size_t want = std::min(max_size, std::max(unread + min_free, cap_ * 2));
    if (want <= cap_) {
      std::memmove(data_.get(), data_.get() + begin_, unread);
    } else {
      auto bigger = std::make_unique_for_overwrite<char[]>(want);
      if (unread > 0) std::memcpy(bigger.get(), data_.get() + begin_, unread);
      data_ = std::move(bigger);
      cap_ = want;
    }
    begin_ = 0;
    end_ = unread;
    return true;
  }
  asio::mutable_buffer Free() { return asio::buffer(data_.get() + end_, cap_ - end_); }
  void Commit(size_t n) { end_ += n; }

 private:
  static constexpr size_t kKeptCapacity = 64 * 1024;

  std::unique_ptr<char[]> data_;
  size_t cap_ = 0;
  size_t begin_ = 0;
  size_t end_ = 0;
};

using Strand = asio::strand<asio::io_context::executor_type>;

}  // namespace

/// Threading: a few threads (one per available CPU) run one io_context, more when handlers block
/// (see "threads" below). Each connection's coroutine calls the handler inline, so a request
/// costs no thread hand-off; a handler that blocks (fsync, a store round trip, S3) holds only
/// its own thread, and the others go on serving every other connection. The acceptor, the
/// signals and the shutdown state live on `control_`.
class Server::Impl {
 public:
  Impl(ServerOptions options, Handler handler, ErrorRenderer renderer)
      : options_(std::move(options)),
        handler_(std::move(handler)),
        renderer_(std::move(renderer)),
        io_(max_threads_),
        control_(asio::make_strand(io_)),
        acceptor_(control_),
        signals_(control_, SIGINT, SIGTERM) {}

  Status Listen() {
    if (options_.tls.enabled()) {
      CAIRN_ASSIGN_OR_RETURN(auto ctx, MakeTlsContext(options_.tls));
      std::lock_guard lock(tls_mu_);
      tls_ctx_ = std::move(ctx);
      tls_stamp_ = TlsFileStamp();
    }
    boost::system::error_code ec;
    auto address = asio::ip::make_address(options_.host, ec);
    if (ec) return InvalidArgument("cairn.server.host '{}' is not an IP address", options_.host);
    tcp::endpoint endpoint(address, static_cast<unsigned short>(options_.port));
    acceptor_.open(endpoint.protocol(), ec);
    if (!ec) acceptor_.set_option(asio::socket_base::reuse_address(true), ec);
    if (!ec) acceptor_.bind(endpoint, ec);
    if (!ec) acceptor_.listen(asio::socket_base::max_listen_connections, ec);
    if (ec) {
      return Unavailable("cannot listen on {}:{}: {}", options_.host, options_.port, ec.message());
    }
    port_ = acceptor_.local_endpoint().port();
    return Ok();
  }

  int port() const { return port_; }

  void Run() {
    // A write to a connection whose peer has gone raises SIGPIPE, which ends the process unless
    // ignored. asio's own sends pass MSG_NOSIGNAL, but sendfile(2) (WriteDirect) has no such
    // flag: the server ignores the signal, and the write fails with EPIPE instead.
    ::signal(SIGPIPE, SIG_IGN);
    signals_.async_wait([this](const boost::system::error_code& ec, int sig) {
      if (!ec) {
        spdlog::info("event=signal signal={}", sig);
        BeginShutdown();
      }
    });
    if (options_.tls.enabled()) {
      boost::system::error_code ec;
      hangup_.add(SIGHUP, ec);
      WaitForHangup();
      if (options_.tls.reload_interval_ms > 0) WatchTlsFiles();
    }
    asio::co_spawn(control_, AcceptLoop(), asio::detached);
    asio::post(control_, [this] { SweepDeadlines(); });
    slots_[0].alive.store(true, std::memory_order_release);  // this thread
    for (int i = 1; i < base_threads_; ++i) StartThread(/*spare=*/false);
    std::thread monitor([this] { MonitorThreads(); });
    RunThread(0, /*spare=*/false);
    {
      std::lock_guard lock(threads_mu_);
      monitor_stop_ = true;
    }
    monitor_cv_.notify_all();
    monitor.join();
    std::vector<std::thread> threads;
    {
      std::lock_guard lock(threads_mu_);
      threads.swap(threads_);
    }
    for (auto& t : threads) {
      if (t.joinable()) t.join();
    }
  }

  void Stop() {
    asio::post(control_, [this] { BeginShutdown(); });
  }

 private:
  /// One open connection, in the list `mu_` guards from its accept to its close.
  struct Connection {
    // The socket's descriptor; -1 once closed. Set and cleared under `mu_`, so that a
    // shutdown(2) made under `mu_` never reaches a descriptor reused by another connection.
    int fd = -1;
    std::atomic<bool> busy{false};  // a request is being handled or answered
    // When the pending read or write is given up (steady clock, ms); 0: none (a handler runs).
    // One sweep a little while for every connection, instead of a timer armed and cancelled
    // around each read and write.
    std::atomic<int64_t> deadline_ms{0};

    void ExpiresAfter(std::chrono::milliseconds after) {
      deadline_ms.store(NowMs() + after.count(), std::memory_order_relaxed);
    }
    void ExpiresNever() { deadline_ms.store(0, std::memory_order_relaxed); }
  };

  static int64_t NowMs() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }

  // On control_: shuts down every connection past its deadline, which ends its pending read or
  // write (end of stream, or EPIPE) and so its session.
  void SweepDeadlines() {
    auto timer = std::make_shared<asio::steady_timer>(control_);
    timer->expires_after(SweepInterval());
    timer->async_wait([this, timer](const boost::system::error_code& ec) {
      if (ec) return;
      const int64_t now = NowMs();
      {
        std::lock_guard<std::mutex> lock(mu_);
        if (stopping_ && connections_.empty()) return;  // the loop may end now
        for (const auto& c : connections_) {
          const int64_t deadline = c->deadline_ms.load(std::memory_order_relaxed);
          if (deadline == 0 || deadline > now || c->fd < 0) continue;
          ::shutdown(c->fd, SHUT_RDWR);
        }
      }
      SweepDeadlines();
    });
    sweep_timer_ = timer;
  }

  // A tenth of the idle timeout, within 20 ms to 1 s: a connection is given up at most that
  // long after its deadline.
  std::chrono::milliseconds SweepInterval() const {
    return std::chrono::milliseconds(std::clamp(options_.idle_timeout_ms / 10, 20, 1000));
  }

  // ---- threads ----
  // `base_threads_` threads (one per CPU this process may run on) always run the io_context.
  // Handlers run inline, so while they compute, more threads would only contend. But a handler
  // may block (fsync, a store round trip, S3, a remote catalog). When every running thread has
  // been inside the same handler since the monitor's last look and is asleep in the kernel (per
  // /proc/self/task/<tid>/stat; a thread that is computing or merely preempted does not count),
  // the monitor starts a spare thread, up to `worker_threads` in all. A spare that has run no
  // handler for kSpareIdle retires, and the monitor retires spares one at a time once no thread
  // has been blocked for about kLooksBeforeRetiring looks.
  struct ThreadSlot {
    std::atomic<bool> alive{false};
    std::atomic<bool> spare{false};
    std::atomic<bool> retire{false};  // set by the monitor: a spare that is no longer needed
    std::atomic<pid_t> tid{0};
    std::atomic<bool> in_handler{false};
    std::atomic<uint64_t> handlers{0};  // handler invocations started on this thread
  };
  static constexpr auto kMonitorInterval = std::chrono::milliseconds(1);
  static constexpr auto kSpareIdle = std::chrono::milliseconds(1000);
  static constexpr auto kSpareSlice = std::chrono::milliseconds(10);
  static constexpr int kLooksBeforeRetiring = 100;  // ~100 ms with no blocked thread
  static thread_local ThreadSlot* current_slot_;

  // The monitor's open /proc/self/task/<tid>/stat of one thread, read again from its start at
  // each look: opening the file each time (a procfs path walk) cost more than reading it.
  class ThreadStat {
   public:
    ThreadStat() = default;
    ThreadStat(const ThreadStat&) = delete;
    ThreadStat& operator=(const ThreadStat&) = delete;
    ~ThreadStat() { Close(); }

    // True when thread `tid` is asleep in the kernel (waiting on I/O, a lock or the network),
    // as opposed to running or waiting for a CPU: only then would another thread get more done.
    bool Blocked(pid_t tid) {
      if (tid != tid_) {
        Close();
        char path[64];
        std::snprintf(path, sizeof(path), "/proc/self/task/%d/stat", static_cast<int>(tid));
        fd_ = ::open(path, O_RDONLY | O_CLOEXEC);
        tid_ = fd_ < 0 ? 0 : tid;
      }
      if (fd_ < 0) return false;
      char buf[512];
      const ssize_t n = ::pread(fd_, buf, sizeof(buf) - 1, 0);
      if (n <= 0) {  // the thread has gone
        Close();
        return false;
      }
      buf[n] = '\0';
      const char* close_paren = std::strrchr(buf, ')');  // the name may contain spaces or ')'
      if (close_paren == nullptr || close_paren[1] != ' ') return false;
      const char state = close_paren[2];
      return state == 'S' || state == 'D';
    }

   private:
    void Close() {
      if (fd_ >= 0) ::close(fd_);
      fd_ = -1;
      tid_ = 0;
    }
    int fd_ = -1;
    pid_t tid_ = 0;
  };

  static int CpusAvailable() {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof(set), &set) == 0) return std::max(1, CPU_COUNT(&set));
    return static_cast<int>(std::max(1U, std::thread::hardware_concurrency()));
  }

  // Caller holds threads_mu_ or is the only thread (before Run starts others).
  int FreeSlot() const {
    for (size_t i = 0; i < slots_.size(); ++i) {
      if (!slots_[i].alive.load(std::memory_order_acquire)) return static_cast<int>(i);
    }
    return -1;
  }

  // Starts a thread in a free slot; false when all are taken. Caller holds threads_mu_.
  bool StartThreadLocked(bool spare) {
    const int slot = FreeSlot();
    if (slot < 0) return false;
    std::thread& previous = threads_[static_cast<size_t>(slot)];
    if (previous.joinable()) previous.join();  // a retired spare: it has finished, or is about to
    ThreadSlot& s = slots_[static_cast<size_t>(slot)];
    s.spare.store(spare, std::memory_order_relaxed);
    s.retire.store(false, std::memory_order_relaxed);
    s.alive.store(true, std::memory_order_release);
    previous = std::thread([this, slot, spare] { RunThread(slot, spare); });
    return true;
  }

  bool StartThread(bool spare) {
    std::lock_guard lock(threads_mu_);
    return StartThreadLocked(spare);
  }

  void RunThread(int slot_index, bool spare) {
    ThreadSlot& slot = slots_[static_cast<size_t>(slot_index)];
    slot.tid.store(static_cast<pid_t>(::syscall(SYS_gettid)), std::memory_order_relaxed);
    slot.alive.store(true, std::memory_order_release);
    current_slot_ = &slot;
    if (!spare) {
      io_.run();
    } else {
      // Runs in short slices, to notice a retire request; retires by itself when idle.
      auto last_handler = std::chrono::steady_clock::now();
      uint64_t seen = slot.handlers.load(std::memory_order_relaxed);
      while (!io_.stopped() && !slot.retire.load(std::memory_order_relaxed)) {
        io_.run_for(kSpareSlice);
        const uint64_t n = slot.handlers.load(std::memory_order_relaxed);
        const auto now = std::chrono::steady_clock::now();
        if (n != seen) {
          seen = n;
          last_handler = now;
        } else if (now - last_handler >= kSpareIdle) {
          break;
        }
      }
    }
    current_slot_ = nullptr;
    slot.alive.store(false, std::memory_order_release);
  }

  void MonitorThreads() {
    std::vector<uint64_t> seen(slots_.size(), 0);
    std::vector<ThreadStat> stats(slots_.size());
    std::vector<size_t> candidates;  // in the same handler as at the last look
    int calm_looks = 0;  // consecutive looks with no blocked thread
    std::unique_lock lock(threads_mu_);
    while (!monitor_stop_) {
      // Idle servers are looked at rarely; busy ones every kMonitorInterval.
      const bool busy = handlers_running_.load(std::memory_order_relaxed) > 0;
      monitor_cv_.wait_for(lock, busy ? kMonitorInterval : 20 * kMonitorInterval);
      if (monitor_stop_) break;
      int running = 0;
      int spare_slot = -1;
      candidates.clear();
      for (size_t i = 0; i < slots_.size(); ++i) {
        const ThreadSlot& slot = slots_[i];
        const uint64_t n = slot.handlers.load(std::memory_order_relaxed);
        if (slot.alive.load(std::memory_order_acquire)) {
          ++running;
          if (slot.spare.load(std::memory_order_relaxed) &&
              !slot.retire.load(std::memory_order_relaxed)) {
            spare_slot = static_cast<int>(i);
          }
          if (slot.in_handler.load(std::memory_order_relaxed) && n == seen[i]) {
            candidates.push_back(i);
          }
        }
        seen[i] = n;
      }
      // In the same handler as at the last look, and asleep in the kernel: blocked. Only two
      // things are decided, so the kernel is asked no more than they need: whether every
      // running thread is blocked (a spare starts), and, while a spare runs, whether any is
      // (the spare stays).
      const bool all_candidates = candidates.size() == static_cast<size_t>(running);
      bool all_blocked = running > 0 && all_candidates;
      bool any_blocked = false;
      for (size_t i : candidates) {
        if (!all_blocked && (any_blocked || spare_slot < 0)) break;
        if (stats[i].Blocked(slots_[i].tid.load(std::memory_order_relaxed))) {
          any_blocked = true;
        } else {
          all_blocked = false;
        }
      }
      if (all_blocked && !stopping_) StartThreadLocked(/*spare=*/true);
      // Nothing blocked for a while: spares only compete for the CPUs now; let one go.
      calm_looks = any_blocked ? 0 : calm_looks + 1;
      if (calm_looks >= kLooksBeforeRetiring && spare_slot >= 0) {
        slots_[static_cast<size_t>(spare_slot)].retire.store(true, std::memory_order_relaxed);
        calm_looks = 0;
      }
    }
  }

  Response RunHandler(const Request& request) {
    ThreadSlot* slot = current_slot_;
    handlers_running_.fetch_add(1, std::memory_order_relaxed);
    if (slot != nullptr) {
      slot->handlers.fetch_add(1, std::memory_order_relaxed);
      slot->in_handler.store(true, std::memory_order_relaxed);
    }
    Response response;
    {
      DeadlineScope deadline(std::chrono::milliseconds(options_.request_deadline_ms));
      response = CallHandler(request);
    }
    if (slot != nullptr) slot->in_handler.store(false, std::memory_order_relaxed);
    handlers_running_.fetch_sub(1, std::memory_order_relaxed);
    return response;
  }

  // ---- TLS files ----
  // The change times of the three files, to notice a new certificate without a signal.
  std::vector<std::filesystem::file_time_type> TlsFileStamp() const {
    std::vector<std::filesystem::file_time_type> out;
    for (const auto* f : {&options_.tls.cert_file, &options_.tls.key_file,
                          &options_.tls.client_ca_file}) {
      std::error_code ec;
      out.push_back(f->empty() ? std::filesystem::file_time_type{}
                               : std::filesystem::last_write_time(*f, ec));
    }
    return out;
  }

  // Rebuilds the TLS context from the files; a file that cannot be used leaves the current
  // context serving (a half-written certificate is never put in front of clients).
  void ReloadTls(std::string_view why) {
    auto stamp = TlsFileStamp();
    auto ctx = MakeTlsContext(options_.tls);
    if (!ctx) {
      spdlog::error("event=tls_reload_failed trigger={} error=\"{}\" action=kept_current", why,
                    ctx.error().message);
      std::lock_guard lock(tls_mu_);
      tls_stamp_ = std::move(stamp);  // not tried again until a file changes again
      return;
    }
    std::lock_guard lock(tls_mu_);
    tls_ctx_ = std::move(*ctx);
    tls_stamp_ = std::move(stamp);
    ++tls_generation_;
    spdlog::info("event=tls_reloaded trigger={} generation={}", why, tls_generation_);
  }

  // On control_.
  void WaitForHangup() {
    hangup_.async_wait([this](const boost::system::error_code& ec, int) {
      if (ec || stopping_) return;
      ReloadTls("SIGHUP");
      WaitForHangup();
    });
  }

  // On control_.
  void WatchTlsFiles() {
    auto timer = std::make_shared<asio::steady_timer>(control_);
    timer->expires_after(std::chrono::milliseconds(options_.tls.reload_interval_ms));
    timer->async_wait([this, timer](const boost::system::error_code& ec) {
      if (ec || stopping_) return;
      const auto stamp = TlsFileStamp();  // stat the files outside the lock
      bool changed = false;
      {
        std::lock_guard lock(tls_mu_);
        changed = stamp != tls_stamp_;
      }
      if (changed) ReloadTls("file_change");
      WatchTlsFiles();
    });
    tls_watch_ = timer;
  }

  std::shared_ptr<ssl::context> CurrentTlsContext() {
    std::lock_guard lock(tls_mu_);
    return tls_ctx_;
  }

  // On control_.
  void BeginShutdown() {
    if (stopping_.exchange(true)) return;
    boost::system::error_code ec;
    acceptor_.close(ec);
    signals_.cancel(ec);
    hangup_.cancel(ec);
    if (tls_watch_) tls_watch_->cancel();
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (const auto& c : connections_) {
        // Idle connections are waiting for a request: end their reading, so that they see the
        // end of the stream and close. One that has just begun a request still answers it
        // (only reading is shut) and then closes.
        if (c->fd >= 0 && !c->busy.load(std::memory_order_relaxed)) ::shutdown(c->fd, SHUT_RD);
      }
    }
    // Requests still running get a grace period; after it the loop is stopped hard.
    auto timer = std::make_shared<asio::steady_timer>(control_);
    timer->expires_after(std::chrono::milliseconds(options_.shutdown_grace_ms));
    timer->async_wait([this, timer](const boost::system::error_code& e) {
      if (e) return;
      std::lock_guard<std::mutex> lock(mu_);
      if (!connections_.empty()) {
        spdlog::warn("event=shutdown_forced open_connections={} handlers_running={}",
                     connections_.size(), handlers_running_.load(std::memory_order_relaxed));
        io_.stop();
        // A handler that does not return cannot be stopped from outside its thread; the
        // process ends without it shortly after.
        std::thread([this] {
          for (int i = 0; i < 20; ++i) {
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
            if (handlers_running_.load(std::memory_order_relaxed) == 0) return;
          }
          spdlog::warn("event=shutdown_exit handlers_running={}",
                       handlers_running_.load(std::memory_order_relaxed));
          spdlog::default_logger()->flush();
          std::_Exit(0);
        }).detach();
      }
    });
    grace_timer_ = timer;
    MaybeFinish();
  }

  // On control_.
  void MaybeFinish() {
    bool idle = false;
    {
      std::lock_guard<std::mutex> lock(mu_);
      idle = connections_.empty();
    }
    if (stopping_ && idle && grace_timer_) {
      grace_timer_->cancel();
      grace_timer_.reset();
    }
    if (stopping_ && idle && sweep_timer_) {
      sweep_timer_->cancel();
      sweep_timer_.reset();
    }
  }

  awaitable<void> AcceptLoop() {
    while (!stopping_) {
      boost::system::error_code ec;
      Socket socket(io_.get_executor());
      co_await acceptor_.async_accept(socket, asio::redirect_error(use_awaitable, ec));
      if (ec) {
        if (stopping_) break;
        spdlog::warn("event=accept_failed error=\"{}\"", ec.message());
        continue;
      }
      socket.set_option(tcp::no_delay(true), ec);
      auto connection = std::make_shared<Connection>();
      {
        std::lock_guard<std::mutex> lock(mu_);
        connection->fd = socket.native_handle();
        connections_.push_back(connection);
      }
      if (options_.tls.enabled()) {
        asio::co_spawn(io_.get_executor(),
                       TlsSession(std::move(socket), connection, CurrentTlsContext()),
                       asio::detached);
      } else {
        asio::co_spawn(io_.get_executor(), Session(std::move(socket), connection),
                       asio::detached);
      }
    }
  }

  Response RenderError(int status, std::string_view message, const Request& partial) {
    try {
      return renderer_(status, message, partial);
    } catch (...) {
      Response r;
      r.status = status;
      r.content_type = "text/plain";
      r.body = std::string(message);
      return r;
    }
  }

  Response CallHandler(const Request& request) {
    try {
      return handler_(request);
    } catch (const std::exception& e) {
      spdlog::error("event=handler_exception request_id={} error=\"{}\"", request.request_id,
                    e.what());
    } catch (...) {
      spdlog::error("event=handler_exception request_id={} error=unknown", request.request_id);
    }
    return RenderError(500, "Internal error while handling the request", request);
  }

  static Answer MakeAnswer(Response&& r, bool http11, bool keep_alive,
                           const std::string& request_id, bool head = false) {
    Answer answer;
    answer.head = ResponseHead(r, http11, keep_alive, request_id);
    // A HEAD answer has the GET answer's header and no body (RFC 9110 9.3.2); a body sent
    // anyway would be read as the start of the next answer on the connection. Metadata
    // documents are large: moved or shared, never copied.
    if (!head) {
      answer.body = std::move(r.body);
      answer.middle = std::move(r.spliced);
      answer.tail = std::move(r.body_tail);
    }
    return answer;
  }

  static std::string RemoteOf(Socket& socket) {
    boost::system::error_code ec;
    auto ep = socket.remote_endpoint(ec);
    return ec ? std::string() : ep.address().to_string();
  }

  Task<> Session(Socket socket, std::shared_ptr<Connection> self) {
    const std::string remote = RemoteOf(socket);
    // The descriptor itself non-blocking (asio's own operations behave the same either way), so
    // that WriteDirect's sendmsg and sendfile(2) send what the socket takes now and never wait.
    boost::system::error_code ignored;
    socket.native_non_blocking(true, ignored);
    co_await Serve(socket, *self, remote, std::string());
    Close(socket, self);
  }

  // `ctx` is held for as long as the connection lives: a reload replaces the server's current
  // context, never the one an open connection uses.
  Task<> TlsSession(Socket socket, std::shared_ptr<Connection> self,
                    std::shared_ptr<ssl::context> ctx) {
    TlsStream stream(std::move(socket), *ctx);
    Socket& tcp = stream.next_layer();
    const std::string remote = RemoteOf(tcp);
    boost::system::error_code ec;
    self->ExpiresAfter(std::chrono::milliseconds(std::min(options_.idle_timeout_ms, 10'000)));
    co_await stream.async_handshake(ssl::stream_base::server, asio::redirect_error(use_task, ec));
    if (ec) {
      // A client that does not trust us, a certificate we do not trust, plain HTTP on a TLS
      // port, a scanner: nothing to answer in any protocol's format.
      spdlog::info("event=tls_handshake_failed remote={} error=\"{}\"", remote, ec.message());
    } else {
      co_await Serve(stream, *self, remote, VerifiedPeerCommonName(stream.native_handle()));
      self->ExpiresAfter(std::chrono::seconds(1));
      co_await stream.async_shutdown(asio::redirect_error(use_task, ec));
    }
    Close(tcp, self);
  }

  void Close(Socket& socket, const std::shared_ptr<Connection>& self) {
    {
      // Out of the list before the descriptor is closed: nothing shuts down a reused one.
      std::lock_guard<std::mutex> lock(mu_);
      connections_.remove(self);
      self->fd = -1;
    }
    boost::system::error_code ignored;
    socket.shutdown(tcp::socket::shutdown_send, ignored);
    socket.close(ignored);
    if (stopping_) asio::post(control_, [this] { MaybeFinish(); });
  }

  // Reads requests from one connection and answers them until it closes, errs or idles out.
  template <class Stream>
  Task<> Serve(Stream& stream, Connection& self, const std::string& remote,
               const std::string& client_cn) {
    ReadBuffer buffer;
    const auto idle = std::chrono::milliseconds(options_.idle_timeout_ms);
    // The most one request may hold of the connection's bytes: its header, and its body with
    // room for the chunked coding's own lines.
    const size_t max_request_bytes =
        options_.max_header_bytes + options_.max_body_bytes + options_.max_body_bytes / 2 + 65536;
    while (!stopping_) {
      RequestParser parser(options_.max_header_bytes, options_.max_body_bytes);
      RequestParser::State state = parser.Parse(buffer.Unread());
      bool continued = false;
      boost::system::error_code ec;
      while (state == RequestParser::State::kNeedMore) {
        if (parser.expects_continue() && !continued) {
          // The client waits for this before it sends the body (RFC 9110 10.1.1).
          continued = true;
          static constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
          self.ExpiresAfter(idle);
          co_await asio::async_write(stream, asio::buffer(kContinue.data(), kContinue.size()),
                                     asio::redirect_error(use_task, ec));
          if (ec) break;
        }
        if (!buffer.Reserve(kMinRead, max_request_bytes)) {
          state = parser.TooLarge();
          break;
        }
        self.ExpiresAfter(idle);
        const size_t n =
            co_await stream.async_read_some(buffer.Free(), asio::redirect_error(use_task, ec));
        if (ec) break;  // closed, reset or idle: nothing to answer
        buffer.Commit(n);
        state = parser.Parse(buffer.Unread());
      }
      if (state == RequestParser::State::kNeedMore) break;
      if (state == RequestParser::State::kError) {
        Request partial;
        partial.method = parser.request().method;
        partial.target = parser.request().target;
        std::vector<std::pair<std::string, std::string>> ignored_query;
        ParseTarget(partial.target, partial.path, ignored_query);
        partial.request_id = NextRequestId();
        partial.remote_address = remote;
        partial.received = std::chrono::steady_clock::now();
        Answer answer = MakeAnswer(
            RenderError(parser.error_status(), parser.error_message(), partial), true, false,
            partial.request_id);
        self.ExpiresAfter(std::chrono::seconds(10));
        co_await WriteAnswer(stream, answer, nullptr, ec);
        co_await Drain(stream, self);
        break;
      }
      self.busy.store(true, std::memory_order_relaxed);
      Request request = std::move(parser.request());
      buffer.Consume(parser.consumed());
      request.request_id = NextRequestId();
      request.remote_address = remote;
      request.client_certificate_cn = client_cn;
      const bool keep_alive = parser.keep_alive();
      const bool http11 = parser.http11();
      const auto started = std::chrono::steady_clock::now();
      request.received = started;
      const bool parsed = ParseTarget(request.target, request.path, request.query);
      if (parsed) self.ExpiresNever();
      // Made in place: no default answer built and then replaced on every request.
      Response response =
          parsed ? RunHandler(request)  // inline: the thread that resumed this coroutine
                 : RenderError(400, "Malformed percent-encoding in the request target", request);
      const auto micros = std::chrono::duration_cast<std::chrono::microseconds>(
                              std::chrono::steady_clock::now() - started)
                              .count();
      spdlog::info(
          "event=request request_id={} remote={} method={} path=\"{}\" status={} micros={}",
          request.request_id, remote, request.method, request.path, response.status, micros);
      if (response.hold_ms > 0 && !stopping_) {
        Timer hold(co_await asio::this_coro::executor);
        hold.expires_after(std::chrono::milliseconds(response.hold_ms));
        co_await hold.async_wait(asio::redirect_error(use_task, ec));
      }
      std::shared_ptr<const OpenFile> file = std::move(response.spliced_file);
      Answer answer = MakeAnswer(std::move(response), http11, keep_alive && !stopping_,
                                 request.request_id, request.method == "HEAD");
      const bool from_file = file && answer.middle && file->size() == answer.middle->size();
      self.ExpiresAfter(idle);
      co_await WriteAnswer(stream, answer, from_file ? file.get() : nullptr, ec);
      self.busy.store(false, std::memory_order_relaxed);
      if (ec || !keep_alive) break;
    }
  }

  // Sends `answer`: over plain TCP by WriteDirect, over TLS through the stream.
  template <class Stream>
  static Task<> WriteAnswer(Stream& stream, const Answer& answer, const OpenFile* file,
                            boost::system::error_code& ec) {
    if constexpr (std::is_same_v<Stream, Socket>) {
      co_await WriteDirect(stream, answer, file, ec);
    } else {
      const auto parts = answer.Parts();
      std::array<asio::const_buffer, 4> buffers;
      for (size_t i = 0; i < parts.size(); ++i) {
        buffers[i] = asio::buffer(parts[i].data(), parts[i].size());
      }
      co_await asio::async_write(stream, buffers, asio::redirect_error(use_task, ec));
    }
  }

  // Sends `answer` over plain TCP with the socket's own calls, as far as the socket takes it
  // now, and the rest through the socket from memory (so a slow reader is served under the
  // connection's deadline like any other answer). The head, body, document and tail go out with one
  // sendmsg. When `file` is given, its content is the spliced document: the head and body go
  // with one sendmsg, the document by sendfile(2) from the file (the kernel sends the page
  // cache's pages; no copy from user space), then the tail.
  static Task<> WriteDirect(Socket& tcp, const Answer& answer, const OpenFile* file,
                            boost::system::error_code& ec) {
    // The answer's parts in order, and how much of each has been sent.
    const std::array<std::string_view, 4> parts = answer.Parts();
    const std::string_view middle = parts[2];
    std::array<size_t, 4> sent{};
    // Counts `n` bytes sent from the first `count` parts, in order.
    auto advance = [&](size_t n, size_t count) {
      for (size_t i = 0; i < count && n > 0; ++i) {
        const size_t take = std::min(n, parts[i].size() - sent[i]);
        sent[i] += take;
        n -= take;
      }
    };
    const int fd = tcp.native_handle();
    // A call that failed for another reason than a full socket ends the answer with its errno.
    auto failed = [&ec](ssize_t n) {
      if (n >= 0 || errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) return false;
      ec = boost::system::error_code(errno, boost::system::system_category());
      return true;
    };
    auto send_parts = [&](size_t count, int more) {
      std::array<iovec, 4> iov{};
      for (size_t i = 0; i < count; ++i) {
        iov[i] = iovec{const_cast<char*>(parts[i].data()), parts[i].size()};
      }
      msghdr msg{};
      msg.msg_iov = iov.data();
      msg.msg_iovlen = count;
      const ssize_t n = ::sendmsg(fd, &msg, MSG_DONTWAIT | MSG_NOSIGNAL | more);
      if (failed(n)) return false;
      advance(n > 0 ? static_cast<size_t>(n) : 0, count);
      return true;
    };
    if (file == nullptr) {
      if (!send_parts(parts.size(), 0)) co_return;
    } else {
      if (!send_parts(2, MSG_MORE)) co_return;
      if (sent[0] == parts[0].size() && sent[1] == parts[1].size()) {
        off_t offset = 0;
        while (static_cast<size_t>(offset) < middle.size()) {
          const ssize_t m =
              ::sendfile(fd, file->fd(), &offset, middle.size() - static_cast<size_t>(offset));
          if (m > 0 || (m < 0 && errno == EINTR)) continue;
          if (failed(m)) co_return;
          break;  // the socket is full (or the file ended early): the rest from memory
        }
        sent[2] = static_cast<size_t>(offset);
        if (sent[2] == middle.size() && !parts[3].empty()) {
          const ssize_t t =
              ::send(fd, parts[3].data(), parts[3].size(), MSG_DONTWAIT | MSG_NOSIGNAL);
          if (failed(t)) co_return;
          sent[3] = t > 0 ? static_cast<size_t>(t) : 0;
        }
      }
    }
    std::array<asio::const_buffer, 4> rest;
    for (size_t i = 0; i < parts.size(); ++i) {
      rest[i] = asio::buffer(parts[i].data(), parts[i].size()) + sent[i];
    }
    if (asio::buffer_size(rest) > 0) {
      co_await asio::async_write(tcp, rest, asio::redirect_error(use_task, ec));
    }
  }

  // After an early error response, read and discard what the client is still sending (bounded)
  // so it sees our response instead of a connection reset.
  template <class Stream>
  static Task<> Drain(Stream& stream, Connection& self) {
    boost::system::error_code ec;
    // Plain TCP can half-close; TLS cannot (its close is a message of its own, sent after).
    if constexpr (std::is_same_v<Stream, Socket>) {
      stream.shutdown(tcp::socket::shutdown_send, ec);
    }
    std::array<char, 64 * 1024> scratch{};
    size_t total = 0;
    self.ExpiresAfter(std::chrono::seconds(5));
    while (total < 256 * 1024 * 1024) {
      const size_t n = co_await stream.async_read_some(asio::buffer(scratch),
                                                       asio::redirect_error(use_task, ec));
      if (ec) break;
      total += n;
    }
  }

  ServerOptions options_;
  Handler handler_;
  ErrorRenderer renderer_;
  const int max_threads_ = std::max(1, options_.worker_threads);
  const int base_threads_ = std::min(max_threads_, CpusAvailable());
  std::vector<ThreadSlot> slots_{static_cast<size_t>(max_threads_)};
  std::mutex threads_mu_;
  std::vector<std::thread> threads_{static_cast<size_t>(max_threads_)};  // by slot; threads_mu_
  bool monitor_stop_ = false;                                            // guarded by threads_mu_
  std::condition_variable monitor_cv_;
  std::atomic<int> handlers_running_{0};
  asio::io_context io_;
  Strand control_;
  tcp::acceptor acceptor_;
  asio::signal_set signals_;
  asio::signal_set hangup_{control_};  // SIGHUP, with TLS only
  std::mutex tls_mu_;
  std::shared_ptr<ssl::context> tls_ctx_;                    // guarded by tls_mu_
  std::vector<std::filesystem::file_time_type> tls_stamp_;  // guarded by tls_mu_
  uint64_t tls_generation_ = 0;                               // guarded by tls_mu_
  std::shared_ptr<asio::steady_timer> tls_watch_;             // control_ only
  std::mutex mu_;
  std::list<std::shared_ptr<Connection>> connections_;  // guarded by mu_
  std::atomic<bool> stopping_{false};
  std::shared_ptr<asio::steady_timer> grace_timer_;  // control_ only
  std::shared_ptr<asio::steady_timer> sweep_timer_;  // control_ only
  int port_ = 0;
};

thread_local Server::Impl::ThreadSlot* Server::Impl::current_slot_ = nullptr;

Server::Server(ServerOptions options, Handler handler, ErrorRenderer error_renderer)
    : impl_(std::make_unique<Impl>(std::move(options), std::move(handler),
                                   std::move(error_renderer))) {}
Server::~Server() = default;
Status Server::Listen() { return impl_->Listen(); }
int Server::port() const { return impl_->port(); }
void Server::Run() { impl_->Run(); }
void Server::Stop() { impl_->Stop(); }

}  // namespace cairn::http
