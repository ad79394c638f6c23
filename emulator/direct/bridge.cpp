// Direct mode's bridge: RNTBD request -> the Gateway-mode HTTP request -> http::Handle -> RNTBD
// response (direct/bridge.h). Facts cited from the notes on the Java SDK 4.81.0: "spec" is
// rntbd-spec.md, "client" is direct-mode-client.md.
//
// Request tokens the bridge does not use (the gateway reads no header for them, or they mean
// nothing to one replica): IsFanout, CollectionPartitionIndex, CollectionServiceIndex, EntityId,
// ResourceSchemaName, EmitVerboseTracesInQuery, BindReplicaDirective, the four account keys,
// ProfileRequest, EnableLowPrecisionOrderBy, CanCharge, CanThrottle, MigrateCollectionDirective,
// SupportSpatialLegacyCoordinates, PartitionCount, SchemaName, FilterBySchemaRid,
// UsePolygonsSmallerThanAHemisphere, GatewaySignature, DisableRUPerMinuteUsage, RemoteStorageType,
// CollectionRemoteStorageSecurityIdentifier, PopulateCollectionThroughputInfo,
// ResponseContinuationTokenLimitInKb, RemainingTimeInMsOnClientRequest, ClientRetryAttemptCount,
// TargetLsn and TargetGlobalCommittedLsn (one replica is always at its own LSN), TransportRequestID
// (the server echoes it), the restore tokens, ShareThroughput, PartitionResourceFilter,
// IsReadOnlyScript, IsAutoScaleRequest, ForceQueryScan, CanOfferReplaceComplete,
// ExcludeSystemProperties, BinaryId, TimeToLiveInSeconds, EffectivePartitionKey,
// BinaryPassthroughRequest, EnableDynamicRidRangeAllocation, EnumerationDirection, StartId, EndId,
// FanoutOperationState, ReadFeedKeyType, ContentSerializationFormat (item bodies in Cosmos binary
// are recognised by their bytes), AllowTentativeWrites, IsUserRequest, SharedOfferThroughput,
// IsBatchOrdered, IsClientEncrypted, SDKSupportedCapabilities, CorrelatedActivityId, PriorityLevel,
// PopulateQueryAdvice, ThroughputBucket, WorkloadId, HubRegionProcessingOnly,
// ReadConsistencyStrategy.
#include "direct/bridge.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/errors.h"
#include "http/auth.h"
#include "http/headers.h"
#include "http/pipeline.h"
#include "http/replica_address.h"
#include "http/routes.h"
#include "json/json.h"
#include "rntbd/constants.h"
#include "store/partition_key.h"
#include "store/store.h"
#include "util/util.h"

namespace cosmos::direct {
namespace {

namespace rt = rntbd::request_token;
namespace st = rntbd::response_token;
namespace hd = http::headers;
using bverb = boost::beast::http::verb;

// The API version requests are made with when the client sends none (Java sends no ClientVersion
// token in Direct mode, spec §5.3).
constexpr const char* kDirectApiVersion = "2020-07-15";

// ---- Reading the request --------------------------------------------------------------------

std::optional<std::string> TokenText(const rntbd::Request& r, uint16_t id) {
  const rntbd::Token* t = r.tokens.Find(id);
  if (!t) return std::nullopt;
  return t->bytes;
}

std::optional<int64_t> TokenInteger(const rntbd::Request& r, uint16_t id) {
  const rntbd::Token* t = r.tokens.Find(id);
  if (!t) return std::nullopt;
  return t->integer;
}

std::string Hex(uint16_t v) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "0x%04X", static_cast<unsigned>(v));
  return buf;
}

// How an operation is sent over HTTP: its verb, and whether its address is the parent of what it
// acts on (feeds, creates, queries, batches: the resource type's segment follows the names).
struct Shape {
  bverb verb;
  bool feed;
};

