// POST .../docs with x-ms-cosmos-is-batch-request: a transactional batch (x-ms-cosmos-batch-atomic:
// true; one logical partition, all or nothing) or a bulk request (atomic false; one partition key
// range, each operation on its own). docs/batch.md describes both.
#include <cmath>

#include "charge/charge.h"
#include "common/errors.h"
#include "handlers/common.h"
#include "handlers/handlers.h"
#include "handlers/items.h"
#include "http/headers.h"
#include "store/indexing.h"
#include "util/clock.h"
#include "util/util.h"

namespace cosmos::handlers {
namespace {

// The service's limits on one batch request.
constexpr size_t kMaxBatchOperations = 100;
constexpr size_t kMaxBodyBytes = 2202010;

// What one operation answered.
struct OpResult {
  int status = 0;
  int substatus = 0;
  double charge = 0;
  store::ItemPtr item;  // the image to return (writes other than delete, reads)
  int retry_after_ms = 0;
  bool read = false;  // a Read operation: its body is returned even under Prefer: return=minimal
  bool failed() const { return status >= 400; }
};

OpResult Failure(const CosmosError& e) {
  OpResult r;
  r.status = e.status;
  r.substatus = e.substatus;
  r.charge = e.charge;
  r.retry_after_ms = e.retry_after_ms;
  return r;
}

enum class OpType { kCreate, kUpsert, kRead, kReplace, kDelete, kPatch };

OpType ParseOpType(const json::Value& op) {
  auto it = op.FindMember("operationType");
  if (it == op.MemberEnd() || !it->value.IsString())
    throw errors::BadRequest("Every batch operation needs an operationType.");
  std::string_view t(it->value.GetString(), it->value.GetStringLength());
  static const std::pair<std::string_view, OpType> kTypes[] = {
      {"Create", OpType::kCreate},   {"Upsert", OpType::kUpsert}, {"Read", OpType::kRead},
      {"Replace", OpType::kReplace}, {"Delete", OpType::kDelete}, {"Patch", OpType::kPatch}};
  for (auto& [name, type] : kTypes) {
    if (util::EqualsIgnoreCase(t, name)) return type;
  }
  throw errors::BadRequest("The batch operation type '" + std::string(t) + "' is not valid.");
}

std::optional<std::string> StringField(const json::Value& op, const char* name) {
  auto it = op.FindMember(name);
  if (it == op.MemberEnd() || it->value.IsNull()) return std::nullopt;
  if (!it->value.IsString()) throw errors::BadRequest(std::string("The batch operation's ") + name + " must be a string.");
  return std::string(it->value.GetString(), it->value.GetStringLength());
}

std::string RequiredId(const json::Value& op) {
  auto id = StringField(op, "id");
  if (!id || id->empty()) throw errors::BadRequest("This batch operation needs the id of the item it addresses.");
  return *id;
}

const json::Value& RequiredBody(const json::Value& op) {
  auto it = op.FindMember("resourceBody");
  if (it == op.MemberEnd() || !it->value.IsObject())
    throw errors::BadRequest("This batch operation needs a resourceBody object.");
  return it->value;
}

// The operation's own partitionKey (a JSON text such as "[\"a\"]"), when it carries one.
std::optional<store::PartitionKeyValue> OpKey(const json::Value& op, const store::Container& c) {
  auto text = StringField(op, "partitionKey");
  if (!text) return std::nullopt;
  return store::ParsePartitionKeyHeader(c.partition_key(), *text);
}

// Runs one operation against `t` through `write` (writes) and `read` (reads). Failures come back as
// results, never as exceptions.
OpResult RunOp(Services& s, const RequestContext& ctx, const Target& t, const json::Value& op,
               const PartitionWrite& write, const std::function<store::ItemPtr(const std::string&)>& read) {
  try {
    const OpType type = ParseOpType(op);
    store::Preconditions pre;
    pre.if_match = StringField(op, "ifMatch");
    pre.if_none_match = StringField(op, "ifNoneMatch");
    const auto directive_text = StringField(op, "indexingDirective");
    const store::IndexingDirective directive =
        IndexingDirectiveOf(directive_text ? std::optional<std::string_view>(*directive_text) : std::nullopt);
    OpResult r;
    if (type == OpType::kRead) {
      r.read = true;
      const std::string id = RequiredId(op);
      r.item = read(id);
      if (!r.item) {
        auto e = errors::NotFound();
        e.charge = charge::PointReadNotFound();
        throw e;
      }
      r.charge = charge::PointRead({r.item->kb(), 0}, ReadConsistency(s, ctx));
      if (pre.if_match && *pre.if_match != "*" && *pre.if_match != r.item->etag()) {
        auto e = errors::PreconditionFailed();
        e.charge = r.charge;
        throw e;
      }
      r.status = 200;
      if (pre.if_none_match && (*pre.if_none_match == "*" || *pre.if_none_match == r.item->etag())) {
        r.status = 304;
        r.item = nullptr;
      }
      return r;
    }
    store::WriteKind kind = store::WriteKind::kReplace;
    store::WriteResult w;
    switch (type) {
      case OpType::kCreate:
      case OpType::kUpsert:
        kind = type == OpType::kCreate ? store::WriteKind::kCreate : store::WriteKind::kUpsert;
        w = WriteItem(s, t, kind, RequiredBody(op), std::nullopt, pre, write, directive);
        break;
      case OpType::kReplace: {
        const std::string id = RequiredId(op);
        w = WriteItem(s, t, kind, RequiredBody(op), id, pre, write, directive);
        break;
      }
      case OpType::kDelete: {
        kind = store::WriteKind::kDelete;
        const std::string id = RequiredId(op);
        w = ChargedWrite([&] {
          return write(kind, id, pre, [](const store::ItemPtr&, uint64_t, uint64_t) { return store::ItemPtr(); });
        });
        break;
      }
      case OpType::kPatch: {
        const std::string id = RequiredId(op);
        json::Document body;
        body.CopyFrom(RequiredBody(op), body.GetAllocator());
        PatchRequest patch = ChargedWrite([&] { return ParsePatchRequest(std::move(body), t.c->partition_key()); });
        w = PatchItem(s, id, patch, pre, write, !t.settings->indexing.IndexesWrite(directive));
        break;
      }
      case OpType::kRead:
        break;
    }
    auto [status, ru] = WriteOutcome(kind, w, *t.settings);
    r.status = status;
    r.charge = ru;
    r.item = w.item;
    return r;
  } catch (CosmosError& e) {
    return Failure(e);
  }
}

// [{"statusCode":..,"requestCharge":..,"eTag":..,"resourceBody":{..}}, ...]. `minimal`: the client
// asked for no write bodies (Prefer: return=minimal).
std::string ResultsJson(const std::vector<OpResult>& results, bool minimal, bool with_substatus) {
  std::string out = "[";
  for (size_t i = 0; i < results.size(); ++i) {
    const OpResult& r = results[i];
    if (i) out += ',';
    out += "{\"statusCode\":" + std::to_string(r.status);
    if (with_substatus && r.substatus) out += ",\"subStatusCode\":" + std::to_string(r.substatus);
    out += ",\"requestCharge\":";
    json::WriteDouble(out, charge::Round2(r.charge));
    if (r.retry_after_ms) out += ",\"retryAfterMilliseconds\":" + std::to_string(r.retry_after_ms);
    if (r.item) {
      out += ",\"eTag\":";
      json::WriteString(out, r.item->etag());
      if (!minimal || r.read) {
        out += ",\"resourceBody\":";
        r.item->AppendText(out);
      }
    }
    out += '}';
  }
  out += ']';
  return out;
}

Result Answer(const RequestContext& ctx, const std::vector<OpResult>& results, const store::Container& c,
              const store::PhysicalPartition& p, uint64_t lsn, bool atomic) {
  Result r;
  bool all_ok = true;  // every operation 2xx (a 304 read neither fails a batch nor keeps it 200)
  double total = 0;
  for (const auto& result : results) {
    all_ok &= result.status >= 200 && result.status < 300;
    total += charge::Round2(result.charge);
  }
  r.status = all_ok ? 200 : 207;
  r.body = ResultsJson(results, ReturnsMinimal(ctx), !atomic);
  r.headers.emplace_back(headers::kItemCount, std::to_string(results.size()));
  ItemHeaders(r, ctx, c, p, lsn);
  r.charge = charge::Round2(total);
  return r;
}

// Parses the body: a JSON array of 1..100 operations, at most the service's batch size.
json::Document ParseOperations(const RequestContext& ctx) {
  if (ctx.body().size() > kMaxBodyBytes) throw errors::RequestTooLarge();
  json::Document ops = ParseBody(ctx.body());
  if (!ops.IsArray()) throw errors::BadRequest("The batch request body must be a JSON array of operations.");
  if (ops.Empty()) throw errors::BadRequest("Batch request has no operations.");
  if (ops.Size() > kMaxBatchOperations) throw errors::BadRequest("Batch request has more operations than what is supported.");
  for (auto& op : ops.GetArray()) {
    if (!op.IsObject()) throw errors::BadRequest("Every batch operation must be a JSON object.");
  }
  return ops;
}

// All or nothing, in the logical partition of the partition key header.
Result Atomic(Services& s, RequestContext& ctx, store::ContainerPtr c) {
  json::Document ops = ParseOperations(ctx);
  // A prefix of a hierarchical key names no one logical partition: the service answers a batch
  // with it in these words (the Python SDK's test_batch_subpartition). (Other keys short of the
  // definition are refused by HeaderKey.)
  const auto& def = c->partition_key();
  auto header = ctx.scope().partition_key;
  store::PartitionKeyValue key = header && def.kind == "MultiHash" ? store::ParsePartitionKeyHeader(def, *header, true)
                                                                    : HeaderKey(ctx, *c);
  if (def.kind == "MultiHash" && key.components.size() < def.paths.size()) {
    throw errors::BadRequest(
        "Partition key provided either doesn't correspond to definition in the collection or doesn't match "
        "partition key field values specified in the document.",
        1001);
  }
  Target t = TargetOf(c, key);
  Admit(s, ctx, t.c, {t.partition});
  const util::Instant now = s.clock.Now();
  auto tx = t.partition->Begin(t.pk, t.settings->items());
  auto write = Into(s, *tx);
  auto read = [&](const std::string& id) { return tx->Read(id, now); };
  std::vector<OpResult> results(ops.Size());
  std::optional<size_t> failed;
  for (size_t i = 0; i < ops.Size() && !failed; ++i) {
    const json::Value& op = ops[static_cast<rapidjson::SizeType>(i)];
    std::optional<store::PartitionKeyValue> key;
    try {
      key = OpKey(op, *c);
    } catch (CosmosError& e) {
      results[i] = Failure(e);
    }
    if (key && key->Canonical() != t.pk) {
      auto e = errors::PartitionKeyMismatch();
      e.charge = charge::RejectedWrite();
      results[i] = Failure(e);
    }
    if (!results[i].failed()) results[i] = RunOp(s, ctx, t, op, write, read);
    if (results[i].failed()) failed = i;
  }
  uint64_t lsn = 0;
  if (failed) {
    // Nothing is applied: the transaction rolls back when it ends. The operations before the
    // failing one keep the charge of the work they did; those after it never ran.
    for (size_t i = 0; i < results.size(); ++i) {
      if (i == *failed) continue;
      results[i] = OpResult{424, 0, i < *failed ? results[i].charge : 0, nullptr, 0};
    }
    lsn = t.partition->lsn();
  } else {
    lsn = tx->Commit(now);
  }
  tx.reset();
  // The failing operation's substatus travels in the response header (its result carries none).
  const int substatus = failed ? results[*failed].substatus : 0;
  Result r = Answer(ctx, results, *c, *t.partition, lsn, true);
  if (substatus) r.headers.emplace_back(headers::kSubstatus, std::to_string(substatus));
  return r;
}

// Each operation on its own, in the addressed partition key range (or logical partition).
Result NonAtomic(Services& s, RequestContext& ctx, store::ContainerPtr c) {
  json::Document ops = ParseOperations(ctx);
  const bool continue_on_error = ctx.BoolHeader(headers::kBatchContinueOnError);
  std::optional<store::PartitionKeyValue> header_key;
  store::PhysicalPartition* partition = nullptr;
  if (ctx.scope().partition_key) {
    header_key = HeaderKey(ctx, *c);
    partition = &c->PartitionFor(*header_key);
  } else if (auto range = ctx.scope().range_id) {
    partition = c->PartitionById(*range);
    if (!partition) throw RangeGone(*range);
  } else {
    throw errors::BadRequest(
        "A non-atomic batch must name its partition key (x-ms-documentdb-partitionkey) or partition key range "
        "(x-ms-documentdb-partitionkeyrangeid).");
  }
  // Throughput is spent operation by operation: each one may be throttled on its own.
  Admit(s, ctx, c, {partition}, /*check_budget=*/false);
  ctx.usage.consumed = true;
  const util::Instant now = s.clock.Now();
  std::vector<OpResult> results(ops.Size());
  bool stopped = false;
  std::optional<CosmosError> throttled;  // once the budget is spent, the rest of the request waits alike
  for (size_t i = 0; i < ops.Size(); ++i) {
    if (stopped) {
      results[i] = OpResult{424, 0, 0, nullptr, 0};
      continue;
    }
    const json::Value& op = ops[static_cast<rapidjson::SizeType>(i)];
    OpResult& r = results[i];
    try {
      auto key = OpKey(op, *c);
      if (header_key && key && key->Canonical() != header_key->Canonical()) throw errors::PartitionKeyMismatch();
      if (!key) key = header_key;
      if (!key) throw errors::BadRequest("Every operation of a bulk request needs its partitionKey.");
      Target t = TargetOf(c, *key);
      if (t.partition != partition)
        throw CosmosError(410, 1002, "Gone",
                          errors::Wrap("The operation's partition key belongs to another partition key range."));
      if (throttled) throw *throttled;
      try {
        s.limiter.Admit(*c, {partition});
      } catch (CosmosError& e) {
        throttled = e;
        throw;
      }
      r = RunOp(s, ctx, t, op, Direct(s, t),
                [&](const std::string& id) { return partition->Read(t.pk, id, now, t.settings->items()); });
      s.limiter.Consume(*c, {partition}, r.charge);
    } catch (CosmosError& e) {
      r = Failure(e);
      if (e.status != 429) s.limiter.Consume(*c, {partition}, r.charge);
    }
    if (r.failed() && !continue_on_error) stopped = true;
  }
  return Answer(ctx, results, *c, *partition, partition->lsn(), false);
}

}  // namespace

Result ExecuteBatch(Services& s, RequestContext& ctx) { return Atomic(s, ctx, ResolveContainer(s, ctx)); }

Result ExecuteBulk(Services& s, RequestContext& ctx) { return NonAtomic(s, ctx, ResolveContainer(s, ctx)); }

}  // namespace cosmos::handlers
