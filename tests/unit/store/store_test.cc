// SPDX-License-Identifier: Apache-2.0
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "store/metadata_store.h"
#include "store/migrations/migrations.h"
#include "store/mysql/mysql_connection.h"
#include "store/postgres/pg_connection.h"
#include "store/sqlite/sqlite_connection.h"

namespace cairn::store {
namespace {

// One suite, three backends. PostgreSQL runs only when CAIRN_TEST_PG_URL names a server the
// tests may create databases on; every test gets its own fresh database there.
// kSqliteFileCached: a file store with path lookups cached in memory, as the server runs it.
// kMysql runs when CAIRN_TEST_MYSQL_HOST/PORT/USER/PASSWORD name a MySQL or MariaDB server the
// tests may create databases on (tests/e2e/run.sh starts one).
enum class Backend { kSqliteMemory, kSqliteFile, kSqliteFileCached, kPostgres, kMysql };

std::string BackendName(Backend backend) {
  switch (backend) {
    case Backend::kSqliteMemory:
      return "SqliteMemory";
    case Backend::kSqliteFile:
      return "SqliteFile";
    case Backend::kSqliteFileCached:
      return "SqliteFileCached";
    case Backend::kPostgres:
      return "Postgres";
    case Backend::kMysql:
      return "Mysql";
  }
  return "Unknown";
}

// The test run's MySQL server, as a store URL for `database`; nullopt when none is configured.
std::optional<std::string> MysqlUrl(const std::string& database) {
  const char* host = std::getenv("CAIRN_TEST_MYSQL_HOST");
  const char* port = std::getenv("CAIRN_TEST_MYSQL_PORT");
  const char* user = std::getenv("CAIRN_TEST_MYSQL_USER");
  const char* password = std::getenv("CAIRN_TEST_MYSQL_PASSWORD");
  if (host == nullptr || *host == '\0' || port == nullptr || user == nullptr) return std::nullopt;
  return fmt::format("mysql://{}:{}@{}:{}/{}", user, password != nullptr ? password : "", host,
                     port, database);
}

std::unique_ptr<mysql::MysqlConnection> MysqlConnect(const std::string& database) {
  auto url = MysqlUrl(database);
  if (!url) return nullptr;
  auto parsed = mysql::ParseMysqlUrl(*url);
  if (!parsed) return nullptr;
  auto conn = mysql::MysqlConnection::Connect(*parsed);
  return conn ? std::move(conn).value() : nullptr;
}

const char* PgUrl() {
  const char* url = std::getenv("CAIRN_TEST_PG_URL");
  return url != nullptr && *url != '\0' ? url : nullptr;
}

class PgBanner : public testing::Environment {
 public:
  void SetUp() override {
    if (PgUrl() == nullptr) {
      std::fprintf(stderr,
                   "\n*** CAIRN_TEST_PG_URL is not set: the PostgreSQL backend of the store "
                   "tests is SKIPPED (only SQLite runs). ***\n\n");
    } else {
      std::fprintf(stderr, "\n*** store tests also run on PostgreSQL at %s ***\n\n",
                   postgres::RedactConnectionUrl(PgUrl()).c_str());
    }
  }
};
[[maybe_unused]] testing::Environment* const kPgBanner =
    testing::AddGlobalTestEnvironment(new PgBanner);  // gtest takes ownership

// `url` pointed at database `db` (URI path or the dbname keyword).
std::string WithDatabase(const std::string& url, const std::string& db) {
  const size_t scheme = url.find("://");
  if (scheme == std::string::npos) {
    return url + " dbname=" + db;
  }
  const size_t query = url.find('?', scheme + 3);
  const size_t path = url.find('/', scheme + 3);
  if (path == std::string::npos || (query != std::string::npos && path > query)) {
    return query == std::string::npos ? url + "/" + db
                                      : url.substr(0, query) + "/" + db + url.substr(query);
  }
  const size_t end = query == std::string::npos ? url.size() : query;
  return url.substr(0, path + 1) + db + url.substr(end);
}

std::string UniqueSuffix() {
  static std::atomic<int> counter{0};
  return fmt::format("{}_{}", getpid(), counter.fetch_add(1));
}

EntityRecord MakeRecord(EntityType type, int64_t parent_id, std::string name) {
  EntityRecord record;
  record.type = type;
  record.parent_id = parent_id;
  record.name = std::move(name);
  record.payload = R"({"k":"v"})";
  record.audit.creator = "alice";
  record.audit.create_time = 1700000000000;
  return record;
}

template <typename T>
ErrorCode CodeOf(const Result<T>& result) {
  EXPECT_FALSE(result.has_value()) << "expected an error";
  return result.has_value() ? ErrorCode::kInternal : result.error().code;
}

#define ASSERT_OK(expr)                                            \
  do {                                                             \
    const auto& cairn_r_ = (expr);                                 \
    ASSERT_TRUE(cairn_r_.has_value()) << cairn_r_.error().message; \
  } while (false)

// Migration 3's and 4's tables, for the tests that drop the whole schema.
#define kDropLineage                                                                     \
  "DROP TABLE lineage_jobs; DROP TABLE lineage_datasets; DROP TABLE lineage_runs; "     \
  "DROP TABLE lineage_edges; DROP TABLE lineage_column_edges; DROP TABLE lineage_events; " \
  "DROP TABLE idempotency_keys;"

class StoreTest : public testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    options_.busy_timeout_ms = 10000;
    switch (GetParam()) {
      case Backend::kSqliteMemory:
        options_.sqlite_path = ":memory:";
        break;
      case Backend::kSqliteFile:
      case Backend::kSqliteFileCached:
        dir_ = std::filesystem::temp_directory_path() / ("cairn_store_test_" + UniqueSuffix());
        options_.sqlite_path = (dir_ / "nested" / "metadata.db").string();  // parent is created
        options_.cache_paths = GetParam() == Backend::kSqliteFileCached;
        break;
      case Backend::kPostgres: {
        if (PgUrl() == nullptr) {
          GTEST_SKIP() << "CAIRN_TEST_PG_URL is not set: PostgreSQL store test SKIPPED";
        }
        auto admin = postgres::PgConnection::Connect(PgUrl());
        ASSERT_OK(admin);
        admin_ = std::move(admin).value();
        database_ = "cairn_store_test_" + UniqueSuffix();
        // Identifier generated above, not user input; CREATE DATABASE takes no parameters.
        ASSERT_OK(admin_->ExecuteScript("CREATE DATABASE " + database_));
        options_.type = "postgres";
        options_.postgres_url = WithDatabase(PgUrl(), database_);
        options_.cache_paths = true;  // as the server runs it, kept coherent by the change feed
        options_.change_feed_heartbeat_ms = 200;
        break;
      }
      case Backend::kMysql: {
        if (!MysqlUrl("mysql")) {
          GTEST_SKIP() << "CAIRN_TEST_MYSQL_HOST is not set: MySQL store test SKIPPED";
        }
        mysql_admin_ = MysqlConnect("mysql");
        ASSERT_NE(mysql_admin_, nullptr) << "cannot reach the test run's MySQL server";
        database_ = "cairn_store_test_" + UniqueSuffix();
        ASSERT_OK(mysql_admin_->ExecuteScript("CREATE DATABASE " + database_));
        options_.type = "mysql";
        options_.mysql_url = *MysqlUrl(database_);
        break;
      }
    }
    auto store = OpenStore(options_);
    ASSERT_OK(store);
    store_ = std::move(store).value();
  }

  void TearDown() override {
    store_.reset();
    if (admin_) {
      EXPECT_TRUE(admin_->ExecuteScript("DROP DATABASE IF EXISTS " + database_ + " WITH (FORCE)")
                      .has_value());
    }
    if (mysql_admin_) {
      EXPECT_TRUE(mysql_admin_->ExecuteScript("DROP DATABASE IF EXISTS " + database_).has_value());
    }
    if (!dir_.empty()) {
      std::error_code ec;
      std::filesystem::remove_all(dir_, ec);
    }
  }

  // A second, raw connection to the same database (not available for ":memory:").
  std::unique_ptr<SqlConnection> RawConnection() {
    if (GetParam() == Backend::kSqliteFile || GetParam() == Backend::kSqliteFileCached) {
      auto conn = sqlite::SqliteConnection::Open(options_.sqlite_path, 1000);
      return conn ? std::move(conn).value() : nullptr;
    }
    if (GetParam() == Backend::kPostgres) {
      auto conn = postgres::PgConnection::Connect(options_.postgres_url);
      return conn ? std::move(conn).value() : nullptr;
    }
    if (GetParam() == Backend::kMysql) return MysqlConnect(database_);
    return nullptr;
  }

  EntityRecord MustInsert(const EntityRecord& record) {
    auto inserted = store_->Insert(record);
    EXPECT_TRUE(inserted.has_value()) << inserted.error().message;
    return inserted ? *inserted : EntityRecord{};
  }

  StoreOptions options_;
  std::unique_ptr<MetadataStore> store_;
  std::filesystem::path dir_;
  std::unique_ptr<postgres::PgConnection> admin_;
  std::unique_ptr<mysql::MysqlConnection> mysql_admin_;
  std::string database_;
};

TEST_P(StoreTest, Ping) { EXPECT_TRUE(store_->Ping()); }

TEST_P(StoreTest, InsertGetAndGetById) {
  EntityRecord record = MakeRecord(EntityType::kTable, 42, "orders");
  record.comment = "all orders";
  record.properties = {{"format", "parquet"}, {"owner", "bob"}};
  record.in_use = false;
  record.location = "s3://bucket/orders/metadata/00001.json";
  record.audit.last_modifier = "carol";
  record.audit.last_modified_time = 1700000000123;

  EntityRecord inserted = MustInsert(record);
  EXPECT_GT(inserted.id, 0);
  EXPECT_EQ(inserted.version, 1);
  EXPECT_EQ(inserted.name, "orders");
  EXPECT_EQ(inserted.comment, record.comment);
  EXPECT_EQ(inserted.properties, record.properties);
  EXPECT_FALSE(inserted.in_use);
  EXPECT_EQ(inserted.payload, record.payload);
  EXPECT_EQ(inserted.location, record.location);
  EXPECT_EQ(inserted.audit, record.audit);

  auto by_name = store_->Get(EntityType::kTable, 42, "orders");
  ASSERT_OK(by_name);
  EXPECT_EQ(by_name->id, inserted.id);
  EXPECT_EQ(by_name->audit, record.audit);
  EXPECT_EQ(by_name->properties, record.properties);

  auto by_id = store_->GetById(inserted.id);
  ASSERT_OK(by_id);
  EXPECT_EQ(by_id->name, "orders");
  EXPECT_EQ(by_id->type, EntityType::kTable);
  EXPECT_EQ(by_id->parent_id, 42);

  // Absent optionals stay absent.
  EntityRecord plain = MustInsert(MakeRecord(EntityType::kSchema, 42, "plain"));
  EXPECT_FALSE(plain.comment.has_value());
  EXPECT_FALSE(plain.location.has_value());
  EXPECT_FALSE(plain.audit.last_modifier.has_value());
  EXPECT_FALSE(plain.audit.last_modified_time.has_value());
  EXPECT_TRUE(plain.in_use);
}

