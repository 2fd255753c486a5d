// SPDX-License-Identifier: Apache-2.0
// Load driver for the write and paging workloads of bench/run.py (reads are driven by wrk).
//
// One blocking keep-alive HTTP/1.1 connection per thread; the whole process is meant to be pinned
// to a core of its own (taskset) so it never competes with the server under test. Prints one JSON
// object on stdout. Built by bench/run.py with plain g++ (no dependency on the server's build).
//
//   driver create --port P --base /iceberg/v1/m.c --ns NS --threads N --count K --prefix t_
//                 --schema FILE [--start I] [--max-seconds S]
//   driver commit --port P --base B --ns NS --tables FILE --threads N --seconds S
//                 --mode distinct|hot --acks-out FILE
//   driver list   --port P --base B --ns NS --page-size N --passes K [--warmup W] [--token-fallback
//   1]
//                 (--token-fallback: when a full page comes without next-page-token, go on with the
//                 token Cairn would have sent, hex of the page's last name, and count it in
//                 missing_tokens; a correctness failure the harness reports, not a silent repair)
//
// Every mode takes --auth VALUE: sent as `Authorization: VALUE` on every request (e.g. "Basic
// ...").
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

namespace {

using Clock = std::chrono::steady_clock;

std::string g_extra_headers;  // "Authorization: ...\r\n" when --auth is given

double MsSince(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

struct Response {
  int status = 0;
  std::string body;
};

// A keep-alive HTTP/1.1 client connection (Content-Length and chunked bodies).
class Conn {
 public:
  explicit Conn(int port) : port_(port) {}
  ~Conn() { Close(); }

  bool Do(const std::string& method, const std::string& path, const std::string& body,
          Response& out) {
    for (int attempt = 0; attempt < 2; ++attempt) {
      if (fd_ < 0 && !Connect()) return false;
      std::string req = method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n" + g_extra_headers;
      if (!body.empty() || method == "POST") {
        req += "Content-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
               "\r\n";
      }
      req += "\r\n";
      req += body;
      if (!SendAll(req) || !ReadResponse(out)) {
        Close();
        if (reused_) continue;  // the server closed an idle keep-alive connection: retry once
        return false;
      }
      reused_ = true;
      if (close_after_) Close();
      return true;
    }
    return false;
  }

 private:
  bool Connect() {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    if (fd_ < 0) return false;
    int one = 1;
    ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(port_));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
      Close();
      return false;
    }
    buf_.clear();
    reused_ = false;
    return true;
  }
  void Close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
    buf_.clear();
  }
  bool SendAll(const std::string& s) {
    size_t off = 0;
    while (off < s.size()) {
      ssize_t n = ::send(fd_, s.data() + off, s.size() - off, MSG_NOSIGNAL);
      if (n <= 0) return false;
      off += static_cast<size_t>(n);
    }
    return true;
  }
  bool Fill() {
    char tmp[65536];
    ssize_t n = ::recv(fd_, tmp, sizeof tmp, 0);
    if (n <= 0) return false;
    buf_.append(tmp, static_cast<size_t>(n));
    return true;
  }
  bool ReadLine(std::string& line) {
    for (;;) {
      size_t p = buf_.find("\r\n");
      if (p != std::string::npos) {
        line = buf_.substr(0, p);
        buf_.erase(0, p + 2);
        return true;
      }
      if (!Fill()) return false;
    }
  }
  bool ReadN(size_t n, std::string& out) {
    while (buf_.size() < n) {
      if (!Fill()) return false;
    }
    out.append(buf_, 0, n);
    buf_.erase(0, n);
    return true;
  }
  bool ReadResponse(Response& out) {
    out.body.clear();
    size_t head_end;
    while ((head_end = buf_.find("\r\n\r\n")) == std::string::npos) {
      if (!Fill()) return false;
    }
    std::string head = buf_.substr(0, head_end);
    buf_.erase(0, head_end + 4);
    out.status = std::atoi(head.c_str() + head.find(' ') + 1);
    long content_length = -1;
    bool chunked = false;
    close_after_ = false;
    std::istringstream hs(head);
    std::string h;
    std::getline(hs, h);
    while (std::getline(hs, h)) {
      if (!h.empty() && h.back() == '\r') h.pop_back();
      size_t c = h.find(':');
      if (c == std::string::npos) continue;
      std::string k = h.substr(0, c), v = h.substr(c + 1);
      while (!v.empty() && v.front() == ' ') v.erase(0, 1);
      for (auto& ch : k) ch = static_cast<char>(std::tolower(ch));
      for (auto& ch : v) ch = static_cast<char>(std::tolower(ch));
      if (k == "content-length") content_length = std::atol(v.c_str());
      if (k == "transfer-encoding" && v.find("chunked") != std::string::npos) chunked = true;
      if (k == "connection" && v == "close") close_after_ = true;
    }
    if (out.status == 204 || out.status == 304) return true;
    if (chunked) {
      for (;;) {
        std::string line;
        if (!ReadLine(line)) return false;
        size_t n = std::strtoul(line.c_str(), nullptr, 16);
        if (n == 0) {
          std::string trailer;
          do {
            if (!ReadLine(trailer)) return false;
          } while (!trailer.empty());
          return true;
        }
        if (!ReadN(n, out.body)) return false;
        std::string crlf;
        if (!ReadLine(crlf)) return false;
      }
    }
    if (content_length >= 0) return ReadN(static_cast<size_t>(content_length), out.body);
    while (Fill()) {
    }
    out.body = std::move(buf_);
    close_after_ = true;
    return true;
  }

  int port_;
  int fd_ = -1;
  bool reused_ = false;
  bool close_after_ = false;
  std::string buf_;
};

