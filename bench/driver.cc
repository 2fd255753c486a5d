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
//                 --mode distinct|hot --acks-out FILE --data-dir DIR
//                 (each attempt writes a real Iceberg v2 manifest list under DIR/lists)
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
#include <string_view>
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

// --- Iceberg v2 manifest lists (Avro object container files, null codec) ---------------------
//
// Just enough Avro to write and read back manifest lists of one fixed writer schema: Iceberg's
// v2 `manifest_file` record with its field ids. The server's rebased lists keep the writer schema
// of the list they rebase (and the null codec), so the reader only needs this schema.

constexpr std::string_view kManifestListSchema =
    R"({"type":"record","name":"manifest_file","fields":[)"
    R"({"name":"manifest_path","field-id":500,"type":"string"},)"
    R"({"name":"manifest_length","field-id":501,"type":"long"},)"
    R"({"name":"partition_spec_id","field-id":502,"type":"int"},)"
    R"({"name":"content","field-id":517,"type":"int"},)"
    R"({"name":"sequence_number","field-id":515,"type":"long"},)"
    R"({"name":"min_sequence_number","field-id":516,"type":"long"},)"
    R"({"name":"added_snapshot_id","field-id":503,"type":"long"},)"
    R"({"name":"added_files_count","field-id":504,"type":"int"},)"
    R"({"name":"existing_files_count","field-id":505,"type":"int"},)"
    R"({"name":"deleted_files_count","field-id":506,"type":"int"},)"
    R"({"name":"added_rows_count","field-id":512,"type":"long"},)"
    R"({"name":"existing_rows_count","field-id":513,"type":"long"},)"
    R"({"name":"deleted_rows_count","field-id":514,"type":"long"},)"
    R"({"name":"partitions","field-id":507,"type":["null",{"type":"array","element-id":508,)"
    R"("items":{"type":"record","name":"r508","fields":[)"
    R"({"name":"contains_null","field-id":509,"type":"boolean"},)"
    R"({"name":"contains_nan","field-id":518,"type":["null","boolean"],"default":null},)"
    R"({"name":"lower_bound","field-id":510,"type":["null","bytes"],"default":null},)"
    R"({"name":"upper_bound","field-id":511,"type":["null","bytes"],"default":null}]}}],)"
    R"("default":null},)"
    R"({"name":"key_metadata","field-id":519,"type":["null","bytes"],"default":null}]})";

struct ManifestFile {
  std::string path;
  int64_t length = 0;
  int32_t spec_id = 0;
  int32_t content = 0;  // 0 data, 1 deletes
  int64_t sequence_number = 0, min_sequence_number = 0, added_snapshot_id = 0;
  int32_t added_files = 0, existing_files = 0, deleted_files = 0;
  int64_t added_rows = 0, existing_rows = 0, deleted_rows = 0;
  // `partitions` and `key_metadata` as encoded (a union each), carried over verbatim.
  std::string partitions_raw = std::string(1, '\0');    // null branch
  std::string key_metadata_raw = std::string(1, '\0');  // null branch
};

