// /dbs/{db}/colls and /dbs/{db}/colls/{coll}
#include <unordered_set>

#include "charge/charge.h"
#include "common/errors.h"
#include "handlers/common.h"
#include "handlers/encryption.h"
#include "handlers/handlers.h"
#include "http/headers.h"
#include "query/container_settings.h"
#include "util/clock.h"
#include "util/util.h"

namespace cosmos::handlers {
namespace {

constexpr const char* kUniqueKeyChange =
    "The unique index cannot be modified. To change the unique index, remove the collection and re-create a new one.";


// Adds the body's clientEncryptionPolicy (checked, normalised) to the settings; returns its JSON.
std::optional<std::string> AddClientEncryptionPolicy(const json::Value& body, const store::Database& db,
                                                     store::ContainerSettings& st) {
  auto cep = ClientEncryptionPolicyFromBody(body, db);
  if (!cep) return cep;
  json::Document d;
  json::Parse(*cep, d);
  auto& a = st.extra.GetAllocator();
  st.extra.AddMember("clientEncryptionPolicy", json::Value(d, a), a);
  return cep;
}

store::PartitionKeyDefinition PartitionKeyFromBody(const json::Value& body, const store::Database& db) {
  auto pk = body.FindMember("partitionKey");
  if (pk == body.MemberEnd() || pk->value.IsNull()) {
    if (db.offer())
      throw CosmosError(400, 0, "BadRequest", "Shared throughput collection should have a partition key");
    // A container without a key: every item lives in the single "None" logical partition.
    json::Document d;
    d.Parse(R"({"paths":["/_partitionKey"],"kind":"Hash","systemKey":true})");
    return store::PartitionKeyDefinition::FromJson(d);
  }
  // A key the body names is the user's, "/_partitionKey" included (what SDKs send when the user
  // gives none): only "systemKey": true in the body makes it the system key.
  return store::PartitionKeyDefinition::FromJson(pk->value);
}

// The emulator's own header: how many physical partitions the new container gets (1-1024).
std::optional<int> PartitionCountFromHeader(const RequestContext& ctx) {
  auto h = ctx.Header(headers::kPartitionCount);
  if (!h) return std::nullopt;
  auto v = util::ParseInteger<int>(*h);
  if (!v || *v < 1 || *v > kMaxPartitionCount)
    throw errors::BadRequest(std::string("The ") + headers::kPartitionCount + " header must be an integer from 1 to " +
                             std::to_string(kMaxPartitionCount) + ".");
  return v;
}

// What each physical partition of `c` holds now: its live items, their bytes (as the JSON text
// clients get) and their distinct partition keys. Both the quota headers and the partition
// statistics read it.
struct PartitionUsage {
  const store::PhysicalPartition* partition;
  uint64_t count = 0;
  uint64_t bytes = 0;
  size_t distinct_keys = 0;
};
std::vector<PartitionUsage> PartitionUsages(Services& s, const store::Container& c) {
  const util::Instant now = s.clock.Now();
  const auto policy = c.settings()->items();
  std::vector<PartitionUsage> out;
  for (auto* p : c.partitions()) {
    PartitionUsage u{p};
    std::unordered_set<std::string_view> keys;
    const auto items = p->Feed(0, 0, now, policy);
    for (const auto& item : items) {
      ++u.count;
      u.bytes += item->size;
      keys.insert(item->pk());
    }
    u.distinct_keys = keys.size();
    out.push_back(u);
  }
  return out;
}

// What a container read with x-ms-documentdb-populatequotainfo: true adds, in the service's format
// ("key=value;" pairs, keys in the service's order): the quotas (the recorded service's values),
// the usage from the container's live items and scripts (sizes in KB, documentSize in MB), and
// the index transformation progress (0 to 100: the indexes a policy change asks for, built in the
// background; the new policy itself applies to the next request).
void QuotaHeaders(Services& s, const store::Container& c, Result& r) {
  uint64_t count = 0, bytes = 0;
  for (const auto& u : PartitionUsages(s, c)) {
    count += u.count;
    bytes += u.bytes;
  }
  const uint64_t kb = (bytes + 1023) / 1024;
  auto& scripts = c.scripts();
  const size_t udfs = scripts.List(store::ScriptKind::kUserDefinedFunction).size();
  const size_t sprocs = scripts.List(store::ScriptKind::kStoredProcedure).size();
  const size_t triggers = scripts.List(store::ScriptKind::kTrigger).size();
  r.headers.emplace_back(headers::kResourceQuota,
                         "functions=25;storedProcedures=100;triggers=25;documentSize=10240;documentsSize=10485760;"
                         "documentsCount=-1;collectionSize=10485760;");
  r.headers.emplace_back(headers::kResourceUsage,
                         "functions=" + std::to_string(udfs) + ";storedProcedures=" + std::to_string(sprocs) +
                             ";triggers=" + std::to_string(triggers) + ";documentSize=" +
                             std::to_string(bytes / (1024 * 1024)) + ";documentsSize=" + std::to_string(kb) +
                             ";documentsCount=" + std::to_string(count) + ";collectionSize=" + std::to_string(kb) +
                             ";");
  r.headers.emplace_back(headers::kIndexTransformationProgress, std::to_string(c.IndexTransformationProgress()));
}

// What a container read with x-ms-documentdb-populatepartitionstatistics: true adds to the body, in
// the service's format: per physical partition its range id, storage (KB, rounded up), item count
// and distinct partition keys. "partitionKeys" lists the service's largest logical partitions, and
// only those beyond its reporting threshold (1 GB), which an emulator's never reach: always empty.
void AddPartitionStatistics(Services& s, const store::Container& c, std::string& body) {
  std::string stats = ",\"statistics\":[";
  bool first = true;
  for (const auto& u : PartitionUsages(s, c)) {
    if (!first) stats += ",";
    first = false;
    stats += "{\"id\":";
    json::WriteString(stats, u.partition->range_id());
    stats += ",\"sizeInKB\":" + std::to_string((u.bytes + 1023) / 1024) +
             ",\"documentCount\":" + std::to_string(u.count) +
             ",\"sampledDistinctPartitionKeyCount\":" + std::to_string(u.distinct_keys) + ",\"partitionKeys\":[]}";
  }
  stats += "]";
  if (!body.empty() && body.back() == '}') body.insert(body.size() - 1, stats);
}

}  // namespace

Result CreateContainer(Services& s, RequestContext& ctx) {
  auto db = ResolveDatabase(s, ctx.Param("db"));
  json::Document body = ParseObjectBody(ctx.body());
  ValidateId(body);
  auto pk = PartitionKeyFromBody(body, *db);
  auto settings = query::ContainerSettingsFromJson(body);
  AddClientEncryptionPolicy(body, *db, settings);
  auto throughput = ThroughputFromHeaders(ctx);
  auto partitions = PartitionCountFromHeader(ctx);
  Result r;
  try {
    auto c = s.account.CreateContainer(*db, IdOf(body), std::move(pk), std::move(settings), throughput, partitions);
    r.status = 201;
    r.body = c->ToJson();
    r.headers.emplace_back(headers::kETag, c->etag());
  } catch (CosmosError& e) {
    e.charge = charge::RejectedWrite();
    throw;
  }
  r.charge = charge::MetadataWrite();
  return r;
}

Result ListContainers(Services& s, RequestContext& ctx) {
  auto db = ResolveDatabase(s, ctx.Param("db"));
  std::vector<std::string> items;
  for (auto& c : db->Containers()) items.push_back(c->ToJson());
  Result r;
  r.body = FeedJson(db->rid(), "DocumentCollections", Page(ctx, std::move(items), r));
  r.charge = charge::MetadataRead();
  return r;
}

Result QueryContainers(Services& s, RequestContext& ctx) {
  auto db = ResolveDatabase(s, ctx.Param("db"));
  std::vector<std::pair<std::string, std::string>> all;
  for (auto& c : db->Containers()) all.emplace_back(c->rid(), c->ToJson());
  return QueryResources(s, ctx, "DocumentCollections", db->rid(), all);
}

Result ReadContainer(Services& s, RequestContext& ctx) {
  auto c = ResolveContainer(s, ctx);  // a 404 is charged as a metadata lookup
  Result r;
  r.body = c->ToJson();
  r.headers.emplace_back(headers::kETag, c->etag());
  if (ctx.BoolHeader(headers::kPopulateQuotaInfo)) QuotaHeaders(s, *c, r);
  if (ctx.BoolHeader(headers::kPopulatePartitionStatistics)) AddPartitionStatistics(s, *c, r.body);
  r.charge = charge::MetadataRead();
  return r;
}

Result ReplaceContainer(Services& s, RequestContext& ctx) {
  auto c = ResolveContainer(s, ctx);
  json::Document body = ParseObjectBody(ctx.body());
  ValidateId(body);
  if (IdOf(body) != c->id())
    throw errors::BadRequest("The id in the request body does not match the container id in the URL.");
  auto pk = body.FindMember("partitionKey");
  if (pk != body.MemberEnd() && !pk->value.IsNull()) {
    auto def = store::PartitionKeyDefinition::FromJson(pk->value);
    if (def.paths != c->partition_key().paths || def.kind != c->partition_key().kind)
      throw errors::BadRequest("The partition key of a container cannot be changed.");
  }
  auto settings = query::ContainerSettingsFromJson(body);
  // The client encryption policy is fixed at creation: a replace must repeat it unchanged.
  auto cep = AddClientEncryptionPolicy(body, *ResolveDatabase(s, ctx.Param("db")), settings);
  std::optional<std::string> current_cep;
  {
    auto current = c->settings();
    if (auto it = current->extra.FindMember("clientEncryptionPolicy"); it != current->extra.MemberEnd())
      current_cep = json::Write(it->value);
  }
  if (cep != current_cep)
    throw errors::BadRequest("'clientEncryptionPolicy' cannot be changed as part of collection replace operation.");
  // Vector search is fixed at creation: the embedding policy and the vector indexes.
  {
    auto current = c->settings();
    auto text_of = [](const json::Value& o, const char* key) {
      auto it = o.FindMember(key);
      return it == o.MemberEnd() || it->value.IsNull() ? std::string() : json::Write(it->value);
    };
    if (text_of(settings.extra, "vectorEmbeddingPolicy") != text_of(current->extra, "vectorEmbeddingPolicy"))
      throw errors::BadRequest("Vector Embedding Policy cannot be changed in Collection Replace");
    if (text_of(settings.indexing.raw, "vectorIndexes") != text_of(current->indexing.raw, "vectorIndexes"))
      throw errors::BadRequest("Vector Indexing Policy cannot be changed in Collection Replace");
  }
  // Unique keys are fixed at creation: a replace must repeat them (403 otherwise, as the service
  // answers, also when it leaves them out).
  const store::UniqueKeysPtr current = c->settings()->unique_keys;
  const bool had = current && !current->empty();
  const bool has = settings.unique_keys && !settings.unique_keys->empty();
  if (had != has || (had && !settings.unique_keys->SameKeys(*current))) throw errors::Forbidden(errors::Wrap(kUniqueKeyChange));
  if (!settings.unique_keys) settings.unique_keys = current;
  if (auto precondition = ctx.Header(headers::kIfMatch); precondition && *precondition != "*" && *precondition != c->etag())
    throw errors::PreconditionFailed();
  int64_t ts = s.clock.UnixSeconds();
  c->Replace(std::move(settings), ts, s.account.NewEtag(ts));
  Result r;
  r.body = c->ToJson();
  r.headers.emplace_back(headers::kETag, c->etag());
  r.charge = charge::MetadataWrite();
  return r;
}

Result DeleteContainer(Services& s, RequestContext& ctx) {
  auto db = ResolveDatabase(s, ctx.Param("db"));
  if (!db->RemoveContainer(ctx.Param("coll"))) throw MetadataNotFound();
  Result r;
  r.status = 204;
  r.charge = charge::MetadataWrite();
  return r;
}

Result NotYetImplemented(Services&, RequestContext& ctx) {
  std::string what;
  for (auto& s : ctx.segments()) {
    if (s == "conflicts" || s == "attachments") what = s;
  }
  static const std::pair<const char*, const char*> kNames[] = {{"conflicts", "Conflicts"}, {"attachments", "Attachments"}};
  for (auto& [k, v] : kNames) {
    if (what == k) throw errors::NotImplemented(v);
  }
  throw errors::NotImplemented("This resource");
}

}  // namespace cosmos::handlers