// --- tiny helpers on compact JSON text -------------------------------------------------------

// Value of the first top-level-looking `"key": <integer|null>`; nullopt when absent or null.
std::optional<int64_t> FindInt(const std::string& s, const std::string& key) {
  const std::string k = "\"" + key + "\"";
  size_t p = s.find(k);
  if (p == std::string::npos) return std::nullopt;
  p += k.size();
  while (p < s.size() && (s[p] == ' ' || s[p] == ':')) ++p;
  if (s.compare(p, 4, "null") == 0) return std::nullopt;
  return std::strtoll(s.c_str() + p, nullptr, 10);
}

std::optional<std::string> FindString(const std::string& s, const std::string& key) {
  const std::string k = "\"" + key + "\"";
  size_t p = s.find(k);
  if (p == std::string::npos) return std::nullopt;
  p += k.size();
  while (p < s.size() && (s[p] == ' ' || s[p] == ':')) ++p;
  if (p >= s.size() || s[p] != '"') return std::nullopt;
  size_t e = s.find('"', p + 1);
  return s.substr(p + 1, e - p - 1);
}

size_t Count(const std::string& s, const std::string& needle) {
  size_t n = 0;
  for (size_t p = s.find(needle); p != std::string::npos; p = s.find(needle, p + needle.size()))
    ++n;
  return n;
}

std::string UrlEncode(const std::string& s) {
  static const char* hex = "0123456789ABCDEF";
  std::string o;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      o += static_cast<char>(c);
    } else {
      o += '%';
      o += hex[c >> 4];
      o += hex[c & 15];
    }
  }
  return o;
}

struct Stats {
  std::vector<double> lat_ms;
  std::map<int, long> status;
  long errors = 0;  // transport errors
  void Merge(const Stats& o) {
    lat_ms.insert(lat_ms.end(), o.lat_ms.begin(), o.lat_ms.end());
    for (auto& [k, v] : o.status) status[k] += v;
    errors += o.errors;
  }
};

double Pct(std::vector<double>& v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t i = static_cast<size_t>(p / 100.0 * static_cast<double>(v.size() - 1) + 0.5);
  return v[std::min(i, v.size() - 1)];
}

std::string StatusJson(const std::map<int, long>& m) {
  std::string o = "{";
  for (auto& [k, v] : m)
    o += (o.size() > 1 ? "," : "") + ("\"" + std::to_string(k) + "\":" + std::to_string(v));
  return o + "}";
}

