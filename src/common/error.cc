// SPDX-License-Identifier: Apache-2.0
#include "common/error.h"

namespace cairn {

std::string_view ErrorCodeName(ErrorCode code) {
  switch (code) {
    case ErrorCode::kInvalidArgument:
      return "InvalidArgument";
    case ErrorCode::kUnprocessable:
      return "Unprocessable";
    case ErrorCode::kNotFound:
      return "NotFound";
    case ErrorCode::kAlreadyExists:
      return "AlreadyExists";
    case ErrorCode::kNotEmpty:
      return "NotEmpty";
    case ErrorCode::kNotInUse:
      return "NotInUse";
    case ErrorCode::kInUse:
      return "InUse";
    case ErrorCode::kConflict:
      return "Conflict";
    case ErrorCode::kCommitStateUnknown:
      return "CommitStateUnknown";
    case ErrorCode::kUnauthenticated:
      return "Unauthenticated";
    case ErrorCode::kPermissionDenied:
      return "PermissionDenied";
    case ErrorCode::kUnsupported:
      return "Unsupported";
    case ErrorCode::kConnectionFailed:
      return "ConnectionFailed";
    case ErrorCode::kUnavailable:
      return "Unavailable";
    case ErrorCode::kTooManyRequests:
      return "TooManyRequests";
    case ErrorCode::kInternal:
      return "Internal";
  }
  return "Internal";
}

std::string_view EntityKindName(EntityKind kind) {
  switch (kind) {
    case EntityKind::kNone:
      return "object";
    case EntityKind::kMetalake:
      return "metalake";
    case EntityKind::kCatalog:
      return "catalog";
    case EntityKind::kSchema:
      return "schema";
    case EntityKind::kTable:
      return "table";
    case EntityKind::kView:
      return "view";
    case EntityKind::kFileset:
      return "fileset";
    case EntityKind::kTopic:
      return "topic";
    case EntityKind::kModel:
      return "model";
    case EntityKind::kFunction:
      return "function";
    case EntityKind::kColumn:
      return "column";
    case EntityKind::kIndex:
      return "index";
    case EntityKind::kPartition:
      return "partition";
    case EntityKind::kUser:
      return "user";
    case EntityKind::kGroup:
      return "group";
    case EntityKind::kRole:
      return "role";
    case EntityKind::kMetadataObject:
      return "metadata object";
    case EntityKind::kPrivilege:
      return "privilege";
    case EntityKind::kLocationName:
      return "location name";
    case EntityKind::kTag:
    case EntityKind::kTagAssociation:
      return "tag";
    case EntityKind::kPolicy:
    case EntityKind::kPolicyAssociation:
      return "policy";
    case EntityKind::kStatistic:
      return "statistic";
    case EntityKind::kModelVersion:
      return "model version";
    case EntityKind::kModelVersionAlias:
      return "model version alias";
    case EntityKind::kModelVersionUri:
      return "model version URI";
    case EntityKind::kJobTemplate:
      return "job template";
    case EntityKind::kJob:
      return "job";
  }
  return "object";
}

}  // namespace cairn
