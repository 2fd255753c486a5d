// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "governance/access_control.h"
#include "message/message.h"

namespace cairn::service {
class ObjectService;
}
namespace cairn::api::gravitino {
class GravitinoApi;
}
namespace cairn::api::iceberg {
class IcebergApi;
}

namespace cairn::api::mcp {

/// What tools reach: the interfaces of this process they call as the principal, and the object
/// service for decisions no interface exposes (the caller's own privileges).
struct ToolContext {
  const gravitino::GravitinoApi* gravitino = nullptr;
  const iceberg::IcebergApi* iceberg = nullptr;
  service::ObjectService* objects = nullptr;
  std::string default_metalake;
};

/// The outcome of one tool call. `status` is the HTTP status of the interface call that decided
/// it (200 when it succeeded), for the audit record; `object` names what it addressed.
struct ToolResult {
  nlohmann::json structured = nlohmann::json::object();
  bool is_error = false;
  int status = 200;
  std::string object;
};

/// One call: the principal, the validated arguments, and the calls into the interfaces.
class ToolCall {
 public:
  ToolCall(const ToolContext& context, const governance::Principal& principal,
           const nlohmann::json& arguments, std::string request_id);

  const nlohmann::json& args() const { return arguments_; }
  const governance::Principal& principal() const { return principal_; }
  const ToolContext& context() const { return context_; }
  /// A string argument, or `fallback` when absent.
  std::string Str(std::string_view key, std::string_view fallback = "") const;
  int64_t Int(std::string_view key, int64_t fallback) const;
  bool Bool(std::string_view key, bool fallback) const;
  /// The `metalake` argument, or the configured default.
  std::string Metalake() const;

  /// The answer of one Gravitino API call (`path` below `/api`, segments already encoded).
  struct Answer {
    int status = 0;
    nlohmann::json body;
    bool ok() const { return status >= 200 && status < 300; }
  };
  Answer Gravitino(std::string_view method, const std::string& path,
                   const std::vector<std::pair<std::string, std::string>>& query = {},
                   const nlohmann::json* body = nullptr) const;
  /// An Iceberg REST call (`path` below `/iceberg`).
  Answer Iceberg(std::string_view method, const std::string& path) const;

 private:
  const ToolContext& context_;
  const governance::Principal& principal_;
  const nlohmann::json& arguments_;
  std::string request_id_;
};

struct Tool {
  std::string name;
  std::string title;
  std::string description;
  nlohmann::json input_schema;
  bool writes = false;  // changes metadata: served only when writes are allowed
  std::function<ToolResult(const ToolCall&)> run;
};

/// The catalog's tools, in the order `tools/list` shows them.
class Tools {
 public:
  Tools();
  const std::vector<Tool>& all() const { return tools_; }
  const Tool* Find(std::string_view name) const;

 private:
  std::vector<Tool> tools_;
};

/// Checks `arguments` against `schema` (the subset of JSON Schema the tools declare: `type`,
/// `properties`, `required`, `additionalProperties: false`, `enum`, `minimum`, `maximum`,
/// `minLength`, `maxLength`, `items`, `maxItems`). Empty when they conform, else a message naming
/// the argument (`'limit' must be at most 1000`).
std::string ValidateArguments(const nlohmann::json& schema, const nlohmann::json& arguments);

}  // namespace cairn::api::mcp
