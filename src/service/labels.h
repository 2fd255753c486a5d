// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "model/tag.h"
#include "service/authorizer.h"
#include "service/caller.h"
#include "service/events.h"
#include "service/object_lookup.h"
#include "store/metadata_store.h"

namespace cairn::service {

/// A kind of label of a metalake that is attached to metadata objects: tags and policies
/// (docs/tags-and-policies.md). Both are rows under their metalake with links to the objects'
/// rows, inherited down the object's parent chain, with the same three rules.
struct LabelKind {
  ObjectType type;                 // its rows' store type, its name in errors and in the rules
  store::LinkType link;            // an association
  EntityKind association;          // the subject of "already associated"
  Action create, load, manage;     // CREATE_x on the metalake; owners or APPLY_x; owners
  bool (*attachable)(ObjectType);  // the object types it can be attached to
};

/// The tags' row.
extern const LabelKind kTagLabels;
/// The policies' row.
extern const LabelKind kPolicyLabels;

/// One page of the objects of a label: in the order they were attached, filtered by what the
/// caller may see (so a page may hold fewer than asked for), and where the next one starts.
struct ObjectPage {
  std::vector<model::MetadataObjectName> objects;
  std::optional<int64_t> next;  // the `after` of the next page; none after the last
};

/// A label as an object carries it: on the object itself, or `inherited` from an ancestor.
struct LabelOnObject {
  store::EntityRecord row;
  bool inherited = false;
};

/// The engine tags and policies share: the rows of one LabelKind and their associations. Every
/// call resolves the metalake (kNotFound, kNotInUse) and decides with the Authorizer before it
/// reads a label: a caller who may not see a label learns nothing of which exist. Errors:
/// kNotFound (kMetalake, the kind, kMetadataObject), kAlreadyExists (the kind; its association
/// kind for a label already on the object), kInvalidArgument naming the field.
/// Safe to call from many threads.
class Labels {
 public:
  Labels(store::MetadataStore& store, Authorizer& authorizer, EventStream& events,
         const LabelKind& kind);

  /// The labels the caller may load, in name order.
  Result<std::vector<store::EntityRecord>> List(const Caller& caller, const std::string& metalake);
  /// Inserts `row` (its name, comment, properties and payload) under the metalake; the caller
  /// is its creator and so its owner.
  Result<store::EntityRecord> Create(const Caller& caller, const std::string& metalake,
                                     store::EntityRecord row);
  Result<store::EntityRecord> Get(const Caller& caller, const std::string& metalake,
                                  const std::string& name);
  /// Applies `edit` to the current row and writes it by compare-and-set, again on a conflict;
  /// `edit` may rename it (the new name is checked). An `edit` that returns false changes
  /// nothing and nothing is written.
  Result<store::EntityRecord> Alter(const Caller& caller, const std::string& metalake,
                                    const std::string& name,
                                    const std::function<Result<bool>(store::EntityRecord&)>& edit);
  /// False when absent. Its associations go with it.
  Result<bool> Delete(const Caller& caller, const std::string& metalake, const std::string& name);

  /// The objects the label is attached to that the caller may see, `limit` attachments from
  /// after `after` (0: from the first; `limit` <= 0: all). A page costs one read of its links
  /// with the objects' rows, and one of each distinct parent's.
  Result<ObjectPage> ObjectsOf(const Caller& caller, const std::string& metalake,
                               const std::string& name, int64_t after = 0, int limit = 0);
  /// The labels of the object `full_name` of type `type`: its own, then those of its ancestors
  /// (table for a column, schema, catalog) as inherited, each level in name order; a label both on
  /// the object and above it is its own. Only the labels the caller may load are listed.
  Result<std::vector<LabelOnObject>> OfObject(const Caller& caller, const std::string& metalake,
                                              const std::string& type,
                                              const std::string& full_name);
  /// Attaches `add` and detaches `remove` (every name must be a label of the metalake the
  /// caller may apply; adding one already attached is kAlreadyExists of the association kind;
  /// a name in both lists is in neither); all or nothing. Returns the names now attached to
  /// the object itself, in name order.
  Result<std::vector<std::string>> Associate(const Caller& caller, const std::string& metalake,
                                             const std::string& type, const std::string& full_name,
                                             const std::vector<std::string>& add,
                                             const std::vector<std::string>& remove);

  /// How an object that has no row yet is asked of its catalog (ObjectSeer).
  using Seer = ObjectSeer;
  void SetSeer(Seer seer) { see_ = std::move(seer); }

  /// The in-use metalake's target (its row, for the decisions).
  Result<Target> Metalake(const std::string& metalake);
  const LabelKind& kind() const { return kind_; }

 private:
  Result<store::EntityRecord> Row(const Target& metalake, const std::string& name);
  /// `metalake` with the label `name` as its object.
  Target LabelTarget(const Target& metalake, const store::EntityRecord* row,
                     const std::string& name) const;
  /// The label's row once `action` on it is allowed (the decision first, then kNotFound).
  Result<store::EntityRecord> Authorized(const Caller& caller, const Target& metalake,
                                         const std::string& name, Action action);
  /// The object's own row and its ancestors' (schema, catalog), nearest first, once the caller
  /// may access the object.
  Result<std::vector<store::EntityRecord>> ObjectChain(const Caller& caller,
                                                       const std::string& metalake,
                                                       const std::string& type,
                                                       const std::string& full_name,
                                                       MetadataObjectTarget& object);
  /// The row of `column` of `table`, made on the first label attached to the column (a racing
  /// request's row when it made it first).
  Result<store::EntityRecord> ColumnRow(const Caller& caller, const store::EntityRecord& table,
                                        const std::string& column);
  void Publish(const Caller& caller, ChangeType type, const std::string& metalake,
               const std::string& name, std::string_view new_name = "");

  store::MetadataStore& store_;
  Authorizer& authz_;
  EventStream& events_;
  const LabelKind& kind_;
  Seer see_;
};

}  // namespace cairn::service
