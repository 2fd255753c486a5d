// SPDX-License-Identifier: Apache-2.0
#include "app/rest_client.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>

#include <curl/curl.h>
#include <fmt/format.h>

#include "common/util.h"

namespace cairn::app {

namespace {

size_t OnBody(char* data, size_t size, size_t count, void* user) {
  static_cast<ClientResponse*>(user)->body.append(data, size * count);
  return size * count;
}

size_t OnHeader(char* data, size_t size, size_t count, void* user) {
  auto* response = static_cast<ClientResponse*>(user);
  const std::string_view line(data, size * count);
  if (line.rfind("HTTP/", 0) == 0) {
    response->headers.clear();  // a new status line (after a 100 Continue): a new header block
    return size * count;
  }
  const size_t colon = line.find(':');
  if (colon != std::string_view::npos) {
    response->headers[std::string(Trim(line.substr(0, colon)))] =
        std::string(Trim(line.substr(colon + 1)));
  }
  return size * count;
}

bool GlobalInit() {
  static const bool ok = curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK;
  return ok;
}

}  // namespace

struct RestClient::Handle {
  CURL* curl = nullptr;
};

RestClient::RestClient(ClientOptions options)
    : options_(std::move(options)), handle_(std::make_unique<Handle>()) {
  while (!options_.server.empty() && options_.server.back() == '/') options_.server.pop_back();
  if (GlobalInit()) handle_->curl = curl_easy_init();
}

RestClient::~RestClient() {
  if (handle_->curl != nullptr) curl_easy_cleanup(handle_->curl);
}

const ClientOptions& RestClient::options() const { return options_; }

ClientResponse RestClient::Send(std::string_view method, std::string_view path,
                                std::string_view body,
                                const std::vector<std::pair<std::string, std::string>>& headers) {
  ClientResponse response;
  CURL* h = handle_->curl;
  if (h == nullptr) {
    response.error = "cannot initialise libcurl";
    return response;
  }
  curl_easy_reset(h);  // keeps the handle's live connections
  const std::string url = options_.server + std::string(path);
  const std::string method_text(method);
  bool has_accept = false;
  bool has_content_type = false;
  curl_slist* list = nullptr;
  for (const auto& [k, v] : headers) {
    has_accept = has_accept || EqualsIgnoreCase(k, "Accept");
    has_content_type = has_content_type || EqualsIgnoreCase(k, "Content-Type");
    list = curl_slist_append(list, fmt::format("{}: {}", k, v).c_str());
  }
  if (!has_accept) {
    const bool gravitino = path.rfind("/api/", 0) == 0 || path == "/api";
    list = curl_slist_append(
        list, gravitino ? "Accept: application/vnd.gravitino.v1+json" : "Accept: application/json");
  }
  if (!body.empty() && !has_content_type) {
    list = curl_slist_append(list, "Content-Type: application/json");
  }
  if (!options_.token.empty()) {
    list = curl_slist_append(list, fmt::format("Authorization: Bearer {}", options_.token).c_str());
  }
  list = curl_slist_append(list, "Expect:");  // no 100-continue round trip
  char error_buffer[CURL_ERROR_SIZE] = {0};
  curl_easy_setopt(h, CURLOPT_URL, url.c_str());
  curl_easy_setopt(h, CURLOPT_ERRORBUFFER, error_buffer);
  curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
  curl_easy_setopt(h, CURLOPT_PATH_AS_IS, 1L);  // the path is sent as the caller encoded it
  curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, static_cast<long>(options_.timeout_ms));
  curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS,
                   static_cast<long>(std::min(options_.timeout_ms, 10000)));
  curl_easy_setopt(h, CURLOPT_USERAGENT, "cairn-cli");
  curl_easy_setopt(h, CURLOPT_HTTPHEADER, list);
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, OnBody);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, &response);
  curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, OnHeader);
  curl_easy_setopt(h, CURLOPT_HEADERDATA, &response);
  if (options_.token.empty() && !options_.user.empty()) {
    curl_easy_setopt(h, CURLOPT_HTTPAUTH, static_cast<long>(CURLAUTH_BASIC));
    curl_easy_setopt(h, CURLOPT_USERNAME, options_.user.c_str());
    curl_easy_setopt(h, CURLOPT_PASSWORD, options_.password.c_str());
  }
  if (method_text == "GET") {
    curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
  } else if (method_text == "HEAD") {
    curl_easy_setopt(h, CURLOPT_NOBODY, 1L);
  } else {
    curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, method_text.c_str());
    if (!body.empty() || method_text == "POST" || method_text == "PUT" || method_text == "PATCH") {
      curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
      curl_easy_setopt(h, CURLOPT_POSTFIELDS, body.data());
    }
  }
  const CURLcode rc = curl_easy_perform(h);
  curl_slist_free_all(list);
  if (rc != CURLE_OK) {
    response.status = 0;
    response.body.clear();
    response.headers.clear();
    if (rc == CURLE_OPERATION_TIMEDOUT) {
      response.error = fmt::format("no answer within {} ms", options_.timeout_ms);
    } else {
      response.error = error_buffer[0] != '\0' ? std::string(error_buffer) : curl_easy_strerror(rc);
    }
    return response;
  }
  long status = 0;
  curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
  response.status = static_cast<int>(status);
  return response;
}

