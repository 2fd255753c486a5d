// SPDX-License-Identifier: Apache-2.0
#include "http/server.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>

namespace cairn::http {
namespace {

// A blocking loopback client: sends raw bytes, reads until the peer closes or `until` appears.
std::string Exchange(int port, const std::string& raw, const std::string& until = "") {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    ::close(fd);
    return "";
  }
  timeval tv{5, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
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
          resp.body =
              r.method + " " + r.path + " q=" + r.Query("q").value_or("-") + " body=" + r.body;
          if (r.path == "/slow") std::this_thread::sleep_for(std::chrono::milliseconds(300));
          if (r.path == "/throw") throw std::runtime_error("boom");
          return resp;
        },
        [](int status, std::string_view message, const Request&) {
          Response r;
          r.status = status;
          r.body = std::string(message);
          return r;
        });
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
};

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
      [](int status, std::string_view m, const Request&) {
        Response r;
        r.status = status;
        r.body = std::string(m);
        return r;
      });
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
