// SPDX-License-Identifier: Apache-2.0
// Filesets of the Gravitino API: `.../catalogs/{c}/schemas/{s}/filesets[/{f}[/files|/location]]`.
#include <optional>

#include "api/gravitino/errors.h"
#include "api/gravitino/routes.h"
#include "api/gravitino/serde.h"
#include "common/util.h"
#include "connector/connector.h"

namespace cairn::api::gravitino {

namespace {

using governance::ObjectType;
using http::Request;
using http::Response;
using service::Action;
using service::ObjectRef;

bool IsBlank(const std::optional<std::string>& v) { return !v || Trim(*v).empty(); }

// Clients before 1.0 percent-encoded the sub path (and location name) once more themselves;
// Gravitino decodes them again for those clients, told apart by X-Client-Version.
bool EncodesQueryTwice(const Request& r) {
  auto version = r.Header("X-Client-Version");
  if (!version) return false;
  const std::string_view v = Trim(*version);
  const size_t end = v.find('.');
  const std::string_view major = v.substr(0, end);
  return major == "0";
}

void DecodeOnceMore(std::optional<std::string>& value) {
  if (!value) return;
  if (auto decoded = PercentDecode(*value)) value = std::move(*decoded);
}

Result<Response> ListFilesets(Call& c) {
  CAIRN_ASSIGN_OR_RETURN(auto names, c.objects.ListFilesets(c.caller, c.Ref(ObjectType::kSchema)));
  return SchemaChildrenReply(c, std::move(names));
}

Result<Response> CreateFileset(Call& c) {
  CAIRN_ASSIGN_OR_RETURN(Json body, c.Body());
  if (auto name = OptionalString(body, "name"); name && *name) c.op.name = **name;
  CAIRN_ASSIGN_OR_RETURN(model::Fileset fileset, FilesetFromJson(body));
  CAIRN_ASSIGN_OR_RETURN(model::Fileset created,
                         c.objects.CreateFileset(c.caller, c.Ref(ObjectType::kSchema), fileset));
  return Reply(OrderedJson{{"fileset", FilesetToJson(created)}});
}

Result<Response> LoadFileset(Call& c) {
  CAIRN_ASSIGN_OR_RETURN(model::Fileset f,
                         c.objects.LoadFileset(c.caller, c.Ref(ObjectType::kFileset)));
  return Reply(OrderedJson{{"fileset", FilesetToJson(f)}});
}

Result<Response> AlterFileset(Call& c) {
  CAIRN_ASSIGN_OR_RETURN(Json body, c.Body());
  CAIRN_ASSIGN_OR_RETURN(auto changes, EntityUpdatesFromJson(body, EntityKind::kFileset));
  CAIRN_ASSIGN_OR_RETURN(model::Fileset f,
                         c.objects.AlterFileset(c.caller, c.Ref(ObjectType::kFileset), changes));
  return Reply(OrderedJson{{"fileset", FilesetToJson(f)}});
}

Result<Response> DropFileset(Call& c) {
  CAIRN_ASSIGN_OR_RETURN(bool dropped,
                         c.objects.DropFileset(c.caller, c.Ref(ObjectType::kFileset)));
  return Reply(OrderedJson{{"dropped", dropped}});
}

// `sub_path` and `location_name` of a files or location call, decoded once more for old clients.
struct FileQuery {
  std::optional<std::string> sub_path;
  std::optional<std::string> location_name;
};

FileQuery ReadFileQuery(const Request& request, bool files) {
  FileQuery q{request.Query("sub_path"), request.Query("location_name")};
  if (files && !q.sub_path) q.sub_path = "/";
  if (EncodesQueryTwice(request)) {
    DecodeOnceMore(q.sub_path);
    if (!files) DecodeOnceMore(q.location_name);
  }
  if (q.location_name && IsBlank(q.location_name)) q.location_name.reset();
  return q;
}

Result<Response> ListFiles(Call& c) {
  const FileQuery q = ReadFileQuery(c.request, true);
  CAIRN_ASSIGN_OR_RETURN(auto list, c.objects.ListFiles(c.caller, c.Ref(ObjectType::kFileset),
                                                        *q.sub_path, q.location_name));
  OrderedJson arr = OrderedJson::array();
  for (const auto& f : list) arr.push_back(FileInfoToJson(f));
  return Reply(OrderedJson{{"files", std::move(arr)}});
}

Result<Response> GetFileLocation(Call& c) {
  if (!c.request.Query("sub_path"))
    return InvalidArgument("Query parameter 'sub_path' is required");
  // A rename through the virtual file system needs a path below the fileset's root.
  auto operation = c.request.Header("FilesetDataOperation");
  const std::optional<std::string> raw = c.request.Query("sub_path");
  if (operation && EqualsIgnoreCase(Trim(*operation), "RENAME") &&
      Trim(*raw).find_first_not_of('/') == std::string_view::npos) {
    return InvalidArgument(
        "Query parameter 'sub_path' cannot be blank when renaming a file or a directory");
  }
  const FileQuery q = ReadFileQuery(c.request, false);
  CAIRN_ASSIGN_OR_RETURN(std::string location,
                         c.objects.GetFileLocation(c.caller, c.Ref(ObjectType::kFileset),
                                                   *q.sub_path, q.location_name));
  return Reply(OrderedJson{{"fileLocation", location}});
}

}  // namespace

std::vector<Route> FilesetRoutes() {
  using K = EntityKind;
  using A = Action;
  constexpr std::nullopt_t kService = std::nullopt;  // the object service decides
  constexpr std::string_view kFilesets =
      "/metalakes/{metalake}/catalogs/{catalog}/schemas/{schema}/filesets";
  constexpr std::string_view kFileset =
      "/metalakes/{metalake}/catalogs/{catalog}/schemas/{schema}/filesets/{fileset}";
  constexpr std::string_view kFiles =
      "/metalakes/{metalake}/catalogs/{catalog}/schemas/{schema}/filesets/{fileset}/files";
  constexpr std::string_view kLocation =
      "/metalakes/{metalake}/catalogs/{catalog}/schemas/{schema}/filesets/{fileset}/location";
  return {
      {"GET", api::PathPattern(kFilesets), K::kFileset, "LIST", kService, ListFilesets},
      // Decided before the body is parsed; the object service decides again on the name.
      {"POST", api::PathPattern(kFilesets), K::kFileset, "CREATE", A::kCreateFileset,
       CreateFileset},
      {"GET", api::PathPattern(kFileset), K::kFileset, "LOAD", kService, LoadFileset},
      {"PUT", api::PathPattern(kFileset), K::kFileset, "ALTER", A::kWriteFileset, AlterFileset},
      {"DELETE", api::PathPattern(kFileset), K::kFileset, "DROP", kService, DropFileset},
      {"GET", api::PathPattern(kFiles), K::kFileset, "LIST", kService, ListFiles},
      // Decided before the query is checked.
      {"GET", api::PathPattern(kLocation), K::kFileset, "GET", A::kLoadFileset, GetFileLocation},
  };
}

}  // namespace cairn::api::gravitino
