// SPDX-License-Identifier: Apache-2.0
#include "iceberg/append_rebase.h"

#include <avro.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <set>

#include <nlohmann/json.hpp>

#include "common/util.h"
#include "iceberg/commit.h"

namespace cairn::iceberg {
namespace {

// --- Avro C RAII
// ----------------------------------------------------------------------------------

struct SchemaDeleter {
  void operator()(avro_obj_t* schema) const { avro_schema_decref(schema); }
};
using SchemaPtr = std::unique_ptr<avro_obj_t, SchemaDeleter>;

struct IfaceDeleter {
  void operator()(avro_value_iface_t* iface) const { avro_value_iface_decref(iface); }
};
using IfacePtr = std::unique_ptr<avro_value_iface_t, IfaceDeleter>;

struct ReaderDeleter {
  void operator()(avro_reader_t_* reader) const { avro_reader_free(reader); }
};
using ReaderPtr = std::unique_ptr<avro_reader_t_, ReaderDeleter>;

struct WriterDeleter {
  void operator()(avro_writer_t_* writer) const { avro_writer_free(writer); }
};
using WriterPtr = std::unique_ptr<avro_writer_t_, WriterDeleter>;

/// A generic Avro value of one schema, owning its storage.
class GenericValue {
 public:
  GenericValue() = default;
  GenericValue(const GenericValue&) = delete;
  GenericValue& operator=(const GenericValue&) = delete;
  GenericValue(GenericValue&&) = delete;
  GenericValue& operator=(GenericValue&&) = delete;
  ~GenericValue() {
    if (valid_) avro_value_decref(&value_);
  }

  Status Init(avro_schema_t schema) {
    iface_.reset(avro_generic_class_from_schema(schema));
    if (!iface_) return InvalidArgument("Avro schema not supported: {}", avro_strerror());
    if (avro_generic_value_new(iface_.get(), &value_) != 0) {
      return Internal("cannot create an Avro value: {}", avro_strerror());
    }
    valid_ = true;
    return Ok();
  }
  avro_value_t* get() { return &value_; }

