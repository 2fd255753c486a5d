// SPDX-License-Identifier: Apache-2.0
#include "model/function.h"

#include <algorithm>
#include <set>
#include <utility>

#include "common/util.h"

namespace cairn::model {

namespace {

constexpr std::string_view kTypeNames[] = {"SCALAR", "AGGREGATE", "TABLE"};
constexpr std::string_view kLanguageNames[] = {"SQL", "JAVA", "PYTHON"};
constexpr std::string_view kRuntimeNames[] = {"SPARK", "TRINO"};

template <typename E, size_t N>
std::optional<E> Parse(std::string_view text, const std::string_view (&names)[N]) {
  text = Trim(text);
  for (size_t i = 0; i < N; ++i) {
    if (EqualsIgnoreCase(text, names[i])) return static_cast<E>(i);
  }
  return std::nullopt;
}

bool Blank(std::string_view s) { return Trim(s).empty(); }

// What a parameter list reads as in a message: "(x: integer, y: string)".
std::string Signature(const std::vector<FunctionParam>& params) {
  std::string out = "(";
  for (size_t i = 0; i < params.size(); ++i) {
    if (i > 0) out += ", ";
    out += params[i].name + ": " + params[i].data_type;
  }
  return out + ")";
}

std::string Signatures(const std::vector<FunctionDefinition>& defs) {
  std::string out = "[";
  for (size_t i = 0; i < defs.size(); ++i) {
    if (i > 0) out += ", ";
    out += Signature(defs[i].parameters);
  }
  return out + "]";
}

// Gravitino's rule: a definition is addressed by its parameters' names and types.
bool SameParameters(const std::vector<FunctionParam>& a, const std::vector<FunctionParam>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                    [](const FunctionParam& x, const FunctionParam& y) {
                      return x.name == y.name && x.data_type == y.data_type;
                    });
}

Status CheckImpl(const FunctionImpl& impl, const std::string& at) {
  switch (impl.language) {
    case FunctionLanguage::kSql:
      if (Blank(impl.sql)) return InvalidArgument("{}: SQL text cannot be null or empty", at);
      break;
    case FunctionLanguage::kJava:
      if (Blank(impl.class_name)) {
        return InvalidArgument("{}: Java class name cannot be null or empty", at);
      }
      break;
    case FunctionLanguage::kPython:
      if (!impl.handler || Blank(*impl.handler)) {
        return InvalidArgument("{}: Python handler cannot be null or empty", at);
      }
      break;
  }
  for (const std::string* text : {&impl.sql, &impl.class_name}) {
    if (text->size() > kMaxFunctionTextBytes) {
      return InvalidArgument("{}: a text of {} bytes is longer than the {} allowed", at,
                             text->size(), kMaxFunctionTextBytes);
    }
  }
  if (impl.code_block && impl.code_block->size() > kMaxFunctionTextBytes) {
    return InvalidArgument("{}: a code block of {} bytes is longer than the {} allowed", at,
                           impl.code_block->size(), kMaxFunctionTextBytes);
  }
  return Ok();
}

Status CheckImpls(const std::vector<FunctionImpl>& impls, const std::string& at) {
  if (impls.empty()) return InvalidArgument("{}: \"impls\" cannot be null or empty", at);
  std::set<FunctionRuntime> runtimes;
  for (size_t i = 0; i < impls.size(); ++i) {
    CAIRN_RETURN_IF_ERROR(CheckImpl(impls[i], fmt::format("{}.impls[{}]", at, i)));
    if (!runtimes.insert(impls[i].runtime).second) {
      return InvalidArgument(
          "{}: duplicate runtime '{}'. Each definition must have at most one implementation per "
          "runtime",
          at, FunctionRuntimeName(impls[i].runtime));
    }
  }
  return Ok();
}

// The parameter-type lists one call of `def` may match: all its parameters, and each prefix
// that leaves out only parameters with defaults. kInvalidArgument for a parameter without a
// default after one with a default.
Result<std::set<std::vector<std::string>>> Arities(const FunctionDefinition& def,
                                                   const std::string& at) {
  size_t first_optional = def.parameters.size();
  for (size_t i = 0; i < def.parameters.size(); ++i) {
    const bool has_default = def.parameters[i].default_value.has_value();
    if (!has_default && first_optional < def.parameters.size()) {
      return InvalidArgument(
          "{}: Invalid parameter order: required parameter '{}' at position {} follows "
          "optional parameter(s). All parameters with default values must appear at the end of "
          "the parameter list",
          at, def.parameters[i].name, i);
    }
    if (has_default && first_optional == def.parameters.size()) first_optional = i;
  }
  std::set<std::vector<std::string>> out;
  for (size_t n = first_optional; n <= def.parameters.size(); ++n) {
    std::vector<std::string> types;
    for (size_t i = 0; i < n; ++i) types.push_back(def.parameters[i].data_type);
    out.insert(std::move(types));
  }
  return out;
}

std::string ArityText(const std::vector<std::string>& types) {
  std::string out;
  for (size_t i = 0; i < types.size(); ++i) {
    if (i > 0) out += ",";
    out += types[i];
  }
  return out;
}

Status CheckDefinition(FunctionType type, const FunctionDefinition& def, const std::string& at) {
  if (def.parameters.size() > kMaxFunctionParameters) {
    return InvalidArgument("{}: {} parameters, at most {} are allowed", at, def.parameters.size(),
                           kMaxFunctionParameters);
  }
  std::set<std::string> names;
  for (size_t i = 0; i < def.parameters.size(); ++i) {
    const FunctionParam& p = def.parameters[i];
    if (Blank(p.name)) {
      return InvalidArgument("{}.parameters[{}]: Parameter name cannot be null or empty", at, i);
    }
    if (p.data_type.empty()) {
      return InvalidArgument("{}.parameters[{}]: Parameter data type cannot be null", at, i);
    }
    if (!names.insert(p.name).second) {
      return InvalidArgument("{}.parameters[{}]: duplicate parameter name '{}'", at, i, p.name);
    }
  }
  if (type == FunctionType::kTable) {
    if (def.return_columns.empty()) {
      return InvalidArgument(
          "{}: \"returnColumns\" is required in each definition for TABLE function type", at);
    }
    if (def.return_type) {
      return InvalidArgument("{}: a TABLE function returns \"returnColumns\", not \"returnType\"",
                             at);
    }
    std::set<std::string> columns;
    for (size_t i = 0; i < def.return_columns.size(); ++i) {
      const FunctionColumn& col = def.return_columns[i];
      if (Blank(col.name)) {
        return InvalidArgument("{}.returnColumns[{}]: Function column name cannot be null or empty",
                               at, i);
      }
      if (col.data_type.empty()) {
        return InvalidArgument("{}.returnColumns[{}]: Function column type cannot be null", at, i);
      }
      if (!columns.insert(col.name).second) {
        return InvalidArgument("{}.returnColumns[{}]: duplicate column name '{}'", at, i, col.name);
      }
    }
  } else {
    if (!def.return_type) {
      return InvalidArgument(
          "{}: \"returnType\" is required in each definition for SCALAR or AGGREGATE function "
          "type",
          at);
    }
    if (!def.return_columns.empty()) {
      return InvalidArgument(
          "{}: a {} function returns \"returnType\", \"returnColumns\" are for TABLE functions", at,
          FunctionTypeName(type));
    }
  }
  return CheckImpls(def.impls, at);
}

Status CheckDefinitions(const Function& f) {
  if (f.definitions.empty()) {
    return InvalidArgument("\"definitions\" field is required and cannot be empty");
  }
  if (f.definitions.size() > kMaxFunctionDefinitions) {
    return InvalidArgument("definitions: {} definitions, at most {} are allowed",
                           f.definitions.size(), kMaxFunctionDefinitions);
  }
  std::vector<std::set<std::vector<std::string>>> arities;
  for (size_t i = 0; i < f.definitions.size(); ++i) {
    const std::string at = fmt::format("definitions[{}]", i);
    CAIRN_RETURN_IF_ERROR(CheckDefinition(f.type, f.definitions[i], at));
    CAIRN_ASSIGN_OR_RETURN(auto mine, Arities(f.definitions[i], at));
    for (size_t j = 0; j < arities.size(); ++j) {
      for (const auto& a : mine) {
        if (arities[j].contains(a)) {
          return InvalidArgument(
              "definitions at index {} and {} have overlapping arity '{}'. This would create "
              "ambiguous function invocations",
              j, i, ArityText(a));
        }
      }
    }
    arities.push_back(std::move(mine));
  }
  return Ok();
}

std::vector<FunctionDefinition>::iterator FindDefinition(std::vector<FunctionDefinition>& defs,
                                                         const std::vector<FunctionParam>& params) {
  return std::find_if(defs.begin(), defs.end(), [&](const FunctionDefinition& d) {
    return SameParameters(d.parameters, params);
  });
}

std::string Runtimes(const FunctionDefinition& def) {
  std::string out = "[";
  for (size_t i = 0; i < def.impls.size(); ++i) {
    if (i > 0) out += ", ";
    out += FunctionRuntimeName(def.impls[i].runtime);
  }
  return out + "]";
}

Status Apply(Function& f, const FunctionChange& c) {
  using Kind = FunctionChange::Kind;
  auto& defs = f.definitions;
  switch (c.kind) {
    case Kind::kUpdateComment:
      f.comment = c.comment;
      return Ok();
    case Kind::kAddDefinition:
      defs.push_back(c.definition);
      return Ok();  // checked with the others after all changes
    case Kind::kRemoveDefinition: {
      auto it = FindDefinition(defs, c.parameters);
      if (it == defs.end()) {
        return InvalidArgument(
            "Cannot remove definition: no definition found with the specified parameters {}. "
            "Available parameter signatures: {}",
            Signature(c.parameters), Signatures(defs));
      }
      if (defs.size() == 1) {
        return InvalidArgument(
            "Cannot remove the only definition. Use dropFunction to remove the entire function");
      }
      defs.erase(it);
      return Ok();
    }
    case Kind::kAddImpl:
    case Kind::kUpdateImpl:
    case Kind::kRemoveImpl: {
      static constexpr std::string_view kVerbs[] = {"add", "update", "remove"};
      const std::string_view verb =
          kVerbs[static_cast<int>(c.kind) - static_cast<int>(Kind::kAddImpl)];
      auto it = FindDefinition(defs, c.parameters);
      if (it == defs.end()) {
        return InvalidArgument(
            "Cannot {} implementation: no definition found with the specified parameters {}. "
            "Available parameter signatures: {}",
            verb, Signature(c.parameters), Signatures(defs));
      }
      auto& impls = it->impls;
      const FunctionRuntime runtime = c.kind == Kind::kAddImpl ? c.impl.runtime : c.runtime;
      auto impl = std::find_if(impls.begin(), impls.end(),
                               [&](const FunctionImpl& i) { return i.runtime == runtime; });
      if (c.kind == Kind::kAddImpl) {
        if (impl != impls.end()) {
          return InvalidArgument(
              "Cannot add implementation: runtime '{}' already exists in this definition. Use "
              "updateImpl to replace it",
              FunctionRuntimeName(runtime));
        }
        impls.push_back(c.impl);
        return Ok();
      }
      if (impl == impls.end()) {
        return InvalidArgument(
            "Cannot {} implementation: runtime '{}' not found in the definition {}. Available "
            "runtimes in that definition: {}",
            verb, FunctionRuntimeName(runtime), Signature(it->parameters), Runtimes(*it));
      }
      if (c.kind == Kind::kUpdateImpl) {
        if (c.impl.runtime != runtime) {
          return InvalidArgument(
              "Cannot update implementation: the new implementation's runtime '{}' is not the "
              "runtime '{}' it replaces",
              FunctionRuntimeName(c.impl.runtime), FunctionRuntimeName(runtime));
        }
        *impl = c.impl;
        return Ok();
      }
      if (impls.size() == 1) {
        return InvalidArgument(
            "Cannot remove the only implementation. Use removeDefinition to remove the entire "
            "definition");
      }
      impls.erase(impl);
      return Ok();
    }
  }
  return InvalidArgument("Unknown function change");
}

}  // namespace

