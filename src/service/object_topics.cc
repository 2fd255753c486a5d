// SPDX-License-Identifier: Apache-2.0
// The topic methods of ObjectService (docs/topics.md): the catalog's TopicCatalog, authorized
// and published like every other kind.
#include "service/object_service.h"

namespace cairn::service {

Result<std::vector<std::string>> ObjectService::ListTopics(const Caller& caller,
                                                           const ObjectRef& schema) {
  CAIRN_ASSIGN_OR_RETURN(auto topics,
                         Open<connector::TopicCatalog>(caller, Action::kLoadSchema, schema));
  CAIRN_ASSIGN_OR_RETURN(auto names, topics->ListTopics(schema.schema.at(0)));
  return Visible(caller, Action::kLoadObject, schema, std::move(names), ObjectType::kTopic);
}

Result<model::Topic> ObjectService::CreateTopic(const Caller& caller, const ObjectRef& schema,
                                                const model::Topic& topic) {
  const ObjectRef ref = schema.Child(topic.name, ObjectType::kTopic);
  CAIRN_ASSIGN_OR_RETURN(auto topics,
                         Open<connector::TopicCatalog>(caller, Action::kCreateObject, ref));
  CAIRN_ASSIGN_OR_RETURN(model::Topic created,
                         topics->CreateTopic(caller.ctx, schema.schema.at(0), topic));
  Publish(caller, ChangeType::kCreated, ref);
  return created;
}

Result<model::Topic> ObjectService::LoadTopic(const Caller& caller, const ObjectRef& topic) {
  CAIRN_ASSIGN_OR_RETURN(auto topics,
                         Open<connector::TopicCatalog>(caller, Action::kLoadObject, topic));
  return topics->LoadTopic(topic.schema.at(0), topic.name);
}

Result<model::Topic> ObjectService::AlterTopic(const Caller& caller, const ObjectRef& topic,
                                               const std::vector<model::EntityChange>& changes) {
  CAIRN_ASSIGN_OR_RETURN(auto topics,
                         Open<connector::TopicCatalog>(caller, Action::kDropObject, topic));
  CAIRN_ASSIGN_OR_RETURN(model::Topic altered,
                         topics->AlterTopic(caller.ctx, topic.schema.at(0), topic.name, changes));
  Publish(caller, ChangeType::kAltered, topic);
  return altered;
}

Result<bool> ObjectService::DropTopic(const Caller& caller, const ObjectRef& topic) {
  CAIRN_ASSIGN_OR_RETURN(auto topics,
                         Open<connector::TopicCatalog>(caller, Action::kDropObject, topic));
  CAIRN_ASSIGN_OR_RETURN(bool dropped,
                         topics->DropTopic(caller.ctx, topic.schema.at(0), topic.name));
  if (dropped) Publish(caller, ChangeType::kDropped, topic);
  return dropped;
}

}  // namespace cairn::service
