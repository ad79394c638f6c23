// /dbs/{db}/colls/{coll}/docs and /docs/{id}: item create, upsert, read, replace, delete, patch, read feed.
#include <algorithm>
#include <charconv>
#include <cstring>
#include <iterator>
#include <stdexcept>
#include <tuple>

#include "charge/charge.h"
#include "common/errors.h"
#include "handlers/common.h"
#include "handlers/handlers.h"
#include "handlers/items.h"
#include "handlers/patch.h"
#include "handlers/scripts.h"
#include "http/headers.h"
#include "json/cosmos_binary.h"
#include "query/condition.h"
#include "store/indexing.h"
#include "store/ttl.h"
#include "util/clock.h"
#include "util/util.h"

namespace cosmos::handlers {
namespace {

bool IsSystemProperty(const json::Value& name) {
  std::string_view n(name.GetString(), name.GetStringLength());
  return n == "_rid" || n == "_self" || n == "_etag" || n == "_ts" || n == "_attachments";
}

}  // namespace

charge::ItemFacts Facts(const store::Item& item, const store::ContainerSettings& st) {
  // An item left out of the index writes no index terms.
  charge::ItemFacts f{item.kb(), item.unindexed ? 0 : st.indexing.CountTerms(item.body)};
  // Each vector index the item's vectors enter (an array of the embedding's length at its path).
  if (st.vectors && st.indexing.mode != "none" && !item.unindexed) {
    for (const auto& e : st.vectors->embeddings) {
      if (e.index == store::VectorIndexType::kNone) continue;
      const json::Value* v = store::FindKeyPath(item.body, e.segments);
      if (v == nullptr || !v->IsArray() || v->Size() != static_cast<rapidjson::SizeType>(e.dimensions)) continue;
      f.vectors += charge::VectorIndexWrite(
          e.index == store::VectorIndexType::kDiskAnn ? charge::VectorSearchKind::kGraph : charge::VectorSearchKind::kQuantized,
          e.dimensions);
    }
  }
  return f;
}

// The item's own "ttl": absent -> nullopt; present (null included) it must be valid (ValidTtl).
std::optional<int64_t> ItemTtl(const json::Value& doc) {
  auto it = doc.FindMember("ttl");
  if (it == doc.MemberEnd()) return std::nullopt;
  return store::ValidTtl(it->value);
}

store::DraftPtr DraftItem(const json::Value& user, const std::string& pk, const std::string& epk) {
  auto item = store::NewItem();
  auto& draft = item->Draft();
  auto& a = draft.GetAllocator();
  draft.SetObject();
  for (auto& m : user.GetObject()) {
    if (IsSystemProperty(m.name)) continue;
    draft.AddMember(json::Value(m.name, a), json::Value(m.value, a), a);
  }
  item->set_id(IdOf(user));
  item->set_pk(pk);
  item->set_epk(epk);
  item->ttl = ItemTtl(user);
  return item;
}

namespace {

// The system properties PrepareItem adds after the user's, in this order (StampItem finds them
// there).
constexpr std::string_view kStamped[] = {"_rid", "_self", "_etag", "_attachments", "_ts"};

size_t Digits(int64_t v) {
  char buf[24];
  return static_cast<size_t>(std::to_chars(buf, buf + sizeof buf, v).ptr - buf);
}

}  // namespace

store::DraftPtr PrepareItem(Services& s, const store::Container& c, store::DraftPtr item,
                            store::IndexingDirective directive) {
  item->unindexed = !c.settings()->indexing.IndexesWrite(directive);
  auto& draft = item->Draft();
  auto& a = draft.GetAllocator();
  // Held open until the write: texts of the lengths the write's own will have (a rid's length
  // does not depend on the sequence number, nor an etag's on its counter and time), and this
  // second as _ts.
  item->set_written(s.clock.Now());
  item->set_etag(store::Account::EtagOf(0, 0));
  item->set_rid(c.ItemRid(0));
  const std::string self = c.self() + "docs/" + std::string(item->rid()) + "/";
  draft.AddMember("_rid", json::Value(item->rid().data(), a), a);
  draft.AddMember("_self", json::Value(self.c_str(), a), a);
  draft.AddMember("_etag", json::Value(item->etag().data(), a), a);
  draft.AddMember("_attachments", "attachments/", a);
  draft.AddMember("_ts", item->ts, a);
  item->Seal();
  return item;
}

store::ItemPtr StampItem(Services& s, const store::Container& c, store::DraftPtr item, uint64_t seq,
                         uint64_t lsn, size_t max_bytes) {
  // The item is not shared yet: its sealed block is changed in place, each text keeping its length.
  auto& body = const_cast<json::Value&>(item->body);
  const size_t n = body.MemberCount();
  if (n < std::size(kStamped)) throw std::logic_error("StampItem: the item was not prepared");
  auto m = body.MemberBegin() + static_cast<std::ptrdiff_t>(n - std::size(kStamped));
  for (size_t i = 0; i < std::size(kStamped); ++i) {
    if (std::string_view(m[i].name.GetString(), m[i].name.GetStringLength()) != kStamped[i])
      throw std::logic_error("StampItem: the item was not prepared");
  }
  auto fill = [](json::Value& v, size_t at, std::string_view text) {
    if (at + text.size() > v.GetStringLength()) throw std::logic_error("StampItem: a text changed its length");
    std::memcpy(const_cast<char*>(v.GetString()) + at, text.data(), text.size());
  };
  const int64_t held_ts = item->ts;
  item->set_written(s.clock.Now());
  item->seq = seq;
  item->lsn = lsn;
  const std::string rid = c.ItemRid(seq);
  const std::string etag = s.account.NewEtag(item->ts);
  fill(m[0].value, 0, rid);
  fill(m[1].value, m[1].value.GetStringLength() - rid.size() - 1, rid);  // dbs/../colls/../docs/<rid>/
  fill(m[2].value, 0, etag);
  m[4].value.SetInt64(item->ts);
  item->size = static_cast<uint32_t>(item->size - Digits(held_ts) + Digits(item->ts));
  // The rid and etag texts are read from the document (Item::ShareTextsWithBody); set otherwise.
  if (item->rid() != rid) item->set_rid(rid);
  if (item->etag() != etag) item->set_etag(etag);
  if (item->size > max_bytes) throw errors::RequestTooLarge();
  return item;
}

store::ItemPtr FinishItem(Services& s, const store::Container& c, store::DraftPtr item, uint64_t seq,
                          uint64_t lsn, size_t max_bytes, store::IndexingDirective directive) {
  return StampItem(s, c, PrepareItem(s, c, std::move(item), directive), seq, lsn, max_bytes);
}

// Builds the stored image: user properties in the order given, then the system properties.
store::ItemPtr MakeItem(Services& s, const store::Container& c, const json::Value& user, const std::string& pk,
                        const std::string& epk, uint64_t seq, uint64_t lsn, size_t max_bytes,
                        store::IndexingDirective directive) {
  return FinishItem(s, c, DraftItem(user, pk, epk), seq, lsn, max_bytes, directive);
}

store::IndexingDirective IndexingDirectiveOf(const std::optional<std::string_view>& text) {
  if (!text) return store::IndexingDirective::kDefault;
  auto d = store::ParseIndexingDirective(*text);
  if (!d)
    throw errors::BadRequest("The indexing directive '" + std::string(*text) +
                             "' is invalid: it must be Default, Include or Exclude.");
  return *d;
}

Target TargetOf(store::ContainerPtr c, const store::PartitionKeyValue& key) {
  Target t;
  t.c = std::move(c);
  t.pk = key.Canonical();
  t.settings = t.c->settings();
  auto placement = t.c->Locate(key);
  t.epk = std::move(placement.epk);
  t.partition = placement.partition;
  return t;
}

PartitionWrite Direct(Services& s, const Target& t) {
  return [&s, &t](store::WriteKind kind, const std::string& id, const store::Preconditions& pre,
                  const store::PhysicalPartition::Maker& make) {
    return t.partition->Write(kind, t.pk, id, pre, s.clock.Now(), t.settings->items(), make);
  };
}

PartitionWrite Into(Services& s, store::Transaction& tx) {
  return [&s, &tx](store::WriteKind kind, const std::string& id, const store::Preconditions& pre,
                   const store::PhysicalPartition::Maker& make) { return tx.Write(kind, id, pre, s.clock.Now(), make); };
}

CheckedItem CheckItemWrite(const store::PartitionKeyDefinition& def, const json::Value& doc,
                           const ItemExpectation& expect) {
  ValidateId(doc, IdKind::kItem);
  CheckedItem item;
  item.id = IdOf(doc);
  item.key = store::ExtractPartitionKey(def, doc);
  item.pk = item.key.Canonical();
  if (expect) expect(item);
  ItemTtl(doc);  // checked here, in the order the service checks; MakeItem keeps it
  return item;
}

store::WriteResult WriteItem(Services& s, const Target& t, store::WriteKind kind, const json::Value& body,
                             const std::optional<std::string>& addressed_id, const store::Preconditions& pre,
                             const PartitionWrite& write, store::IndexingDirective directive) {
  return ChargedWrite([&] {
    const CheckedItem item = CheckItemWrite(t.c->partition_key(), body, [&](const CheckedItem& i) {
      if (i.pk != t.pk) throw errors::PartitionKeyMismatch();
    });
    // Built and sealed before the partition's lock is taken; the write fills in its rid, time and
    // etag (StampItem).
    auto prepared = PrepareItem(s, *t.c, DraftItem(body, t.pk, t.epk), directive);
    // A replace addresses the item by the id in its URL; a body that names another id renames it
    // (store::PhysicalPartition::Store), as the service does.
    return write(kind, addressed_id ? *addressed_id : item.id, pre, [&](const store::ItemPtr&, uint64_t seq, uint64_t lsn) {
      return StampItem(s, *t.c, prepared, seq, lsn, s.config.max_item_bytes);
    });
  });
}

std::pair<int, double> WriteOutcome(store::WriteKind kind, const store::WriteResult& w,
                                    const store::ContainerSettings& st) {
  switch (kind) {
    case store::WriteKind::kDelete:
      return {204, charge::Delete(Facts(*w.previous, st))};
    case store::WriteKind::kReplace:
      return {200, charge::Replace(Facts(*w.item, st))};
    case store::WriteKind::kCreate:
    case store::WriteKind::kUpsert:
      break;
  }
  auto facts = Facts(*w.item, st);
  return {w.created ? 201 : 200, w.created ? charge::Create(facts) : charge::Replace(facts)};
}

namespace {

// Same as MakeItem for a patched image: keeps the stored property order, refreshes _etag and _ts.
store::ItemPtr MakePatchedItem(Services& s, const store::Item& current, const json::Value& ops, uint64_t lsn,
                               size_t max_bytes, bool unindexed) {
  auto item = store::NewItem();
  auto& draft = item->Draft();
  auto& a = draft.GetAllocator();
  draft.CopyFrom(current.body, a);
  draft.RemoveMember("_ts");
  ApplyPatch(draft, a, ops);
  item->set_id(current.id());
  item->set_pk(current.pk());
  item->set_epk(current.epk());
  item->set_written(s.clock.Now());
  item->set_etag(s.account.NewEtag(item->ts));
  item->set_rid(current.rid());
  item->seq = current.seq;
  item->lsn = lsn;
  item->ttl = ItemTtl(draft);
  item->unindexed = unindexed;
  draft["_etag"].SetString(item->etag().data(), a);
  draft.AddMember("_ts", item->ts, a);
  item->Seal();
  if (item->size > max_bytes) throw errors::RequestTooLarge();
  return item;
}

// Parses and validates an item body: size, JSON (text, or Cosmos binary JSON as the Rust SDK sends
// it by default, which the service takes as it takes text), object, id.
json::Document ParseItemBody(Services& s, const RequestContext& ctx) {
  if (ctx.body().size() > s.config.max_item_bytes) throw errors::RequestTooLarge();
  std::optional<std::string> text;
  if (json::IsCosmosBinary(ctx.body())) {
    bool too_deep = false;
    text = json::CosmosBinaryToText(ctx.body(), nullptr, &too_deep);
    if (!text) throw too_deep ? errors::NestingTooDeep() : errors::MalformedPayload();
  }
  json::Document body = ParseObjectBody(text ? *text : ctx.body());
  ValidateId(body, IdKind::kItem);
  return body;
}

// The request's x-ms-indexing-directive.
store::IndexingDirective DirectiveOf(const RequestContext& ctx) {
  return IndexingDirectiveOf(ctx.Header(headers::kIndexingDirective));
}

store::Preconditions PreconditionsOf(const RequestContext& ctx) {
  store::Preconditions pre;
  pre.if_match = IfMatchHeader(ctx);
  return pre;
}

// Locates the item's partition and admits the request against its throughput (429 when spent).
Target TargetIn(Services& s, store::ContainerPtr c, RequestContext& ctx) {
  Target t = TargetOf(c, HeaderKey(ctx, *c));
  Admit(s, ctx, t.c, {t.partition});
  return t;
}

Target ResolveTarget(Services& s, RequestContext& ctx) {
  return TargetIn(s, ResolveContainer(s, ctx), ctx);
}

// A successful item write's response: the new image (if any), etag and session headers.
Result WriteResponse(int status, const store::WriteResult& w, const Target& t, const RequestContext& ctx,
                     double charge) {
  Result r;
  r.status = status;
  if (w.item) {
    if (!ReturnsMinimal(ctx)) r.body = w.item->Text();
    r.headers.emplace_back(headers::kETag, w.item->etag());
  }
  ItemHeaders(r, ctx, *t.c, *t.partition, w.lsn);
  r.charge = charge;
  return r;
}

// Answers a write: directly, or (when the request names triggers) in one transaction with them.
Result AnswerWrite(Services& s, RequestContext& ctx, const Target& t, store::WriteKind kind, const json::Value* body,
                   const std::string& id, const std::function<store::WriteResult(const PartitionWrite&, const json::Value*)>& apply) {
  Triggers triggers = RequestTriggers(ctx, *t.c);
  if (!triggers.any()) {
    auto result = apply(Direct(s, t), body);
    auto [status, ru] = WriteOutcome(kind, result, *t.settings);
    return WriteResponse(status, result, t, ctx, ru);
  }
  auto tw = RunTriggered(s, ctx, t.c, *t.partition, t.pk, t.epk, triggers, kind, id, body,
                         [&](store::Transaction& tx, const json::Value* written) { return apply(Into(s, tx), written); });
  auto [status, ru] = WriteOutcome(kind, tw.result, *t.settings);
  tw.result.lsn = tw.lsn;
  Result r = WriteResponse(status, tw.result, t, ctx, charge::Round2(ru + tw.scripts_charge));
  if (tw.response && !ReturnsMinimal(ctx)) r.body = *tw.response;
  if (auto log = ScriptLogHeader(ctx, tw.log)) r.headers.push_back(*log);
  return r;
}

Result CreateOrUpsert(Services& s, RequestContext& ctx, store::WriteKind kind) {
  // 404 for the container before anything else, as the service answers.
  Target t = TargetIn(s, ResolveContainer(s, ctx), ctx);
  const store::IndexingDirective directive = DirectiveOf(ctx);
  json::Document body = ChargedWrite([&] { return ParseItemBody(s, ctx); });
  return AnswerWrite(s, ctx, t, kind, &body, IdOf(body), [&](const PartitionWrite& write, const json::Value* doc) {
    return WriteItem(s, t, kind, *doc, std::nullopt, PreconditionsOf(ctx), write, directive);
  });
}

// Read-feed continuation: "<range id>:<last sequence number read in that range>", then, once a
// range was split under a read, ",<range>:<sequence number>" for each range whose descendants
// further on must also start after that number (they keep its items' sequence numbers, and the
// pages before the split returned those up to it). A continuation that names a range that was
// split resumes in the first of its children.
struct FeedResume {
  size_t index = 0;    // the first range to read
  uint64_t after = 0;  // ... after this sequence number
  std::vector<std::pair<std::string, uint64_t>> floors;

