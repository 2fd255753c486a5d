// SPDX-License-Identifier: Apache-2.0
#include "model/kinds.h"

#include <algorithm>

#include "common/util.h"

namespace cairn::model {

namespace {

// The table is checked where it is compiled: a row out of place, a store number used twice or a
// parent cycle does not build.
constexpr bool RowsInEnumOrder() {
  for (size_t i = 0; i < kKinds.size(); ++i) {
    if (static_cast<size_t>(kKinds[i].kind) != i) return false;
  }
  return true;
}
static_assert(RowsInEnumOrder(), "kKinds rows must follow the order of ObjectKind");
static_assert(kKinds.back().kind == ObjectKind::kIdpUser, "every ObjectKind needs a row");

constexpr bool StoreTypesUnique() {
  for (size_t i = 0; i < kKinds.size(); ++i) {
    for (size_t j = i + 1; j < kKinds.size(); ++j) {
      if (kKinds[i].store_type != 0 && kKinds[i].store_type == kKinds[j].store_type) return false;
    }
  }
  return true;
}
static_assert(StoreTypesUnique(), "two kinds share a persisted store type");

constexpr bool ParentChainsEnd() {
  for (const auto& row : kKinds) {
    std::optional<ObjectKind> at = row.parent;
    size_t steps = 0;
    while (at) {
      if (++steps > kKinds.size()) return false;
      at = Describe(*at).parent;
    }
  }
  return true;
}
static_assert(ParentChainsEnd(), "a parent chain loops");

}  // namespace

std::optional<ObjectKind> FindKindByStoreType(int64_t store_type) {
  if (store_type == 0) return std::nullopt;
  for (const auto& row : kKinds) {
    if (row.store_type == store_type) return row.kind;
  }
  return std::nullopt;
}

std::optional<ObjectKind> FindKindBySecurable(std::string_view text) {
  for (const auto& row : kKinds) {
    if (!row.securable.empty() && EqualsIgnoreCase(text, row.securable)) return row.kind;
  }
  return std::nullopt;
}

std::optional<ObjectKind> FindKindBySegment(std::string_view segment) {
  if (segment.empty()) return std::nullopt;
  for (const auto& row : kKinds) {
    if (row.path_segment == segment) return row.kind;
  }
  return std::nullopt;
}

int Depth(ObjectKind kind) {
  int depth = 0;
  for (auto at = Describe(kind).parent; at; at = Describe(*at).parent) ++depth;
  return depth;
}

bool IsSelfOrAncestor(ObjectKind ancestor, ObjectKind kind) {
  for (std::optional<ObjectKind> at = kind; at; at = Describe(*at).parent) {
    if (*at == ancestor) return true;
  }
  return false;
}

bool IsKnownPrivilege(std::string_view privilege) {
  return std::any_of(kKinds.begin(), kKinds.end(), [&](const KindDescriptor& row) {
    return std::find(row.privileges.begin(), row.privileges.end(), privilege) !=
           row.privileges.end();
  });
}

std::optional<ObjectKind> FindPrivilegeKind(std::string_view privilege) {
  std::optional<ObjectKind> found;
  for (const auto& row : kKinds) {
    if (std::find(row.privileges.begin(), row.privileges.end(), privilege) ==
        row.privileges.end()) {
      continue;
    }
    if (found) return std::nullopt;
    found = row.kind;
  }
  return found;
}

bool PrivilegeBindsTo(std::string_view privilege, ObjectKind kind) {
  return std::any_of(kKinds.begin(), kKinds.end(), [&](const KindDescriptor& row) {
    return IsSelfOrAncestor(kind, row.kind) &&
           std::find(row.privileges.begin(), row.privileges.end(), privilege) !=
               row.privileges.end();
  });
}

}  // namespace cairn::model
