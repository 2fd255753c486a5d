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

namespace cairn::http {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
using asio::awaitable;
using asio::use_awaitable;
using asio::ip::tcp;
namespace ssl = boost::asio::ssl;
using TlsStream = beast::ssl_stream<beast::tcp_stream>;

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

/// A response body sent as up to three buffers: `head`, a shared immutable document, `tail`
/// (see Response::spliced). Beast hands them to one writev together with the header, so a
/// cached metadata file goes from the cache to the socket without a copy in between.
struct SplicedBody {
  struct value_type {
    std::string head;
    std::shared_ptr<const std::string> middle;
    std::string tail;
  };

  static std::uint64_t size(const value_type& v) {
    return v.head.size() + (v.middle ? v.middle->size() : 0) + v.tail.size();
  }

  class writer {
   public:
    using const_buffers_type = std::array<asio::const_buffer, 3>;

    template <bool isRequest, class Fields>
    writer(const bhttp::header<isRequest, Fields>& /*header*/, const value_type& body)
        : body_(body) {}

    void init(boost::system::error_code& ec) { ec = {}; }

    boost::optional<std::pair<const_buffers_type, bool>> get(boost::system::error_code& ec) {
      ec = {};
      if (sent_) return boost::none;
      sent_ = true;
      const_buffers_type buffers{asio::buffer(body_.head),
                                 body_.middle ? asio::buffer(*body_.middle) : asio::const_buffer(),
                                 asio::buffer(body_.tail)};
      return std::make_pair(buffers, false);
    }

   private:
    const value_type& body_;
    bool sent_ = false;
  };
};

using Strand = asio::strand<asio::io_context::executor_type>;

}  // namespace

