// SPDX-License-Identifier: Apache-2.0
// Hive type strings, as a metastore (any metastore a catalog points at) hands them over: read
// into the object model and written back. What is written reads back as the same type, so a
// table loaded and altered through Cairn keeps its columns' types.
#include "connector/hive/hive_types.h"
#include "fuzz_util.h"
#include "model/types.h"

using cairn::fuzz::Check;
namespace hive = cairn::connector::hive;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text = cairn::fuzz::Text(data, size);
  auto type = hive::FromHiveType(text);
  Check(type != nullptr, "every text is a type (an external one when not Hive's)");
  Check(cairn::model::TypeDepth(type, 1'000'000) <= cairn::model::kMaxTypeDepth + 1,
        "depth stays within the limit");
  auto written = hive::ToHiveType(type, "c");
  if (!written) return 0;
  auto again = hive::FromHiveType(*written);
  Check(cairn::model::TypesEqual(type, again), "written type reads back as itself");
  auto rewritten = hive::ToHiveType(again, "c");
  Check(rewritten.has_value() && *rewritten == *written, "written text is a fixed point");
  return 0;
}