Shape ShapeOf(uint16_t op) {
  namespace o = rntbd::operation;
  switch (op) {
    case o::kCreate: case o::kUpsert: case o::kQuery: case o::kSqlQuery: case o::kBatch:
      return {bverb::post, true};
    case o::kExecuteJavaScript: return {bverb::post, false};
    case o::kRead: return {bverb::get, false};
    case o::kReadFeed: return {bverb::get, true};
    case o::kReplace: return {bverb::put, false};
    case o::kDelete: return {bverb::delete_, false};
    case o::kPatch: return {bverb::patch, false};
    case o::kHead: return {bverb::head, false};
    case o::kHeadFeed: return {bverb::head, true};
    default:
      throw errors::BadRequest("Operation type " + Hex(op) + " is not served over Direct mode by the emulator.");
  }
}

// One level of a resource address: its segment ("docs") and, in a resource id, how many leading
// bytes name the resource at that level (0: all of them; spec §5.3, ResourceId).
struct Level {
  const char* segment;
  size_t rid_bytes;
};

// The levels down to a resource of type `type` (spec §5.1), outermost first.
std::vector<Level> LevelsOf(uint16_t type) {
  namespace r = rntbd::resource;
  const Level db{"dbs", 4}, coll{"colls", 8};
  switch (type) {
    case r::kDatabase: return {db};
    case r::kCollection: return {db, coll};
    case r::kDocument: return {db, coll, {"docs", 16}};
    case r::kAttachment: return {db, coll, {"docs", 16}, {"attachments", 0}};
    case r::kUser: return {db, {"users", 8}};
    case r::kPermission: return {db, {"users", 8}, {"permissions", 0}};
    case r::kStoredProcedure: return {db, coll, {"sprocs", 0}};
    case r::kTrigger: return {db, coll, {"triggers", 0}};
    case r::kUserDefinedFunction: return {db, coll, {"udfs", 0}};
    case r::kConflict: return {db, coll, {"conflicts", 0}};
    case r::kPartitionKeyRange: return {db, coll, {"pkranges", 0}};
    case r::kClientEncryptionKey: return {db, {"clientencryptionkeys", 0}};
    default:
      throw errors::BadRequest("Resource type " + Hex(type) + " is not served over Direct mode by the emulator.");
  }
}

// A resource id's text: base64 with '/' written as '-' (as store/ makes them).
std::string RidText(std::string_view bytes) {
  std::string s = util::Base64Encode(bytes);
  for (char& c : s)
    if (c == '/') c = '-';
  return s;
}

// The rid link of a RID-based request (ResourceId token, spec §6): dbs/<db rid>/colls/<coll
// rid>/docs/<doc rid>, each level's rid the id's leading bytes; for a feed the id is the parent's.
std::string RidPath(const std::vector<Level>& levels, const std::string& id, bool feed) {
  std::string path;
  const size_t named = feed ? levels.size() - 1 : levels.size();
  size_t outer = 0;  // the bytes that name the level above
  for (size_t i = 0; i < named; ++i) {
    const size_t n = levels[i].rid_bytes ? levels[i].rid_bytes : id.size();
    // The id names the last level exactly, and holds more than each level above it.
    const bool fits = i + 1 == named ? id.size() == n && n > outer : id.size() > n;
    if (!fits)
      throw errors::BadRequest("The ResourceId token (" + std::to_string(id.size()) +
                               " bytes) does not name a resource of the request's type.");
    path += std::string("/") + levels[i].segment + "/" + RidText(std::string_view(id).substr(0, n));
    outer = n;
  }
  return path;
}

// The name tokens, each with the segment it follows, in address order (spec §6).
struct NameToken {
  uint16_t id;
  const char* segment;
};
constexpr NameToken kNameTokens[] = {
    {rt::kDatabaseName, "dbs"},          {rt::kCollectionName, "colls"},
    {rt::kUserName, "users"},            {rt::kDocumentName, "docs"},
    {rt::kStoredProcedureName, "sprocs"}, {rt::kPermissionName, "permissions"},
    {rt::kUserDefinedFunctionName, "udfs"}, {rt::kTriggerName, "triggers"},
    {rt::kConflictName, "conflicts"},    {rt::kPartitionKeyRangeName, "pkranges"},
    {rt::kAttachmentName, "attachments"},
};