/// Threading: a few threads (one per available CPU) run one io_context, more when handlers block
/// (see "threads" below). Each connection lives on a strand of its own and calls the handler
/// inline, so a request costs no thread hand-off; a handler that blocks (fsync, a store round
/// trip, S3) holds only its own thread, and the others go on serving every other connection. The
/// acceptor, the signals and the shutdown state live on `control_`.
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
  /// One open connection. Its fields are touched only on the connection's strand; the list of
  /// connections that holds it is guarded by `mu_`.
  struct Connection {
    explicit Connection(Strand s) : strand(std::move(s)) {}
    Strand strand;
    beast::tcp_stream* stream = nullptr;  // null once the session has closed it
    bool busy = false;                    // a request is being handled or answered
  };

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
        // Idle connections are waiting for a request: wake them so they see stopping_.
        asio::post(c->strand, [c] {
          boost::system::error_code ignored;
          if (c->stream != nullptr && !c->busy) c->stream->socket().cancel(ignored);
        });
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
  }

  awaitable<void> AcceptLoop() {
    while (!stopping_) {
      boost::system::error_code ec;
      Strand strand = asio::make_strand(io_);
      tcp::socket socket(strand);
      co_await acceptor_.async_accept(socket, asio::redirect_error(use_awaitable, ec));
      if (ec) {
        if (stopping_) break;
        spdlog::warn("event=accept_failed error=\"{}\"", ec.message());
        continue;
      }
      socket.set_option(tcp::no_delay(true), ec);
      auto connection = std::make_shared<Connection>(strand);
      {
        std::lock_guard<std::mutex> lock(mu_);
        connections_.push_back(connection);
      }
      if (options_.tls.enabled()) {
        asio::co_spawn(strand, TlsSession(std::move(socket), connection, CurrentTlsContext()),
                       asio::detached);
      } else {
        asio::co_spawn(strand, Session(std::move(socket), connection), asio::detached);
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

  static bhttp::response<SplicedBody> ToBeast(Response&& r, unsigned version, bool keep_alive,
                                              const std::string& request_id, bool head = false) {
    bhttp::response<SplicedBody> res{static_cast<bhttp::status>(r.status), version};
    res.set(bhttp::field::server, "cairn");
    if ((r.BodySize() > 0 || r.status != 200) && !r.content_type.empty()) {
      res.set(bhttp::field::content_type, r.content_type);
    }
    res.set("X-Request-Id", request_id);
    for (const auto& [k, v] : r.headers) res.set(k, v);
    res.keep_alive(keep_alive);
    // Metadata documents are large: moved or shared, never copied.
    res.body().head = std::move(r.body);
    res.body().middle = std::move(r.spliced);
    res.body().tail = std::move(r.body_tail);
    if (head) {
      // A HEAD answer has the GET answer's headers and no body (RFC 9110 9.3.2); a body sent
      // anyway would be read as the start of the next answer on the connection.
      const auto size = SplicedBody::size(res.body());
      res.body() = {};
      res.prepare_payload();  // 204 and 304 carry no Content-Length at all
      if (r.status != 204 && r.status != 304) res.content_length(size);
      return res;
    }
    res.prepare_payload();
    return res;
  }

  static std::string RemoteOf(beast::tcp_stream& stream) {
    boost::system::error_code ec;
    auto ep = stream.socket().remote_endpoint(ec);
    return ec ? std::string() : ep.address().to_string();
  }

  awaitable<void> Session(tcp::socket socket, std::shared_ptr<Connection> self) {
    beast::tcp_stream stream(std::move(socket));
    self->stream = &stream;
    const std::string remote = RemoteOf(stream);
    // The descriptor itself non-blocking (asio's own operations behave the same either way), so
    // that WriteDirect's sendmsg and sendfile(2) send what the socket takes now and never wait.
    boost::system::error_code ignored;
    stream.socket().native_non_blocking(true, ignored);
    co_await Serve(stream, *self, remote, std::string());
    Close(stream, self);
  }

  // `ctx` is held for as long as the connection lives: a reload replaces the server's current
  // context, never the one an open connection uses.
  awaitable<void> TlsSession(tcp::socket socket, std::shared_ptr<Connection> self,
                             std::shared_ptr<ssl::context> ctx) {
    TlsStream stream(beast::tcp_stream(std::move(socket)), *ctx);
    beast::tcp_stream& tcp = beast::get_lowest_layer(stream);
    self->stream = &tcp;
    const std::string remote = RemoteOf(tcp);
    boost::system::error_code ec;
    tcp.expires_after(std::chrono::milliseconds(std::min(options_.idle_timeout_ms, 10'000)));
    co_await stream.async_handshake(ssl::stream_base::server,
                                    asio::redirect_error(use_awaitable, ec));
    if (ec) {
      // A client that does not trust us, a certificate we do not trust, plain HTTP on a TLS
      // port, a scanner: nothing to answer in any protocol's format.
      spdlog::info("event=tls_handshake_failed remote={} error=\"{}\"", remote, ec.message());
    } else {
      co_await Serve(stream, *self, remote, VerifiedPeerCommonName(stream.native_handle()));
      tcp.expires_after(std::chrono::seconds(1));
      co_await stream.async_shutdown(asio::redirect_error(use_awaitable, ec));
    }
    Close(tcp, self);
  }

  void Close(beast::tcp_stream& stream, const std::shared_ptr<Connection>& self) {
    boost::system::error_code ignored;
    stream.socket().shutdown(tcp::socket::shutdown_send, ignored);
    stream.socket().close(ignored);
    self->stream = nullptr;
    {
      std::lock_guard<std::mutex> lock(mu_);
      connections_.remove(self);
    }
    if (stopping_) asio::post(control_, [this] { MaybeFinish(); });
  }

  // Reads requests from one connection and answers them until it closes, errs or idles out.
  template <class Stream>
  awaitable<void> Serve(Stream& stream, Connection& self, const std::string& remote,
                        const std::string& client_cn) {
    beast::tcp_stream& tcp = beast::get_lowest_layer(stream);
    beast::flat_buffer buffer;
    const auto idle = std::chrono::milliseconds(options_.idle_timeout_ms);
    while (!stopping_) {
      bhttp::request_parser<bhttp::string_body> parser;
      parser.body_limit(options_.max_body_bytes);
      parser.header_limit(static_cast<std::uint32_t>(options_.max_header_bytes));
      tcp.expires_after(idle);
      boost::system::error_code ec;
      co_await bhttp::async_read(stream, buffer, parser, asio::redirect_error(use_awaitable, ec));
      if (ec) {
        int status = 0;
        std::string message;
        if (ec == bhttp::error::body_limit) {
          status = 413;
          message =
              fmt::format("Request body exceeds the limit of {} bytes", options_.max_body_bytes);
        } else if (ec == bhttp::error::header_limit) {
          status = 431;
          message = fmt::format("Request headers exceed the limit of {} bytes",
                                options_.max_header_bytes);
        } else if (ec.category() == bhttp::make_error_code(bhttp::error::bad_method).category() &&
                   ec != bhttp::error::end_of_stream && ec != bhttp::error::partial_message) {
          status = 400;
          message = fmt::format("Malformed HTTP request: {}", ec.message());
        }
        if (status != 0) {
          Request partial;
          partial.method = std::string(parser.get().method_string());
          partial.target = std::string(parser.get().target());
          if (partial.target.empty()) {
            // A request line longer than the header limit is never parsed: take the method and
            // target from the bytes read, so the error is in the addressed interface's format.
            const auto raw_bytes = buffer.cdata();
            std::string_view raw(static_cast<const char*>(raw_bytes.data()), raw_bytes.size());
            raw = raw.substr(0, raw.find_first_of("\r\n"));
            if (const size_t sp = raw.find(' '); sp != std::string_view::npos) {
              partial.method = std::string(raw.substr(0, sp));
              raw.remove_prefix(sp + 1);
              partial.target = std::string(raw.substr(0, raw.find(' ')));
            }
          }
          std::vector<std::pair<std::string, std::string>> ignored_query;
          ParseTarget(partial.target, partial.path, ignored_query);
          partial.request_id = NextRequestId();
          partial.remote_address = remote;
          partial.received = std::chrono::steady_clock::now();
          auto res = ToBeast(RenderError(status, message, partial), 11, false, partial.request_id);
          tcp.expires_after(std::chrono::seconds(10));
          co_await bhttp::async_write(stream, res, asio::redirect_error(use_awaitable, ec));
          co_await Drain(stream);
        }
        break;
      }
      self.busy = true;
      auto& req = parser.get();
      Request request;
      request.method = std::string(req.method_string());
      request.target = std::string(req.target());
      request.request_id = NextRequestId();
      request.remote_address = remote;
      request.client_certificate_cn = client_cn;
      for (const auto& field : req) {
        request.headers.emplace(std::string(field.name_string()), std::string(field.value()));
      }
      request.body = std::move(req.body());
      const bool keep_alive = req.keep_alive();
      const unsigned version = req.version();
      const auto started = std::chrono::steady_clock::now();
      request.received = started;
      Response response;
      if (!ParseTarget(request.target, request.path, request.query)) {
        response = RenderError(400, "Malformed percent-encoding in the request target", request);
      } else {
        tcp.expires_never();
        response = RunHandler(request);  // inline: this strand's thread runs it
      }
      const auto micros = std::chrono::duration_cast<std::chrono::microseconds>(
                              std::chrono::steady_clock::now() - started)
                              .count();
      spdlog::info(
          "event=request request_id={} remote={} method={} path=\"{}\" status={} micros={}",
          request.request_id, remote, request.method, request.path, response.status, micros);
      if (response.hold_ms > 0 && !stopping_) {
        asio::steady_timer hold(co_await asio::this_coro::executor);
        hold.expires_after(std::chrono::milliseconds(response.hold_ms));
        co_await hold.async_wait(asio::redirect_error(use_awaitable, ec));
      }
      std::shared_ptr<const OpenFile> file = std::move(response.spliced_file);
      auto res = ToBeast(std::move(response), version, keep_alive && !stopping_,
                         request.request_id, request.method == "HEAD");
      tcp.expires_after(idle);
      if constexpr (std::is_same_v<Stream, beast::tcp_stream>) {
        const bool from_file =
            file && res.body().middle && file->size() == res.body().middle->size();
        co_await WriteDirect(tcp, res, from_file ? file.get() : nullptr, ec);
      } else {
        co_await bhttp::async_write(stream, res, asio::redirect_error(use_awaitable, ec));
      }
      self.busy = false;
      if (ec || !keep_alive) break;
    }
  }

  // Sends `res` over plain TCP with the socket's own calls, as far as the socket takes it now,
  // and the rest through the stream from memory (so a slow reader is served under the stream's
  // timeout like any other answer); Beast's composed write, by comparison, cost about a fifth
  // of a small answer's instructions. The header, head, document and tail go out with one
  // sendmsg. When `file` is given, its content is the spliced document: the header and head go
  // with one sendmsg, the document by sendfile(2) from the file (the kernel sends the page
  // cache's pages; no copy from user space), then the tail.
  static awaitable<void> WriteDirect(beast::tcp_stream& tcp, bhttp::response<SplicedBody>& res,
                                     const OpenFile* file, boost::system::error_code& ec) {
    std::string header;
    {
      bhttp::response_serializer<SplicedBody> serializer{res};
      serializer.split(true);
      serializer.next(ec, [&](boost::system::error_code&, const auto& buffers) {
        header = beast::buffers_to_string(buffers);
      });
      if (ec) co_return;
    }
    const SplicedBody::value_type& body = res.body();
    const std::string_view middle =
        body.middle ? std::string_view(*body.middle) : std::string_view();
    // The answer's parts in order, and how much of each has been sent.
    const std::array<std::string_view, 4> parts{header, body.head, middle, body.tail};
    std::array<size_t, 4> sent{};
    // Counts `n` bytes sent from the first `count` parts, in order.
    auto advance = [&](size_t n, size_t count) {
      for (size_t i = 0; i < count && n > 0; ++i) {
        const size_t take = std::min(n, parts[i].size() - sent[i]);
        sent[i] += take;
        n -= take;
      }
    };
    const int fd = tcp.socket().native_handle();
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
      if (sent[0] == header.size() && sent[1] == body.head.size()) {
        off_t offset = 0;
        while (static_cast<size_t>(offset) < middle.size()) {
          const ssize_t m =
              ::sendfile(fd, file->fd(), &offset, middle.size() - static_cast<size_t>(offset));
          if (m > 0 || (m < 0 && errno == EINTR)) continue;
          if (failed(m)) co_return;
          break;  // the socket is full (or the file ended early): the rest from memory
        }
        sent[2] = static_cast<size_t>(offset);
        if (sent[2] == middle.size() && !body.tail.empty()) {
          const ssize_t t =
              ::send(fd, body.tail.data(), body.tail.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
          if (failed(t)) co_return;
          sent[3] = t > 0 ? static_cast<size_t>(t) : 0;
        }
      }
    }
    std::array<asio::const_buffer, 4> rest;
    for (size_t i = 0; i < parts.size(); ++i) {
      rest[i] = asio::buffer(parts[i].data(), parts[i].size()) + sent[i];
    }
    if (beast::buffer_bytes(rest) > 0) {
      co_await asio::async_write(tcp, rest, asio::redirect_error(use_awaitable, ec));
    }
  }

  // After an early error response, read and discard what the client is still sending (bounded)
  // so it sees our response instead of a connection reset.
  template <class Stream>
  static awaitable<void> Drain(Stream& stream) {
    boost::system::error_code ec;
    beast::tcp_stream& tcp = beast::get_lowest_layer(stream);
    // Plain TCP can half-close; TLS cannot (its close is a message of its own, sent after).
    if constexpr (std::is_same_v<Stream, beast::tcp_stream>) {
      tcp.socket().shutdown(tcp::socket::shutdown_send, ec);
    }
    std::array<char, 64 * 1024> scratch{};
    size_t total = 0;
    tcp.expires_after(std::chrono::seconds(5));
    while (total < 256 * 1024 * 1024) {
      const size_t n = co_await stream.async_read_some(asio::buffer(scratch),
                                                       asio::redirect_error(use_awaitable, ec));
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
