// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <memory>

#include "app/rest_client.h"
#include "common/result.h"

namespace CLI {
class App;
}  // namespace CLI

namespace cairn::app {

/// The client commands of `cairn` (docs/cli.md): the global options (--server, credentials,
/// --metalake, --output) on `root`, and one command per kind of object (`cairn catalog list`,
/// `cairn table details`, ...) that speaks the REST API of a running server. Subcommands added
/// to `root` after this object is made accept the global options after their own name too.
class ClientCommands {
 public:
  explicit ClientCommands(CLI::App& root);
  ~ClientCommands();
  ClientCommands(const ClientCommands&) = delete;
  ClientCommands& operator=(const ClientCommands&) = delete;

  /// Whether the parsed command line chose one of the client commands.
  bool Chosen() const;
  /// Runs the chosen command; returns the process exit code (docs/cli.md#exit-codes).
  int Run();
  /// The connection the global options, the environment and the config file describe.
  Result<ClientSettings> Settings() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace cairn::app