// The name link of a name-based request; each name percent-encoded as one path segment (the
// pipeline splits the path on '/' and percent-decodes each segment, http::SplitPath).
std::string NamePath(const rntbd::Request& r, const std::vector<Level>& levels, bool feed) {
  std::string path, last;
  for (const auto& n : kNameTokens) {
    if (auto name = TokenText(r, n.id)) {
      path += std::string("/") + n.segment + "/" + util::PercentEncode(*name);
      last = n.segment;
    }
  }
  const size_t named = feed ? levels.size() - 1 : levels.size();
  const std::string want = named ? levels[named - 1].segment : "";
  if (last != want)
    throw errors::BadRequest("The request's name tokens do not address a resource of its type and operation.");
  return path;
}

// The request's path: name-based when it carries names, else rid-based (ResourceId); a feed's ends
// with its resource type's segment. DatabaseAccount is the account itself (GET /). The Java client
// sends a name-based request's ResourceId too (its container's, once the address is resolved) and
// signs the name link: the names win.
std::string PathOf(const rntbd::Request& r, const Shape& shape) {
  if (r.resource_type == rntbd::resource::kDatabaseAccount) return "/";
  const std::vector<Level> levels = LevelsOf(r.resource_type);
  auto rid = TokenText(r, rt::kResourceId);
  const bool named = TokenText(r, rt::kDatabaseName).has_value();
  std::string path = !named && rid && !rid->empty() ? RidPath(levels, *rid, shape.feed) : NamePath(r, levels, shape.feed);
  if (shape.feed) path += std::string("/") + levels.back().segment;
  return path;
}

// ---- Making the HTTP request ----------------------------------------------------------------

// Tokens carried over as the header of the same meaning, as text or as a Byte boolean.
struct HeaderToken {
  uint16_t id;
  const char* header;
  bool boolean;
};
constexpr HeaderToken kHeaderTokens[] = {
    {rt::kAuthorizationToken, hd::kAuthorization, false},
    {rt::kDate, hd::kDate, false},
    {rt::kSessionToken, hd::kSessionToken, false},
    {rt::kContinuationToken, hd::kContinuation, false},
    {rt::kPreTriggerInclude, hd::kPreTriggerInclude, false},
    {rt::kPostTriggerInclude, hd::kPostTriggerInclude, false},
    {rt::kPreTriggerExclude, hd::kPreTriggerExclude, false},
    {rt::kPostTriggerExclude, hd::kPostTriggerExclude, false},
    {rt::kPartitionKey, hd::kPartitionKey, false},
    {rt::kA_IM, hd::kAIm, false},
    {rt::kIfModifiedSince, hd::kIfModifiedSince, false},
    {rt::kStartEpk, hd::kStartEpk, false},  // Bytes holding the hex EPK's text (spec §5.3)
    {rt::kEndEpk, hd::kEndEpk, false},
    {rt::kChangeFeedWireFormatVersion, hd::kChangeFeedWireFormatVersion, false},
    {rt::kIntendedCollectionRid, hd::kIntendedCollectionRid, false},
    {rt::kEnableLogging, hd::kScriptEnableLogging, true},
    {rt::kPopulateQuotaInfo, hd::kPopulateQuotaInfo, true},
    {rt::kPopulateQueryMetrics, hd::kPopulateQueryMetrics, true},
    {rt::kPopulateIndexMetrics, hd::kPopulateIndexMetrics, true},
    {rt::kPopulatePartitionStatistics, hd::kPopulatePartitionStatistics, true},
    {rt::kEnableScanInQuery, hd::kEnableScan, true},
};

const char* EnumName(int64_t v, std::initializer_list<const char*> names) {
  return v >= 0 && static_cast<size_t>(v) < names.size() ? names.begin()[v] : nullptr;
}

int ConsistencyRank(std::string_view level) {
  static const char* kOrder[] = {"Eventual", "ConsistentPrefix", "Session", "BoundedStaleness", "Strong"};
  for (int i = 0; i < 5; ++i)
    if (util::EqualsIgnoreCase(level, kOrder[i])) return i;
  return -1;
}

