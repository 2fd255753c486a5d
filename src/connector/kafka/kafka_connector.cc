// SPDX-License-Identifier: Apache-2.0
#include "connector/kafka/kafka_connector.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <set>
#include <thread>
#include <utility>

#include <librdkafka/rdkafka.h>

#include "common/log.h"
#include "common/util.h"
#include "connector/external_rows.h"
#include "store/metadata_store.h"
#include "store/retry.h"

namespace cairn::connector {

namespace {

using store::EntityRecord;
using store::EntityType;

constexpr std::string_view kBootstrapServers = "bootstrap.servers";
constexpr std::string_view kDefaultSchema = "default";
constexpr std::string_view kDefaultSchemaComment =
    "The default schema of Kafka catalog including all topics";
// How long one call waits for the cluster: a broker that does not answer is a quick error
// naming the catalog, as a JDBC source's is.
constexpr int kRequestTimeoutMs = 5000;
// Bounds of what one request may ask of the cluster.
constexpr int64_t kMaxPartitions = 10000;
constexpr int64_t kMaxReplicationFactor = 100;
// Kafka's topic name rule.
constexpr size_t kMaxTopicNameBytes = 249;
// Catalog properties that are Cairn's or Gravitino's, never the client's.
constexpr std::string_view kAllowInsecure = "kafka.allow-insecure-credentials";
constexpr std::string_view kNotClientProperties[] = {"in-use", "gravitino.bypass.",
                                                     kAllowInsecure};
// Client properties that would make the server run a program or load code of the catalog
// creator's choosing (librdkafka runs the kinit command through a shell).
constexpr std::string_view kRefusedClientProperties[] = {
    "plugin.library.paths", "sasl.kerberos.kinit.cmd", "ssl.engine.location", "ssl.engine.id",
    "ssl.providers"};

struct HandleDeleter {
  void operator()(rd_kafka_t* rk) const {
    if (rk != nullptr) rd_kafka_destroy(rk);
  }
};
struct QueueDeleter {
  void operator()(rd_kafka_queue_t* q) const { rd_kafka_queue_destroy(q); }
};
struct EventDeleter {
  void operator()(rd_kafka_event_t* e) const { rd_kafka_event_destroy(e); }
};
struct OptionsDeleter {
  void operator()(rd_kafka_AdminOptions_t* o) const { rd_kafka_AdminOptions_destroy(o); }
};
struct MetadataDeleter {
  void operator()(const rd_kafka_metadata_t* m) const { rd_kafka_metadata_destroy(m); }
};
using Handle = std::unique_ptr<rd_kafka_t, HandleDeleter>;
using Queue = std::unique_ptr<rd_kafka_queue_t, QueueDeleter>;
using Event = std::unique_ptr<rd_kafka_event_t, EventDeleter>;
using Options = std::unique_ptr<rd_kafka_AdminOptions_t, OptionsDeleter>;
using Metadata = std::unique_ptr<const rd_kafka_metadata_t, MetadataDeleter>;

bool IsClientProperty(std::string_view key) {
  return std::none_of(std::begin(kNotClientProperties), std::end(kNotClientProperties),
                      [&](std::string_view p) { return key.starts_with(p); });
}

// The hosts of a bootstrap.servers list ("[proto://]host[:port],...", IPv6 in brackets).
std::vector<std::string> BrokerHosts(std::string_view servers) {
  std::vector<std::string> hosts;
  for (auto part : Split(servers, ',')) {
    std::string_view h = Trim(part);
    if (auto scheme = h.find("://"); scheme != std::string_view::npos) h = h.substr(scheme + 3);
    if (!h.empty() && h.front() == '[') {
      h = h.substr(1, h.find(']') - 1);
    } else if (auto colon = h.rfind(':'); colon != std::string_view::npos) {
      h = h.substr(0, colon);
    }
    if (!h.empty()) hosts.emplace_back(h);
  }
  return hosts;
}

// A catalog's client settings must not hand credentials to whoever answers: toward another
// machine, SASL runs over TLS, TLS verifies the broker's certificate and host name, and an OIDC
// token endpoint is https, unless the catalog allows otherwise.
Status CheckTransport(const model::Properties& props) {
  for (auto refused : kRefusedClientProperties) {
    if (props.contains(std::string(refused))) {
      return InvalidArgument(
          "Kafka client property '{}' is not accepted in a catalog: it runs code on the server",
          refused);
    }
  }
  CAIRN_ASSIGN_OR_RETURN(bool allow_insecure, BoolProperty(props, kAllowInsecure, false));
  if (allow_insecure) return Ok();
  auto value = [&](const char* key, const char* fallback) {
    auto it = props.find(key);
    return ToLower(Trim(it == props.end() ? std::string_view(fallback) : it->second));
  };
  const auto hosts = BrokerHosts(props.at(std::string(kBootstrapServers)));
  const bool remote = std::any_of(hosts.begin(), hosts.end(),
                                  [](const std::string& h) { return !IsLoopbackHost(h); });
  if (!remote) return Ok();
  const std::string protocol = value("security.protocol", "plaintext");
  const char* problem = nullptr;
  const char* key = nullptr;
  if (protocol == "sasl_plaintext") {
    problem = "sends SASL credentials without TLS";
    key = "security.protocol";
  } else if ((protocol == "ssl" || protocol == "sasl_ssl") &&
             value("enable.ssl.certificate.verification", "true") == "false") {
    problem = "does not verify the broker's certificate";
    key = "enable.ssl.certificate.verification";
  } else if ((protocol == "ssl" || protocol == "sasl_ssl") &&
             value("ssl.endpoint.identification.algorithm", "https") == "none") {
    problem = "does not check the broker's host name";
    key = "ssl.endpoint.identification.algorithm";
  } else if (auto url = props.find("sasl.oauthbearer.token.endpoint.url");
             url != props.end() && IsClearTextToAnotherMachine(Trim(url->second))) {
    problem = "sends the OAuth client secret without TLS";
    key = "sasl.oauthbearer.token.endpoint.url";
  }
  if (problem == nullptr) return Ok();
  return InvalidArgument(
      "Kafka client property '{}': the connection to another machine {}; use TLS that verifies "
      "the broker (security.protocol=ssl or sasl_ssl, with 'ssl.ca.location' for a private CA), "
      "or set '{}' to true",
      key, problem, kAllowInsecure);
}

// librdkafka's own log lines (a down broker is retried in the background) go to the debug log.
void LogToSpdlog(const rd_kafka_t* rk, int level, const char* fac, const char* buf) {
  spdlog::debug("event=kafka_client client={} level={} facility={} message=\"{}\"",
                rd_kafka_name(rk), level, fac, buf);
}

Status CheckTopicName(std::string_view name) {
  if (name.empty() || name.size() > kMaxTopicNameBytes || name == "." || name == "..") {
    return InvalidArgument(
        "The topic name '{}' is illegal: it must be 1 to {} characters and not '.' or '..'",
        name.substr(0, 64), kMaxTopicNameBytes);
  }
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '_' || c == '-';
    if (!ok) {
      return InvalidArgument(
          "The topic name '{}' is illegal: Kafka topic names hold only letters, digits, '.', '_' "
          "and '-'",
          name.substr(0, 64));
    }
  }
  return Ok();
}

Result<int> CountIn(std::string_view key, std::string_view text, int64_t max) {
  auto n = ParseInt64(Trim(text));
  if (!n || *n < 1 || *n > max) {
    return InvalidArgument("Property '{}' must be an integer from 1 to {}, got '{}'", key, max,
                           text);
  }
  return static_cast<int>(*n);
}

Result<int> PositiveInt(const model::Properties& props, std::string_view key, int64_t max) {
  auto it = props.find(std::string(key));
  if (it == props.end()) return -1;  // the broker's default
  return CountIn(key, it->second, max);
}

// What the cluster says about one topic.
struct Described {
  int partitions = 0;
  int replication_factor = 0;
  model::Properties configs;
  std::map<std::string, std::string> dynamic;  // the configs set on the topic itself
};

class KafkaConnector final : public Connector, public SchemaCatalog, public TopicCatalog {
 public:
  KafkaConnector(CatalogInfo info, Handle handle, std::string bootstrap,
                 store::MetadataStore* store)
      : info_(std::move(info)),
        rk_(std::move(handle)),
        bootstrap_(std::move(bootstrap)),
        store_(store),
        rows_(store, info_.catalog_id, info_.name) {
    Provide<SchemaCatalog>(this);
    Provide<TopicCatalog>(this);
  }

