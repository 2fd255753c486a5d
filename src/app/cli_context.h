// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <initializer_list>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "app/rest_client.h"

namespace CLI {
class App;
}  // namespace CLI

namespace cairn::app::cli {

/// Exit codes of the client commands (docs/cli.md): scripts rely on them, never renumber.
inline constexpr int kExitOk = 0;
inline constexpr int kExitServerError = 1;  // the server answered an error not listed below
inline constexpr int kExitUsage = 2;        // the command line is wrong
inline constexpr int kExitNotFound = 3;     // 404
inline constexpr int kExitAccess = 4;       // 401 or 403
inline constexpr int kExitUnreachable = 5;  // no answer: connection refused, DNS, timeout
inline constexpr int kExitConflict = 6;     // 409

/// Every option a client command can take. Each command binds the ones it uses; the global
/// ones (`flags`, `output`, `timeout_s`) are bound once on the root.
struct Args {
  ClientFlags flags;
  std::string output = "table";
  int timeout_s = 30;

  std::string name;    // the entity of the command: `catalog.schema.table`, a tag's name, ...
  std::string object;  // a metadata object a command relates to (dotted full name)
  std::string type;    // catalog type (create) or metadata object type (with --object)
  std::string comment;
  std::string rename;
  std::string provider;
  std::string property;
  std::string value;
  std::string owner;
  std::string owner_type = "user";
  std::string sub_path;
  std::string location_name;
  std::string principal;
  std::string outcome;
  std::vector<std::string> properties;  // key=value, comma-separated or repeated
  std::vector<std::string> tags;
  std::vector<std::string> roles;
  std::vector<std::string> privileges;
  std::string to_user, to_group;  // grant/revoke of roles: the member
  int64_t from_ms = -1;
  int64_t to_ms = -1;
  int64_t limit = -1;
  int depth = 3;
  bool force = false;
  bool cascade = false;
  bool enable = false;
  bool disable = false;
};

/// A metadata object as the object paths of the API name it (`/objects/{type}/{fullName}`).
struct ObjectRef {
  std::string type;       // metalake, catalog, schema, table, fileset, topic, model, view, column
  std::string full_name;  // dotted, without the metalake (the metalake's own name for a metalake)
};

/// The run of one client command: its arguments, the client, where it writes.
class Session {
 public:
  Session(const Args& args, ClientSettings settings, std::string command, std::ostream& out,
          std::ostream& err);

  const Args& args() const { return args_; }
  bool json_output() const { return args_.output == "json"; }
  std::ostream& out() { return out_; }
  RestClient& client() { return client_; }

  /// Prints `cairn <command>: <message>` to stderr; returns kExitUsage.
  int Usage(std::string_view message);
  /// The metalake (--metalake, CAIRN_METALAKE or the config file) into `metalake`; a usage
  /// error when none is set.
  int Metalake(std::string& metalake);
  /// --name split at dots into exactly `count` non-empty names (`shape` names them for the
  /// message, e.g. "catalog.schema").
  int Names(size_t count, std::string_view shape, std::vector<std::string>& parts);
  /// Metalake, then Names: the metalake and the parts of --name of a command on one entity.
  int Target(size_t count, std::string_view shape, std::string& metalake,
             std::vector<std::string>& parts);
  /// --object and --type: the type defaults from the depth of the name (1 catalog, 2 schema,
  /// 3 table, 4 column); `--type metalake` without --object is the metalake itself.
  int Object(const std::string& metalake, ObjectRef& object);
  /// The --properties items as a JSON object; a usage error on an item without `=`.
  int Properties(nlohmann::ordered_json& properties);

  /// Sends one request (`body` null: none). 0 with the parsed answer in `reply` (null for an
  /// empty body), or the exit code after printing the server's error (or why no answer came)
  /// in one line on stderr.
  int Call(std::string_view method, const std::string& path, const nlohmann::ordered_json* body,
           nlohmann::ordered_json& reply);
  /// The end of a change: the server's answer with --output json, else `message`. Returns 0.
  int Done(const nlohmann::ordered_json& reply, std::string_view message);
  /// Done for a delete: when the answer's `key` (`dropped`, `deleted`, `removed`) is false, the
  /// object was not there: prints "<what> does not exist" and returns kExitNotFound.
  int Deleted(const nlohmann::ordered_json& reply, std::string_view key, std::string_view what);

 private:
  const Args& args_;
  ClientSettings settings_;
  std::string command_;
  std::ostream& out_;
  std::ostream& err_;
  RestClient client_;
};

/// `/api/` followed by the segments, each percent-encoded.
std::string ApiPath(std::initializer_list<std::string_view> segments);
/// ApiPath of the segments after `/api/metalakes/{metalake}/catalogs/{parts[0]}/schemas/...`:
/// the path of a catalog (1 part), schema (2) or an object of `collection` in a schema (3).
std::string TreePath(const std::string& metalake, const std::vector<std::string>& parts,
                     std::string_view collection = {});
/// `name=value` for a query string, the value percent-encoded.
std::string QueryParam(std::string_view name, std::string_view value);

using Handler = int (*)(Session&);

/// Where command files add their commands: `Leaf` registers the handler run when the leaf is
/// the command chosen.
class CommandTree {
 public:
  CommandTree(CLI::App& root, Args& args) : root_(root), args_(args) {}
  Args& args() { return args_; }
  /// A command with verbs under it (`cairn catalog ...`); one verb is required.
  CLI::App* Group(std::string_view name, std::string_view description);
  /// A verb under `parent` (nullptr: a command of its own, `cairn grant`) that runs `handler`.
  CLI::App* Leaf(CLI::App* parent, std::string_view name, std::string_view description,
                 Handler handler);

  struct Entry {
    CLI::App* app;
    Handler handler;
  };
  const std::vector<Entry>& leaves() const { return leaves_; }

 private:
  CLI::App& root_;
  Args& args_;
  std::vector<Entry> leaves_;
};

/// metalake, catalog, schema, table, fileset, model, topic (cli_objects.cc).
void AddObjectCommands(CommandTree& tree);
/// tag, policy, user, group, role, grant, revoke, owner, audit, lineage (cli_access.cc).
void AddAccessCommands(CommandTree& tree);

}  // namespace cairn::app::cli