// The tokens whose header needs a conversion (spec §5.3-5.4).
void SetConvertedHeaders(const rntbd::Request& r, const http::Config& config, http::Request& req) {
  namespace o = rntbd::operation;
  if (auto n = TokenInteger(r, rt::kPageSize))  // ULong; 0xFFFFFFFF is -1 (no limit)
    req.set(hd::kMaxItemCount, *n == 0xFFFFFFFF || *n < 0 ? std::string("-1") : std::to_string(*n));
  if (auto m = TokenText(r, rt::kMatch)) {
    const bool read = r.operation_type == o::kRead || r.operation_type == o::kReadFeed;
    req.set(read ? hd::kIfNoneMatch : hd::kIfMatch, *m);
  }
  if (auto v = TokenInteger(r, rt::kIndexingDirective))
    if (const char* name = EnumName(*v, {"Default", "Include", "Exclude"})) req.set(hd::kIndexingDirective, name);
  if (auto v = TokenInteger(r, rt::kConsistencyLevel)) {
    const char* name = EnumName(*v, {"Strong", "BoundedStaleness", "Session", "Eventual", "ConsistentPrefix"});
    // The Java client asks Strong for every master resource whatever the account's level
    // (client §2, ServerStoreModel), which the gateway refuses over HTTP (a request may only
    // weaken the account's level); a replica serves it. A level stronger than the account's is
    // therefore left out: the request is served at the account's.
    if (name && ConsistencyRank(name) <= ConsistencyRank(config.consistency)) req.set(hd::kConsistencyLevel, name);
  }
  if (auto range = TokenText(r, rt::kPartitionKeyRangeId)) {  // "<id>" or "<collection rid>,<id>"
    const size_t comma = range->rfind(',');
    req.set(hd::kPartitionKeyRangeId, comma == std::string::npos ? *range : range->substr(comma + 1));
  }
  if (auto v = TokenInteger(r, rt::kReturnPreference); v && *v == 1) req.set(hd::kPrefer, "return=minimal");
  if (auto v = TokenInteger(r, rt::kResourceTokenExpiry)) req.set(hd::kExpirySeconds, std::to_string(*v));
}

// What the operation type says that HTTP says with headers (spec §5.3: no Content-Type, isquery,
// is-upsert or is-batch-request travels over RNTBD).
void SetOperationHeaders(const rntbd::Request& r, http::Request& req) {
  namespace o = rntbd::operation;
  namespace bf = boost::beast::http;
  switch (r.operation_type) {
    case o::kUpsert:
      req.set(hd::kIsUpsert, "true");
      req.set(bf::field::content_type, "application/json");
      break;
    case o::kCreate: case o::kReplace: case o::kExecuteJavaScript:
      req.set(bf::field::content_type, "application/json");
      break;
    case o::kQuery:
      req.set(hd::kIsQuery, "true");
      req.set(bf::field::content_type, "application/query+json");
      break;
    case o::kSqlQuery:  // the body is the query's text, which the gateway takes as well (ParseQueryBody)
      req.set(hd::kIsQuery, "true");
      req.set(bf::field::content_type, "application/sql");
      break;
    case o::kBatch: {
      req.set(hd::kIsBatchRequest, "true");
      auto atomic = TokenInteger(r, rt::kIsBatchAtomic);
      req.set(hd::kBatchAtomic, !atomic || *atomic ? "true" : "false");
      if (auto c = TokenInteger(r, rt::kShouldBatchContinueOnError))
        req.set(hd::kBatchContinueOnError, *c ? "true" : "false");
      req.set(bf::field::content_type, "application/json");
      break;
    }
    case o::kPatch:
      req.set(bf::field::content_type, "application/json_patch+json");
      break;
    default:
      break;
  }
  // Direct queries are per range or per partition key (client §2): one that names a range is
  // allowed across partitions, as the SDKs' per-range queries are over HTTP.
  if ((r.operation_type == o::kQuery || r.operation_type == o::kSqlQuery) && r.tokens.Find(rt::kPartitionKeyRangeId))
    req.set(hd::kEnableCrossPartition, "true");
}