  Status TestConnection() override {
    CAIRN_RETURN_IF_ERROR(ListNames());
    return Ok();
  }

  // Topics live in the cluster: a dropped catalog forgets its rows, never the topics.
  Status DropAll() override {
    rows_.ForgetSchema(kDefaultSchema);
    return Ok();
  }

  // ---- schemas: the one `default` schema ----

  Result<std::vector<std::string>> ListSchemas() override {
    return std::vector<std::string>{std::string(kDefaultSchema)};
  }

  Result<model::Schema> CreateSchema(const CallContext& /*ctx*/,
                                     const model::Schema& /*schema*/) override {
    return Unsupported(
        "Kafka catalog does not support schema creation because the \"default\" schema already "
        "includes all topics");
  }

  Result<model::Schema> LoadSchema(std::string_view name) override {
    CAIRN_RETURN_IF_ERROR(CheckSchema(name));
    model::Schema out;
    out.name = std::string(kDefaultSchema);
    out.comment = std::string(kDefaultSchemaComment);
    if (auto row = rows_.TouchSchema(kDefaultSchema)) out.audit = row->audit;
    return out;
  }

  Result<model::Schema> AlterSchema(const CallContext& /*ctx*/, std::string_view name,
                                    const std::vector<model::EntityChange>& /*changes*/) override {
    CAIRN_RETURN_IF_ERROR(CheckSchema(name));
    return InvalidArgument("Cannot alter the default schema of Kafka catalog {}", info_.name);
  }