struct Args {
  std::map<std::string, std::string> kv;
  std::string Get(const std::string& k, const std::string& def = "") const {
    auto it = kv.find(k);
    return it == kv.end() ? def : it->second;
  }
  long Int(const std::string& k, long def) const {
    auto it = kv.find(k);
    return it == kv.end() ? def : std::atol(it->second.c_str());
  }
};

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// --- create ----------------------------------------------------------------------------------
int RunCreate(const Args& a) {
  const int port = static_cast<int>(a.Int("port", 0));
  const std::string url = a.Get("base") + "/namespaces/" + UrlEncode(a.Get("ns")) + "/tables";
  const int threads = static_cast<int>(a.Int("threads", 16));
  const long count = a.Int("count", 1000), start = a.Int("start", 0);
  const double max_s = static_cast<double>(a.Int("max-seconds", 1000000));
  const std::string prefix = a.Get("prefix", "t_");
  std::string schema = ReadFile(a.Get("schema"));
  while (!schema.empty() && (schema.back() == '\n' || schema.back() == ' ')) schema.pop_back();
  std::atomic<long> next{0};
  std::vector<Stats> stats(static_cast<size_t>(threads));
  const auto t0 = Clock::now();
  std::vector<std::thread> ts;
  for (int w = 0; w < threads; ++w) {
    ts.emplace_back([&, w] {
      Conn c(port);
      Response r;
      Stats& st = stats[static_cast<size_t>(w)];
      for (;;) {
        long i = next.fetch_add(1);
        if (i >= count || MsSince(t0) > max_s * 1000) break;
        std::string body =
            "{\"name\":\"" + prefix + std::to_string(start + i) + "\",\"schema\":" + schema + "}";
        auto s = Clock::now();
        if (!c.Do("POST", url, body, r)) {
          ++st.errors;
          continue;
        }
        st.lat_ms.push_back(MsSince(s));
        ++st.status[r.status];
      }
    });
  }
  for (auto& t : ts) t.join();
  const double secs = MsSince(t0) / 1000;
  Stats all;
  for (auto& s : stats) all.Merge(s);
  long ok = all.status[200];
  std::printf(
      "{\"ok\":%ld,\"seconds\":%.3f,\"throughput\":%.1f,\"p50_ms\":%.3f,\"p99_ms\":%.3f,"
      "\"transport_errors\":%ld,\"status\":%s}\n",
      ok, secs, static_cast<double>(ok) / secs, Pct(all.lat_ms, 50), Pct(all.lat_ms, 99),
      all.errors, StatusJson(all.status).c_str());
  return 0;
}

// --- commit ----------------------------------------------------------------------------------
struct TableView {
  std::string name;
  std::optional<int64_t> current;  // main's snapshot id
  int64_t last_seq = 0;
};

bool Refresh(Conn& c, const std::string& table_url, TableView& t, Stats& st) {
  Response r;
  if (!c.Do("GET", table_url, "", r) || r.status != 200) {
    ++st.errors;
    return false;
  }
  t.current = FindInt(r.body, "current-snapshot-id");
  if (t.current && *t.current < 0) t.current.reset();
  t.last_seq = FindInt(r.body, "last-sequence-number").value_or(0);
  return true;
}

