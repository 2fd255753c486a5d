// SPDX-License-Identifier: Apache-2.0
#include "connector/fileset/fileset_locations.h"

#include <filesystem>
#include <set>

#include "common/util.h"

namespace cairn::connector::fileset {

namespace {

bool IsBlank(std::string_view s) { return Trim(s).empty(); }

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

std::string WithoutTrailingSlash(std::string_view s) {
  std::string out(s);
  while (out.size() > 1 && out.back() == '/') out.pop_back();
  return out;
}

std::string WithTrailingSlash(std::string_view s) {
  std::string out(s);
  if (out.empty() || out.back() != '/') out.push_back('/');
  return out;
}

// Reads `location` and `location-<name>` of a catalog or schema; `what` names the level.
Result<LocationMap> LevelLocations(const model::Properties& props, std::string_view what) {
  LocationMap out;
  if (auto it = props.find(std::string(kLocationProperty)); it != props.end()) {
    if (IsBlank(it->second)) {
      return InvalidArgument("The value of the {} property '{}' must not be blank", what,
                             kLocationProperty);
    }
    CAIRN_RETURN_IF_ERROR(CheckPlaceholders(it->second));
    out[std::string(kUnknownLocationName)] = std::string(Trim(it->second));
  }
  for (const auto& [key, value] : props) {
    if (!StartsWith(key, kLocationPrefix)) continue;
    const std::string name = key.substr(kLocationPrefix.size());
    if (IsBlank(name)) {
      return InvalidArgument("The {} property '{}' has a blank location name", what, key);
    }
    if (name == kUnknownLocationName) {
      return InvalidArgument("The {} property '{}' is reserved; use '{}' instead", what, key,
                             kLocationProperty);
    }
    if (IsBlank(value)) {
      return InvalidArgument("The value of the {} property '{}' must not be blank", what, key);
    }
    CAIRN_RETURN_IF_ERROR(CheckPlaceholders(value));
    out[name] = std::string(Trim(value));
  }
  return out;
}

}  // namespace

bool ContainsPlaceholder(std::string_view location) {
  const size_t open = location.find("{{");
  return open != std::string_view::npos && location.find("}}", open + 2) != std::string_view::npos;
}

Status CheckPlaceholders(std::string_view location) {
  size_t pos = 0;
  while ((pos = location.find("{{", pos)) != std::string_view::npos) {
    const size_t close = location.find("}}", pos + 2);
    if (close == std::string_view::npos) break;
    if (close == pos + 2) {
      return InvalidArgument("Placeholder in location should not be empty, location: {}", location);
    }
    pos = close + 2;
  }
  return Ok();
}

Result<std::string> ReplacePlaceholders(std::string_view location,
                                        const std::map<std::string, std::string>& values) {
  std::string out;
  size_t pos = 0;
  while (true) {
    const size_t open = location.find("{{", pos);
    const size_t close =
        open == std::string_view::npos ? std::string_view::npos : location.find("}}", open + 2);
    if (close == std::string_view::npos) {
      out.append(location.substr(pos));
      return out;
    }
    out.append(location.substr(pos, open - pos));
    const std::string key(location.substr(open + 2, close - open - 2));
    auto it = values.find(key);
    if (it == values.end()) {
      return InvalidArgument(
          "No value found for placeholder '{{{{{}}}}}' in location '{}'; set the fileset "
          "property '{}{}'",
          key, location, kPlaceholderPrefix, key);
    }
    out.append(it->second);
    pos = close + 2;
  }
}

std::string JoinLocation(std::string_view base, std::string_view child) {
  std::string out(base);
  while (!out.empty() && out.back() == '/') out.pop_back();
  out.push_back('/');
  out.append(child);
  return out;
}

Result<std::string> NormalizeLocation(std::string_view location) {
  std::string loc(Trim(location));
  if (loc.empty()) return InvalidArgument("A storage location must not be blank");
  std::string path;
  if (StartsWith(loc, "file://")) {
    path = loc.substr(7);
  } else if (StartsWith(loc, "file:")) {
    path = loc.substr(5);
  } else if (loc.find("://") != std::string::npos) {
    return WithoutTrailingSlash(loc);
  } else {
    path = loc;
  }
  if (path.empty() || path[0] != '/') {
    return InvalidArgument(
        "Storage location '{}' must be an absolute path or a URI with a scheme (e.g. "
        "file:/data/x, s3://bucket/x)",
        loc);
  }
  std::string normal = std::filesystem::path(path).lexically_normal().string();
  return "file:" + WithoutTrailingSlash(normal);
}

Result<LocationMap> CatalogLocations(const model::Properties& catalog_properties) {
  return LevelLocations(catalog_properties, "catalog");
}

Result<LocationMap> SchemaLocations(const LocationMap& catalog_locations, std::string_view schema,
                                    const model::Properties& schema_properties) {
  LocationMap out;
  for (const auto& [name, location] : catalog_locations) {
    out[name] = ContainsPlaceholder(location) ? location : JoinLocation(location, schema);
  }
  CAIRN_ASSIGN_OR_RETURN(LocationMap own, LevelLocations(schema_properties, "schema"));
  for (auto& [name, location] : own) out[name] = std::move(location);
  return out;
}

Result<LocationMap> ResolveFilesetLocations(const FilesetNames& names,
                                            const LocationMap& explicit_locations,
                                            const LocationMap& schema_locations,
                                            const model::Properties& fileset_properties) {
  for (const auto& [name, location] : explicit_locations) {
    if (IsBlank(name)) return InvalidArgument("Field 'storageLocations' has a blank location name");
    if (IsBlank(location)) {
      return InvalidArgument("Field 'storageLocations' has a blank location for location name '{}'",
                             name);
    }
    CAIRN_RETURN_IF_ERROR(CheckPlaceholders(location));
  }
  std::map<std::string, std::string> values;
  for (const auto& [key, value] : fileset_properties) {
    if (StartsWith(key, kPlaceholderPrefix)) values[key.substr(kPlaceholderPrefix.size())] = value;
  }
  values["catalog"] = names.catalog;
  values["schema"] = names.schema;
  values["fileset"] = names.fileset;

  std::set<std::string> location_names;
  for (const auto& [name, _] : schema_locations) location_names.insert(name);
  for (const auto& [name, _] : explicit_locations) location_names.insert(name);
  LocationMap out;
  for (const auto& name : location_names) {
    auto explicit_it = explicit_locations.find(name);
    if (explicit_it != explicit_locations.end()) {
      const std::string location(Trim(explicit_it->second));
      if (!ContainsPlaceholder(location)) {
        out[name] = location;
      } else {
        CAIRN_ASSIGN_OR_RETURN(out[name], ReplacePlaceholders(location, values));
      }
      continue;
    }
    const std::string& schema_location = schema_locations.at(name);
    if (!ContainsPlaceholder(schema_location)) {
      out[name] = JoinLocation(schema_location, names.fileset);
    } else {
      CAIRN_ASSIGN_OR_RETURN(out[name], ReplacePlaceholders(schema_location, values));
    }
  }
  return out;
}

Result<model::Properties> WithDefaultLocationName(model::Properties properties,
                                                  const LocationMap& locations) {
  if (locations.empty()) return InvalidArgument("A fileset needs at least one storage location");
  const std::string key(kDefaultLocationNameProperty);
  auto it = properties.find(key);
  if (locations.size() == 1) {
    const std::string& only = locations.begin()->first;
    if (it == properties.end()) {
      properties[key] = only;
    } else if (it->second != only) {
      return InvalidArgument("Property '{}' is '{}' but the fileset's only location is named '{}'",
                             key, it->second, only);
    }
    return properties;
  }
  std::vector<std::string> names;
  for (const auto& [name, _] : locations) names.push_back(name);
  if (it == properties.end() || locations.count(it->second) == 0) {
    return InvalidArgument(
        "Property '{}' must be set to one of the fileset's location names [{}] when it has "
        "several locations{}",
        key, Join(names, ", "),
        it == properties.end() ? std::string() : fmt::format(" (got '{}')", it->second));
  }
  return properties;
}

Status CheckLocationHierarchy(const LocationMap& schema_locations,
                              const LocationMap& fileset_locations) {
  for (const auto& [fileset_name, fileset_location] : fileset_locations) {
    for (const auto& [schema_name, schema_location] : schema_locations) {
      if (ContainsPlaceholder(schema_location)) continue;
      auto schema_normal = NormalizeLocation(schema_location);
      if (!schema_normal) continue;
      if (StartsWith(WithTrailingSlash(*schema_normal), WithTrailingSlash(fileset_location))) {
        return InvalidArgument(
            "The fileset location {} with location name {} is not allowed to be the parent of "
            "the schema location {} with location name {}",
            fileset_location, fileset_name, *schema_normal, schema_name);
      }
    }
  }
  return Ok();
}

Status CheckCreateProperties(const model::Properties& properties) {
  std::vector<std::string> reserved;
  for (const char* key : {"placeholder-catalog", "placeholder-schema", "placeholder-fileset"}) {
    if (properties.count(key) > 0) reserved.emplace_back(key);
  }
  if (!reserved.empty()) {
    return InvalidArgument("Properties or property prefixes are reserved and cannot be set: [{}]",
                           Join(reserved, ", "));
  }
  return Ok();
}

Status CheckAlterProperty(std::string_view property) {
  if (property == kDefaultLocationNameProperty || StartsWith(property, kPlaceholderPrefix)) {
    return InvalidArgument("Property {} is immutable or reserved, cannot be changed", property);
  }
  return Ok();
}

Status CheckSchemaAlterProperty(std::string_view property) {
  if (property == kLocationProperty || StartsWith(property, kLocationPrefix)) {
    return InvalidArgument("Property {} is immutable or reserved, cannot be changed", property);
  }
  return Ok();
}

Result<std::string> FileLocation(const model::Fileset& fileset, std::string_view sub_path,
                                 const std::optional<std::string>& location_name) {
  const std::string_view trimmed = Trim(sub_path);
  for (const auto& segment : Split(trimmed, '/')) {
    if (segment == "..") {
      return InvalidArgument("Query parameter 'sub_path' must not contain '..' (got '{}')",
                             sub_path);
    }
  }
  std::string processed(trimmed);
  if (!processed.empty() && processed[0] != '/') processed.insert(processed.begin(), '/');

  std::string target;
  if (location_name) {
    target = *location_name;
  } else if (fileset.storage_locations.size() == 1) {
    target = fileset.storage_locations.begin()->first;
  } else if (auto it = fileset.properties.find(std::string(kDefaultLocationNameProperty));
             it != fileset.properties.end()) {
    target = it->second;
  }
  auto location = fileset.storage_locations.find(target);
  if (location == fileset.storage_locations.end()) {
    return NotFound(EntityKind::kLocationName, "Location name {} does not exist in fileset {}",
                    target, fileset.name);
  }
  if (processed.empty()) return location->second;
  std::string base = location->second;
  if (!base.empty() && base.back() == '/') base.pop_back();
  return base + processed;
}

std::string VirtualPath(const FilesetNames& names, std::string_view sub_path,
                        std::string_view entry_name) {
  std::string dir = fmt::format("/fileset/{}/{}/{}", names.catalog, names.schema, names.fileset);
  std::string sub(Trim(sub_path));
  while (!sub.empty() && sub.back() == '/') sub.pop_back();
  while (!sub.empty() && sub.front() == '/') sub.erase(sub.begin());
  if (!sub.empty()) dir += "/" + sub;
  return dir + "/" + std::string(entry_name);
}

}  // namespace cairn::connector::fileset
