// SPDX-License-Identifier: Apache-2.0
#include "app/cli.h"

#include <iostream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "app/cli_context.h"
#include "app/cli_output.h"
#include "common/util.h"

namespace cairn::app {

using json = nlohmann::ordered_json;

namespace cli {

namespace {

constexpr std::string_view kGlobalFooter =
    "Global options (see `cairn --help`): --server, --user, --password, --token, "
    "--config-file, --metalake, --output table|json, --timeout";

// One line for a message that may hold newlines or control characters.
std::string OneLine(std::string_view text) {
  std::string line(text);
  for (char& c : line) {
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  }
  return EscapeControl(Trim(line));
}

int ExitCodeForStatus(int status) {
  switch (status) {
    case 401:
    case 403:
      return kExitAccess;
    case 404:
      return kExitNotFound;
    case 409:
      return kExitConflict;
    default:
      return kExitServerError;
  }
}

}  // namespace

Session::Session(const Args& args, ClientSettings settings, std::string command, std::ostream& out,
                 std::ostream& err)
    : args_(args),
      settings_(std::move(settings)),
      command_(std::move(command)),
      out_(out),
      err_(err),
      client_(settings_.options) {}

int Session::Usage(std::string_view message) {
  err_ << "cairn " << command_ << ": " << OneLine(message) << "\n";
  return kExitUsage;
}

int Session::Metalake(std::string& metalake) {
  if (settings_.metalake.empty()) {
    return Usage(
        "no metalake: pass --metalake NAME, set CAIRN_METALAKE, or put `metalake = NAME` in the "
        "config file");
  }
  metalake = settings_.metalake;
  return kExitOk;
}

int Session::Names(size_t count, std::string_view shape, std::vector<std::string>& parts) {
  if (args_.name.empty()) return Usage(fmt::format("--name {} is required", shape));
  parts = Split(args_.name, '.');
  bool blank = false;
  for (const auto& p : parts) blank = blank || p.empty();
  if (parts.size() != count || blank) {
    return Usage(fmt::format("--name must be {}, got '{}'", shape, args_.name));
  }
  return kExitOk;
}

int Session::Target(size_t count, std::string_view shape, std::string& metalake,
                    std::vector<std::string>& parts) {
  if (int rc = Metalake(metalake)) return rc;
  return Names(count, shape, parts);
}

int Session::Object(const std::string& metalake, ObjectRef& object) {
  object.type = ToLower(args_.type);
  if (args_.object.empty()) {
    if (object.type == "metalake") {
      object.full_name = metalake;
      return kExitOk;
    }
    return Usage("--object is required (catalog[.schema[.table]], or --type metalake)");
  }
  const auto parts = Split(args_.object, '.');
  for (const auto& p : parts) {
    if (p.empty()) return Usage(fmt::format("--object '{}' has an empty name", args_.object));
  }
  object.full_name = args_.object;
  if (object.type.empty()) {
    static const char* kByDepth[] = {"catalog", "schema", "table", "column"};
    if (parts.size() > 4) return Usage(fmt::format("--object '{}' is too deep", args_.object));
    object.type = kByDepth[parts.size() - 1];
  }
  return kExitOk;
}

int Session::Properties(json& properties) {
  properties = json::object();
  for (const auto& item : args_.properties) {
    // `a=1,b=2` is two properties, `servers=h1:9092,h2:9092` one: a piece without `=` belongs
    // to the value before it.
    std::string key;
    for (const auto& piece : Split(item, ',')) {
      const size_t eq = piece.find('=');
      if (eq == std::string::npos || eq == 0) {
        if (key.empty()) {
          return Usage(fmt::format("--properties expects key=value, got '{}'", item));
        }
        properties[key] = properties[key].get<std::string>() + "," + piece;
        continue;
      }
      key = std::string(Trim(piece.substr(0, eq)));
      properties[key] = std::string(Trim(piece.substr(eq + 1)));
    }
  }
  return kExitOk;
}

int Session::Call(std::string_view method, const std::string& path, const json* body, json& reply) {
  const std::string text =
      body == nullptr ? std::string() : body->dump(-1, ' ', false, json::error_handler_t::replace);
  ClientResponse r = client_.Send(method, path, text);
  if (r.status == 0) {
    err_ << "cairn: cannot reach " << client_.options().server << ": " << OneLine(r.error) << "\n";
    return kExitUnreachable;
  }
  reply = Trim(r.body).empty() ? json() : json::parse(r.body, nullptr, false);
  if (r.status >= 400) {
    // Gravitino's envelope {code, type, message}; Iceberg's {error: {code, type, message}}.
    const json& envelope = Member(reply, "error").is_object() ? Member(reply, "error") : reply;
    const std::string type = CellText(Member(envelope, "type"));
    const std::string message = CellText(Member(envelope, "message"));
    std::string line = "cairn: ";
    if (!type.empty()) line += type + ": ";
    line += message.empty() ? fmt::format("the server answered HTTP {}", r.status)
                            : fmt::format("{} (HTTP {})", message, r.status);
    err_ << OneLine(line) << "\n";
    return ExitCodeForStatus(r.status);
  }
  if (reply.is_discarded()) {
    err_ << "cairn: the answer of " << client_.options().server << path << " is not JSON (HTTP "
         << r.status << ")\n";
    return kExitServerError;
  }
  return kExitOk;
}

int Session::Done(const json& reply, std::string_view message) {
  if (json_output()) {
    PrintJsonDocument(out_, reply);
  } else {
    out_ << EscapeControl(message) << "\n";
  }
  return kExitOk;
}

int Session::Deleted(const json& reply, std::string_view key, std::string_view what) {
  const json& flag = Member(reply, key);
  if (flag.is_boolean() && !flag.get<bool>()) {
    err_ << "cairn: " << OneLine(what) << " does not exist\n";
    return kExitNotFound;
  }
  return Done(reply, fmt::format("{} deleted.", what));
}

std::string ApiPath(std::initializer_list<std::string_view> segments) {
  std::string path = "/api";
  for (auto s : segments) {
    path += '/';
    path += PercentEncode(s);
  }
  return path;
}

std::string TreePath(const std::string& metalake, const std::vector<std::string>& parts,
                     std::string_view collection) {
  std::string path = ApiPath({"metalakes", metalake, "catalogs", parts.at(0)});
  if (parts.size() > 1) path += "/schemas/" + PercentEncode(parts[1]);
  if (parts.size() > 2) {
    path += "/" + std::string(collection) + "/" + PercentEncode(parts[2]);
  }
  return path;
}

std::string QueryParam(std::string_view name, std::string_view value) {
  return std::string(name) + "=" + PercentEncode(value);
}

CLI::App* CommandTree::Group(std::string_view name, std::string_view description) {
  CLI::App* group = root_.add_subcommand(std::string(name), std::string(description));
  group->require_subcommand(1);
  group->footer(std::string(kGlobalFooter));
  return group;
}

CLI::App* CommandTree::Leaf(CLI::App* parent, std::string_view name, std::string_view description,
                            Handler handler) {
  CLI::App* owner = parent == nullptr ? &root_ : parent;
  CLI::App* leaf = owner->add_subcommand(std::string(name), std::string(description));
  leaf->footer(std::string(kGlobalFooter));
  leaves_.push_back({leaf, handler});
  return leaf;
}

}  // namespace cli

struct ClientCommands::State {
  cli::Args args;
  std::unique_ptr<cli::CommandTree> tree;
};

ClientCommands::ClientCommands(CLI::App& root) : state_(std::make_unique<State>()) {
  cli::Args& a = state_->args;
  // Global options may follow the subcommand: `cairn catalog list --metalake m`.
  root.fallthrough();
  root.add_option("--server", a.flags.server,
                  "Server URL (default: $CAIRN_SERVER, the config file, else " +
                      std::string(kDefaultServer) + ")");
  root.add_option("--user", a.flags.user, "User for HTTP Basic (default: $CAIRN_USER)");
  root.add_option("--password", a.flags.password,
                  "Password for HTTP Basic (default: $CAIRN_PASSWORD)");
  root.add_option("--token", a.flags.token,
                  "Bearer token, preferred over --user (default: $CAIRN_TOKEN)");
  root.add_option("--config-file", a.flags.config_file,
                  "Client config file of `key = value` lines (default: ~/.cairn/client.conf)");
  root.add_option("-m,--metalake", a.flags.metalake, "Metalake (default: $CAIRN_METALAKE)");
  root.add_option("-o,--output", a.output, "Output: table (aligned columns) or json")
      ->check(CLI::IsMember({"table", "json"}));
  root.add_option("--timeout", a.timeout_s, "Seconds to wait for an answer (default 30)")
      ->check(CLI::Range(1, 86400));
  state_->tree = std::make_unique<cli::CommandTree>(root, a);
  cli::AddObjectCommands(*state_->tree);
  cli::AddAccessCommands(*state_->tree);
}

ClientCommands::~ClientCommands() = default;

bool ClientCommands::Chosen() const {
  for (const auto& leaf : state_->tree->leaves()) {
    if (leaf.app->parsed()) return true;
  }
  return false;
}

Result<ClientSettings> ClientCommands::Settings() const {
  CAIRN_ASSIGN_OR_RETURN(auto settings, ResolveClientOptions(state_->args.flags));
  settings.options.timeout_ms = state_->args.timeout_s * 1000;
  return settings;
}

int ClientCommands::Run() {
  for (const auto& leaf : state_->tree->leaves()) {
    if (!leaf.app->parsed()) continue;
    std::string command = leaf.app->get_name();
    for (const CLI::App* p = leaf.app->get_parent(); p != nullptr && p->get_parent() != nullptr;
         p = p->get_parent()) {
      command = p->get_name() + " " + command;
    }
    auto settings = Settings();
    if (!settings) {
      std::cerr << "cairn " << command << ": " << settings.error().message << "\n";
      return cli::kExitUsage;
    }
    cli::Session session(state_->args, std::move(*settings), command, std::cout, std::cerr);
    const int rc = leaf.handler(session);
    std::cout.flush();
    return rc;
  }
  return cli::kExitUsage;
}

}  // namespace cairn::app
