// SPDX-License-Identifier: Apache-2.0
// jdbc catalogs: property validation, the connection pool, in-memory table changes.
#include "connector/jdbc/jdbc_connector.h"

#include <atomic>
#include <fstream>
#include <thread>

#include <gtest/gtest.h>

#include "connector/jdbc/jdbc_dialect.h"

namespace cairn::connector::jdbc {
namespace {

model::Properties PgProps() {
  return {{"jdbc-url", "jdbc:postgresql://db.example:6543/sales?sslmode=verify-full"},
          {"jdbc-user", "u"},
          {"jdbc-password", "p"},
          {"jdbc-database", "sales"},
          {"jdbc-driver", "org.postgresql.Driver"}};
}

void ExpectBad(Flavor flavor, const model::Properties& props, const std::string& names) {
  auto r = ParseJdbcProperties(flavor, props);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, ErrorCode::kInvalidArgument);
  EXPECT_NE(r.error().message.find(names), std::string::npos) << r.error().message;
}

TEST(JdbcProperties, PostgresSettings) {
  auto s = ParseJdbcProperties(Flavor::kPostgres, PgProps());
  ASSERT_TRUE(s.has_value()) << s.error().message;
  EXPECT_EQ(s->connect.host, "db.example");
  EXPECT_EQ(s->connect.port, 6543);
  EXPECT_EQ(s->connect.database, "sales");
  EXPECT_EQ(s->connect.user, "u");
  EXPECT_EQ(s->connect.password, "p");
  EXPECT_EQ(s->connect.tls, TlsMode::kVerifyFull);
  EXPECT_EQ(s->url, "jdbc:postgresql://db.example:6543/sales");
  EXPECT_EQ(s->pool_min, 2);
  EXPECT_EQ(s->pool_max, 10);
}

TEST(JdbcProperties, MysqlSettings) {
  auto s = ParseJdbcProperties(Flavor::kMysql, {{"jdbc-url", "jdbc:mysql://[::1]"},
                                                {"jdbc-user", "u"},
                                                {"jdbc-password", ""},
                                                {"jdbc.pool.min-size", "0"},
                                                {"jdbc.pool.max-size", "3"}});
  ASSERT_TRUE(s.has_value()) << s.error().message;
  EXPECT_EQ(s->connect.host, "::1");
  EXPECT_EQ(s->connect.port, 3306);
  EXPECT_EQ(s->pool_min, 0);
  EXPECT_EQ(s->pool_max, 3);
  EXPECT_TRUE(ParseJdbcProperties(Flavor::kMysql, {{"jdbc-url", "jdbc:mariadb://h:1/x"},
                                                   {"jdbc-user", "u"},
                                                   {"jdbc-password", "p"}})
                  .has_value());
}

TEST(JdbcProperties, BadOrMissingPropertiesAreNamed) {
  auto props = PgProps();
  props.erase("jdbc-url");
  ExpectBad(Flavor::kPostgres, props, "jdbc-url");
  props = PgProps();
  props.erase("jdbc-user");
  ExpectBad(Flavor::kPostgres, props, "jdbc-user");
  props = PgProps();
  props.erase("jdbc-password");
  ExpectBad(Flavor::kPostgres, props, "jdbc-password");
  props = PgProps();
  props.erase("jdbc-database");
  ExpectBad(Flavor::kPostgres, props, "jdbc-database");
  props = PgProps();
  props["jdbc-database"] = "other";
  ExpectBad(Flavor::kPostgres, props, "jdbc-database");
  props = PgProps();
  props["jdbc-url"] = "jdbc:mysql://h/sales";
  ExpectBad(Flavor::kPostgres, props, "jdbc-url");
  props["jdbc-url"] = "jdbc:postgresql://h:0/sales";
  ExpectBad(Flavor::kPostgres, props, "port");
  props["jdbc-url"] = "jdbc:postgresql://h/sales?password=x";
  ExpectBad(Flavor::kPostgres, props, "jdbc-password");
  props = PgProps();
  props["jdbc.pool.max-size"] = "many";
  ExpectBad(Flavor::kPostgres, props, "jdbc.pool.max-size");
  props["jdbc.pool.max-size"] = "2";
  props["jdbc.pool.min-size"] = "3";
  ExpectBad(Flavor::kPostgres, props, "jdbc.pool.min-size");
}

// ---- TLS toward the source ----

TlsMode ModeOf(Flavor flavor, const model::Properties& props) {
  auto s = ParseJdbcProperties(flavor, props);
  EXPECT_TRUE(s.has_value()) << s.error().message;
  return s ? s->connect.tls : TlsMode::kSourceDefault;
}

model::Properties MyProps(const std::string& url) {
  return {{"jdbc-url", url}, {"jdbc-user", "u"}, {"jdbc-password", "p"}};
}

TEST(JdbcTls, AnotherMachineIsVerifiedByDefaultThisOneIsLeftToTheLibrary) {
  auto props = PgProps();
  props["jdbc-url"] = "jdbc:postgresql://db.example:6543/sales";
  EXPECT_EQ(ModeOf(Flavor::kPostgres, props), TlsMode::kVerifyFull);
  props["jdbc-url"] = "jdbc:postgresql://127.0.0.1:6543/sales";
  EXPECT_EQ(ModeOf(Flavor::kPostgres, props), TlsMode::kSourceDefault);
  EXPECT_EQ(ModeOf(Flavor::kMysql, MyProps("jdbc:mysql://db.example:3306")), TlsMode::kVerifyFull);
  EXPECT_EQ(ModeOf(Flavor::kMysql, MyProps("jdbc:mysql://localhost:3306")),
            TlsMode::kSourceDefault);
  // A name that only starts like a loopback address is another machine.
  EXPECT_EQ(ModeOf(Flavor::kMysql, MyProps("jdbc:mysql://127.0.0.1.example.com")),
            TlsMode::kVerifyFull);
}

TEST(JdbcTls, ModesOfBothUrlDialectsAreRead) {
  auto props = PgProps();
  props["jdbc-url"] = "jdbc:postgresql://127.0.0.1/sales?sslmode=require";
  EXPECT_EQ(ModeOf(Flavor::kPostgres, props), TlsMode::kRequire);
  props["jdbc-url"] = "jdbc:postgresql://127.0.0.1/sales?sslmode=verify-ca";
  EXPECT_EQ(ModeOf(Flavor::kPostgres, props), TlsMode::kVerifyCa);
  EXPECT_EQ(ModeOf(Flavor::kMysql, MyProps("jdbc:mysql://h/db?sslMode=VERIFY_IDENTITY")),
            TlsMode::kVerifyFull);
  EXPECT_EQ(ModeOf(Flavor::kMysql, MyProps("jdbc:mariadb://h/db?sslMode=verify-ca")),
            TlsMode::kVerifyCa);
  EXPECT_EQ(ModeOf(Flavor::kMysql, MyProps("jdbc:mysql://127.0.0.1/db?useSSL=true")),
            TlsMode::kRequire);
  EXPECT_EQ(ModeOf(Flavor::kMysql, MyProps("jdbc:mysql://127.0.0.1/db?sslMode=DISABLED")),
            TlsMode::kDisable);
  props["jdbc-url"] = "jdbc:postgresql://127.0.0.1/sales?sslmode=verify";
  ExpectBad(Flavor::kPostgres, props, "verify-full");
  ExpectBad(Flavor::kMysql, MyProps("jdbc:mysql://h/db?useSSL=yes"), "useSSL");
}

TEST(JdbcTls, UnverifiedConnectionsToAnotherMachineNeedTheCatalogsConsent) {
  auto props = PgProps();
  for (const char* mode : {"disable", "allow", "prefer", "require"}) {
    props["jdbc-url"] = std::string("jdbc:postgresql://db.example/sales?sslmode=") + mode;
    ExpectBad(Flavor::kPostgres, props, "jdbc-allow-insecure-credentials");
  }
  ExpectBad(Flavor::kMysql, MyProps("jdbc:mysql://db.example?sslMode=REQUIRED"),
            "jdbc-allow-insecure-credentials");
  props["jdbc-allow-insecure-credentials"] = "true";
  EXPECT_EQ(ModeOf(Flavor::kPostgres, props), TlsMode::kRequire);
  props["jdbc-allow-insecure-credentials"] = "perhaps";
  ExpectBad(Flavor::kPostgres, props, "jdbc-allow-insecure-credentials");
}

TEST(JdbcTls, ACaFileMeansVerifyEvenOnThisMachine) {
  const std::string ca = ::testing::TempDir() + "/jdbc-tls-test-ca.pem";
  { std::ofstream(ca) << "-----BEGIN CERTIFICATE-----\n"; }
  auto props = PgProps();
  props["jdbc-url"] = "jdbc:postgresql://127.0.0.1/sales";
  props["jdbc-tls-ca-file"] = ca;
  auto s = ParseJdbcProperties(Flavor::kPostgres, props);
  ASSERT_TRUE(s.has_value()) << s.error().message;
  EXPECT_EQ(s->connect.tls, TlsMode::kVerifyFull);
  EXPECT_EQ(TrustedCaFile(s->connect), ca);
  // pgJDBC's sslrootcert in the URL is the same setting; two different files are an error.
  props.erase("jdbc-tls-ca-file");
  props["jdbc-url"] = "jdbc:postgresql://127.0.0.1/sales?sslmode=verify-ca&sslrootcert=" + ca;
  s = ParseJdbcProperties(Flavor::kPostgres, props);
  ASSERT_TRUE(s.has_value()) << s.error().message;
  EXPECT_EQ(s->connect.tls_ca_file, ca);
  props["jdbc-tls-ca-file"] = ca + ".other";
  ExpectBad(Flavor::kPostgres, props, "disagree");
  props = PgProps();
  props["jdbc-tls-ca-file"] = "/no/such/ca.pem";
  ExpectBad(Flavor::kPostgres, props, "jdbc-tls-ca-file");
  // Without one, a verifying mode trusts the system's bundle.
  s = ParseJdbcProperties(Flavor::kPostgres, PgProps());
  ASSERT_TRUE(s.has_value());
  EXPECT_FALSE(TrustedCaFile(s->connect).empty());
}

// ---- pool ----

class FakeSession : public Session {
 public:
  explicit FakeSession(std::atomic<int>* open) : open_(open) { ++*open_; }
  ~FakeSession() override { --*open_; }
  Result<Rows> Query(const std::string&) override { return Rows{}; }
  bool Broken() const override { return broken; }
  bool TimedOut() const override { return timed_out; }
  bool Ping() override { return !broken; }
  bool broken = false;
  bool timed_out = false;

