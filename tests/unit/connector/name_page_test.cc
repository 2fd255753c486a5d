// SPDX-License-Identifier: Apache-2.0
// Pages of names: PageOfNames (what a whole list gives) and TableCatalog::ListTablesAfter's
// default, which every source without a range read of its own answers with.
#include <gtest/gtest.h>

#include "connector/connector.h"

namespace cairn::connector {
namespace {

using Names = std::vector<std::string>;

TEST(NamePageTest, PagesInNameOrderAfterAName) {
  const Names names = {"delta", "alpha", "echo", "charlie", "bravo"};
  auto first = PageOfNames(names, "", 2);
  EXPECT_EQ(first.names, (Names{"alpha", "bravo"}));
  EXPECT_TRUE(first.more);
  auto second = PageOfNames(names, "bravo", 2);
  EXPECT_EQ(second.names, (Names{"charlie", "delta"}));
  EXPECT_TRUE(second.more);
  auto last = PageOfNames(names, "delta", 2);
  EXPECT_EQ(last.names, (Names{"echo"}));
  EXPECT_FALSE(last.more);
  // Exactly full: no more follow.
  EXPECT_FALSE(PageOfNames(names, "", 5).more);
  // After a name that is not there: from the next one; past the end: nothing.
  EXPECT_EQ(PageOfNames(names, "c", 1).names, (Names{"charlie"}));
  EXPECT_TRUE(PageOfNames(names, "zulu", 3).names.empty());
  EXPECT_TRUE(PageOfNames({}, "", 3).names.empty());
}

class ListedTables : public TableCatalog {
 public:
  Result<std::vector<std::string>> ListTables(std::string_view) override {
    return Names{"t3", "t1", "t2"};
  }
  Result<model::Table> CreateTable(const CallContext&, std::string_view,
                                   const model::Table& t) override {
    return t;
  }
  Result<model::Table> LoadTable(std::string_view, std::string_view) override {
    return model::Table{};
  }
  Result<model::Table> AlterTable(const CallContext&, std::string_view, std::string_view,
                                  const std::vector<model::TableChange>&) override {
    return model::Table{};
  }
  Result<bool> DropTable(const CallContext&, std::string_view, std::string_view, bool) override {
    return false;
  }
};

TEST(NamePageTest, TheDefaultRangeReadPagesTheWholeList) {
  ListedTables tables;
  auto page = tables.ListTablesAfter("s", "t1", 1);
  ASSERT_TRUE(page.has_value());
  EXPECT_EQ(page->names, (Names{"t2"}));
  EXPECT_TRUE(page->more);
}

}  // namespace
}  // namespace cairn::connector
