// SPDX-License-Identifier: Apache-2.0
// Hive's column type strings ("decimal(10,2)", "array<struct<a:int,b:string>>") to the object
// model's types and back (docs/hive.md).
#pragma once

#include <string>
#include <string_view>

#include "common/result.h"
#include "model/types.h"

namespace cairn::connector::hive {

/// The model type of a Hive type string, case-insensitively. Text that is not one of Hive's
/// types (or nests deeper than model::kMaxTypeDepth) is an `external` type carrying it.
model::TypePtr FromHiveType(std::string_view text);

/// The Hive type string of a model type, lower case as Hive writes it. kInvalidArgument naming
/// `column` for a type Hive has no equivalent of (time, timestamp with time zone, uuid, fixed,
/// unsigned integers, null).
Result<std::string> ToHiveType(const model::TypePtr& type, std::string_view column);

}  // namespace cairn::connector::hive