 private:
  IfacePtr iface_;
  avro_value_t value_{};
  bool valid_ = false;
};

// Parses an Avro schema. The last one parsed on this thread is kept: a rebase parses the same
// writer schema for each list it reads and writes.
Result<SchemaPtr> ParseSchema(std::string_view text) {
  struct Last {
    std::string text;
    SchemaPtr schema;
  };
  static thread_local Last last;
  if (!last.schema || last.text != text) {
    avro_schema_t schema = nullptr;
    if (avro_schema_from_json_length(text.data(), text.size(), &schema) != 0) {
      return InvalidArgument("invalid Avro schema: {}", avro_strerror());
    }
    last.schema.reset(schema);
    last.text = text;
  }
  return SchemaPtr(avro_schema_incref(last.schema.get()));
}

// --- Avro values <-> JSON
// -------------------------------------------------------------------------

Result<Json> ValueToJson(avro_value_t* value) {  // NOLINT(misc-no-recursion)
  switch (avro_value_get_type(value)) {
    case AVRO_NULL:
      return Json(nullptr);
    case AVRO_BOOLEAN: {
      int b = 0;
      avro_value_get_boolean(value, &b);
      return Json(b != 0);
    }
    case AVRO_INT32: {
      int32_t i = 0;
      avro_value_get_int(value, &i);
      return Json(i);
    }
    case AVRO_INT64: {
      int64_t l = 0;
      avro_value_get_long(value, &l);
      return Json(l);
    }
    case AVRO_FLOAT: {
      float f = 0;
      avro_value_get_float(value, &f);
      return Json(f);
    }
    case AVRO_DOUBLE: {
      double d = 0;
      avro_value_get_double(value, &d);
      return Json(d);
    }
    case AVRO_STRING: {
      const char* s = nullptr;
      size_t size = 0;
      avro_value_get_string(value, &s, &size);
      if (size > 0 && s[size - 1] == '\0') --size;  // the size counts the terminator
      return Json(std::string(s == nullptr ? "" : s, size));
    }
    case AVRO_BYTES:
    case AVRO_FIXED: {
      const void* buf = nullptr;
      size_t size = 0;
      if (avro_value_get_type(value) == AVRO_BYTES) {
        avro_value_get_bytes(value, &buf, &size);
      } else {
        avro_value_get_fixed(value, &buf, &size);
      }
      const auto* p = static_cast<const uint8_t*>(buf);
      return Json::binary(std::vector<uint8_t>(p, p + size));
    }
    case AVRO_ENUM: {
      int symbol = 0;
      avro_value_get_enum(value, &symbol);
      const char* name = avro_schema_enum_get(avro_value_get_schema(value), symbol);
      if (name == nullptr) return InvalidArgument("Avro enum symbol {} out of range", symbol);
      return Json(name);
    }
    case AVRO_RECORD:
    case AVRO_MAP: {
      Json out = Json::object();
      size_t n = 0;
      avro_value_get_size(value, &n);
      for (size_t i = 0; i < n; ++i) {
        avro_value_t child;
        const char* name = nullptr;
        if (avro_value_get_by_index(value, i, &child, &name) != 0 || name == nullptr) {
          return InvalidArgument("cannot read Avro field {}: {}", i, avro_strerror());
        }
        CAIRN_ASSIGN_OR_RETURN(out[name], ValueToJson(&child));
      }
      return out;
    }
    case AVRO_ARRAY: {
      Json out = Json::array();
      size_t n = 0;
      avro_value_get_size(value, &n);
      for (size_t i = 0; i < n; ++i) {
        avro_value_t child;
        if (avro_value_get_by_index(value, i, &child, nullptr) != 0) {
          return InvalidArgument("cannot read Avro array element {}: {}", i, avro_strerror());
        }
        CAIRN_ASSIGN_OR_RETURN(Json element, ValueToJson(&child));
        out.push_back(std::move(element));
      }
      return out;
    }
    case AVRO_UNION: {
      avro_value_t branch;
      if (avro_value_get_current_branch(value, &branch) != 0) {
        return InvalidArgument("cannot read Avro union: {}", avro_strerror());
      }
      return ValueToJson(&branch);
    }
    default:
      return InvalidArgument("unsupported Avro type {}",
                             static_cast<int>(avro_value_get_type(value)));
  }
}

/// Whether a union branch of this schema can hold `j` (the first such branch is chosen).
bool BranchAccepts(avro_schema_t schema, const Json& j) {
  switch (avro_typeof(schema)) {
    case AVRO_NULL:
      return j.is_null();
    case AVRO_BOOLEAN:
      return j.is_boolean();
    case AVRO_INT32:
    case AVRO_INT64:
      return j.is_number_integer();
    case AVRO_FLOAT:
    case AVRO_DOUBLE:
      return j.is_number();
    case AVRO_STRING:
    case AVRO_ENUM:
      return j.is_string();
    case AVRO_BYTES:
    case AVRO_FIXED:
      return j.is_binary();
    case AVRO_RECORD:
    case AVRO_MAP:
      return j.is_object();
    case AVRO_ARRAY:
      return j.is_array();
    default:
      return false;
  }
}

Status JsonToValue(const Json& j, avro_value_t* value,  // NOLINT(misc-no-recursion)
                   const std::string& path) {
  const avro_type_t type = avro_value_get_type(value);
  const auto mismatch = [&]() {
    return InvalidArgument(
        "Avro field {}: {} does not fit the schema", path,
        j.is_binary() ? "<bytes>" : j.dump(-1, ' ', false, Json::error_handler_t::replace));
  };
  if (type == AVRO_UNION) {
    avro_schema_t schema = avro_value_get_schema(value);
    const size_t n = avro_schema_union_size(schema);
    for (size_t i = 0; i < n; ++i) {
      if (!BranchAccepts(avro_schema_union_branch(schema, static_cast<int>(i)), j)) continue;
      avro_value_t branch;
      if (avro_value_set_branch(value, static_cast<int>(i), &branch) != 0) {
        return Internal("cannot set Avro union branch: {}", avro_strerror());
      }
      return JsonToValue(j, &branch, path);
    }
    return mismatch();
  }
  if (type != AVRO_NULL && j.is_null()) {
    return InvalidArgument("Avro field {} is required", path);
  }
  int rc = 0;
  switch (type) {
    case AVRO_NULL:
      if (!j.is_null()) return mismatch();
      rc = avro_value_set_null(value);
      break;
    case AVRO_BOOLEAN:
      if (!j.is_boolean()) return mismatch();
      rc = avro_value_set_boolean(value, j.get<bool>() ? 1 : 0);
      break;
    case AVRO_INT32: {
      if (!j.is_number_integer()) return mismatch();
      const auto v = j.get<int64_t>();
      if (j.is_number_unsigned() && j.get<uint64_t>() > INT32_MAX) return mismatch();
      if (v < INT32_MIN || v > INT32_MAX) return mismatch();
      rc = avro_value_set_int(value, static_cast<int32_t>(v));
      break;
    }
    case AVRO_INT64:
      if (!j.is_number_integer()) return mismatch();
      if (j.is_number_unsigned() && j.get<uint64_t>() > INT64_MAX) return mismatch();
      rc = avro_value_set_long(value, j.get<int64_t>());
      break;
    case AVRO_FLOAT:
      if (!j.is_number()) return mismatch();
      rc = avro_value_set_float(value, j.get<float>());
      break;
    case AVRO_DOUBLE:
      if (!j.is_number()) return mismatch();
      rc = avro_value_set_double(value, j.get<double>());
      break;
    case AVRO_STRING: {
      if (!j.is_string()) return mismatch();
      const auto& s = j.get_ref<const std::string&>();
      rc = avro_value_set_string_len(value, s.c_str(), s.size() + 1);  // size counts the NUL
      break;
    }
    case AVRO_BYTES: {
      if (!j.is_binary()) return mismatch();
      auto& b = const_cast<Json::binary_t&>(j.get_binary());  // NOLINT: the C API copies
      rc = avro_value_set_bytes(value, b.data(), b.size());
      break;
    }
    case AVRO_FIXED: {
      if (!j.is_binary()) return mismatch();
      auto& b = const_cast<Json::binary_t&>(j.get_binary());  // NOLINT: the C API copies
      if (static_cast<int64_t>(b.size()) != avro_schema_fixed_size(avro_value_get_schema(value))) {
        return mismatch();
      }
      rc = avro_value_set_fixed(value, b.data(), b.size());
      break;
    }
    case AVRO_ENUM: {
      if (!j.is_string()) return mismatch();
      const int symbol = avro_schema_enum_get_by_name(avro_value_get_schema(value),
                                                      j.get_ref<const std::string&>().c_str());
      if (symbol < 0) return mismatch();
      rc = avro_value_set_enum(value, symbol);
      break;
    }
    case AVRO_RECORD: {
      if (!j.is_object()) return mismatch();
      size_t n = 0;
      avro_value_get_size(value, &n);
      std::set<std::string> known;
      for (size_t i = 0; i < n; ++i) {
        avro_value_t child;
        const char* name = nullptr;
        if (avro_value_get_by_index(value, i, &child, &name) != 0 || name == nullptr) {
          return Internal("cannot address Avro field {}: {}", i, avro_strerror());
        }
        known.insert(name);
        auto it = j.find(name);
        static const Json kNull = nullptr;
        CAIRN_RETURN_IF_ERROR(JsonToValue(it == j.end() ? kNull : *it, &child,
                                          path.empty() ? std::string(name) : path + "." + name));
      }
      for (const auto& [key, v] : j.items()) {
        if (!v.is_null() && known.count(key) == 0) {
          return InvalidArgument("Avro field {} is not in the schema",
                                 path.empty() ? key : path + "." + key);
        }
      }
      break;
    }
    case AVRO_MAP:
      if (!j.is_object()) return mismatch();
      for (const auto& [key, v] : j.items()) {
        avro_value_t child;
        if (avro_value_add(value, key.c_str(), &child, nullptr, nullptr) != 0) {
          return Internal("cannot add Avro map entry: {}", avro_strerror());
        }
        CAIRN_RETURN_IF_ERROR(JsonToValue(v, &child, path + "." + key));
      }
      break;
    case AVRO_ARRAY:
      if (!j.is_array()) return mismatch();
      for (const auto& v : j) {
        avro_value_t child;
        if (avro_value_append(value, &child, nullptr) != 0) {
          return Internal("cannot add Avro array element: {}", avro_strerror());
        }
        CAIRN_RETURN_IF_ERROR(JsonToValue(v, &child, path + "[]"));
      }
      break;
    default:
      return InvalidArgument("Avro field {}: unsupported type {}", path, static_cast<int>(type));
  }
  if (rc != 0) return Internal("cannot set Avro field {}: {}", path, avro_strerror());
  return Ok();
}

// --- Container format
// ------------------------------------------------------------------------------

constexpr std::string_view kMagic{"Obj\x01", 4};
constexpr size_t kSyncSize = 16;
constexpr size_t kMaxInflated = size_t{256} << 20;  // manifest lists are far smaller

void PutLong(std::string& out, int64_t v) {
  auto u = (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
  while (u >= 0x80) {
    out.push_back(static_cast<char>((u & 0x7f) | 0x80));
    u >>= 7;
  }
  out.push_back(static_cast<char>(u));
}

void PutBytes(std::string& out, std::string_view s) {
  PutLong(out, static_cast<int64_t>(s.size()));
  out.append(s);
}

/// A bounds-checked cursor over the container bytes.
class Cursor {
 public:
  explicit Cursor(std::string_view data) : data_(data) {}
  bool AtEnd() const { return pos_ == data_.size(); }

  Result<int64_t> Long() {
    uint64_t u = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos_ >= data_.size()) return Truncated();
      const auto b = static_cast<uint8_t>(data_[pos_++]);
      u |= static_cast<uint64_t>(b & 0x7f) << shift;
      if ((b & 0x80) == 0) return static_cast<int64_t>(u >> 1) ^ -static_cast<int64_t>(u & 1);
    }
    return InvalidArgument("malformed Avro long");
  }
  Result<std::string_view> Take(int64_t n) {
    if (n < 0 || static_cast<uint64_t>(n) > data_.size() - pos_) return Truncated();
    std::string_view out = data_.substr(pos_, static_cast<size_t>(n));
    pos_ += static_cast<size_t>(n);
    return out;
  }
  Result<std::string_view> Bytes() {
    CAIRN_ASSIGN_OR_RETURN(int64_t n, Long());
    return Take(n);
  }