TEST_P(StoreTest, GetPathResolvesTheLongestExistingPrefixInOneCall) {
  EntityRecord ml = MustInsert(MakeRecord(EntityType::kMetalake, 0, "ml"));
  EntityRecord cat = MustInsert(MakeRecord(EntityType::kCatalog, ml.id, "cat"));
  EntityRecord ns = MustInsert(MakeRecord(EntityType::kSchema, cat.id, "ns"));
  EntityRecord tbl = MustInsert(MakeRecord(EntityType::kTable, ns.id, "t"));
  MustInsert(MakeRecord(EntityType::kView, ns.id, "t"));  // same name, other type: not matched

  auto full = store_->GetPath(0, {{EntityType::kMetalake, "ml"},
                                  {EntityType::kCatalog, "cat"},
                                  {EntityType::kSchema, "ns"},
                                  {EntityType::kTable, "t"}});
  ASSERT_TRUE(full.has_value());
  ASSERT_EQ(full->size(), 4U);
  EXPECT_EQ((*full)[0].id, ml.id);
  EXPECT_EQ((*full)[1].id, cat.id);
  EXPECT_EQ((*full)[2].id, ns.id);
  EXPECT_EQ((*full)[3].id, tbl.id);
  EXPECT_EQ((*full)[3].type, EntityType::kTable);
  EXPECT_EQ((*full)[3].properties, tbl.properties);

  auto partial =
      store_->GetPath(cat.id, {{EntityType::kSchema, "ns"}, {EntityType::kTable, "missing"}});
  ASSERT_TRUE(partial.has_value());
  ASSERT_EQ(partial->size(), 1U);
  EXPECT_EQ((*partial)[0].id, ns.id);

  auto gap = store_->GetPath(
      0,
      {{EntityType::kMetalake, "ml"}, {EntityType::kCatalog, "nope"}, {EntityType::kSchema, "ns"}});
  ASSERT_TRUE(gap.has_value());
  EXPECT_EQ(gap->size(), 1U);

  auto none = store_->GetPath(0, {{EntityType::kMetalake, "other"}});
  ASSERT_TRUE(none.has_value());
  EXPECT_TRUE(none->empty());
}

// Path lookups after every kind of write see that write (with the cached backend, the cache is
// invalidated by each of them; a rolled-back transaction leaves the last committed state).
TEST_P(StoreTest, GetPathSeesEveryCompletedWrite) {
  const std::vector<std::pair<EntityType, std::string>> path = {{EntityType::kMetalake, "ml"},
                                                                {EntityType::kCatalog, "cat"}};
  auto comment_of_catalog = [&]() -> std::optional<std::string> {
    auto rows = store_->GetPath(0, path);
    EXPECT_TRUE(rows.has_value());
    if (!rows || rows->size() < 2) return std::string("<no catalog>");
    return (*rows)[1].comment;
  };
  EntityRecord ml = MustInsert(MakeRecord(EntityType::kMetalake, 0, "ml"));
  EXPECT_EQ(comment_of_catalog(), "<no catalog>");
  EXPECT_EQ(comment_of_catalog(), "<no catalog>");  // twice: the second may come from a cache
  EntityRecord cat = MustInsert(MakeRecord(EntityType::kCatalog, ml.id, "cat"));
  EXPECT_EQ(comment_of_catalog(), std::nullopt);

  cat.comment = "first";
  auto swapped = store_->CompareAndSet(cat);
  ASSERT_OK(swapped);
  EXPECT_EQ(comment_of_catalog(), "first");
  EXPECT_EQ(comment_of_catalog(), "first");

  ASSERT_OK(store_->RunInTransaction([&](MetadataStore& tx) -> Status {
    EntityRecord next = *swapped;
    next.comment = "in a transaction";
    CAIRN_RETURN_IF_ERROR(tx.CompareAndSet(next));
    return Ok();
  }));
  EXPECT_EQ(comment_of_catalog(), "in a transaction");

  Status failed = store_->RunInTransaction([&](MetadataStore& tx) -> Status {
    CAIRN_ASSIGN_OR_RETURN(EntityRecord got, tx.Get(EntityType::kCatalog, ml.id, "cat"));
    got.comment = "rolled back";
    CAIRN_RETURN_IF_ERROR(tx.CompareAndSet(got));
    return Internal("fail on purpose");
  });
  EXPECT_FALSE(failed.has_value());
  EXPECT_EQ(comment_of_catalog(), "in a transaction");

  auto deleted = store_->Delete(cat.id);
  ASSERT_OK(deleted);
  EXPECT_EQ(comment_of_catalog(), "<no catalog>");
}

TEST_P(StoreTest, GetMissingIsNotFoundWithKind) {
  auto missing = store_->Get(EntityType::kTable, 1, "nope");
  ASSERT_EQ(CodeOf(missing), ErrorCode::kNotFound);
  EXPECT_EQ(missing.error().entity, EntityKind::kTable);
  EXPECT_EQ(missing.error().message, "table 'nope' does not exist");

  // Same name, other type or other parent: still absent.
  MustInsert(MakeRecord(EntityType::kView, 1, "nope"));
  EXPECT_EQ(CodeOf(store_->Get(EntityType::kTable, 1, "nope")), ErrorCode::kNotFound);
  EXPECT_EQ(CodeOf(store_->Get(EntityType::kView, 2, "nope")), ErrorCode::kNotFound);
  EXPECT_EQ(CodeOf(store_->GetById(987654)), ErrorCode::kNotFound);
}

std::vector<std::string> Names(const std::vector<EntityRecord>& records) {
  std::vector<std::string> names;
  for (const auto& r : records) names.push_back(r.name);
  return names;
}

TEST_P(StoreTest, ListOrderPagingAndFilters) {
  for (const char* name : {"c", "a", "e", "B", "b", "d"}) {
    MustInsert(MakeRecord(EntityType::kTable, 7, name));
  }
  MustInsert(MakeRecord(EntityType::kView, 7, "a_view"));    // other type
  MustInsert(MakeRecord(EntityType::kTable, 8, "a_other"));  // other parent

  using V = std::vector<std::string>;
  auto all = store_->List(EntityType::kTable, 7, "", 0);
  ASSERT_OK(all);
  EXPECT_EQ(Names(*all), (V{"B", "a", "b", "c", "d", "e"}));  // bytewise order on both backends

  auto page1 = store_->List(EntityType::kTable, 7, "", 2);
  ASSERT_OK(page1);
  EXPECT_EQ(Names(*page1), (V{"B", "a"}));
  auto page2 = store_->List(EntityType::kTable, 7, page1->back().name, 2);
  ASSERT_OK(page2);
  EXPECT_EQ(Names(*page2), (V{"b", "c"}));
  auto page3 = store_->List(EntityType::kTable, 7, page2->back().name, 2);
  ASSERT_OK(page3);
  EXPECT_EQ(Names(*page3), (V{"d", "e"}));
  auto page4 = store_->List(EntityType::kTable, 7, page3->back().name, 2);
  ASSERT_OK(page4);
  EXPECT_TRUE(page4->empty());

  auto after = store_->List(EntityType::kTable, 7, "bb", -1);  // after a name that is not there
  ASSERT_OK(after);
  EXPECT_EQ(Names(*after), (V{"c", "d", "e"}));

  auto none = store_->List(EntityType::kTable, 99, "", 10);
  ASSERT_OK(none);
  EXPECT_TRUE(none->empty());
}

TEST_P(StoreTest, DuplicateNameIsAlreadyExists) {
  MustInsert(MakeRecord(EntityType::kCatalog, 1, "hive"));
  auto dup = store_->Insert(MakeRecord(EntityType::kCatalog, 1, "hive"));
  ASSERT_EQ(CodeOf(dup), ErrorCode::kAlreadyExists);
  EXPECT_EQ(dup.error().entity, EntityKind::kCatalog);
  EXPECT_EQ(dup.error().message, "catalog 'hive' already exists");

  // The key is (parent, type, name).
  MustInsert(MakeRecord(EntityType::kCatalog, 2, "hive"));
  MustInsert(MakeRecord(EntityType::kSchema, 1, "hive"));
}

TEST_P(StoreTest, ConcurrentInsertsOfOneNameHaveOneWinner) {
  constexpr int kThreads = 8;
  std::atomic<int> ready{0};
  std::atomic<int> wins{0};
  std::atomic<int> exists{0};
  std::vector<std::string> others(kThreads);
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&, i] {
      ready.fetch_add(1);
      while (ready.load() < kThreads) std::this_thread::yield();
      auto result = store_->Insert(MakeRecord(EntityType::kSchema, 5, "race"));
      if (result) {
        wins.fetch_add(1);
      } else if (result.error().code == ErrorCode::kAlreadyExists) {
        exists.fetch_add(1);
      } else {
        others[static_cast<size_t>(i)] = result.error().message;
      }
    });
  }
  for (auto& t : threads) t.join();
  for (const auto& message : others) EXPECT_EQ(message, "");
  EXPECT_EQ(wins.load(), 1);
  EXPECT_EQ(exists.load(), kThreads - 1);
  auto listed = store_->List(EntityType::kSchema, 5, "", 0);
  ASSERT_OK(listed);
  EXPECT_EQ(listed->size(), 1U);
}

TEST_P(StoreTest, CompareAndSetBumpsVersionAndDetectsStaleWriters) {
  EntityRecord original = MustInsert(MakeRecord(EntityType::kTable, 3, "t"));
  EntityRecord change = original;
  change.comment = "updated";
  change.properties["k"] = "v";
  change.location = "s3://b/t/2.json";
  change.audit.last_modifier = "dave";
  change.audit.last_modified_time = 1700000009999;
  auto updated = store_->CompareAndSet(change);
  ASSERT_OK(updated);
  EXPECT_EQ(updated->version, 2);
  EXPECT_EQ(updated->comment, "updated");
  EXPECT_EQ(updated->location, change.location);
  EXPECT_EQ(updated->audit, change.audit);

  auto reread = store_->GetById(original.id);
  ASSERT_OK(reread);
  EXPECT_EQ(reread->version, 2);
  EXPECT_EQ(reread->properties, change.properties);

  // A writer still holding version 1 loses.
  EntityRecord stale = original;
  stale.comment = "stale";
  auto conflict = store_->CompareAndSet(stale);
  ASSERT_EQ(CodeOf(conflict), ErrorCode::kConflict);
  EXPECT_EQ(conflict.error().entity, EntityKind::kTable);
  EXPECT_NE(conflict.error().message.find("'t'"), std::string::npos);
  auto unchanged = store_->GetById(original.id);
  ASSERT_OK(unchanged);
  EXPECT_EQ(unchanged->comment, "updated");

  // A row that vanished is a conflict too.
  EntityRecord gone = *updated;
  gone.id = 987654;
  EXPECT_EQ(CodeOf(store_->CompareAndSet(gone)), ErrorCode::kConflict);
}