void AvroLong(std::string& out, int64_t v) {  // zigzag varint; Avro ints are encoded the same way
  uint64_t u = (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
  while (u >= 0x80) {
    out.push_back(static_cast<char>((u & 0x7f) | 0x80));
    u >>= 7;
  }
  out.push_back(static_cast<char>(u));
}

void AvroBytes(std::string& out, std::string_view s) {  // strings and bytes: length, then data
  AvroLong(out, static_cast<int64_t>(s.size()));
  out.append(s);
}

void EncodeManifest(std::string& out, const ManifestFile& m) {
  AvroBytes(out, m.path);
  AvroLong(out, m.length);
  AvroLong(out, m.spec_id);
  AvroLong(out, m.content);
  AvroLong(out, m.sequence_number);
  AvroLong(out, m.min_sequence_number);
  AvroLong(out, m.added_snapshot_id);
  AvroLong(out, m.added_files);
  AvroLong(out, m.existing_files);
  AvroLong(out, m.deleted_files);
  AvroLong(out, m.added_rows);
  AvroLong(out, m.existing_rows);
  AvroLong(out, m.deleted_rows);
  out += m.partitions_raw;
  out += m.key_metadata_raw;
}

// The records of a manifest list, encoded, in order.
struct EncodedManifests {
  std::string bytes;
  int64_t count = 0;
};

// A manifest list as Iceberg's ManifestListWriter (v2) writes it: file metadata snapshot-id,
// parent-snapshot-id ("null" without a parent), sequence-number, format-version; one block.
// The records go in as encoded: the bytes are the same as encoding each manifest again, which
// is what made the load generator, not the server, the limit on a hot table with a long history.
std::string EncodeManifestList(const EncodedManifests& manifests, int64_t snapshot_id,
                               std::optional<int64_t> parent, int64_t sequence_number,
                               std::mt19937_64& rng) {
  std::string out("Obj\x01", 4);
  const std::pair<std::string, std::string> meta[] = {
      {"snapshot-id", std::to_string(snapshot_id)},
      {"parent-snapshot-id", parent ? std::to_string(*parent) : "null"},
      {"sequence-number", std::to_string(sequence_number)},
      {"format-version", "2"},
      {"avro.schema", std::string(kManifestListSchema)},
      {"avro.codec", "null"}};
  AvroLong(out, static_cast<int64_t>(std::size(meta)));
  for (const auto& [k, v] : meta) {
    AvroBytes(out, k);
    AvroBytes(out, v);
  }
  AvroLong(out, 0);  // end of the metadata map
  std::string sync(16, '\0');
  for (auto& c : sync) c = static_cast<char>(rng() & 0xff);
  out += sync;
  if (manifests.count > 0) {
    AvroLong(out, manifests.count);
    AvroBytes(out, manifests.bytes);
    out += sync;
  }
  return out;
}

// A bounds-checked reader over Avro binary data; any overrun sets `bad`.
struct AvroIn {
  std::string_view d;
  size_t p = 0;
  bool bad = false;
  int64_t Long() {
    uint64_t u = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (p >= d.size()) break;
      const auto b = static_cast<uint8_t>(d[p++]);
      u |= static_cast<uint64_t>(b & 0x7f) << shift;
      if ((b & 0x80) == 0) return static_cast<int64_t>(u >> 1) ^ -static_cast<int64_t>(u & 1);
    }
    bad = true;
    return 0;
  }
  std::string_view Take(int64_t n) {
    if (bad || n < 0 || static_cast<uint64_t>(n) > d.size() - p) {
      bad = true;
      return {};
    }
    std::string_view s = d.substr(p, static_cast<size_t>(n));
    p += static_cast<size_t>(n);
    return s;
  }
  std::string_view Bytes() { return Take(Long()); }
  void NullableBytes() {  // ["null", "bytes"]
    if (Long() == 1) Bytes();
  }
};

bool DecodeManifest(AvroIn& in, ManifestFile& m) {
  m.path = std::string(in.Bytes());
  m.length = in.Long();
  m.spec_id = static_cast<int32_t>(in.Long());
  m.content = static_cast<int32_t>(in.Long());
  m.sequence_number = in.Long();
  m.min_sequence_number = in.Long();
  m.added_snapshot_id = in.Long();
  m.added_files = static_cast<int32_t>(in.Long());
  m.existing_files = static_cast<int32_t>(in.Long());
  m.deleted_files = static_cast<int32_t>(in.Long());
  m.added_rows = in.Long();
  m.existing_rows = in.Long();
  m.deleted_rows = in.Long();
  size_t start = in.p;
  const int64_t branch = in.Long();
  if (branch == 1) {  // array<r508>, in blocks
    for (int64_t n; !in.bad && (n = in.Long()) != 0;) {
      if (n < 0) {
        n = -n;
        in.Long();  // block size in bytes
      }
      for (int64_t i = 0; i < n && !in.bad; ++i) {
        in.Take(1);                      // contains_null
        if (in.Long() == 1) in.Take(1);  // contains_nan
        in.NullableBytes();              // lower_bound
        in.NullableBytes();              // upper_bound
      }
    }
  } else if (branch != 0) {
    in.bad = true;
  }
  if (in.bad) return false;
  m.partitions_raw = std::string(in.d.substr(start, in.p - start));
  start = in.p;
  in.NullableBytes();
  if (in.bad) return false;
  m.key_metadata_raw = std::string(in.d.substr(start, in.p - start));
  return true;
}

