// SPDX-License-Identifier: Apache-2.0
// The Gravitino API's route table: one row per (method, path pattern) the API serves. Dispatch,
// the authorize step before a handler reads the body, the error template of Gravitino's messages
// and the audit operation name are all derived from it. Internal to api/gravitino.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/gravitino/errors.h"
#include "api/gravitino/gravitino_api.h"
#include "api/gravitino/serde.h"
#include "api/routes.h"
#include "service/object_service.h"

namespace cairn::api::gravitino {

using governance::ObjectType;

struct Call;
/// A route's handler: the response body, or the error that one place (Dispatch) renders in
/// Gravitino's envelope with the call's Operation.
using Handler = Result<http::Response> (*)(Call&);

struct Route {
  std::string_view method;  // "*": any method
  api::PathPattern path;    // relative to /api
  EntityKind kind;          // what the path addresses: the subject of the error template
  std::string_view op;      // LIST CREATE LOAD ALTER DROP ... ("": messages go out untemplated)
  /// Checked on the object the path names before the handler runs, so that a caller without
  /// rights is denied before its body is read. nullopt: the handler's call into the object
  /// service (or the access-control model) makes the decision.
  std::optional<service::Action> action;
  Handler handler;
  /// Served only with authorization on (users, groups, roles, permissions, owners, an object's
  /// roles): 405 otherwise, as Gravitino answers. Tags, policies, statistics and credentials
  /// under /objects/{type}/{fullName}/... are not.
  bool needs_authorization = false;
};

/// One request on its way through a route.
struct Call {
  const http::Request& request;
  const governance::Principal& principal;
  service::Caller caller;
  service::ObjectService& objects;
  service::MetadataService& service;
  service::Authorizer& authz;
  const GravitinoApi& api;
  const Route* route = nullptr;
  std::vector<std::string> params{};
  Operation op{};

  /// The value of the path parameter `name` (empty when the pattern has none).
  const std::string& Param(std::string_view name) const;
  /// The object the path names: its metalake, catalog, schema and table, fileset or partition's
  /// table, as far as the pattern goes.
  service::ObjectRef Ref(ObjectType kind = ObjectType::kTable) const;
  /// The request body as a JSON value (400 naming the problem otherwise).
  Result<Json> Body() const { return ParseBody(request.body); }
  /// A query flag given as `true` (any case).
  bool Flag(std::string_view name) const;
  /// The authorize step on the object the path names.
  Status Authorize(service::Action action, ObjectType kind = ObjectType::kTable) const;
};

/// The page a list of a label's objects asks for: Cairn's `pageSize` (1..10000) and
/// `pageToken` (from the previous page's `nextPageToken`); without `pageSize`, every object.
struct PageRequest {
  int64_t after = 0;
  int limit = 0;
};
Result<PageRequest> PageRequestOf(const Call& c);
/// `{"metadataObjects": [...]}` and, when more follow, `"nextPageToken"`.
Result<http::Response> ObjectPageReply(const service::ObjectPage& page);

/// EntityListResponse: `{"identifiers": [{"namespace": ns, "name": n}, ...]}`.
OrderedJson Identifiers(const std::vector<std::string>& ns, const std::vector<std::string>& names);
/// A list of names as Identifiers, paged when the caller asks: `pageSize` (1..10000) names in
/// name order after `pageToken` (the last name of the previous page, answered as
/// `nextPageToken` when more follow), only those containing `nameContains` (any case). Without
/// these parameters, every name in the order given, as Gravitino answers.
Result<http::Response> NameListReply(const Call& c, const std::vector<std::string>& ns,
                                     std::vector<std::string> names);
/// The same for objects of the schema the path names.
Result<http::Response> SchemaChildrenReply(const Call& c, std::vector<std::string> names);

/// An `updates` array of `{"@type": ...}` objects (Gravitino's update requests), each read by
/// `one(update, type)`; its errors name the update (`updates[2]: ...`).
template <typename T, typename F>
Result<std::vector<T>> UpdatesOf(const Json& body, F one) {
  auto updates = body.find("updates");
  if (updates == body.end() || !updates->is_array()) {
    return InvalidArgument("Field 'updates' is required and must be an array");
  }
  std::vector<T> out;
  for (size_t i = 0; i < updates->size(); ++i) {
    const Json& u = (*updates)[i];
    const std::string at = fmt::format("updates[{}]", i);
    if (!u.is_object()) return InvalidArgument("{}: an update must be an object", at);
    auto type = u.find("@type");
    if (type == u.end() || !type->is_string()) {
      return InvalidArgument("{}: Field '@type' is required", at);
    }
    auto parsed = one(u, type->get<std::string>());
    if (!parsed) return std::move(parsed).error().WithContext(at);
    out.push_back(std::move(*parsed));
  }
  return out;
}

/// `{"code":0, ...body}` as a result.
inline Result<http::Response> Reply(nlohmann::ordered_json body) { return Ok(std::move(body)); }

// The rows, by area, each in the file of its handlers.
std::vector<Route> ServiceRoutes();        // version, health, authn
std::vector<Route> ObjectRoutes();         // metalakes, catalogs, schemas, tables, partitions,
                                           // credentials
std::vector<Route> FilesetRoutes();        // filesets, their files and locations
std::vector<Route> ModelRoutes();          // models, their versions, aliases and URIs
std::vector<Route> ViewRoutes();           // views (the Iceberg views of a catalog)
std::vector<Route> FunctionRoutes();       // user-defined functions of a schema
std::vector<Route> TopicRoutes();          // topics of a messaging catalog
std::vector<Route> AccessControlRoutes();  // users, groups, roles, permissions, owners
std::vector<Route> TagRoutes();            // tags, and the tags of metadata objects
std::vector<Route> PolicyRoutes();         // policies, and the policies of metadata objects
std::vector<Route> StatisticsRoutes();     // statistics of tables and of their partitions
std::vector<Route> LineageRoutes();        // OpenLineage events in, the lineage graph out
std::vector<Route> CoverageRoutes();       // the metadata coverage report (a Cairn extension)
std::vector<Route> JobRoutes();            // job templates and their runs

/// The areas in the order they are matched: a new area (the routes of a new object kind) is one
/// line here and its file.
inline constexpr std::vector<Route> (*kRouteAreas[])() = {
    ServiceRoutes, ObjectRoutes,   FilesetRoutes,    ViewRoutes,
    ModelRoutes,   FunctionRoutes, TopicRoutes,      AccessControlRoutes,
    TagRoutes,     PolicyRoutes,   StatisticsRoutes, LineageRoutes,
    CoverageRoutes, JobRoutes};

/// Every route of the API: the areas' rows, in order.
const std::vector<Route>& Routes();

}  // namespace cairn::api::gravitino