int RunCommit(const Args& a) {
  const int port = static_cast<int>(a.Int("port", 0));
  const std::string tables_url =
      a.Get("base") + "/namespaces/" + UrlEncode(a.Get("ns")) + "/tables/";
  const int threads = static_cast<int>(a.Int("threads", 16));
  const double secs_target = static_cast<double>(a.Int("seconds", 10));
  const bool hot = a.Get("mode") == "hot";
  std::vector<std::string> names;
  {
    std::ifstream in(a.Get("tables"));
    std::string l;
    while (std::getline(in, l))
      if (!l.empty()) names.push_back(l);
  }
  std::mutex acks_mu;
  std::vector<std::string> acks;  // "table token snapshot-id"
  std::vector<Stats> stats(static_cast<size_t>(threads));
  std::vector<long> attempts(static_cast<size_t>(threads)), conflicts(static_cast<size_t>(threads)),
      unknown(static_cast<size_t>(threads));
  const auto t0 = Clock::now();
  std::vector<std::thread> ts;
  for (int w = 0; w < threads; ++w) {
    ts.emplace_back([&, w] {
      const size_t uw = static_cast<size_t>(w);
      Conn c(port);
      Stats& st = stats[uw];
      std::mt19937_64 rng(0x9e3779b97f4a7c15ULL * static_cast<uint64_t>(w + 1) ^
                          static_cast<uint64_t>(Clock::now().time_since_epoch().count()));
      std::vector<TableView> mine;
      for (size_t i = 0; i < names.size(); ++i) {
        if (hot ? i == 0 : static_cast<int>(i % static_cast<size_t>(threads)) == w)
          mine.push_back({names[i], {}, 0});
      }
      if (mine.empty()) return;
      for (auto& t : mine) Refresh(c, tables_url + UrlEncode(t.name), t, st);
      long k = 0;
      size_t rr = 0;
      Response r;
      while (MsSince(t0) < secs_target * 1000) {
        TableView& t = mine[rr++ % mine.size()];
        const std::string url = tables_url + UrlEncode(t.name);
        const std::string token = "w" + std::to_string(w) + "-" + std::to_string(k++);
        const auto s = Clock::now();
        for (int tries = 0; tries < 1000 && MsSince(t0) < secs_target * 1000 + 30000; ++tries) {
          const int64_t id = static_cast<int64_t>(rng() >> 2) + 1;
          const int64_t now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                                     std::chrono::system_clock::now().time_since_epoch())
                                     .count();
          const std::string cur = t.current ? std::to_string(*t.current) : "null";
          std::string snap = "{\"snapshot-id\":" + std::to_string(id);
          if (t.current) snap += ",\"parent-snapshot-id\":" + cur;
          snap += ",\"sequence-number\":" + std::to_string(t.last_seq + 1) +
                  ",\"timestamp-ms\":" + std::to_string(now_ms) +
                  ",\"manifest-list\":\"file:///tmp/cairn-bench-fake/snap-" + std::to_string(id) +
                  ".avro\",\"summary\":{\"operation\":\"append\",\"bench-token\":\"" + token +
                  "\",\"added-data-files\":\"1\"},\"schema-id\":0}";
          const std::string body =
              "{\"requirements\":[{\"type\":\"assert-ref-snapshot-id\",\"ref\":\"main\",\"snapshot-"
              "id\":" +
              cur + "}],\"updates\":[{\"action\":\"add-snapshot\",\"snapshot\":" + snap +
              "},{\"action\":\"set-snapshot-ref\",\"ref-name\":\"main\",\"type\":\"branch\","
              "\"snapshot-id\":" +
              std::to_string(id) + "}]}";
          ++attempts[uw];
          if (!c.Do("POST", url, body, r)) {
            ++st.errors;
            Refresh(c, url, t, st);
            continue;
          }
          ++st.status[r.status];
          if (r.status == 200) {
            st.lat_ms.push_back(MsSince(s));
            t.current = id;
            t.last_seq = FindInt(r.body, "last-sequence-number").value_or(t.last_seq + 1);
            std::lock_guard<std::mutex> g(acks_mu);
            acks.push_back(t.name + " " + token + " " + std::to_string(id));
            break;
          }
          if (r.status == 409) {
            ++conflicts[uw];
          } else {
            ++unknown[uw];  // 5xx: outcome unknown to the client; refresh and retry like Java does
          }
          Refresh(c, url, t, st);
        }
      }
    });
  }
  for (auto& t : ts) t.join();
  const double secs = MsSince(t0) / 1000;
  Stats all;
  long att = 0, conf = 0, unk = 0;
  for (size_t i = 0; i < stats.size(); ++i) {
    all.Merge(stats[i]);
    att += attempts[i];
    conf += conflicts[i];
    unk += unknown[i];
  }
  {
    std::ofstream out(a.Get("acks-out"));
    for (auto& l : acks) out << l << "\n";
  }
  std::printf(
      "{\"ok\":%zu,\"seconds\":%.3f,\"throughput\":%.1f,\"p50_ms\":%.3f,\"p99_ms\":%.3f,"
      "\"attempts\":%ld,"
      "\"conflicts_409\":%ld,\"other_failures\":%ld,\"transport_errors\":%ld,\"status\":%s}\n",
      acks.size(), secs, static_cast<double>(acks.size()) / secs, Pct(all.lat_ms, 50),
      Pct(all.lat_ms, 99), att, conf, unk, all.errors, StatusJson(all.status).c_str());
  return 0;
}

