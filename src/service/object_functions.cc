// SPDX-License-Identifier: Apache-2.0
// The function methods of ObjectService (docs/functions.md): rows under the schema's row, whose
// payload holds the function's type and definitions.
#include <utility>

#include <nlohmann/json.hpp>

#include "json/json_util.h"
#include "service/function_json.h"
#include "service/object_service.h"
#include "store/retry.h"

namespace cairn::service {

namespace {

using Json = nlohmann::ordered_json;  // keeps the key order of the API layer's texts
using store::EntityRecord;
using store::EntityType;

// ---- the payload ---------------------------------------------------------------------------

// A type's or expression's JSON text, as the API layer rendered it, back into the document.
Json Embedded(const std::string& text) {
  auto j = json::ParseOrderedJson(text);
  return j ? std::move(*j) : Json(text);
}

Json ImplJson(const model::FunctionImpl& impl) {
  Json j{{"language", model::FunctionLanguageName(impl.language)},
         {"runtime", model::FunctionRuntimeName(impl.runtime)}};
  switch (impl.language) {
    case model::FunctionLanguage::kSql:
      j["sql"] = impl.sql;
      break;
    case model::FunctionLanguage::kJava:
      j["className"] = impl.class_name;
      break;
    case model::FunctionLanguage::kPython:
      if (impl.handler) j["handler"] = *impl.handler;
      if (impl.code_block) j["codeBlock"] = *impl.code_block;
      break;
  }
  j["resources"] = Json{{"jars", impl.resources.jars},
                        {"files", impl.resources.files},
                        {"archives", impl.resources.archives}};
  Json props = Json::object();
  for (const auto& [k, v] : impl.properties) props[k] = v;
  j["properties"] = std::move(props);
  return j;
}

Json DefinitionJson(const model::FunctionDefinition& d) {
  Json params = Json::array();
  for (const auto& p : d.parameters) {
    Json pj{{"name", p.name}, {"dataType", Embedded(p.data_type)}};
    if (p.comment) pj["comment"] = *p.comment;
    if (p.default_value) pj["defaultValue"] = Embedded(*p.default_value);
    params.push_back(std::move(pj));
  }
  Json j{{"parameters", std::move(params)}};
  if (d.return_type) j["returnType"] = Embedded(*d.return_type);
  if (!d.return_columns.empty()) {
    Json cols = Json::array();
    for (const auto& c : d.return_columns) {
      Json cj{{"name", c.name}, {"dataType", Embedded(c.data_type)}};
      if (c.comment) cj["comment"] = *c.comment;
      cols.push_back(std::move(cj));
    }
    j["returnColumns"] = std::move(cols);
  }
  Json impls = Json::array();
  for (const auto& i : d.impls) impls.push_back(ImplJson(i));
  j["impls"] = std::move(impls);
  return j;
}

std::string PayloadOf(const model::Function& f) {
  return Json{{"functionType", model::FunctionTypeName(f.type)},
              {"deterministic", f.deterministic},
              {"definitions", FunctionDefinitionsJson(f.definitions)}}
      .dump();
}

std::optional<std::string> OptionalText(const Json& j, const char* field) {
  auto it = j.find(field);
  if (it == j.end() || !it->is_string()) return std::nullopt;
  return it->get<std::string>();
}

std::string Text(const Json& j, const char* field) { return OptionalText(j, field).value_or(""); }

std::vector<std::string> Strings(const Json& j, const char* field) {
  std::vector<std::string> out;
  auto it = j.find(field);
  if (it == j.end() || !it->is_array()) return out;
  for (const auto& s : *it) {
    if (s.is_string()) out.push_back(s.get<std::string>());
  }
  return out;
}

const Json& ArrayAt(const Json& j, const char* field) {
  static const Json kEmpty = Json::array();
  auto it = j.find(field);
  return it != j.end() && it->is_array() ? *it : kEmpty;
}

Result<model::Function> FunctionOf(const EntityRecord& row) {
  auto parsed = json::ParseOrderedJson(row.payload);
  auto corrupt = [&]() {
    return MakeError(ErrorCode::kInternal, EntityKind::kFunction,
                     "The stored payload of function {} (row {}) cannot be read", row.name, row.id);
  };
  if (!parsed || !parsed->is_object()) return corrupt();
  const Json& doc = *parsed;
  model::Function f;
  f.name = row.name;
  f.comment = row.comment;
  f.audit = row.audit;
  auto type = model::ParseFunctionType(Text(doc, "functionType"));
  if (!type) return corrupt();
  f.type = *type;
  auto det = doc.find("deterministic");
  f.deterministic = det != doc.end() && det->is_boolean() && det->get<bool>();
  for (const Json& dj : ArrayAt(doc, "definitions")) {
    model::FunctionDefinition d;
    for (const Json& pj : ArrayAt(dj, "parameters")) {
      model::FunctionParam p;
      p.name = Text(pj, "name");
      if (auto t = pj.find("dataType"); t != pj.end()) p.data_type = t->dump();
      p.comment = OptionalText(pj, "comment");
      if (auto v = pj.find("defaultValue"); v != pj.end()) p.default_value = v->dump();
      d.parameters.push_back(std::move(p));
    }
    if (auto t = dj.find("returnType"); t != dj.end()) d.return_type = t->dump();
    for (const Json& cj : ArrayAt(dj, "returnColumns")) {
      model::FunctionColumn c;
      c.name = Text(cj, "name");
      if (auto t = cj.find("dataType"); t != cj.end()) c.data_type = t->dump();
      c.comment = OptionalText(cj, "comment");
      d.return_columns.push_back(std::move(c));
    }
    for (const Json& ij : ArrayAt(dj, "impls")) {
      model::FunctionImpl impl;
      auto language = model::ParseFunctionLanguage(Text(ij, "language"));
      auto runtime = model::ParseFunctionRuntime(Text(ij, "runtime"));
      if (!language || !runtime) return corrupt();
      impl.language = *language;
      impl.runtime = *runtime;
      impl.sql = Text(ij, "sql");
      impl.class_name = Text(ij, "className");
      impl.handler = OptionalText(ij, "handler");
      impl.code_block = OptionalText(ij, "codeBlock");
      if (auto r = ij.find("resources"); r != ij.end() && r->is_object()) {
        impl.resources.jars = Strings(*r, "jars");
        impl.resources.files = Strings(*r, "files");
        impl.resources.archives = Strings(*r, "archives");
      }
      if (auto props = ij.find("properties"); props != ij.end() && props->is_object()) {
        for (const auto& [k, v] : props->items()) {
          if (v.is_string()) impl.properties[k] = v.get<std::string>();
        }
      }
      d.impls.push_back(std::move(impl));
    }
    f.definitions.push_back(std::move(d));
  }
  return f;
}

Status CheckRowSize(const std::string& payload, std::string_view name) {
  if (payload.size() > model::kMaxFunctionRowBytes) {
    return InvalidArgument("Function {} would take {} bytes, at most {} are allowed", name,
                           payload.size(), model::kMaxFunctionRowBytes);
  }
  return Ok();
}

std::string Qualified(const ObjectRef& ref) {
  return fmt::format("{}.{}.{}", ref.catalog, ref.schema.at(0), ref.name);
}

Error NoSuchFunction(const ObjectRef& ref) {
  return NotFound(EntityKind::kFunction, "Function {} does not exist", Qualified(ref));
}

}  // namespace

nlohmann::ordered_json FunctionDefinitionsJson(const std::vector<model::FunctionDefinition>& defs) {
  Json out = Json::array();
  for (const auto& d : defs) out.push_back(DefinitionJson(d));
  return out;
}

Result<EntityRecord> ObjectService::FunctionSchemaRow(const Caller& caller, Action action,
                                                      const ObjectRef& ref) {
  CAIRN_ASSIGN_OR_RETURN(auto schemas, Open<connector::SchemaCatalog>(caller, action, ref));
  if (ref.schema.size() != 1) return Missing(ref, "function");
  // The catalog says whether the schema exists (and a JDBC or federated catalog keeps a row
  // for one it has not seen before); the row is then read as the rows of any object are.
  CAIRN_RETURN_IF_ERROR(schemas->LoadSchema(ref.schema[0]));
  CAIRN_ASSIGN_OR_RETURN(Target t, authz_.Resolve(ref.metalake, ref.catalog, ref.schema));
  if (!t.schema_row) return Missing(ref, "function");
  return std::move(*t.schema_row);
}

Result<std::vector<model::Function>> ObjectService::ListFunctions(const Caller& caller,
                                                                  const ObjectRef& schema) {
  CAIRN_ASSIGN_OR_RETURN(EntityRecord parent,
                         FunctionSchemaRow(caller, Action::kLoadSchema, schema));
  CAIRN_ASSIGN_OR_RETURN(auto rows,
                         metadata_.store().List(EntityType::kFunction, parent.id, "", 0));
  std::vector<std::string> names;
  names.reserve(rows.size());
  for (const auto& r : rows) names.push_back(r.name);
  CAIRN_ASSIGN_OR_RETURN(auto visible, Visible(caller, Action::kLoadObject, schema,
                                               std::move(names), ObjectType::kFunction, &rows));
  std::vector<model::Function> out;
  out.reserve(visible.size());
  size_t at = 0;
  for (const auto& name : visible) {  // both in name order
    while (at < rows.size() && rows[at].name != name) ++at;
    if (at == rows.size()) break;
    CAIRN_ASSIGN_OR_RETURN(model::Function f, FunctionOf(rows[at]));
    out.push_back(std::move(f));
  }
  return out;
}

Result<model::Function> ObjectService::RegisterFunction(const Caller& caller,
                                                        const ObjectRef& schema,
                                                        const model::Function& function) {
  CAIRN_RETURN_IF_ERROR(model::ValidateObjectName(EntityKind::kFunction, function.name));
  CAIRN_RETURN_IF_ERROR(model::ValidateFunction(function));
  const ObjectRef ref = schema.Child(function.name, ObjectType::kFunction);
  CAIRN_ASSIGN_OR_RETURN(EntityRecord parent,
                         FunctionSchemaRow(caller, Action::kCreateObject, ref));
  EntityRecord row;
  row.type = EntityType::kFunction;
  row.parent_id = parent.id;
  row.name = function.name;
  row.comment = function.comment;
  row.payload = PayloadOf(function);
  CAIRN_RETURN_IF_ERROR(CheckRowSize(row.payload, function.name));
  row.audit.creator = caller.ctx.principal;
  row.audit.create_time = caller.ctx.now_ms;
  auto inserted = metadata_.store().Insert(row);
  if (!inserted && inserted.error().code == ErrorCode::kAlreadyExists) {
    return AlreadyExists(EntityKind::kFunction, "Function {} already exists", Qualified(ref));
  }
  if (!inserted) return std::move(inserted).error();
  Publish(caller, ChangeType::kCreated, ref);
  return FunctionOf(*inserted);
}

Result<model::Function> ObjectService::GetFunction(const Caller& caller,
                                                   const ObjectRef& function) {
  CAIRN_ASSIGN_OR_RETURN(EntityRecord parent,
                         FunctionSchemaRow(caller, Action::kLoadObject, function));
  auto row = metadata_.store().Get(EntityType::kFunction, parent.id, function.name);
  if (!row && row.error().code == ErrorCode::kNotFound) return NoSuchFunction(function);
  if (!row) return std::move(row).error();
  return FunctionOf(*row);
}

Result<model::Function> ObjectService::AlterFunction(
    const Caller& caller, const ObjectRef& function,
    const std::vector<model::FunctionChange>& changes) {
  CAIRN_ASSIGN_OR_RETURN(EntityRecord parent,
                         FunctionSchemaRow(caller, Action::kWriteObject, function));
  store::MetadataStore& store = metadata_.store();
  auto altered = store::RetryOnConflict([&]() -> Result<model::Function> {
    auto row = store.Get(EntityType::kFunction, parent.id, function.name);
    if (!row && row.error().code == ErrorCode::kNotFound) return NoSuchFunction(function);
    if (!row) return std::move(row).error();
    CAIRN_ASSIGN_OR_RETURN(model::Function current, FunctionOf(*row));
    CAIRN_ASSIGN_OR_RETURN(model::Function next, model::ApplyFunctionChanges(current, changes));
    row->comment = next.comment;
    row->payload = PayloadOf(next);
    CAIRN_RETURN_IF_ERROR(CheckRowSize(row->payload, function.name));
    row->audit.last_modifier = caller.ctx.principal;
    row->audit.last_modified_time = caller.ctx.now_ms;
    CAIRN_ASSIGN_OR_RETURN(EntityRecord written, store.CompareAndSet(*row));
    return FunctionOf(written);
  });
  if (altered) Publish(caller, ChangeType::kAltered, function);
  return altered;
}

Result<bool> ObjectService::DropFunction(const Caller& caller, const ObjectRef& function) {
  CAIRN_ASSIGN_OR_RETURN(EntityRecord parent,
                         FunctionSchemaRow(caller, Action::kDropObject, function));
  auto row = metadata_.store().Get(EntityType::kFunction, parent.id, function.name);
  if (!row && row.error().code == ErrorCode::kNotFound) return false;
  if (!row) return std::move(row).error();
  CAIRN_ASSIGN_OR_RETURN(bool dropped, metadata_.store().Delete(row->id));
  if (dropped) Publish(caller, ChangeType::kDropped, function);
  return dropped;
}

}  // namespace cairn::service
