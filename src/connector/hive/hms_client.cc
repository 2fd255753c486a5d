// SPDX-License-Identifier: Apache-2.0
#include "connector/hive/hms_client.h"

#include <algorithm>
#include <optional>

#include <hms/ThriftHiveMetastore.h>
#include <thrift/TApplicationException.h>
#include <thrift/protocol/TBinaryProtocol.h>
#include <thrift/transport/TBufferTransports.h>
#include <thrift/transport/TSocket.h>
#include <thrift/transport/TTransportException.h>

#include "common/util.h"

namespace cairn::connector::hive {

namespace tt = apache::thrift::transport;
namespace tp = apache::thrift::protocol;

Result<std::vector<MetastoreUri>> ParseMetastoreUris(std::string_view text,
                                                     std::string_view property) {
  std::vector<MetastoreUri> out;
  for (const auto& part : Split(text, ',')) {
    const std::string item(Trim(part));
    if (item.empty()) continue;
    constexpr std::string_view kScheme = "thrift://";
    if (item.size() <= kScheme.size() ||
        !EqualsIgnoreCase(std::string_view(item).substr(0, kScheme.size()), kScheme)) {
      return InvalidArgument("Property '{}': '{}' is not a thrift://host:port URI", property,
                             item);
    }
    std::string authority = item.substr(kScheme.size());
    if (auto slash = authority.find('/'); slash != std::string::npos) {
      if (slash + 1 != authority.size()) {
        return InvalidArgument("Property '{}': '{}' has a path; a metastore URI is host:port",
                               property, item);
      }
      authority.resize(slash);
    }
    MetastoreUri uri;
    uri.text = item;
    std::string port;
    if (!authority.empty() && authority[0] == '[') {
      auto close = authority.find(']');
      if (close == std::string::npos) {
        return InvalidArgument("Property '{}': '{}' has a bad host", property, item);
      }
      uri.host = authority.substr(1, close - 1);
      if (close + 1 < authority.size()) {
        if (authority[close + 1] != ':') {
          return InvalidArgument("Property '{}': '{}' has a bad host", property, item);
        }
        port = authority.substr(close + 2);
      }
    } else if (auto colon = authority.rfind(':'); colon != std::string::npos) {
      uri.host = authority.substr(0, colon);
      port = authority.substr(colon + 1);
    } else {
      uri.host = authority;
    }
    if (uri.host.empty() || uri.host.find_first_of("@ \t") != std::string::npos) {
      return InvalidArgument("Property '{}': '{}' has no usable host", property, item);
    }
    if (!port.empty()) {
      auto n = ParseInt64(port);
      if (!n || *n < 1 || *n > 65535) {
        return InvalidArgument("Property '{}': '{}' has a bad port", property, item);
      }
      uri.port = static_cast<int>(*n);
    }
    out.push_back(std::move(uri));
  }
  if (out.empty()) {
    return InvalidArgument("Property '{}' is required: thrift://host:port of the metastore",
                           property);
  }
  return out;
}

Result<HmsOptions> ParseHmsOptions(const model::Properties& props, std::string_view uris_property,
                                   const ConnectorDeps& deps) {
  constexpr const char* kPoolSize = "client.pool-size";
  HmsOptions options;
  auto it = props.find(std::string(uris_property));
  CAIRN_ASSIGN_OR_RETURN(options.uris,
                         ParseMetastoreUris(it == props.end() ? "" : it->second, uris_property));
  if (auto p = props.find(kPoolSize); p != props.end()) {
    auto n = ParseInt64(Trim(p->second));
    if (!n || *n < 1 || *n > 100) {
      return InvalidArgument("Property '{}' must be an integer between 1 and 100, got '{}'",
                             kPoolSize, p->second);
    }
    options.pool_max = static_cast<int>(*n);
  }
  options.connect_timeout_ms = std::max(1, deps.jdbc_connect_timeout_s) * 1000;
  options.io_timeout_ms = std::max(1, deps.jdbc_statement_timeout_s) * 1000;
  options.pool_wait_ms = std::max(0, deps.jdbc_pool_wait_ms);
  return options;
}

Result<std::vector<hms::Table>> GetTableObjects(HmsPool& pool, const std::string& db,
                                                const std::vector<std::string>& names) {
  std::vector<hms::Table> out;
  constexpr size_t kBatch = 100;
  for (size_t i = 0; i < names.size(); i += kBatch) {
    hms::GetTablesRequest req;
    req.__set_dbName(db);
    req.__set_tblNames(std::vector<std::string>(
        names.begin() + static_cast<std::ptrdiff_t>(i),
        names.begin() + static_cast<std::ptrdiff_t>(std::min(names.size(), i + kBatch))));
    hms::GetTablesResult res;
    CAIRN_RETURN_IF_ERROR(pool.Run("get_table_objects_by_name_req", [&](HmsPool::Client& c) {
      c.get_table_objects_by_name_req(res, req);
    }));
    for (auto& t : res.tables) out.push_back(std::move(t));
  }
  return out;
}

struct HmsPool::Conn {
  std::shared_ptr<tt::TSocket> socket;
  std::shared_ptr<tt::TTransport> transport;
  std::unique_ptr<Client> client;
  const MetastoreUri* uri = nullptr;