TEST_P(StoreTest, ConcurrentCompareAndSetLosesNoUpdate) {
  const EntityRecord row = MustInsert(MakeRecord(EntityType::kTable, 3, "hot"));
  constexpr int kThreads = 8;
  constexpr int kPerThread = 3;
  std::atomic<int> conflicts{0};
  std::vector<std::string> failures(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int n = 0; n < kPerThread; ++n) {
        for (int attempt = 0;; ++attempt) {
          if (attempt > 1000) {
            failures[static_cast<size_t>(t)] = "too many retries";
            return;
          }
          auto current = store_->GetById(row.id);
          if (!current) {
            failures[static_cast<size_t>(t)] = current.error().message;
            return;
          }
          EntityRecord next = *current;
          next.properties[fmt::format("t{}_{}", t, n)] = "x";
          auto written = store_->CompareAndSet(next);
          if (written) break;
          if (written.error().code == ErrorCode::kConflict ||
              written.error().code == ErrorCode::kUnavailable) {
            conflicts.fetch_add(1);
            continue;
          }
          failures[static_cast<size_t>(t)] = written.error().message;
          return;
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  for (const auto& message : failures) EXPECT_EQ(message, "");
  auto final_row = store_->GetById(row.id);
  ASSERT_OK(final_row);
  EXPECT_EQ(final_row->properties.size(), static_cast<size_t>(kThreads * kPerThread));
  for (int t = 0; t < kThreads; ++t) {
    for (int n = 0; n < kPerThread; ++n) {
      EXPECT_EQ(final_row->properties.count(fmt::format("t{}_{}", t, n)), 1U);
    }
  }
  EXPECT_EQ(final_row->version, 1 + kThreads * kPerThread);
  std::fprintf(stderr, "[%s] CAS retries after conflicts: %d\n", BackendName(GetParam()).c_str(),
               conflicts.load());
}

TEST_P(StoreTest, RenameCollisionIsAlreadyExists) {
  MustInsert(MakeRecord(EntityType::kSchema, 9, "taken"));
  EntityRecord other = MustInsert(MakeRecord(EntityType::kSchema, 9, "other"));
  EntityRecord rename = other;
  rename.name = "taken";
  auto collided = store_->CompareAndSet(rename);
  ASSERT_EQ(CodeOf(collided), ErrorCode::kAlreadyExists);
  EXPECT_EQ(collided.error().entity, EntityKind::kSchema);
  EXPECT_EQ(collided.error().message, "schema 'taken' already exists");

  rename.name = "free";
  auto renamed = store_->CompareAndSet(rename);
  ASSERT_OK(renamed);
  EXPECT_EQ(renamed->name, "free");
  EXPECT_EQ(CodeOf(store_->Get(EntityType::kSchema, 9, "other")), ErrorCode::kNotFound);
}

TEST_P(StoreTest, DeleteCascadesToDescendants) {
  EntityRecord lake = MustInsert(MakeRecord(EntityType::kMetalake, 0, "lake"));
  EntityRecord keep = MustInsert(MakeRecord(EntityType::kMetalake, 0, "keep"));
  EntityRecord catalog = MustInsert(MakeRecord(EntityType::kCatalog, lake.id, "cat"));
  EntityRecord schema = MustInsert(MakeRecord(EntityType::kSchema, catalog.id, "db"));
  EntityRecord table = MustInsert(MakeRecord(EntityType::kTable, schema.id, "t"));
  EntityRecord view = MustInsert(MakeRecord(EntityType::kView, schema.id, "v"));
  EntityRecord kept_child = MustInsert(MakeRecord(EntityType::kCatalog, keep.id, "cat"));

  auto deleted = store_->Delete(lake.id);
  ASSERT_OK(deleted);
  EXPECT_TRUE(*deleted);
  for (int64_t id : {lake.id, catalog.id, schema.id, table.id, view.id}) {
    EXPECT_EQ(CodeOf(store_->GetById(id)), ErrorCode::kNotFound) << id;
  }
  ASSERT_OK(store_->GetById(keep.id));
  ASSERT_OK(store_->GetById(kept_child.id));

  auto again = store_->Delete(lake.id);
  ASSERT_OK(again);
  EXPECT_FALSE(*again);
  auto never = store_->Delete(987654);
  ASSERT_OK(never);
  EXPECT_FALSE(*never);
}

TEST_P(StoreTest, CountChildrenCountsDirectChildrenOfAnyType) {
  // Parent ids far from the ids the store assigns, so no row is its own parent.
  EntityRecord schema = MustInsert(MakeRecord(EntityType::kSchema, 100000, "db"));
  auto empty = store_->CountChildren(schema.id);
  ASSERT_OK(empty);
  EXPECT_EQ(*empty, 0);
  EntityRecord table = MustInsert(MakeRecord(EntityType::kTable, schema.id, "t1"));
  MustInsert(MakeRecord(EntityType::kTable, schema.id, "t2"));
  MustInsert(MakeRecord(EntityType::kView, schema.id, "v1"));
  MustInsert(MakeRecord(EntityType::kFunction, table.id, "grandchild"));
  auto count = store_->CountChildren(schema.id);
  ASSERT_OK(count);
  EXPECT_EQ(*count, 3);
}

TEST_P(StoreTest, RunInTransactionCommits) {
  int64_t catalog_id = 0;
  Status status = store_->RunInTransaction([&](MetadataStore& tx) -> Status {
    CAIRN_ASSIGN_OR_RETURN(EntityRecord lake, tx.Insert(MakeRecord(EntityType::kMetalake, 0, "l")));
    CAIRN_ASSIGN_OR_RETURN(EntityRecord cat,
                           tx.Insert(MakeRecord(EntityType::kCatalog, lake.id, "c")));
    catalog_id = cat.id;
    // The transaction sees its own writes, and a nested transaction is part of it.
    CAIRN_ASSIGN_OR_RETURN(int64_t children, tx.CountChildren(lake.id));
    EXPECT_EQ(children, 1);
    return tx.RunInTransaction([&](MetadataStore& inner) -> Status {
      CAIRN_ASSIGN_OR_RETURN(EntityRecord got, inner.Get(EntityType::kCatalog, lake.id, "c"));
      got.comment = "set in nested";
      CAIRN_RETURN_IF_ERROR(inner.CompareAndSet(got));
      return Ok();
    });
  });
  ASSERT_OK(status);
  auto lake = store_->Get(EntityType::kMetalake, 0, "l");
  ASSERT_OK(lake);
  auto cat = store_->GetById(catalog_id);
  ASSERT_OK(cat);
  EXPECT_EQ(cat->comment, "set in nested");
  EXPECT_EQ(cat->version, 2);
}

TEST_P(StoreTest, RunInTransactionRollsBackOnError) {
  Status status = store_->RunInTransaction([&](MetadataStore& tx) -> Status {
    CAIRN_ASSIGN_OR_RETURN(EntityRecord lake, tx.Insert(MakeRecord(EntityType::kMetalake, 0, "l")));
    CAIRN_RETURN_IF_ERROR(tx.Insert(MakeRecord(EntityType::kCatalog, lake.id, "c")));
    return tx.RunInTransaction(
        [](MetadataStore&) -> Status { return InvalidArgument("body failed on purpose"); });
  });
  ASSERT_FALSE(status.has_value());
  EXPECT_EQ(status.error().code, ErrorCode::kInvalidArgument);
  EXPECT_EQ(status.error().message, "body failed on purpose");
  EXPECT_EQ(CodeOf(store_->Get(EntityType::kMetalake, 0, "l")), ErrorCode::kNotFound);
  auto all = store_->List(EntityType::kMetalake, 0, "", 0);
  ASSERT_OK(all);
  EXPECT_TRUE(all->empty());

  // A failed statement inside the body (PostgreSQL then aborts the transaction) rolls back too,
  // and the connection is usable afterwards.
  MustInsert(MakeRecord(EntityType::kMetalake, 0, "existing"));
  status = store_->RunInTransaction([&](MetadataStore& tx) -> Status {
    CAIRN_RETURN_IF_ERROR(tx.Insert(MakeRecord(EntityType::kMetalake, 0, "fresh")));
    CAIRN_RETURN_IF_ERROR(tx.Insert(MakeRecord(EntityType::kMetalake, 0, "existing")));
    return Ok();
  });
  ASSERT_FALSE(status.has_value());
  EXPECT_EQ(status.error().code, ErrorCode::kAlreadyExists);
  EXPECT_EQ(CodeOf(store_->Get(EntityType::kMetalake, 0, "fresh")), ErrorCode::kNotFound);
  for (int i = 0; i < 8; ++i) {  // every pooled connection still works
    ASSERT_OK(store_->Get(EntityType::kMetalake, 0, "existing"));
  }
}

TEST_P(StoreTest, MigrationsAreIdempotent) {
  EntityRecord lake = MustInsert(MakeRecord(EntityType::kMetalake, 0, "persisted"));
  auto second = OpenStore(options_);
  ASSERT_OK(second);
  EXPECT_TRUE((*second)->Ping());
  if (GetParam() == Backend::kSqliteMemory) {
    return;  // a second ":memory:" store is a new, empty database; opening it is the test
  }
  auto seen = (*second)->GetById(lake.id);
  ASSERT_OK(seen);
  EXPECT_EQ(seen->name, "persisted");
  second->reset();
  auto third = OpenStore(options_);
  ASSERT_OK(third);

  std::unique_ptr<SqlConnection> raw = RawConnection();
  ASSERT_NE(raw, nullptr);
  auto versions = raw->Execute("SELECT version FROM schema_migrations ORDER BY version", {});
  ASSERT_OK(versions);
  const auto known = migrations::MigrationsFor(raw->dialect());
  ASSERT_EQ(versions->size(), known.size());
  for (size_t i = 0; i < known.size(); ++i) {
    EXPECT_EQ((*versions)[i][0], std::optional<std::string>(std::to_string(known[i].version)));
  }
}

TEST_P(StoreTest, ReplicasStartingAtOnceMigrateOnce) {
  if (GetParam() == Backend::kSqliteMemory) {
    GTEST_SKIP() << "each \":memory:\" store is its own database";
  }
  // Drop the schema the fixture created, then let several "replicas" race to create it.
  std::unique_ptr<SqlConnection> raw = RawConnection();
  ASSERT_NE(raw, nullptr);
  store_.reset();
  ASSERT_OK(raw->ExecuteScript(
      "DROP TABLE entity_links; DROP TABLE entities; DROP TABLE schema_migrations; " kDropLineage));
  constexpr int kReplicas = 4;
  std::vector<std::string> errors(kReplicas);
  std::vector<std::thread> threads;
  for (int i = 0; i < kReplicas; ++i) {
    threads.emplace_back([&, i] {
      auto store = OpenStore(options_);
      if (!store) errors[static_cast<size_t>(i)] = store.error().message;
    });
  }
  for (auto& t : threads) t.join();
  for (const auto& message : errors) EXPECT_EQ(message, "");
  auto versions = raw->Execute("SELECT COUNT(*) FROM schema_migrations", {});
  ASSERT_OK(versions);
  EXPECT_EQ(
      (*versions)[0][0],
      std::optional<std::string>(std::to_string(migrations::MigrationsFor(raw->dialect()).size())));
}

TEST_P(StoreTest, PropertiesAndNamesWithUnicodeAndQuotesRoundTrip) {
  EntityRecord record = MakeRecord(EntityType::kTable, 4, "x'; DROP TABLE entities; --\"é");
  record.comment = "it's \"quoted\" — 日本語 🚀";
  record.properties = {
      {"quote\"key", "value with \"double\" and 'single' quotes"},
      {"backslash\\", "C:\\path\\to\\file"},
      {"unicode", "héllo wörld 日本語 🚀"},
      {"newline", "line1\nline2\ttab"},
      {"empty", ""},
      {"json-looking", R"({"a":[1,2]})"},
      {"emoji🔑", "✓"},
  };
  EntityRecord inserted = MustInsert(record);
  EXPECT_EQ(inserted.properties, record.properties);
  auto got = store_->Get(EntityType::kTable, 4, record.name);
  ASSERT_OK(got);
  EXPECT_EQ(got->name, record.name);
  EXPECT_EQ(got->comment, record.comment);
  EXPECT_EQ(got->properties, record.properties);
  auto count = store_->CountChildren(4);
  ASSERT_OK(count);
  EXPECT_EQ(*count, 1);  // and the table survived the name
}

TEST_P(StoreTest, ANameLongerThanTheStoreKeepsIsTheCallersErrorNeverCut) {
  const std::string name(800, 'n');
  auto inserted = store_->Insert(MakeRecord(EntityType::kTable, 4, name));
  if (GetParam() == Backend::kMysql) {
    // InnoDB's key limit: 700 characters (docs/operations.md#replicas).
    EXPECT_EQ(CodeOf(inserted), ErrorCode::kInvalidArgument);
    EXPECT_EQ(CodeOf(store_->Get(EntityType::kTable, 4, name.substr(0, 700))),
              ErrorCode::kNotFound);
    ASSERT_OK(store_->Insert(MakeRecord(EntityType::kTable, 4, name.substr(0, 700))));
    return;
  }
  ASSERT_OK(inserted);
  EXPECT_EQ(store_->Get(EntityType::kTable, 4, name)->name, name);
}

LinkRecord MakeLink(LinkType type, int64_t from_id, int64_t to_id) {
  LinkRecord link;
  link.type = type;
  link.from_id = from_id;
  link.to_id = to_id;
  link.payload = R"({"inherited":false})";
  link.creator = "alice";
  link.create_time = 1700000000000;
  return link;
}

std::vector<int64_t> ToIds(const std::vector<LinkRecord>& links) {
  std::vector<int64_t> ids;
  for (const auto& link : links) ids.push_back(link.to_id);
  return ids;
}

std::vector<int64_t> FromIds(const std::vector<LinkRecord>& links) {
  std::vector<int64_t> ids;
  for (const auto& link : links) ids.push_back(link.from_id);
  return ids;
}

using Ids = std::vector<int64_t>;

// The store does not look at what kind of row an end is: roles stand in for tags and policies.
TEST_P(StoreTest, LinkUnlinkDuplicatesAndMissingEnds) {
  EntityRecord lake = MustInsert(MakeRecord(EntityType::kMetalake, 0, "lake"));
  EntityRecord tag = MustInsert(MakeRecord(EntityType::kRole, lake.id, "pii"));
  EntityRecord table = MustInsert(MakeRecord(EntityType::kTable, lake.id, "t"));

  LinkRecord wanted = MakeLink(LinkType::kTagObject, tag.id, table.id);
  wanted.payload = R"({"note":"it's \"quoted\" — 日本語"})";
  auto linked = store_->Link(wanted);
  ASSERT_OK(linked);
  EXPECT_EQ(*linked, wanted);

  auto duplicate = store_->Link(MakeLink(LinkType::kTagObject, tag.id, table.id));
  ASSERT_EQ(CodeOf(duplicate), ErrorCode::kAlreadyExists);
  EXPECT_EQ(duplicate.error().message,
            fmt::format("object {} is already linked to object {}", tag.id, table.id));

  // The key is (type, from, to): another type or the other direction is another link.
  ASSERT_OK(store_->Link(MakeLink(LinkType::kPolicyObject, tag.id, table.id)));
  ASSERT_OK(store_->Link(MakeLink(LinkType::kTagObject, table.id, tag.id)));

  constexpr int64_t kMissing = 987654;
  for (const auto& [from, to] : {std::pair{kMissing, table.id}, std::pair{tag.id, kMissing}}) {
    auto dangling = store_->Link(MakeLink(LinkType::kTagObject, from, to));
    ASSERT_EQ(CodeOf(dangling), ErrorCode::kNotFound) << from << " -> " << to;
    EXPECT_EQ(
        dangling.error().message,
        fmt::format("cannot link object {} to object {}: one of them does not exist", from, to));
  }
  auto unknown_type = store_->Link(MakeLink(static_cast<LinkType>(99), tag.id, table.id));
  EXPECT_EQ(CodeOf(unknown_type), ErrorCode::kInvalidArgument);

  auto from_tag = store_->ListLinksFrom(LinkType::kTagObject, tag.id, 0, 0);
  ASSERT_OK(from_tag);
  ASSERT_EQ(from_tag->size(), 1U);
  EXPECT_EQ(from_tag->front(), wanted);  // payload and audit round-trip
  auto to_missing = store_->ListLinksTo(LinkType::kTagObject, kMissing, 0, 0);
  ASSERT_OK(to_missing);
  EXPECT_TRUE(to_missing->empty());

  auto removed = store_->Unlink(LinkType::kTagObject, tag.id, table.id);
  ASSERT_OK(removed);
  EXPECT_TRUE(*removed);
  auto again = store_->Unlink(LinkType::kTagObject, tag.id, table.id);
  ASSERT_OK(again);
  EXPECT_FALSE(*again);
  auto never = store_->Unlink(LinkType::kTagObject, kMissing, table.id);
  ASSERT_OK(never);
  EXPECT_FALSE(*never);

  from_tag = store_->ListLinksFrom(LinkType::kTagObject, tag.id, 0, 0);
  ASSERT_OK(from_tag);
  EXPECT_TRUE(from_tag->empty());
  // Only the unlinked one went.
  auto policies = store_->ListLinksFrom(LinkType::kPolicyObject, tag.id, 0, 0);
  ASSERT_OK(policies);
  EXPECT_EQ(ToIds(*policies), (Ids{table.id}));
  auto reverse = store_->ListLinksFrom(LinkType::kTagObject, table.id, 0, 0);
  ASSERT_OK(reverse);
  EXPECT_EQ(ToIds(*reverse), (Ids{tag.id}));
  // And it can be made again.
  ASSERT_OK(store_->Link(MakeLink(LinkType::kTagObject, tag.id, table.id)));
}

TEST_P(StoreTest, ListLinksPagesByEitherEndInIdOrder) {
  EntityRecord lake = MustInsert(MakeRecord(EntityType::kMetalake, 0, "lake"));
  std::vector<int64_t> tables;
  for (int i = 0; i < 7; ++i) {
    tables.push_back(MustInsert(MakeRecord(EntityType::kTable, lake.id, fmt::format("t{}", i))).id);
  }
  std::vector<int64_t> tags;
  for (int i = 0; i < 5; ++i) {
    tags.push_back(MustInsert(MakeRecord(EntityType::kRole, lake.id, fmt::format("tag{}", i))).id);
  }
  // Linked out of id order; the lists still come back by id.
  for (size_t i : {4U, 0U, 6U, 2U, 1U, 5U, 3U}) {
    ASSERT_OK(store_->Link(MakeLink(LinkType::kTagObject, tags[0], tables[i])));
  }
  for (size_t i : {3U, 1U, 4U, 2U}) {
    ASSERT_OK(store_->Link(MakeLink(LinkType::kTagObject, tags[i], tables[0])));
  }
  // Links of another type are not listed.
  ASSERT_OK(store_->Link(MakeLink(LinkType::kPolicyObject, tags[0], tables[0])));
  ASSERT_OK(store_->Link(MakeLink(LinkType::kPolicyObject, tags[4], tables[6])));

  auto all = store_->ListLinksFrom(LinkType::kTagObject, tags[0], 0, 0);
  ASSERT_OK(all);
  EXPECT_EQ(ToIds(*all), tables);
  for (const auto& link : *all) {
    EXPECT_EQ(link.from_id, tags[0]);
    EXPECT_EQ(link.type, LinkType::kTagObject);
  }

  auto page1 = store_->ListLinksFrom(LinkType::kTagObject, tags[0], 0, 3);
  ASSERT_OK(page1);
  EXPECT_EQ(ToIds(*page1), (Ids{tables[0], tables[1], tables[2]}));
  auto page2 = store_->ListLinksFrom(LinkType::kTagObject, tags[0], page1->back().to_id, 3);
  ASSERT_OK(page2);
  EXPECT_EQ(ToIds(*page2), (Ids{tables[3], tables[4], tables[5]}));
  auto page3 = store_->ListLinksFrom(LinkType::kTagObject, tags[0], page2->back().to_id, 3);
  ASSERT_OK(page3);
  EXPECT_EQ(ToIds(*page3), (Ids{tables[6]}));
  auto page4 = store_->ListLinksFrom(LinkType::kTagObject, tags[0], page3->back().to_id, 3);
  ASSERT_OK(page4);
  EXPECT_TRUE(page4->empty());
  auto after_unlinked = store_->ListLinksFrom(LinkType::kTagObject, tags[0], tables[3] - 1, -1);
  ASSERT_OK(after_unlinked);
  EXPECT_EQ(ToIds(*after_unlinked), (Ids{tables[3], tables[4], tables[5], tables[6]}));

  auto to_all = store_->ListLinksTo(LinkType::kTagObject, tables[0], 0, 0);
  ASSERT_OK(to_all);
  EXPECT_EQ(FromIds(*to_all), tags);
  for (const auto& link : *to_all) EXPECT_EQ(link.to_id, tables[0]);
  auto to1 = store_->ListLinksTo(LinkType::kTagObject, tables[0], 0, 2);
  ASSERT_OK(to1);
  EXPECT_EQ(FromIds(*to1), (Ids{tags[0], tags[1]}));
  auto to2 = store_->ListLinksTo(LinkType::kTagObject, tables[0], to1->back().from_id, 2);
  ASSERT_OK(to2);
  EXPECT_EQ(FromIds(*to2), (Ids{tags[2], tags[3]}));
  auto to3 = store_->ListLinksTo(LinkType::kTagObject, tables[0], to2->back().from_id, 2);
  ASSERT_OK(to3);
  EXPECT_EQ(FromIds(*to3), (Ids{tags[4]}));
  auto to4 = store_->ListLinksTo(LinkType::kTagObject, tables[0], to3->back().from_id, 2);
  ASSERT_OK(to4);
  EXPECT_TRUE(to4->empty());

  auto policies_to = store_->ListLinksTo(LinkType::kPolicyObject, tables[6], 0, 0);
  ASSERT_OK(policies_to);
  EXPECT_EQ(FromIds(*policies_to), (Ids{tags[4]}));
  auto none = store_->ListLinksTo(LinkType::kTagObject, tables[6], 0, 0);
  ASSERT_OK(none);
  EXPECT_EQ(FromIds(*none), (Ids{tags[0]}));
}

TEST_P(StoreTest, DeletingEitherEndOrAnAncestorRemovesItsLinks) {
  // Tags live under their own metalake, the tagged objects under another.
  EntityRecord tag_lake = MustInsert(MakeRecord(EntityType::kMetalake, 0, "tags"));
  EntityRecord tag1 = MustInsert(MakeRecord(EntityType::kRole, tag_lake.id, "tag1"));
  EntityRecord tag2 = MustInsert(MakeRecord(EntityType::kRole, tag_lake.id, "tag2"));
  EntityRecord lake = MustInsert(MakeRecord(EntityType::kMetalake, 0, "lake"));
  EntityRecord catalog = MustInsert(MakeRecord(EntityType::kCatalog, lake.id, "cat"));
  EntityRecord db = MustInsert(MakeRecord(EntityType::kSchema, catalog.id, "db"));
  EntityRecord t1 = MustInsert(MakeRecord(EntityType::kTable, db.id, "t1"));
  EntityRecord t2 = MustInsert(MakeRecord(EntityType::kTable, db.id, "t2"));
  EntityRecord col = MustInsert(MakeRecord(EntityType::kFunction, t1.id, "f"));  // a grandchild
  EntityRecord keep = MustInsert(MakeRecord(EntityType::kSchema, catalog.id, "keep"));
  EntityRecord kept = MustInsert(MakeRecord(EntityType::kTable, keep.id, "k"));

  for (int64_t object : {db.id, t1.id, t2.id, col.id, kept.id}) {
    ASSERT_OK(store_->Link(MakeLink(LinkType::kTagObject, tag1.id, object)));
  }
  ASSERT_OK(store_->Link(MakeLink(LinkType::kTagObject, tag2.id, t1.id)));
  ASSERT_OK(store_->Link(MakeLink(LinkType::kPolicyObject, tag2.id, col.id)));
  // A link whose from end is inside the subtree, too.
  ASSERT_OK(store_->Link(MakeLink(LinkType::kPolicyObject, t2.id, kept.id)));

  auto tagged_by = [&](const EntityRecord& tag, LinkType type = LinkType::kTagObject) {
    auto links = store_->ListLinksFrom(type, tag.id, 0, 0);
    EXPECT_TRUE(links.has_value());
    return links ? ToIds(*links) : Ids{-1};
  };
  auto tags_of = [&](const EntityRecord& object, LinkType type = LinkType::kTagObject) {
    auto links = store_->ListLinksTo(type, object.id, 0, 0);
    EXPECT_TRUE(links.has_value());
    return links ? FromIds(*links) : Ids{-1};
  };

  // The object end goes.
  auto deleted = store_->Delete(t2.id);
  ASSERT_OK(deleted);
  EXPECT_TRUE(*deleted);
  EXPECT_EQ(tagged_by(tag1), (Ids{db.id, t1.id, col.id, kept.id}));
  EXPECT_TRUE(tags_of(kept, LinkType::kPolicyObject).empty());

  // The tag end goes.
  deleted = store_->Delete(tag2.id);
  ASSERT_OK(deleted);
  EXPECT_EQ(tags_of(t1), (Ids{tag1.id}));
  EXPECT_TRUE(tags_of(col, LinkType::kPolicyObject).empty());

  // An ancestor goes: the schema, its table and the table's child lose their links.
  deleted = store_->Delete(db.id);
  ASSERT_OK(deleted);
  EXPECT_EQ(tagged_by(tag1), (Ids{kept.id}));
  for (const EntityRecord* gone : {&db, &t1, &col}) {
    EXPECT_TRUE(tags_of(*gone).empty()) << gone->name;
  }
  auto relink = store_->Link(MakeLink(LinkType::kTagObject, tag1.id, t1.id));
  EXPECT_EQ(CodeOf(relink), ErrorCode::kNotFound);

  // Deleting the tags' metalake takes the last link with its tag.
  deleted = store_->Delete(tag_lake.id);
  ASSERT_OK(deleted);
  EXPECT_TRUE(tags_of(kept).empty());

  // No row is left behind in the table itself.
  if (std::unique_ptr<SqlConnection> raw = RawConnection()) {
    auto count = raw->Execute("SELECT COUNT(*) FROM entity_links", {});
    ASSERT_OK(count);
    EXPECT_EQ((*count)[0][0], std::optional<std::string>("0"));
  }
}

TEST_P(StoreTest, LinksInsideTransactionsCommitOrRollBack) {
  EntityRecord lake = MustInsert(MakeRecord(EntityType::kMetalake, 0, "lake"));
  EntityRecord tag = MustInsert(MakeRecord(EntityType::kRole, lake.id, "tag"));
  EntityRecord t1 = MustInsert(MakeRecord(EntityType::kTable, lake.id, "t1"));
  EntityRecord t2 = MustInsert(MakeRecord(EntityType::kTable, lake.id, "t2"));
  ASSERT_OK(store_->Link(MakeLink(LinkType::kTagObject, tag.id, t2.id)));

  // Rolled back: neither the new link nor the unlink survives.
  Status failed = store_->RunInTransaction([&](MetadataStore& tx) -> Status {
    CAIRN_RETURN_IF_ERROR(tx.Link(MakeLink(LinkType::kTagObject, tag.id, t1.id)));
    CAIRN_ASSIGN_OR_RETURN(bool removed, tx.Unlink(LinkType::kTagObject, tag.id, t2.id));
    EXPECT_TRUE(removed);
    CAIRN_ASSIGN_OR_RETURN(std::vector<LinkRecord> seen,
                           tx.ListLinksFrom(LinkType::kTagObject, tag.id, 0, 0));
    EXPECT_EQ(ToIds(seen), (Ids{t1.id}));  // the transaction sees its own writes
    return Internal("fail on purpose");
  });
  ASSERT_FALSE(failed.has_value());
  EXPECT_EQ(failed.error().message, "fail on purpose");
  auto after = store_->ListLinksFrom(LinkType::kTagObject, tag.id, 0, 0);
  ASSERT_OK(after);
  EXPECT_EQ(ToIds(*after), (Ids{t2.id}));

  // A link refused inside the body (PostgreSQL then aborts the transaction) rolls back the
  // links made before it.
  failed = store_->RunInTransaction([&](MetadataStore& tx) -> Status {
    CAIRN_RETURN_IF_ERROR(tx.Link(MakeLink(LinkType::kTagObject, tag.id, t1.id)));
    CAIRN_RETURN_IF_ERROR(tx.Link(MakeLink(LinkType::kTagObject, tag.id, 987654)));
    return Ok();
  });
  ASSERT_FALSE(failed.has_value());
  EXPECT_EQ(failed.error().code, ErrorCode::kNotFound);
  auto to_t1 = store_->ListLinksTo(LinkType::kTagObject, t1.id, 0, 0);
  ASSERT_OK(to_t1);
  EXPECT_TRUE(to_t1->empty());

  // Committed: a row and its link made together, and a delete that takes a link with it.
  int64_t t3_id = 0;
  ASSERT_OK(store_->RunInTransaction([&](MetadataStore& tx) -> Status {
    CAIRN_ASSIGN_OR_RETURN(EntityRecord t3,
                           tx.Insert(MakeRecord(EntityType::kTable, lake.id, "t3")));
    t3_id = t3.id;
    CAIRN_RETURN_IF_ERROR(tx.Link(MakeLink(LinkType::kTagObject, tag.id, t3.id)));
    CAIRN_RETURN_IF_ERROR(tx.Delete(t2.id));
    CAIRN_ASSIGN_OR_RETURN(std::vector<LinkRecord> to,
                           tx.ListLinksTo(LinkType::kTagObject, t3.id, 0, 0));
    EXPECT_EQ(FromIds(to), (Ids{tag.id}));
    return Ok();
  }));
  after = store_->ListLinksFrom(LinkType::kTagObject, tag.id, 0, 0);
  ASSERT_OK(after);
  EXPECT_EQ(ToIds(*after), (Ids{t3_id}));
}

TEST_P(StoreTest, ADatabaseAtSchemaVersion1MigratesForwardToLinks) {
  if (GetParam() == Backend::kSqliteMemory) {
    GTEST_SKIP() << "each \":memory:\" store is its own database";
  }
  std::unique_ptr<SqlConnection> raw = RawConnection();
  ASSERT_NE(raw, nullptr);
  store_.reset();
  ASSERT_OK(raw->ExecuteScript(
      "DROP TABLE entity_links; DROP TABLE entities; DROP TABLE schema_migrations; " kDropLineage));
  // The database as the release before links left it, with rows in it.
  ASSERT_OK(migrations::MigrateToVersionForTest(*raw, 1));
  auto versions = raw->Execute("SELECT version FROM schema_migrations ORDER BY version", {});
  ASSERT_OK(versions);
  ASSERT_EQ(versions->size(), 1U);
  EXPECT_EQ((*versions)[0][0], std::optional<std::string>("1"));
  EXPECT_FALSE(raw->Execute("SELECT COUNT(*) FROM entity_links", {}).has_value());
  auto old_rows = raw->Execute(
      "INSERT INTO entities (type, parent_id, name) VALUES (1, 0, 'old_lake') RETURNING id", {});
  ASSERT_OK(old_rows);
  ASSERT_EQ(old_rows->size(), 1U);
  const std::string lake_id = (*old_rows)[0][0].value_or("");
  ASSERT_OK(raw->Execute("INSERT INTO entities (type, parent_id, name) VALUES (4, $1, 'old_table')",
                         {static_cast<int64_t>(std::stoll(lake_id))}));

  auto store = OpenStore(options_);
  ASSERT_OK(store);
  store_ = std::move(store).value();
  versions = raw->Execute("SELECT version FROM schema_migrations ORDER BY version", {});
  ASSERT_OK(versions);
  ASSERT_EQ(versions->size(), 5U);
  EXPECT_EQ((*versions)[1][0], std::optional<std::string>("2"));
  EXPECT_EQ((*versions)[2][0], std::optional<std::string>("3"));
  EXPECT_EQ((*versions)[3][0], std::optional<std::string>("4"));
  EXPECT_EQ((*versions)[4][0], std::optional<std::string>("5"));

  auto lake = store_->Get(EntityType::kMetalake, 0, "old_lake");
  ASSERT_OK(lake);
  auto table = store_->Get(EntityType::kTable, lake->id, "old_table");
  ASSERT_OK(table);
  ASSERT_OK(store_->Link(MakeLink(LinkType::kTagObject, lake->id, table->id)));
  auto links = store_->ListLinksTo(LinkType::kTagObject, table->id, 0, 0);
  ASSERT_OK(links);
  EXPECT_EQ(FromIds(*links), (Ids{lake->id}));
  // The migrated table enforces its ends and cascades like a new one.
  EXPECT_EQ(CodeOf(store_->Link(MakeLink(LinkType::kTagObject, lake->id, 987654))),
            ErrorCode::kNotFound);
  ASSERT_OK(store_->Delete(table->id));
  links = store_->ListLinksFrom(LinkType::kTagObject, lake->id, 0, 0);
  ASSERT_OK(links);
  EXPECT_TRUE(links->empty());
}

// The type column holds each kind's persisted number: rows written by earlier releases read back
// as the same kinds, and rows written now read back in earlier releases.
TEST_P(StoreTest, TheTypeColumnHoldsThePersistedNumbers) {
  if (GetParam() == Backend::kSqliteMemory) {
    GTEST_SKIP() << "each \":memory:\" store is its own database";
  }
  const std::vector<std::pair<EntityType, int>> persisted = {
      {EntityType::kMetalake, 1}, {EntityType::kCatalog, 2}, {EntityType::kSchema, 3},
      {EntityType::kTable, 4},    {EntityType::kView, 5},    {EntityType::kFileset, 6},
      {EntityType::kTopic, 7},    {EntityType::kModel, 8},   {EntityType::kFunction, 9},
      {EntityType::kUser, 10},    {EntityType::kGroup, 11},  {EntityType::kRole, 12},
      {EntityType::kIdpUser, 13}, {EntityType::kTag, 14},    {EntityType::kPolicy, 15},
  };
  std::unique_ptr<SqlConnection> raw = RawConnection();
  ASSERT_NE(raw, nullptr);
  for (const auto& [type, number] : persisted) {
    const std::string name = "numbered_" + std::to_string(number);
    EntityRecord row = MustInsert(MakeRecord(type, 7000, name));
    auto stored = raw->Execute("SELECT type FROM entities WHERE id = $1", {row.id});
    ASSERT_OK(stored);
    ASSERT_EQ(stored->size(), 1U);
    EXPECT_EQ((*stored)[0][0], std::optional<std::string>(std::to_string(number))) << name;
    ASSERT_OK(raw->Execute("INSERT INTO entities (type, parent_id, name) VALUES ($1, 7001, $2)",
                           {int64_t{number}, name}));
    auto read = store_->Get(type, 7001, name);
    ASSERT_OK(read);
    EXPECT_EQ(read->type, type) << name;
  }
}

TEST_P(StoreTest, LinkedRowsArePagedInTheLinksOrder) {
  EntityRecord lake = MustInsert(MakeRecord(EntityType::kMetalake, 0, "lake"));
  EntityRecord tag = MustInsert(MakeRecord(EntityType::kTag, lake.id, "hot"));
  EntityRecord other = MustInsert(MakeRecord(EntityType::kTag, lake.id, "cold"));
  std::vector<int64_t> ids;
  for (int i = 0; i < 5; ++i) {
    EntityRecord t = MustInsert(MakeRecord(EntityType::kTable, lake.id, "t" + std::to_string(i)));
    ids.push_back(t.id);
    ASSERT_OK(store_->Link(MakeLink(LinkType::kTagObject, tag.id, t.id)));
  }
  ASSERT_OK(store_->Link(MakeLink(LinkType::kTagObject, other.id, ids[0])));
  ASSERT_OK(store_->Link(MakeLink(LinkType::kPolicyObject, tag.id, lake.id)));  // another type
  auto first = store_->ListLinkedRows(LinkType::kTagObject, tag.id, 0, 2);
  ASSERT_OK(first);
  ASSERT_EQ(first->size(), 2U);
  EXPECT_EQ((*first)[0].id, ids[0]);
  EXPECT_EQ((*first)[0].name, "t0");
  EXPECT_EQ((*first)[0].type, EntityType::kTable);
  EXPECT_EQ((*first)[1].id, ids[1]);
  auto rest = store_->ListLinkedRows(LinkType::kTagObject, tag.id, (*first)[1].id, 0);
  ASSERT_OK(rest);
  ASSERT_EQ(rest->size(), 3U);
  EXPECT_EQ(rest->back().name, "t4");
  // A dropped object leaves no row behind, and its link goes with it.
  ASSERT_OK(store_->Delete(ids[2]));
  auto after_drop = store_->ListLinkedRows(LinkType::kTagObject, tag.id, 0, 0);
  ASSERT_OK(after_drop);
  EXPECT_EQ(after_drop->size(), 4U);
  auto none = store_->ListLinkedRows(LinkType::kTagObject, 987654, 0, 0);
  ASSERT_OK(none);
  EXPECT_TRUE(none->empty());
}

TEST_P(StoreTest, ConcurrentLinksOfOnePairHaveOneWinner) {
  EntityRecord lake = MustInsert(MakeRecord(EntityType::kMetalake, 0, "lake"));
  EntityRecord tag = MustInsert(MakeRecord(EntityType::kRole, lake.id, "tag"));
  constexpr int kRounds = 10;
  constexpr int kThreads = 2;
  for (int round = 0; round < kRounds; ++round) {
    EntityRecord table =
        MustInsert(MakeRecord(EntityType::kTable, lake.id, fmt::format("t{}", round)));
    std::atomic<int> ready{0};
    std::atomic<int> wins{0};
    std::atomic<int> exists{0};
    std::vector<std::string> others(kThreads);
    std::vector<std::thread> threads;
    for (int i = 0; i < kThreads; ++i) {
      threads.emplace_back([&, i] {
        ready.fetch_add(1);
        while (ready.load() < kThreads) std::this_thread::yield();
        auto result = store_->Link(MakeLink(LinkType::kTagObject, tag.id, table.id));
        if (result) {
          wins.fetch_add(1);
        } else if (result.error().code == ErrorCode::kAlreadyExists) {
          exists.fetch_add(1);
        } else {
          others[static_cast<size_t>(i)] = result.error().message;
        }
      });
    }
    for (auto& t : threads) t.join();
    for (const auto& message : others) EXPECT_EQ(message, "") << "round " << round;
    EXPECT_EQ(wins.load(), 1) << "round " << round;
    EXPECT_EQ(exists.load(), kThreads - 1) << "round " << round;
    auto links = store_->ListLinksTo(LinkType::kTagObject, table.id, 0, 0);
    ASSERT_OK(links);
    EXPECT_EQ(FromIds(*links), (Ids{tag.id})) << "round " << round;
  }
}

// A link racing the delete of its end either is refused or goes with the row: none dangles.
TEST_P(StoreTest, ALinkRacingTheDeleteOfItsEndNeverDangles) {
  EntityRecord lake = MustInsert(MakeRecord(EntityType::kMetalake, 0, "lake"));
  EntityRecord tag = MustInsert(MakeRecord(EntityType::kRole, lake.id, "tag"));
  constexpr int kRounds = 10;
  int refused = 0;
  for (int round = 0; round < kRounds; ++round) {
    EntityRecord schema =
        MustInsert(MakeRecord(EntityType::kSchema, lake.id, fmt::format("s{}", round)));
    EntityRecord table = MustInsert(MakeRecord(EntityType::kTable, schema.id, "t"));
    std::atomic<int> ready{0};
    Result<LinkRecord> linked = Internal("not run");
    Result<bool> deleted = Internal("not run");
    std::thread linker([&] {
      ready.fetch_add(1);
      while (ready.load() < 2) std::this_thread::yield();
      linked = store_->Link(MakeLink(LinkType::kTagObject, tag.id, table.id));
    });
    std::thread deleter([&] {
      ready.fetch_add(1);
      while (ready.load() < 2) std::this_thread::yield();
      deleted = store_->Delete(schema.id);
    });
    linker.join();
    deleter.join();
    ASSERT_OK(deleted);
    EXPECT_TRUE(*deleted);
    if (!linked) {
      EXPECT_EQ(linked.error().code, ErrorCode::kNotFound) << linked.error().message;
      ++refused;
    }
    auto links = store_->ListLinksTo(LinkType::kTagObject, table.id, 0, 0);
    ASSERT_OK(links);
    EXPECT_TRUE(links->empty()) << "round " << round;
  }
  auto from_tag = store_->ListLinksFrom(LinkType::kTagObject, tag.id, 0, 0);
  ASSERT_OK(from_tag);
  EXPECT_TRUE(from_tag->empty());
  std::fprintf(stderr, "[%s] links refused because the delete came first: %d of %d\n",
               BackendName(GetParam()).c_str(), refused, kRounds);
}

TEST_P(StoreTest, ReconnectsAfterTheServerDropsConnections) {
  if (!admin_ && !mysql_admin_) {
    GTEST_SKIP() << "a database server's connections only";
  }
  EntityRecord lake = MustInsert(MakeRecord(EntityType::kMetalake, 0, "survivor"));
  if (admin_) {
    auto killed = admin_->Execute(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
        "WHERE datname = $1 AND pid <> pg_backend_pid()",
        {database_});
    ASSERT_OK(killed);
    ASSERT_FALSE(killed->empty());
  } else {
    auto ids = mysql_admin_->Execute(
        "SELECT ID FROM information_schema.PROCESSLIST WHERE DB = $1 AND ID <> CONNECTION_ID()",
        {database_});
    ASSERT_OK(ids);
    ASSERT_FALSE(ids->empty());
    for (const auto& row : *ids) {
      // A connection id the server gave, not input: KILL takes no parameters.
      ASSERT_OK(mysql_admin_->ExecuteScript("KILL CONNECTION " + row[0].value_or("0")));
    }
  }
  // Each dead pooled connection fails once with kUnavailable and is then replaced.
  int failures = 0;
  bool recovered = false;
  for (int i = 0; i <= options_.pool_size + 1 && !recovered; ++i) {
    auto got = store_->GetById(lake.id);
    if (got) {
      recovered = true;
    } else {
      EXPECT_EQ(got.error().code, ErrorCode::kUnavailable) << got.error().message;
      ++failures;
    }
  }
  EXPECT_TRUE(recovered);
  EXPECT_LE(failures, options_.pool_size);
  for (int i = 0; i < 2 * options_.pool_size; ++i) {
    ASSERT_OK(store_->GetById(lake.id));
  }
}

// ---- Lineage (migration 3) ----------------------------------------------------------------

LineageDatasetName Ds(std::string ns, std::string name, std::string metalake = "",
                      std::string object = "") {
  return {std::move(ns), std::move(name), std::move(metalake), std::move(object)};
}

LineageEventRecord Event(std::string run, std::string type, std::string job,
                         std::vector<LineageDatasetName> in, std::vector<LineageDatasetName> out) {
  LineageEventRecord e;
  e.run_id = std::move(run);
  e.event_type = std::move(type);
  e.event_time = "2026-12-02T10:00:00Z";
  e.producer = "test";
  e.job_ns = "jobs";
  e.job_name = std::move(job);
  e.received_time = 1;
  e.inputs = std::move(in);
  e.outputs = std::move(out);
  e.body = "{}";
  return e;
}

TEST_P(StoreTest, IdempotencyKeysAreClaimedOnceFinishedReplayedAndScopedToAPrincipal) {
  IdempotencyStore* keys = store_->Idempotency();
  ASSERT_NE(keys, nullptr);
  using O = KeyClaim::Outcome;
  const std::string key = "018f2e7a-0000-7000-8000-000000000001";
  auto claim = keys->Claim("alice", key, "fp1", 1000, 2000, 10'000);
  ASSERT_OK(claim);
  EXPECT_EQ(claim->outcome, O::kClaimed);
  // While it runs: the same request waits, another request with the key is refused.
  claim = keys->Claim("alice", key, "fp1", 1500, 2500, 10'500);
  ASSERT_OK(claim);
  EXPECT_EQ(claim->outcome, O::kRunning);
  claim = keys->Claim("alice", key, "fp2", 1500, 2500, 10'500);
  ASSERT_OK(claim);
  EXPECT_EQ(claim->outcome, O::kMismatch);
  // Another principal's key of the same text is its own.
  claim = keys->Claim("bob", key, "fp2", 1500, 2500, 10'500);
  ASSERT_OK(claim);
  EXPECT_EQ(claim->outcome, O::kClaimed);
  ASSERT_OK(keys->Release("bob", key));

  StoredAnswer answer{200, "application/json", R"({"ETag":"\"e1\""})", R"({"done":true})"};
  ASSERT_OK(keys->Finish("alice", key, answer, 10'000));
  claim = keys->Claim("alice", key, "fp1", 3000, 4000, 13'000);
  ASSERT_OK(claim);
  ASSERT_EQ(claim->outcome, O::kFinished);
  EXPECT_EQ(claim->answer.status, 200);
  EXPECT_EQ(claim->answer.content_type, "application/json");
  EXPECT_EQ(claim->answer.headers, answer.headers);
  EXPECT_EQ(claim->answer.body, answer.body);
  claim = keys->Claim("alice", key, "fp2", 3000, 4000, 13'000);
  ASSERT_OK(claim);
  EXPECT_EQ(claim->outcome, O::kMismatch);

  // A running key whose server died (lease over) is taken over; a released one is free again.
  const std::string orphan = "018f2e7a-0000-7000-8000-000000000002";
  ASSERT_EQ(keys->Claim("alice", orphan, "fp", 1000, 2000, 10'000)->outcome, O::kClaimed);
  EXPECT_EQ(keys->Claim("alice", orphan, "fp", 2001, 3000, 11'000)->outcome, O::kClaimed);
  EXPECT_EQ(keys->Claim("alice", orphan, "fp", 2500, 3500, 11'000)->outcome, O::kRunning);
  ASSERT_OK(keys->Release("alice", orphan));
  EXPECT_EQ(keys->Claim("alice", orphan, "fp", 2600, 3600, 11'000)->outcome, O::kClaimed);

  // Expired keys are purged, and an expired key is claimed afresh, whatever it held.
  auto purged = keys->Purge(10'001);
  ASSERT_OK(purged);
  EXPECT_EQ(*purged, 1);  // alice's finished key; the orphan lives until 11'000
  EXPECT_EQ(keys->Claim("alice", key, "fp2", 10'002, 11'000, 20'000)->outcome, O::kClaimed);
  EXPECT_EQ(keys->Claim("alice", orphan, "other", 11'001, 12'000, 20'000)->outcome, O::kClaimed);
}

TEST_P(StoreTest, LineageEventsFoldIntoJobsDatasetsAndEdgesAndAreKeptPerRun) {
  LineageStore* lineage = store_->Lineage();
  ASSERT_NE(lineage, nullptr);
  const auto raw = Ds("trino://h:8080", "c.s.raw", "ml", "c.s.raw");
  const auto clean = Ds("ml", "c.s.clean", "ml", "c.s.clean");
  auto start = Event("r1", "START", "etl", {raw}, {clean});
  auto complete = Event("r1", "COMPLETE", "etl", {raw}, {clean});
  complete.event_time = "2026-12-02T10:05:00Z";
  LineageColumnFact fact{clean, "id", raw, "raw_id", "IDENTITY"};
  complete.columns = {fact};
  ASSERT_OK(lineage->Append(start));
  ASSERT_OK(lineage->Append(complete));

  auto events = lineage->EventsOfRun("r1", 10);
  ASSERT_OK(events);
  ASSERT_EQ(events->size(), 2u);  // a run's START and COMPLETE are both kept
  EXPECT_EQ((*events)[0].event_type, "START");
  EXPECT_EQ((*events)[1].event_type, "COMPLETE");

  auto found = lineage->FindDataset("trino://h:8080", "c.s.raw");
  ASSERT_OK(found);
  ASSERT_EQ(found->size(), 1u);
  const int64_t raw_id = found->front().id;
  auto of_object = lineage->DatasetsOfObject("ml", "c.s.clean");
  ASSERT_OK(of_object);
  ASSERT_EQ(of_object->size(), 1u);
  const int64_t clean_id = of_object->front().id;

  // raw -> etl -> clean, one edge each way however many events said so.
  auto into_jobs = lineage->EdgesOfDatasets({raw_id}, LineageRole::kInput);
  ASSERT_OK(into_jobs);
  ASSERT_EQ(into_jobs->size(), 1u);
  EXPECT_EQ(into_jobs->front().last_event_time, "2026-12-02T10:05:00Z");
  auto outputs = lineage->EdgesOfJobs({into_jobs->front().job_id}, LineageRole::kOutput);
  ASSERT_OK(outputs);
  ASSERT_EQ(outputs->size(), 1u);
  EXPECT_EQ(outputs->front().dataset_id, clean_id);
  auto none = lineage->EdgesOfDatasets({clean_id}, LineageRole::kInput);
  ASSERT_OK(none);
  EXPECT_TRUE(none->empty());

  auto jobs = lineage->GetJobs({into_jobs->front().job_id});
  ASSERT_OK(jobs);
  ASSERT_EQ(jobs->size(), 1u);
  EXPECT_EQ(jobs->front().name, "etl");
  EXPECT_EQ(jobs->front().last_state, "COMPLETE");
  EXPECT_EQ(jobs->front().last_run_id, "r1");

  auto columns = lineage->ColumnEdgesInto({clean_id});
  ASSERT_OK(columns);
  ASSERT_EQ(columns->size(), 1u);
  EXPECT_EQ(columns->front().output_field, "id");
  EXPECT_EQ(columns->front().input_dataset_id, raw_id);
  EXPECT_EQ(columns->front().input_field, "raw_id");
  EXPECT_EQ(columns->front().transformation, "IDENTITY");
}

TEST_P(StoreTest, LineageLookupsByManyIdsSpanSeveralQueries) {
  LineageStore* lineage = store_->Lineage();
  ASSERT_NE(lineage, nullptr);
  // 900 inputs of one job: more ids than one IN list holds.
  std::vector<LineageDatasetName> inputs;
  for (int i = 0; i < 900; ++i) inputs.push_back(Ds("s3://b", fmt::format("t{}", i)));
  ASSERT_OK(lineage->Append(Event("r2", "COMPLETE", "wide", inputs, {Ds("s3://b", "out")})));
  std::vector<int64_t> ids;
  for (int i = 0; i < 900; ++i) {
    auto d = lineage->FindDataset("s3://b", fmt::format("t{}", i));
    ASSERT_OK(d);
    ASSERT_EQ(d->size(), 1u);
    ids.push_back(d->front().id);
  }
  auto edges = lineage->EdgesOfDatasets(ids, LineageRole::kInput);
  ASSERT_OK(edges);
  EXPECT_EQ(edges->size(), 900u);
  auto rows = lineage->GetDatasets(ids);
  ASSERT_OK(rows);
  EXPECT_EQ(rows->size(), 900u);
}

INSTANTIATE_TEST_SUITE_P(Backends, StoreTest,
                         testing::Values(Backend::kSqliteMemory, Backend::kSqliteFile,
                                         Backend::kSqliteFileCached, Backend::kPostgres,
                                         Backend::kMysql),
                         [](const testing::TestParamInfo<Backend>& param_info) {
                           return BackendName(param_info.param);
                         });

// Two stores on one PostgreSQL database, as two replicas run: each caches path lookups, and what
// one commits reaches the other's cache through the database's notifications.
class PgReplicasTest : public testing::Test {
 protected:
  void SetUp() override {
    if (PgUrl() == nullptr) GTEST_SKIP() << "CAIRN_TEST_PG_URL is not set: SKIPPED";
    auto admin = postgres::PgConnection::Connect(PgUrl());
    ASSERT_OK(admin);
    admin_ = std::move(admin).value();
    database_ = "cairn_replicas_test_" + UniqueSuffix();
    ASSERT_OK(admin_->ExecuteScript("CREATE DATABASE " + database_));
    options_.type = "postgres";
    options_.postgres_url = WithDatabase(PgUrl(), database_);
    options_.cache_paths = true;
    options_.change_feed_heartbeat_ms = 200;
    for (auto* store : {&a_, &b_}) {
      auto opened = OpenStore(options_);
      ASSERT_OK(opened);
      *store = std::move(opened).value();
    }
    ASSERT_TRUE(WaitFor([&] { return Connected(*a_) && Connected(*b_); })) << "no change feed";
  }
  void TearDown() override {
    a_.reset();
    b_.reset();
    if (admin_) {
      EXPECT_TRUE(admin_->ExecuteScript("ALTER DATABASE " + database_ + " ALLOW_CONNECTIONS true")
                      .has_value());
      EXPECT_TRUE(admin_->ExecuteScript("DROP DATABASE IF EXISTS " + database_ + " WITH (FORCE)")
                      .has_value());
    }
  }
  static bool Connected(const MetadataStore& store) {
    const StoreStats s = store.Stats();
    return s.has_change_feed && s.change_feed_connected;
  }
  template <typename F>
  static bool WaitFor(F done, std::chrono::milliseconds limit = std::chrono::milliseconds(5000)) {
    const auto until = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < until) {
      if (done()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    return done();
  }
  std::optional<std::string> CommentOn(MetadataStore& store) {
    auto rows = store.GetPath(0, {{EntityType::kMetalake, "ml"}, {EntityType::kCatalog, "cat"}});
    EXPECT_TRUE(rows.has_value());
    if (!rows || rows->size() < 2) return std::string("<no catalog>");
    return (*rows)[1].comment;
  }
  int TerminateFeeds() {
    auto killed = admin_->Execute(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND "
        "application_name = 'cairn-change-feed'",
        {database_});
    EXPECT_TRUE(killed.has_value());
    return killed ? static_cast<int>(killed->size()) : 0;
  }

  StoreOptions options_;
  std::unique_ptr<postgres::PgConnection> admin_;
  std::string database_;
  std::unique_ptr<MetadataStore> a_;
  std::unique_ptr<MetadataStore> b_;
};

TEST_F(PgReplicasTest, AWriteOnOneReplicaReachesTheOthersCacheAtOnce) {
  const uint64_t heard = b_->Stats().changes_announced;
  EntityRecord ml = *a_->Insert(MakeRecord(EntityType::kMetalake, 0, "ml"));
  EntityRecord cat = *a_->Insert(MakeRecord(EntityType::kCatalog, ml.id, "cat"));
  // Once B has heard both inserts, its second lookup is answered from memory.
  ASSERT_TRUE(WaitFor([&] { return b_->Stats().changes_announced >= heard + 2; }));
  EXPECT_EQ(CommentOn(*b_), std::nullopt);
  const uint64_t hits = b_->Stats().path_cache_hits;
  EXPECT_EQ(CommentOn(*b_), std::nullopt);
  EXPECT_GT(b_->Stats().path_cache_hits, hits) << "the second lookup is answered from memory";

  for (int i = 0; i < 20; ++i) {
    cat.comment = fmt::format("v{}", i);
    auto swapped = a_->CompareAndSet(cat);
    ASSERT_OK(swapped);
    cat = *swapped;
    const auto written = std::chrono::steady_clock::now();
    ASSERT_TRUE(WaitFor([&] { return CommentOn(*b_) == cat.comment; }))
        << "replica B still answers " << CommentOn(*b_).value_or("null");
    // Delivered by the database, not by expiry: far inside the feed's heartbeat.
    EXPECT_LT(std::chrono::steady_clock::now() - written, std::chrono::milliseconds(1000));
  }
  ASSERT_OK(a_->Delete(cat.id));
  EXPECT_TRUE(WaitFor([&] { return CommentOn(*b_) == "<no catalog>"; }));
}

TEST_F(PgReplicasTest, SubscribersHearTheKindOfEveryChangeAndOnlyCommittedOnes) {
  std::mutex mu;
  std::vector<std::optional<EntityType>> heard;
  b_->SubscribeToChanges([&](std::optional<EntityType> kind) {
    std::lock_guard lock(mu);
    heard.push_back(kind);
  });
  auto heard_role = [&] {
    std::lock_guard lock(mu);
    return std::count(heard.begin(), heard.end(), std::optional(EntityType::kRole)) > 0;
  };
  EntityRecord ml = *a_->Insert(MakeRecord(EntityType::kMetalake, 0, "ml"));
  // A rolled-back change announces nothing.
  EXPECT_FALSE(a_->RunInTransaction([&](MetadataStore& tx) -> Status {
                   CAIRN_RETURN_IF_ERROR(tx.Insert(MakeRecord(EntityType::kRole, ml.id, "r")));
                   return Internal("roll back");
                 }).has_value());
  ASSERT_OK(a_->Insert(MakeRecord(EntityType::kUser, ml.id, "u")));
  ASSERT_TRUE(WaitFor([&] {
    std::lock_guard lock(mu);
    return std::count(heard.begin(), heard.end(), std::optional(EntityType::kUser)) > 0;
  }));
  EXPECT_FALSE(heard_role()) << "a rolled-back insert was announced";
  ASSERT_OK(a_->Insert(MakeRecord(EntityType::kRole, ml.id, "r")));
  EXPECT_TRUE(WaitFor(heard_role));
  // A change made by any writer of the database, not only by a store, is announced too.
  auto raw = postgres::PgConnection::Connect(options_.postgres_url);
  ASSERT_OK(raw);
  ASSERT_OK((*raw)->Execute("UPDATE entities SET comment = 'by hand' WHERE name = 'ml'", {}));
  EXPECT_TRUE(WaitFor([&] {
    std::lock_guard lock(mu);
    return std::count(heard.begin(), heard.end(), std::optional(EntityType::kMetalake)) > 1;
  }));
}

TEST_F(PgReplicasTest, ALostFeedBypassesTheCacheUntilItIsBackAndThenStartsAfresh) {
  EntityRecord ml = *a_->Insert(MakeRecord(EntityType::kMetalake, 0, "ml"));
  EntityRecord cat = *a_->Insert(MakeRecord(EntityType::kCatalog, ml.id, "cat"));
  EXPECT_EQ(CommentOn(*b_), std::nullopt);
  EXPECT_EQ(CommentOn(*b_), std::nullopt);  // cached on B now
  const uint64_t resyncs = b_->Stats().change_feed_resyncs;
  // Keep the feeds from coming back (the pools' open connections stay), then cut them.
  ASSERT_OK(admin_->ExecuteScript("ALTER DATABASE " + database_ + " ALLOW_CONNECTIONS false"));
  EXPECT_GE(TerminateFeeds(), 2);
  ASSERT_TRUE(WaitFor([&] { return !Connected(*b_); })) << "B never noticed its feed was gone";
  // No notification can reach B now, yet it never answers from its stale cache.
  cat.comment = "while the feed was down";
  ASSERT_OK(a_->CompareAndSet(cat));
  EXPECT_EQ(CommentOn(*b_), "while the feed was down");
  EXPECT_EQ(CommentOn(*b_), "while the feed was down");
  ASSERT_OK(admin_->ExecuteScript("ALTER DATABASE " + database_ + " ALLOW_CONNECTIONS true"));
  ASSERT_TRUE(WaitFor([&] { return Connected(*b_); })) << "B's feed never came back";
  EXPECT_GT(b_->Stats().change_feed_resyncs, resyncs);
  EXPECT_EQ(CommentOn(*b_), "while the feed was down");
}

TEST(MysqlConnectionTest, PlaceholdersBecomeQuestionMarksInTheOrderTheyAppear) {
  auto [text, order] = mysql::TranslatePlaceholders(
      "UPDATE t SET a = $2, b = '$1 stays', c = $1 WHERE d = $2 AND e = $10");
  EXPECT_EQ(text, "UPDATE t SET a = ?, b = '$1 stays', c = ? WHERE d = ? AND e = ?");
  EXPECT_EQ(order, (std::vector<size_t>{1, 0, 1, 9}));
}

TEST(MysqlConnectionTest, StoreUrlsAreTakenApartAndPasswordsNeverShown) {
  auto url = mysql::ParseMysqlUrl("mysql://cairn:p%40ss@db.example:3307/meta?socket=/tmp/m.sock");
  ASSERT_OK(url);
  EXPECT_EQ(url->user, "cairn");
  EXPECT_EQ(url->password, "p@ss");
  EXPECT_EQ(url->host, "db.example");
  EXPECT_EQ(url->port, 3307U);
  EXPECT_EQ(url->database, "meta");
  EXPECT_EQ(url->socket, "/tmp/m.sock");
  EXPECT_EQ(mysql::RedactMysqlUrl("mysql://cairn:secret@h:1/d"), "mysql://cairn:***@h:1/d");
  for (const char* bad : {"postgresql://h/d", "mysql://h:3306", "mysql://h:0/d", "mysql://h:x/d",
                          "mysql://u:secret@h/d?ssl=1"}) {
    auto parsed = mysql::ParseMysqlUrl(bad);
    ASSERT_FALSE(parsed.has_value()) << bad;
    EXPECT_EQ(parsed.error().code, ErrorCode::kInvalidArgument);
    EXPECT_NE(parsed.error().message.find("cairn.store.mysql.url"), std::string::npos);
    EXPECT_EQ(parsed.error().message.find("secret"), std::string::npos);
  }
}

TEST(OpenStoreTest, UnknownTypeNamesTheKey) {
  StoreOptions options;
  options.type = "oracle";
  auto store = OpenStore(options);
  ASSERT_EQ(CodeOf(store), ErrorCode::kInvalidArgument);
  EXPECT_NE(store.error().message.find("cairn.store.type"), std::string::npos);
}

TEST(OpenStoreTest, UnreachableMysqlIsUnavailableWithoutPassword) {
  StoreOptions options;
  options.type = "mysql";
  options.mysql_url = "mysql://cairn:s3cret@127.0.0.1:1/cairn";
  auto store = OpenStore(options);
  ASSERT_EQ(CodeOf(store), ErrorCode::kUnavailable);
  EXPECT_EQ(store.error().message.find("s3cret"), std::string::npos);
  options.mysql_url = "";
  EXPECT_EQ(CodeOf(OpenStore(options)), ErrorCode::kInvalidArgument);
}

TEST(OpenStoreTest, UnreachablePostgresIsUnavailableWithoutPassword) {
  StoreOptions options;
  options.type = "postgres";
  options.postgres_url = "postgresql://cairn:s3cret@127.0.0.1:1/cairn?connect_timeout=2";
  auto store = OpenStore(options);
  ASSERT_EQ(CodeOf(store), ErrorCode::kUnavailable);
  EXPECT_EQ(store.error().message.find("s3cret"), std::string::npos) << store.error().message;
}

TEST(OpenStoreTest, PoolExhaustionIsUnavailable) {
  StoreOptions options;
  options.sqlite_path = ":memory:";
  options.acquire_timeout_ms = 100;
  auto store = OpenStore(options);
  ASSERT_OK(store);
  MetadataStore& outer = **store;
  Status status = outer.RunInTransaction([&](MetadataStore&) -> Status {
    // Wrong on purpose: the one connection is held by this transaction.
    auto r = outer.GetById(1);
    EXPECT_EQ(CodeOf(r), ErrorCode::kUnavailable);
    return Ok();
  });
  ASSERT_OK(status);
  EXPECT_TRUE(outer.Ping());
}

TEST(LockSqliteStoreTest, ASecondHolderIsRefusedUntilTheFirstLetsGo) {
  const auto dir = std::filesystem::temp_directory_path() / ("cairn_lock_test_" + UniqueSuffix());
  const std::string path = (dir / "sub" / "cairn.db").string();
  {
    auto first = LockSqliteStore(path);  // creates the file and its parent directories
    ASSERT_OK(first);
    EXPECT_TRUE(std::filesystem::exists(path));
    auto second = LockSqliteStore(path);
    ASSERT_EQ(CodeOf(second), ErrorCode::kUnavailable);
    EXPECT_NE(second.error().message.find(path), std::string::npos) << second.error().message;
    EXPECT_NE(second.error().message.find("another cairn process"), std::string::npos);
  }
  auto again = LockSqliteStore(path);
  EXPECT_TRUE(again.has_value()) << again.error().message;
  std::filesystem::remove_all(dir);
}

TEST(RedactConnectionUrlTest, RemovesPasswords) {
  EXPECT_EQ(postgres::RedactConnectionUrl("postgresql://u:pw@h:5432/db"),
            "postgresql://u:****@h:5432/db");
  EXPECT_EQ(postgres::RedactConnectionUrl("postgresql://u@h/db"), "postgresql://u@h/db");
  EXPECT_EQ(postgres::RedactConnectionUrl("host=h password=pw dbname=db"),
            "host=h password=**** dbname=db");
  EXPECT_EQ(postgres::RedactConnectionUrl("postgresql://h/db?user=u&password=pw"),
            "postgresql://h/db?user=u&password=****");
}

}  // namespace
}  // namespace cairn::store