http::Request MakeHttpRequest(const rntbd::Request& r, const http::Config& config) {
  const Shape shape = ShapeOf(r.operation_type);
  const std::string path = PathOf(r, shape);
  http::Request req{shape.verb, boost::beast::string_view(path.data(), path.size()), 11};
  req.set(hd::kVersion, TokenText(r, rt::kClientVersion).value_or(kDirectApiVersion));
  for (const auto& t : kHeaderTokens) {
    if (t.boolean) {
      if (auto v = TokenInteger(r, t.id)) req.set(t.header, *v ? "true" : "false");
    } else if (auto v = TokenText(r, t.id)) {
      req.set(t.header, *v);
    }
  }
  SetConvertedHeaders(r, config, req);
  SetOperationHeaders(r, req);
  if (r.body) req.body() = *r.body;
  req.prepare_payload();
  return req;
}

// ---- The replica addressed ------------------------------------------------------------------

// What the ReplicaPath token names (the address feed's paths, handlers/addresses.cpp):
// /apps/<account>/services/<collection rid | master>/partitions/<range id | M>/replicas/1p.
CosmosError StaleAddress(int substatus, const std::string& why) {
  return CosmosError(410, substatus, "Gone", errors::Wrap(why));
}

std::optional<http::ReplicaPath> ReplicaOf(const rntbd::Request& r) {
  auto path = TokenText(r, rt::kReplicaPath);
  if (!path) return std::nullopt;  // not from an SDK (tests, tools): nothing to check
  auto replica = http::ParseReplicaPath(*path);
  // Not an address this emulator hands out (another emulator's, an older one's): 410 with no
  // substatus makes the SDK refresh its addresses (spec §10.1).
  if (!replica) throw StaleAddress(0, "The replica path '" + *path + "' is not one of this emulator's addresses.");
  return replica;
}

store::ContainerPtr ContainerByRid(store::Account& account, const std::string& rid) {
  std::string b64 = rid;
  for (char& c : b64)
    if (c == '-') c = '/';
  auto bytes = util::Base64Decode(b64);
  if (!bytes || bytes->size() < 8) return nullptr;
  auto db = account.FindDatabaseByRid(RidText(bytes->substr(0, 4)));
  return db ? db->FindContainerByRid(rid) : nullptr;
}

// 410/1000 when the CollectionRid token is not the rid of the container of that name: it was
// deleted and created again, and the client must refresh its name cache (client §4).
void CheckCollectionRid(http::Services& s, const rntbd::Request& r) {
  auto rid = TokenText(r, rt::kCollectionRid);
  auto db_name = TokenText(r, rt::kDatabaseName);
  auto coll_name = TokenText(r, rt::kCollectionName);
  if (!rid || rid->empty() || !db_name || !coll_name) return;
  auto db = s.account.FindDatabase(*db_name);
  auto c = db ? db->FindContainer(*coll_name) : nullptr;
  if (c && c->rid() != *rid)
    throw StaleAddress(1000, "The collection '" + *coll_name + "' is no longer the one of rid '" + *rid +
                                 "' (it was re-created): refresh the name cache.");
}

// A request at a replica of a range that is no longer live (it was split), or whose partition key
// lives in another range (the client addressed a stale parent): 410. A request the client routed
// by range id (feeds and queries: the PartitionKeyRangeId token) gets 1002, PartitionKeyRangeGone,
// which their pipelines answer by reading the ranges again (the Java SDK's
// PartitionKeyRangeGoneRetryPolicy); one routed by its key gets 1007, CompletingSplit, which the Java
// client's GoneRetryPolicy retries after reading the ranges again, reads and writes alike (a 1002
// from a replica is final for a point operation: GoneAndRetryWithRetryPolicy does not retry it).
void CheckRange(http::Services& s, const rntbd::Request& r, const http::ReplicaPath& replica) {
  if (replica.master) return;
  store::ContainerPtr c = ContainerByRid(s.account, replica.service);
  if (!c) return;  // the container is gone: the request's names say what the gateway answers
  const int gone = TokenText(r, rt::kPartitionKeyRangeId) ? 1002 : 1007;
  if (!c->PartitionById(replica.range))
    throw StaleAddress(gone, "The partition key range '" + replica.range + "' is gone (it was split).");
  auto pk = TokenText(r, rt::kPartitionKey);
  if (!pk) return;
  std::string owner;
  try {
    owner = c->PartitionFor(store::ParsePartitionKeyHeader(c->partition_key(), *pk)).range_id();
  } catch (const CosmosError&) {
    return;  // a prefix or a malformed key: the gateway routes or refuses it
  }
  if (owner != replica.range)
    throw StaleAddress(gone, "The partition key range '" + replica.range +
                                 "' does not hold the request's partition key (it is in range '" + owner + "').");
}