 private:
  static Error Truncated() { return InvalidArgument("truncated Avro file"); }
  std::string_view data_;
  size_t pos_ = 0;
};

Result<std::string> Inflate(std::string_view in) {
  z_stream zs{};
  if (inflateInit2(&zs, -15) != Z_OK) return Internal("zlib inflateInit2 failed");
  std::string out;
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));  // NOLINT: zlib API
  zs.avail_in = static_cast<uInt>(in.size());
  int rc = Z_OK;
  std::array<char, 65536> buf{};
  while (rc != Z_STREAM_END) {
    zs.next_out = reinterpret_cast<Bytef*>(buf.data());  // NOLINT: zlib API
    zs.avail_out = static_cast<uInt>(buf.size());
    rc = inflate(&zs, Z_NO_FLUSH);
    if (rc != Z_OK && rc != Z_STREAM_END) break;
    out.append(buf.data(), buf.size() - zs.avail_out);
    if (out.size() > kMaxInflated) break;
    if (rc == Z_OK && zs.avail_in == 0 && zs.avail_out != 0) break;  // input ended early
  }
  inflateEnd(&zs);
  if (rc != Z_STREAM_END) return InvalidArgument("corrupt deflate block in Avro file");
  return out;
}

std::string RandomBytes(size_t n) {
  static thread_local std::mt19937_64 rng{std::random_device{}()};
  std::string out(n, '\0');
  for (auto& c : out) c = static_cast<char>(rng() & 0xff);
  return out;
}

// --- Rebase helpers ---------------------------------------------------------------------------

constexpr std::array<std::array<const char*, 3>, 6> kTotals = {{
    {"total-data-files", "added-data-files", "deleted-data-files"},
    {"total-records", "added-records", "deleted-records"},
    {"total-files-size", "added-files-size", "removed-files-size"},
    {"total-delete-files", "added-delete-files", "removed-delete-files"},
    {"total-position-deletes", "added-position-deletes", "removed-position-deletes"},
    {"total-equality-deletes", "added-equality-deletes", "removed-equality-deletes"},
}};

Error NotRebasable(std::string_view why) {
  return Conflict(EntityKind::kTable, "append cannot be rebased: {}", why);
}

std::optional<int64_t> SummaryLong(const Json& summary, const char* key) {
  auto it = summary.find(key);
  if (it == summary.end()) return std::nullopt;
  if (it->is_number_integer()) return it->get<int64_t>();
  if (it->is_string()) return ParseInt64(it->get_ref<const std::string&>());
  return std::nullopt;
}

std::optional<int64_t> LongField(const Json& obj, const char* key) {
  auto it = obj.find(key);
  if (it == obj.end() || !it->is_number_integer()) return std::nullopt;
  return it->get<int64_t>();
}

// From the newest: the snapshots a rebase looks for (main's head, its recent ancestors, the
// asserted parent) are at the end of a long history.
const Json* FindSnapshot(const Json& metadata, int64_t id) {
  auto it = metadata.find("snapshots");
  if (it == metadata.end() || !it->is_array()) return nullptr;
  for (auto s = it->rbegin(); s != it->rend(); ++s) {
    if (LongField(*s, "snapshot-id") == id) return &*s;
  }
  return nullptr;
}

}  // namespace

