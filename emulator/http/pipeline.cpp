#include "http/pipeline.h"

#ifdef __GLIBC__
#include <malloc.h>
#endif

#include <algorithm>
#include <chrono>
#include <optional>
#include <string>
#include <string_view>

#include "http/headers.h"
#include "common/errors.h"
#include "common/well_known_key.h"
#include "faults/faults.h"
#include "handlers/handlers.h"
#include "http/auth.h"
#include "http/emulator_pages.h"
#include "http/inject.h"
#include "http/rbac.h"
#include "http/rid_links.h"
#include "http/routes.h"
#include "json/json.h"
#include "server/server.h"
#include "util/util.h"

namespace cosmos::http {
namespace {

constexpr std::string_view kHealthPath = "/_health";
constexpr std::string_view kStatsPath = "/_emulator/stats";
constexpr std::string_view kClockPath = "/_emulator/clock";
constexpr std::string_view kImportPath = "/_emulator/import";
constexpr std::string_view kContainersPath = "/_emulator/containers/";
constexpr std::string_view kFaultsPath = "/_emulator/faults";
constexpr std::string_view kRbacPath = "/_emulator/rbac";
// The furthest one POST may move the clock: ten years.
constexpr int64_t kMaxAdvanceMs = int64_t{10} * 366 * 24 * 3600 * 1000;
// The furthest all POSTs together may move it from where it started: a hundred years (the
// service's dates, item _ts and TTL arithmetic all stay far from overflowing).
constexpr int64_t kMaxOffsetMs = int64_t{100} * 366 * 24 * 3600 * 1000;

// Consistency levels from weakest to strongest; a request may only weaken the account's.
int ConsistencyRank(std::string_view level) {
  if (util::EqualsIgnoreCase(level, "Eventual")) return 0;
  if (util::EqualsIgnoreCase(level, "ConsistentPrefix")) return 1;
  if (util::EqualsIgnoreCase(level, "Session")) return 2;
  if (util::EqualsIgnoreCase(level, "BoundedStaleness")) return 3;
  if (util::EqualsIgnoreCase(level, "Strong")) return 4;
  return -1;
}

void CheckConsistency(const RequestContext& ctx, const Config& config) {
  auto h = ctx.Header(headers::kConsistencyLevel);
  if (!h) return;
  int rank = ConsistencyRank(*h);
  if (rank < 0) throw CosmosError(400, 0, "BadRequest", "Invalid value '" + std::string(*h) + "' for the x-ms-consistency-level header.");
  if (rank > ConsistencyRank(config.consistency))
    throw CosmosError(400, 0, "BadRequest",
                      "ConsistencyLevel " + std::string(*h) +
                          " specified in the request is invalid when service is configured with consistency level " +
                          config.consistency +
                          ". Ensure the request consistency level is not stronger than the service consistency "
                          "level.");
}

void CommonHeaders(Response& res, const std::string& activity_id, double charge) {
  res.set(beast_http::field::server, "cosmos-emulator");
  res.set(headers::kActivityId, activity_id);
  res.set(headers::kRequestCharge, json::FormatNumber(charge));
  res.set(beast_http::field::date, util::FormatRfc1123(std::chrono::system_clock::now()));
}

// The URL the request addressed (scheme, Host and path as sent, without the query), which the
// service's gateway answers as Content-Location to every request but a POST, errors included
// (tests/data/real-service-recordings: GET, PUT, PATCH, DELETE and OPTIONS carry it, no POST
// does); the Python SDK's global-endpoint tests read it from a point read.
void ContentLocation(Response& res, const Request& req, bool secure) {
  if (req.method() == beast_http::verb::post) return;
  auto host = req.find(beast_http::field::host);
  if (host == req.end() || host->value().empty()) return;
  const std::string_view target = TargetPath(std::string_view(req.target().data(), req.target().size()));
  std::string url = secure ? "https://" : "http://";
  url.append(host->value().data(), host->value().size());
  url.append(target);
  res.set(beast_http::field::content_location, url);
}

std::string ErrorBody(const std::string& code, const std::string& message, const std::string& activity_id,
                      const std::string& additional_error_info = {}) {
  std::string body = "{\"code\":";
  json::WriteString(body, code);
  // Always a message (the code itself when there is nothing to add), written as valid JSON even
  // when it echoes bytes of the request that were not UTF-8.
  body += ",\"message\":";
  const std::string& text = message.empty() ? code : message;
  json::WriteString(body, activity_id.empty() ? text : text + "\r\nActivityId: " + activity_id);
  if (!additional_error_info.empty()) {
    body += ",\"additionalErrorInfo\":";
    json::WriteString(body, additional_error_info);
  }
  body += "}";
  return body;
}

// glibc keeps what threads free in their arenas for reuse and gives little of it back, so the
// memory of deleted containers stayed resident (filling a container with 40 MB of items and
// deleting it left the process 120 MB larger). After a database or container is deleted, the free
// pages of every arena go back to the system; at most every kTrimInterval, as a trim walks all
// arenas.
constexpr std::chrono::milliseconds kTrimInterval{250};

void ReturnFreedMemory() {
#ifdef __GLIBC__
  static std::atomic<int64_t> last{0};
  const int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                          std::chrono::steady_clock::now().time_since_epoch()).count();
  int64_t previous = last.load(std::memory_order_relaxed);
  if (previous != 0 && now - previous < kTrimInterval.count()) return;
  if (!last.compare_exchange_strong(previous, now)) return;  // another thread trims
  malloc_trim(0);
#endif
}

bool IsDatabaseOrContainer(const std::vector<std::string>& segments) {
  return (segments.size() == 2 && segments[0] == "dbs") ||
         (segments.size() == 4 && segments[0] == "dbs" && segments[2] == "colls");
}

// The name path of the resource's owner ("dbs/d" for a container, its feed and its creation;
// "dbs/d/colls/c" for a stored procedure), which the service answers as x-ms-alt-content-path:
// the Java SDK builds each resource's alt link from it, and its change feed needs the container's
// (RxDocumentServiceResponse.getResource). Empty for databases and what is not a resource.
std::string OwnerPath(const std::vector<std::string>& segments) {
  if (segments.size() < 3 || segments[0] != "dbs") return "";
  const size_t type = segments.size() % 2 == 0 ? segments.size() - 2 : segments.size() - 1;
  static const char* kTypes[] = {"colls", "users", "permissions", "sprocs", "triggers", "udfs", "docs",
                                 "conflicts", "clientencryptionkeys"};
  if (std::find(std::begin(kTypes), std::end(kTypes), segments[type]) == std::end(kTypes)) return "";
  std::string out;
  for (size_t i = 0; i < type; ++i) {
    if (i) out += '/';
    out += segments[i];
  }
  return out;
}

}  // namespace

