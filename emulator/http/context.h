// The typed request a handler sees, and the typed result it returns. Handlers never touch Beast.
#pragma once

#include <boost/beast/http.hpp>

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "http/headers.h"
#include "stats/report.h"
#include "store/store.h"
#include "throughput/limiter.h"
#include "util/clock.h"

namespace cosmos::faults {
class Injector;
}

namespace cosmos::http {

class AadKeys;    // http/entra.h
class RbacRoles;  // http/rbac.h

namespace beast_http = boost::beast::http;
using Request = beast_http::request<beast_http::string_body>;
using Response = beast_http::response<beast_http::string_body>;

struct Config {
  std::string master_key_b64;
  std::string master_key;  // decoded bytes; also the key resource tokens are issued under
  // The account's other keys (decoded bytes; empty when not set, docs/settings.md): any master key
  // authenticates every request, a read-only key reads only (docs/protocol.md §2).
  std::string secondary_key;
  std::string readonly_key;
  std::string secondary_readonly_key;
  std::string consistency = "Session";
  size_t max_item_bytes = 2 * 1024 * 1024;
  int clock_skew_seconds = 15 * 60;
  int script_timeout_ms = 5000;                // stored procedures, triggers, each UDF call
  size_t script_memory_bytes = 512u << 20;     // what one script execution may allocate
  int query_page_timeout_ms = 5000;            // one query page; then it ends with a continuation
  size_t query_memory_bytes = 512u << 20;      // what one query request may hold (ORDER BY, GROUP BY, ...)
  bool query_indexes = true;                   // queries narrow and order their reads with path indexes
  // Threads one collecting query reads on (0: one per core); from how many items, and parts of how
  // many (query::Scope::Parallel; tests make them small).
  size_t query_threads = 0;
  size_t query_parallel_min_items = 20000;
  size_t query_parallel_part_items = 25000;
  // Where the account document sends clients; an empty part comes from the request (its scheme,
  // its Host header). Set from GATEWAY_PUBLIC_ENDPOINT or the IP override (docs/settings.md).
  std::string public_scheme, public_host, public_port;
  std::string certificate_pem;  // served at /_explorer/emulator.pem; empty when nothing serves HTTPS
  bool explorer = true;         // /_explorer/index.html
  std::string protocol = "both";  // what the gateway port serves, as /status reports it
  std::string gateway_port;       // the port the gateway listens on (the explorer port's links)
  // The port Direct mode (RNTBD over TLS) listens on, which the address feed (GET /addresses/)
  // hands out; 0: Direct mode is off, and the feed answers 400 (docs/direct-mode.md).
  uint16_t direct_port = 0;
  // The gateway's port serves RNTBD too (TLS on it and Direct mode on): the address feed names the
  // port the client reached the gateway at, the one port known to reach the emulator whatever maps
  // it (a container's published port, a public endpoint); direct_port only when this is false.
  bool direct_on_gateway_port = false;
  // Microsoft Entra ID tokens (docs/entra-id.md): the keys their signatures must verify with
  // (null: signatures are not checked) and the issuer they must name (empty: any).
  std::shared_ptr<const AadKeys> aad_keys;
  std::string aad_issuer;
  // The account's disableLocalAuth: data-plane requests signed with a key or carrying a resource
  // token answer 401 (the emulator's own endpoints still take the master key).
  bool disable_local_auth = false;
};

struct Services;

// POST /_emulator/import's answer (docs/seeding.md): its status and JSON body.
struct ImportAnswer {
  int status = 200;
  std::string body;
};
// The import endpoint, served by the seeding layer above this one (seed::Import): whoever builds
// the Services registers it (seed::ServeImport); unregistered, the path is not served.
using ImportFn = ImportAnswer (*)(Services&, std::string_view target, std::string_view body);

// Everything a handler may use besides the request.
struct Services {
  store::Account& account;
  const Config& config;
  const throughput::RateLimiter& limiter;
  stats::Report& stats;
  util::WallClock& clock;  // item timestamps, time to live, change-feed start times
  faults::Injector* faults = nullptr;  // fault-injection rules (docs/faults.md); null: none
  ImportFn import = nullptr;           // POST /_emulator/import; null: not served
  // Data-plane role definitions and assignments for Entra ID principals (docs/entra-id.md); null:
  // the default (every principal is a Data Contributor on the whole account).
  RbacRoles* rbac = nullptr;
};

// What a request asks for beyond its verb and path.
enum class Operation {
  kPlain,       // create (POST), read, replace, delete, patch, feed (GET), execute (POST to a sproc)
  kQuery,       // POST with x-ms-documentdb-isquery: true or Content-Type application/query+json
  kQueryPlan,   // POST with x-ms-cosmos-is-query-plan-request: true
  kUpsert,      // POST with x-ms-documentdb-is-upsert: true
  kBatch,       // POST with x-ms-cosmos-is-batch-request: true (x-ms-cosmos-batch-atomic not false)
  kBulk,        // POST with x-ms-cosmos-is-batch-request: true and x-ms-cosmos-batch-atomic: false
  kChangeFeed,  // GET with A-IM (Incremental feed, or the full-fidelity feed)
};

// The data action the service's role-based access control checks for an operation with an Entra
// ID token (docs/entra-id.md; names in http/rbac.h).
enum class RbacAction : uint8_t {
  kManagement,  // never served to a token: 403/5300 (databases, containers, offers, scripts, users)
  kReadMetadata,
  kCreateItem,
  kReadItem,
  kReplaceItem,
  kUpsertItem,
  kDeleteItem,
  kExecuteQuery,
  kReadChangeFeed,
  kExecuteStoredProcedure,
  kManageConflicts,
  kBatchItems,  // a batch or bulk request: each operation's item action (its body's operationType)
};

// What an operation is, for everything besides its handler that treats operations differently.
// Each row of the route table (http/routes.cpp) names its operation's facts; nothing else derives
// them from verbs, paths or headers.
struct OperationFacts {
  // Its operationType in fault rules (docs/faults.md), in the names of the SDKs' fault-injection
  // libraries: ReadItem, CreateItem, ..., MetadataContainer, Metadata.
  std::string_view fault_type = "Metadata";
  // Its name in the RU report ("create", "read", "query", ...; docs/emulator-stats.md); empty for
  // operations that reach no partition.
  std::string_view report_name = {};
  // Answered by partitions: its fault rules are matched where it is routed to them, with their
  // range ids (handlers::Admit), not before its handler runs.
  bool data_plane = false;
  // One item read or written by its key: the server may answer it on an I/O thread (it holds a
  // partition's lock for a moment), unless it must wait for the disk or runs triggers.
  bool point = false;
  // A success changes a database's metadata (its containers, scripts, users, permissions, keys,
  // offers, or the database itself): persistence records the database whole after it.
  bool changes_metadata = false;
  // What role-based access control requires of an Entra ID token for it.
  RbacAction rbac = RbacAction::kManagement;
};

// One parsed request. Header lookups are case-insensitive.
// What part of a container a request addresses, as its headers name it: read once, when its
// context is made. handlers::RouteRequest turns it into the container's partitions.
struct RequestScope {
  std::optional<std::string_view> partition_key;  // x-ms-documentdb-partitionkey, as sent (JSON)
  std::optional<std::string_view> range_id;       // x-ms-documentdb-partitionkeyrangeid
  std::optional<std::string_view> start_epk;      // x-ms-start-epk
  std::optional<std::string_view> end_epk;        // x-ms-end-epk
  // One partition key range without a key: the SDKs' per-range feeds and queries.
  bool by_range() const { return !partition_key && range_id; }
  // Narrower than the whole container (a key, a range or an EPK range).
  bool scoped() const { return partition_key || range_id || start_epk; }
};

class RequestContext {
 public:
  RequestContext(const Request& raw, std::vector<std::string> segments) : raw_(raw), segments_(std::move(segments)) {
    scope_ = {Header(headers::kPartitionKey), Header(headers::kPartitionKeyRangeId), Header(headers::kStartEpk),
              Header(headers::kEndEpk)};
  }

