// SPDX-License-Identifier: Apache-2.0
// Finding the metadata object an `/objects/{type}/{fullName}/...` path names, for the services
// that hang their own rows on objects (labels, statistics).
#pragma once

#include <functional>
#include <string>

#include "common/result.h"
#include "service/authorizer.h"
#include "service/caller.h"

namespace cairn::service {

/// Asks the object's catalog for an object that has no row yet: objects of JDBC and federated
/// catalogs get their governance row when Cairn first sees them (connector::ExternalRows), and
/// a column is checked against its table. kNotFound when the source has no such object.
using ObjectSeer = std::function<Status(const Caller&, const MetadataObjectTarget&)>;

/// The metalake's target once it is in use (kNotFound, kNotInUse otherwise).
Result<Target> InUseMetalake(Authorizer& authz, const std::string& metalake);

/// The object `full_name` of type `type`, resolved to its rows. One that has no row yet is asked
/// of its catalog through `see` (when set) and resolved again; `before_seeing`, when set, decides
/// on the named object first, so that a caller without rights learns nothing of what the
/// source holds. Errors as Authorizer::ResolveMetadataObject, or those of the two callbacks.
Result<MetadataObjectTarget> ResolveOrSee(
    Authorizer& authz, const ObjectSeer& see, const Caller& caller, const std::string& metalake,
    const std::string& type, const std::string& full_name,
    const std::function<Status(const MetadataObjectTarget&)>& before_seeing = {});

}  // namespace cairn::service