Response ErrorResponse(int status, const std::string& code, const std::string& message, unsigned version,
                       bool keep_alive) {
  Response res{static_cast<beast_http::status>(status), version};
  std::string activity = util::NewUuid();
  CommonHeaders(res, activity, 0);
  res.set(beast_http::field::content_type, "application/json");
  res.body() = ErrorBody(code, message, activity);
  res.keep_alive(keep_alive);
  res.prepare_payload();
  return res;
}

namespace {

// Charges what the request used to the rate limiter (unless it was throttled) and the RU report.
void Account(Services& services, const RequestContext& ctx, double charge, int status) {
  const auto& u = ctx.usage;
  if (!u.container) return;
  if (status != 429 && !u.consumed) services.limiter.Consume(*u.container, u.partitions, charge);
  services.stats.Record(u, charge, status);
}

std::string ClockJson(const util::WallClock& clock) {
  return "{\"unixMs\":" + std::to_string(clock.UnixMs()) + ",\"offsetMs\":" + std::to_string(clock.offset_ms()) + "}";
}

// POST /_emulator/clock {"advanceMs": n} or {"advanceSeconds": n}: moves the emulator's clock
// forward (never back), so items reach their time to live without waiting.
void AdvanceClock(util::WallClock& clock, const std::string& body) {
  json::Document d;
  const char* kUsage = "The body must be {\"advanceMs\": n} or {\"advanceSeconds\": n}, n a whole number from 0 "
                       "to ten years.";
  if (json::Parse(body, d) != json::ParseStatus::kOk || !d.IsObject() || d.MemberCount() != 1)
    throw errors::BadRequest(kUsage);
  auto& m = *d.MemberBegin();
  std::string_view name(m.name.GetString(), m.name.GetStringLength());
  const int64_t unit = name == "advanceMs" ? 1 : name == "advanceSeconds" ? 1000 : 0;
  if (unit == 0 || !m.value.IsInt64() || m.value.GetInt64() < 0 || m.value.GetInt64() > kMaxAdvanceMs / unit)
    throw errors::BadRequest(kUsage);
  const int64_t ms = m.value.GetInt64() * unit;
  if (!clock.AdvanceWithin(ms, kMaxOffsetMs))
    throw errors::BadRequest("The clock cannot move more than a hundred years (" + std::to_string(kMaxOffsetMs) +
                             " ms) from its start: it has moved " + std::to_string(clock.offset_ms()) +
                             " ms, and " + std::to_string(ms) + " ms more would pass that. Restart the emulator "
                             "to start the clock again.");
}

// The emulator's endpoints that change its state (the clock, the RU report) need a master-key
// signature, as the REST API does: the path is signed as any other (docs/protocol.md §2), resource
// type "_emulator" and link "_emulator/clock" or "_emulator/stats". A read-only key or a resource
// token does not serve them. Reads (GET) stay open.
void AuthenticateEmulatorWrite(Services& services, const Request& req, std::string_view target) {
  std::vector<std::string> segments;
  if (!SplitPath(target, segments)) throw errors::InvalidUrl();
  RequestContext ctx(req, std::move(segments));
  if (!Authenticate(ctx, services.config, services.clock.UnixSeconds()).key())
    throw errors::Forbidden(
        "Insufficient permissions provided in the authorization header for the corresponding request. Please "
        "retry with another authorization header.");
}

// GET /_emulator/stats names databases, containers and query shapes: with a key of the user's
// own it is read only with a signature of one of the account's keys (read-only keys too), as any
// read of the account is; with the published well-known key, which protects nothing, it stays open.
void AuthenticateReportRead(Services& services, const Request& req, std::string_view target) {
  if (services.config.master_key_b64 == kWellKnownKey) return;
  AuthenticateEmulatorWrite(services, req, target);
}

// /_emulator/faults (docs/faults.md), every verb signed with a master key: GET lists the rules,
// POST adds one (201, the rule as kept), DELETE removes them all, DELETE .../{id} one (404 when
// there is none of that id).
void FaultsEndpoint(Services& services, const Request& req, std::string_view target, std::string_view path,
                    Response& res) {
  if (!services.faults) throw errors::NotImplemented("Fault injection is not available here.");
  AuthenticateEmulatorWrite(services, req, target);
  const auto verb = req.method();
  if (path == kFaultsPath) {
    if (verb == beast_http::verb::get) {
      res.body() = services.faults->ListJson();
    } else if (verb == beast_http::verb::post) {
      json::Document d;
      if (json::Parse(req.body(), d) != json::ParseStatus::kOk)
        throw errors::BadRequest("The body must be a fault rule: a JSON object (docs/faults.md).");
      res.body() = services.faults->Add(d);
      res.result(beast_http::status::created);
    } else if (verb == beast_http::verb::delete_) {
      services.faults->Clear();
      res.result(beast_http::status::no_content);
    } else {
      throw errors::MethodNotAllowed();
    }
    return;
  }
  std::vector<std::string> segments;
  if (!SplitPath(target, segments) || segments.size() != 3) throw errors::InvalidUrl();
  if (verb != beast_http::verb::delete_) throw errors::MethodNotAllowed();
  if (!services.faults->Remove(segments[2]))
    throw CosmosError(404, 0, "NotFound", "There is no fault rule '" + segments[2] + "'.");
  res.result(beast_http::status::no_content);
}

// The emulator's own endpoints: health, the RU report (docs/emulator-stats.md), the clock
// (docs/change-feed.md) and loading items (docs/seeding.md). Reading them is open; changing them
// needs a master key.
bool EmulatorEndpoint(Services& services, const Request& req, std::string_view target, Response& res,
                      const std::string& activity_id) {
  const auto verb = req.method();
  const std::string_view path = target.substr(0, target.find('?'));
  if (path == kFaultsPath || path.starts_with(std::string(kFaultsPath) + "/")) {
    FaultsEndpoint(services, req, target, path, res);
  } else if (path.starts_with(kContainersPath)) {
    // /_emulator/containers/{db}/{coll}/split, signed with a master key (docs/faults.md).
    std::vector<std::string> segments;
    if (!SplitPath(path, segments) || segments.size() != 5 || segments[4] != "split") throw errors::InvalidUrl();
    if (verb != beast_http::verb::post) throw errors::MethodNotAllowed();
    AuthenticateEmulatorWrite(services, req, target);
    res.body() = handlers::SplitContainer(services, segments[2], segments[3], req.body());
  } else if (path == kRbacPath && services.rbac) {
    // The data-plane roles of Entra ID principals (docs/entra-id.md): GET reads them, PUT replaces
    // them whole (kept with the account, so with --data-dir they outlive a restart); both signed
    // with a master key (they name principals).
    AuthenticateEmulatorWrite(services, req, target);
    if (verb == beast_http::verb::put) ReplaceRoles(services, req.body());
    else if (verb != beast_http::verb::get) throw errors::MethodNotAllowed();
    res.body() = services.rbac->ToJson();
  } else if (path == kImportPath && services.import) {
    if (verb != beast_http::verb::post) throw errors::MethodNotAllowed();
    AuthenticateEmulatorWrite(services, req, target);
    ImportAnswer imported = services.import(services, target, req.body());
    res.result(static_cast<unsigned>(imported.status));
    res.body() = std::move(imported.body);
  } else if (target == kHealthPath && verb == beast_http::verb::get) {
    res.body() = "{\"status\":\"ok\"}";
  } else if (target == kStatsPath && verb == beast_http::verb::get) {
    AuthenticateReportRead(services, req, target);
    res.body() = services.stats.ToJson();
  } else if (target == kClockPath && verb == beast_http::verb::get) {
    res.body() = ClockJson(services.clock);
  } else if (target == kClockPath && verb == beast_http::verb::post) {
    AuthenticateEmulatorWrite(services, req, target);
    AdvanceClock(services.clock, req.body());
    res.body() = ClockJson(services.clock);
  } else if (target == kStatsPath && verb == beast_http::verb::delete_) {
    AuthenticateEmulatorWrite(services, req, target);
    services.stats.Reset();
    res.result(beast_http::status::no_content);
  } else {
    return false;
  }
  CommonHeaders(res, activity_id, 0);
  if (res.result() != beast_http::status::no_content) res.set(beast_http::field::content_type, "application/json");
  res.prepare_payload();
  return true;
}

// x-ms-cosmos-intended-collection-rid: the container rid a client with client-side encryption
// cached with the container's encryption policy; it sends it on every item request. When the
// container of that name is now another one (deleted and re-created, perhaps with another policy)
// the request is refused with 400/1024, and the client refreshes its policy and retries.
void CheckIntendedContainer(Services& services, const RequestContext& ctx) {
  auto h = ctx.Header(headers::kIntendedCollectionRid);
  if (!h || h->empty()) return;
  const auto& seg = ctx.segments();
  if (seg.size() < 5 || seg[0] != "dbs" || seg[2] != "colls") return;
  auto db = services.account.FindDatabase(seg[1]);
  auto c = db ? db->FindContainer(seg[3]) : nullptr;
  if (!c || c->rid() == *h) return;  // a missing container is the handler's 404
  throw CosmosError(400, 1024, "BadRequest",
                    errors::Wrap("The collection rid '" + std::string(*h) +
                                 "' given in x-ms-cosmos-intended-collection-rid is not the rid of the target "
                                 "collection '" + c->rid() + "': the collection was re-created."));
}

}  // namespace

