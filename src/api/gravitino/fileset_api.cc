// SPDX-License-Identifier: Apache-2.0
// Filesets of the Gravitino API: `.../catalogs/{c}/schemas/{s}/filesets[/{f}[/files|/location]]`.
#include <optional>

#include "api/gravitino/errors.h"
#include "api/gravitino/gravitino_api.h"
#include "api/gravitino/serde.h"
#include "common/util.h"
#include "connector/connector.h"

namespace cairn::api::gravitino {

namespace {

using governance::ObjectType;
using http::Request;
using http::Response;
using service::Action;

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

}  // namespace

Response GravitinoApi::HandleFilesets(const Request& request,
                                      const governance::Principal& principal,
                                      const std::vector<std::string>& seg) const {
  const std::string& method = request.method;
  const size_t n = seg.size();
  const std::string& ml = seg[1];
  const std::string& cat = seg[3];
  const std::string& sch = seg[5];
  Operation op{EntityKind::kFileset, "*", "", EntityKind::kSchema, cat + "." + sch};
  auto fail = [&](const Error& e) { return ErrorResponse(e, op); };
  auto not_allowed = [&] {
    return PlainErrorResponse(405, 1006, "UnsupportedOperationException",
                              fmt::format("Method {} is not allowed on {}", method, DisplayPath(request.path)));
  };
  auto no_route = [&] {
    return PlainErrorResponse(404, 1003, "NotFoundException",
                              fmt::format("No endpoint matches {} {}", method, DisplayPath(request.path)));
  };
  auto guard = [&](Action action, const std::string& fileset) -> std::optional<Response> {
    auto s = authz_.Authorize(principal, action, ml, cat, {sch}, fileset, ObjectType::kFileset);
    if (!s) return fail(s.error());
    return std::nullopt;
  };
  // The catalog's fileset operations; a catalog of another type has none (405, as Gravitino).
  auto open = [&]()
      -> Result<std::pair<std::shared_ptr<connector::Connector>, connector::FilesetCatalog*>> {
    CAIRN_ASSIGN_OR_RETURN(auto conn, service_.OpenCatalog(ml, cat));
    connector::FilesetCatalog* filesets = conn->Find<connector::FilesetCatalog>();
    if (filesets == nullptr) {
      return Unsupported("Catalog {} does not support fileset operations", cat);
    }
    return std::make_pair(std::move(conn), filesets);
  };
  service::CallContext ctx{principal.user, NowMillis(), "gravitino"};
  auto changed = [&](service::ChangeType type, const std::string& fileset,
                     const std::string& new_name = "") {
    service_.events().Publish(
        service::MakeChange(ctx, type, ObjectType::kFileset, ml, cat, {sch}, fileset, new_name));
  };

  if (n == 7) {
    if (method == "GET") {
      op.op = "LIST";
      if (auto d = guard(Action::kLoadSchema, "")) return *d;
      auto fc = open();
      if (!fc) return fail(fc.error());
      auto names = fc->second->ListFilesets(sch);
      if (!names) return fail(names.error());
      auto kept = authz_.Visible(principal, Action::kLoadFileset, ml, cat, {sch},
                                 std::move(*names), ObjectType::kFileset);
      if (!kept) return fail(kept.error());
      const std::vector<std::string> visible = std::move(*kept);
      OrderedJson arr = OrderedJson::array();
      for (const auto& name : visible) {
        arr.push_back(OrderedJson{{"namespace", {ml, cat, sch}}, {"name", name}});
      }
      return Ok(OrderedJson{{"identifiers", std::move(arr)}});
    }
    if (method == "POST") {
      op.op = "CREATE";
      if (auto d = guard(Action::kCreateFileset, "")) return *d;  // before the body is parsed
      auto body = ParseBody(request.body);
      if (!body) return fail(body.error());
      if (auto nm = OptionalString(*body, "name"); nm && *nm) op.name = **nm;
      auto fileset = FilesetFromJson(*body);
      if (!fileset) return fail(fileset.error());
      auto valid = model::ValidateObjectName(EntityKind::kFileset, fileset->name);
      if (!valid) return fail(valid.error());
      if (auto d = guard(Action::kCreateFileset, fileset->name)) return *d;
      auto fc = open();
      if (!fc) return fail(fc.error());
      auto created = fc->second->CreateFileset(ctx, sch, *fileset);
      if (!created) return fail(created.error());
      changed(service::ChangeType::kCreated, created->name);
      return Ok(OrderedJson{{"fileset", FilesetToJson(*created)}});
    }
    return not_allowed();
  }

  const std::string& name = seg[7];
  op.name = name;
  if (n == 8) {
    if (method == "GET") {
      op.op = "LOAD";
      if (auto d = guard(Action::kLoadFileset, name)) return *d;
      auto fc = open();
      if (!fc) return fail(fc.error());
      auto f = fc->second->LoadFileset(sch, name);
      if (!f) return fail(f.error());
      return Ok(OrderedJson{{"fileset", FilesetToJson(*f)}});
    }
    if (method == "PUT") {
      op.op = "ALTER";
      if (auto d = guard(Action::kWriteFileset, name)) return *d;
      auto body = ParseBody(request.body);
      if (!body) return fail(body.error());
      auto changes = EntityUpdatesFromJson(*body, EntityKind::kFileset);
      if (!changes) return fail(changes.error());
      auto fc = open();
      if (!fc) return fail(fc.error());
      auto f = fc->second->AlterFileset(ctx, sch, name, *changes);
      if (!f) return fail(f.error());
      changed(service::ChangeType::kAltered, name, f->name);
      return Ok(OrderedJson{{"fileset", FilesetToJson(*f)}});
    }
    if (method == "DELETE") {
      op.op = "DROP";
      if (auto d = guard(Action::kDropFileset, name)) return *d;
      auto fc = open();
      if (!fc) return fail(fc.error());
      auto dropped = fc->second->DropFileset(ctx, sch, name);
      if (!dropped) return fail(dropped.error());
      if (*dropped) changed(service::ChangeType::kDropped, name);
      return Ok(OrderedJson{{"dropped", *dropped}});
    }
    return not_allowed();
  }

  if (n == 9 && (seg[8] == "files" || seg[8] == "location")) {
    if (method != "GET") return not_allowed();
    const bool files = seg[8] == "files";
    op.op = files ? "LIST" : "GET";
    if (auto d = guard(Action::kLoadFileset, name)) return *d;
    std::optional<std::string> sub_path = request.Query("sub_path");
    std::optional<std::string> location_name = request.Query("location_name");
    if (files) {
      if (!sub_path) sub_path = "/";
    } else {
      if (!sub_path) return fail(InvalidArgument("Query parameter 'sub_path' is required"));
      // A rename through the virtual file system needs a path below the fileset's root.
      auto operation = request.Header("FilesetDataOperation");
      if (operation && EqualsIgnoreCase(Trim(*operation), "RENAME") &&
          Trim(*sub_path).find_first_not_of('/') == std::string_view::npos) {
        return fail(InvalidArgument(
            "Query parameter 'sub_path' cannot be blank when renaming a file or a directory"));
      }
    }
    if (EncodesQueryTwice(request)) {
      DecodeOnceMore(sub_path);
      if (!files) DecodeOnceMore(location_name);
    }
    if (location_name && IsBlank(location_name)) location_name.reset();
    auto fc = open();
    if (!fc) return fail(fc.error());
    if (files) {
      auto list = fc->second->ListFiles(sch, name, *sub_path, location_name);
      if (!list) return fail(list.error());
      OrderedJson arr = OrderedJson::array();
      for (const auto& f : *list) arr.push_back(FileInfoToJson(f));
      return Ok(OrderedJson{{"files", std::move(arr)}});
    }
    auto location = fc->second->GetFileLocation(sch, name, *sub_path, location_name);
    if (!location) return fail(location.error());
    return Ok(OrderedJson{{"fileLocation", *location}});
  }
  return no_route();
}

}  // namespace cairn::api::gravitino
