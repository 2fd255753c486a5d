// SPDX-License-Identifier: Apache-2.0
#include "http/server.h"

#include <atomic>
#include <chrono>
#include <list>
#include <thread>

#include <spdlog/spdlog.h>

#include "common/util.h"
#include "http/asio.h"

namespace cairn::http {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
using asio::awaitable;
using asio::use_awaitable;
using asio::ip::tcp;

namespace {

std::string NextRequestId() {
  static const std::string prefix = RandomUuid().substr(0, 8);
  static std::atomic<uint64_t> counter{0};
  return fmt::format("{}-{:06}", prefix, ++counter);
}

}  // namespace

class Server::Impl {
 public:
  Impl(ServerOptions options, Handler handler, ErrorRenderer renderer)
      : options_(std::move(options)),
        handler_(std::move(handler)),
        renderer_(std::move(renderer)),
        workers_(static_cast<size_t>(std::max(1, options_.worker_threads))),
        acceptor_(io_),
        signals_(io_, SIGINT, SIGTERM) {}

  Status Listen() {
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
    signals_.async_wait([this](const boost::system::error_code& ec, int sig) {
      if (!ec) {
        spdlog::info("event=signal signal={}", sig);
        BeginShutdown();
      }
    });
    asio::co_spawn(io_, AcceptLoop(), asio::detached);
    io_.run();
    workers_.join();
  }

  void Stop() {
    asio::post(io_, [this] { BeginShutdown(); });
  }

 private:
  struct Connection {
    beast::tcp_stream* stream = nullptr;
    bool busy = false;
  };

  void BeginShutdown() {
    if (stopping_) return;
    stopping_ = true;
    boost::system::error_code ec;
    acceptor_.close(ec);
    signals_.cancel(ec);
    for (auto& c : connections_) {
      if (!c.busy && c.stream != nullptr) c.stream->socket().cancel(ec);
    }
    // Requests still running get a grace period; after it the loop is stopped hard.
    auto timer = std::make_shared<asio::steady_timer>(io_);
    timer->expires_after(std::chrono::milliseconds(options_.shutdown_grace_ms));
    timer->async_wait([this, timer](const boost::system::error_code& e) {
      if (!e && !connections_.empty()) {
        spdlog::warn("event=shutdown_forced open_connections={}", connections_.size());
        io_.stop();
      }
    });
    grace_timer_ = timer;
    MaybeFinish();
  }

  void MaybeFinish() {
    if (stopping_ && connections_.empty() && grace_timer_) {
      grace_timer_->cancel();
      grace_timer_.reset();
    }
  }