namespace {

using FileValues = std::map<std::string, std::string>;  // key -> value of the config file

Status ReadClientConfig(const std::string& path, bool must_exist, FileValues& out) {
  std::ifstream in(path);
  if (!in) {
    if (!must_exist) return Ok();
    return InvalidArgument("cannot read config file '{}'", path);
  }
  static const char* kKeys[] = {"server", "user", "password", "token", "metalake"};
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    const std::string_view l = Trim(line);
    if (l.empty() || l.front() == '#') continue;
    const size_t eq = l.find('=');
    if (eq == std::string_view::npos) {
      return InvalidArgument("{}:{}: expected 'key = value'", path, number);
    }
    const std::string key(Trim(l.substr(0, eq)));
    bool known = false;
    for (const char* k : kKeys) known = known || key == k;
    if (!known) {
      return InvalidArgument(
          "{}:{}: unknown key '{}' (expected server, user, password, token or metalake)", path,
          number, key);
    }
    out[key] = std::string(Trim(l.substr(eq + 1)));
  }
  return Ok();
}

std::string Pick(const std::string& flag, const char* env, const FileValues& file,
                 const std::string& key) {
  if (!flag.empty()) return flag;
  if (const char* v = std::getenv(env); v != nullptr && *v != '\0') return v;
  auto it = file.find(key);
  return it == file.end() ? std::string() : it->second;
}

}  // namespace

Result<ClientSettings> ResolveClientOptions(const ClientFlags& flags) {
  FileValues file;
  if (!flags.config_file.empty()) {
    CAIRN_RETURN_IF_ERROR(ReadClientConfig(flags.config_file, true, file));
  } else if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
    CAIRN_RETURN_IF_ERROR(ReadClientConfig(std::string(home) + "/.cairn/client.conf", false, file));
  }
  ClientSettings settings;
  settings.options.server = Pick(flags.server, "CAIRN_SERVER", file, "server");
  if (settings.options.server.empty()) settings.options.server = std::string(kDefaultServer);
  settings.options.user = Pick(flags.user, "CAIRN_USER", file, "user");
  settings.options.password = Pick(flags.password, "CAIRN_PASSWORD", file, "password");
  settings.options.token = Pick(flags.token, "CAIRN_TOKEN", file, "token");
  settings.metalake = Pick(flags.metalake, "CAIRN_METALAKE", file, "metalake");
  const std::string& server = settings.options.server;
  if (server.rfind("http://", 0) != 0 && server.rfind("https://", 0) != 0) {
    return InvalidArgument("server '{}' must be an http:// or https:// URL", server);
  }
  return settings;
}

}  // namespace cairn::app
