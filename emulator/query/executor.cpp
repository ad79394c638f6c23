#include "query/executor.h"

#include <malloc.h>

#include <algorithm>
#include <functional>
#include <map>
#include <mutex>
#include <span>
#include <unordered_map>

#include "common/errors.h"
#include "json/json.h"
#include "query/eval.h"
#include "query/index_use.h"
#include "store/order_key.h"
#include "util/parallel.h"
#include "util/util.h"

namespace cosmos::query {

namespace {

// An index lookup is used when it finds at most this many items, or a quarter of the partition.
constexpr size_t kMinLookupCap = 64;

// Where a row came from: partition index, document sequence, row number within the document.
struct Pos {
  uint64_t part = 0;
  uint64_t seq = 0;
  uint64_t ord = 0;
  auto operator<=>(const Pos&) const = default;
};

struct OutRow {
  std::vector<Val> keys;
  Pos pos;
  Val value;
  double kb = 0;  // size of the document the row came from
};

int CompareRows(const std::vector<bool>& desc, const OutRow& a, const OutRow& b) {
  for (size_t i = 0; i < a.keys.size(); ++i) {
    int c = CompareForOrder(a.keys[i], b.keys[i]);
    if (c != 0) return desc[i] ? -c : c;
  }
  return a.pos < b.pos ? -1 : (b.pos < a.pos ? 1 : 0);
}

// Numbers the candidate rows of one root input (before WHERE): a row's position is its number, so
// that a page can end after any candidate, matched or not, and the next resume after it.
struct Cursor {
  uint64_t ord = 0;        // candidates started
  uint64_t completed = 0;  // the last candidate whose row (if WHERE kept it) was handled
  uint64_t arm_after = 0;  // completing a candidate past this one is progress for the page
  uint64_t stop_after = UINT64_MAX;  // candidates past this one are not read (a segment's end)
};

// Enumerates the rows of the FROM/JOIN sources from `index` on, with WHERE applied.
void ForEachRow(const Plan& plan, size_t index, EvalContext& cx, const std::function<void()>& row,
                Cursor* cursor = nullptr) {
  if (index == plan.sources.size()) {
    if (cursor != nullptr && ++cursor->ord > cursor->stop_after) return;
    if (cx.budget != nullptr) cx.budget->Tick();
    if (cursor != nullptr && cursor->ord <= cursor->arm_after) {  // a row the page resumes after
      cursor->completed = cursor->ord;
      return;
    }
    if (!plan.where || Eval(*plan.where, cx).IsTrue()) row();
    if (cursor != nullptr) {
      cursor->completed = cursor->ord;
      if (cx.budget != nullptr && cursor->ord > cursor->arm_after) cx.budget->armed = true;
    }
    return;
  }
  const Source& src = plan.sources[index];
  switch (src.kind) {
    case Source::Kind::kContainer: ForEachRow(plan, index + 1, cx, row, cursor); return;
    case Source::Kind::kContainerPath: {
      // env[slot] holds the document; replace it by the path's value.
      Val v = Eval(src.expr, cx);
      if (v.IsUndefined()) return;
      cx.env[src.slot] = v;
      ForEachRow(plan, index + 1, cx, row, cursor);
      return;
    }
    case Source::Kind::kIterate: {
      Val coll = Eval(src.expr, cx);
      if (!coll.IsArray()) return;
      for (const auto& e : coll.json().GetArray()) {
        cx.env[src.slot] = Val(e);
        ForEachRow(plan, index + 1, cx, row, cursor);
      }
      return;
    }
    case Source::Kind::kValue: {
      Val v = Eval(src.expr, cx);
      if (v.IsUndefined()) return;
      cx.env[src.slot] = v;
      ForEachRow(plan, index + 1, cx, row, cursor);
      return;
    }
    case Source::Kind::kSubquery: {
      std::vector<Val> values;
      RunInMemory(*src.sub, cx, [&](Val v) {
        if (!src.iterate_rows) {
          values.push_back(v);
        } else if (v.IsArray()) {
          for (const auto& e : v.json().GetArray()) values.push_back(Val(e));
        }
      });
      for (Val v : values) {
        cx.env[src.slot] = v;
        ForEachRow(plan, index + 1, cx, row, cursor);
      }
      return;
    }
  }
}

bool Streaming(const Plan& plan) {
  return plan.order_by.empty() && plan.group_by.empty() && plan.aggregates.empty() && !plan.distinct;
}

// Collects the rows of a non-streaming query (ORDER BY, GROUP BY, aggregates, DISTINCT) and
// returns them in their final order.
//
// Every Add either records its row (or group update) whole or, when evaluating it throws (a
// budget stop, an error), changes nothing: a page may end before any candidate row.
class Collector {
 public:
  explicit Collector(const Plan& plan) : plan_(&plan) {
    for (const auto& k : plan.order_by) desc_.push_back(k.descending);
    if (plan.order_by.empty()) desc_.assign(plan.group_by.size(), false);
  }
  Collector(const Collector&) = delete;
  Collector& operator=(const Collector&) = delete;

  // A collection suspended by one page continues with the next page's plan (the same query).
  void Rebind(const Plan& plan) { plan_ = &plan; }
  // Whether Finish would give at least one row (a partial page of groups must not be empty).
  bool HasOutput() const { return plan_->aggregate_query || !rows_.empty() || !groups_.empty(); }

  // Returns whether the collection keeps values of the row's documents (they must stay pinned):
  // a kept row, or a new group (its key and first row); accumulators keep copies of their own.
  bool Add(EvalContext& cx, Pos pos, double kb) {
    if (!plan_->group_by.empty() || plan_->aggregate_query) return AddToGroup(cx, pos);
    OutRow r;
    r.pos = pos;
    for (const auto& k : plan_->order_by) r.keys.push_back(Eval(k.expr, cx));
    r.value = Project(*plan_, cx);
    if (r.value.IsUndefined()) return false;
    r.kb = kb;
    if (cx.budget != nullptr) cx.budget->held_bytes += sizeof(OutRow) + r.keys.size() * sizeof(Val);
    rows_.push_back(std::move(r));
    return true;
  }

  std::vector<OutRow> Finish(EvalContext& cx) {
    if (plan_->aggregate_query && groups_.empty()) NewGroup("", cx, Pos{});
    for (auto& [_, g] : groups_) {
      std::vector<Val> results;
      for (const auto& acc : g.accs) results.push_back(acc.Result(cx.arena));
      std::vector<Val> saved = cx.env;
      cx.env = g.env;
      cx.aggs = &results;
      OutRow r;
      r.pos = g.first;
      if (!plan_->order_by.empty()) {
        for (const auto& k : plan_->order_by) r.keys.push_back(Eval(k.expr, cx));
      } else {
        r.keys = g.key;
      }
      r.value = Project(*plan_, cx);
      cx.aggs = nullptr;
      cx.env = std::move(saved);
      if (r.value.IsDefined()) rows_.push_back(std::move(r));
    }
    std::stable_sort(rows_.begin(), rows_.end(),
                     [&](const OutRow& a, const OutRow& b) { return CompareRows(desc_, a, b) < 0; });
    if (plan_->distinct) {
      std::unordered_map<std::string, bool> seen;
      std::vector<OutRow> unique;
      std::string key;
      for (auto& r : rows_) {
        key.clear();
        CanonicalKey(key, r.value);
        if (seen.emplace(key, true).second) unique.push_back(std::move(r));
      }
      rows_ = std::move(unique);
    }
    return std::move(rows_);
  }

  const std::vector<bool>& descending() const { return desc_; }

  // Takes what `later` collected over the candidates that follow this one's (a part of a scan
  // read on another thread): its rows, its new groups, and its accumulators merged into the
  // groups both saw. `later`'s values must outlive this collection (Keep its arena).
  void Absorb(Collector& later, Arena& arena) {
    for (auto& r : later.rows_) rows_.push_back(std::move(r));
    later.rows_.clear();
    for (auto& [key, g] : later.groups_) {
      auto it = groups_.find(key);
      if (it == groups_.end()) {
        groups_.emplace(key, std::move(g));
        continue;
      }
      for (size_t i = 0; i < g.accs.size(); ++i) it->second.accs[i].Merge(g.accs[i], arena);
    }
    later.groups_.clear();
    for (auto& a : later.arenas_) arenas_.push_back(std::move(a));
    later.arenas_.clear();
  }
  // Keeps an arena that values of this collection live in.
  void Keep(std::unique_ptr<Arena> arena) { arenas_.push_back(std::move(arena)); }

  // The accumulators of an aggregate query's one group, for results known without reading rows
  // (read from the index).
  std::vector<Accumulator>& SingleGroup(EvalContext& cx) {
    auto it = groups_.find("");
    return (it != groups_.end() ? it->second : NewGroup("", cx, Pos{})).accs;
  }

 private:
  struct Group {
    std::vector<Val> key;
    std::vector<Val> env;
    std::vector<Accumulator> accs;
    Pos first;
  };

  Group& NewGroup(const std::string& canonical, EvalContext& cx, Pos pos) {
    Group& g = groups_[canonical];
    g.env = cx.env;
    g.first = pos;
    for (const auto& a : plan_->aggregates) g.accs.emplace_back(a.kind);
    return g;
  }