  Result<bool> DropSchema(const CallContext& /*ctx*/, std::string_view name,
                          bool /*cascade*/) override {
    if (name != kDefaultSchema) return false;
    return InvalidArgument("Cannot drop the default schema of Kafka catalog {}", info_.name);
  }

  // The default schema is the catalog's own: it never keeps the catalog from being dropped.
  Result<bool> HasSchemas() override { return false; }

  // ---- topics ----

  Result<std::vector<std::string>> ListTopics(std::string_view schema) override {
    CAIRN_RETURN_IF_ERROR(CheckSchema(schema));
    CAIRN_ASSIGN_OR_RETURN(auto names, ListNames());
    rows_.SeeObjects(EntityType::kTopic, kDefaultSchema, names, /*complete=*/true);
    return names;
  }

  Result<model::Topic> CreateTopic(const CallContext& ctx, std::string_view schema,
                                   const model::Topic& topic) override {
    CAIRN_RETURN_IF_ERROR(CheckSchema(schema));
    CAIRN_RETURN_IF_ERROR(CheckTopicName(topic.name));
    CAIRN_ASSIGN_OR_RETURN(
        int partitions,
        PositiveInt(topic.properties, model::kPartitionCountProperty, kMaxPartitions));
    CAIRN_ASSIGN_OR_RETURN(
        int replicas,
        PositiveInt(topic.properties, model::kReplicationFactorProperty, kMaxReplicationFactor));
    char errstr[512] = {0};
    rd_kafka_NewTopic_t* nt =
        rd_kafka_NewTopic_new(topic.name.c_str(), partitions, replicas, errstr, sizeof errstr);
    if (nt == nullptr) return InvalidArgument("Invalid topic {}: {}", topic.name, errstr);
    std::unique_ptr<rd_kafka_NewTopic_t, void (*)(rd_kafka_NewTopic_t*)> owned(
        nt, rd_kafka_NewTopic_destroy);
    for (const auto& [k, v] : topic.properties) {
      if (k == model::kPartitionCountProperty || k == model::kReplicationFactorProperty) continue;
      if (rd_kafka_NewTopic_set_config(nt, k.c_str(), v.c_str()) != RD_KAFKA_RESP_ERR_NO_ERROR) {
        return InvalidArgument("Invalid property '{}' for topic {}", k, topic.name);
      }
    }
    CAIRN_ASSIGN_OR_RETURN(Event ev, Request(RD_KAFKA_ADMIN_OP_CREATETOPICS, "create topic",
                                             [&](rd_kafka_t* rk, auto* o, rd_kafka_queue_t* q) {
                                               rd_kafka_CreateTopics(rk, &nt, 1, o, q);
                                             }));
    size_t n = 0;
    const rd_kafka_topic_result_t** results =
        rd_kafka_CreateTopics_result_topics(rd_kafka_event_CreateTopics_result(ev.get()), &n);
    if (n == 1) {
      CAIRN_RETURN_IF_ERROR(TopicError(rd_kafka_topic_result_error(results[0]),
                                       rd_kafka_topic_result_error_string(results[0]), topic.name,
                                       "create"));
    }
    // The topic is the caller's; its comment is Cairn's to keep.
    if (auto row = rows_.ClaimObject(EntityType::kTopic, kDefaultSchema, topic.name, ctx)) {
      if (topic.comment) SetComment(*row, topic.comment, ctx, /*modified=*/false);
    }
    // The broker answers once the controller has the topic; its metadata may lag a moment.
    for (int attempt = 0;; ++attempt) {
      auto loaded = LoadTopic(schema, topic.name);
      if (loaded || loaded.error().code != ErrorCode::kNotFound || attempt >= 40) return loaded;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }

  Result<model::Topic> LoadTopic(std::string_view schema, std::string_view name) override {
    CAIRN_RETURN_IF_ERROR(CheckSchema(schema));
    CAIRN_ASSIGN_OR_RETURN(Described d, Describe(name));
    model::Topic out;
    out.name = std::string(name);
    out.properties = std::move(d.configs);
    out.properties[std::string(model::kPartitionCountProperty)] = std::to_string(d.partitions);
    out.properties[std::string(model::kReplicationFactorProperty)] =
        std::to_string(d.replication_factor);
    if (auto row = rows_.TouchObject(EntityType::kTopic, kDefaultSchema, name)) {
      out.comment = row->comment;
      out.audit = row->audit;
    }
    return out;
  }

  Result<model::Topic> AlterTopic(const CallContext& ctx, std::string_view schema,
                                  std::string_view name,
                                  const std::vector<model::EntityChange>& changes) override {
    using Kind = model::EntityChange::Kind;
    CAIRN_RETURN_IF_ERROR(CheckSchema(schema));
    CAIRN_ASSIGN_OR_RETURN(Described d, Describe(name));
    // Everything is checked, and the configs validated by the broker, before anything changes.
    int partitions = d.partitions;
    std::map<std::string, std::string> configs = d.dynamic;
    bool configs_changed = false;
    bool comment_changed = false;
    std::optional<std::string> comment;
    for (const auto& c : changes) {
      switch (c.kind) {
        case Kind::kRename:
          return InvalidArgument("Kafka topics cannot be renamed (topic {})", name);
        case Kind::kUpdateComment:
          comment_changed = true;
          comment = c.comment;
          break;
        case Kind::kSetProperty:
          if (c.property == model::kPartitionCountProperty) {
            CAIRN_ASSIGN_OR_RETURN(int n, CountIn(c.property, c.value, kMaxPartitions));
            if (n < partitions) {
              return InvalidArgument("Cannot reduce partition count from {} to {}", partitions, n);
            }
            partitions = n;
          } else if (c.property == model::kReplicationFactorProperty) {
            return InvalidArgument("Property '{}' cannot be altered (topic {})", c.property, name);
          } else {
            configs[c.property] = c.value;
            configs_changed = true;
          }
          break;
        case Kind::kRemoveProperty:
          if (c.property == model::kPartitionCountProperty ||
              c.property == model::kReplicationFactorProperty) {
            return InvalidArgument("Cannot remove property '{}' (topic {})", c.property, name);
          }
          configs.erase(c.property);
          configs_changed = true;
          break;
      }
    }
    if (configs_changed) CAIRN_RETURN_IF_ERROR(AlterConfigs(name, configs, /*validate_only=*/true));
    if (partitions != d.partitions) CAIRN_RETURN_IF_ERROR(AddPartitions(name, partitions));
    if (configs_changed)
      CAIRN_RETURN_IF_ERROR(AlterConfigs(name, configs, /*validate_only=*/false));
    if (configs_changed || partitions != d.partitions) {
      WaitUntilShown(name, partitions, configs_changed ? &configs : nullptr);
    }
    if (auto row = rows_.TouchObject(EntityType::kTopic, kDefaultSchema, name)) {
      SetComment(*row, comment_changed ? comment : row->comment, ctx, /*modified=*/true);
    }
    return LoadTopic(schema, name);
  }

  // A KRaft broker applies a change through its metadata log, so a describe right after it may
  // still show the old state: read until the partition count and the topic's own configs show
  // the change (5 s at most), so that the answer is the topic as altered.
  void WaitUntilShown(std::string_view name, int partitions,
                      const std::map<std::string, std::string>* configs) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (std::chrono::steady_clock::now() < deadline) {
      auto d = Describe(name);
      if (!d) return;
      if (d->partitions >= partitions && (configs == nullptr || d->dynamic == *configs)) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }

  Result<bool> DropTopic(const CallContext& /*ctx*/, std::string_view schema,
                         std::string_view name) override {
    CAIRN_RETURN_IF_ERROR(CheckSchema(schema));
    const std::string topic(name);
    rd_kafka_DeleteTopic_t* dt = rd_kafka_DeleteTopic_new(topic.c_str());
    std::unique_ptr<rd_kafka_DeleteTopic_t, void (*)(rd_kafka_DeleteTopic_t*)> owned(
        dt, rd_kafka_DeleteTopic_destroy);
    CAIRN_ASSIGN_OR_RETURN(Event ev, Request(RD_KAFKA_ADMIN_OP_DELETETOPICS, "drop topic",
                                             [&](rd_kafka_t* rk, auto* o, rd_kafka_queue_t* q) {
                                               rd_kafka_DeleteTopics(rk, &dt, 1, o, q);
                                             }));
    size_t n = 0;
    const rd_kafka_topic_result_t** results =
        rd_kafka_DeleteTopics_result_topics(rd_kafka_event_DeleteTopics_result(ev.get()), &n);
    if (n == 1) {
      const rd_kafka_resp_err_t err = rd_kafka_topic_result_error(results[0]);
      if (err == RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART) {
        rows_.ForgetObject(EntityType::kTopic, kDefaultSchema, name);
        return false;
      }
      CAIRN_RETURN_IF_ERROR(
          TopicError(err, rd_kafka_topic_result_error_string(results[0]), name, "drop"));
    }
    rows_.ForgetObject(EntityType::kTopic, kDefaultSchema, name);
    return true;
  }

 private:
  Status CheckSchema(std::string_view name) const {
    if (name == kDefaultSchema) return Ok();
    return NotFound(EntityKind::kSchema, "Schema {}.{} does not exist", info_.name, name);
  }

  // The cluster could not be asked: a quick error naming the catalog and where it points.
  Error Unreachable(std::string_view what, std::string_view detail) const {
    return MakeError(ErrorCode::kConnectionFailed, EntityKind::kCatalog,
                     "Catalog {} cannot reach its Kafka cluster at {} ({}): {}", info_.name,
                     bootstrap_, what, detail);
  }

  static std::string Detail(rd_kafka_resp_err_t err, const char* text) {
    return text != nullptr && *text != '\0' ? text : rd_kafka_err2str(err);
  }

  // An error of the cluster or of reaching it, while trying to `what`.
  Error ClusterError(rd_kafka_resp_err_t err, const std::string& detail,
                     std::string_view what) const {
    switch (err) {
      case RD_KAFKA_RESP_ERR__TIMED_OUT:
      case RD_KAFKA_RESP_ERR__TRANSPORT:
      case RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN:
      case RD_KAFKA_RESP_ERR__RESOLVE:
        return Unreachable(what, detail);
      case RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED:
      case RD_KAFKA_RESP_ERR_CLUSTER_AUTHORIZATION_FAILED:
        return MakeError(ErrorCode::kPermissionDenied, EntityKind::kNone,
                         "The Kafka cluster of catalog {} refused to {}: {}", info_.name, what,
                         detail);
      default:
        return MakeError(ErrorCode::kUnavailable, EntityKind::kCatalog,
                         "The Kafka cluster of catalog {} failed to {}: {}", info_.name, what,
                         detail);
    }
  }

  Status TopicError(rd_kafka_resp_err_t err, const char* text, std::string_view topic,
                    std::string_view verb) const {
    const std::string detail = Detail(err, text);
    switch (err) {
      case RD_KAFKA_RESP_ERR_NO_ERROR:
        return Ok();
      case RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS:
        return AlreadyExists(EntityKind::kTopic, "Topic {}.{}.{} already exists", info_.name,
                             kDefaultSchema, topic);
      case RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART:
        return NotFound(EntityKind::kTopic, "Topic {}.{}.{} does not exist", info_.name,
                        kDefaultSchema, topic);
      case RD_KAFKA_RESP_ERR_INVALID_REPLICATION_FACTOR:
      case RD_KAFKA_RESP_ERR_INVALID_PARTITIONS:
      case RD_KAFKA_RESP_ERR_INVALID_CONFIG:
      case RD_KAFKA_RESP_ERR_TOPIC_EXCEPTION:
      case RD_KAFKA_RESP_ERR_INVALID_REQUEST:
      case RD_KAFKA_RESP_ERR_POLICY_VIOLATION:
      case RD_KAFKA_RESP_ERR_INVALID_REPLICA_ASSIGNMENT:
        return InvalidArgument("The Kafka cluster of catalog {} refused to {} topic {}: {}",
                               info_.name, verb, topic, detail);
      default:
        return ClusterError(err, detail, fmt::format("{} topic {}", verb, topic));
    }
  }

  Result<Options> AdminOptions(rd_kafka_admin_op_t op) const {
    Options opts(rd_kafka_AdminOptions_new(rk_.get(), op));
    char errstr[256] = {0};
    if (rd_kafka_AdminOptions_set_request_timeout(opts.get(), kRequestTimeoutMs, errstr,
                                                  sizeof errstr) != RD_KAFKA_RESP_ERR_NO_ERROR) {
      return Internal("Kafka admin options: {}", errstr);
    }
    if (op == RD_KAFKA_ADMIN_OP_CREATETOPICS || op == RD_KAFKA_ADMIN_OP_DELETETOPICS ||
        op == RD_KAFKA_ADMIN_OP_CREATEPARTITIONS) {
      // Wait for the controller to have done it, so that the next call sees it.
      if (rd_kafka_AdminOptions_set_operation_timeout(
              opts.get(), kRequestTimeoutMs, errstr, sizeof errstr) != RD_KAFKA_RESP_ERR_NO_ERROR) {
        return Internal("Kafka admin options: {}", errstr);
      }
    }
    return opts;
  }

  // The result event of one admin request; the request's own error as ClusterError.
  Result<Event> Wait(rd_kafka_queue_t* q, std::string_view what) const {
    Event ev(rd_kafka_queue_poll(q, 2 * kRequestTimeoutMs + 1000));
    if (!ev) return Unreachable(what, "no answer in time");
    const rd_kafka_resp_err_t err = rd_kafka_event_error(ev.get());
    if (err == RD_KAFKA_RESP_ERR_NO_ERROR) return ev;
    return ClusterError(err, Detail(err, rd_kafka_event_error_string(ev.get())), what);
  }

  // One admin request: `submit(handle, options, queue)` sends it; the answer is its result
  // event, or the request's own error.
  template <typename Submit>
  Result<Event> Request(rd_kafka_admin_op_t op, std::string_view what, Submit submit,
                        bool validate_only = false) const {
    CAIRN_ASSIGN_OR_RETURN(Options opts, AdminOptions(op));
    if (validate_only) {
      char errstr[256] = {0};
      rd_kafka_AdminOptions_set_validate_only(opts.get(), 1, errstr, sizeof errstr);
    }
    Queue q(rd_kafka_queue_new(rk_.get()));
    submit(rk_.get(), opts.get(), q.get());
    return Wait(q.get(), what);
  }

  // The cluster's metadata, every topic's.
  Result<Metadata> ClusterMetadata(std::string_view what) const {
    const rd_kafka_metadata_t* raw = nullptr;
    const rd_kafka_resp_err_t err =
        rd_kafka_metadata(rk_.get(), 1, nullptr, &raw, kRequestTimeoutMs);
    if (err != RD_KAFKA_RESP_ERR_NO_ERROR) return Unreachable(what, rd_kafka_err2str(err));
    return Metadata(raw);
  }

  // Every topic of the cluster but its internal ones, by name.
  Result<std::vector<std::string>> ListNames() const {
    CAIRN_ASSIGN_OR_RETURN(Metadata md, ClusterMetadata("list topics"));
    std::vector<std::string> names;
    for (int i = 0; i < md->topic_cnt; ++i) {
      const rd_kafka_metadata_topic_t& t = md->topics[i];
      if (t.err != RD_KAFKA_RESP_ERR_NO_ERROR) continue;
      std::string name = t.topic;
      if (name.starts_with("__")) continue;  // __consumer_offsets and the like
      names.push_back(std::move(name));
    }
    std::sort(names.begin(), names.end());
    return names;
  }

  // Partitions and replicas from the cluster's metadata, configs from DescribeConfigs.
  Result<Described> Describe(std::string_view name) const {
    CAIRN_ASSIGN_OR_RETURN(Metadata md, ClusterMetadata("load topic"));
    Described out;
    bool found = false;
    for (int i = 0; i < md->topic_cnt && !found; ++i) {
      const rd_kafka_metadata_topic_t& t = md->topics[i];
      if (name != t.topic || t.err != RD_KAFKA_RESP_ERR_NO_ERROR) continue;
      found = true;
      out.partitions = t.partition_cnt;
      out.replication_factor = t.partition_cnt > 0 ? t.partitions[0].replica_cnt : 0;
    }
    if (!found) {
      return NotFound(EntityKind::kTopic, "Topic {}.{}.{} does not exist", info_.name,
                      kDefaultSchema, name);
    }
    const std::string topic(name);
    rd_kafka_ConfigResource_t* cr =
        rd_kafka_ConfigResource_new(RD_KAFKA_RESOURCE_TOPIC, topic.c_str());
    std::unique_ptr<rd_kafka_ConfigResource_t, void (*)(rd_kafka_ConfigResource_t*)> owned(
        cr, rd_kafka_ConfigResource_destroy);
    CAIRN_ASSIGN_OR_RETURN(Event ev,
                           Request(RD_KAFKA_ADMIN_OP_DESCRIBECONFIGS, "describe topic configs",
                                   [&](rd_kafka_t* rk, auto* o, rd_kafka_queue_t* q) {
                                     rd_kafka_DescribeConfigs(rk, &cr, 1, o, q);
                                   }));
    size_t n = 0;
    const rd_kafka_ConfigResource_t** res = rd_kafka_DescribeConfigs_result_resources(
        rd_kafka_event_DescribeConfigs_result(ev.get()), &n);
    if (n != 1) return MakeError(ErrorCode::kUnavailable, EntityKind::kCatalog, "no configs");
    CAIRN_RETURN_IF_ERROR(TopicError(rd_kafka_ConfigResource_error(res[0]),
                                     rd_kafka_ConfigResource_error_string(res[0]), name,
                                     "describe"));
    size_t count = 0;
    const rd_kafka_ConfigEntry_t** entries = rd_kafka_ConfigResource_configs(res[0], &count);
    for (size_t i = 0; i < count; ++i) {
      const char* key = rd_kafka_ConfigEntry_name(entries[i]);
      const char* value = rd_kafka_ConfigEntry_value(entries[i]);
      if (key == nullptr || value == nullptr || rd_kafka_ConfigEntry_is_sensitive(entries[i])) {
        continue;
      }
      out.configs[key] = value;
      if (rd_kafka_ConfigEntry_source(entries[i]) == RD_KAFKA_CONFIG_SOURCE_DYNAMIC_TOPIC_CONFIG) {
        out.dynamic[key] = value;
      }
    }
    return out;
  }

  Status AddPartitions(std::string_view name, int total) const {
    const std::string topic(name);
    char errstr[256] = {0};
    rd_kafka_NewPartitions_t* np = rd_kafka_NewPartitions_new(
        topic.c_str(), static_cast<size_t>(total), errstr, sizeof errstr);
    if (np == nullptr) return InvalidArgument("Invalid partition count {}: {}", total, errstr);
    std::unique_ptr<rd_kafka_NewPartitions_t, void (*)(rd_kafka_NewPartitions_t*)> owned(
        np, rd_kafka_NewPartitions_destroy);
    CAIRN_ASSIGN_OR_RETURN(Event ev, Request(RD_KAFKA_ADMIN_OP_CREATEPARTITIONS, "add partitions",
                                             [&](rd_kafka_t* rk, auto* o, rd_kafka_queue_t* q) {
                                               rd_kafka_CreatePartitions(rk, &np, 1, o, q);
                                             }));
    size_t n = 0;
    const rd_kafka_topic_result_t** results = rd_kafka_CreatePartitions_result_topics(
        rd_kafka_event_CreatePartitions_result(ev.get()), &n);
    if (n != 1) return Ok();
    return TopicError(rd_kafka_topic_result_error(results[0]),
                      rd_kafka_topic_result_error_string(results[0]), name, "add partitions to");
  }

  // The topic's own configs become exactly `configs` (librdkafka 2.0 has no incremental alter:
  // the set is replaced, so what is left out returns to the broker's default).
  Status AlterConfigs(std::string_view name, const std::map<std::string, std::string>& configs,
                      bool validate_only) const {
    const std::string topic(name);
    rd_kafka_ConfigResource_t* cr =
        rd_kafka_ConfigResource_new(RD_KAFKA_RESOURCE_TOPIC, topic.c_str());
    std::unique_ptr<rd_kafka_ConfigResource_t, void (*)(rd_kafka_ConfigResource_t*)> owned(
        cr, rd_kafka_ConfigResource_destroy);
    for (const auto& [k, v] : configs) {
      if (rd_kafka_ConfigResource_set_config(cr, k.c_str(), v.c_str()) !=
          RD_KAFKA_RESP_ERR_NO_ERROR) {
        return InvalidArgument("Invalid property '{}' for topic {}", k, name);
      }
    }
    CAIRN_ASSIGN_OR_RETURN(Event ev, Request(
                                         RD_KAFKA_ADMIN_OP_ALTERCONFIGS, "alter topic configs",
                                         [&](rd_kafka_t* rk, auto* o, rd_kafka_queue_t* q) {
                                           rd_kafka_AlterConfigs(rk, &cr, 1, o, q);
                                         },
                                         validate_only));
    size_t n = 0;
    const rd_kafka_ConfigResource_t** res =
        rd_kafka_AlterConfigs_result_resources(rd_kafka_event_AlterConfigs_result(ev.get()), &n);
    if (n != 1) return Ok();
    return TopicError(rd_kafka_ConfigResource_error(res[0]),
                      rd_kafka_ConfigResource_error_string(res[0]), name, "alter");
  }

  // The row's comment, written with compare-and-set; a failure leaves the topic as it is (the
  // cluster holds it) and is logged.
  void SetComment(EntityRecord row, const std::optional<std::string>& comment,
                  const CallContext& ctx, bool modified) {
    if (store_ == nullptr) return;
    auto written = store::RetryOnConflict([&]() -> Result<EntityRecord> {
      row.comment = comment;
      if (modified) {
        row.audit.last_modifier = ctx.principal;
        row.audit.last_modified_time = ctx.now_ms;
      }
      auto done = store_->CompareAndSet(row);
      if (!done && done.error().code == ErrorCode::kConflict) {
        auto fresh = store_->GetById(row.id);
        if (fresh) row = std::move(*fresh);
      }
      return done;
    });
    if (!written) {
      spdlog::warn("event=topic_comment_not_written catalog={} topic={} error=\"{}\"", info_.name,
                   row.name, written.error().message);
    }
  }

  CatalogInfo info_;
  Handle rk_;
  std::string bootstrap_;
  store::MetadataStore* store_;
  ExternalRows rows_;
};

Result<std::unique_ptr<Connector>> MakeKafkaConnector(const CatalogInfo& info,
                                                      const ConnectorDeps& deps) {
  auto bootstrap = info.properties.find(std::string(kBootstrapServers));
  if (bootstrap == info.properties.end() || Trim(bootstrap->second).empty()) {
    return InvalidArgument("Property '{}' is required for a Kafka catalog", kBootstrapServers);
  }
  CAIRN_RETURN_IF_ERROR(CheckTransport(info.properties));
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  std::unique_ptr<rd_kafka_conf_t, void (*)(rd_kafka_conf_t*)> owned(conf, rd_kafka_conf_destroy);
  char errstr[512] = {0};
  auto set = [&](const std::string& k, const std::string& v) -> Status {
    switch (rd_kafka_conf_set(conf, k.c_str(), v.c_str(), errstr, sizeof errstr)) {
      case RD_KAFKA_CONF_OK:
      case RD_KAFKA_CONF_UNKNOWN:  // not a client property (a comment, a Gravitino setting)
        return Ok();
      case RD_KAFKA_CONF_INVALID:
        return InvalidArgument("Invalid Kafka client property '{}': {}", k, errstr);
    }
    return Ok();
  };
  CAIRN_RETURN_IF_ERROR(set("client.id", fmt::format("cairn-{}-{}", info.metalake, info.name)));
  CAIRN_RETURN_IF_ERROR(
      set("socket.connection.setup.timeout.ms", std::to_string(kRequestTimeoutMs)));
  // Over TLS the broker's host name is checked against its certificate, whatever the library
  // version's default; a catalog may still turn it off (see CheckTransport).
  CAIRN_RETURN_IF_ERROR(set("ssl.endpoint.identification.algorithm", "https"));
  for (const auto& [k, v] : info.properties) {
    if (IsClientProperty(k)) CAIRN_RETURN_IF_ERROR(set(k, v));
  }
  rd_kafka_conf_set_log_cb(conf, LogToSpdlog);
  rd_kafka_t* rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr, sizeof errstr);
  if (rk == nullptr) return InvalidArgument("Cannot configure the Kafka client: {}", errstr);
  owned.release();  // rd_kafka_new took the configuration
  return std::unique_ptr<Connector>(std::make_unique<KafkaConnector>(
      info, Handle(rk), std::string(Trim(bootstrap->second)), deps.store));
}

}  // namespace

void RegisterKafkaConnector(ConnectorRegistry& registry) {
  registry.Register("kafka", model::CatalogType::kMessaging, MakeKafkaConnector);
}

}  // namespace cairn::connector