/// The records of a container file still encoded (with its writer schema), blocks
/// concatenated and inflated: what a list needs to be copied into another list with the same
/// writer schema without going through JSON.
struct RawRecords {
  std::string data;
  int64_t count = 0;
  std::vector<std::string> paths;  // each record's manifest_path, when all have one
  bool all_paths = true;
};

RecordChain::~RecordChain() {
  std::shared_ptr<const RecordChain> next = std::move(rest);
  // While this is the last owner of the next segment, take that segment's rest before the
  // segment goes, so no destructor below this one has anything left to release.
  while (next && next.use_count() == 1) {
    std::shared_ptr<const RecordChain> after =
        std::move(const_cast<RecordChain&>(*next).rest);  // made non-const (make_shared)
    next = std::move(after);
  }
}

std::vector<std::string> RecordChain::AllPaths() const {
  std::vector<std::string> out;
  out.reserve(static_cast<size_t>(total_count));
  for (const RecordChain* c = this; c != nullptr; c = c->rest.get())
    out.insert(out.end(), c->paths.begin(), c->paths.end());
  return out;
}

bool RecordChain::Equals(std::string_view bytes) const {
  if (bytes.size() != total_size) return false;
  for (const RecordChain* c = this; c != nullptr; c = c->rest.get()) {
    if (bytes.substr(0, c->records.size()) != c->records) return false;
    bytes.remove_prefix(c->records.size());
  }
  return bytes.empty();
}

WrittenLists::WrittenLists(size_t capacity) : capacity_(capacity) {}

WrittenLists::Reads WrittenLists::reads() const {
  return {own_records_only_.load(std::memory_order_relaxed),
          whole_.load(std::memory_order_relaxed)};
}

void WrittenLists::CountRead(bool own_records_only) {
  (own_records_only ? own_records_only_ : whole_).fetch_add(1, std::memory_order_relaxed);
}

std::optional<WrittenLists::List> WrittenLists::Find(const std::string& location) {
  std::lock_guard lock(mu_);
  auto it = lists_.find(location);
  if (it == lists_.end()) return std::nullopt;
  return it->second;
}

void WrittenLists::Add(const std::string& location, List list) {
  if (capacity_ == 0) return;
  std::lock_guard lock(mu_);
  if (!lists_.emplace(location, std::move(list)).second) return;
  order_.push_back(location);
  if (order_.size() > capacity_) {
    lists_.erase(order_.front());
    order_.pop_front();
  }
}

namespace {

/// Reading a list only for which manifests it holds: a record becomes {"manifest_path",
/// "added_snapshot_id"} (when both are plain string and long fields), except a record added by
/// snapshot `full_for`, which is read whole. Converting every record to JSON was most of a
/// rebase's time on a table with many manifests.
struct SlimRead {
  std::optional<int64_t> full_for;
};

Status ReadContainer(std::string_view bytes, AvroFile* file, RawRecords* raw,
                     const SlimRead* slim = nullptr);

Result<std::string> ReadListBytes(const RebaseIo& io, const std::string& location) {
  auto bytes = io.read(location);
  if (!bytes)
    return NotRebasable(
        fmt::format("cannot read manifest list {}: {}", location, bytes.error().message));
  return bytes;
}

Result<AvroFile> ParseList(const std::string& location, std::string_view bytes,
                           const SlimRead& slim) {
  AvroFile file;
  if (auto read = ReadContainer(bytes, &file, nullptr, &slim); !read)
    return NotRebasable(fmt::format("manifest list {}: {}", location, read.error().message));
  return file;
}

Result<AvroFile> ReadList(const RebaseIo& io, const std::string& location, const SlimRead& slim) {
  CAIRN_ASSIGN_OR_RETURN(std::string bytes, ReadListBytes(io, location));
  return ParseList(location, bytes, slim);
}

std::string RebasedLocation(const std::string& list_location) {
  const size_t slash = list_location.rfind('/');
  std::string dir = slash == std::string::npos ? "" : list_location.substr(0, slash + 1);
  std::string name = slash == std::string::npos ? list_location : list_location.substr(slash + 1);
  if (name.size() > 5 && name.ends_with(".avro")) name.resize(name.size() - 5);
  return dir + name + "-rebased-" + RandomUuid() + ".avro";
}

/// Reads a container file. Every record is decoded with the writer schema (so a corrupt file
/// is refused either way); `file->records` gets them as JSON (slimmed with `slim`) unless `raw`
/// is given, which then gets them still encoded.

}  // namespace

Result<AvroFile> ReadAvroFile(std::string_view bytes) {
  AvroFile file;
  CAIRN_RETURN_IF_ERROR(ReadContainer(bytes, &file, nullptr));
  return file;
}

