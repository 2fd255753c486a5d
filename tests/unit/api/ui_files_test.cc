// SPDX-License-Identifier: Apache-2.0
// The web UI's file server (/ui): what it answers for the app's pages, its assets, missing
// names, names that try to leave the UI's files, conditional requests and other methods.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "api/ui/ui_api.h"

namespace cairn::api::ui {
namespace {

const UiFile kFiles[] = {
    {"index.html", "<!doctype html><title>Cairn</title>"},
    {"assets/index-abc123.js", "console.log(1)"},
    {"favicon.svg", "<svg/>"},
};

http::Request Get(std::string path, std::string method = "GET") {
  http::Request r;
  r.method = std::move(method);
  r.path = std::move(path);
  r.target = r.path;
  return r;
}

std::string Body(const http::Response& r) {
  return r.body + (r.spliced ? *r.spliced : "") + r.body_tail;
}

std::string HeaderOf(const http::Response& r, std::string_view name) {
  for (const auto& [k, v] : r.headers) {
    if (k == name) return v;
  }
  return "";
}

TEST(UiFilesTest, ServesTheAppItsAssetsAndDeepLinks) {
  UiApi ui(kFiles, "");
  auto index = ui.Handle(Get("/ui/"));
  EXPECT_EQ(index.status, 200);
  EXPECT_EQ(index.content_type, "text/html; charset=utf-8");
  EXPECT_EQ(Body(index), "<!doctype html><title>Cairn</title>");
  EXPECT_EQ(HeaderOf(index, "Cache-Control"), "no-cache");
  EXPECT_NE(HeaderOf(index, "Content-Security-Policy").find("script-src 'self'"), std::string::npos);

  auto js = ui.Handle(Get("/ui/assets/index-abc123.js"));
  EXPECT_EQ(js.status, 200);
  EXPECT_EQ(js.content_type, "text/javascript; charset=utf-8");
  EXPECT_EQ(HeaderOf(js, "Cache-Control"), "public, max-age=31536000, immutable");
  EXPECT_EQ(ui.Handle(Get("/ui/favicon.svg")).content_type, "image/svg+xml");

  // The app's own pages are index.html, whatever their depth.
  EXPECT_EQ(Body(ui.Handle(Get("/ui/m/lake/c/cat/s/sales/table/orders"))), Body(index));
  EXPECT_EQ(Body(ui.Handle(Get("/ui/audit"))), Body(index));
  EXPECT_EQ(Body(ui.Handle(Get("/ui/m/lake.v2/c/ice.prod"))), Body(index));  // names with dots
  EXPECT_EQ(Body(ui.Handle(Get("/ui/m/my%20lake"))), Body(index));
}

TEST(UiFilesTest, MissingAndEscapingNamesAre404) {
  UiApi ui(kFiles, "");
  for (const char* path : {"/ui/assets/missing.js", "/ui/assets/../index.html",
                           "/ui/assets/%2e%2e/x.js", "/ui/.hidden", "/ui/robots.txt",
                           "/ui/favicon.ico"}) {
    auto r = ui.Handle(Get(path));
    EXPECT_EQ(r.status, 404) << path;
    EXPECT_EQ(r.spliced, nullptr) << path;
  }
  // Paths that try to leave the files answer the app's page at most, never a file outside.
  for (const char* path : {"/ui/../etc/passwd", "/ui/x/..", "/ui/a%2F..%2F..", "/ui/a//b"}) {
    auto r = ui.Handle(Get(path));
    EXPECT_TRUE(r.status == 404 || Body(r) == "<!doctype html><title>Cairn</title>") << path;
  }
}

TEST(UiFilesTest, RedirectsConditionalRequestsAndMethods) {
  UiApi ui(kFiles, "");
  auto bare = ui.Handle(Get("/ui"));
  EXPECT_EQ(bare.status, 308);
  EXPECT_EQ(HeaderOf(bare, "Location"), "/ui/");

  auto first = ui.Handle(Get("/ui/assets/index-abc123.js"));
  const std::string etag = HeaderOf(first, "ETag");
  ASSERT_FALSE(etag.empty());
  auto again = Get("/ui/assets/index-abc123.js");
  again.headers["If-None-Match"] = etag;
  auto not_modified = ui.Handle(again);
  EXPECT_EQ(not_modified.status, 304);
  EXPECT_EQ(Body(not_modified), "");

  EXPECT_EQ(ui.Handle(Get("/ui/", "HEAD")).status, 200);
  for (const char* method : {"POST", "PUT", "DELETE", "PATCH"}) {
    auto r = ui.Handle(Get("/ui/", method));
    EXPECT_EQ(r.status, 405) << method;
    EXPECT_EQ(HeaderOf(r, "Allow"), "GET, HEAD");
  }
}

TEST(UiFilesTest, ABuildWithoutTheUiSaysSo) {
  UiApi ui({}, "");
  auto r = ui.Handle(Get("/ui/"));
  EXPECT_EQ(r.status, 404);
  EXPECT_NE(Body(r).find("CAIRN_UI=OFF"), std::string::npos);
}

TEST(UiFilesTest, ADirectoryIsServedWithoutLeavingIt) {
  namespace fs = std::filesystem;
  const fs::path root = fs::temp_directory_path() / ("cairn-ui-test-" + std::to_string(::getpid()));
  fs::remove_all(root);
  fs::create_directories(root / "dist" / "assets");
  std::ofstream(root / "dist" / "index.html") << "dev index";
  std::ofstream(root / "dist" / "assets" / "app.js") << "dev js";
  std::ofstream(root / "secret.txt") << "not for the web";
  fs::create_symlink(root / "secret.txt", root / "dist" / "assets" / "leak.js");

  UiApi ui({}, root / "dist");
  EXPECT_EQ(Body(ui.Handle(Get("/ui/"))), "dev index");
  EXPECT_EQ(Body(ui.Handle(Get("/ui/assets/app.js"))), "dev js");
  // Edited files are served as they are now (no cache in directory mode).
  std::ofstream(root / "dist" / "assets" / "app.js") << "changed";
  EXPECT_EQ(Body(ui.Handle(Get("/ui/assets/app.js"))), "changed");
  // A link out of the directory, or a path up from it, reaches nothing.
  EXPECT_EQ(ui.Handle(Get("/ui/assets/leak.js")).status, 404);
  for (const char* path : {"/ui/../secret.txt", "/ui/assets/../../secret.txt", "/ui/x/../../secret.txt"}) {
    auto r = ui.Handle(Get(path));
    EXPECT_NE(Body(r), "not for the web") << path;
    EXPECT_TRUE(r.status == 404 || Body(r) == "dev index") << path;
  }
  fs::remove_all(root);
}

TEST(UiFilesTest, ContentTypesByExtension) {
  EXPECT_EQ(ContentTypeOf("a.css"), "text/css; charset=utf-8");
  EXPECT_EQ(ContentTypeOf("a.MJS"), "text/javascript; charset=utf-8");
  EXPECT_EQ(ContentTypeOf("a.woff2"), "font/woff2");
  EXPECT_EQ(ContentTypeOf("noext"), "application/octet-stream");
}

}  // namespace
}  // namespace cairn::api::ui