// Reads a manifest list written with kManifestListSchema and the null codec (every record is
// decoded, so a list that does not read back is caught); false (with a reason in `err`) for
// anything else.
bool DecodeManifestList(std::string_view bytes, EncodedManifests& out, std::string& err) {
  out = EncodedManifests{};
  if (bytes.substr(0, 4) != std::string_view("Obj\x01", 4)) {
    err = "not an Avro object container file";
    return false;
  }
  AvroIn in{bytes, 4};
  std::string_view schema, codec = "null";
  for (int64_t n; !in.bad && (n = in.Long()) != 0;) {
    if (n < 0) {
      n = -n;
      in.Long();
    }
    for (int64_t i = 0; i < n && !in.bad; ++i) {
      std::string_view k = in.Bytes(), v = in.Bytes();
      if (k == "avro.schema") schema = v;
      if (k == "avro.codec") codec = v;
    }
  }
  const std::string_view sync = in.Take(16);
  if (in.bad) {
    err = "truncated Avro header";
    return false;
  }
  if (codec != "null") {
    err = "unexpected Avro codec " + std::string(codec);
    return false;
  }
  if (schema != kManifestListSchema) {
    err = "unexpected manifest list schema";
    return false;
  }
  while (!in.bad && in.p < bytes.size()) {
    const int64_t count = in.Long();
    AvroIn block{in.Bytes()};
    if (in.Take(16) != sync) {
      err = "bad Avro sync marker";
      return false;
    }
    ManifestFile m;
    for (int64_t i = 0; i < count; ++i) {
      if (!DecodeManifest(block, m)) {
        err = "bad manifest_file record";
        return false;
      }
    }
    if (block.p != block.d.size()) {
      err = "trailing bytes in an Avro block";
      return false;
    }
    out.bytes += block.d;
    out.count += count;
  }
  if (in.bad) {
    err = "truncated Avro file";
    return false;
  }
  return true;
}

// --- a minimal scanner for the table metadata in load and commit responses --------------------

size_t SkipWs(const std::string& s, size_t p) {
  while (p < s.size() && (s[p] == ' ' || s[p] == '\n' || s[p] == '\r' || s[p] == '\t')) ++p;
  return p;
}

// s[p] is '"': the position after the closing quote (npos if none); the raw text inside in *out.
size_t ScanString(const std::string& s, size_t p, std::string_view* out) {
  // A plain loop: std::string::find_first_of calls memchr on its set once per character, which
  // made scanning a long history's commit response most of this driver's time.
  size_t q = p + 1;
  for (;;) {
    while (q < s.size() && s[q] != '"' && s[q] != '\\') ++q;
    if (q >= s.size()) return std::string::npos;
    if (s[q] != '\\') break;
    q += 2;
  }
  if (out != nullptr) *out = std::string_view(s).substr(p + 1, q - p - 1);
  return q + 1;
}

size_t SkipValue(const std::string& s, size_t p) {
  p = SkipWs(s, p);
  if (p >= s.size()) return std::string::npos;
  if (s[p] == '"') return ScanString(s, p, nullptr);
  if (s[p] == '{' || s[p] == '[') {
    int depth = 0;
    while (p < s.size()) {
      const char c = s[p];
      if (c == '"') {
        p = ScanString(s, p, nullptr);
        if (p == std::string::npos) return p;
        continue;
      }
      if (c == '{' || c == '[') {
        ++depth;
      } else if ((c == '}' || c == ']') && --depth == 0) {
        return p + 1;
      }
      ++p;
    }
    return std::string::npos;
  }
  while (p < s.size() && s[p] != ',' && s[p] != '}' && s[p] != ']') ++p;  // a scalar
  return p;
}