  bool AddToGroup(EvalContext& cx, Pos pos) {
    std::vector<Val>& key = key_scratch_;
    std::string& canonical = canonical_scratch_;
    key.clear();
    canonical.clear();
    for (const auto& g : plan_->group_by) {
      key.push_back(Eval(g, cx));
      CanonicalKey(canonical, key.back());
      canonical += '|';
    }
    // Every argument before any accumulator changes.
    Val one[4];
    std::vector<Val> many;
    std::span<Val> args(one, std::min<size_t>(plan_->aggregates.size(), 4));
    if (plan_->aggregates.size() > 4) {
      many.resize(plan_->aggregates.size());
      args = many;
    }
    for (size_t i = 0; i < plan_->aggregates.size(); ++i) args[i] = Eval(plan_->aggregates[i].arg, cx);
    auto it = groups_.find(canonical);
    if (it == groups_.end() && cx.budget != nullptr) {
      cx.budget->held_bytes += sizeof(Group) + 2 * canonical.size() + 64 + cx.env.size() * sizeof(Val) +
                               plan_->aggregates.size() * sizeof(Accumulator) + key.size() * sizeof(Val);
    }
    const bool added = it == groups_.end();
    Group& g = added ? NewGroup(canonical, cx, pos) : it->second;
    if (added) g.key = key;
    for (size_t i = 0; i < plan_->aggregates.size(); ++i) g.accs[i].Add(args[i], cx.arena);
    return added;
  }