namespace {

// The record's manifest_path and added_snapshot_id, when they are plain fields.
std::optional<std::pair<std::string, int64_t>> ManifestIdentity(avro_value_t* record) {
  avro_value_t path;
  avro_value_t added_by;
  if (avro_value_get_by_name(record, "manifest_path", &path, nullptr) != 0 ||
      avro_value_get_by_name(record, "added_snapshot_id", &added_by, nullptr) != 0 ||
      avro_value_get_type(&path) != AVRO_STRING || avro_value_get_type(&added_by) != AVRO_INT64) {
    return std::nullopt;
  }
  const char* text = nullptr;
  size_t size = 0;
  int64_t id = 0;
  if (avro_value_get_string(&path, &text, &size) != 0 || avro_value_get_long(&added_by, &id) != 0)
    return std::nullopt;
  if (size > 0 && text[size - 1] == '\0') --size;  // the size counts the terminator
  return std::make_pair(std::string(text == nullptr ? "" : text, size), id);
}

// A container file's header: the schema and other metadata into `file`, the codec into
// `codec`; returns the sync marker.
Result<std::string_view> ReadHeader(Cursor& in, AvroFile& file, std::string& codec) {
  codec = "null";
  bool has_schema = false;
  for (;;) {
    CAIRN_ASSIGN_OR_RETURN(int64_t count, in.Long());
    if (count == 0) break;
    if (count < 0) {
      count = -count;
      CAIRN_ASSIGN_OR_RETURN(int64_t ignored_size, in.Long());
      (void)ignored_size;
    }
    for (int64_t i = 0; i < count; ++i) {
      CAIRN_ASSIGN_OR_RETURN(std::string_view key, in.Bytes());
      CAIRN_ASSIGN_OR_RETURN(std::string_view value, in.Bytes());
      if (key == "avro.schema") {
        file.schema = value;
        has_schema = true;
      } else if (key == "avro.codec") {
        codec = value;
      } else {
        file.metadata.emplace_back(key, value);
      }
    }
  }
  if (!has_schema) return InvalidArgument("Avro file has no schema");
  if (codec != "null" && codec != "deflate")
    return InvalidArgument("unsupported Avro codec {}", codec);
  return in.Take(kSyncSize);
}

// The next block of a container file after its header: its record count, and its records
// (inflated into `inflated` when the codec is deflate).
struct Block {
  int64_t count = 0;
  std::string_view records;
};
Result<Block> NextBlock(Cursor& in, std::string_view sync, const std::string& codec,
                        std::string& inflated) {
  CAIRN_ASSIGN_OR_RETURN(int64_t count, in.Long());
  CAIRN_ASSIGN_OR_RETURN(std::string_view block, in.Bytes());
  CAIRN_ASSIGN_OR_RETURN(std::string_view block_sync, in.Take(kSyncSize));
  if (block_sync != sync) return InvalidArgument("Avro block has a wrong sync marker");
  if (count < 0) return InvalidArgument("negative Avro block count");
  if (codec == "deflate") {
    CAIRN_ASSIGN_OR_RETURN(inflated, Inflate(block));
    block = inflated;
  }
  return Block{count, block};
}

Status ReadContainer(std::string_view bytes, AvroFile* out, RawRecords* raw, const SlimRead* slim) {
  AvroFile& file = *out;
  if (!bytes.starts_with(kMagic)) return InvalidArgument("not an Avro object container file");
  Cursor in(bytes.substr(kMagic.size()));
  std::string codec;
  CAIRN_ASSIGN_OR_RETURN(std::string_view sync, ReadHeader(in, file, codec));
  CAIRN_ASSIGN_OR_RETURN(SchemaPtr schema, ParseSchema(file.schema));
  GenericValue value;
  CAIRN_RETURN_IF_ERROR(value.Init(schema.get()));
  while (!in.AtEnd()) {
    std::string inflated;
    CAIRN_ASSIGN_OR_RETURN(Block next, NextBlock(in, sync, codec, inflated));
    const int64_t count = next.count;
    const std::string_view block = next.records;
    ReaderPtr reader(avro_reader_memory(block.data(), static_cast<int64_t>(block.size())));
    if (!reader) return Internal("cannot create an Avro reader");
    for (int64_t i = 0; i < count; ++i) {
      avro_value_reset(value.get());
      if (avro_value_read(reader.get(), value.get()) != 0) {
        return InvalidArgument("cannot decode Avro record: {}", avro_strerror());
      }
      if (raw != nullptr) {
        if (raw->all_paths) {
          auto identity = ManifestIdentity(value.get());
          if (identity) {
            raw->paths.push_back(std::move(identity->first));
          } else {
            raw->all_paths = false;
          }
        }
        continue;
      }
      if (slim != nullptr) {
        auto identity = ManifestIdentity(value.get());
        if (identity && identity->second != slim->full_for) {
          Json record = Json::object();
          record["manifest_path"] = std::move(identity->first);
          record["added_snapshot_id"] = identity->second;
          file.records.push_back(std::move(record));
          continue;
        }
      }
      CAIRN_ASSIGN_OR_RETURN(Json record, ValueToJson(value.get()));
      file.records.push_back(std::move(record));
    }
    if (raw != nullptr) {
      // Exactly `count` records fill the block; anything else is not a list to copy verbatim.
      char probe = 0;
      if (avro_read(reader.get(), &probe, 1) == 0) {
        return InvalidArgument("Avro block has bytes after its records");
      }
      raw->data.append(block);
      raw->count += count;
    }
  }
  return Ok();
}

/// S's list read only up to its parent's records: when the list has the writer schema of the
/// parent (a list this rebase wrote: `parent_schema`, `parent`) and its records, all blocks
/// inflated and joined, end with exactly the parent's encoded records, the records before them
/// are decoded and returned (as JSON), and must all be S's own (added by `s_id`) and fill that
/// part exactly. Otherwise nullopt, and the caller reads the whole list as before (which also
/// words any error).
std::optional<AvroFile> ReadOwnRecords(std::string_view bytes, const std::string& parent_schema,
                                       const RecordChain& parent, int64_t s_id) {
  if (!bytes.starts_with(kMagic)) return std::nullopt;
  Cursor in(bytes.substr(kMagic.size()));
  AvroFile file;
  std::string codec;
  auto sync = ReadHeader(in, file, codec);
  if (!sync || file.schema != parent_schema) return std::nullopt;
  std::string joined;        // the blocks' records, when not one plain block
  std::string_view records;  // in `bytes` or in `joined`
  int64_t count = 0;
  for (int blocks = 0; !in.AtEnd(); ++blocks) {
    std::string inflated;
    auto block = NextBlock(in, *sync, codec, inflated);
    if (!block) return std::nullopt;
    count += block->count;
    if (codec != "deflate" && blocks == 0) {
      records = block->records;  // in `bytes`
      continue;
    }
    if (joined.empty()) joined = records;
    if (joined.size() + block->records.size() > kMaxInflated) return std::nullopt;
    joined += block->records;
    records = joined;
  }
  if (count < parent.total_count || records.size() < parent.total_size) return std::nullopt;
  const size_t own_size = records.size() - parent.total_size;
  if (!parent.Equals(records.substr(own_size))) return std::nullopt;
  auto schema = ParseSchema(file.schema);
  GenericValue value;
  if (!schema || !value.Init(schema->get())) return std::nullopt;
  ReaderPtr reader(avro_reader_memory(records.data(), static_cast<int64_t>(own_size)));
  if (!reader) return std::nullopt;
  for (int64_t i = 0; i < count - parent.total_count; ++i) {
    avro_value_reset(value.get());
    if (avro_value_read(reader.get(), value.get()) != 0) return std::nullopt;
    auto identity = ManifestIdentity(value.get());
    if (!identity || identity->second != s_id) return std::nullopt;
    auto record = ValueToJson(value.get());
    if (!record) return std::nullopt;
    file.records.push_back(std::move(*record));
  }
  char probe = 0;
  if (avro_read(reader.get(), &probe, 1) == 0) return std::nullopt;  // bytes left over
  return file;
}

}  // namespace