// The manifest-list of snapshot `id` in the metadata's "snapshots" array. One pass over that
// array, reading only each snapshot's top-level keys (the text grows with every snapshot).
std::optional<std::string> SnapshotManifestList(const std::string& s, int64_t id) {
  size_t p = s.find("\"snapshots\"");
  if (p == std::string::npos) return std::nullopt;
  p = SkipWs(s, p + 11);
  if (p >= s.size() || s[p] != ':') return std::nullopt;
  p = SkipWs(s, p + 1);
  if (p >= s.size() || s[p] != '[') return std::nullopt;
  ++p;
  for (;;) {
    p = SkipWs(s, p);
    if (p >= s.size() || s[p] == ']') return std::nullopt;
    if (s[p] == ',') {
      ++p;
      continue;
    }
    if (s[p] != '{') return std::nullopt;
    ++p;
    std::optional<int64_t> sid;
    std::string_view list;
    for (;;) {
      p = SkipWs(s, p);
      if (p >= s.size()) return std::nullopt;
      if (s[p] == '}') {
        ++p;
        break;
      }
      if (s[p] == ',') {
        ++p;
        continue;
      }
      if (s[p] != '"') return std::nullopt;
      std::string_view key;
      p = ScanString(s, p, &key);
      if (p == std::string::npos) return std::nullopt;
      p = SkipWs(s, p);
      if (p >= s.size() || s[p] != ':') return std::nullopt;
      p = SkipWs(s, p + 1);
      if (key == "snapshot-id") {
        sid = std::strtoll(s.c_str() + p, nullptr, 10);
      } else if (key == "manifest-list" && p < s.size() && s[p] == '"') {
        ScanString(s, p, &list);
      }
      p = SkipValue(s, p);
      if (p == std::string::npos) return std::nullopt;
    }
    if (sid == id) {
      if (list.empty()) return std::nullopt;
      return std::string(list);  // locations carry no JSON escapes here
    }
  }
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
//
// Every attempt writes a real manifest list for its snapshot S under --data-dir: S's own manifest
// (one added data file; the manifest itself is never written, nothing reads it) followed by the
// manifests of the parent's list, as a fast append writes it. So the server may rebase a stale
// append instead of answering 409.

std::string LocalPath(const std::string& location) {
  if (location.rfind("file://", 0) == 0) return location.substr(7);
  if (location.rfind("file:", 0) == 0) return location.substr(5);
  return location;
}

bool ReadWhole(const std::string& path, std::string& out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::stringstream ss;
  ss << in.rdbuf();
  out = ss.str();
  return true;
}

bool WriteWhole(const std::string& path, const std::string& bytes) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return false;
  const bool ok = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  return std::fclose(f) == 0 && ok;
}

struct TableView {
  std::string name;
  std::optional<int64_t> current;  // main's snapshot id
  int64_t last_seq = 0;
  std::string list;  // manifest-list location of `current`
  // The manifests of the list last read or written, so a retry on the same parent reads nothing.
  std::string cached_location;
  EncodedManifests cached;
};

std::mutex g_fatal_mu;
std::string g_fatal;  // first unrecoverable error (a manifest list that cannot be read back)
std::atomic<bool> g_stop{false};

void Fatal(const std::string& msg) {
  std::lock_guard<std::mutex> g(g_fatal_mu);
  if (g_fatal.empty()) g_fatal = msg;
  g_stop = true;
}