  std::vector<Val> key_scratch_;
  std::string canonical_scratch_;
  const Plan* plan_;
  std::vector<bool> desc_;
  std::vector<OutRow> rows_;
  std::unordered_map<std::string, Group> groups_;
  std::vector<std::unique_ptr<Arena>> arenas_;  // of the parts absorbed from other threads
};

// OFFSET, LIMIT and TOP applied to rows in their final order.
struct Window {
  int64_t skip = 0;
  std::optional<int64_t> take;
};

Window InitialWindow(const Plan& plan) {
  Window w;
  w.skip = plan.offset.value_or(0);
  if (plan.limit) w.take = *plan.limit;
  if (plan.top) w.take = w.take ? std::min(*w.take, *plan.top) : *plan.top;
  return w;
}

// The continuation: where the last page ended. Encoded as base64 JSON so clients treat it as opaque.
//   "p", "k"  the last row returned (its position and sort keys); absent before the first row
//   "s", "t"  what remains of OFFSET and of LIMIT/TOP
//   "c"       a query that collects (ORDER BY, GROUP BY, DISTINCT, aggregates): its scan resumes
//             after this candidate row
//   "x"       ... with what the earlier pages collected, kept by the emulator under this number
//   "f"       a partial page (below) being returned covers the candidates after "c" up to this one
//   "r"       the partition key range ids of the scope's partitions, which the positions number: a
//             page after a split finds the ranges again by their children (AdjustForSplits)
//   "g"       [range id, sequence number] pairs: where the scans of those ranges (and of their
//             children) start, once a split divided a range a page was reading (Scope::floors)
struct Resume {
  bool has_row = true;
  Pos pos;
  std::vector<Val> keys;
  Window window;
  std::optional<Pos> scan;
  std::optional<Pos> segment_end;
  uint64_t state = 0;
  std::vector<std::string> ranges;  // "r": the range ids the positions' partition numbers name
  std::vector<std::pair<std::string, uint64_t>> floors;  // "g": Scope::floors by range id
};

uint32_t QueryHash(std::string_view text) {
  uint32_t h = 2166136261u;
  for (char c : text) h = (h ^ static_cast<unsigned char>(c)) * 16777619u;
  return h;
}

void WritePos(std::string& j, const char* name, const Pos& p) {
  j += ",\"";
  j += name;
  j += "\":[" + std::to_string(p.part) + "," + std::to_string(p.seq) + "," + std::to_string(p.ord) + "]";
}

std::string EncodeResume(const std::string& ranges, const OutRow* last, const Window& w, std::string_view query,
                         const std::optional<Pos>& scan = std::nullopt,
                         const std::optional<Pos>& segment_end = std::nullopt, uint64_t state = 0) {
  // The format's version is "ev", not "v": the Python SDK takes any continuation that is base64 of
  // a JSON object with a "v" for its own feed-range token (feed_range_continuation._decode_token).
  std::string j = "{\"ev\":1,\"h\":" + std::to_string(QueryHash(query));
  if (last != nullptr) {
    WritePos(j, "p", last->pos);
    j += ",\"k\":[";
    for (size_t i = 0; i < last->keys.size(); ++i) {
      if (i > 0) j += ',';
      j += '[';
      if (last->keys[i].IsDefined()) json::Write(j, last->keys[i].json());
      j += ']';
    }
    j += "]";
  }
  j += ",\"s\":" + std::to_string(w.skip) + ",\"t\":" + (w.take ? std::to_string(*w.take) : "null");
  if (scan) WritePos(j, "c", *scan);
  if (segment_end) WritePos(j, "f", *segment_end);
  if (state != 0) j += ",\"x\":" + std::to_string(state);
  j += ranges;
  j += "}";
  return util::Base64Encode(j);
}

// Where partition `pi`'s scan starts when the page does not resume in it (Scope::floors).
uint64_t FloorOf(const Scope& scope, size_t pi) { return pi < scope.floors.size() ? scope.floors[pi] : 0; }

CosmosError InvalidContinuation() { return CosmosError(400, 0, "BadRequest", "Invalid Continuation Token"); }

Resume DecodeResume(const std::string& token, std::string_view query, size_t key_count, json::Document& holder) {
  auto raw = util::Base64Decode(token);
  if (!raw || json::Parse(*raw, holder) != json::ParseStatus::kOk || !holder.IsObject()) throw InvalidContinuation();
  auto find = [&](const char* name) -> const json::Value* {
    auto it = holder.FindMember(name);
    return it == holder.MemberEnd() ? nullptr : &it->value;
  };
  auto get = [&](const char* name) -> const json::Value& {
    const json::Value* v = find(name);
    if (v == nullptr) throw InvalidContinuation();
    return *v;
  };
  auto pos = [&](const json::Value& p) {
    if (!p.IsArray() || p.Size() != 3 || !p[0].IsUint64() || !p[1].IsUint64() || !p[2].IsUint64()) {
      throw InvalidContinuation();
    }
    return Pos{p[0].GetUint64(), p[1].GetUint64(), p[2].GetUint64()};
  };
  const auto& h = get("h");
  if (!h.IsUint64() || h.GetUint64() != QueryHash(query)) throw InvalidContinuation();
  Resume r;
  if (const json::Value* c = find("c")) r.scan = pos(*c);
  if (const json::Value* f = find("f")) {
    if (!r.scan) throw InvalidContinuation();
    r.segment_end = pos(*f);
  }
  if (const json::Value* x = find("x")) {
    if (!r.scan || !x->IsUint64() || x->GetUint64() == 0) throw InvalidContinuation();
    r.state = x->GetUint64();
  }
  const json::Value* p = find("p");
  r.has_row = p != nullptr;
  if (p == nullptr && (!r.scan || r.segment_end)) throw InvalidContinuation();  // only a scan may lack a row
  if (p != nullptr) {
    r.pos = pos(*p);
    const auto& k = get("k");
    if (!k.IsArray() || k.Size() != key_count) throw InvalidContinuation();
    for (const auto& e : k.GetArray()) {
      if (!e.IsArray() || e.Size() > 1) throw InvalidContinuation();
      r.keys.push_back(e.Size() == 0 ? Val() : Val(e[0]));
    }
  }
  if (const json::Value* rs = find("r")) {
    if (!rs->IsArray()) throw InvalidContinuation();
    for (const auto& e : rs->GetArray()) {
      if (!e.IsString()) throw InvalidContinuation();
      r.ranges.emplace_back(e.GetString(), e.GetStringLength());
    }
  }
  if (const json::Value* gs = find("g")) {
    if (!gs->IsArray()) throw InvalidContinuation();
    for (const auto& e : gs->GetArray()) {
      if (!e.IsArray() || e.Size() != 2 || !e[0].IsString() || !e[1].IsUint64()) throw InvalidContinuation();
      r.floors.emplace_back(std::string(e[0].GetString(), e[0].GetStringLength()), e[1].GetUint64());
    }
  }
  const auto& s = get("s");
  const auto& t = get("t");
  if (!s.IsInt64() || s.GetInt64() < 0 || !(t.IsNull() || (t.IsInt64() && t.GetInt64() >= 0))) {
    throw InvalidContinuation();
  }
  r.window.skip = s.GetInt64();
  if (!t.IsNull()) r.window.take = t.GetInt64();
  return r;
}

// How far ahead of the document being read a scan asks for the next one's members.
constexpr size_t kPrefetchAhead = 4;

// (The first lines of its member table: the properties a query names are most often among them.)
void PrefetchDocument(const store::Item& item) {
  if (!item.body.IsObject()) return;
  const char* at = reinterpret_cast<const char*>(&*item.body.MemberBegin());
  const size_t bytes = std::min<size_t>(item.body.MemberCount() * sizeof(json::Value::Member), 256);
  for (size_t off = 0; off < bytes; off += 64) __builtin_prefetch(at + off);
}

void AddFacts(PageFacts& f, const store::Item& item, bool matched) {
  double kb = item.kb();
  if (matched) {
    ++f.docs_loaded;
    f.kb_loaded += kb;
  } else {
    ++f.docs_scanned;
    f.kb_scanned += kb;
  }
}

void WriteRow(std::string& out, const OutRow& r) {
  WriteJson(out, r.value);
}

}  // namespace

void RunInMemory(const Plan& plan, EvalContext& cx, const std::function<void(Val)>& out) {
  if (cx.env.size() < static_cast<size_t>(plan.first_slot + plan.sources.size())) {
    cx.env.resize(plan.first_slot + plan.sources.size());
  }
  Window w = InitialWindow(plan);
  auto emit = [&](Val v) {
    if (v.IsUndefined()) return;
    if (w.skip > 0) {
      --w.skip;
      return;
    }
    if (w.take && *w.take == 0) return;
    if (w.take) --*w.take;
    out(v);
  };
  if (Streaming(plan)) {
    ForEachRow(plan, 0, cx, [&] { emit(Project(plan, cx)); });
    return;
  }
  Collector collector(plan);
  uint64_t ord = 0;
  ForEachRow(plan, 0, cx, [&] { collector.Add(cx, Pos{0, 0, ord++}, 0); });
  for (const auto& r : collector.Finish(cx)) emit(r.value);
}

namespace {

// Up to `max` items of a feed-ordered view with seq > after.
std::vector<store::ItemPtr> ViewChunk(const std::vector<store::ItemPtr>& view, uint64_t after, size_t max) {
  auto it = std::upper_bound(view.begin(), view.end(), after,
                             [](uint64_t seq, const store::ItemPtr& item) { return seq < item->seq; });
  std::vector<store::ItemPtr> out;
  for (; it != view.end() && out.size() < max; ++it) out.push_back(*it);
  return out;
}

// Which candidate rows a page reads, for a query that collects: after `from`, up to `to`.
struct ScanRange {
  std::optional<Pos> from;
  std::optional<Pos> to;
};

// The most items an index lookup may leave a vector search before the vector index is read instead.
constexpr size_t kMaxVectorLookup = 2000;

// A vector search: SELECT TOP k ... ORDER BY VectorDistance(<document path>, <constant vector>)
// with neither a join, groups nor DISTINCT, and every document giving a row. Each partition's
// vector index then names the items that can be among the k best (and those whose distance is
// undefined); only those are read, and their exact distances order them.
struct VectorTop {
  store::DocPath path;
  store::VectorQuery query;
  size_t k = 0;
  std::function<bool(const store::Item&)> filter;  // the query's WHERE (none: every item)
};

bool CallsUdf(const Plan& plan);

// With a WHERE, the k best are taken among the items it accepts (it is evaluated once more for
// them while the index is read; never one that calls a user-defined function).
std::optional<VectorTop> ChooseVectorTop(const Plan& plan, EvalContext& cx) {
  if (plan.order_by.size() != 1 || plan.sources.size() != 1 || plan.sources[0].kind != Source::Kind::kContainer ||
      !plan.group_by.empty() || plan.aggregate_query || plan.distinct || plan.select == Plan::Select::kValue ||
      (plan.where && CallsUdf(plan)))
    return std::nullopt;
  auto order = VectorOrderOf(plan);
  // One argument a document path, the other a constant vector; the options constant too.
  if (!order || !IsEvaluableConstant(plan, *order->other)) return std::nullopt;
  const Node& call = *order->call;
  int64_t take = -1;
  if (plan.top) take = *plan.top;
  if (plan.limit) take = take < 0 ? *plan.limit : std::min(take, *plan.limit);
  const int64_t k = take + plan.offset.value_or(0);
  if (take <= 0 || k <= 0 || k > 100000) return std::nullopt;
  VectorTop top;
  top.k = static_cast<size_t>(k);
  top.query.descending = plan.order_by[0].descending;
  top.path = std::move(order->path);
  std::vector<Val> args(call.kids.size());
  for (size_t i = 2; i < call.kids.size(); ++i) {
    if (!IsEvaluableConstant(plan, call.kids[i])) return std::nullopt;
    args[i] = Eval(call.kids[i], cx);
  }
  const auto fn = VectorDistanceFunctionOf(args);
  if (!fn) return std::nullopt;
  top.query.function = *fn;
  const Val v = Eval(*order->other, cx);
  if (!v.IsArray()) return std::nullopt;
  for (const auto& e : v.json().GetArray()) {
    if (!e.IsNumber()) return std::nullopt;
    top.query.vector.push_back(e.GetDouble());
  }
  if (plan.where) {
    const Node* where = &*plan.where;
    const int slot = plan.sources[0].slot;
    top.filter = [&cx, where, slot](const store::Item& item) {
      cx.env[slot] = Val(item.body);
      return Eval(*where, cx).IsTrue();
    };
  }
  return top;
}

// Reads one partition's items for a scan, in sequence order, from what the scope and the index
// lookup choose: a script's view, the items an index lookup or a vector search found, the logical
// partition's items, or all of them. Copies read independently (the parts of a parallel scan).
class PartitionReader {
 public:
  PartitionReader(const Scope& scope, size_t pi, const std::optional<IndexLookup>& lookup,
                  const store::ItemPolicy& policy, const VectorTop* vector_top = nullptr)
      : scope_(&scope), part_(scope.partitions[pi]), policy_(policy) {
    if (lookup) {
      // More candidates than a quarter of the partition (or than the logical partition's items)
      // read no faster than the scan would.
      size_t cap = std::max<size_t>(kMinLookupCap, part_->Count() / 4);
      if (scope.partition_key) cap = std::min(cap, part_->CountOfKey(*scope.partition_key));
      auto found =
          lookup->ranges.empty() ? std::vector<uint64_t>{} : part_->IndexLookup(lookup->path, lookup->ranges, cap);
      // A vector search computes every distance of what it reads from the documents: past a few
      // thousand, ruling items out through the vector index (the WHERE evaluated on each) is cheaper.
      if (found && (vector_top == nullptr || found->size() <= kMaxVectorLookup))
        candidates_ = std::make_shared<const std::vector<uint64_t>>(std::move(*found));
    }
    // A vector search the WHERE's index lookup (if any) did not narrow enough.
    if (!candidates_ && vector_top != nullptr && scope.view == nullptr) {
      auto found = part_->VectorCandidates(
          vector_top->path, vector_top->query, vector_top->k,
          [this, vector_top](const store::Item& item) {
            return Admits(item) && (!vector_top->filter || vector_top->filter(item));
          },
          scope.now_seconds, policy_);
      if (found) candidates_ = std::make_shared<const std::vector<uint64_t>>(std::move(*found));
    }
  }
  // Reads on after the item numbered `after`.
  void Seek(uint64_t after) {
    after_ = after;
    if (candidates_) next_ = std::upper_bound(candidates_->begin(), candidates_->end(), after) - candidates_->begin();
  }
  // The next items (at most max); none at the end.
  std::vector<store::ItemPtr> Next(size_t max) {
    const Scope& s = *scope_;
    auto chunk = s.view            ? ViewChunk(*s.view, after_, max)
                 : candidates_     ? part_->ItemsBySeq(*candidates_, next_, max, s.now_seconds, policy_)
                 : s.partition_key ? part_->FeedOfKey(*s.partition_key, after_, max, s.now_seconds, policy_)
                                   : part_->Feed(after_, max, s.now_seconds, policy_);
    if (!chunk.empty()) after_ = chunk.back()->seq;
    return chunk;
  }
  // Whether an item read is in the scope (an index finds the items of every key).
  bool Admits(const store::Item& item) const {
    if (scope_->partition_key && item.pk != *scope_->partition_key) return false;
    return !scope_->epk_range || (item.epk >= scope_->epk_range->first && item.epk < scope_->epk_range->second);
  }
  // About how many items it reads.
  size_t Estimate() const {
    if (scope_->view) return scope_->view->size();
    if (candidates_) return candidates_->size();
    return scope_->partition_key ? part_->CountOfKey(*scope_->partition_key) : part_->Count();
  }
  store::PhysicalPartition& partition() const { return *part_; }

  // Records in `facts` (once) that the scan read partition `pi`: it found a document there
  // (`touched`), or the query is across partitions, or the partition holds the query's logical
  // partition (whatever the index let the scan skip).
  void NoteTouched(PageFacts& facts, size_t pi, bool touched) const {
    if (!touched && candidates_ && scope_->partition_key && !scope_->view)
      touched = part_->HasLiveItems(*scope_->partition_key, scope_->now_seconds, policy_);
    if (!touched && scope_->partition_key) return;
    auto& list = facts.partitions_touched;
    if (std::find(list.begin(), list.end(), pi) == list.end()) list.push_back(pi);
  }