// The partition's current LSN, at least 1 (the Java client's StoreReader needs lsn >= 0 and a
// quorum-acked LSN equal to it, client §3.3): the gateway's lsn header; else the addressed range's;
// else, for the master partition, the account's metadata counter (it grows with every change).
int64_t PartitionLsn(http::Services& s, const std::optional<http::ReplicaPath>& replica, const http::Response& res) {
  int64_t lsn = 0;
  if (auto it = res.find(hd::kLsn); it != res.end())
    lsn = util::ParseInteger<int64_t>(std::string_view(it->value().data(), it->value().size())).value_or(0);
  if (lsn <= 0 && replica && replica->master) lsn = static_cast<int64_t>(s.account.counters().etags);
  if (lsn <= 0 && replica && !replica->master) {
    auto c = ContainerByRid(s.account, replica->service);
    const auto* p = c ? c->PartitionById(replica->range) : nullptr;
    lsn = p ? static_cast<int64_t>(p->lsn()) : static_cast<int64_t>(store::MaxLsnIssued());
  }
  return std::max<int64_t>(lsn, 1);
}

// Checks the replica the request addressed (its ReplicaPath, `replica` once read) and the
// container its CollectionRid names. A stale address is only told to a client whose signature
// holds (the pipeline checks it again, with the rest of the request).
void CheckAddress(http::Services& s, const rntbd::Request& r, const http::Request& req, std::optional<http::ReplicaPath>& replica) {
  try {
    replica = ReplicaOf(r);
    CheckCollectionRid(s, r);
    if (replica) CheckRange(s, r, *replica);
  } catch (const CosmosError&) {
    std::vector<std::string> segments;
    std::string_view target(req.target().data(), req.target().size());
    if (!http::SplitPath(target, segments)) throw errors::InvalidUrl();
    http::Authenticate(http::RequestContext(req, std::move(segments)), s.config);
    throw;
  }
}

// ---- Making the RNTBD response --------------------------------------------------------------

enum class As { kString, kSmallString, kULong, kDouble };

// Response headers carried over as tokens, each with its token's declared type: the client reads
// a known id with the type it declares whatever the wire says (spec §2.4, §7.2).
struct ResponseHeader {
  const char* header;
  uint16_t token;
  As as;
};
constexpr ResponseHeader kResponseHeaders[] = {
    {hd::kRequestCharge, st::kRequestCharge, As::kDouble},
    {hd::kContinuation, st::kContinuationToken, As::kString},
    {hd::kETag, st::kETag, As::kString},
    {hd::kRetryAfterMs, st::kRetryAfterMilliseconds, As::kULong},
    {hd::kSubstatus, st::kSubStatus, As::kULong},
    {hd::kItemCount, st::kItemCount, As::kULong},
    {hd::kAltContentPath, st::kOwnerFullName, As::kString},
    {hd::kContentPath, st::kOwnerId, As::kString},
    {hd::kResourceQuota, st::kStorageMaxResoureQuota, As::kString},
    {hd::kResourceUsage, st::kStorageResourceQuotaUsage, As::kString},
    {hd::kScriptLogResults, st::kLogResults, As::kString},
    {hd::kQueryMetrics, st::kQueryMetrics, As::kString},
    {hd::kIndexUtilization, st::kIndexUtilization, As::kString},
    {hd::kQueryExecutionInfo, st::kQueryExecutionInfo, As::kString},
    {hd::kSchemaVersion, st::kSchemaVersion, As::kSmallString},
    {hd::kLastStateChange, st::kLastStateChangeDateTime, As::kSmallString},
    {hd::kIndexTransformationProgress, st::kCollectionUpdateProgress, As::kULong},
    {hd::kLazyIndexingProgress, st::kCollectionLazyIndexProgress, As::kULong},
};