  awaitable<void> AcceptLoop() {
    while (!stopping_) {
      boost::system::error_code ec;
      tcp::socket socket = co_await acceptor_.async_accept(asio::redirect_error(use_awaitable, ec));
      if (ec) {
        if (stopping_) break;
        spdlog::warn("event=accept_failed error=\"{}\"", ec.message());
        continue;
      }
      socket.set_option(tcp::no_delay(true), ec);
      asio::co_spawn(io_, Session(std::move(socket)), asio::detached);
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

  static bhttp::response<bhttp::string_body> ToBeast(Response&& r, unsigned version,
                                                     bool keep_alive,
                                                     const std::string& request_id) {
    bhttp::response<bhttp::string_body> res{static_cast<bhttp::status>(r.status), version};
    res.set(bhttp::field::server, "cairn");
    if (!r.body.empty() || r.status != 200) res.set(bhttp::field::content_type, r.content_type);
    res.set("X-Request-Id", request_id);
    for (const auto& [k, v] : r.headers) res.set(k, v);
    res.keep_alive(keep_alive);
    res.body() = std::move(r.body);  // metadata documents are large: never copy them twice
    res.prepare_payload();
    return res;
  }

  awaitable<void> Session(tcp::socket socket) {
    beast::tcp_stream stream(std::move(socket));
    connections_.push_back(Connection{&stream, false});
    auto self = std::prev(connections_.end());
    std::string remote;
    {
      boost::system::error_code ec;
      auto ep = stream.socket().remote_endpoint(ec);
      if (!ec) remote = ep.address().to_string();
    }
    beast::flat_buffer buffer;
    const auto idle = std::chrono::milliseconds(options_.idle_timeout_ms);
    while (!stopping_) {
      bhttp::request_parser<bhttp::string_body> parser;
      parser.body_limit(options_.max_body_bytes);
      parser.header_limit(static_cast<std::uint32_t>(options_.max_header_bytes));
      stream.expires_after(idle);
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
          std::vector<std::pair<std::string, std::string>> ignored_query;
          ParseTarget(partial.target, partial.path, ignored_query);
          partial.request_id = NextRequestId();
          partial.remote_address = remote;
          auto res = ToBeast(RenderError(status, message, partial), 11, false, partial.request_id);
          stream.expires_after(std::chrono::seconds(10));
          co_await bhttp::async_write(stream, res, asio::redirect_error(use_awaitable, ec));
          co_await Drain(stream);
        }
        break;
      }
      auto& req = parser.get();
      Request request;
      request.method = std::string(req.method_string());
      request.target = std::string(req.target());
      request.request_id = NextRequestId();
      request.remote_address = remote;
      for (const auto& field : req) {
        request.headers.emplace(std::string(field.name_string()), std::string(field.value()));
      }
      request.body = std::move(req.body());
      const bool keep_alive = req.keep_alive();
      const unsigned version = req.version();
      const auto started = std::chrono::steady_clock::now();
      Response response;
      if (!ParseTarget(request.target, request.path, request.query)) {
        response = RenderError(400, "Malformed percent-encoding in the request target", request);
      } else {
        self->busy = true;
        stream.expires_never();
        co_await asio::post(workers_, use_awaitable);
        response = CallHandler(request);
        co_await asio::post(io_, use_awaitable);
        self->busy = false;
      }
      const auto micros = std::chrono::duration_cast<std::chrono::microseconds>(
                              std::chrono::steady_clock::now() - started)
                              .count();
      spdlog::info(
          "event=request request_id={} remote={} method={} path=\"{}\" status={} micros={}",
          request.request_id, remote, request.method, request.path, response.status, micros);
      auto res =
          ToBeast(std::move(response), version, keep_alive && !stopping_, request.request_id);
      stream.expires_after(idle);
      co_await bhttp::async_write(stream, res, asio::redirect_error(use_awaitable, ec));
      if (ec || !keep_alive) break;
    }
    boost::system::error_code ignored;
    stream.socket().shutdown(tcp::socket::shutdown_send, ignored);
    stream.socket().close(ignored);
    connections_.erase(self);
    MaybeFinish();
  }

  // After an early error response, read and discard what the client is still sending (bounded)
  // so it sees our response instead of a connection reset.
  static awaitable<void> Drain(beast::tcp_stream& stream) {
    boost::system::error_code ec;
    stream.socket().shutdown(tcp::socket::shutdown_send, ec);
    std::array<char, 64 * 1024> scratch{};
    size_t total = 0;
    stream.expires_after(std::chrono::seconds(5));
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
  asio::io_context io_{1};
  asio::thread_pool workers_;
  tcp::acceptor acceptor_;
  asio::signal_set signals_;
  std::list<Connection> connections_;  // touched only on the io thread
  bool stopping_ = false;              // io thread only
  std::shared_ptr<asio::steady_timer> grace_timer_;
  int port_ = 0;
};

Server::Server(ServerOptions options, Handler handler, ErrorRenderer error_renderer)
    : impl_(std::make_unique<Impl>(std::move(options), std::move(handler),
                                   std::move(error_renderer))) {}
Server::~Server() = default;
Status Server::Listen() { return impl_->Listen(); }
int Server::port() const { return impl_->port(); }
void Server::Run() { impl_->Run(); }
void Server::Stop() { impl_->Stop(); }

}  // namespace cairn::http