std::string_view FunctionTypeName(FunctionType type) {
  return kTypeNames[static_cast<size_t>(type)];
}
std::string_view FunctionLanguageName(FunctionLanguage language) {
  return kLanguageNames[static_cast<size_t>(language)];
}
std::string_view FunctionRuntimeName(FunctionRuntime runtime) {
  return kRuntimeNames[static_cast<size_t>(runtime)];
}

std::optional<FunctionType> ParseFunctionType(std::string_view text) {
  if (EqualsIgnoreCase(Trim(text), "agg")) return FunctionType::kAggregate;
  return Parse<FunctionType>(text, kTypeNames);
}
std::optional<FunctionLanguage> ParseFunctionLanguage(std::string_view text) {
  return Parse<FunctionLanguage>(text, kLanguageNames);
}
std::optional<FunctionRuntime> ParseFunctionRuntime(std::string_view text) {
  return Parse<FunctionRuntime>(text, kRuntimeNames);
}

Status ValidateFunction(const Function& function) { return CheckDefinitions(function); }

Result<Function> ApplyFunctionChanges(const Function& function,
                                      const std::vector<FunctionChange>& changes) {
  Function out = function;
  for (size_t i = 0; i < changes.size(); ++i) {
    auto applied = Apply(out, changes[i]);
    if (!applied) return std::move(applied).error().WithContext(fmt::format("updates[{}]", i));
  }
  CAIRN_RETURN_IF_ERROR(CheckDefinitions(out));
  return out;
}

}  // namespace cairn::model
