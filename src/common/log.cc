// SPDX-License-Identifier: Apache-2.0
#include "common/log.h"

#include <cstdio>

#include <spdlog/sinks/stdout_sinks.h>

namespace cairn {

void InitLogging(std::string_view level) {
  // One line per request: buffer stderr so a line is not a write(2) of its own. Lines reach the
  // stream at least once a second and at once for warnings and errors.
  static char buffer[1 << 16];
  std::setvbuf(stderr, buffer, _IOFBF, sizeof(buffer));
  auto logger = spdlog::get("cairn");
  if (!logger) logger = spdlog::stderr_logger_mt("cairn");
  logger->set_pattern("ts=%Y-%m-%dT%H:%M:%S.%eZ level=%l %v", spdlog::pattern_time_type::utc);
  logger->set_level(spdlog::level::from_str(std::string(level)));
  logger->flush_on(spdlog::level::warn);
  spdlog::set_default_logger(logger);
  spdlog::flush_every(std::chrono::seconds(1));
}

}  // namespace cairn
