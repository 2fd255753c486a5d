// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>

#include "connector/connector.h"
#include "store/metadata_store.h"

namespace cairn::testing {

/// Inserts the rows of metalake `ml` and its relational catalog `cat` of `provider`, and returns
/// what a connector for that catalog is built from.
inline Result<connector::CatalogInfo> InsertCatalogRows(
    store::MetadataStore& store, const std::string& provider = "lakehouse-iceberg") {
  store::EntityRecord ml;
  ml.type = store::EntityType::kMetalake;
  ml.name = "ml";
  ml.payload = "{}";
  CAIRN_ASSIGN_OR_RETURN(store::EntityRecord ml_row, store.Insert(ml));
  store::EntityRecord cat;
  cat.type = store::EntityType::kCatalog;
  cat.parent_id = ml_row.id;
  cat.name = "cat";
  cat.payload = R"({"type":"relational","provider":")" + provider + R"("})";
  CAIRN_ASSIGN_OR_RETURN(store::EntityRecord cat_row, store.Insert(cat));
  return connector::CatalogInfo{cat_row.id, "ml", "cat", model::CatalogType::kRelational,
                                provider,   {}};
}

}  // namespace cairn::testing
