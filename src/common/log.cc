// SPDX-License-Identifier: Apache-2.0
#include "common/log.h"

#include <spdlog/sinks/stdout_sinks.h>

namespace cairn {

void InitLogging(std::string_view level) {
  auto logger = spdlog::get("cairn");
  if (!logger) logger = spdlog::stderr_logger_mt("cairn");
  logger->set_pattern("ts=%Y-%m-%dT%H:%M:%S.%eZ level=%l %v", spdlog::pattern_time_type::utc);
  logger->set_level(spdlog::level::from_str(std::string(level)));
  logger->flush_on(spdlog::level::warn);
  spdlog::set_default_logger(logger);
  spdlog::flush_every(std::chrono::seconds(1));
}

}  // namespace cairn