std::optional<std::string_view> HeaderOf(const http::Response& res, const char* name) {
  auto it = res.find(name);
  if (it == res.end()) return std::nullopt;
  return std::string_view(it->value().data(), it->value().size());
}

// The token for one header value; nullopt when the value does not fit the type: a number that
// does not parse, or a text longer than the type's length field holds (a String's is 16 bits, and
// ULongString must never be sent, spec §2.4): such a header is left out.
std::optional<rntbd::Token> TokenFor(const ResponseHeader& h, std::string_view v) {
  switch (h.as) {
    case As::kString:
      if (v.size() > 0xFFFF) return std::nullopt;
      return rntbd::Token::String(h.token, std::string(v));
    case As::kSmallString:
      if (v.size() > 0xFF) return std::nullopt;
      return rntbd::Token::SmallString(h.token, std::string(v));
    case As::kULong:
      if (auto n = util::ParseInteger<uint32_t>(v)) return rntbd::Token::ULong(h.token, *n);
      return std::nullopt;
    case As::kDouble: {
      double d = 0;
      auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), d);
      if (ec != std::errc() || end != v.data() + v.size()) return std::nullopt;
      return rntbd::Token::Double(h.token, d);
    }
  }
  return std::nullopt;
}

// The session token without its range ("<range>:<token>", one entry per range read, comma-joined):
// the entry of `range` (else the first) split into its range and token (spec §7.3: the client
// joins PartitionKeyRangeId and SessionToken again).
std::pair<std::string, std::string> SplitSession(std::string_view all, const std::string& range) {
  std::string_view chosen;
  for (auto entry : util::Split(all, ',')) {
    if (chosen.empty()) chosen = entry;
    if (entry.substr(0, entry.find(':')) == range) chosen = entry;
  }
  const size_t colon = chosen.find(':');
  if (colon == std::string_view::npos) return {"", std::string(chosen)};
  return {std::string(chosen.substr(0, colon)), std::string(chosen.substr(colon + 1))};
}

// The tokens the consistency layer needs on every answer, success or error (client §3.2-3.3):
// one replica, which has every write (all LSNs equal), no read regions.
void AddReplicaTokens(rntbd::Tokens& out, int64_t lsn, std::optional<int64_t> item_lsn) {
  for (uint16_t id : {st::kLSN, st::kLocalLSN, st::kQuorumAckedLSN, st::kQuorumAckedLocalLSN, st::kGlobalCommittedLSN})
    out.list.push_back(rntbd::Token::LongLong(id, lsn));
  if (item_lsn) {
    out.list.push_back(rntbd::Token::LongLong(st::kItemLSN, *item_lsn));
    out.list.push_back(rntbd::Token::LongLong(st::kItemLocalLSN, *item_lsn));
  }
  out.list.push_back(rntbd::Token::ULong(st::kCurrentReplicaSetSize, 1));
  out.list.push_back(rntbd::Token::ULong(st::kCurrentWriteQuorum, 1));
  out.list.push_back(rntbd::Token::ULong(st::kNumberOfReadRegions, 0));
}