void Observe(const std::string& body, TableView& t) {
  t.current = FindInt(body, "current-snapshot-id");
  if (t.current && *t.current < 0) t.current.reset();
  t.last_seq = FindInt(body, "last-sequence-number").value_or(0);
  t.list.clear();
  if (t.current) {
    auto l = SnapshotManifestList(body, *t.current);
    if (!l) {
      Fatal("table " + t.name + ": no manifest-list for current snapshot " +
            std::to_string(*t.current));
      return;
    }
    t.list = *l;
  }
}

bool Refresh(Conn& c, const std::string& table_url, TableView& t, Stats& st) {
  Response r;
  if (!c.Do("GET", table_url, "", r) || r.status != 200) {
    ++st.errors;
    return false;
  }
  Observe(r.body, t);
  return true;
}

// The manifests of t.current's list (empty without a current snapshot).
bool ParentManifests(TableView& t) {
  if (!t.current) {
    t.cached_location.clear();
    t.cached = EncodedManifests{};
    return true;
  }
  if (t.cached_location == t.list) return true;
  std::string bytes, err;
  if (!ReadWhole(LocalPath(t.list), bytes)) {
    Fatal("cannot read manifest list " + t.list);
    return false;
  }
  if (!DecodeManifestList(bytes, t.cached, err)) {
    Fatal("manifest list " + t.list + ": " + err);
    return false;
  }
  t.cached_location = t.list;
  return true;
}

