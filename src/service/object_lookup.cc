// SPDX-License-Identifier: Apache-2.0
#include "service/object_lookup.h"

namespace cairn::service {

Result<Target> InUseMetalake(Authorizer& authz, const std::string& metalake) {
  CAIRN_ASSIGN_OR_RETURN(Target target, authz.Resolve(metalake));
  if (!target.metalake.in_use) {
    return MakeError(ErrorCode::kNotInUse, EntityKind::kMetalake, "Metalake {} is not in use",
                     metalake);
  }
  return target;
}

Result<MetadataObjectTarget> ResolveOrSee(
    Authorizer& authz, const ObjectSeer& see, const Caller& caller, const std::string& metalake,
    const std::string& type, const std::string& full_name,
    const std::function<Status(const MetadataObjectTarget&)>& before_seeing) {
  auto resolved = authz.ResolveMetadataObject(metalake, type, full_name);
  if (resolved || resolved.error().code != ErrorCode::kNotFound ||
      resolved.error().entity != EntityKind::kMetadataObject || (!see && !before_seeing)) {
    return resolved;
  }
  // Not known to Cairn yet: the catalog may hold it in its source (a table made there).
  auto named = authz.ResolveMetadataObject(metalake, type, full_name, /*must_exist=*/false);
  if (!named || !named->target.catalog_row) return resolved;
  if (before_seeing) CAIRN_RETURN_IF_ERROR(before_seeing(*named));
  if (!see) return resolved;
  auto seen = see(caller, *named);
  if (!seen && seen.error().code != ErrorCode::kNotFound) return std::move(seen).error();
  if (!seen) return resolved;
  return authz.ResolveMetadataObject(metalake, type, full_name);
}

}  // namespace cairn::service