  // Where range `p` (after the first) starts.
  uint64_t StartOf(const store::PhysicalPartition& p) const {
    uint64_t at = 0;
    for (const auto& [range, seq] : floors)
      if (p.DescendsFrom(range)) at = std::max(at, seq);
    return at;
  }
  // The continuation after `seq` in parts[pi].
  std::string Next(const std::vector<store::PhysicalPartition*>& parts, size_t pi, uint64_t seq) const {
    std::string out = parts[pi]->range_id() + ":" + std::to_string(seq);
    for (const auto& [range, at] : floors) {
      for (size_t j = pi + 1; j < parts.size(); ++j) {
        if (parts[j]->DescendsFrom(range)) {
          out += "," + range + ":" + std::to_string(at);
          break;
        }
      }
    }
    return out;
  }
};
FeedResume ParseFeedContinuation(std::string_view token, const std::vector<store::PhysicalPartition*>& parts) {
  auto invalid = [] { return CosmosError(400, 0, "BadRequest", "Invalid Continuation Token"); };
  FeedResume r;
  bool first = true;
  for (size_t from = 0; from <= token.size();) {
    auto comma = token.find(',', from);
    auto entry = token.substr(from, comma == std::string_view::npos ? std::string_view::npos : comma - from);
    auto colon = entry.find(':');
    if (colon == std::string_view::npos) throw invalid();
    auto range = entry.substr(0, colon);
    auto seq = util::ParseInteger<uint64_t>(entry.substr(colon + 1));
    if (!seq) throw invalid();
    if (first) {
      auto it = std::find_if(parts.begin(), parts.end(), [&](auto* p) { return p->DescendsFrom(range); });
      if (it == parts.end()) throw invalid();
      r.index = static_cast<size_t>(it - parts.begin());
      r.after = *seq;
      if ((*it)->range_id() != range) r.floors.emplace_back(range, *seq);  // split since: its children too
      first = false;
    } else {
      r.floors.emplace_back(range, *seq);
    }
    if (comma == std::string_view::npos) break;
    from = comma + 1;
  }
  return r;
}

}  // namespace

PatchRequest ParsePatchRequest(json::Document body, const store::PartitionKeyDefinition& pk) {
  PatchRequest p;
  p.doc = std::move(body);
  p.ops = &p.doc;
  if (p.doc.IsObject()) {
    auto cond = p.doc.FindMember("condition");
    if (cond != p.doc.MemberEnd() && !cond->value.IsNull()) {
      if (!cond->value.IsString()) throw errors::BadRequest("The patch condition must be a string.");
      p.condition = std::string(cond->value.GetString(), cond->value.GetStringLength());
    }
    auto it = p.doc.FindMember("operations");
    if (it == p.doc.MemberEnd()) throw errors::BadRequest("The patch request must carry an 'operations' array.");
    p.ops = &it->value;
  }
  ValidatePatchOperations(*p.ops, pk.parts);
  return p;
}

store::WriteResult PatchItem(Services& s, const std::string& id, const PatchRequest& patch,
                             const store::Preconditions& pre, const PartitionWrite& write, bool unindexed) {
  return ChargedWrite([&] {
    return write(store::WriteKind::kReplace, id, pre, [&](const store::ItemPtr& current, uint64_t, uint64_t lsn) {
      if (patch.condition && !query::EvaluatePatchCondition(*patch.condition, current->body))
        throw errors::PreconditionFailed();
      return MakePatchedItem(s, *current, *patch.ops, lsn, s.config.max_item_bytes, unindexed);
    });
  });
}

Result CreateDocument(Services& s, RequestContext& ctx) { return CreateOrUpsert(s, ctx, store::WriteKind::kCreate); }

Result UpsertDocument(Services& s, RequestContext& ctx) { return CreateOrUpsert(s, ctx, store::WriteKind::kUpsert); }

Result ReadDocument(Services& s, RequestContext& ctx) {
  Target t = ResolveTarget(s, ctx);
  auto item = t.partition->Read(t.pk, ctx.Param("id"), s.clock.Now(), t.settings->items());
  if (!item) {
    auto e = errors::NotFound();
    e.charge = charge::PointReadNotFound();
    throw e;
  }
  Result r;
  r.headers.emplace_back(headers::kETag, item->etag());
  ItemHeaders(r, ctx, *t.c, *t.partition, t.partition->lsn());
  // A read needs only the size: index terms are a write-charge input.
  r.charge = charge::PointRead({item->kb(), 0}, ReadConsistency(s, ctx));
  if (auto inm = ctx.Header(headers::kIfNoneMatch); inm && (*inm == item->etag() || *inm == "*")) {
    r.status = 304;
    return r;
  }
  r.body = item->Text();
  return r;
}

Result ReplaceDocument(Services& s, RequestContext& ctx) {
  Target t = ResolveTarget(s, ctx);
  const store::IndexingDirective directive = DirectiveOf(ctx);
  json::Document body = ChargedWrite([&] { return ParseItemBody(s, ctx); });
  return AnswerWrite(s, ctx, t, store::WriteKind::kReplace, &body, ctx.Param("id"),
                     [&](const PartitionWrite& write, const json::Value* doc) {
                       return WriteItem(s, t, store::WriteKind::kReplace, *doc, ctx.Param("id"), PreconditionsOf(ctx), write,
                                        directive);
                     });
}

Result DeleteDocument(Services& s, RequestContext& ctx) {
  Target t = ResolveTarget(s, ctx);
  return AnswerWrite(s, ctx, t, store::WriteKind::kDelete, nullptr, ctx.Param("id"),
                     [&](const PartitionWrite& write, const json::Value*) {
                       return ChargedWrite([&] {
                         return write(store::WriteKind::kDelete, ctx.Param("id"), PreconditionsOf(ctx),
                                      [](const store::ItemPtr&, uint64_t, uint64_t) { return store::ItemPtr(); });
                       });
                     });
}

Result PatchDocument(Services& s, RequestContext& ctx) {
  Target t = ResolveTarget(s, ctx);
  if (RequestTriggers(ctx, *t.c).any())
    throw errors::BadRequest("Triggers cannot be included in a patch request by this emulator.");
  auto result = ChargedWrite([&] {
    if (ctx.body().size() > s.config.max_item_bytes) throw errors::RequestTooLarge();
    PatchRequest patch = ParsePatchRequest(ParseBody(ctx.body()), t.c->partition_key());
    return PatchItem(s, ctx.Param("id"), patch, PreconditionsOf(ctx), Direct(s, t),
                     !t.settings->indexing.IndexesWrite(DirectiveOf(ctx)));
  });
  return WriteResponse(200, result, t, ctx, charge::Replace(Facts(*result.item, *t.settings)));
}

Result ReadDocumentFeed(Services& s, RequestContext& ctx) {
  auto c = ResolveContainer(s, ctx);
  auto settings = c->settings();
  Routed routed = RouteRequest(ctx, c);
  Admit(s, ctx, c, routed.partitions);
  const auto& parts = routed.partitions;
  // Default page 100 items; -1 ("as many as fit") is bounded at 1000.
  const size_t max_items = MaxItemCount(ctx).value_or(100).value_or(1000);
  FeedResume resume;
  if (auto h = ctx.Header(headers::kContinuation); h && !h->empty()) resume = ParseFeedContinuation(*h, parts);
  size_t pi = resume.index;
  uint64_t after = resume.after;
  std::vector<std::string> items;
  double kb = 0;
  const util::Instant now = s.clock.Now();
  std::optional<std::string> next;
  const FeedBudget budget(s, ctx);
  size_t bytes = 0;
  // Walk the ranges in order, in chunks, so a partition-key filter still fills a page; one more
  // matching item proves the feed goes on. A page also ends at about 4 MB, or once the page time
  // is up after it has read past its continuation, with what it has (it may be empty).
  const size_t chunk_size = std::min<size_t>(max_items, 512);
  for (; pi < parts.size() && !next; ++pi, after = pi < parts.size() ? resume.StartOf(*parts[pi]) : 0) {
    while (!next) {
      budget.CheckCancelled();
      auto chunk = parts[pi]->Feed(after, chunk_size, now, settings->items());
      if (chunk.empty()) break;
      for (auto& it : chunk) {
        if (!routed.Contains(*it)) {
          after = it->seq;
          continue;
        }
        if (items.size() == max_items || (!items.empty() && bytes + it->size > FeedBudget::kPageBytes)) {
          next = resume.Next(parts, pi, after);
          break;
        }
        after = it->seq;
        items.push_back(it->Text());
        bytes += it->size;
        kb += it->kb();
      }
      if (!next && budget.TimeUp()) next = resume.Next(parts, pi, after);
    }
  }
  Result r;
  r.body = FeedJson(c->rid(), "Documents", items);
  r.headers.emplace_back(headers::kItemCount, std::to_string(items.size()));
  if (next) r.headers.emplace_back(headers::kContinuation, *next);
  SessionHeaders(r, ctx, *c, parts);
  r.charge = charge::FeedPage(items.size(), kb, ReadConsistency(s, ctx));
  return r;
}

}  // namespace cosmos::handlers
