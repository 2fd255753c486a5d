// SPDX-License-Identifier: Apache-2.0
// User-defined functions of a schema (Gravitino's functions.yaml; docs/functions.md).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "model/entities.h"

namespace cairn::model {

enum class FunctionType { kScalar, kAggregate, kTable };
enum class FunctionLanguage { kSql, kJava, kPython };
enum class FunctionRuntime { kSpark, kTrino };

/// The wire names: "SCALAR", "SQL", "SPARK" (parsed case-insensitively; "agg" is AGGREGATE).
std::string_view FunctionTypeName(FunctionType type);
std::string_view FunctionLanguageName(FunctionLanguage language);
std::string_view FunctionRuntimeName(FunctionRuntime runtime);
std::optional<FunctionType> ParseFunctionType(std::string_view text);
std::optional<FunctionLanguage> ParseFunctionLanguage(std::string_view text);
std::optional<FunctionRuntime> ParseFunctionRuntime(std::string_view text);

/// A parameter. Its type and default value are kept as the canonical JSON text the API layer
/// renders them in, so two parameters have the same type exactly when the texts are equal.
struct FunctionParam {
  std::string name;
  std::string data_type;  // a type's JSON text
  std::optional<std::string> comment;
  std::optional<std::string> default_value;  // an expression's JSON text
  bool operator==(const FunctionParam&) const = default;
};

/// A column of a table function's result.
struct FunctionColumn {
  std::string name;
  std::string data_type;  // a type's JSON text
  std::optional<std::string> comment;
  bool operator==(const FunctionColumn&) const = default;
};

struct FunctionResources {
  std::vector<std::string> jars;
  std::vector<std::string> files;
  std::vector<std::string> archives;
  bool operator==(const FunctionResources&) const = default;
};

/// One implementation of a definition, for one runtime: SQL text, a Java class, or Python code.
struct FunctionImpl {
  FunctionLanguage language = FunctionLanguage::kSql;
  FunctionRuntime runtime = FunctionRuntime::kSpark;
  std::string sql;                        // SQL
  std::string class_name;                 // JAVA
  std::optional<std::string> handler;     // PYTHON
  std::optional<std::string> code_block;  // PYTHON
  FunctionResources resources;
  Properties properties;
  bool operator==(const FunctionImpl&) const = default;
};

/// One signature of a function and its implementations: a scalar or aggregate function returns
/// `return_type`, a table function `return_columns`.
struct FunctionDefinition {
  std::vector<FunctionParam> parameters;
  std::optional<std::string> return_type;  // a type's JSON text
  std::vector<FunctionColumn> return_columns;
  std::vector<FunctionImpl> impls;
  bool operator==(const FunctionDefinition&) const = default;
};

struct Function {
  std::string name;
  FunctionType type = FunctionType::kScalar;
  bool deterministic = false;
  std::optional<std::string> comment;
  std::vector<FunctionDefinition> definitions;
  Audit audit;
};

/// One update of PUT .../functions/{function}. A definition is named by its parameters (their
/// names and types, in order).
struct FunctionChange {
  enum class Kind {
    kUpdateComment,
    kAddDefinition,
    kRemoveDefinition,
    kAddImpl,
    kUpdateImpl,
    kRemoveImpl
  };
  Kind kind = Kind::kUpdateComment;
  std::optional<std::string> comment;                 // updateComment (null clears it)
  FunctionDefinition definition;                      // addDefinition
  std::vector<FunctionParam> parameters;              // the definition the other changes address
  FunctionRuntime runtime = FunctionRuntime::kSpark;  // updateImpl, removeImpl
  FunctionImpl impl;                                  // addImpl, updateImpl
};

/// Bounds that keep one function's row small (docs/functions.md).
inline constexpr size_t kMaxFunctionDefinitions = 100;
inline constexpr size_t kMaxFunctionParameters = 255;
inline constexpr size_t kMaxFunctionTextBytes = 1024 * 1024;  // one SQL text or code block
inline constexpr size_t kMaxFunctionRowBytes = 4 * 1024 * 1024;

/// Checks a function as registered: a definition at least; the result each type needs (a
/// return type for scalar and aggregate functions, return columns for table functions, never
/// both); an implementation at least and at most one per runtime in each definition; the
/// fields each language needs; parameters with defaults only at the end; and no two
/// definitions that one call could match (the same parameter types once trailing defaulted
/// parameters are left out). kInvalidArgument naming the definition otherwise.
Status ValidateFunction(const Function& function);

/// `function` with `changes` applied in order, checked again as ValidateFunction checks; the
/// audit is left alone. kInvalidArgument naming the change that cannot apply (a definition
/// or runtime that is not there, the last definition or implementation removed, an overlap).
Result<Function> ApplyFunctionChanges(const Function& function,
                                      const std::vector<FunctionChange>& changes);

}  // namespace cairn::model
