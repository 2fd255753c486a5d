// SPDX-License-Identifier: Apache-2.0
// Tags of the Gravitino API: `/metalakes/{m}/tags[/{tag}[/objects]]` and the tags of a metadata
// object, `/metalakes/{m}/objects/{type}/{fullName}/tags[/{tag}]`.
#include <optional>

#include "api/gravitino/routes.h"
#include "common/util.h"

namespace cairn::api::gravitino {

namespace {

using http::Response;
using service::Action;

// TagDTO: `inherited` is null on the tag endpoints and true/false where an object lists its tags.
OrderedJson TagToJson(const model::Tag& tag, std::optional<bool> inherited = std::nullopt) {
  OrderedJson j{{"name", tag.name}};
  j["comment"] = tag.comment ? OrderedJson(*tag.comment) : OrderedJson(nullptr);
  OrderedJson props = OrderedJson::object();
  for (const auto& [k, v] : tag.properties) props[k] = v;
  j["properties"] = std::move(props);
  j["audit"] = AuditToJson(tag.audit);
  j["inherited"] = inherited ? OrderedJson(*inherited) : OrderedJson(nullptr);
  return j;
}

Result<Response> ListTags(Call& c) {
  CAIRN_ASSIGN_OR_RETURN(auto tags, c.objects.tags().ListTags(c.caller, c.Param("metalake")));
  if (c.Flag("details")) {
    OrderedJson arr = OrderedJson::array();
    for (const auto& t : tags) arr.push_back(TagToJson(t));
    return Reply(OrderedJson{{"tags", std::move(arr)}});
  }
  std::vector<std::string> names;
  for (const auto& t : tags) names.push_back(t.name);
  return Reply(OrderedJson{{"names", names}});
}

Result<Response> CreateTag(Call& c) {
  CAIRN_ASSIGN_OR_RETURN(Json body, c.Body());
  model::Tag tag;
  CAIRN_ASSIGN_OR_RETURN(tag.name, RequiredString(body, "name"));
  c.op.name = tag.name;
  CAIRN_ASSIGN_OR_RETURN(tag.comment, OptionalString(body, "comment"));
  CAIRN_ASSIGN_OR_RETURN(tag.properties, PropertiesFromJson(body, "properties"));
  CAIRN_ASSIGN_OR_RETURN(model::Tag created,
                         c.objects.tags().CreateTag(c.caller, c.Param("metalake"), tag));
  return Reply(OrderedJson{{"tag", TagToJson(created)}});
}

Result<Response> GetTag(Call& c) {
  CAIRN_ASSIGN_OR_RETURN(model::Tag tag,
                         c.objects.tags().GetTag(c.caller, c.Param("metalake"), c.Param("tag")));
  return Reply(OrderedJson{{"tag", TagToJson(tag)}});
}

Result<Response> AlterTag(Call& c) {
  CAIRN_ASSIGN_OR_RETURN(Json body, c.Body());
  // A tag takes the updates of a metalake: rename, comment, properties.
  CAIRN_ASSIGN_OR_RETURN(auto changes, EntityUpdatesFromJson(body, EntityKind::kMetalake));
  CAIRN_ASSIGN_OR_RETURN(model::Tag tag, c.objects.tags().AlterTag(c.caller, c.Param("metalake"),
                                                                   c.Param("tag"), changes));
  return Reply(OrderedJson{{"tag", TagToJson(tag)}});
}

Result<Response> DeleteTag(Call& c) {
  CAIRN_ASSIGN_OR_RETURN(bool dropped, c.objects.tags().DeleteTag(c.caller, c.Param("metalake"),
                                                                  c.Param("tag")));
  return Reply(OrderedJson{{"dropped", dropped}});
}

Result<Response> ObjectsOfTag(Call& c) {
  CAIRN_ASSIGN_OR_RETURN(PageRequest page, PageRequestOf(c));
  CAIRN_ASSIGN_OR_RETURN(auto objects,
                         c.objects.tags().ObjectsOfTag(c.caller, c.Param("metalake"),
                                                       c.Param("tag"), page.after, page.limit));
  return ObjectPageReply(objects);
}

Result<Response> TagsOfObject(Call& c) {
  CAIRN_ASSIGN_OR_RETURN(auto tags,
                         c.objects.tags().TagsOfObject(c.caller, c.Param("metalake"),
                                                       c.Param("type"), c.Param("fullName")));
  if (c.Flag("details")) {
    OrderedJson arr = OrderedJson::array();
    for (const auto& t : tags) arr.push_back(TagToJson(t.tag, t.inherited));
    return Reply(OrderedJson{{"tags", std::move(arr)}});
  }
  std::vector<std::string> names;
  for (const auto& t : tags) names.push_back(t.tag.name);
  return Reply(OrderedJson{{"names", names}});
}

// One tag of an object, found on the object or one of its ancestors.
Result<Response> TagOfObject(Call& c) {
  CAIRN_ASSIGN_OR_RETURN(auto tags,
                         c.objects.tags().TagsOfObject(c.caller, c.Param("metalake"),
                                                       c.Param("type"), c.Param("fullName")));
  for (const auto& t : tags) {
    if (t.tag.name == c.Param("tag")) return Reply(OrderedJson{{"tag", TagToJson(t.tag, t.inherited)}});
  }
  return NotFound(EntityKind::kTag, "Tag {} does not exist on {} {}", c.Param("tag"),
                  c.Param("type"), c.Param("fullName"));
}

Result<Response> AssociateTags(Call& c) {
  CAIRN_ASSIGN_OR_RETURN(Json body, c.Body());
  CAIRN_ASSIGN_OR_RETURN(auto add, NameListFromJson(body, "tagsToAdd"));
  CAIRN_ASSIGN_OR_RETURN(auto remove, NameListFromJson(body, "tagsToRemove"));
  if (IsNullOrAbsent(body, "tagsToAdd") && IsNullOrAbsent(body, "tagsToRemove")) {
    return InvalidArgument("Fields 'tagsToAdd' and 'tagsToRemove' cannot both be null");
  }
  CAIRN_ASSIGN_OR_RETURN(auto names,
                         c.objects.tags().AssociateTags(c.caller, c.Param("metalake"),
                                                        c.Param("type"), c.Param("fullName"), add,
                                                        remove));
  return Reply(OrderedJson{{"names", names}});
}

}  // namespace

std::vector<Route> TagRoutes() {
  using K = EntityKind;
  constexpr std::nullopt_t kService = std::nullopt;  // the tag service decides
  constexpr std::string_view kTags = "/metalakes/{metalake}/tags";
  constexpr std::string_view kTag = "/metalakes/{metalake}/tags/{tag}";
  constexpr std::string_view kTagObjects = "/metalakes/{metalake}/tags/{tag}/objects";
  constexpr std::string_view kObjectTags = "/metalakes/{metalake}/objects/{type}/{fullName}/tags";
  constexpr std::string_view kObjectTag =
      "/metalakes/{metalake}/objects/{type}/{fullName}/tags/{tag}";
  // Deprecated spellings of the object paths, still served by Gravitino 1.3.
  constexpr std::string_view kOldObjectTags = "/metalakes/{metalake}/tags/{type}/{fullName}";
  constexpr std::string_view kOldObjectTag = "/metalakes/{metalake}/tags/{type}/{fullName}/{tag}";
  return {
      {"GET", api::PathPattern(kTags), K::kTag, "LIST", kService, ListTags},
      // Decided before the body is parsed; the tag service decides again.
      {"POST", api::PathPattern(kTags), K::kTag, "CREATE", Action::kCreateTag, CreateTag},
      {"GET", api::PathPattern(kTag), K::kTag, "GET", kService, GetTag},
      {"PUT", api::PathPattern(kTag), K::kTag, "ALTER", kService, AlterTag},
      {"DELETE", api::PathPattern(kTag), K::kTag, "DELETE", kService, DeleteTag},
      {"GET", api::PathPattern(kTagObjects), K::kTag, "LIST", kService, ObjectsOfTag},
      {"GET", api::PathPattern(kObjectTags), K::kTag, "LIST", kService, TagsOfObject},
      {"POST", api::PathPattern(kObjectTags), K::kTag, "ASSOCIATE", kService, AssociateTags},
      {"GET", api::PathPattern(kObjectTag), K::kTag, "GET", kService, TagOfObject},
      {"GET", api::PathPattern(kOldObjectTags), K::kTag, "LIST", kService, TagsOfObject},
      {"POST", api::PathPattern(kOldObjectTags), K::kTag, "ASSOCIATE", kService, AssociateTags},
      {"GET", api::PathPattern(kOldObjectTag), K::kTag, "GET", kService, TagOfObject},
  };
}

}  // namespace cairn::api::gravitino