 private:
  const Scope* scope_;
  store::PhysicalPartition* part_;
  store::ItemPolicy policy_;
  std::shared_ptr<const std::vector<uint64_t>> candidates_;  // null: no index lookup
  size_t next_ = 0;
  uint64_t after_ = 0;
};

bool CallsUdf(const Plan& plan);

bool CallsUdf(const Node& n) {
  if (n.op == Node::Op::kUdf) return true;
  for (const auto& k : n.kids)
    if (CallsUdf(k)) return true;
  return n.sub != nullptr && CallsUdf(*n.sub);
}

// Whether a plan calls a user-defined function anywhere (they run in the request's JavaScript
// context, on its own thread only).
bool CallsUdf(const Plan& plan) {
  if ((plan.where && CallsUdf(*plan.where)) || CallsUdf(plan.value)) return true;
  for (const auto& p : plan.projections)
    if (CallsUdf(p.second)) return true;
  for (const auto& g : plan.group_by)
    if (CallsUdf(g)) return true;
  for (const auto& a : plan.aggregates)
    if (CallsUdf(a.arg)) return true;
  for (const auto& k : plan.order_by)
    if (CallsUdf(k.expr)) return true;
  for (const auto& src : plan.sources)
    if (CallsUdf(src.expr) || (src.sub != nullptr && CallsUdf(*src.sub))) return true;
  return false;
}

// Where a parallel collection stopped: every partition before `part`, and `part` up to its item
// numbered `after`, are collected; `touched`: that stretch of `part` had a document in the scope.
struct ParallelDone {
  size_t part = 0;
  uint64_t after = 0;
  bool touched = false;
};

// Reads the scope's partitions for a collection on several threads. The partitions are cut into
// parts (items after `after` up to `through`, by sequence number), claimed in order; each part is
// collected with its own arena and collector, and the parts are absorbed in order, so the
// collection is what one thread reading them in order would have made. The exception is a SUM or
// AVG over floating-point numbers, whose sums are added per part: such a query is cut only between
// partitions, whose sums the service also adds up per partition.
//
// A part that cannot finish (the page's deadline, the thread's share of the memory budget, an
// error) ends the parallel reading: the parts before it are kept and the caller reads on from
// there on its own thread, where the page stops, fails or finishes as it would have. Returns
// nullopt when the collection is not worth spreading (few items, one core) or may not be (UDFs);
// the readers it made are left for the caller.
std::optional<ParallelDone> CollectInParallel(const Plan& plan, const Scope& scope, const std::optional<IndexLookup>& lookup,
                                              const VectorTop* vector_top, const store::ItemPolicy& policy,
                                              std::vector<std::optional<PartitionReader>>& readers, EvalContext& cx,
                                              Collector& collector, std::vector<store::ItemPtr>& pinned,
                                              PageFacts& facts) {
  const size_t threads = scope.parallel.threads != 0 ? scope.parallel.threads : util::ParallelThreads();
  if (threads < 2 || scope.view != nullptr || scope.partitions.empty()) return std::nullopt;
  if (cx.fn.udfs != nullptr && CallsUdf(plan)) return std::nullopt;
  size_t total = 0;
  for (size_t pi = 0; pi < scope.partitions.size(); ++pi) {
    readers[pi].emplace(scope, pi, lookup, policy, vector_top);
    total += readers[pi]->Estimate();
  }
  if (total < scope.parallel.min_items) return std::nullopt;

  struct Part {
    size_t pi;
    uint64_t after;
    uint64_t through;
  };
  const bool cut = std::none_of(plan.aggregates.begin(), plan.aggregates.end(),
                                [](const Aggregate& a) { return a.kind == Agg::kSum || a.kind == Agg::kAvg; });
  std::vector<Part> parts;
  for (size_t pi = 0; pi < scope.partitions.size(); ++pi) {
    const size_t items = readers[pi]->Estimate();
    size_t n = 1;
    const size_t part_items = std::max<size_t>(scope.parallel.part_items, 1);
    if (cut && items >= 2 * part_items) n = std::min(items / part_items, (4 * threads * items + total - 1) / total);
    // Equal stretches of the partition's sequence numbers (items take them in the order written).
    uint64_t before = 0;  // the number before the first item's
    uint64_t width = 0;
    if (n > 1) {
      if (const auto span = readers[pi]->partition().SeqSpan()) {
        before = span->first - 1;
        width = (span->second - span->first + n) / n;
      } else {
        n = 1;
      }
    }
    for (size_t j = 0; j < n; ++j)
      parts.push_back(Part{pi, j == 0 ? 0 : before + j * width, j + 1 == n ? UINT64_MAX : before + (j + 1) * width});
  }

  struct Result {
    std::unique_ptr<Arena> arena = std::make_unique<Arena>();
    std::unique_ptr<Collector> collector;
    std::vector<store::ItemPtr> pinned;
    PageFacts facts;
    size_t held_bytes = 0;
    bool touched = false;
    bool complete = false;
  };
  std::vector<Result> results(parts.size());
  BudgetCheck* const budget = cx.budget;
  const bool stoppable = budget != nullptr && budget->stoppable;
  const auto deadline = budget != nullptr ? budget->budget().deadline : std::chrono::steady_clock::time_point::max();
  QueryBudget share;
  if (budget != nullptr) {
    share = budget->budget();
    share.deadline = std::chrono::steady_clock::time_point::max();  // checked between chunks, below
    const size_t held = budget->held_bytes + cx.arena.used();
    if (share.memory_bytes != SIZE_MAX) share.memory_bytes = share.memory_bytes > held ? (share.memory_bytes - held) / threads : 0;
  }
  std::atomic<size_t> first_failed{SIZE_MAX};
  std::atomic<bool> failed{false};
  auto fail = [&](size_t u) {
    size_t cur = first_failed.load();
    while (u < cur && !first_failed.compare_exchange_weak(cur, u)) {
    }
    failed = true;
  };
  const Source& root = plan.sources.front();
  util::ParallelFor(parts.size(), [&](size_t u) {
    const Part& part = parts[u];
    Result& r = results[u];
    try {
      Arena& arena = *r.arena;
      r.collector = std::make_unique<Collector>(plan);
      EvalContext wcx{arena, FunctionContext{arena, cx.fn.now_ms, nullptr}, cx.env, nullptr, nullptr};
      std::optional<BudgetCheck> check;
      if (budget != nullptr) {
        check.emplace(share, arena);
        check->collects = true;
        wcx.budget = &*check;
      }
      PartitionReader reader = *readers[part.pi];
      reader.Seek(part.after);
      for (bool end = false; !end;) {
        // Parts after one that failed are not used; at the deadline the page ends (on the caller's thread).
        if (first_failed.load(std::memory_order_relaxed) < u) return;
        if (stoppable && std::chrono::steady_clock::now() >= deadline) return fail(u);
        auto chunk = reader.Next(512);
        if (chunk.empty()) break;
        for (size_t ci = 0; ci < chunk.size(); ++ci) {
          if (ci + kPrefetchAhead < chunk.size()) PrefetchDocument(*chunk[ci + kPrefetchAhead]);
          const store::ItemPtr& item = chunk[ci];
          if (item->seq > part.through) {
            end = true;
            break;
          }
          if (!reader.Admits(*item)) continue;
          r.touched = true;
          wcx.env[root.slot] = Val(item->body);
          Cursor cursor;
          bool matched = false;
          bool pin = false;
          const double kb = item->kb();
          ForEachRow(plan, 0, wcx, [&] {
            matched = true;
            if (r.collector->Add(wcx, Pos{part.pi, item->seq, cursor.ord}, kb)) pin = true;
          }, &cursor);
          if (pin) r.pinned.push_back(item);
          AddFacts(r.facts, *item, matched || !plan.where);
        }
      }
      r.held_bytes = check ? check->held_bytes : 0;
      r.complete = true;
    } catch (...) {
      fail(u);  // the caller's thread reads this part again and meets the same end
    }
  }, &failed);

  std::vector<bool> touched(scope.partitions.size(), false);
  size_t u = 0;
  for (; u < parts.size() && results[u].complete; ++u) {
    Result& r = results[u];
    if (budget != nullptr) budget->held_bytes += r.held_bytes + r.arena->used();
    collector.Absorb(*r.collector, cx.arena);
    collector.Keep(std::move(r.arena));
    pinned.insert(pinned.end(), std::make_move_iterator(r.pinned.begin()), std::make_move_iterator(r.pinned.end()));
    facts.docs_loaded += r.facts.docs_loaded;
    facts.kb_loaded += r.facts.kb_loaded;
    facts.docs_scanned += r.facts.docs_scanned;
    facts.kb_scanned += r.facts.kb_scanned;
    const size_t pi = parts[u].pi;
    if (r.touched) touched[pi] = true;
    if (u + 1 == parts.size() || parts[u + 1].pi != pi) readers[pi]->NoteTouched(facts, pi, touched[pi]);
  }
  if (u > 0 && budget != nullptr) budget->armed = true;
  if (u == parts.size()) return ParallelDone{scope.partitions.size(), 0, false};
  return ParallelDone{parts[u].pi, parts[u].after, touched[parts[u].pi]};
}

// Orders (groups, de-duplicates) what `collector` holds and hands each row after `after` to `emit`
// (which returns false to stop).
void EmitCollected(const Plan& plan, Collector& collector, EvalContext& cx, const std::optional<OutRow>& after,
                   PageFacts& facts, const std::function<bool(OutRow&)>& emit) {
  std::vector<OutRow> rows = collector.Finish(cx);
  const auto& desc = collector.descending();
  // ORDER BY alone walks the order index: it loads only the documents it returns (plus the one
  // that tells it more remain). GROUP BY, DISTINCT and aggregates read every match.
  const bool index_walk = plan.group_by.empty() && !plan.aggregate_query && !plan.distinct;
  if (index_walk) {
    facts.docs_loaded = 0;
    facts.kb_loaded = 0;
  }
  for (auto& r : rows) {
    if (after && CompareRows(desc, r, *after) <= 0) continue;
    const bool emitted = emit(r);
    if (index_walk) {
      ++facts.docs_loaded;
      facts.kb_loaded += r.kb;
    }
    if (!emitted) break;
  }
}

// Runs `plan` over the scope's documents and hands each row of the final result, in order, to
// `emit` (which returns false to stop). A streaming query skips the rows at or before `resume` by
// position; one that collects reads the candidates in `range` into `collector` (a fresh one when
// null) and then emits the rows after `resume` by sort key and position. A FROM subquery over
// the container is run to completion first and its values become the outer query's input.
//
// A page whose budget is stoppable may end early (BudgetCheck throws PageStop once the page has
// progressed); `stopped` then receives the position of the last candidate row it completed. A
// streaming page has emitted its rows up to there; one that collects has emitted nothing (its
// caller returns the collection or keeps it).
bool AggregateFromIndex(const Plan& plan, const Scope& scope, EvalContext& cx, Collector& collector, PageFacts& facts);

void Run(const Plan& plan, const Scope& scope, EvalContext& cx, std::vector<store::ItemPtr>& pinned,
         const std::optional<Resume>& resume, PageFacts& facts, const std::function<bool(OutRow&)>& emit,
         std::optional<Pos>* stopped = nullptr, Collector* collecting = nullptr, const ScanRange& range = {}) {
  const bool streaming = Streaming(plan);
  const Source* root = plan.sources.empty() ? nullptr : &plan.sources.front();
  std::optional<Collector> own;
  if (collecting == nullptr) own.emplace(plan);
  Collector& collector = collecting != nullptr ? *collecting : *own;
  std::optional<OutRow> resume_row;
  if (resume && resume->has_row) resume_row = OutRow{resume->keys, resume->pos, Val()};

  if (root == nullptr) {
    // SELECT without FROM: one row, evaluated once.
    if (resume) return;
    if (streaming) {
      if (!plan.where || Eval(*plan.where, cx).IsTrue()) {
        OutRow r{{}, Pos{}, Project(plan, cx)};
        if (r.value.IsDefined()) emit(r);
      }
      return;
    }
    ForEachRow(plan, 0, cx, [&] { collector.Add(cx, Pos{}, 0); });
    EmitCollected(plan, collector, cx, std::nullopt, facts, emit);
    return;
  }

  bool stop = false;
  bool past_end = false;  // the candidates after range.to are not read
  BudgetCheck* budget = cx.budget;
  const bool stoppable = stopped != nullptr && budget != nullptr && budget->stoppable;
  // Where reading starts: a streaming page after its last row, one that collects after its scan.
  const Pos* start = streaming ? (resume ? &resume->pos : nullptr) : (range.from ? &*range.from : nullptr);
  const Pos* end = streaming ? nullptr : (range.to ? &*range.to : nullptr);
  // One root input (a document, or a value of a FROM subquery) bound in env: enumerate its rows.
  auto visit = [&](uint64_t part, uint64_t seq, const store::ItemPtr& item, size_t first_source) {
    Cursor cursor;
    bool matched = false;
    bool pin = false;
    const Pos doc{part, seq, 0};
    // Completing a candidate is progress only past the position the page resumes from.
    if (start != nullptr) {
      const Pos at{start->part, start->seq, 0};
      cursor.arm_after = doc < at ? UINT64_MAX : doc == at ? start->ord : 0;
    }
    if (end != nullptr && doc == Pos{end->part, end->seq, 0}) cursor.stop_after = end->ord;
    auto each = [&] {
      const Pos pos{part, seq, cursor.ord};
      matched = true;
      if (stop) return;
      const double kb = item ? item->kb() : 0;
      if (!streaming) {
        if (collector.Add(cx, pos, kb)) pin = true;
        return;
      }
      if (resume && pos <= resume->pos) return;
      OutRow r{{}, pos, Project(plan, cx)};
      if (r.value.IsUndefined()) return;
      r.kb = kb;
      pin = true;
      if (!emit(r)) {
        stop = true;
        if (stoppable) throw PageStop{};  // the page is complete: leave the document's other rows
      }
    };
    if (!stoppable) {
      ForEachRow(plan, first_source, cx, each, &cursor);
    } else {
      try {
        ForEachRow(plan, first_source, cx, each, &cursor);
      } catch (const PageStop&) {
        *stopped = Pos{part, seq, cursor.completed};
        stop = true;
      }
    }
    if (pin && item) pinned.push_back(item);
    // The document a page resumes in was loaded (and charged) by the previous page.
    const bool resumed_here = start != nullptr && part == start->part && seq == start->seq;
    if (item && !resumed_here) AddFacts(facts, *item, matched || !plan.where);
  };

  // Between two root inputs, a page may end after the one it has just completed (every row of it
  // handled: the next page resumes after its last possible row).
  auto Between = [&](uint64_t part, uint64_t seq) {
    if (start != nullptr && Pos{part, seq, UINT64_MAX} <= *start) return;
    budget->armed = true;
    try {
      budget->Tick();
    } catch (const PageStop&) {
      *stopped = Pos{part, seq, UINT64_MAX};
      stop = true;
    }
  };
  auto beyond = [&](uint64_t part, uint64_t seq) { return end != nullptr && Pos{part, seq, 0} > Pos{end->part, end->seq, 0}; };

  if (root->kind == Source::Kind::kSubquery) {
    std::vector<Val> values;
    // The FROM subquery runs to completion on every page (its values have no position of their own).
    const bool was_stoppable = budget != nullptr && budget->stoppable;
    if (budget != nullptr) budget->stoppable = false;
    Run(*root->sub, scope, cx, pinned, std::nullopt, facts, [&](OutRow& r) {
      if (!root->iterate_rows) {
        values.push_back(r.value);
      } else if (r.value.IsArray()) {
        for (const auto& e : r.value.json().GetArray()) values.push_back(Val(e));
      }
      return true;
    });
    if (budget != nullptr) {
      budget->stoppable = was_stoppable;
      budget->armed = false;
    }
    for (size_t i = 0; i < values.size() && !stop; ++i) {
      if (start != nullptr && Pos{0, i + 1, UINT64_MAX} <= *start) continue;
      if (beyond(0, i + 1)) break;
      cx.env[root->slot] = values[i];
      visit(0, i + 1, nullptr, 1);
      if (!stop && stoppable) Between(0, i + 1);
    }
  } else {
    // COUNT, MIN and MAX answered by the index: no document is read.
    if (!start && !end && !streaming && AggregateFromIndex(plan, scope, cx, collector, facts)) {
      if (budget != nullptr) budget->stoppable = false;
      EmitCollected(plan, collector, cx, resume_row, facts, emit);
      return;
    }
    // What each partition reads: the items an index lookup found (when the WHERE offers one and it
    // finds few enough), else the logical partition's items (a query scoped to one), else all.
    std::optional<IndexLookup> lookup;
    if (scope.indexing != nullptr && scope.view == nullptr) lookup = ChooseIndexLookup(plan, *scope.indexing, cx);
    std::optional<VectorTop> vector_top;
    if (!streaming && scope.indexing != nullptr && scope.view == nullptr) vector_top = ChooseVectorTop(plan, cx);
    const VectorTop* vtop = vector_top ? &*vector_top : nullptr;
    const store::ItemPolicy item_policy{scope.default_ttl, std::nullopt};
    std::vector<std::optional<PartitionReader>> readers(scope.partitions.size());
    size_t first = start != nullptr ? start->part : 0;
    uint64_t first_after = start != nullptr ? (start->seq == 0 ? 0 : start->seq - 1) : 0;
    bool first_touched = false;
    // A collection read from the start may read its partitions on several cores.
    if (!streaming && start == nullptr && end == nullptr) {
      if (auto done = CollectInParallel(plan, scope, lookup, vtop, item_policy, readers, cx, collector, pinned, facts)) {
        first = done->part;
        first_after = done->after;
        first_touched = done->touched;
      }
    }
    for (size_t pi = first; pi < scope.partitions.size() && !stop && !past_end; ++pi) {
      if (!readers[pi]) readers[pi].emplace(scope, pi, lookup, item_policy, vtop);
      PartitionReader& reader = *readers[pi];
      bool touched = pi == first && first_touched;
      reader.Seek(pi == first ? first_after : FloorOf(scope, pi));
      while (!stop && !past_end) {
        auto chunk = reader.Next(512);
        if (chunk.empty()) break;
        for (size_t ci = 0; ci < chunk.size(); ++ci) {
          // Items lie anywhere in memory: ask for a later one's members while this one is read.
          if (ci + kPrefetchAhead < chunk.size()) PrefetchDocument(*chunk[ci + kPrefetchAhead]);
          const auto& item = chunk[ci];
          if (beyond(pi, item->seq)) {
            past_end = true;
            break;
          }
          if (!reader.Admits(*item)) continue;
          touched = true;
          cx.env[root->slot] = Val(item->body);
          visit(pi, item->seq, item, 0);
          if (stop) break;
          if (stoppable) Between(pi, item->seq);
          if (stop) break;
        }
      }
      reader.NoteTouched(facts, pi, touched);
    }
  }
  if (streaming || (stopped != nullptr && stopped->has_value())) return;
  if (budget != nullptr) budget->stoppable = false;  // the rows are all read: nothing stops their output
  EmitCollected(plan, collector, cx, resume_row, facts, emit);
}

// Whether `n` reads a variable (a row's source) anywhere outside aggregate arguments.
bool ReadsRow(const Node& n, int depth = 0) {
  if (depth > 1000) return true;
  if (n.op == Node::Op::kVar || n.op == Node::Op::kSubquery || n.op == Node::Op::kExists ||
      n.op == Node::Op::kArraySubquery || n.op == Node::Op::kUdf) {
    return true;
  }
  for (const auto& k : n.kids) {
    if (ReadsRow(k, depth + 1)) return true;
  }
  return false;
}

// An aggregate query made of COUNT, MIN and MAX only, over the documents alone (no JOIN), answered
// from the partitions' indexes without reading a document: COUNT of a constant counts the rows
// (every item, or the items an exact index lookup finds when the WHERE is that one lookup), COUNT
// of an indexed path counts its defined values, MIN and MAX of an indexed path take the first
// defined entry of its index from either end (undefined when some value there is an array or an
// object, as the aggregate is). Paths only without a WHERE and outside a logical partition (the
// index does not know either); only when every stored item is live (no expired item waits for its
// delete). Returns false when the query must read its rows.
bool AggregateFromIndex(const Plan& plan, const Scope& scope, EvalContext& cx, Collector& collector, PageFacts& facts) {
  if (scope.indexing == nullptr || scope.view != nullptr || scope.epk_range || scope.indexing->mode == "none") return false;
  if (!plan.aggregate_query || !plan.group_by.empty() || plan.distinct || plan.sources.size() != 1 ||
      plan.sources.front().kind != Source::Kind::kContainer || plan.aggregates.empty()) {
    return false;
  }
  if (plan.select == Plan::Select::kValue ? ReadsRow(plan.value) : plan.select != Plan::Select::kList) return false;
  for (const auto& [name, node] : plan.projections) {
    if (ReadsRow(node)) return false;
  }
  std::optional<IndexLookup> lookup;
  if (plan.where) {
    lookup = ChooseIndexLookup(plan, *scope.indexing, cx);
    if (!lookup || !lookup->whole || !lookup->disjoint || scope.partition_key) return false;
  }
  // Per aggregate: every row (a defined constant), no row (undefined), or a path's values.
  struct Counted {
    Agg kind = Agg::kCount;
    bool every = false;
    std::optional<store::DocPath> path;
  };
  std::vector<Counted> counted;
  for (const auto& a : plan.aggregates) {
    Counted c;
    c.kind = a.kind;
    if (a.kind != Agg::kCount && a.kind != Agg::kMin && a.kind != Agg::kMax) return false;
    if (a.kind == Agg::kCount && IsEvaluableConstant(plan, a.arg)) {
      try {
        c.every = Eval(a.arg, cx).IsDefined();
      } catch (...) {
        return false;
      }
    } else {
      c.path = IndexedPathOf(plan, *scope.indexing, a.arg);
      if (!c.path || lookup || scope.partition_key) return false;
    }
    counted.push_back(std::move(c));
  }
  const store::ItemPolicy item_policy{scope.default_ttl, std::nullopt};
  for (const auto* part : scope.partitions) {
    if (!part->AllLive(scope.now_seconds, item_policy)) return false;
  }
  std::vector<Accumulator>& accs = collector.SingleGroup(cx);
  const std::vector<store::KeyRange> defined{{store::TagKey(store::OrderTag::kNull), true, std::nullopt, true, false}};
  const std::vector<store::KeyRange> containers{{store::TagKey(store::OrderTag::kArray), true, std::nullopt, true, false}};
  const std::pair<std::string, uint64_t> after_undefined{store::TagKey(store::OrderTag::kUndefined), UINT64_MAX};
  for (size_t pi = 0; pi < scope.partitions.size(); ++pi) {
    const store::PhysicalPartition& part = *scope.partitions[pi];
    const size_t rows = lookup ? (lookup->ranges.empty() ? 0 : part.IndexCount(lookup->path, lookup->ranges))
                        : scope.partition_key ? part.CountOfKey(*scope.partition_key)
                                              : part.Count();
    for (size_t i = 0; i < counted.size(); ++i) {
      const Counted& c = counted[i];
      if (c.kind == Agg::kCount) {
        accs[i].count += static_cast<int64_t>(c.path ? part.IndexCount(*c.path, defined) : c.every ? rows : 0);
        continue;
      }
      if (!part.IndexLookup(*c.path, containers, 0)) {  // an array or object is there
        accs[i].best_invalid = true;
        continue;
      }
      const bool max = c.kind == Agg::kMax;
      auto hits = part.IndexWalk(*c.path, max, max ? std::nullopt : std::optional(after_undefined), 1,
                                 scope.now_seconds, item_policy);
      if (!hits.empty()) accs[i].Add(Val(store::Resolve(hits.front().item->body, *c.path)), cx.arena);
    }
    if (!scope.partition_key || rows > 0) facts.partitions_touched.push_back(pi);
  }
  return true;
}

// Whether a page of an ORDER BY query walks the index of its sort path (in order, stopping when
// the page is full) instead of collecting every matching row and sorting: one ORDER BY item, an
// indexed document path, nothing that needs every row first (GROUP BY, aggregates, DISTINCT), and
// no suspended collection to resume. Where reading fewer documents and sorting them is cheaper
// (an equality or IN lookup narrows the WHERE, or a logical partition that holds little of its
// partitions), the query collects.
std::optional<store::DocPath> WalkPath(const Plan& plan, const Scope& scope, const std::optional<Resume>& resume,
                                       EvalContext& cx) {
  if (scope.indexing == nullptr || scope.view != nullptr || plan.sources.empty() || !plan.group_by.empty() ||
      plan.aggregate_query || !plan.aggregates.empty() || plan.distinct || plan.order_by.size() != 1) {
    return std::nullopt;
  }
  const Source::Kind root = plan.sources.front().kind;
  if (root != Source::Kind::kContainer && root != Source::Kind::kContainerPath) return std::nullopt;
  if (resume && resume->scan) return std::nullopt;
  auto path = OrderByIndexPath(plan, *scope.indexing);
  if (!path) return std::nullopt;
  if (auto lookup = ChooseIndexLookup(plan, *scope.indexing, cx); lookup && lookup->rank == 1) return std::nullopt;
  if (scope.partition_key) {
    size_t own = 0, all = 0;
    for (const auto* p : scope.partitions) {
      own += p->CountOfKey(*scope.partition_key);
      all += p->Count();
    }
    if (own * 8 <= all) return std::nullopt;
  }
  return path;
}

// One page of an ORDER BY query that walks the index of `path` in every partition of the scope and
// merges them: rows come in their final order (sort key, then partition, document and row), so the
// page ends when it is full and the next one seeks to just after its last row, however far into
// the result that is. `stopped` receives the last row position the page completed when the budget
// ends it before it is full.
void RunWalk(const Plan& plan, const store::DocPath& path, const Scope& scope, EvalContext& cx,
             std::vector<store::ItemPtr>& pinned, const std::optional<Resume>& resume, PageFacts& facts,
             const std::function<bool(OutRow&)>& emit, std::optional<OutRow>& stopped) {
  const Source& root = plan.sources.front();
  const bool desc = plan.order_by.front().descending;
  const store::ItemPolicy item_policy{scope.default_ttl, std::nullopt};
  std::string resume_key;
  if (resume && resume->has_row) resume_key = store::OrderKey(resume->keys.front().ptr());

  struct PartCursor {
    std::optional<std::pair<std::string, uint64_t>> after;  // the last entry read
    std::vector<store::PhysicalPartition::IndexHit> hits;
    size_t at = 0;
    size_t batch = 16;
    bool done = false;
  };
  std::vector<PartCursor> cursors(scope.partitions.size());
  for (size_t pi = 0; pi < cursors.size(); ++pi) {
    if (!resume || !resume->has_row) continue;
    // Rows of the resume key come after the resume row only in later partitions, or later in its own.
    const uint64_t rp = resume->pos.part;
    const uint64_t seq =
        pi < rp ? UINT64_MAX : pi == rp ? (resume->pos.seq == 0 ? 0 : resume->pos.seq - 1) : FloorOf(scope, pi);
    cursors[pi].after = std::pair{resume_key, seq};
  }
  auto head = [&](size_t pi) -> const store::PhysicalPartition::IndexHit* {
    PartCursor& c = cursors[pi];
    if (c.at == c.hits.size() && !c.done) {
      c.hits = scope.partitions[pi]->IndexWalk(path, desc, c.after, c.batch, scope.now_seconds, item_policy);
      c.at = 0;
      c.done = c.hits.size() < c.batch;
      c.batch = std::min<size_t>(c.batch * 4, 1024);
      if (!c.hits.empty()) c.after = std::pair{c.hits.back().key, c.hits.back().item->seq};
    }
    return c.at < c.hits.size() ? &c.hits[c.at] : nullptr;
  };
  // Whether partition a's head comes before partition b's.
  auto before = [&](size_t a, const store::PhysicalPartition::IndexHit& x, size_t b,
                    const store::PhysicalPartition::IndexHit& y) {
    int c = x.key.compare(y.key);
    if (c != 0) return desc ? c > 0 : c < 0;
    return a != b ? a < b : x.item->seq < y.item->seq;
  };

  BudgetCheck* budget = cx.budget;
  const bool stoppable = budget != nullptr && budget->stoppable;
  bool stop = false;
  while (!stop) {
    size_t best = SIZE_MAX;
    const store::PhysicalPartition::IndexHit* hit = nullptr;
    for (size_t pi = 0; pi < cursors.size(); ++pi) {
      const auto* h = head(pi);
      if (h != nullptr && (hit == nullptr || before(pi, *h, best, *hit))) {
        best = pi;
        hit = h;
      }
    }
    if (hit == nullptr) break;
    const store::ItemPtr item = hit->item;
    ++cursors[best].at;
    if (scope.partition_key && item->pk != *scope.partition_key) continue;
    if (scope.epk_range && !(item->epk >= scope.epk_range->first && item->epk < scope.epk_range->second)) continue;

    cx.env[root.slot] = Val(item->body);
    const bool resumed_here = resume && resume->has_row && best == resume->pos.part && item->seq == resume->pos.seq;
    const double kb = item->kb();
    bool matched = false;
    bool pin = false;
    Cursor rows;
    if (resumed_here) rows.arm_after = resume->pos.ord;
    try {
      ForEachRow(plan, 0, cx, [&] {
        matched = true;
        if (stop) return;
        OutRow r{{Eval(plan.order_by.front().expr, cx)}, Pos{best, item->seq, rows.ord}, Project(plan, cx)};
        if (r.value.IsUndefined()) return;
        r.kb = kb;
        pin = true;
        if (!emit(r)) stop = true;
      }, &rows);
    } catch (const PageStop&) {
      // The deadline within the document's rows: the next page resumes after the last one completed.
      cx.env[root.slot] = Val(item->body);
      stopped = OutRow{{Eval(plan.order_by.front().expr, cx)}, Pos{best, item->seq, rows.completed}, Val()};
      pin = true;
      stop = true;
    }
    if (pin) pinned.push_back(item);
    if (!resumed_here) AddFacts(facts, *item, matched || !plan.where);
    if (stop || !stoppable) continue;
    // Between two documents the page may end at its deadline: the next one resumes after this one.
    budget->armed = true;
    try {
      budget->Tick();
    } catch (const PageStop&) {
      cx.env[root.slot] = Val(item->body);
      stopped = OutRow{{Eval(plan.order_by.front().expr, cx)}, Pos{best, item->seq, UINT64_MAX}, Val()};
      pinned.push_back(item);
      stop = true;
    }
  }
  for (size_t pi = 0; pi < scope.partitions.size(); ++pi) {
    if (scope.partition_key &&
        !scope.partitions[pi]->HasLiveItems(*scope.partition_key, scope.now_seconds, item_policy)) {
      continue;
    }
    facts.partitions_touched.push_back(pi);
  }
}

}  // namespace

void BudgetCheck::Check() {
  if (budget_.cancelled != nullptr && budget_.cancelled->load(std::memory_order_relaxed)) {
    throw CosmosError(408, 0, "RequestTimeout", errors::Wrap("The request was cancelled."));
  }
  const bool over_memory = arena_->used() + held_bytes > budget_.memory_bytes;
  // What a query holds for its final order, groups or duplicates cannot be answered in part.
  if (over_memory && (collects || !stoppable)) throw errors::QueryMemoryExceeded(budget_.memory_bytes);
  // A page ends (with a continuation) once it has progressed; a streaming page's memory is its arena.
  if (CanStop() && (over_memory || std::chrono::steady_clock::now() >= budget_.deadline)) throw PageStop{};
}

namespace {

// What a page of a collecting query gathered before its deadline, kept for the next page.
struct Suspended {
  uint32_t query = 0;   // hash of the query text
  std::string scope;    // the partitions and keys it read
  std::unique_ptr<Arena> arena;
  std::vector<store::ItemPtr> pinned;
  std::unique_ptr<Collector> collector;
  // The constants and parameters of the plans of the pages that collected (rows may point into them).
  std::vector<std::shared_ptr<const void>> keepalive;
  size_t held_bytes = 0;
  size_t bytes() const { return arena->used() + held_bytes + pinned.size() * sizeof(store::ItemPtr); }
};

std::string ScopeKey(const Scope& scope) {
  std::string k;
  for (const auto* p : scope.partitions) k += std::to_string(reinterpret_cast<uintptr_t>(p)) + ",";
  k += "|" + scope.partition_key.value_or("*");
  if (scope.epk_range) k += "|" + scope.epk_range->first + "|" + scope.epk_range->second;
  if (scope.view) k += "|view";
  return k;
}

// The suspended collections of the process: at most kMaxEntries, holding together no more than
// one request's memory budget, each kept kIdle after its page (the oldest go first). A page whose
// collection is gone reads from the start again.
class SuspendedPages {
 public:
  static constexpr size_t kMaxEntries = 64;
  static constexpr std::chrono::seconds kIdle{60};