namespace {

/// WriteAvroFile, with the records of `extra` (encoded with `file.schema`), when given, after
/// file.records; file.records, encoded, also to `own_out` when given.
Result<std::string> WriteContainer(const AvroFile& file, const RecordChain* extra,
                                   std::string* own_out) {
  CAIRN_ASSIGN_OR_RETURN(SchemaPtr schema, ParseSchema(file.schema));
  GenericValue value;
  CAIRN_RETURN_IF_ERROR(value.Init(schema.get()));
  std::string block;
  for (const auto& record : file.records) {
    avro_value_reset(value.get());
    CAIRN_RETURN_IF_ERROR(JsonToValue(record, value.get(), ""));
    size_t size = 0;
    if (avro_value_sizeof(value.get(), &size) != 0) {
      return Internal("cannot size an Avro record: {}", avro_strerror());
    }
    const size_t offset = block.size();
    block.resize(offset + size);
    WriterPtr writer(avro_writer_memory(block.data() + offset, static_cast<int64_t>(size)));
    if (!writer || avro_value_write(writer.get(), value.get()) != 0) {
      return Internal("cannot encode an Avro record: {}", avro_strerror());
    }
  }
  std::string out(kMagic);
  PutLong(out, static_cast<int64_t>(file.metadata.size() + 2));
  for (const auto& [key, v] : file.metadata) {
    PutBytes(out, key);
    PutBytes(out, v);
  }
  PutBytes(out, "avro.schema");
  PutBytes(out, file.schema);
  PutBytes(out, "avro.codec");
  PutBytes(out, "null");
  PutLong(out, 0);
  const std::string sync = RandomBytes(kSyncSize);
  out += sync;
  const size_t extra_size = extra != nullptr ? extra->total_size : 0;
  const int64_t count = static_cast<int64_t>(file.records.size()) +
                        (extra != nullptr ? extra->total_count : 0);
  if (count > 0) {
    PutLong(out, count);
    PutLong(out, static_cast<int64_t>(block.size() + extra_size));
    out.reserve(out.size() + block.size() + extra_size + kSyncSize);
    out += block;
    for (const RecordChain* c = extra; c != nullptr; c = c->rest.get()) out += c->records;
    out += sync;
  }
  if (own_out != nullptr) *own_out = std::move(block);
  return out;
}

}  // namespace

Result<std::string> WriteAvroFile(const AvroFile& file) {
  return WriteContainer(file, nullptr, nullptr);
}

