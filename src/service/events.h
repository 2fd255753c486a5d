// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "connector/connector.h"
#include "governance/access_control.h"

namespace cairn::service {

/// What happened to an object.
enum class ChangeType {
  kCreated,
  kAltered,    // properties, comment, columns, a namespace's properties, a view's new version
  kDropped,
  kRenamed,    // `renamed_to` holds the new name (and schema, for a table moved between schemas)
  kCommitted,  // a new table metadata version (`detail`: its metadata location)
};

std::string_view ChangeTypeName(ChangeType type);

/// One change of one object, as every interface reports it: after the change is durable, never
/// for a request that failed. Names are the object's path: metalake, catalog, schema levels,
/// leaf name (empty above the leaf level).
struct ObjectChange {
  ChangeType type = ChangeType::kAltered;
  governance::ObjectType kind = governance::ObjectType::kTable;
  std::string metalake;
  std::string catalog;
  std::vector<std::string> schema;
  std::string name;
  struct NewName {
    std::vector<std::string> schema;
    std::string name;
  };
  std::optional<NewName> renamed_to;
  std::string principal;
  int64_t time_ms = 0;
  std::string interface;  // "gravitino", "iceberg"
  std::string detail;     // e.g. the new metadata location of a commit

  /// `metalake.catalog.schema...name` (as far as it goes).
  std::string FullName() const;
};

/// A change made by the caller of `ctx` to the object at (metalake, catalog, schema, name), as
/// far as the path goes. A `new_name` other than the object's own (its leaf name; for a schema
/// its last level; for a catalog or metalake its name) makes it a rename to that name.
ObjectChange MakeChange(const connector::CallContext& ctx, ChangeType type,
                        governance::ObjectType kind, std::string metalake,
                        std::string catalog = "", std::vector<std::string> schema = {},
                        std::string name = "", std::string_view new_name = "");

/// The in-process stream of object changes. Listeners are called synchronously on the thread
/// that made the change, in subscription order, after it is durable; a listener must be quick
/// and must not call back into the request path (queue the work instead). A listener that
/// throws is logged and the others still run. Publishing takes no lock: the listener list is
/// an immutable snapshot replaced on (un)subscribe.
class EventStream {
 public:
  using Listener = std::function<void(const ObjectChange&)>;

  /// Unsubscribes when destroyed (or on Reset); it must not outlive the stream.
  class Subscription {
   public:
    Subscription() = default;
    Subscription(Subscription&& other) noexcept;
    Subscription& operator=(Subscription&& other) noexcept;
    Subscription(const Subscription&) = delete;
    Subscription& operator=(const Subscription&) = delete;
    ~Subscription() { Reset(); }
    void Reset();

   private:
    friend class EventStream;
    Subscription(EventStream* stream, uint64_t id) : stream_(stream), id_(id) {}
    EventStream* stream_ = nullptr;
    uint64_t id_ = 0;
  };

  [[nodiscard]] Subscription Subscribe(Listener listener);
  void Publish(const ObjectChange& change) const;
  /// How many changes were published so far (for metrics and tests).
  uint64_t published() const;

 private:
  struct Entry {
    uint64_t id;
    std::shared_ptr<const Listener> listener;
  };
  void Unsubscribe(uint64_t id);

  mutable std::mutex mu_;  // guards writers of listeners_ and next_id_
  std::shared_ptr<const std::vector<Entry>> listeners_ = std::make_shared<std::vector<Entry>>();
  uint64_t next_id_ = 1;
  mutable std::atomic<uint64_t> published_{0};
};

}  // namespace cairn::service