int RunCommit(const Args& a) {
  const int port = static_cast<int>(a.Int("port", 0));
  const std::string tables_url =
      a.Get("base") + "/namespaces/" + UrlEncode(a.Get("ns")) + "/tables/";
  const int threads = static_cast<int>(a.Int("threads", 16));
  const double secs_target = static_cast<double>(a.Int("seconds", 10));
  const bool hot = a.Get("mode") == "hot";
  // --statistics 1: every commit also sets a statistics file for its snapshot, as Trino's
  // INSERT does ([add-snapshot, set-snapshot-ref, set-statistics]).
  const bool with_statistics = a.Int("statistics", 0) != 0;
  const std::string data_dir = a.Get("data-dir");
  if (data_dir.empty() || data_dir[0] != '/') {
    std::fprintf(stderr, "commit needs --data-dir ABSOLUTE_DIR (manifest lists go there)\n");
    return 2;
  }
  const std::string lists_dir = data_dir + "/lists";
  if (std::system(("mkdir -p '" + lists_dir + "'").c_str()) != 0) {
    std::fprintf(stderr, "cannot create %s\n", lists_dir.c_str());
    return 2;
  }
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
      unknown(static_cast<size_t>(threads)), first_try(static_cast<size_t>(threads)),
      rebased(static_cast<size_t>(threads));
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
          mine.push_back({names[i], {}, 0, {}, {}, {}});
      }
      if (mine.empty()) return;
      for (auto& t : mine) Refresh(c, tables_url + UrlEncode(t.name), t, st);
      long k = 0;
      size_t rr = 0;
      Response r;
      while (MsSince(t0) < secs_target * 1000 && !g_stop) {
        TableView& t = mine[rr++ % mine.size()];
        const std::string url = tables_url + UrlEncode(t.name);
        const std::string token = "w" + std::to_string(w) + "-" + std::to_string(k++);
        const auto s = Clock::now();
        for (int tries = 0; tries < 1000 && MsSince(t0) < secs_target * 1000 + 30000 && !g_stop;
             ++tries) {
          const int64_t id = static_cast<int64_t>(rng() >> 2) + 1;
          const int64_t seq = t.last_seq + 1;
          const int64_t now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                                     std::chrono::system_clock::now().time_since_epoch())
                                     .count();
          if (!ParentManifests(t)) break;
          EncodedManifests manifests;
          manifests.bytes.reserve(t.cached.bytes.size() + 256);
          ManifestFile own;
          own.path = "file://" + data_dir + "/manifests/" + std::to_string(id) + "-m0.avro";
          own.length = 6000;
          own.sequence_number = own.min_sequence_number = seq;  // a new manifest: S's number
          own.added_snapshot_id = id;
          own.added_files = 1;
          own.added_rows = 1;
          EncodeManifest(manifests.bytes, own);
          manifests.bytes += t.cached.bytes;
          manifests.count = t.cached.count + 1;
          const std::string list = "file://" + lists_dir + "/snap-" + std::to_string(id) + "-w" +
                                   std::to_string(w) + ".avro";
          if (!WriteWhole(LocalPath(list),
                          EncodeManifestList(manifests, id, t.current, seq, rng))) {
            Fatal("cannot write " + list);
            break;
          }
          const std::string cur = t.current ? std::to_string(*t.current) : "null";
          std::string snap = "{\"snapshot-id\":" + std::to_string(id);
          if (t.current) snap += ",\"parent-snapshot-id\":" + cur;
          snap += ",\"sequence-number\":" + std::to_string(seq) +
                  ",\"timestamp-ms\":" + std::to_string(now_ms) + ",\"manifest-list\":\"" + list +
                  "\",\"summary\":{\"operation\":\"append\",\"bench-token\":\"" + token +
                  "\",\"added-data-files\":\"1\",\"added-records\":\"1\"},\"schema-id\":0}";
          const std::string body =
              "{\"requirements\":[{\"type\":\"assert-ref-snapshot-id\",\"ref\":\"main\",\"snapshot-"
              "id\":" +
              cur + "}],\"updates\":[{\"action\":\"add-snapshot\",\"snapshot\":" + snap +
              "},{\"action\":\"set-snapshot-ref\",\"ref-name\":\"main\",\"type\":\"branch\","
              "\"snapshot-id\":" +
              std::to_string(id) + "}" +
              (with_statistics
                   ? ",{\"action\":\"set-statistics\",\"snapshot-id\":" + std::to_string(id) +
                         ",\"statistics\":{\"snapshot-id\":" + std::to_string(id) +
                         ",\"statistics-path\":\"file://" + data_dir + "/stats/" +
                         std::to_string(id) +
                         ".puffin\",\"file-size-in-bytes\":413,\"file-footer-size-in-bytes\":313,"
                         "\"blob-metadata\":[]}}"
                   : std::string()) +
              "]}";
          ++attempts[uw];
          if (!c.Do("POST", url, body, r)) {
            ++st.errors;
            Refresh(c, url, t, st);
            continue;
          }
          ++st.status[r.status];
          if (r.status == 200) {
            st.lat_ms.push_back(MsSince(s));
            if (tries == 0) ++first_try[uw];
            // The response holds the new metadata: S is main's head, with the list the server
            // kept (ours, or a rebased one next to it).
            Observe(r.body, t);
            if (t.list != list) {
              ++rebased[uw];
            } else {
              t.cached_location = list;
              t.cached = std::move(manifests);
            }
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
  long att = 0, conf = 0, unk = 0, first = 0, reb = 0;
  for (size_t i = 0; i < stats.size(); ++i) {
    all.Merge(stats[i]);
    att += attempts[i];
    conf += conflicts[i];
    unk += unknown[i];
    first += first_try[i];
    reb += rebased[i];
  }
  {
    std::ofstream out(a.Get("acks-out"));
    for (auto& l : acks) out << l << "\n";
  }
  if (!g_fatal.empty()) {
    std::fprintf(stderr, "driver commit: %s\n", g_fatal.c_str());
    return 1;
  }
  std::printf(
      "{\"ok\":%zu,\"seconds\":%.3f,\"throughput\":%.1f,\"p50_ms\":%.3f,\"p99_ms\":%.3f,"
      "\"attempts\":%ld,\"first_try_ok\":%ld,\"server_rebased\":%ld,"
      "\"conflicts_409\":%ld,\"other_failures\":%ld,\"transport_errors\":%ld,\"status\":%s}\n",
      acks.size(), secs, static_cast<double>(acks.size()) / secs, Pct(all.lat_ms, 50),
      Pct(all.lat_ms, 99), att, first, reb, conf, unk, all.errors, StatusJson(all.status).c_str());
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
