// SPDX-License-Identifier: Apache-2.0
#include "app/config.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "connector/connector.h"
#include "matchers.h"

namespace cairn::app {
namespace {

using cairn::testing::HasErrorMessage;
using cairn::testing::IsError;
using cairn::testing::IsOk;

TEST(Config, EnvNames) {
  EXPECT_EQ(EnvName("cairn.store.postgres.url"), "CAIRN_STORE_POSTGRES_URL");
  EXPECT_EQ(EnvName("cairn.data-dir"), "CAIRN_DATA_DIR");
  EXPECT_EQ(EnvName("cairn.http.max-body-bytes"), "CAIRN_HTTP_MAX_BODY_BYTES");
}

TEST(Config, EveryKeyIsAccepted) {
  for (const auto& key : ConfigKeys()) {
    Config c;
    std::string value = "1";
    if (key == "cairn.store.type") value = "postgres";
    if (key == "cairn.log.level") value = "debug";
    if (key.find("bytes") != std::string::npos) value = "4096";
    if (key.find("timeout") != std::string::npos) value = "1000";
    if (key == "cairn.authenticators") value = "simple";
    if (key == "cairn.authorization.enable" || key == "cairn.mcp.enable" ||
        key == "cairn.mcp.allow-writes" || key == "cairn.metrics.enable" ||
        key == "cairn.server.plain-http" || key == "cairn.jobs.local-executor.enabled" ||
        key == "cairn.store.postgres.cache")
      value = "true";
    if (key == "cairn.server.tls.client-auth") value = "required";
    if (key.rfind("cairn.limits.interface.", 0) == 0) value = "mcp=1";
    if (key == "cairn.audit.max-file-bytes") value = "65536";
    if (key == "cairn.lineage.forward.url") value = "http://127.0.0.1:5000";
    if (key == "cairn.iceberg.idempotency-key-lifetime") value = "PT1H";
    if (key == "cairn.iceberg.scan-planning-mode") value = "server";
    if (key == "cairn.tracing.otlp-endpoint") value = "http://127.0.0.1:4318";
    if (key == "cairn.store.postgres.heartbeat-ms") value = "500";
    EXPECT_THAT(SetConfigValue(c, key, value), IsOk()) << key;
  }
}

TEST(Config, IdempotencyKeyLifetime) {
  Config c;
  EXPECT_EQ(c.iceberg_idempotency_lifetime_s, 1800);
  EXPECT_THAT(SetConfigValue(c, "cairn.iceberg.idempotency-key-lifetime", "PT24H"), IsOk());
  EXPECT_EQ(c.iceberg_idempotency_lifetime_s, 86400);
  EXPECT_THAT(SetConfigValue(c, "cairn.iceberg.idempotency-key-lifetime", "off"), IsOk());
  EXPECT_EQ(c.iceberg_idempotency_lifetime_s, 0);
  EXPECT_THAT(SetConfigValue(c, "cairn.iceberg.idempotency-key-lifetime", "P8D"),
              HasErrorMessage("cairn.iceberg.idempotency-key-lifetime"));
  EXPECT_THAT(SetConfigValue(c, "cairn.iceberg.idempotency-key-lifetime", "30"),
              HasErrorMessage("cairn.iceberg.idempotency-key-lifetime"));
}

TEST(Config, BadValuesNameTheKey) {
  Config c;
  EXPECT_THAT(SetConfigValue(c, "cairn.server.port", "70000"),
              HasErrorMessage("cairn.server.port"));
  EXPECT_THAT(SetConfigValue(c, "cairn.server.port", "x"), IsError(ErrorCode::kInvalidArgument));
  EXPECT_THAT(SetConfigValue(c, "cairn.store.type", "oracle"), HasErrorMessage("cairn.store.type"));
  EXPECT_THAT(SetConfigValue(c, "cairn.nope", "1"), HasErrorMessage("cairn.nope"));
  EXPECT_THAT(SetConfigValue(c, "cairn.mcp.allow-writes", "yes"),
              HasErrorMessage("cairn.mcp.allow-writes"));
  EXPECT_THAT(SetConfigValue(c, "cairn.log.level", "loud"), HasErrorMessage("cairn.log.level"));
  EXPECT_THAT(SetConfigValue(c, "cairn.metrics.enable", "1"),
              HasErrorMessage("cairn.metrics.enable"));
  for (const char* url : {"ftp://host", "marquez:5000", "http://a b", "file:///etc/passwd"}) {
    EXPECT_THAT(SetConfigValue(c, "cairn.lineage.forward.url", url),
                HasErrorMessage("cairn.lineage.forward.url"))
        << url;
  }
  EXPECT_THAT(SetConfigValue(c, "cairn.lineage.forward.api-key", "a\r\nX-Injected: 1"),
              HasErrorMessage("cairn.lineage.forward.api-key"));
  EXPECT_THAT(SetConfigValue(c, "cairn.lineage.forward.url", "https://marquez.internal:5000"),
              IsOk());
  // An api-key never goes to another machine in clear text.
  EXPECT_THAT(SetConfigValue(c, "cairn.lineage.forward.api-key", "k"), IsOk());
  EXPECT_THAT(SetConfigValue(c, "cairn.lineage.forward.url", "http://marquez.internal:5000"),
              HasErrorMessage("clear text"));
  EXPECT_THAT(SetConfigValue(c, "cairn.lineage.forward.url", "http://127.0.0.1:5000"), IsOk());
  EXPECT_THAT(SetConfigValue(c, "cairn.server.tls.client-auth", "sometimes"),
              HasErrorMessage("cairn.server.tls.client-auth"));
  EXPECT_THAT(SetConfigValue(c, "cairn.server.plain-http", "yes"),
              HasErrorMessage("cairn.server.plain-http"));
  EXPECT_THAT(SetConfigValue(c, "cairn.authenticators", "simple,kerberos"),
              HasErrorMessage("certificate"));
  EXPECT_THAT(SetConfigValue(c, "cairn.authenticators", "certificate,oauth2"), IsOk());
}

TEST(Config, IcebergCacheBounds) {
  Config c;
  const connector::IcebergCacheOptions defaults;
  EXPECT_EQ(c.iceberg_metadata_cache_bytes, defaults.metadata_cache_bytes);
  EXPECT_EQ(static_cast<size_t>(c.iceberg_commit_queue_idle_tables),
            defaults.commit_queue_idle_tables);
  EXPECT_EQ(static_cast<size_t>(c.iceberg_rebased_list_cache_entries),
            defaults.rebased_list_cache_entries);
  ASSERT_THAT(SetConfigValue(c, "cairn.iceberg.metadata-cache-bytes", "0"), IsOk());
  EXPECT_EQ(c.iceberg_metadata_cache_bytes, 0U);
  ASSERT_THAT(SetConfigValue(c, "cairn.iceberg.commit-queue-idle-tables", "100"), IsOk());
  EXPECT_EQ(c.iceberg_commit_queue_idle_tables, 100);
  ASSERT_THAT(SetConfigValue(c, "cairn.iceberg.rebased-list-cache-entries", "7"), IsOk());
  EXPECT_EQ(c.iceberg_rebased_list_cache_entries, 7);
  for (const char* key :
       {"cairn.iceberg.metadata-cache-bytes", "cairn.iceberg.commit-queue-idle-tables",
        "cairn.iceberg.rebased-list-cache-entries"}) {
    for (const char* bad : {"-1", "lots", "", "99999999999999999"}) {
      EXPECT_THAT(SetConfigValue(c, key, bad), HasErrorMessage(key)) << key << "=" << bad;
    }
  }
}

TEST(Config, FileThenEnvironment) {
  const auto path = std::filesystem::temp_directory_path() / "cairn_config_test.conf";
  {
    std::ofstream out(path);
    out << "# comment\n\ncairn.server.port = 9001\ncairn.store.type=postgres\ncairn.data-dir = "
           "/tmp/x\n";
  }
  Config c;
  ASSERT_THAT(LoadConfigFile(c, path.string()), IsOk());
  EXPECT_EQ(c.port, 9001);
  EXPECT_EQ(c.store_type, "postgres");
  EXPECT_EQ(c.data_dir, "/tmp/x");
  setenv("CAIRN_SERVER_PORT", "9002", 1);
  ASSERT_THAT(LoadConfigEnv(c), IsOk());
  EXPECT_EQ(c.port, 9002);
  setenv("CAIRN_SERVER_PORT", "bad", 1);
  EXPECT_THAT(LoadConfigEnv(c), HasErrorMessage("CAIRN_SERVER_PORT"));
  unsetenv("CAIRN_SERVER_PORT");
  std::filesystem::remove(path);
}

TEST(Config, FileSyntaxErrorNamesTheLine) {
  const auto path = std::filesystem::temp_directory_path() / "cairn_config_bad.conf";
  {
    std::ofstream out(path);
    out << "cairn.server.port = 1\nthis line is wrong\n";
  }
  Config c;
  EXPECT_THAT(LoadConfigFile(c, path.string()), HasErrorMessage(":2:"));
  EXPECT_THAT(LoadConfigFile(c, "/nonexistent/cairn.conf"),
              HasErrorMessage("/nonexistent/cairn.conf"));
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace cairn::app