  static SuspendedPages& Get() {
    static SuspendedPages* p = new SuspendedPages();
    return *p;
  }

  uint64_t NewId() {
    std::lock_guard lock(mu_);
    return next_++;
  }

  void Put(uint64_t id, std::unique_ptr<Suspended> s, size_t cap) {
    std::vector<std::unique_ptr<Suspended>> dropped;  // freed outside the lock
    {
      std::lock_guard lock(mu_);
      const auto now = std::chrono::steady_clock::now();
      const size_t bytes = s->bytes();
      total_ += bytes;
      entries_.emplace(id, Entry{std::move(s), now, bytes});
      while (!entries_.empty()) {
        auto oldest = entries_.begin();
        if (entries_.size() <= kMaxEntries && total_ <= cap && now - oldest->second.at < kIdle) break;
        if (oldest->first == id && entries_.size() == 1) break;  // the newest stays even alone over the cap
        total_ -= oldest->second.bytes;
        dropped.push_back(std::move(oldest->second.state));
        entries_.erase(oldest);
      }
    }
    if (!dropped.empty()) {
      dropped.clear();
      malloc_trim(0);
    }
  }

  std::unique_ptr<Suspended> Take(uint64_t id, uint32_t query, const std::string& scope) {
    std::lock_guard lock(mu_);
    auto it = entries_.find(id);
    if (it == entries_.end() || it->second.state->query != query || it->second.state->scope != scope) return nullptr;
    auto s = std::move(it->second.state);
    total_ -= it->second.bytes;
    entries_.erase(it);
    return s;
  }

