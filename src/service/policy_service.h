// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>
#include <vector>

#include "common/result.h"
#include "model/policy.h"
#include "model/tag.h"
#include "service/authorizer.h"
#include "service/caller.h"
#include "service/events.h"
#include "service/labels.h"
#include "store/metadata_store.h"

namespace cairn::service {

/// Policies of a metalake and their associations with metadata objects
/// (docs/tags-and-policies.md). A policy is a row under its metalake (type, enabled flag and
/// content in its payload, the content's properties as the row's), an association a store link
/// to the object's row, as for tags: the Labels engine holds both and decides with the
/// Authorizer (Gravitino's policy expressions) before it reads or writes.
/// Errors: kNotFound (kMetalake, kPolicy, kMetadataObject), kNotInUse (kMetalake),
/// kAlreadyExists (kPolicy; kPolicyAssociation), kInvalidArgument naming the field.
/// Safe to call from many threads.
class PolicyService {
 public:
  PolicyService(store::MetadataStore& store, Authorizer& authorizer, EventStream& events);

  /// The policies the caller may load (METALAKE::OWNER, POLICY::OWNER or APPLY_POLICY), in
  /// name order.
  Result<std::vector<model::Policy>> ListPolicies(const Caller& caller,
                                                  const std::string& metalake);
  /// A custom policy needs at least one supported object type; a built-in one has its own.
  Result<model::Policy> CreatePolicy(const Caller& caller, const std::string& metalake,
                                     const model::Policy& policy);
  Result<model::Policy> GetPolicy(const Caller& caller, const std::string& metalake,
                                  const std::string& name);
  /// Rename, comment and content changes, applied atomically in order. A content change names
  /// the policy's own type; a built-in policy's object types cannot change.
  Result<model::Policy> AlterPolicy(const Caller& caller, const std::string& metalake,
                                    const std::string& name,
                                    const std::vector<model::PolicyChange>& changes);
  /// Enables or disables the policy; nothing is written when it already is.
  Status SetEnabled(const Caller& caller, const std::string& metalake, const std::string& name,
                    bool enabled);
  /// False when absent. Its associations go with it.
  Result<bool> DeletePolicy(const Caller& caller, const std::string& metalake,
                            const std::string& name);

  /// The objects the policy is attached to that the caller may see, in the order attached, a
  /// page of `limit` attachments after `after` (Labels::ObjectsOf). A scheduler pages through
  /// every object a policy is attached to this way, one indexed read per page.
  Result<ObjectPage> ObjectsOfPolicy(const Caller& caller, const std::string& metalake,
                                     const std::string& name, int64_t after = 0, int limit = 0);
  /// The policies of the object: its own, then its ancestors' as inherited.
  Result<std::vector<model::ObjectPolicy>> PoliciesOfObject(const Caller& caller,
                                                            const std::string& metalake,
                                                            const std::string& type,
                                                            const std::string& full_name);
  /// Attaches `add` and detaches `remove`, all or nothing; the names now on the object itself.
  Result<std::vector<std::string>> AssociatePolicies(const Caller& caller,
                                                     const std::string& metalake,
                                                     const std::string& type,
                                                     const std::string& full_name,
                                                     const std::vector<std::string>& add,
                                                     const std::vector<std::string>& remove);

  /// The policy of a stored row; kInternal for a corrupt payload.
  static Result<model::Policy> FromRow(const store::EntityRecord& row);

  /// The engine underneath (the object service gives it its Seer).
  Labels& labels() { return labels_; }

 private:
  Labels labels_;
};

}  // namespace cairn::service
