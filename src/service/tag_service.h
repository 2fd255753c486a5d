// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>
#include <vector>

#include "common/result.h"
#include "connector/connector.h"
#include "model/tag.h"
#include "service/authorizer.h"
#include "service/caller.h"
#include "service/events.h"
#include "store/metadata_store.h"

namespace cairn::service {

/// Tags of a metalake and their associations with metadata objects (docs/tags-and-policies.md):
/// a tag is a row under its metalake, an association a store link from the tag's row to the
/// object's row, so it follows renames and goes with a drop of either end. Every call resolves
/// and authorizes through the Authorizer (Gravitino's tag expressions) before it writes.
/// Errors: kNotFound (kMetalake, kTag, kMetadataObject), kNotInUse (kMetalake), kAlreadyExists
/// (kTag; kTagAssociation for a tag already on the object), kInvalidArgument naming the field.
/// Safe to call from many threads.
class TagService {
 public:
  TagService(store::MetadataStore& store, Authorizer& authorizer, EventStream& events);

  /// The tags of `metalake` the caller may load (METALAKE::OWNER, TAG::OWNER or APPLY_TAG), in
  /// name order.
  Result<std::vector<model::Tag>> ListTags(const Caller& caller, const std::string& metalake);
  Result<model::Tag> CreateTag(const Caller& caller, const std::string& metalake,
                               const model::Tag& tag);
  Result<model::Tag> GetTag(const Caller& caller, const std::string& metalake,
                            const std::string& name);
  /// Rename, comment and property changes, applied atomically in order.
  Result<model::Tag> AlterTag(const Caller& caller, const std::string& metalake,
                              const std::string& name,
                              const std::vector<model::EntityChange>& changes);
  /// False when absent. Its associations go with it.
  Result<bool> DeleteTag(const Caller& caller, const std::string& metalake,
                         const std::string& name);

  /// The objects `tag` is attached to that the caller may see, in the order they were created.
  Result<std::vector<model::MetadataObjectName>> ObjectsOfTag(const Caller& caller,
                                                              const std::string& metalake,
                                                              const std::string& tag);
  /// The tags of the object `full_name` of type `type`: its own, then those of its ancestors
  /// (schema, catalog) as inherited; a tag both on the object and above it is its own.
  Result<std::vector<model::ObjectTag>> TagsOfObject(const Caller& caller,
                                                     const std::string& metalake,
                                                     const std::string& type,
                                                     const std::string& full_name);
  /// Attaches `add` and detaches `remove` (every name must be a tag of the metalake; adding one
  /// already attached is kAlreadyExists(kTagAssociation)); all or nothing. Returns the names of
  /// the tags now attached to the object itself, in name order.
  Result<std::vector<std::string>> AssociateTags(const Caller& caller, const std::string& metalake,
                                                 const std::string& type,
                                                 const std::string& full_name,
                                                 const std::vector<std::string>& add,
                                                 const std::vector<std::string>& remove);

 private:
  /// The in-use metalake's target (its row, for the tag decisions).
  Result<Target> Metalake(const std::string& metalake);
  Result<store::EntityRecord> TagRow(const Target& metalake, const std::string& name);
  /// `metalake` with the tag `name` as its object, for kLoadTag / kManageTag.
  static Target TagTarget(const Target& metalake, const store::EntityRecord* row,
                          const std::string& name);
  /// The tag `name`'s row once `action` on it is allowed: the decision comes first, so a caller
  /// who may not see tags learns nothing of which exist; then kNotFound (kTag).
  Result<store::EntityRecord> AuthorizedTag(const Caller& caller, const Target& metalake,
                                            const std::string& name, Action action);
  /// The object's own row and its ancestors' (schema, catalog), nearest first.
  Result<std::vector<store::EntityRecord>> ObjectChain(const Caller& caller,
                                                       const std::string& metalake,
                                                       const std::string& type,
                                                       const std::string& full_name,
                                                       MetadataObjectTarget& object);
  void Publish(const Caller& caller, ChangeType type, const std::string& metalake,
               const std::string& name, std::string_view new_name = "");

  store::MetadataStore& store_;
  Authorizer& authz_;
  EventStream& events_;
};

}  // namespace cairn::service
