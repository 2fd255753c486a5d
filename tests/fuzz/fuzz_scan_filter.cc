// SPDX-License-Identifier: Apache-2.0
// A scan plan request (planTableScan) and its filter: parsed, bound to a schema of every
// primitive type, NOT pushed down, projected onto a spec of every transform, evaluated against
// manifest summaries, partition tuples and column metrics made of the literals themselves, and
// written back as a residual. Properties: nothing crashes or throws; what binds evaluates; a
// residual is an expression that binds again.
#include "fuzz_util.h"
#include "iceberg/expression.h"
#include "iceberg/scan_plan.h"
#include "json/json_util.h"

using cairn::fuzz::Check;
namespace ice = cairn::iceberg;

namespace {

const ice::Json& Schema() {
  static const ice::Json schema = ice::Json::parse(R"J({"type":"struct","schema-id":0,"fields":[
    {"id":1,"name":"b","required":false,"type":"boolean"},
    {"id":2,"name":"i","required":false,"type":"int"},
    {"id":3,"name":"l","required":true,"type":"long"},
    {"id":4,"name":"f","required":false,"type":"float"},
    {"id":5,"name":"d","required":false,"type":"double"},
    {"id":6,"name":"dec","required":false,"type":"decimal(9, 2)"},
    {"id":7,"name":"day","required":false,"type":"date"},
    {"id":8,"name":"t","required":false,"type":"time"},
    {"id":9,"name":"ts","required":false,"type":"timestamp"},
    {"id":10,"name":"tz","required":false,"type":"timestamptz"},
    {"id":11,"name":"s","required":false,"type":"string"},
    {"id":12,"name":"u","required":false,"type":"uuid"},
    {"id":13,"name":"fx","required":false,"type":"fixed[4]"},
    {"id":14,"name":"bin","required":false,"type":"binary"},
    {"id":15,"name":"st","required":false,"type":{"type":"struct","fields":[
      {"id":16,"name":"x","required":false,"type":"int"}]}}]})J");
  return schema;
}

const ice::Json& Spec() {
  static const ice::Json spec = ice::Json::parse(R"J({"spec-id":0,"fields":[
    {"source-id":11,"field-id":1000,"name":"s","transform":"identity"},
    {"source-id":3,"field-id":1001,"name":"l_b","transform":"bucket[8]"},
    {"source-id":11,"field-id":1002,"name":"s_t","transform":"truncate[3]"},
    {"source-id":10,"field-id":1003,"name":"tz_d","transform":"day"},
    {"source-id":9,"field-id":1004,"name":"ts_h","transform":"hour"},
    {"source-id":7,"field-id":1005,"name":"day_m","transform":"month"},
    {"source-id":7,"field-id":1006,"name":"day_y","transform":"year"},
    {"source-id":6,"field-id":1007,"name":"dec_t","transform":"truncate[10]"},
    {"source-id":2,"field-id":1008,"name":"i_v","transform":"void"},
    {"source-id":14,"field-id":1009,"name":"bin_t","transform":"truncate[2]"}]})J");
  return spec;
}

// The literals of an expression, to build summaries and metrics from.
void Literals(const ice::ExprPtr& e, std::vector<const ice::Expr*>& out) {  // NOLINT
  if (e == nullptr) return;
  if (e->left) Literals(e->left, out);
  if (e->right) Literals(e->right, out);
  if (!e->values.empty()) out.push_back(e.get());
}

std::string Binary(const ice::PrimitiveType& type, const ice::Value& v) {
  // Not Iceberg's exact encoding for every type: the evaluators must cope with any bytes.
  if (v.kind == ice::Value::Kind::kBytes) return v.s;
  std::string out(8, '\0');
  const auto bits = static_cast<uint64_t>(static_cast<int64_t>(v.i));
  for (int k = 0; k < 8; ++k) out[static_cast<size_t>(k)] = static_cast<char>(bits >> (8 * k));
  if (type.id == ice::TypeId::kInt || type.id == ice::TypeId::kDate) out.resize(4);
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto body = cairn::json::ParseOrderedJson(cairn::fuzz::Text(data, size));
  if (!body) return 0;
  auto request = ice::ParseScanRequest(*body);
  const ice::Json& filter = request ? request->filter : *body;
  static const ice::SchemaIndex index(Schema());
  static const auto spec = ice::BindPartitionSpec(Spec(), index);
  for (bool case_sensitive : {true, false}) {
    auto bound = ice::BindFilter(filter, index, case_sensitive);
    if (!bound) continue;
    const ice::ExprPtr e = ice::RewriteNot(*bound);
    const ice::ExprPtr projected = ice::ProjectInclusive(e, spec);
    std::vector<const ice::Expr*> literals;
    Literals(e, literals);
    // Summaries, a partition tuple and metrics around the first literal of each field.
    std::vector<ice::FieldSummary> summaries(spec.size());
    std::vector<ice::Value> partition(spec.size(), ice::Value::Null());
    ice::FileMetrics metrics;
    metrics.record_count = 10;
    for (const ice::Expr* p : literals) {
      const std::string bytes = Binary(p->type, p->values.front());
      metrics.value_counts[p->field] = 10;
      metrics.null_counts[p->field] = static_cast<int64_t>(size % 3);
      metrics.lower.emplace(p->field, bytes);
      metrics.upper.emplace(p->field, bytes + "\xff");
      for (size_t k = 0; k < spec.size(); ++k) {
        if (spec[k].source_id != p->field) continue;
        auto v = ice::ApplyTransform(spec[k].transform, spec[k].source_type, p->values.front());
        if (!v) continue;
        partition[k] = *v;
        summaries[k].contains_null = size % 2 == 0;
        if (!v->is_null()) {
          summaries[k].lower = Binary(spec[k].result_type, *v);
          summaries[k].upper = summaries[k].lower;
        }
      }
    }
    (void)ice::ManifestMayMatch(projected, spec, summaries);
    (void)ice::PartitionMatches(projected, partition);
    (void)ice::MetricsMayMatch(e, metrics);
    const ice::Json residual = ice::ToJson(ice::Residual(e, spec, partition));
    Check(ice::BindFilter(residual, index, case_sensitive).has_value(),
          "a residual binds to the schema it came from");
  }
  return 0;
}