  size_t size() {
    std::lock_guard lock(mu_);
    return entries_.size();
  }

 private:
  SuspendedPages() {
    // Numbers from one process do not name another's collections.
    next_ = (static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()) & 0xFFFFFFFFull) << 20 | 1;
  }
  struct Entry {
    std::unique_ptr<Suspended> state;
    std::chrono::steady_clock::time_point at;
    size_t bytes;
  };
  std::mutex mu_;
  std::map<uint64_t, Entry> entries_;  // in the order they were put
  size_t total_ = 0;
  uint64_t next_ = 1;
};

// The "r" and "g" members of a continuation: the scope's range ids and floors.
std::string RangesMember(const Scope& scope) {
  std::string j = ",\"r\":[";
  for (size_t i = 0; i < scope.partitions.size(); ++i) {
    if (i) j += ',';
    json::WriteString(j, scope.partitions[i]->range_id());
  }
  j += "]";
  std::string g;
  for (size_t i = 0; i < scope.floors.size(); ++i) {
    if (scope.floors[i] == 0) continue;
    g += g.empty() ? "[" : ",[";
    json::WriteString(g, scope.partitions[i]->range_id());
    g += "," + std::to_string(scope.floors[i]) + "]";
  }
  if (!g.empty()) j += ",\"g\":[" + g + "]";
  return j;
}

// A continuation made over other ranges than the scope's (a range was split since): each position
// moves to the first range descended from the one it named, and when that range was split, its
// other descendants start after the position's sequence number (Scope::floors). `adjusted` holds
// the scope when it must change. A range the scope does not descend from makes the token invalid.
const Scope& AdjustForSplits(const Scope& scope, std::optional<Resume>& resume, Scope& adjusted) {
  if (!resume || (resume->ranges.empty() && resume->floors.empty())) return scope;
  const auto& was = resume->ranges;
  bool same = was.empty() || was.size() == scope.partitions.size();
  for (size_t i = 0; !was.empty() && same && i < was.size(); ++i) same = was[i] == scope.partitions[i]->range_id();
  if (same && resume->floors.empty()) return scope;
  adjusted = scope;
  adjusted.floors.assign(scope.partitions.size(), 0);
  for (const auto& [range, seq] : resume->floors) {
    for (size_t j = 0; j < scope.partitions.size(); ++j) {
      if (scope.partitions[j]->DescendsFrom(range)) adjusted.floors[j] = std::max(adjusted.floors[j], seq);
    }
  }
  if (same) return adjusted;
  auto move = [&](Pos& p, bool start) {
    if (p.part >= was.size()) throw InvalidContinuation();
    const std::string& range = was[p.part];
    size_t first = SIZE_MAX, last = SIZE_MAX;
    for (size_t j = 0; j < scope.partitions.size(); ++j) {
      if (!scope.partitions[j]->DescendsFrom(range)) continue;
      if (first == SIZE_MAX) first = j;
      last = j;
    }
    if (first == SIZE_MAX) throw InvalidContinuation();
    if (start && scope.partitions[first]->range_id() != range) {
      for (size_t j = first + 1; j <= last; ++j) adjusted.floors[j] = std::max(adjusted.floors[j], p.seq);
    }
    p.part = start ? first : last;
  };
  if (resume->has_row) move(resume->pos, true);
  if (resume->scan) move(*resume->scan, true);
  if (resume->segment_end) move(*resume->segment_end, false);
  return adjusted;
}

Page ExecutePageHolding(const Plan& plan, const Scope& given_scope, const PageRequest& request, size_t& held,
                        std::unique_ptr<Suspended>& suspend, uint64_t& suspend_id) {
  const bool plain = Streaming(plan);
  const size_t key_count = plain ? 0 : (!plan.order_by.empty() ? plan.order_by.size() : plan.group_by.size());
  json::Document token_holder;
  std::optional<Resume> resume;
  if (!request.continuation.empty()) {
    resume = DecodeResume(request.continuation, request.query_text, key_count, token_holder);
    if (plain && (resume->scan || !resume->has_row)) throw InvalidContinuation();
  }
  Scope adjusted_scope;
  const Scope& scope = AdjustForSplits(given_scope, resume, adjusted_scope);
  const std::string ranges = RangesMember(scope);
  const bool bounded = request.budget.deadline != std::chrono::steady_clock::time_point::max();
  // A partial page: the client merges what the pages of one range return (the SDKs' pipeline
  // sums partial aggregates, merges groups and removes duplicates across pages), so a page of
  // GROUP BY, aggregates or DISTINCT without ORDER BY ends at the deadline with the result over
  // what it read, as the service's pages do. Every other query that collects keeps what it read
  // (suspends) and answers an empty page until it has read everything.
  const bool windowed = plan.top || plan.offset || plan.limit;
  const bool partial = !plain && request.client_merges && plan.order_by.empty() && !windowed;
  const uint32_t query_hash = QueryHash(request.query_text);
  const std::string scope_key = plain ? std::string() : ScopeKey(scope);

  std::unique_ptr<Suspended> state;
  ScanRange range;
  if (!plain && resume && resume->scan) {
    if (partial) {
      range.from = resume->scan;
      range.to = resume->segment_end;
    } else if (resume->state != 0 && (state = SuspendedPages::Get().Take(resume->state, query_hash, scope_key))) {
      range.from = resume->scan;
    }
    // Otherwise the collection is gone: the scan starts again (the rows returned stay skipped).
  }
  if (!state) {
    state = std::make_unique<Suspended>();
    state->arena = std::make_unique<Arena>();
    state->collector = std::make_unique<Collector>(plan);
    state->query = query_hash;
    state->scope = scope_key;
  }
  state->collector->Rebind(plan);
  if (request.keepalive) state->keepalive.push_back(request.keepalive);

  Arena& arena = *state->arena;
  EvalContext cx{arena, FunctionContext{arena, request.now_ms, request.udfs}, {}, nullptr, nullptr};
  cx.env.resize(std::max<size_t>(plan.slot_count, 1));
  // An ORDER BY page that walks its index returns rows as a streaming one does.
  const std::optional<store::DocPath> walk = WalkPath(plan, scope, resume, cx);
  const bool streaming = plain || walk.has_value();
  std::optional<OutRow> walk_stopped;
  std::optional<Pos> stopped;
  Page page;
  std::vector<store::ItemPtr>& pinned = state->pinned;  // documents the result rows point into
  bool suspending = false;
  {
    BudgetCheck budget(request.budget, arena, &held);
    budget.held_bytes = state->held_bytes;
    budget.collects = !streaming;
    // A collecting page stops only when what it keeps outlives the request (a suspension needs
    // the plan's constants), and a partial page only before it returns rows of a computed part.
    budget.stoppable = streaming || (bounded && (partial ? !(resume && resume->has_row) : !state->keepalive.empty()));
    if (partial && !plan.aggregate_query) {
      Collector* c = state->collector.get();
      budget.may_stop = [c] { return c->HasOutput(); };  // the SDKs end a GROUP BY at an empty page
    }
    cx.budget = &budget;

    Window window = resume ? resume->window : InitialWindow(plan);
    size_t page_bytes = 0;
    std::optional<OutRow> last_emitted;
    bool more = false;
    bool done = window.take && *window.take == 0;

    // Emits one row of the final result into the page; returns false once the page is complete.
    auto emit = [&](OutRow& row) -> bool {
      if (window.skip > 0) {
        --window.skip;
        return true;
      }
      if (done || (window.take && *window.take == 0)) {
        done = true;
        return false;
      }
      if (page.rows.size() >= request.max_items || page_bytes >= request.max_bytes) {
        more = true;
        return false;
      }
      std::string text;
      WriteRow(text, row);
      page_bytes += text.size();
      page.rows.push_back(std::move(text));
      if (window.take) --*window.take;
      last_emitted = row;
      // A streaming page ends as soon as it is full, as the service's does: it carries a continuation
      // without looking further, so a page that ends exactly at the last row is followed by an empty
      // one. (TOP or LIMIT used up ends the query instead.) An ordered page, walked or sorted, reads
      // the next row first, as the service's index walk loads one more document to know whether
      // more remain: it has no continuation when nothing follows.
      if (plain && (page.rows.size() >= request.max_items || page_bytes >= request.max_bytes) &&
          !(window.take && *window.take == 0)) {
        more = true;
        return false;
      }
      return true;
    };
    if (walk) {
      RunWalk(plan, *walk, scope, cx, pinned, resume, page.facts, emit, walk_stopped);
    } else {
      Run(plan, scope, cx, pinned, resume, page.facts, emit, &stopped, state->collector.get(), range);
    }
    const bool finished = done || (window.take && *window.take == 0);
    if (walk) {
      if (more && last_emitted) {
        page.continuation = EncodeResume(ranges, &*last_emitted, window, request.query_text);
      } else if (walk_stopped && !finished) {
        page.continuation = EncodeResume(ranges, &*walk_stopped, window, request.query_text);
      }
    } else if (streaming) {
      if (more && last_emitted) {
        page.continuation = EncodeResume(ranges, &*last_emitted, window, request.query_text);
      } else if (stopped && !finished) {
        // The budget ended the page: the next one resumes after the last row this one completed.
        const OutRow at{{}, *stopped, Val()};
        page.continuation = EncodeResume(ranges, &at, window, request.query_text);
      }
    } else if (stopped && partial) {
      // The result over the candidates read, (range.from, *stopped]; what does not fit in the page
      // is returned by the next, which reads that part again.
      budget.stoppable = false;
      EmitCollected(plan, *state->collector, cx, std::nullopt, page.facts, emit);
      if (more && last_emitted) {
        // (A part that starts at the beginning starts after position {0,0,0}, which no row has.)
        page.continuation =
            EncodeResume(ranges, &*last_emitted, window, request.query_text, range.from.value_or(Pos{}), *stopped);
      } else {
        page.continuation = EncodeResume(ranges, nullptr, window, request.query_text, *stopped);
      }
    } else if (stopped) {
      // Nothing returned yet: what was read waits for the next page, which reads on after *stopped.
      if (plan.group_by.empty() && !plan.aggregate_query && !plan.distinct) {
        page.facts.docs_loaded = 0;  // ORDER BY walks its index: it has loaded nothing to return yet
        page.facts.kb_loaded = 0;
      }
      std::optional<OutRow> shown;
      if (resume && resume->has_row) shown = OutRow{resume->keys, resume->pos, Val()};
      suspend_id = SuspendedPages::Get().NewId();
      page.continuation = EncodeResume(ranges, shown ? &*shown : nullptr, window, request.query_text, *stopped, std::nullopt,
                                       suspend_id);
      suspending = true;
    } else if (partial && range.from) {
      // A part read to its end (range.to, or the end of the range).
      if (more && last_emitted) {
        page.continuation = EncodeResume(ranges, &*last_emitted, window, request.query_text, range.from, range.to);
      } else if (range.to) {
        page.continuation = EncodeResume(ranges, nullptr, window, request.query_text, range.to);
      }
    } else if (more && last_emitted) {
      page.continuation = EncodeResume(ranges, &*last_emitted, window, request.query_text);
    }
    if (suspending) state->held_bytes = budget.held_bytes;
  }
  // The collection goes to the caller once the budget check no longer looks at its arena.
  if (suspending) suspend = std::move(state);
  return page;
}

// A page that held this much gives the memory back to the system when it ends (glibc keeps freed
// heap memory: an ORDER BY that held 1.9 GB kept 1.7 GB after answering).
constexpr size_t kTrimAfterBytes = 64u << 20;

}  // namespace

Page ExecutePage(const Plan& plan, const Scope& scope, const PageRequest& request) {
  size_t held = 0;
  std::unique_ptr<Suspended> suspend;
  uint64_t id = 0;
  try {
    Page page = ExecutePageHolding(plan, scope, request, held, suspend, id);
    if (suspend) {
      SuspendedPages::Get().Put(id, std::move(suspend), request.budget.memory_bytes);
    } else if (held >= kTrimAfterBytes) {
      malloc_trim(0);
    }
    return page;
  } catch (...) {
    if (held >= kTrimAfterBytes) malloc_trim(0);
    throw;
  }
}

size_t SuspendedCollections() { return SuspendedPages::Get().size(); }

}  // namespace cosmos::query