 private:
  std::atomic<int>* open_;
};

TEST(SessionPool, ReusesConnectionsAndBoundsThem) {
  std::atomic<int> open{0};
  std::atomic<int> made{0};
  SessionPool::Options o;
  o.min_size = 1;
  o.max_size = 2;
  o.wait = std::chrono::milliseconds(100);
  SessionPool pool(
      [&]() -> Result<std::unique_ptr<Session>> {
        ++made;
        return std::unique_ptr<Session>(std::make_unique<FakeSession>(&open));
      },
      o);
  {
    auto a = pool.Acquire();
    ASSERT_TRUE(a.has_value());
  }
  {
    auto a = pool.Acquire();
    ASSERT_TRUE(a.has_value());
  }
  EXPECT_EQ(made, 1);  // the idle connection was reused
  auto a = pool.Acquire();
  auto b = pool.Acquire();
  ASSERT_TRUE(a.has_value() && b.has_value());
  EXPECT_EQ(open, 2);
  const auto start = std::chrono::steady_clock::now();
  auto c = pool.Acquire();
  ASSERT_FALSE(c.has_value());
  EXPECT_EQ(c.error().code, ErrorCode::kUnavailable);
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(90));

  // a connection given back wakes a waiter
  std::thread giver([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    auto dropped = std::move(*a);
  });
  auto d = pool.Acquire();
  giver.join();
  EXPECT_TRUE(d.has_value());
  EXPECT_EQ(made, 2);
}

