// SPDX-License-Identifier: Apache-2.0
#include "http/server.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>

namespace cairn::http {
namespace {

// A blocking connection to the server on 127.0.0.1 whose reads give up after 5 s; -1 when it
// cannot connect.
int ConnectLoopback(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    ::close(fd);
    return -1;
  }
  timeval tv{5, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  return fd;
}

// A blocking loopback client: sends raw bytes, reads until the peer closes or `until` appears.
std::string Exchange(int port, const std::string& raw, const std::string& until = "") {
  const int fd = ConnectLoopback(port);
  if (fd < 0) return "";
  size_t sent = 0;
  while (sent < raw.size()) {
    const ssize_t n = ::send(fd, raw.data() + sent, raw.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) break;
    sent += static_cast<size_t>(n);
  }
  std::string out;
  char buf[4096];
  while (true) {
    const ssize_t n = ::recv(fd, buf, sizeof(buf), 0);
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
    if (!until.empty() && out.find(until) != std::string::npos) break;
  }
  ::close(fd);
  return out;
}

// Transport errors as plain text: the status and the server's message.
Response PlainErrors(int status, std::string_view message, const Request& /*partial*/) {
  Response r;
  r.status = status;
  r.body = std::string(message);
  return r;
}

class ServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ServerOptions options;
    options.port = 0;
    options.worker_threads = 2;
    options.max_body_bytes = 1024;
    options.max_header_bytes = 2048;
    server_ = std::make_unique<Server>(
        options,
        [this](const Request& r) {
          ++calls_;
          Response resp;
          if (r.path == "/spliced") {
            resp.body = "<";
            resp.spliced = spliced_;
            resp.body_tail = ">";
            return resp;
          }
          if (r.path == "/block") {  // waits until /release has been served on another connection
            std::unique_lock lock(mu_);
            const bool released =
                cv_.wait_for(lock, std::chrono::seconds(5), [this] { return released_; });
            resp.body = released ? "released" : "timed out";
            return resp;
          }
          if (r.path == "/release") {
            {
              std::lock_guard lock(mu_);
              released_ = true;
            }
            cv_.notify_all();
          }
          resp.body =
              r.method + " " + r.path + " q=" + r.Query("q").value_or("-") + " body=" + r.body;
          if (r.path == "/slow") std::this_thread::sleep_for(std::chrono::milliseconds(300));
          if (r.path == "/throw") throw std::runtime_error("boom");
          return resp;
        },
        PlainErrors);
    ASSERT_TRUE(server_->Listen().has_value());
    port_ = server_->port();
    thread_ = std::thread([this] { server_->Run(); });
  }
  void TearDown() override {
    server_->Stop();
    thread_.join();
  }

  std::unique_ptr<Server> server_;
  std::thread thread_;
  int port_ = 0;
  std::atomic<int> calls_{0};
  std::shared_ptr<const std::string> spliced_ = [] {
    std::string doc(300 * 1024, 'm');  // larger than a socket buffer: takes several writes
    doc[0] = 'A';
    doc.back() = 'Z';
    return std::make_shared<const std::string>(std::move(doc));
  }();
  std::mutex mu_;
  std::condition_variable cv_;
  bool released_ = false;
};

TEST_F(ServerTest, SendsASplicedDocumentBetweenHeadAndTail) {
  std::string out =
      Exchange(port_, "GET /spliced HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n");
  const size_t total = spliced_->size() + 2;
  EXPECT_NE(out.find("Content-Length: " + std::to_string(total)), std::string::npos)
      << out.substr(0, 300);
  const size_t body = out.find("\r\n\r\n");
  ASSERT_NE(body, std::string::npos);
  EXPECT_EQ(out.substr(body + 4), "<" + *spliced_ + ">");
}

