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
#include "service/labels.h"
#include "store/metadata_store.h"

namespace cairn::service {

/// Tags of a metalake and their associations with metadata objects (docs/tags-and-policies.md):
/// a tag is a row under its metalake, an association a store link from the tag's row to the
/// object's row, so it follows renames and goes with a drop of either end. The rows and links
/// are the Labels engine's, which decides with the Authorizer (Gravitino's tag expressions)
/// before it reads or writes.
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

  /// The objects `tag` is attached to that the caller may see, in the order attached, a page
  /// of `limit` attachments after `after` (Labels::ObjectsOf).
  Result<ObjectPage> ObjectsOfTag(const Caller& caller, const std::string& metalake,
                                  const std::string& tag, int64_t after = 0, int limit = 0);
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

  /// The engine underneath (the object service gives it its Seer).
  Labels& labels() { return labels_; }

 private:
  Labels labels_;
};

}  // namespace cairn::service
