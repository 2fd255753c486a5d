// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>

#include "http/message.h"
#include "service/metadata_service.h"

namespace cairn::api::iceberg {

struct IcebergApiOptions {
  /// Metalake used when a client names only the catalog as its warehouse.
  std::string default_metalake;
};

/// The Iceberg REST catalog protocol under `/iceberg/v1`, over the `lakehouse-iceberg`
/// catalogs of every metalake. The prefix of a catalog is `<metalake>.<catalog>`.
class IcebergApi {
 public:
  IcebergApi(service::MetadataService& service, IcebergApiOptions options);

  /// Handles a request whose path starts with `/iceberg`.
  http::Response Handle(const http::Request& request) const;

 private:
  service::MetadataService& service_;
  IcebergApiOptions options_;
};

}  // namespace cairn::api::iceberg
