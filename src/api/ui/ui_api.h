// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "message/message.h"

namespace cairn::api::ui {

/// One file of the built web UI (ui/, docs/ui.md): its path under /ui/ and its bytes.
struct UiFile {
  std::string_view path;  // "index.html", "assets/index-3f2a9c.js"
  std::string_view body;
};

/// Serves the web admin UI under /ui: the files compiled into the binary, or those of a
/// directory (`cairn.ui.dir`, for working on the UI). Static files only: everything the UI
/// shows it reads through /api and /iceberg as the signed-in principal, so the UI has no access
/// of its own. Answers GET and HEAD; unknown paths outside assets/ answer index.html so deep
/// links work; every answer carries a strict Content-Security-Policy.
class UiApi {
 public:
  UiApi(std::span<const UiFile> embedded, std::filesystem::path dir);

  static bool Handles(std::string_view path) { return path == "/ui" || path.starts_with("/ui/"); }
  http::Response Handle(const http::Request& request) const;

 private:
  struct File {
    std::string content_type;
    std::shared_ptr<const std::string> body;
    std::string etag;
  };
  std::optional<File> Find(const std::string& relative) const;

  std::map<std::string, File, std::less<>> files_;
  std::filesystem::path dir_;  // canonical; empty: the embedded files
};

/// The content type of a UI file by its name's extension.
std::string_view ContentTypeOf(std::string_view name);

}  // namespace cairn::api::ui