TEST_F(ServerTest, ABlockedHandlerDoesNotHoldUpOtherConnections) {
  // The server has two threads; /block holds one until /release, sent on a second connection,
  // has been handled by the other.
  std::string blocked;
  std::thread first([&] {
    blocked = Exchange(port_, "GET /block HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n");
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  std::string released =
      Exchange(port_, "GET /release HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n");
  first.join();
  EXPECT_NE(released.find("HTTP/1.1 200"), std::string::npos) << released;
  EXPECT_NE(blocked.find("released"), std::string::npos) << blocked;
}

TEST_F(ServerTest, ManyConcurrentKeepAliveClientsAllGetTheirOwnAnswers) {
  constexpr int kClients = 16;
  constexpr int kRequests = 20;
  std::vector<std::thread> clients;
  std::atomic<int> good{0};
  for (int c = 0; c < kClients; ++c) {
    clients.emplace_back([&, c] {
      std::string raw;
      for (int i = 0; i < kRequests; ++i) {
        raw +=
            "GET /c" + std::to_string(c) + "?q=" + std::to_string(i) + " HTTP/1.1\r\nHost: h\r\n";
        raw += i + 1 == kRequests ? "Connection: close\r\n\r\n" : "\r\n";
      }
      const std::string out = Exchange(port_, raw);
      for (int i = 0; i < kRequests; ++i) {
        if (out.find("GET /c" + std::to_string(c) + " q=" + std::to_string(i) + " body=") !=
            std::string::npos) {
          ++good;
        }
      }
    });
  }
  for (auto& t : clients) t.join();
  EXPECT_EQ(good.load(), kClients * kRequests);
}

TEST(ServerShutdown, IdleKeepAliveConnectionsDoNotDelayStop) {
  ServerOptions options;
  options.port = 0;
  options.worker_threads = 3;
  options.shutdown_grace_ms = 10'000;
  Server server(
      options, [](const Request&) { return Response{}; }, PlainErrors);
  ASSERT_TRUE(server.Listen().has_value());
  const int port = server.port();
  std::thread runner([&] { server.Run(); });
  // A client that keeps its connection open after one answer.
  const int fd = ConnectLoopback(port);
  ASSERT_GE(fd, 0);
  const std::string req = "GET / HTTP/1.1\r\nHost: h\r\n\r\n";
  ASSERT_EQ(::send(fd, req.data(), req.size(), MSG_NOSIGNAL), static_cast<ssize_t>(req.size()));
  char buf[1024];
  ASSERT_GT(::recv(fd, buf, sizeof(buf), 0), 0);
  const auto stop_started = std::chrono::steady_clock::now();
  server.Stop();
  runner.join();  // well before the 10 s grace period: the idle connection is closed at once
  EXPECT_LT(std::chrono::steady_clock::now() - stop_started, std::chrono::seconds(5));
  EXPECT_EQ(::recv(fd, buf, sizeof(buf), 0), 0);  // the server closed it
  ::close(fd);
}

TEST_F(ServerTest, ServesRequestsWithDecodedQueryAndRequestId) {
  std::string out =
      Exchange(port_, "GET /x?q=a%20b HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n");
  EXPECT_NE(out.find("HTTP/1.1 200"), std::string::npos) << out;
  EXPECT_NE(out.find("GET /x q=a b body="), std::string::npos) << out;
  EXPECT_NE(out.find("X-Request-Id: "), std::string::npos) << out;
}

TEST_F(ServerTest, KeepsConnectionsAlive) {
  std::string out = Exchange(port_,
                             "POST /a HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\n\r\nhi"
                             "GET /b HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n");
  EXPECT_NE(out.find("POST /a q=- body=hi"), std::string::npos) << out;
  EXPECT_NE(out.find("GET /b q=- body="), std::string::npos) << out;
}

TEST_F(ServerTest, RejectsOversizedBodyWith413WithoutCallingTheHandler) {
  std::string body(4096, 'x');
  std::string out =
      Exchange(port_, "POST /big HTTP/1.1\r\nHost: h\r\nContent-Length: 4096\r\n\r\n" + body);
  EXPECT_NE(out.find("HTTP/1.1 413"), std::string::npos) << out;
  EXPECT_EQ(calls_.load(), 0);
}

TEST_F(ServerTest, RejectsOversizedHeadersWith431) {
  std::string out =
      Exchange(port_, "GET / HTTP/1.1\r\nHost: h\r\nX-Big: " + std::string(4096, 'a') + "\r\n\r\n");
  EXPECT_NE(out.find("HTTP/1.1 431"), std::string::npos) << out;
}

TEST_F(ServerTest, MalformedRequestGets400) {
  std::string out = Exchange(port_, "GARBAGE\r\n\r\n");
  EXPECT_NE(out.find("HTTP/1.1 400"), std::string::npos) << out;
}

TEST_F(ServerTest, HandlerExceptionBecomes500AndServerKeepsServing) {
  std::string out = Exchange(port_, "GET /throw HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n");
  EXPECT_NE(out.find("HTTP/1.1 500"), std::string::npos) << out;
  out = Exchange(port_, "GET /ok HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n");
  EXPECT_NE(out.find("HTTP/1.1 200"), std::string::npos) << out;
}

TEST_F(ServerTest, UnknownMethodReachesTheHandler) {
  std::string out = Exchange(port_, "CLOSE / HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n");
  EXPECT_NE(out.find("CLOSE / q=-"), std::string::npos) << out;
}

TEST_F(ServerTest, ReadsAChunkedBodyAndAnswersPipelinedRequestsInOrder) {
  std::string out = Exchange(port_,
                             "POST /a HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"
                             "3\r\nabc\r\n2;x=y\r\nde\r\n0\r\n\r\n"
                             "GET /b HTTP/1.1\r\nHost: h\r\n\r\n"
                             "GET /c HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n");
  const size_t a = out.find("POST /a q=- body=abcde");
  const size_t b = out.find("GET /b q=- body=");
  const size_t c = out.find("GET /c q=- body=");
  ASSERT_NE(a, std::string::npos) << out;
  ASSERT_NE(b, std::string::npos) << out;
  ASSERT_NE(c, std::string::npos) << out;
  EXPECT_LT(a, b);
  EXPECT_LT(b, c);
  EXPECT_NE(out.find("\r\nConnection: close\r\n"), std::string::npos) << out;
}

TEST_F(ServerTest, AnHttp10RequestGetsAnHttp10AnswerAndTheConnectionCloses) {
  // No Connection: close is sent: HTTP/1.0 closes unless asked to keep the connection.
  std::string out = Exchange(port_, "GET /old HTTP/1.0\r\n\r\n");
  EXPECT_EQ(out.rfind("HTTP/1.0 200 OK\r\n", 0), 0u) << out;
  EXPECT_NE(out.find("GET /old q=- body="), std::string::npos) << out;
}

TEST_F(ServerTest, AnswersHeadWithTheGetLengthAndNoBody) {
  std::string out =
      Exchange(port_, "HEAD /spliced HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n");
  EXPECT_NE(out.find("\r\nContent-Length: " + std::to_string(spliced_->size() + 2) + "\r\n"),
            std::string::npos)
      << out;
  EXPECT_EQ(out.substr(out.find("\r\n\r\n") + 4), "") << "no body after the header";
}

TEST_F(ServerTest, ExpectContinueGetsA100BeforeTheBodyIsSent) {
  const int fd = ConnectLoopback(port_);
  ASSERT_GE(fd, 0);
  const std::string head =
      "PUT /up HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 4\r\n"
      "Connection: close\r\n\r\n";
  ASSERT_EQ(::send(fd, head.data(), head.size(), MSG_NOSIGNAL), static_cast<ssize_t>(head.size()));
  char buf[4096];
  const ssize_t n = ::recv(fd, buf, sizeof(buf), 0);
  ASSERT_GT(n, 0);
  EXPECT_EQ(std::string(buf, static_cast<size_t>(n)), "HTTP/1.1 100 Continue\r\n\r\n");
  EXPECT_EQ(calls_.load(), 0) << "the handler waits for the body";
  ASSERT_EQ(::send(fd, "data", 4, MSG_NOSIGNAL), 4);
  std::string out;
  while (true) {
    const ssize_t m = ::recv(fd, buf, sizeof(buf), 0);
    if (m <= 0) break;
    out.append(buf, static_cast<size_t>(m));
  }
  ::close(fd);
  EXPECT_NE(out.find("HTTP/1.1 200"), std::string::npos) << out;
  EXPECT_NE(out.find("PUT /up q=- body=data"), std::string::npos) << out;
}

TEST(ServerTimeouts, AnIdleOrStalledConnectionIsClosedAfterTheIdleTimeout) {
  ServerOptions options;
  options.port = 0;
  options.idle_timeout_ms = 300;
  Server server(
      options, [](const Request&) { return Response{}; }, PlainErrors);
  ASSERT_TRUE(server.Listen().has_value());
  const int port = server.port();
  std::thread runner([&] { server.Run(); });
  // Silent from the start; half a request, then silence; one answered request, then silence.
  for (const std::string& sent :
       {std::string(), std::string("GET / HTTP/1.1\r\nHost"),
        std::string("GET / HTTP/1.1\r\nHost: h\r\n\r\n")}) {
    const auto started = std::chrono::steady_clock::now();
    const std::string out = Exchange(port, sent);  // reads until the server closes (5 s at most)
    const auto waited = std::chrono::steady_clock::now() - started;
    EXPECT_GE(waited, std::chrono::milliseconds(250)) << sent;
    EXPECT_LT(waited, std::chrono::milliseconds(2500)) << sent;
    if (sent.ends_with("\r\n\r\n")) {
      EXPECT_EQ(out.rfind("HTTP/1.1 200", 0), 0u) << out;
    } else {
      EXPECT_EQ(out, "") << "nothing to answer";
    }
  }
  server.Stop();
  runner.join();
}

TEST(ServerShutdown, InFlightRequestFinishesOnStop) {
  ServerOptions options;
  options.port = 0;
  Server server(
      options,
      [](const Request&) {
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        Response r;
        r.body = "done";
        return r;
      },
      PlainErrors);
  ASSERT_TRUE(server.Listen().has_value());
  const int port = server.port();
  std::thread runner([&] { server.Run(); });
  std::string out;
  std::thread client(
      [&] { out = Exchange(port, "GET /slow HTTP/1.1\r\nHost: h\r\n\r\n", "done"); });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  server.Stop();
  client.join();
  runner.join();
  EXPECT_NE(out.find("HTTP/1.1 200"), std::string::npos) << out;
  EXPECT_NE(out.find("done"), std::string::npos) << out;
}

}  // namespace
}  // namespace cairn::http