// --- list ------------------------------------------------------------------------------------
int RunList(const Args& a) {
  const int port = static_cast<int>(a.Int("port", 0));
  const std::string url = a.Get("base") + "/namespaces/" + UrlEncode(a.Get("ns")) +
                          "/tables?pageSize=" + std::to_string(a.Int("page-size", 1000));
  const long passes = a.Int("passes", 3), warmup = a.Int("warmup", 0),
             page_size = a.Int("page-size", 1000);
  const bool token_fallback = a.Int("token-fallback", 0) != 0;
  long missing_tokens = 0;
  Conn c(port);
  Stats st;
  std::vector<long> seen;
  std::vector<double> pass_s;
  long pages = 0;
  double measured_ms = 0;
  // Warm-up passes page through everything too, but are not recorded.
  for (long p = 0; p < warmup + passes; ++p) {
    const bool record = p >= warmup;
    std::string token;
    long n = 0;
    bool probing = false;  // this request goes on with a fallback token
    const auto tp = Clock::now();
    for (int guard = 0; guard < 1000000; ++guard) {
      Response r;
      const auto s = Clock::now();
      if (!c.Do("GET", token.empty() ? url : url + "&pageToken=" + UrlEncode(token), "", r)) {
        if (record) ++st.errors;
        break;
      }
      if (record) {
        st.lat_ms.push_back(MsSince(s));
        ++st.status[r.status];
        ++pages;
      }
      if (r.status != 200) break;
      const long on_page = static_cast<long>(Count(r.body, "\"name\""));
      n += on_page;
      if (probing) {
        probing = false;
        if (on_page == 0) {  // the full page was the last one: not a missing token; drop the probe
          if (record) {
            st.lat_ms.pop_back();
            --st.status[r.status];
            --pages;
          }
          break;
        }
        if (record) ++missing_tokens;
      }
      auto next = FindString(r.body, "next-page-token");
      if ((!next || next->empty()) && token_fallback && on_page == page_size) {
        auto last = FindString(r.body.substr(r.body.rfind("\"name\"")), "name");
        if (!last) break;
        static const char* kHex = "0123456789abcdef";
        std::string hex;
        for (unsigned char ch : *last) {
          hex += kHex[ch >> 4];
          hex += kHex[ch & 15];
        }
        probing = true;
        next = hex;
      }
      if (!next || next->empty()) break;
      token = *next;
    }
    if (record) {
      const double ms = MsSince(tp);
      measured_ms += ms;
      pass_s.push_back(ms / 1000);
      seen.push_back(n);
    }
  }
  const double secs = measured_ms / 1000;
  auto arr = [](const auto& v, const char* f) {
    std::string o = "[";
    char b[64];
    for (size_t i = 0; i < v.size(); ++i) {
      std::snprintf(b, sizeof b, f, v[i]);
      o += (i ? "," : "") + std::string(b);
    }
    return o + "]";
  };
  std::printf(
      "{\"pages\":%ld,\"seconds\":%.3f,\"throughput\":%.1f,\"p50_ms\":%.3f,\"p99_ms\":%.3f,\"max_"
      "ms\":%.3f,"
      "\"tables_per_pass\":%s,\"seconds_per_pass\":%s,\"warmup_passes\":%ld,\"missing_tokens\":%ld,"
      "\"transport_errors\":%ld,\"status\":%s}\n",
      pages, secs, secs > 0 ? static_cast<double>(pages) / secs : 0.0, Pct(st.lat_ms, 50),
      Pct(st.lat_ms, 99), Pct(st.lat_ms, 100), arr(seen, "%ld").c_str(),
      arr(pass_s, "%.4f").c_str(), warmup, missing_tokens, st.errors,
      StatusJson(st.status).c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: driver create|commit|list --key value ...\n");
    return 2;
  }
  Args a;
  for (int i = 2; i + 1 < argc; i += 2) {
    std::string k = argv[i];
    if (k.rfind("--", 0) == 0) k = k.substr(2);
    a.kv[k] = argv[i + 1];
  }
  if (auto auth = a.Get("auth"); !auth.empty()) g_extra_headers = "Authorization: " + auth + "\r\n";
  const std::string mode = argv[1];
  if (mode == "create") return RunCreate(a);
  if (mode == "commit") return RunCommit(a);
  if (mode == "list") return RunList(a);
  std::fprintf(stderr, "unknown mode %s\n", mode.c_str());
  return 2;
}
