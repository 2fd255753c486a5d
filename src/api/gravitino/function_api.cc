// SPDX-License-Identifier: Apache-2.0
// Functions of the Gravitino API (functions.yaml):
// `.../catalogs/{c}/schemas/{s}/functions[/{function}]` (docs/functions.md).
#include <optional>

#include "api/gravitino/routes.h"
#include "common/util.h"
#include "model/function.h"
#include "service/function_json.h"

namespace cairn::api::gravitino {

namespace {

using http::Response;
using service::Action;

// ---- reading -------------------------------------------------------------------------------

const Json* Present(const Json& j, const char* field) {
  auto it = j.find(field);
  return it == j.end() || it->is_null() ? nullptr : &*it;
}

// Drops the empty comments of struct fields: a client that read a type back may send "" where
// it first sent none, and the two must name the same parameter type. The depth is bounded by
// the type's (kMaxTypeDepth, checked when it was read).
void DropEmptyComments(OrderedJson& j) {
  if (j.is_array()) {
    for (auto& v : j) DropEmptyComments(v);
    return;
  }
  if (!j.is_object()) return;
  if (auto c = j.find("comment"); c != j.end() && c->is_string() && c->get<std::string>().empty()) {
    j.erase(c);
  }
  for (auto& [k, v] : j.items()) DropEmptyComments(v);
}

// A type, checked and kept as its canonical JSON text.
Result<std::string> TypeText(const Json& j, const std::string& field) {
  CAIRN_ASSIGN_OR_RETURN(model::TypePtr type, TypeFromJson(j, field));
  OrderedJson canonical = TypeToJson(*type);
  DropEmptyComments(canonical);
  return canonical.dump();
}

Result<std::vector<std::string>> OptionalStrings(const Json& j, const char* field,
                                                 const std::string& at) {
  if (IsNullOrAbsent(j, field)) return std::vector<std::string>{};
  auto list = NameListFromJson(j, field);
  if (!list) return std::move(list).error().WithContext(at);
  return list;
}

template <typename F>
auto At(F&& read, const std::string& at) -> decltype(read()) {
  auto r = read();
  if (!r) return std::move(r).error().WithContext(at);
  return r;
}

Result<model::FunctionParam> ParamOf(const Json& j, const std::string& at) {
  if (!j.is_object()) return InvalidArgument("{}: a parameter must be an object", at);
  model::FunctionParam p;
  CAIRN_ASSIGN_OR_RETURN(p.name, At([&] { return RequiredString(j, "name"); }, at));
  const Json* type = Present(j, "dataType");
  if (type == nullptr) return InvalidArgument("{}: Parameter data type cannot be null", at);
  CAIRN_ASSIGN_OR_RETURN(p.data_type, TypeText(*type, at + ".dataType"));
  CAIRN_ASSIGN_OR_RETURN(p.comment, At([&] { return OptionalString(j, "comment"); }, at));
  if (const Json* v = Present(j, "defaultValue")) {
    CAIRN_ASSIGN_OR_RETURN(model::Expression e, ExpressionFromJson(*v, at + ".defaultValue"));
    p.default_value = ExpressionToJson(e).dump();
  }
  return p;
}

Result<std::vector<model::FunctionParam>> ParamsOf(const Json& j, const char* field,
                                                   const std::string& at, bool required) {
  std::vector<model::FunctionParam> out;
  const Json* list = Present(j, field);
  if (list == nullptr) {
    if (required) return InvalidArgument("{}: \"{}\" field is required", at, field);
    return out;
  }
  if (!list->is_array()) return InvalidArgument("{}: \"{}\" must be an array", at, field);
  for (size_t i = 0; i < list->size(); ++i) {
    CAIRN_ASSIGN_OR_RETURN(auto p, ParamOf((*list)[i], fmt::format("{}.{}[{}]", at, field, i)));
    out.push_back(std::move(p));
  }
  return out;
}

Result<model::FunctionRuntime> RuntimeOf(const Json& j, const std::string& at) {
  const Json* r = Present(j, "runtime");
  if (r == nullptr || !r->is_string()) {
    return InvalidArgument("{}: \"runtime\" is required: one of SPARK, TRINO", at);
  }
  auto runtime = model::ParseFunctionRuntime(r->get<std::string>());
  if (!runtime) {
    return InvalidArgument("{}: unknown runtime '{}': one of SPARK, TRINO", at,
                           r->get<std::string>());
  }
  return *runtime;
}

Result<model::FunctionImpl> ImplOf(const Json& j, const std::string& at) {
  if (!j.is_object()) return InvalidArgument("{}: an implementation must be an object", at);
  model::FunctionImpl impl;
  const Json* language = Present(j, "language");
  if (language == nullptr || !language->is_string()) {
    return InvalidArgument("{}: \"language\" is required: one of SQL, JAVA, PYTHON", at);
  }
  auto lang = model::ParseFunctionLanguage(language->get<std::string>());
  if (!lang) {
    return InvalidArgument("{}: unsupported implementation language '{}': one of SQL, JAVA, PYTHON",
                           at, language->get<std::string>());
  }
  impl.language = *lang;
  CAIRN_ASSIGN_OR_RETURN(impl.runtime, RuntimeOf(j, at));
  auto text = [&](const char* field) { return At([&] { return OptionalString(j, field); }, at); };
  switch (impl.language) {
    case model::FunctionLanguage::kSql: {
      CAIRN_ASSIGN_OR_RETURN(auto sql, text("sql"));
      impl.sql = sql.value_or("");
      break;
    }
    case model::FunctionLanguage::kJava: {
      CAIRN_ASSIGN_OR_RETURN(auto name, text("className"));
      impl.class_name = name.value_or("");
      break;
    }
    case model::FunctionLanguage::kPython:
      CAIRN_ASSIGN_OR_RETURN(impl.handler, text("handler"));
      CAIRN_ASSIGN_OR_RETURN(impl.code_block, text("codeBlock"));
      break;
  }
  if (const Json* r = Present(j, "resources")) {
    if (!r->is_object()) return InvalidArgument("{}: \"resources\" must be an object", at);
    const std::string rat = at + ".resources";
    CAIRN_ASSIGN_OR_RETURN(impl.resources.jars, OptionalStrings(*r, "jars", rat));
    CAIRN_ASSIGN_OR_RETURN(impl.resources.files, OptionalStrings(*r, "files", rat));
    CAIRN_ASSIGN_OR_RETURN(impl.resources.archives, OptionalStrings(*r, "archives", rat));
  }
  CAIRN_ASSIGN_OR_RETURN(impl.properties,
                         At([&] { return PropertiesFromJson(j, "properties"); }, at));
  return impl;
}

Result<model::FunctionDefinition> DefinitionOf(const Json& j, const std::string& at) {
  if (!j.is_object()) return InvalidArgument("{}: a definition must be an object", at);
  model::FunctionDefinition d;
  CAIRN_ASSIGN_OR_RETURN(d.parameters, ParamsOf(j, "parameters", at, /*required=*/false));
  if (const Json* t = Present(j, "returnType")) {
    CAIRN_ASSIGN_OR_RETURN(d.return_type, TypeText(*t, at + ".returnType"));
  }
  if (const Json* cols = Present(j, "returnColumns")) {
    if (!cols->is_array()) return InvalidArgument("{}: \"returnColumns\" must be an array", at);
    for (size_t i = 0; i < cols->size(); ++i) {
      const Json& cj = (*cols)[i];
      const std::string cat = fmt::format("{}.returnColumns[{}]", at, i);
      if (!cj.is_object()) return InvalidArgument("{}: a column must be an object", cat);
      model::FunctionColumn c;
      CAIRN_ASSIGN_OR_RETURN(c.name, At([&] { return RequiredString(cj, "name"); }, cat));
      const Json* type = Present(cj, "dataType");
      if (type == nullptr) return InvalidArgument("{}: Function column type cannot be null", cat);
      CAIRN_ASSIGN_OR_RETURN(c.data_type, TypeText(*type, cat + ".dataType"));
      CAIRN_ASSIGN_OR_RETURN(c.comment, At([&] { return OptionalString(cj, "comment"); }, cat));
      d.return_columns.push_back(std::move(c));
    }
  }
  if (const Json* impls = Present(j, "impls")) {
    if (!impls->is_array()) return InvalidArgument("{}: \"impls\" must be an array", at);
    for (size_t i = 0; i < impls->size(); ++i) {
      CAIRN_ASSIGN_OR_RETURN(auto impl, ImplOf((*impls)[i], fmt::format("{}.impls[{}]", at, i)));
      d.impls.push_back(std::move(impl));
    }
  }
  return d;
}

Result<const Json*> RequiredObject(const Json& j, const char* field) {
  const Json* v = Present(j, field);
  if (v == nullptr || !v->is_object()) {
    return InvalidArgument("\"{}\" field is required and must be an object", field);
  }
  return v;
}

// FunctionRegisterRequest.
Result<model::Function> FunctionOf(const Json& body) {
  model::Function f;
  CAIRN_ASSIGN_OR_RETURN(f.name, RequiredString(body, "name"));
  if (Trim(f.name).empty())
    return InvalidArgument("\"name\" field is required and cannot be empty");
  const Json* type = Present(body, "functionType");
  if (type == nullptr || !type->is_string()) {
    return InvalidArgument("\"functionType\" field is required: one of SCALAR, AGGREGATE, TABLE");
  }
  auto parsed = model::ParseFunctionType(type->get<std::string>());
  if (!parsed) return InvalidArgument("Invalid function type: {}", type->get<std::string>());
  f.type = *parsed;
  if (const Json* det = Present(body, "deterministic")) {
    if (!det->is_boolean()) return InvalidArgument("\"deterministic\" must be a boolean");
    f.deterministic = det->get<bool>();
  }
  CAIRN_ASSIGN_OR_RETURN(f.comment, OptionalString(body, "comment"));
  const Json* defs = Present(body, "definitions");
  if (defs == nullptr || !defs->is_array() || defs->empty()) {
    return InvalidArgument("\"definitions\" field is required and cannot be empty");
  }
  if (defs->size() > model::kMaxFunctionDefinitions) {
    return InvalidArgument("definitions: {} definitions, at most {} are allowed", defs->size(),
                           model::kMaxFunctionDefinitions);
  }
  for (size_t i = 0; i < defs->size(); ++i) {
    CAIRN_ASSIGN_OR_RETURN(auto d, DefinitionOf((*defs)[i], fmt::format("definitions[{}]", i)));
    f.definitions.push_back(std::move(d));
  }
  return f;
}

Result<model::FunctionChange> ChangeOf(const Json& u, const std::string& type) {
  using Kind = model::FunctionChange::Kind;
  model::FunctionChange c;
  if (type == "updateComment") {
    c.kind = Kind::kUpdateComment;
    CAIRN_ASSIGN_OR_RETURN(c.comment, OptionalString(u, "newComment"));
  } else if (type == "addDefinition") {
    c.kind = Kind::kAddDefinition;
    CAIRN_ASSIGN_OR_RETURN(const Json* d, RequiredObject(u, "definition"));
    CAIRN_ASSIGN_OR_RETURN(c.definition, DefinitionOf(*d, "definition"));
  } else if (type == "removeDefinition" || type == "addImpl" || type == "updateImpl" ||
             type == "removeImpl") {
    c.kind = type == "removeDefinition" ? Kind::kRemoveDefinition
             : type == "addImpl"        ? Kind::kAddImpl
             : type == "updateImpl"     ? Kind::kUpdateImpl
                                        : Kind::kRemoveImpl;
    CAIRN_ASSIGN_OR_RETURN(c.parameters, ParamsOf(u, "parameters", "", /*required=*/true));
    if (c.kind == Kind::kUpdateImpl || c.kind == Kind::kRemoveImpl) {
      CAIRN_ASSIGN_OR_RETURN(c.runtime, RuntimeOf(u, ""));
    }
    if (c.kind == Kind::kAddImpl || c.kind == Kind::kUpdateImpl) {
      CAIRN_ASSIGN_OR_RETURN(const Json* impl, RequiredObject(u, "implementation"));
      CAIRN_ASSIGN_OR_RETURN(c.impl, ImplOf(*impl, "implementation"));
    }
  } else {
    return InvalidArgument("Unknown function update type '{}'", type);
  }
  return c;
}

// ---- rendering -----------------------------------------------------------------------------

// FunctionDTO.
OrderedJson FunctionToJson(const model::Function& f) {
  OrderedJson j{{"name", f.name},
                {"functionType", model::FunctionTypeName(f.type)},
                {"deterministic", f.deterministic}};
  if (f.comment) j["comment"] = *f.comment;
  j["definitions"] = service::FunctionDefinitionsJson(f.definitions);
  j["audit"] = AuditToJson(f.audit);
  return j;
}

// ---- handlers ------------------------------------------------------------------------------

Result<Response> ListFunctions(Call& c) {
  CAIRN_ASSIGN_OR_RETURN(auto functions,
                         c.objects.ListFunctions(c.caller, c.Ref(ObjectType::kSchema)));
  if (c.Flag("details")) {
    OrderedJson list = OrderedJson::array();
    for (const auto& f : functions) list.push_back(FunctionToJson(f));
    return Reply(OrderedJson{{"functions", std::move(list)}});
  }
  std::vector<std::string> names;
  names.reserve(functions.size());
  for (const auto& f : functions) names.push_back(f.name);
  return SchemaChildrenReply(c, std::move(names));
}

Result<Response> RegisterFunction(Call& c) {
  CAIRN_ASSIGN_OR_RETURN(Json body, c.Body());
  if (!body.is_object()) return InvalidArgument("The request body must be a JSON object");
  CAIRN_ASSIGN_OR_RETURN(model::Function f, FunctionOf(body));
  c.op.name = f.name;
  CAIRN_ASSIGN_OR_RETURN(model::Function registered,
                         c.objects.RegisterFunction(c.caller, c.Ref(ObjectType::kSchema), f));
  return Reply(OrderedJson{{"function", FunctionToJson(registered)}});
}

Result<Response> GetFunction(Call& c) {
  CAIRN_ASSIGN_OR_RETURN(model::Function f,
                         c.objects.GetFunction(c.caller, c.Ref(ObjectType::kFunction)));
  return Reply(OrderedJson{{"function", FunctionToJson(f)}});
}

Result<Response> AlterFunction(Call& c) {
  CAIRN_ASSIGN_OR_RETURN(Json body, c.Body());
  if (!body.is_object()) return InvalidArgument("The request body must be a JSON object");
  CAIRN_ASSIGN_OR_RETURN(auto changes, UpdatesOf<model::FunctionChange>(body, ChangeOf));
  CAIRN_ASSIGN_OR_RETURN(model::Function f,
                         c.objects.AlterFunction(c.caller, c.Ref(ObjectType::kFunction), changes));
  return Reply(OrderedJson{{"function", FunctionToJson(f)}});
}

Result<Response> DropFunction(Call& c) {
  CAIRN_ASSIGN_OR_RETURN(bool dropped,
                         c.objects.DropFunction(c.caller, c.Ref(ObjectType::kFunction)));
  return Reply(OrderedJson{{"dropped", dropped}});
}

}  // namespace

std::vector<Route> FunctionRoutes() {
  using K = EntityKind;
  constexpr std::nullopt_t kService = std::nullopt;  // the object service decides
  constexpr std::string_view kFunctions =
      "/metalakes/{metalake}/catalogs/{catalog}/schemas/{schema}/functions";
  constexpr std::string_view kFunction =
      "/metalakes/{metalake}/catalogs/{catalog}/schemas/{schema}/functions/{function}";
  return {
      {"GET", api::PathPattern(kFunctions), K::kFunction, "LIST", kService, ListFunctions},
      // Decided before the body is parsed; the object service decides again on the name.
      {"POST", api::PathPattern(kFunctions), K::kFunction, "REGISTER", Action::kCreateObject,
       RegisterFunction},
      {"GET", api::PathPattern(kFunction), K::kFunction, "GET", kService, GetFunction},
      {"PUT", api::PathPattern(kFunction), K::kFunction, "ALTER", Action::kWriteObject,
       AlterFunction},
      {"DELETE", api::PathPattern(kFunction), K::kFunction, "DROP", kService, DropFunction},
  };
}

}  // namespace cairn::api::gravitino