  const Request& raw() const { return raw_; }
  beast_http::verb verb() const { return raw_.method(); }
  const std::vector<std::string>& segments() const { return segments_; }
  // The path segment at `i` (ids are already percent-decoded).
  const std::string& seg(size_t i) const { return segments_.at(i); }
  // The route's named parameter ("db", "coll", "user", "id"), percent-decoded; resource ids given
  // as _rid links are already resolved to the resources' names. Throws when the route has none.
  const std::string& Param(std::string_view name) const;
  void SetParams(std::vector<std::pair<std::string, std::string>> params) { params_ = std::move(params); }
  // Replaces the path (a rid link resolved to names); params must be set again.
  void SetSegments(std::vector<std::string> segments) { segments_ = std::move(segments); }
  // Whether the request came over TLS.
  bool secure() const { return secure_; }
  void set_secure(bool v) { secure_ = v; }
  // It came to the SQL compute endpoint (--compute-port), which addresses every item id in a path.
  bool compute_endpoint() const { return compute_endpoint_; }
  void set_compute_endpoint(bool v) { compute_endpoint_ = v; }
  // What the request asks for (read from its headers when it was routed).
  Operation operation() const { return operation_; }
  void set_operation(Operation op) { operation_ = op; }
  // The facts of the operation its route names (defaults before it is routed).
  const OperationFacts& facts() const { return facts_; }
  void set_facts(const OperationFacts& facts) { facts_ = facts; }
  const std::string& body() const { return raw_.body(); }
  // The part of a container its headers address (views of the request's header values).
  const RequestScope& scope() const { return scope_; }
  // True once the client has gone away (closed or reset its connection) while the request runs:
  // long work (a query, a script) may stop early. The flag is the server's (null: never set).
  bool cancelled() const { return cancelled_ && cancelled_->load(std::memory_order_relaxed); }
  const std::atomic<bool>* cancel_flag() const { return cancelled_; }
  void set_cancel_flag(const std::atomic<bool>* flag) { cancelled_ = flag; }