TEST(SessionPool, BrokenConnectionsAreClosedAndConnectErrorsPassThrough) {
  std::atomic<int> open{0};
  bool fail = false;
  SessionPool::Options o;
  o.max_size = 1;
  SessionPool pool(
      [&]() -> Result<std::unique_ptr<Session>> {
        if (fail) return MakeError(ErrorCode::kConnectionFailed, EntityKind::kCatalog, "down");
        return std::unique_ptr<Session>(std::make_unique<FakeSession>(&open));
      },
      o);
  {
    auto a = pool.Acquire();
    ASSERT_TRUE(a.has_value());
    static_cast<FakeSession&>(**a).broken = true;
  }
  EXPECT_EQ(open, 0);
  EXPECT_EQ(pool.open_count(), 0);
  fail = true;
  auto b = pool.Acquire();
  ASSERT_FALSE(b.has_value());
  EXPECT_EQ(b.error().code, ErrorCode::kConnectionFailed);
  EXPECT_EQ(pool.open_count(), 0);  // a failed connect does not use up a slot
}

TEST(SessionPool, AHangingSourceIsNotTriedAgainForAWhile) {
  std::atomic<int> open{0};
  std::atomic<int> made{0};
  SessionPool::Options o;
  o.max_size = 3;
  o.hold_off = std::chrono::milliseconds(200);
  SessionPool pool(
      [&]() -> Result<std::unique_ptr<Session>> {
        ++made;
        return std::unique_ptr<Session>(std::make_unique<FakeSession>(&open));
      },
      o);
  {
    auto idle = pool.Acquire();
    auto hung = pool.Acquire();
    ASSERT_TRUE(idle.has_value() && hung.has_value());
    static_cast<FakeSession&>(**hung).broken = true;
    static_cast<FakeSession&>(**hung).timed_out = true;
  }
  EXPECT_EQ(open, 0);  // the idle one to the same source went too
  auto r = pool.Acquire();
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, ErrorCode::kUnavailable);
  EXPECT_NE(r.error().message.find("did not answer"), std::string::npos);
  EXPECT_EQ(made, 2);
  std::this_thread::sleep_for(std::chrono::milliseconds(250));
  EXPECT_TRUE(pool.Acquire().has_value());
}

