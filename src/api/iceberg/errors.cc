// SPDX-License-Identifier: Apache-2.0
#include "api/iceberg/errors.h"

#include <nlohmann/json.hpp>

namespace cairn::api::iceberg {

ErrorMapping MapError(const Error& error) {
  switch (error.code) {
    case ErrorCode::kInvalidArgument:
      return {400, "IllegalArgumentException"};
    case ErrorCode::kUnprocessable:
      return {422, "UnprocessableEntityException"};
    case ErrorCode::kNotFound:
      switch (error.entity) {
        case EntityKind::kSchema:
          return {404, "NoSuchNamespaceException"};
        case EntityKind::kTable:
          return {404, "NoSuchTableException"};
        case EntityKind::kView:
          return {404, "NoSuchViewException"};
        case EntityKind::kMetalake:
        case EntityKind::kCatalog:
          return {404, "NoSuchWarehouseException"};
        default:
          return {404, "NotFoundException"};
      }
    case ErrorCode::kAlreadyExists:
      return {409, "AlreadyExistsException"};
    case ErrorCode::kNotEmpty:
      return {409, "NamespaceNotEmptyException"};
    case ErrorCode::kNotInUse:
    case ErrorCode::kInUse:
      return {409, "IllegalStateException"};
    case ErrorCode::kConflict:
      return {409, "CommitFailedException"};
    case ErrorCode::kCommitStateUnknown:
      return {500, "CommitStateUnknownException"};
    case ErrorCode::kUnauthenticated:
      return {401, "NotAuthorizedException"};
    case ErrorCode::kPermissionDenied:
      return {403, "ForbiddenException"};
    case ErrorCode::kUnsupported:
      return {406, "UnsupportedOperationException"};
    case ErrorCode::kConnectionFailed:
      return {502, "ServiceFailureException"};
    case ErrorCode::kUnavailable:
      return {503, "ServiceUnavailableException"};
    case ErrorCode::kTooManyRequests:
      return {429, "TooManyRequestsException"};
    case ErrorCode::kInternal:
      return {500, "ServiceFailureException"};
  }
  return {500, "ServiceFailureException"};
}

http::Response PlainErrorResponse(int status, std::string_view type, std::string_view message) {
  nlohmann::ordered_json error;
  error["message"] = message;
  error["type"] = type;
  error["code"] = status;
  nlohmann::ordered_json body;
  body["error"] = std::move(error);
  http::Response r;
  r.status = status;
  r.body = body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return r;
}

http::Response ErrorResponse(const Error& error) {
  const ErrorMapping m = MapError(error);
  return PlainErrorResponse(m.http_status, m.type, error.message);
}

}  // namespace cairn::api::iceberg
