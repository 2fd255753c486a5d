// SPDX-License-Identifier: Apache-2.0
// Topics of the Gravitino API (topics.yaml): `.../catalogs/{c}/schemas/{s}/topics[/{topic}]`,
// read from and written to the catalog's Kafka cluster (docs/topics.md).
#include <optional>

#include "api/gravitino/routes.h"
#include "model/topic.h"

namespace cairn::api::gravitino {

namespace {

using http::Response;
using service::Action;

// TopicDTO.
OrderedJson TopicToJson(const model::Topic& t) {
  OrderedJson j{{"name", t.name}};
  if (t.comment) j["comment"] = *t.comment;
  OrderedJson props = OrderedJson::object();
  for (const auto& [k, v] : t.properties) props[k] = v;
  j["properties"] = std::move(props);
  j["audit"] = AuditToJson(t.audit);
  return j;
}

Result<Response> ListTopics(Call& c) {
  CAIRN_ASSIGN_OR_RETURN(auto names, c.objects.ListTopics(c.caller, c.Ref(ObjectType::kSchema)));
  return SchemaChildrenReply(c, std::move(names));
}

// TopicCreateRequest: name (required), comment, properties.
Result<Response> CreateTopic(Call& c) {
  CAIRN_ASSIGN_OR_RETURN(Json body, c.Body());
  if (!body.is_object()) return InvalidArgument("The request body must be a JSON object");
  model::Topic t;
  CAIRN_ASSIGN_OR_RETURN(t.name, RequiredString(body, "name"));
  c.op.name = t.name;
  CAIRN_ASSIGN_OR_RETURN(t.comment, OptionalString(body, "comment"));
  CAIRN_ASSIGN_OR_RETURN(t.properties, PropertiesFromJson(body, "properties"));
  CAIRN_ASSIGN_OR_RETURN(model::Topic created,
                         c.objects.CreateTopic(c.caller, c.Ref(ObjectType::kSchema), t));
  return Reply(OrderedJson{{"topic", TopicToJson(created)}});
}

Result<Response> LoadTopic(Call& c) {
  CAIRN_ASSIGN_OR_RETURN(model::Topic t, c.objects.LoadTopic(c.caller, c.Ref(ObjectType::kTopic)));
  return Reply(OrderedJson{{"topic", TopicToJson(t)}});
}

Result<Response> AlterTopic(Call& c) {
  CAIRN_ASSIGN_OR_RETURN(Json body, c.Body());
  if (!body.is_object()) return InvalidArgument("The request body must be a JSON object");
  CAIRN_ASSIGN_OR_RETURN(auto changes, EntityUpdatesFromJson(body, EntityKind::kTopic));
  CAIRN_ASSIGN_OR_RETURN(model::Topic t,
                         c.objects.AlterTopic(c.caller, c.Ref(ObjectType::kTopic), changes));
  return Reply(OrderedJson{{"topic", TopicToJson(t)}});
}

Result<Response> DropTopic(Call& c) {
  CAIRN_ASSIGN_OR_RETURN(bool dropped, c.objects.DropTopic(c.caller, c.Ref(ObjectType::kTopic)));
  return Reply(OrderedJson{{"dropped", dropped}});
}

}  // namespace

std::vector<Route> TopicRoutes() {
  using K = EntityKind;
  constexpr std::nullopt_t kService = std::nullopt;  // the object service decides
  constexpr std::string_view kTopics =
      "/metalakes/{metalake}/catalogs/{catalog}/schemas/{schema}/topics";
  constexpr std::string_view kTopic =
      "/metalakes/{metalake}/catalogs/{catalog}/schemas/{schema}/topics/{topic}";
  return {
      {"GET", api::PathPattern(kTopics), K::kTopic, "LIST", kService, ListTopics},
      // Decided before the body is parsed; the object service decides again on the name.
      {"POST", api::PathPattern(kTopics), K::kTopic, "CREATE", Action::kCreateObject, CreateTopic},
      {"GET", api::PathPattern(kTopic), K::kTopic, "LOAD", kService, LoadTopic},
      {"PUT", api::PathPattern(kTopic), K::kTopic, "ALTER", Action::kDropObject, AlterTopic},
      {"DELETE", api::PathPattern(kTopic), K::kTopic, "DROP", kService, DropTopic},
  };
}

}  // namespace cairn::api::gravitino
