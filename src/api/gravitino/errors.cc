// SPDX-License-Identifier: Apache-2.0
#include "api/gravitino/errors.h"

#include <nlohmann/json.hpp>

#include "common/util.h"

namespace cairn::api::gravitino {

namespace {

// Entity name as it appears in Gravitino's exception class names.
std::string_view ClassEntity(EntityKind kind) {
  switch (kind) {
    case EntityKind::kMetalake:
      return "Metalake";
    case EntityKind::kCatalog:
      return "Catalog";
    case EntityKind::kSchema:
      return "Schema";
    case EntityKind::kTable:
      return "Table";
    case EntityKind::kView:
      return "View";
    case EntityKind::kFileset:
      return "Fileset";
    case EntityKind::kTopic:
      return "Topic";
    case EntityKind::kModel:
      return "Model";
    case EntityKind::kFunction:
      return "Function";
    case EntityKind::kColumn:
      return "Column";
    case EntityKind::kPartition:
      return "Partition";
    case EntityKind::kUser:
      return "User";
    case EntityKind::kGroup:
      return "Group";
    case EntityKind::kRole:
      return "Role";
    case EntityKind::kMetadataObject:
      return "MetadataObject";
    case EntityKind::kPrivilege:
      return "Privilege";
    case EntityKind::kLocationName:
      return "LocationName";
    case EntityKind::kTag:
    case EntityKind::kTagAssociation:
      return "Tag";
    case EntityKind::kPolicy:
    case EntityKind::kPolicyAssociation:
      return "Policy";
    case EntityKind::kStatistic:
      return "Statistic";
    case EntityKind::kModelVersion:
    case EntityKind::kModelVersionAlias:
      return "ModelVersion";
    case EntityKind::kModelVersionUri:
      return "ModelVersionURIName";
    case EntityKind::kJobTemplate:
      return "JobTemplate";
    case EntityKind::kJob:
      return "Job";
    case EntityKind::kIndex:
    case EntityKind::kNone:
      return "";
  }
  return "";
}

std::string Prefixed(EntityKind kind, std::string_view prefix, std::string_view suffix,
                     std::string_view fallback) {
  const std::string_view entity = ClassEntity(kind);
  if (entity.empty()) return std::string(fallback);
  return fmt::format("{}{}{}", prefix, entity, suffix);
}

}  // namespace

ErrorMapping MapError(const Error& error) {
  const EntityKind e = error.entity;
  switch (error.code) {
    case ErrorCode::kUnprocessable:
      return {400, 1001, "IllegalArgumentException"};
    case ErrorCode::kInvalidArgument:
      // The clients refine 1001 by these type names.
      if (e == EntityKind::kStatistic) return {400, 1001, "IllegalStatisticNameException"};
      if (e == EntityKind::kJobTemplate) {
        return {400, 1001, "IllegalJobTemplateOperationException"};
      }
      if (e == EntityKind::kPrivilege || e == EntityKind::kMetadataObject ||
          e == EntityKind::kRole) {
        return {400, 1001, Prefixed(e, "Illegal", "Exception", "IllegalArgumentException")};
      }
      return {400, 1001, "IllegalArgumentException"};
    case ErrorCode::kNotFound:
      return {404, 1003, Prefixed(e, "NoSuch", "Exception", "NotFoundException")};
    case ErrorCode::kAlreadyExists:
      if (e == EntityKind::kTagAssociation) return {409, 1004, "TagAlreadyAssociatedException"};
      if (e == EntityKind::kPolicyAssociation) {
        return {409, 1004, "PolicyAlreadyAssociatedException"};
      }
      if (e == EntityKind::kModelVersionAlias) {
        return {409, 1004, "ModelVersionAliasesAlreadyExistException"};
      }
      return {409, 1004, Prefixed(e, "", "AlreadyExistsException", "AlreadyExistsException")};
    case ErrorCode::kNotEmpty:
      return {409, 1005, Prefixed(e, "NonEmpty", "Exception", "NonEmptyException")};
    case ErrorCode::kNotInUse:
      if (e == EntityKind::kMetalake || e == EntityKind::kCatalog) {
        return {409, 1009, Prefixed(e, "", "NotInUseException", "NotInUseException")};
      }
      return {409, 1009, "NotInUseException"};
    case ErrorCode::kInUse:
      if (e == EntityKind::kMetalake || e == EntityKind::kCatalog) {
        return {409, 1010, Prefixed(e, "", "InUseException", "InUseException")};
      }
      return {409, 1010, "InUseException"};
    case ErrorCode::kConflict:
      return {409, 1100, "ConcurrentModificationException"};
    case ErrorCode::kCommitStateUnknown:
      return {500, 1002, "RuntimeException"};
    case ErrorCode::kUnauthenticated:
      return {401, 1011, "UnauthorizedException"};
    case ErrorCode::kPermissionDenied:
      return {403, 1008, "ForbiddenException"};
    case ErrorCode::kUnsupported:
      // A statistic the table itself carries (an Iceberg snapshot's figures) is not changed here.
      if (e == EntityKind::kStatistic) return {405, 1006, "UnmodifiableStatisticException"};
      return {405, 1006, "UnsupportedOperationException"};
    case ErrorCode::kConnectionFailed:
      return {502, 1007, "ConnectionFailedException"};
    case ErrorCode::kUnavailable:
      // A catalog's source (e.g. a federated catalog's remote) that cannot be reached.
      if (e == EntityKind::kCatalog) return {503, 1007, "ConnectionFailedException"};
      return {503, 1002, "RuntimeException"};
    case ErrorCode::kTooManyRequests:
      return {429, 1002, "RuntimeException"};  // as Gravitino's own 429 (lineage) answers
    case ErrorCode::kInternal:
      return {500, 1002, "RuntimeException"};
  }
  return {500, 1002, "RuntimeException"};
}

std::string DisplayPath(std::string_view path) {
  std::string out;
  out.reserve(path.size());
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    const std::string_view raw = path.substr(start, end - start);
    auto decoded = PercentDecode(raw);
    out += decoded ? *decoded : std::string(raw);
    if (end == path.size()) break;
    out += '/';
    start = end + 1;
  }
  return out;
}

http::Response PlainErrorResponse(int http_status, int code, std::string_view type,
                                  std::string_view message) {
  std::string safe;
  safe.reserve(message.size());
  for (char c : message) {
    safe += c;
    if (c == '%') safe += '%';
  }
  nlohmann::ordered_json body;
  body["code"] = code;
  body["type"] = type;
  body["message"] = std::move(safe);
  body["stack"] = nlohmann::json::array();
  http::Response r;
  r.status = http_status;
  r.body = body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return r;
}

http::Response ErrorResponse(const Error& error, const Operation& op) {
  const ErrorMapping m = MapError(error);
  std::string message;
  if (op.op.empty()) {
    message = error.message;
  } else if (op.parent.empty()) {
    message = fmt::format("Failed to operate {}(s) [{}] operation [{}], reason [{}]",
                          EntityKindName(op.kind), op.name, op.op, error.message);
  } else {
    message = fmt::format("Failed to operate {}(s) [{}] operation [{}] under {} [{}], reason [{}]",
                          EntityKindName(op.kind), op.name, op.op, EntityKindName(op.parent_kind),
                          op.parent, error.message);
  }
  return PlainErrorResponse(m.http_status, m.code, m.type, message);
}

http::Response Ok(nlohmann::ordered_json body) {
  nlohmann::ordered_json out;
  out["code"] = 0;
  for (auto& [k, v] : body.items()) out[k] = std::move(v);
  http::Response r;
  r.body = out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return r;
}

}  // namespace cairn::api::gravitino