bool AnswersAtOnce(const Request& req, bool item_writes) {
  const auto verb = req.method();
  const std::string_view target = TargetPath(std::string_view(req.target().data(), req.target().size()));
  if (verb == beast_http::verb::get &&
      (target == kHealthPath || target == "/ready" || target == "/alive" || target == "/status"))
    return true;
  // A point read or a write of one item: it holds the partition's lock for a moment, so the hop
  // to a worker and back (two thread wake-ups) costs more than the request. A write that would
  // wait for a transaction on its logical partition throws util::WouldBlock first and goes to a
  // worker after all; one that waits for the disk, or runs triggers, goes to a worker at once.
  const Route* route = RouteOf(req);
  if (!route || !route->facts.point) return false;
  if (verb == beast_http::verb::get) return true;
  if (!item_writes) return false;
  return req.find(headers::kPreTriggerInclude) == req.end() &&
         req.find(headers::kPostTriggerInclude) == req.end();
}

namespace {

// The database whose metadata a successful request changed (persistence records it whole): the
// one its path names, the one whose offer it replaced, or the one it created (named in `answer`).
std::optional<std::string> ChangedDatabase(Services& services, const RequestContext& ctx, const std::string& answer) {
  const auto& seg = ctx.segments();
  if (seg.empty()) return std::nullopt;
  if (seg[0] == "offers") {
    if (seg.size() != 2) return std::nullopt;
    for (const auto& db : services.account.Databases()) {
      if (db->offer() && db->offer()->id() == seg[1]) return db->id();
      for (const auto& c : db->Containers()) {
        if (c->offer() && c->offer()->id() == seg[1]) return db->id();
      }
    }
    return std::nullopt;
  }
  if (seg.size() >= 2) return seg[1];
  json::Document created;  // POST /dbs: the new database's id is the one in the answer
  if (json::Parse(answer, created) == json::ParseStatus::kOk && created.IsObject() && created.HasMember("id") &&
      created["id"].IsString())
    return created["id"].GetString();
  return std::nullopt;
}

Response HandleRequest(Services& services, const Request& req, bool secure, const std::atomic<bool>* cancelled,
                       bool compute_endpoint);

}  // namespace