// The session token: the gateway's, else (an error answer, which the gateway sends without one)
// the range's at its LSN. The Java client's session read keeps an error (a 400, a 404) only when it
// carries a session token at least as new as the request's; without one the error becomes
// 404/1002, "The read session is not available" (StoreReader.readMultipleReplicaAsync).
void AddSessionTokens(rntbd::Tokens& out, const http::Response& res, const std::optional<http::ReplicaPath>& replica,
                      int64_t lsn) {
  const std::string addressed = replica ? replica->range : "";
  std::string range;
  if (auto session = HeaderOf(res, hd::kSessionToken)) {
    auto [session_range, token] = SplitSession(*session, addressed);
    range = session_range;
    if (token.size() <= 0xFFFF) out.list.push_back(rntbd::Token::String(st::kSessionToken, token));
  } else if (replica && !replica->master) {
    out.list.push_back(rntbd::Token::String(st::kSessionToken, "-1#" + std::to_string(lsn)));
  }
  if (auto h = HeaderOf(res, hd::kPartitionKeyRangeId); h && !h->empty()) range = std::string(*h);
  if (range.empty()) range = addressed;  // "M" for the master partition
  if (!range.empty()) out.list.push_back(rntbd::Token::String(st::kPartitionKeyRangeId, range));
}

rntbd::Response ToRntbd(const http::Response& res, int64_t lsn, const std::optional<http::ReplicaPath>& replica) {
  rntbd::Response out;
  out.status = res.result_int();
  if (!res.body().empty()) out.body = res.body();
  for (const auto& h : kResponseHeaders) {
    if (auto v = HeaderOf(res, h.header))
      if (auto t = TokenFor(h, *v)) out.tokens.list.push_back(std::move(*t));
  }
  std::optional<int64_t> item_lsn;
  if (auto v = HeaderOf(res, hd::kItemLsn)) item_lsn = util::ParseInteger<int64_t>(*v);
  AddReplicaTokens(out.tokens, lsn, item_lsn);
  AddSessionTokens(out.tokens, res, replica, lsn);
  // A fault rule's dropped connection or delay, which the server carries out (server/server.h).
  if (HeaderOf(res, server::kDropHeader)) out.drop_connection = true;
  if (auto v = HeaderOf(res, server::kDelayMsHeader)) out.delay_ms = util::ParseInteger<uint32_t>(*v).value_or(0);
  return out;
}

// An answer the bridge makes itself, in the gateway's error shape (a JSON object, as the client
// requires of an error body, spec §7.3).
http::Response ErrorAnswer(const CosmosError& e) {
  http::Response res{static_cast<boost::beast::http::status>(e.status), 11};
  std::string body = "{\"code\":";
  json::WriteString(body, e.code);
  body += ",\"message\":";
  json::WriteString(body, e.what());
  body += "}";
  res.body() = std::move(body);
  res.set(hd::kRequestCharge, "0");
  if (e.substatus) res.set(hd::kSubstatus, std::to_string(e.substatus));
  return res;
}

}  // namespace

bool AnswersAtOnce(const rntbd::Request& request, const http::Config&, bool item_writes) {
  // The request's verb and path, and the headers http::AnswersAtOnce reads (those that pick the
  // operation: query, upsert, batch; and the triggers); no body, no other header.
  try {
    const Shape shape = ShapeOf(request.operation_type);
    const std::string path = PathOf(request, shape);
    http::Request probe{shape.verb, boost::beast::string_view(path.data(), path.size()), 11};
    SetOperationHeaders(request, probe);
    for (auto [token, header] : {std::pair{rt::kPreTriggerInclude, hd::kPreTriggerInclude},
                                 std::pair{rt::kPostTriggerInclude, hd::kPostTriggerInclude}}) {
      if (auto v = TokenText(request, token)) probe.set(header, *v);
    }
    return http::AnswersAtOnce(probe, item_writes);
  } catch (const std::exception&) {
    return false;
  }
}

rntbd::Response Handle(http::Services& services, const rntbd::Request& request,
                       const server::Connection& connection) {
  std::optional<http::ReplicaPath> replica;
  http::Response res;
  try {
    http::Request req = MakeHttpRequest(request, services.config);
    CheckAddress(services, request, req, replica);
    res = http::Handle(services, req, /*secure=*/true, connection.cancelled);
  } catch (const CosmosError& e) {
    res = ErrorAnswer(e);
  } catch (const std::exception& e) {
    res = ErrorAnswer(CosmosError(500, 0, "InternalServerError", errors::Wrap(e.what())));
  }
  return ToRntbd(res, PartitionLsn(services, replica, res), replica);
}

}  // namespace cosmos::direct