  ~Conn() {
    try {
      if (transport) transport->close();
    } catch (...) {
      // closing a broken socket: nothing to do
    }
  }
};

HmsPool::HmsPool(HmsOptions options) : options_(std::move(options)) {}

HmsPool::~HmsPool() = default;

Result<std::unique_ptr<HmsPool::Conn>> HmsPool::Connect() {
  size_t start = 0;
  {
    std::lock_guard lock(mu_);
    start = next_uri_++;
  }
  std::string reasons;
  const auto started = std::chrono::steady_clock::now();
  for (size_t i = 0; i < options_.uris.size(); ++i) {
    const MetastoreUri& uri = options_.uris[(start + i) % options_.uris.size()];
    auto conn = std::make_unique<Conn>();
    conn->uri = &uri;
    try {
      conn->socket = std::make_shared<tt::TSocket>(uri.host, uri.port);
      conn->socket->setConnTimeout(options_.connect_timeout_ms);
      conn->socket->setRecvTimeout(options_.io_timeout_ms);
      conn->socket->setSendTimeout(options_.io_timeout_ms);
      conn->socket->setKeepAlive(true);
      conn->transport = std::make_shared<tt::TBufferedTransport>(conn->socket);
      auto protocol = std::make_shared<tp::TBinaryProtocol>(conn->transport);
      conn->client = std::make_unique<Client>(protocol);
      conn->transport->open();
      return conn;
    } catch (const std::exception& e) {
      if (!reasons.empty()) reasons += "; ";
      reasons += fmt::format("{}: {}", uri.text, e.what());
    }
  }
  // A failure that took most of the connect timeout: the metastore's host does not answer.
  if (std::chrono::steady_clock::now() - started >=
      std::chrono::milliseconds(options_.connect_timeout_ms * 8 / 10)) {
    HoldOff("the metastore did not answer the last connection attempt in time");
  }
  return MakeError(ErrorCode::kConnectionFailed, EntityKind::kNone, "no metastore answered ({})",
                   reasons);
}

void HmsPool::HoldOff(std::string reason) {
  std::lock_guard lock(mu_);
  hold_until_ = std::chrono::steady_clock::now() + std::chrono::milliseconds(options_.hold_off_ms);
  hold_reason_ = std::move(reason);
}

Result<std::unique_ptr<HmsPool::Conn>> HmsPool::Acquire() {
  {
    std::unique_lock lock(mu_);
    if (const auto now = std::chrono::steady_clock::now(); now < hold_until_) {
      return Unavailable(
          "{}; not tried again for {} ms", hold_reason_,
          std::chrono::duration_cast<std::chrono::milliseconds>(hold_until_ - now).count());
    }
    const auto deadline =
        std::chrono::steady_clock::now() + std::chrono::milliseconds(options_.pool_wait_ms);
    while (idle_.empty() && open_ >= options_.pool_max) {
      if (cv_.wait_until(lock, deadline) == std::cv_status::timeout && idle_.empty() &&
          open_ >= options_.pool_max) {
        return Unavailable("all {} metastore connections stayed busy for {} ms",
                           options_.pool_max, options_.pool_wait_ms);
      }
    }
    if (!idle_.empty()) {
      auto conn = std::move(idle_.back());
      idle_.pop_back();
      return conn;
    }
    ++open_;
  }
  auto conn = Connect();
  if (!conn) Discard();
  return conn;
}

void HmsPool::Release(std::unique_ptr<Conn> conn) {
  {
    std::lock_guard lock(mu_);
    idle_.push_back(std::move(conn));
  }
  cv_.notify_one();
}

void HmsPool::DropIdle() {
  std::vector<std::unique_ptr<Conn>> dropped;
  {
    std::lock_guard lock(mu_);
    dropped.swap(idle_);
    open_ -= static_cast<int>(dropped.size());
  }
  cv_.notify_all();
}

void HmsPool::Discard() {
  {
    std::lock_guard lock(mu_);
    --open_;
  }
  cv_.notify_one();
}

Status HmsPool::Run(std::string_view what, const std::function<void(Client&)>& fn) {
  for (int attempt = 0;; ++attempt) {
    CAIRN_ASSIGN_OR_RETURN(auto conn, Acquire());
    const std::string uri = conn->uri->text;
    // The metastore's own exceptions answer the call and leave the connection in step.
    std::optional<Error> answered;
    try {
      fn(*conn->client);
    } catch (const hms::NoSuchObjectException& e) {
      answered = MakeError(ErrorCode::kNotFound, EntityKind::kNone, "{}", e.message);
    } catch (const hms::UnknownDBException& e) {
      answered = MakeError(ErrorCode::kNotFound, EntityKind::kNone, "{}", e.message);
    } catch (const hms::AlreadyExistsException& e) {
      answered = MakeError(ErrorCode::kAlreadyExists, EntityKind::kNone, "{}", e.message);
    } catch (const hms::InvalidObjectException& e) {
      answered = InvalidArgument("{}", e.message);
    } catch (const hms::InvalidOperationException& e) {
      answered = InvalidArgument("{}", e.message);
    } catch (const hms::MetaException& e) {
      answered = InvalidArgument("{}", e.message);
    } catch (const apache::thrift::TApplicationException& e) {
      // The metastore answered but does not know the call (an older or newer version), or
      // failed inside it; the connection is out of step either way.
      conn.reset();
      Discard();
      if (e.getType() == apache::thrift::TApplicationException::UNKNOWN_METHOD) {
        return Unsupported("the metastore at {} does not serve {} ({})", uri, what, e.what());
      }
      return Unavailable("the metastore at {} failed in {}: {}", uri, what, e.what());
    } catch (const std::exception& e) {
      // Transport and protocol failures: the connection cannot be trusted any more.
      conn.reset();
      Discard();
      const auto* transport = dynamic_cast<const tt::TTransportException*>(&e);
      if (transport != nullptr && transport->getType() == tt::TTransportException::TIMED_OUT) {
        HoldOff(fmt::format("the metastore at {} did not answer {} in time", uri, what));
        return Unavailable("the metastore at {} did not answer {} within {} ms", uri, what,
                           options_.io_timeout_ms);
      }
      // A pooled connection the metastore closed meanwhile (it restarted): the other idle ones
      // went the same way, so they go too, and the call is made once more on a new one.
      DropIdle();
      if (attempt == 0) continue;
      return Unavailable("the metastore at {} did not answer {}: {}", uri, what, e.what());
    }
    Release(std::move(conn));
    if (answered) return *std::move(answered);
    return Ok();
  }
}

Status HmsPool::Ping() {
  CAIRN_ASSIGN_OR_RETURN(auto conn, Connect());
  try {
    std::vector<std::string> names;
    conn->client->get_all_databases(names);
    return Ok();
  } catch (const std::exception& e) {
    return MakeError(ErrorCode::kConnectionFailed, EntityKind::kNone,
                     "the metastore at {} did not answer: {}", conn->uri->text, e.what());
  }
}

}  // namespace cairn::connector::hive