  std::optional<std::string_view> Header(std::string_view name) const {
    auto it = raw_.find(boost::beast::string_view(name.data(), name.size()));
    if (it == raw_.end()) return std::nullopt;
    return std::string_view(it->value().data(), it->value().size());
  }
  // "true"/"True"/"TRUE" -> true; absent or anything else -> false.
  bool BoolHeader(std::string_view name) const;
  // The query string parameter `name` of the target, percent-decoded ('+' stays '+'); nullopt when
  // absent or malformed.
  std::optional<std::string> QueryParam(std::string_view name) const;

  // What the request used (container, partitions, operation), filled in by the handler once it
  // has routed the request; the pipeline charges it to the rate limiter and the RU report.
  stats::Usage usage;
  // Milliseconds the answer waits before it is sent (a ResponseDelay fault); 0: none.
  int64_t response_delay_ms = 0;

  // Holds container `c`'s partition key ranges as they are until the request has answered: a
  // split of one of them waits (store::Container::HoldLayout). Once per container.
  // The hold keeps the container too: it may be deleted meanwhile, and is unlocked before freed.
  void HoldRanges(const store::ContainerPtr& c) const {
    for (const auto& [held, lock] : range_holds_)
      if (held == c) return;
    range_holds_.emplace_back(c, c->HoldLayout());
  }

 private:
  mutable std::vector<std::pair<store::ContainerPtr, store::LayoutHold>> range_holds_;
  const Request& raw_;
  std::vector<std::string> segments_;
  std::vector<std::pair<std::string, std::string>> params_;
  bool secure_ = false;
  bool compute_endpoint_ = false;
  const std::atomic<bool>* cancelled_ = nullptr;
  Operation operation_ = Operation::kPlain;
  OperationFacts facts_;
  RequestScope scope_;
};

// What a handler produced; the pipeline adds the common headers.
struct Result {
  int status = 200;
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
  double charge = 0;
};

}  // namespace cosmos::http
