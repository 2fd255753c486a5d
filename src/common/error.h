// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>
#include <string_view>
#include <utility>

#include <fmt/format.h>

namespace cairn {

/// What went wrong, in domain words. Protocol front ends map (code, entity) to their own status
/// codes and error bodies in exactly one place each (src/api/<protocol>/errors.cc).
enum class ErrorCode {
  kInvalidArgument,     // the request is wrong; retrying it unchanged cannot succeed
  kUnprocessable,       // well-formed, but its parts contradict each other (a key set and removed)
  kNotFound,            // the addressed object (or a parent) does not exist
  kAlreadyExists,       // an object with that name exists
  kNotEmpty,            // the object still has children
  kNotInUse,            // the object (or a parent) is disabled
  kInUse,               // the object must be disabled before this operation
  kConflict,            // a concurrent writer won; re-read and retry may succeed
  kCommitStateUnknown,  // the outcome of a write is not known
  kUnauthenticated,
  kPermissionDenied,
  kUnsupported,       // the provider or protocol does not support the operation
  kConnectionFailed,  // a source could not be reached while testing a connection
  kUnavailable,       // a dependency is down or busy; retrying later may succeed
  kTooManyRequests,   // the caller (or its interface) is over a request limit; retry later
  kInternal,          // a bug or an unexpected failure
};

/// The kind of object an error is about; protocols use it to pick an error type name.
enum class EntityKind {
  kNone,
  kMetalake,
  kCatalog,
  kSchema,
  kTable,
  kView,
  kFileset,
  kTopic,
  kModel,
  kFunction,
  kColumn,
  kIndex,
  kPartition,
  kUser,
  kGroup,
  kRole,
  kMetadataObject,
  kPrivilege,
  kLocationName,  // a named storage location of a fileset
  kTag,
  kTagAssociation,  // a tag attached to an object (TagAlreadyAssociatedException)
  kPolicy,
  kPolicyAssociation,  // a policy attached to an object (PolicyAlreadyAssociatedException)
  kStatistic,     // a statistic of a table (IllegalStatisticName-, UnmodifiableStatisticException)
  kModelVersion,  // a version of a model (NoSuchModelVersionException)
  kModelVersionAlias,  // an alias taken (ModelVersionAliasesAlreadyExistException)
  kModelVersionUri,    // a named URI of a model version (NoSuchModelVersionURINameException)
  kJobTemplate,        // a job template of a metalake (NoSuchJobTemplateException)
  kJob,                // a run of a job template (NoSuchJobException)
};

std::string_view ErrorCodeName(ErrorCode code);
std::string_view EntityKindName(EntityKind kind);

struct Error {
  ErrorCode code = ErrorCode::kInternal;
  EntityKind entity = EntityKind::kNone;
  std::string message;

  /// The same error, code and entity kept, with `context` (where it happened, e.g.
  /// "updates[3]") before its message: "<context>: <message>". An empty context changes nothing.
  Error WithContext(std::string_view context) const& { return Error(*this).WithContext(context); }
  Error WithContext(std::string_view context) && {
    if (!context.empty()) message.insert(0, std::string(context) + ": ");
    return std::move(*this);
  }
};

template <typename... Args>
Error MakeError(ErrorCode code, EntityKind entity, fmt::format_string<Args...> f, Args&&... args) {
  return Error{code, entity, fmt::format(f, std::forward<Args>(args)...)};
}

template <typename... Args>
Error InvalidArgument(fmt::format_string<Args...> f, Args&&... args) {
  return MakeError(ErrorCode::kInvalidArgument, EntityKind::kNone, f, std::forward<Args>(args)...);
}
template <typename... Args>
Error NotFound(EntityKind e, fmt::format_string<Args...> f, Args&&... args) {
  return MakeError(ErrorCode::kNotFound, e, f, std::forward<Args>(args)...);
}
template <typename... Args>
Error AlreadyExists(EntityKind e, fmt::format_string<Args...> f, Args&&... args) {
  return MakeError(ErrorCode::kAlreadyExists, e, f, std::forward<Args>(args)...);
}
template <typename... Args>
Error Unsupported(fmt::format_string<Args...> f, Args&&... args) {
  return MakeError(ErrorCode::kUnsupported, EntityKind::kNone, f, std::forward<Args>(args)...);
}
template <typename... Args>
Error Internal(fmt::format_string<Args...> f, Args&&... args) {
  return MakeError(ErrorCode::kInternal, EntityKind::kNone, f, std::forward<Args>(args)...);
}
template <typename... Args>
Error Unavailable(fmt::format_string<Args...> f, Args&&... args) {
  return MakeError(ErrorCode::kUnavailable, EntityKind::kNone, f, std::forward<Args>(args)...);
}
template <typename... Args>
Error Unprocessable(fmt::format_string<Args...> f, Args&&... args) {
  return MakeError(ErrorCode::kUnprocessable, EntityKind::kNone, f, std::forward<Args>(args)...);
}
template <typename... Args>
Error Conflict(EntityKind e, fmt::format_string<Args...> f, Args&&... args) {
  return MakeError(ErrorCode::kConflict, e, f, std::forward<Args>(args)...);
}

}  // namespace cairn
