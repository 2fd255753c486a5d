// SPDX-License-Identifier: Apache-2.0
// Where the files of a fileset live: the storage locations of catalogs, schemas and filesets,
// their inheritance and `{{placeholder}}` substitution, with Gravitino's rules. Pure functions
// (no storage access), so every rule can be tested on its own.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "common/result.h"
#include "model/entities.h"

namespace cairn::connector::fileset {

/// Location name -> location (URI, or an absolute local path before normalization).
using LocationMap = std::map<std::string, std::string>;

/// The name under which the unnamed location (`location`, `storageLocation`) is kept.
inline constexpr std::string_view kUnknownLocationName = "unknown";
inline constexpr std::string_view kLocationProperty = "location";
inline constexpr std::string_view kLocationPrefix = "location-";
inline constexpr std::string_view kPlaceholderPrefix = "placeholder-";
inline constexpr std::string_view kDefaultLocationNameProperty = "default-location-name";

/// True when `location` holds a `{{name}}` placeholder.
bool ContainsPlaceholder(std::string_view location);
/// kInvalidArgument when `location` holds an empty placeholder `{{}}`.
Status CheckPlaceholders(std::string_view location);
/// Replaces every `{{name}}` by `values[name]`; kInvalidArgument naming the first placeholder
/// without a value.
Result<std::string> ReplacePlaceholders(std::string_view location,
                                        const std::map<std::string, std::string>& values);

/// `base` + "/" + `child`, without doubling the slash.
std::string JoinLocation(std::string_view base, std::string_view child);

/// The form a fileset location is stored in: trailing slashes dropped, a plain absolute path or a
/// `file://` URI becomes `file:/path` (lexically normalized), other URIs are kept.
/// kInvalidArgument for an empty or relative location.
Result<std::string> NormalizeLocation(std::string_view location);

/// The catalog's locations from its properties: `location` (name "unknown") and
/// `location-<name>`. kInvalidArgument naming the property for blank values, blank names, the
/// reserved `location-unknown` and empty placeholders.
Result<LocationMap> CatalogLocations(const model::Properties& catalog_properties);

/// The schema's locations: each catalog location without placeholders plus "/<schema>" (one
/// with placeholders is kept whole, to be resolved per fileset), overridden by the schema's own
/// `location` / `location-<name>` properties (validated like the catalog's).
Result<LocationMap> SchemaLocations(const LocationMap& catalog_locations, std::string_view schema,
                                    const model::Properties& schema_properties);

struct FilesetNames {
  std::string catalog;
  std::string schema;
  std::string fileset;
};

/// The locations of a new fileset, per location name (the union of the explicit names and the
/// schema's): an explicit location wins; a schema location without placeholders gets
/// "/<fileset>" appended; placeholders (`{{catalog}}`, `{{schema}}`, `{{fileset}}` and
/// `{{x}}` from fileset property `placeholder-x`) are replaced. Results are not normalized.
Result<LocationMap> ResolveFilesetLocations(const FilesetNames& names,
                                            const LocationMap& explicit_locations,
                                            const LocationMap& schema_locations,
                                            const model::Properties& fileset_properties);

/// Properties with `default-location-name` set: a single location is the default (a different
/// explicit value is kInvalidArgument); with several, the property is required and must name one.
Result<model::Properties> WithDefaultLocationName(model::Properties properties,
                                                  const LocationMap& locations);

/// kInvalidArgument when a fileset location is a schema location or one of its parents.
Status CheckLocationHierarchy(const LocationMap& schema_locations,
                              const LocationMap& fileset_locations);

/// kInvalidArgument when a property of a new fileset is reserved (`placeholder-catalog`,
/// `placeholder-schema`, `placeholder-fileset`).
Status CheckCreateProperties(const model::Properties& properties);
/// kInvalidArgument when a fileset property may not be set or removed after creation
/// (`default-location-name`, `placeholder-*`).
Status CheckAlterProperty(std::string_view property);
/// kInvalidArgument when a schema property may not be set or removed after creation
/// (`location`, `location-*`).
Status CheckSchemaAlterProperty(std::string_view property);

/// The location of `sub_path` in a fileset, as Gravitino computes it: a sub path without a
/// leading slash gets one; an empty sub path is the location itself. `location_name` absent:
/// the only location, else the `default-location-name` one. kNotFound (kLocationName) for an
/// unknown name; kInvalidArgument when a `..` segment would leave the fileset.
Result<std::string> FileLocation(const model::Fileset& fileset, std::string_view sub_path,
                                 const std::optional<std::string>& location_name);

/// The virtual path of an entry listed under `sub_path`:
/// `/fileset/<catalog>/<schema>/<fileset>[/<sub path>]/<name>`.
std::string VirtualPath(const FilesetNames& names, std::string_view sub_path,
                        std::string_view entry_name);

}  // namespace cairn::connector::fileset
