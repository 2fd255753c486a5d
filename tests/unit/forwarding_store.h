// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "store/metadata_store.h"

namespace cairn::testing {

/// A MetadataStore that passes every call to a real one. Tests derive from it and override the
/// calls whose failures they stage (an outage, a collision), so the rest behaves as the real
/// store does.
class ForwardingStore : public store::MetadataStore {
 public:
  explicit ForwardingStore(store::MetadataStore& inner) : inner_(inner) {}

  Result<store::EntityRecord> Insert(const store::EntityRecord& r) override {
    return inner_.Insert(r);
  }
  Result<store::EntityRecord> Get(store::EntityType type, int64_t parent,
                                  std::string_view name) override {
    return inner_.Get(type, parent, name);
  }
  Result<std::vector<store::EntityRecord>> GetPath(
      int64_t root, const std::vector<std::pair<store::EntityType, std::string>>& path) override {
    return inner_.GetPath(root, path);
  }
  Result<store::EntityRecord> GetById(int64_t id) override { return inner_.GetById(id); }
  Result<std::vector<store::EntityRecord>> List(store::EntityType type, int64_t parent,
                                                std::string_view after, int limit) override {
    return inner_.List(type, parent, after, limit);
  }
  Result<int64_t> CountChildren(int64_t parent) override { return inner_.CountChildren(parent); }
  Result<store::EntityRecord> CompareAndSet(const store::EntityRecord& r) override {
    return inner_.CompareAndSet(r);
  }
  Result<bool> Delete(int64_t id) override { return inner_.Delete(id); }
  Status RunInTransaction(const std::function<Status(MetadataStore&)>& body) override {
    return inner_.RunInTransaction(body);
  }
  Result<store::LinkRecord> Link(const store::LinkRecord& r) override { return inner_.Link(r); }
  Result<bool> Unlink(store::LinkType type, int64_t from, int64_t to) override {
    return inner_.Unlink(type, from, to);
  }
  Result<std::vector<store::LinkRecord>> ListLinksFrom(store::LinkType type, int64_t from,
                                                       int64_t after, int limit) override {
    return inner_.ListLinksFrom(type, from, after, limit);
  }
  Result<std::vector<store::LinkRecord>> ListLinksTo(store::LinkType type, int64_t to,
                                                     int64_t after, int limit) override {
    return inner_.ListLinksTo(type, to, after, limit);
  }
  Result<std::vector<store::EntityRecord>> ListLinkedRows(store::LinkType type, int64_t from,
                                                          int64_t after, int limit) override {
    return inner_.ListLinkedRows(type, from, after, limit);
  }
  bool Ping() override { return inner_.Ping(); }
  store::LineageStore* Lineage() override { return inner_.Lineage(); }
  store::IdempotencyStore* Idempotency() override { return inner_.Idempotency(); }

 protected:
  store::MetadataStore& inner_;
};

}  // namespace cairn::testing
