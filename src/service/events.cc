// SPDX-License-Identifier: Apache-2.0
#include "service/events.h"

#include <exception>

#include "common/log.h"
#include "common/util.h"

namespace cairn::service {

std::string_view ChangeTypeName(ChangeType type) {
  switch (type) {
    case ChangeType::kCreated:
      return "created";
    case ChangeType::kAltered:
      return "altered";
    case ChangeType::kDropped:
      return "dropped";
    case ChangeType::kRenamed:
      return "renamed";
    case ChangeType::kCommitted:
      return "committed";
  }
  return "altered";
}

std::string ObjectChange::FullName() const {
  std::vector<std::string> parts = {metalake};
  if (!catalog.empty()) parts.push_back(catalog);
  for (const auto& level : schema) parts.push_back(level);
  if (!name.empty()) parts.push_back(name);
  return Join(parts, ".");
}

ObjectChange MakeChange(const connector::CallContext& ctx, ChangeType type,
                        governance::ObjectType kind, std::string metalake, std::string catalog,
                        std::vector<std::string> schema, std::string name,
                        std::string_view new_name) {
  ObjectChange change;
  change.type = type;
  change.kind = kind;
  change.metalake = std::move(metalake);
  change.catalog = std::move(catalog);
  change.schema = std::move(schema);
  change.name = std::move(name);
  change.principal = ctx.principal;
  change.time_ms = ctx.now_ms;
  change.interface = std::string(ctx.interface);
  if (!new_name.empty()) {
    ObjectChange::NewName to;
    std::string_view old_name;
    if (!change.name.empty()) {
      old_name = change.name;
      to = {change.schema, std::string(new_name)};
    } else if (!change.schema.empty()) {
      old_name = change.schema.back();
      to.schema = change.schema;
      to.schema.back() = std::string(new_name);
    } else {
      old_name = change.catalog.empty() ? change.metalake : change.catalog;
      to.name = std::string(new_name);
    }
    if (new_name != old_name) {
      change.type = ChangeType::kRenamed;
      change.renamed_to = std::move(to);
    }
  }
  return change;
}

EventStream::Subscription::Subscription(Subscription&& other) noexcept
    : stream_(other.stream_), id_(other.id_) {
  other.stream_ = nullptr;
}

EventStream::Subscription& EventStream::Subscription::operator=(Subscription&& other) noexcept {
  if (this != &other) {
    Reset();
    stream_ = other.stream_;
    id_ = other.id_;
    other.stream_ = nullptr;
  }
  return *this;
}

void EventStream::Subscription::Reset() {
  if (stream_ != nullptr) stream_->Unsubscribe(id_);
  stream_ = nullptr;
}

EventStream::Subscription EventStream::Subscribe(Listener listener) {
  std::lock_guard lock(mu_);
  auto next = std::make_shared<std::vector<Entry>>(*std::atomic_load(&listeners_));
  const uint64_t id = next_id_++;
  next->push_back(Entry{id, std::make_shared<const Listener>(std::move(listener))});
  std::atomic_store(&listeners_, std::shared_ptr<const std::vector<Entry>>(std::move(next)));
  return Subscription(this, id);
}

void EventStream::Unsubscribe(uint64_t id) {
  std::lock_guard lock(mu_);
  auto next = std::make_shared<std::vector<Entry>>(*std::atomic_load(&listeners_));
  std::erase_if(*next, [&](const Entry& e) { return e.id == id; });
  std::atomic_store(&listeners_, std::shared_ptr<const std::vector<Entry>>(std::move(next)));
}

void EventStream::Publish(const ObjectChange& change) const {
  published_.fetch_add(1, std::memory_order_relaxed);
  const auto listeners = std::atomic_load(&listeners_);
  for (const auto& entry : *listeners) {
    try {
      (*entry.listener)(change);
    } catch (const std::exception& e) {
      spdlog::warn("event=listener_failed change={} object=\"{}\" error=\"{}\"",
                   ChangeTypeName(change.type), change.FullName(), e.what());
    } catch (...) {
      spdlog::warn("event=listener_failed change={} object=\"{}\"", ChangeTypeName(change.type),
                   change.FullName());
    }
  }
}

uint64_t EventStream::published() const { return published_.load(std::memory_order_relaxed); }

}  // namespace cairn::service
