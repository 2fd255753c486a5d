// SPDX-License-Identifier: Apache-2.0
#include <algorithm>
#include <array>

#include "common/util.h"
#include "connector/connector.h"

namespace cairn::connector {

namespace {

// Providers of the Gravitino API that this server does not serve (yet); named in the error so a
// user knows the name was understood.
constexpr std::array<std::string_view, 11> kKnownProviders = {
    "lakehouse-paimon", "lakehouse-hudi", "jdbc-doris", "jdbc-starrocks", "jdbc-clickhouse",
    "jdbc-hologres",    "jdbc-oceanbase", "glue",       "fileset",        "kafka",
    "model"};

thread_local std::optional<std::string_view> t_caller_authorization;

}  // namespace

Result<bool> BoolProperty(const model::Properties& props, std::string_view name, bool fallback) {
  auto it = props.find(std::string(name));
  if (it == props.end()) return fallback;
  if (EqualsIgnoreCase(it->second, "true")) return true;
  if (EqualsIgnoreCase(it->second, "false")) return false;
  return InvalidArgument("Property '{}' must be true or false, not '{}'", name, it->second);
}

CallerAuthorizationScope::CallerAuthorizationScope(
    std::optional<std::string_view> authorization)
    : previous_(t_caller_authorization) {
  t_caller_authorization = authorization;
}

CallerAuthorizationScope::~CallerAuthorizationScope() { t_caller_authorization = previous_; }

std::optional<std::string> CallerAuthorization() {
  if (!t_caller_authorization) return std::nullopt;
  return std::string(*t_caller_authorization);
}

void ConnectorRegistry::Register(std::string provider, model::CatalogType type, Factory factory) {
  factories_[std::move(provider)] = Entry{type, std::move(factory)};
}

Status ConnectorRegistry::CheckProvider(model::CatalogType type, std::string_view provider) const {
  auto it = factories_.find(provider);
  if (it == factories_.end()) {
    std::vector<std::string> supported;
    for (const auto& [name, entry] : factories_) supported.push_back(name);
    for (auto known : kKnownProviders) {
      if (known == provider) {
        return InvalidArgument(
            "Catalog provider '{}' is not supported by this server; supported providers: {}",
            provider, Join(supported, ", "));
      }
    }
    return InvalidArgument("Unknown catalog provider '{}'; supported providers: {}", provider,
                           Join(supported, ", "));
  }
  if (it->second.type != type) {
    return InvalidArgument("Catalog provider '{}' serves catalogs of type '{}', not '{}'", provider,
                           model::CatalogTypeName(it->second.type), model::CatalogTypeName(type));
  }
  return Ok();
}

Result<std::unique_ptr<Connector>> ConnectorRegistry::Create(const CatalogInfo& info) const {
  CAIRN_RETURN_IF_ERROR(CheckProvider(info.type, info.provider));
  return factories_.find(info.provider)->second.factory(info, deps_);
}

NamePage PageOfNames(std::vector<std::string> names, const std::string& after, size_t limit) {
  std::sort(names.begin(), names.end());
  auto from = after.empty() ? names.begin() : std::upper_bound(names.begin(), names.end(), after);
  NamePage page;
  for (auto it = from; it != names.end(); ++it) {
    if (page.names.size() == limit) {
      page.more = true;
      break;
    }
    page.names.push_back(std::move(*it));
  }
  return page;
}

}  // namespace cairn::connector