TEST(SessionPool, ASlowFailedConnectHoldsOff) {
  SessionPool::Options o;
  o.slow_connect = std::chrono::milliseconds(50);
  o.hold_off = std::chrono::milliseconds(10000);
  int attempts = 0;
  SessionPool pool(
      [&]() -> Result<std::unique_ptr<Session>> {
        ++attempts;
        std::this_thread::sleep_for(std::chrono::milliseconds(60));
        return MakeError(ErrorCode::kConnectionFailed, EntityKind::kCatalog, "timeout expired");
      },
      o);
  EXPECT_EQ(pool.Acquire().error().code, ErrorCode::kConnectionFailed);
  EXPECT_EQ(pool.Acquire().error().code, ErrorCode::kUnavailable);
  EXPECT_EQ(attempts, 1);
}

// ---- in-memory changes ----

model::Table Sample() {
  model::Table t;
  t.name = "t";
  for (const char* n : {"a", "b", "c"}) {
    model::Column c;
    c.name = n;
    c.type = model::MakePrimitive(model::TypeKind::kInteger);
    t.columns.push_back(c);
  }
  t.indexes.push_back(model::Index{"PRIMARY_KEY", std::string("pk"), {{"a"}}, {}});
  return t;
}

std::vector<std::string> Names(const model::Table& t) {
  std::vector<std::string> out;
  for (const auto& c : t.columns) out.push_back(c.name);
  return out;
}

TEST(ApplyChange, FollowsColumnChanges) {
  using K = model::TableChange::Kind;
  auto t = Sample();
  model::TableChange c;
  c.kind = K::kRenameColumn;
  c.field_name = {"a"};
  c.new_name = "x";
  ASSERT_TRUE(ApplyChange(t, c).has_value());
  EXPECT_EQ(t.indexes[0].field_names[0][0], "x");
  c = {};
  c.kind = K::kUpdateColumnPosition;
  c.field_name = {"c"};
  c.position.kind = model::ColumnPosition::Kind::kFirst;
  ASSERT_TRUE(ApplyChange(t, c).has_value());
  EXPECT_EQ(Names(t), (std::vector<std::string>{"c", "x", "b"}));
  c = {};
  c.kind = K::kDeleteColumn;
  c.field_name = {"nope"};
  EXPECT_FALSE(ApplyChange(t, c).has_value());
  c.if_exists = true;
  EXPECT_TRUE(ApplyChange(t, c).has_value());
  c = {};
  c.kind = K::kAddColumn;
  c.field_name = {"n", "nested"};
  EXPECT_EQ(ApplyChange(t, c).error().code, ErrorCode::kInvalidArgument);
  c.field_name = {"d"};
  c.type = model::MakePrimitive(model::TypeKind::kLong);
  c.position.kind = model::ColumnPosition::Kind::kAfter;
  c.position.after = "c";
  ASSERT_TRUE(ApplyChange(t, c).has_value());
  EXPECT_EQ(Names(t), (std::vector<std::string>{"c", "d", "x", "b"}));
}

}  // namespace
}  // namespace cairn::connector::jdbc
