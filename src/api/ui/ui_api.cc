// SPDX-License-Identifier: Apache-2.0
#include "api/ui/ui_api.h"

#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "common/util.h"
#include "storage/s3_client.h"

namespace cairn::api::ui {

namespace {

// Only the server's own origin: no inline script, no third-party anything, no framing.
constexpr std::string_view kContentSecurityPolicy =
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'";

std::string EtagOf(std::string_view body) {
  return fmt::format("\"{}\"", storage::HexDigest("sha256", body).substr(0, 32));
}

void AddCommonHeaders(http::Response& r) {
  r.headers.emplace_back("Content-Security-Policy", std::string(kContentSecurityPolicy));
  r.headers.emplace_back("X-Content-Type-Options", "nosniff");
  r.headers.emplace_back("Referrer-Policy", "no-referrer");
  r.headers.emplace_back("X-Frame-Options", "DENY");
}

http::Response Plain(int status, std::string_view message) {
  http::Response r;
  r.status = status;
  r.content_type = "text/plain; charset=utf-8";
  r.body = std::string(message);
  AddCommonHeaders(r);
  return r;
}

// A path of the UI's own files: segments of letters, digits and ._- (no "..", no empty or
// dot-only segment), as the build writes them.
bool SafeRelative(std::string_view p) {
  if (p.empty() || p.size() > 512) return false;
  for (const auto& s : Split(p, '/')) {
    if (s.empty() || s == "." || s == "..") return false;
    for (char c : s) {
      const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      c == '.' || c == '_' || c == '-';
      if (!ok) return false;
    }
  }
  return true;
}

}  // namespace

std::string_view ContentTypeOf(std::string_view name) {
  const auto dot = name.rfind('.');
  const std::string ext = dot == std::string_view::npos ? "" : ToLower(name.substr(dot + 1));
  if (ext == "html") return "text/html; charset=utf-8";
  if (ext == "js" || ext == "mjs") return "text/javascript; charset=utf-8";
  if (ext == "css") return "text/css; charset=utf-8";
  if (ext == "svg") return "image/svg+xml";
  if (ext == "png") return "image/png";
  if (ext == "json" || ext == "map") return "application/json";
  if (ext == "woff2") return "font/woff2";
  if (ext == "txt") return "text/plain; charset=utf-8";
  return "application/octet-stream";
}

UiApi::UiApi(std::span<const UiFile> embedded, std::filesystem::path dir) {
  if (!dir.empty()) {
    std::error_code ec;
    dir_ = std::filesystem::weakly_canonical(dir, ec);
    if (ec) dir_ = std::move(dir);
  }
  for (const auto& f : embedded) {
    auto body = std::make_shared<const std::string>(f.body);
    files_.emplace(std::string(f.path),
                   File{std::string(ContentTypeOf(f.path)), body, EtagOf(*body)});
  }
}

std::optional<UiApi::File> UiApi::Find(const std::string& relative) const {
  if (dir_.empty()) {
    auto it = files_.find(relative);
    if (it == files_.end()) return std::nullopt;
    return it->second;
  }
  // A directory (development): read per request; the name was checked by SafeRelative, and
  // symbolic links out of the directory are not followed.
  std::error_code ec;
  const auto canonical = std::filesystem::weakly_canonical(dir_ / relative, ec);
  if (ec || canonical.string().rfind(dir_.string() + "/", 0) != 0 ||
      !std::filesystem::is_regular_file(canonical, ec)) {
    return std::nullopt;
  }
  std::ifstream in(canonical, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream s;
  s << in.rdbuf();
  auto body = std::make_shared<const std::string>(s.str());
  return File{std::string(ContentTypeOf(relative)), body, EtagOf(*body)};
}

http::Response UiApi::Handle(const http::Request& request) const {
  if (request.method != "GET" && request.method != "HEAD") {
    http::Response r = Plain(405, "Only GET and HEAD are allowed under /ui");
    r.headers.emplace_back("Allow", "GET, HEAD");
    return r;
  }
  if (request.path == "/ui") {
    http::Response r = Plain(308, "");
    r.headers.emplace_back("Location", "/ui/");
    return r;
  }
  if (dir_.empty() && files_.empty()) {
    return Plain(404, "The web UI is not part of this build (configured with -DCAIRN_UI=OFF)");
  }
  std::string relative = request.path.substr(4);  // after "/ui/"
  std::optional<File> file;
  bool immutable = false;
  if (relative.empty()) {
    relative = "index.html";
  }
  if (SafeRelative(relative)) {
    file = Find(relative);
    immutable = file && relative.starts_with("assets/");
  }
  if (!file) {
    // A deep link into the app (/ui/m/lake.v2/c/ice, names may hold dots) is the app's page;
    // a missing asset, or a top-level file name (/ui/robots.txt), is a 404.
    const bool top_level_file =
        relative.find('/') == std::string::npos && relative.find('.') != std::string::npos;
    if (relative.starts_with("assets/") || top_level_file) {
      return Plain(404, "No such file of the web UI");
    }
    file = Find("index.html");
    if (!file) return Plain(404, "No such file of the web UI");
  }
  http::Response r;
  AddCommonHeaders(r);
  r.headers.emplace_back("ETag", file->etag);
  r.headers.emplace_back("Cache-Control",
                         immutable ? "public, max-age=31536000, immutable" : "no-cache");
  if (auto inm = request.Header("If-None-Match"); inm && *inm == file->etag) {
    r.status = 304;
    r.content_type.clear();
    return r;
  }
  r.content_type = file->content_type;
  r.spliced = file->body;
  return r;
}

}  // namespace cairn::api::ui