Result<std::pair<Json, Json>> RebaseAppend(const Json& current, const Json& requirements,
                                           const Json& updates, const RebaseIo& io) {
  // The shape of the commit: a plain fast append to main.
  if (!current.is_object() || current.value("format-version", 0) != 2) {
    return NotRebasable("only format version 2 tables are rebased");
  }
  // [add-snapshot S, set-snapshot-ref main -> S] and, anywhere after the add-snapshot, only
  // updates a concurrent append cannot conflict with: statistics of S, and table properties
  // (what engines send with an insert; Trino writes S's statistics with every one). The
  // client's own retry would send those again as they are, so they are carried over unchanged.
  if (!updates.is_array() || updates.size() < 2 || !updates[0].is_object() ||
      updates[0].value("action", "") != "add-snapshot") {
    return NotRebasable("the updates are not [add-snapshot, set-snapshot-ref]");
  }
  const Json& snapshot = updates[0].value("snapshot", Json());
  if (!snapshot.is_object()) return NotRebasable("add-snapshot has no snapshot");
  const std::optional<int64_t> s_id = LongField(snapshot, "snapshot-id");
  std::optional<size_t> set_ref_index;
  for (size_t i = 1; i < updates.size(); ++i) {
    const Json& u = updates[i];
    const std::string action = u.is_object() ? u.value("action", "") : "";
    if (action == "set-snapshot-ref" && !set_ref_index) {
      set_ref_index = i;
    } else if (action == "set-statistics" || action == "set-partition-statistics") {
      const char* field = action == "set-statistics" ? "statistics" : "partition-statistics";
      const Json& file = u.value(field, Json());
      if (!file.is_object() || LongField(file, "snapshot-id") != s_id ||
          (u.contains("snapshot-id") && LongField(u, "snapshot-id") != s_id)) {
        return NotRebasable("the statistics are not those of the appended snapshot");
      }
    } else if (action != "set-properties" && action != "remove-properties") {
      return NotRebasable(
          "the updates are not [add-snapshot, set-snapshot-ref] with the new snapshot's "
          "statistics or table properties");
    }
  }
  if (!set_ref_index) return NotRebasable("the updates are not [add-snapshot, set-snapshot-ref]");
  const std::optional<int64_t> s_seq = LongField(snapshot, "sequence-number");
  const Json& summary = snapshot.value("summary", Json());
  if (!s_id || !s_seq || !summary.is_object() || summary.value("operation", "") != "append" ||
      !snapshot.contains("manifest-list") || !snapshot["manifest-list"].is_string()) {
    return NotRebasable("the snapshot is not an append with a manifest list");
  }
  const Json& set_ref = updates[*set_ref_index];
  if (set_ref.value("ref-name", "") != "main" || set_ref.value("type", "") != "branch" ||
      LongField(set_ref, "snapshot-id") != s_id) {
    return NotRebasable("the snapshot is not set as the main branch");
  }
  const bool id_taken = io.snapshot_ids != nullptr ? io.snapshot_ids->count(*s_id) > 0
                                                   : FindSnapshot(current, *s_id) != nullptr;
  if (id_taken) return NotRebasable("the snapshot id exists");
  if (LongField(snapshot, "schema-id") != LongField(current, "current-schema-id")) {
    return NotRebasable("the schema changed");
  }

  // The requirements: main's assertion is the only failing one.
  if (!requirements.is_array()) return NotRebasable("malformed requirements");
  std::optional<size_t> main_index;
  Json others = Json::array();
  for (size_t i = 0; i < requirements.size(); ++i) {
    const Json& r = requirements[i];
    if (r.is_object() && r.value("type", "") == "assert-ref-snapshot-id" &&
        r.value("ref", "") == "main") {
      if (main_index) return NotRebasable("main is asserted twice");
      main_index = i;
    } else {
      others.push_back(r);
    }
  }
  if (!main_index) return NotRebasable("main's snapshot is not asserted");
  const Json& asserted = requirements[*main_index];
  std::optional<int64_t> parent;  // P; nullopt when main did not exist
  if (auto it = asserted.find("snapshot-id"); it != asserted.end() && !it->is_null()) {
    parent = LongField(asserted, "snapshot-id");
    if (!parent) return NotRebasable("malformed main assertion");
  }
  if (LongField(snapshot, "parent-snapshot-id") != parent) {
    return NotRebasable("the snapshot's parent is not the asserted main");
  }
  if (auto status = CheckTableRequirements(&current, others); !status) {
    return NotRebasable(status.error().message);
  }
  const Json* refs = current.contains("refs") ? &current["refs"] : nullptr;
  std::optional<int64_t> main_id;
  if (refs != nullptr && refs->is_object() && refs->contains("main")) {
    main_id = LongField((*refs)["main"], "snapshot-id");
  }
  if (!main_id) return NotRebasable("the table has no main branch");
  if (main_id == parent) return NotRebasable("main has not moved");

  // Only appends between P and current main.
  const Json* main_snapshot = FindSnapshot(current, *main_id);
  if (main_snapshot == nullptr) return NotRebasable("main's snapshot is missing");
  {
    const Json* s = main_snapshot;
    const size_t limit = current["snapshots"].size();
    for (size_t steps = 0;; ++steps) {
      if (s == nullptr || steps > limit)
        return NotRebasable("the asserted snapshot is not an ancestor of main");
      const Json& ssum = s->value("summary", Json());
      if (!ssum.is_object() || ssum.value("operation", "") != "append") {
        return NotRebasable("a concurrent commit is not an append");
      }
      const std::optional<int64_t> up = LongField(*s, "parent-snapshot-id");
      if (up == parent) break;
      if (!up) return NotRebasable("the asserted snapshot is not an ancestor of main");
      s = FindSnapshot(current, *up);
    }
  }
  std::set<int64_t> spec_ids;
  for (const auto& spec : current.value("partition-specs", Json::array())) {
    if (auto id = LongField(spec, "spec-id")) spec_ids.insert(*id);
  }

  // The manifest lists. P's first: when this rebase wrote it, S's list is read only as far
  // as the records S copied from it.
  std::string p_list;
  std::optional<WrittenLists::List> parent_written;
  if (parent) {
    const Json* p = FindSnapshot(current, *parent);
    if (p == nullptr || !p->contains("manifest-list") || !(*p)["manifest-list"].is_string()) {
      return NotRebasable("the asserted snapshot has no manifest list");
    }
    p_list = (*p)["manifest-list"].get<std::string>();
    if (io.written_lists) parent_written = io.written_lists->Find(p_list);
  }
  const std::string s_list = snapshot["manifest-list"].get<std::string>();
  AvroFile s_file;
  bool own_records_only = false;  // s_file holds S's own records, its others being exactly P's
  {
    CAIRN_ASSIGN_OR_RETURN(std::string s_bytes, ReadListBytes(io, s_list));
    std::optional<AvroFile> own_only;
    if (parent_written) {
      own_only = ReadOwnRecords(s_bytes, *parent_written->schema, *parent_written->records, *s_id);
    }
    own_records_only = own_only.has_value();
    if (io.written_lists) io.written_lists->CountRead(own_records_only);
    if (own_only) {
      s_file = std::move(*own_only);
    } else {
      CAIRN_ASSIGN_OR_RETURN(s_file, ParseList(s_list, s_bytes, SlimRead{s_id}));
    }
  }
  if (!main_snapshot->contains("manifest-list") || !(*main_snapshot)["manifest-list"].is_string()) {
    return NotRebasable("main's snapshot has no manifest list");
  }
  // M's manifests go into the new list as they are: still encoded when M's list has L_S's
  // writer schema (the same writer, or a list this rebase wrote), else through JSON. Decoding
  // them to JSON and back was most of a rebase's time on a table with many manifests.
  AvroFile main_file;
  RawRecords main_read;
  std::shared_ptr<const RecordChain> main_records;  // M's, still encoded, when they can be
  bool paths_known = true;  // of every record in the new list (then it is remembered)
  const std::string main_list = (*main_snapshot)["manifest-list"].get<std::string>();
  const std::optional<WrittenLists::List> main_written =
      io.written_lists ? io.written_lists->Find(main_list) : std::nullopt;
  if (main_written && *main_written->schema == s_file.schema) {
    main_records = main_written->records;
  } else {
    auto main_bytes = io.read(main_list);
    if (!main_bytes) {
      return NotRebasable(
          fmt::format("cannot read manifest list {}: {}", main_list, main_bytes.error().message));
    }
    if (auto read = ReadContainer(*main_bytes, &main_file, &main_read); !read) {
      return NotRebasable(fmt::format("manifest list {}: {}", main_list, read.error().message));
    }
    if (main_file.schema != s_file.schema) {
      main_read = RawRecords{};
      auto file = ReadAvroFile(*main_bytes);
      if (!file) {
        return NotRebasable(fmt::format("manifest list {}: {}", main_list, file.error().message));
      }
      main_file = std::move(*file);
    } else {
      auto chain = std::make_shared<RecordChain>();
      chain->count = chain->total_count = main_read.count;
      chain->total_size = main_read.data.size();
      chain->records = std::move(main_read.data);
      paths_known = main_read.all_paths;
      if (paths_known) chain->paths = std::move(main_read.paths);
      main_records = std::move(chain);
    }
  }
  auto take_path = [](Json& m) {
    auto it = m.find("manifest_path");
    return it != m.end() && it->is_string() ? std::move(it->get_ref<std::string&>())
                                            : std::string();
  };

  const int64_t new_seq = current.value("last-sequence-number", int64_t{0}) + 1;
  std::vector<Json> records;
  WrittenLists::Paths inherited_paths;
  inherited_paths.reserve(s_file.records.size());
  for (auto& m : s_file.records) {
    if (LongField(m, "added_snapshot_id") != s_id) {
      inherited_paths.push_back(take_path(m));
      continue;
    }
    // A manifest of S itself: only added data files (a merged manifest would also carry P's).
    if (LongField(m, "existing_files_count").value_or(-1) != 0 ||
        LongField(m, "deleted_files_count").value_or(-1) != 0 ||
        LongField(m, "content").value_or(0) != 0) {
      return NotRebasable("the snapshot's manifests are not plain added data files");
    }
    if (spec_ids.count(LongField(m, "partition_spec_id").value_or(-1)) == 0) {
      return NotRebasable("a manifest's partition spec is gone");
    }
    for (const char* key : {"sequence_number", "min_sequence_number"}) {
      if (LongField(m, key) == s_seq) m[key] = new_seq;
    }
    records.push_back(std::move(m));
  }
  // Writers copy the parent's list in order, so the lists are compared as they are first; as
  // multisets (sorted copies) only when that differs.
  if (!own_records_only) {  // else S's other records are P's, byte for byte
    WrittenLists::Paths parent_paths;
    if (parent_written) {
      parent_paths = parent_written->records->AllPaths();
    } else if (parent) {
      CAIRN_ASSIGN_OR_RETURN(AvroFile p_file, ReadList(io, p_list, SlimRead{}));
      parent_paths.reserve(p_file.records.size());
      for (auto& m : p_file.records) parent_paths.push_back(take_path(m));
    }
    if (inherited_paths != parent_paths) {
      std::sort(inherited_paths.begin(), inherited_paths.end());
      std::sort(parent_paths.begin(), parent_paths.end());
      if (inherited_paths != parent_paths) {
        return NotRebasable(
            "the snapshot's manifest list is not its parent's plus its own manifests");
      }
    }
  }
  for (auto& m : main_file.records) records.push_back(std::move(m));
  // The new list's records: its own segment (S's manifests, and M's when they went through
  // JSON) in front of M's chain.
  auto new_records = std::make_shared<RecordChain>();
  new_records->count = static_cast<int64_t>(records.size());
  if (paths_known) {
    new_records->paths.reserve(records.size());
    for (const auto& m : records) new_records->paths.push_back(m.value("manifest_path", ""));
  }

  AvroFile out;
  out.schema = std::move(s_file.schema);
  out.metadata = std::move(s_file.metadata);
  const std::vector<std::pair<std::string, std::string>> keys = {
      {"snapshot-id", std::to_string(*s_id)},
      {"parent-snapshot-id", std::to_string(*main_id)},
      {"sequence-number", std::to_string(new_seq)},
      {"format-version", "2"}};
  for (const auto& [key, v] : keys) {
    auto it = std::find_if(out.metadata.begin(), out.metadata.end(),
                           [&key = key](const auto& kv) { return kv.first == key; });
    if (it == out.metadata.end()) {
      out.metadata.emplace_back(key, v);
    } else {
      it->second = v;
    }
  }
  out.records = std::move(records);
  auto schema_text = std::make_shared<const std::string>(out.schema);
  auto bytes = WriteContainer(out, main_records.get(), &new_records->records);
  if (!bytes) return NotRebasable(bytes.error().message);
  new_records->total_count =
      new_records->count + (main_records ? main_records->total_count : 0);
  new_records->total_size =
      new_records->records.size() + (main_records ? main_records->total_size : 0);
  new_records->rest = std::move(main_records);

  // S' and the matching requirements.
  Json rebased = snapshot;
  rebased["parent-snapshot-id"] = *main_id;
  rebased["sequence-number"] = new_seq;
  const std::string location = RebasedLocation(s_list);
  rebased["manifest-list"] = location;
  const int64_t main_ts = main_snapshot->value("timestamp-ms", int64_t{0});
  if (rebased.value("timestamp-ms", int64_t{0}) < main_ts) rebased["timestamp-ms"] = main_ts;
  Json& new_summary = rebased["summary"];
  const Json& main_summary = main_snapshot->value("summary", Json::object());
  for (const auto& [total, added, removed] : kTotals) {
    const std::optional<int64_t> previous = SummaryLong(main_summary, total);
    const std::optional<int64_t> plus = summary.contains(added) ? SummaryLong(summary, added) : 0;
    const std::optional<int64_t> minus =
        summary.contains(removed) ? SummaryLong(summary, removed) : 0;
    if (previous && plus && minus && *previous + *plus - *minus >= 0) {
      new_summary[total] = std::to_string(*previous + *plus - *minus);
    } else {
      new_summary.erase(total);
    }
  }
  Json new_updates = updates;
  new_updates[0]["snapshot"] = std::move(rebased);
  Json new_requirements = requirements;
  new_requirements[*main_index]["snapshot-id"] = *main_id;

  if (auto written = io.write_new(location, *bytes); !written) {
    return NotRebasable(fmt::format("cannot write {}: {}", location, written.error().message));
  }
  if (paths_known && io.written_lists) {
    io.written_lists->Add(location, {std::move(schema_text), std::move(new_records)});
  }
  return std::make_pair(std::move(new_requirements), std::move(new_updates));
}

}  // namespace cairn::iceberg