Response Handle(Services& services, const Request& req, bool secure, const std::atomic<bool>* cancelled,
                bool compute_endpoint) {
  store::Journal* journal = services.account.journal();
  if (!journal) return HandleRequest(services, req, secure, cancelled, compute_endpoint);
  journal->ForgetThread();
  Response res = HandleRequest(services, req, secure, cancelled, compute_endpoint);
  try {
    journal->AwaitDurable();  // answered only once what it changed is durable
  } catch (const std::exception& e) {
    return ErrorResponse(500, "InternalServerError",
                         std::string("The change could not be made durable: ") + e.what(), req.version(),
                         req.keep_alive());
  }
  return res;
}

namespace {

// The request's activity id: the client's x-ms-activity-id when it sends a GUID, which the service
// echoes in its answer (the REST reference's common headers; the .NET and Python SDKs log their own
// id beside the answer's), else a new one. (Direct mode echoes the frame's id: rntbd_session.)
std::string ActivityIdOf(const Request& req) {
  auto h = req.find(headers::kActivityId);
  if (h != req.end()) {
    if (auto id = util::ParseUuid(std::string_view(h->value().data(), h->value().size()))) return util::FormatUuid(*id);
  }
  return util::NewUuid();
}

Response HandleRequest(Services& services, const Request& req, bool secure, const std::atomic<bool>* cancelled,
                       bool compute_endpoint) {
  const std::string activity_id = ActivityIdOf(req);
  Response res{beast_http::status::ok, req.version()};
  res.keep_alive(req.keep_alive());
  std::string_view target(req.target().data(), req.target().size());
  std::optional<RequestContext> ctx;
  try {
    if (ServeEmulatorPage(services.config, req, secure, res)) return res;
    if (EmulatorEndpoint(services, req, target, res, activity_id)) return res;
    // The service answers 403 {"code":"Forbidden"} (recording cosmos-203); every error body the
    // emulator writes carries a message too.
    if (req.method() == beast_http::verb::options) {
      throw errors::Forbidden(errors::Wrap("The OPTIONS verb is not supported."));
    }
    std::vector<std::string> segments;
    if (!SplitPath(target, segments)) throw errors::InvalidUrl();
    const Operation op = OperationOf(req);
    RouteResult route = FindRoute(segments, req.method(), op);
    switch (route.match) {
      case RouteMatch::kNoSuchPath:
        throw errors::InvalidUrl();
      case RouteMatch::kWrongVerb:
        throw errors::MethodNotAllowed();
      case RouteMatch::kWrongOperation:
        throw errors::BadRequest("The requested operation is not supported on this resource.");
      case RouteMatch::kFound:
        break;
    }
    HandlerFn handler = route.handler;
    ctx.emplace(req, std::move(segments));
    ctx->set_operation(op);
    if (route.route) ctx->set_facts(route.route->facts);
    ctx->set_secure(secure);
    ctx->set_compute_endpoint(compute_endpoint);
    ctx->set_cancel_flag(cancelled);
    // The signature covers the path as sent; a rid link is then resolved to names.
    const Credential credential = Authenticate(*ctx, services.config, services.clock.UnixSeconds());
    // An account with local authorization disabled serves Entra ID tokens only (the service's
    // message; substatus LocalAuthDisabled).
    if (services.config.disable_local_auth && !credential.aad)
      throw CosmosError(401, 5202, "Unauthorized",
                        "Local Authorization is disabled. Use an AAD token to authorize all requests.");
    if (IsRidPath(ctx->segments())) {
      ctx->SetSegments(ResolveRidPath(services, ctx->segments()));
    }
    if (route.route) ctx->SetParams(BindParams(*route.route, ctx->segments()));
    if (credential.resource) AuthorizeResourceToken(services, *ctx, *credential.resource);
    if (credential.aad) AuthorizeAad(services, *ctx, *credential.aad);
    CheckConsistency(*ctx, services.config);
    CheckIntendedContainer(services, *ctx);
    // Faults for metadata requests; data-plane ones are injected where they reach their
    // partitions (handlers::Admit), so that rules may name ranges.
    if (!ctx->facts().data_plane) InjectFault(services, *ctx, {});
    if (auto* journal = services.account.journal(); journal && ctx->facts().changes_metadata) {
      // A metadata change is recorded after it is made: once the log refuses records, it must
      // not be made at all (item writes are recorded first and refuse by themselves).
      if (std::string failure = journal->Failure(); !failure.empty())
        throw errors::Internal("The change could not be made durable: " + failure);
    }
    Result result = handler(services, *ctx);
    if (auto* journal = services.account.journal();
        journal && ctx->facts().changes_metadata && result.status >= 200 && result.status < 300) {
      if (auto db = ChangedDatabase(services, *ctx, result.body)) journal->DatabaseChanged(*db);
    }
    Account(services, *ctx, result.charge, result.status);
    if (result.status == 204 && req.method() == beast_http::verb::delete_ && IsDatabaseOrContainer(ctx->segments())) {
      // What the RU report kept of it goes with it.
      const auto& seg = ctx->segments();
      if (seg.size() == 2) services.stats.ForgetDatabase(seg[1]);
      else services.stats.ForgetContainer(seg[1], seg[3]);
      ReturnFreedMemory();
    }
    res.result(static_cast<unsigned>(result.status));
    CommonHeaders(res, activity_id, result.charge);
    ContentLocation(res, req, secure);
    if (result.status >= 200 && result.status < 300) {
      if (std::string owner = OwnerPath(ctx->segments()); !owner.empty()) res.set(headers::kAltContentPath, owner);
    }
    for (auto& [k, v] : result.headers) res.set(k, v);
    if (result.status != 204 && result.status != 304) {
      res.set(beast_http::field::content_type, "application/json");
      res.body() = std::move(result.body);
    }
    if (ctx->response_delay_ms > 0) res.set(server::kDelayMsHeader, std::to_string(ctx->response_delay_ms));
    res.prepare_payload();
    return res;
  } catch (const DropConnection&) {
    res.set(server::kDropHeader, "1");
    return res;
  } catch (const CosmosError& e) {
    if (ctx) Account(services, *ctx, e.charge, e.status);
    res.result(static_cast<unsigned>(e.status));
    CommonHeaders(res, activity_id, e.charge);
    ContentLocation(res, req, secure);
    res.set(beast_http::field::content_type, "application/json");
    if (e.substatus) res.set(headers::kSubstatus, std::to_string(e.substatus));
    if (e.retry_after_ms) res.set(headers::kRetryAfterMs, std::to_string(e.retry_after_ms));
    for (const auto& [name, value] : e.headers) res.set(name, value);
    if (ctx && ctx->response_delay_ms > 0) res.set(server::kDelayMsHeader, std::to_string(ctx->response_delay_ms));
    res.body() = ErrorBody(e.code, e.what(), activity_id, e.additional_error_info);
    res.prepare_payload();
    return res;
  } catch (const std::exception& e) {
    res.result(beast_http::status::internal_server_error);
    CommonHeaders(res, activity_id, 0);
    ContentLocation(res, req, secure);
    res.set(beast_http::field::content_type, "application/json");
    res.body() = ErrorBody("InternalServerError", errors::Wrap(e.what()), activity_id);
    res.prepare_payload();
    return res;
  }
}

}  // namespace

}  // namespace cosmos::http
