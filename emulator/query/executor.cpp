#include "query/executor.h"

#include <malloc.h>

#include <algorithm>
#include <functional>
#include <unordered_map>

#include "common/errors.h"
#include "json/json.h"
#include "query/eval.h"
#include "util/util.h"

namespace cosmos::query {

namespace {

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
  const std::string* text = nullptr;  // the stored document text, when the value is a whole item
  double kb = 0;                      // size of the document the row came from
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
};

// Enumerates the rows of the FROM/JOIN sources from `index` on, with WHERE applied.
void ForEachRow(const Plan& plan, size_t index, EvalContext& cx, const std::function<void()>& row,
                Cursor* cursor = nullptr) {
  if (index == plan.sources.size()) {
    if (cursor != nullptr) ++cursor->ord;
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
class Collector {
 public:
  Collector(const Plan& plan) : plan_(plan) {
    for (const auto& k : plan.order_by) desc_.push_back(k.descending);
    if (plan.order_by.empty()) desc_.assign(plan.group_by.size(), false);
  }

  void Add(EvalContext& cx, Pos pos, const std::string* text, double kb) {
    if (!plan_.group_by.empty() || plan_.aggregate_query) {
      AddToGroup(cx, pos);
      return;
    }
    OutRow r;
    r.pos = pos;
    for (const auto& k : plan_.order_by) r.keys.push_back(Eval(k.expr, cx));
    r.value = Project(plan_, cx);
    if (r.value.IsUndefined()) return;
    if (plan_.select == Plan::Select::kStar) r.text = text;
    r.kb = kb;
    if (cx.budget != nullptr) cx.budget->held_bytes += sizeof(OutRow) + r.keys.size() * sizeof(Val);
    rows_.push_back(std::move(r));
  }

  std::vector<OutRow> Finish(EvalContext& cx) {
    if (plan_.aggregate_query && groups_.empty()) NewGroup("", cx, Pos{});
    for (auto& [_, g] : groups_) {
      std::vector<Val> results;
      for (const auto& acc : g.accs) results.push_back(acc.Result(cx.arena));
      std::vector<Val> saved = cx.env;
      cx.env = g.env;
      cx.aggs = &results;
      OutRow r;
      r.pos = g.first;
      if (!plan_.order_by.empty()) {
        for (const auto& k : plan_.order_by) r.keys.push_back(Eval(k.expr, cx));
      } else {
        r.keys = g.key;
      }
      r.value = Project(plan_, cx);
      cx.aggs = nullptr;
      cx.env = std::move(saved);
      if (r.value.IsDefined()) rows_.push_back(std::move(r));
    }
    std::stable_sort(rows_.begin(), rows_.end(),
                     [&](const OutRow& a, const OutRow& b) { return CompareRows(desc_, a, b) < 0; });
    if (plan_.distinct) {
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
    for (const auto& a : plan_.aggregates) g.accs.emplace_back(a.kind);
    return g;
  }

  void AddToGroup(EvalContext& cx, Pos pos) {
    std::vector<Val> key;
    std::string canonical;
    for (const auto& g : plan_.group_by) {
      key.push_back(Eval(g, cx));
      CanonicalKey(canonical, key.back());
      canonical += '|';
    }
    auto it = groups_.find(canonical);
    if (it == groups_.end() && cx.budget != nullptr) {
      cx.budget->held_bytes += sizeof(Group) + 2 * canonical.size() + 64 + cx.env.size() * sizeof(Val) +
                               plan_.aggregates.size() * sizeof(Accumulator) + key.size() * sizeof(Val);
    }
    Group& g = it != groups_.end() ? it->second : NewGroup(canonical, cx, pos);
    if (it == groups_.end()) g.key = std::move(key);
    for (size_t i = 0; i < plan_.aggregates.size(); ++i) g.accs[i].Add(Eval(plan_.aggregates[i].arg, cx), cx.arena);
  }

  const Plan& plan_;
  std::vector<bool> desc_;
  std::vector<OutRow> rows_;
  std::unordered_map<std::string, Group> groups_;
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
struct Resume {
  Pos pos;
  std::vector<Val> keys;
  Window window;
};

uint32_t QueryHash(std::string_view text) {
  uint32_t h = 2166136261u;
  for (char c : text) h = (h ^ static_cast<unsigned char>(c)) * 16777619u;
  return h;
}

std::string EncodeResume(const OutRow& last, const Window& w, std::string_view query) {
  std::string j = "{\"v\":1,\"h\":" + std::to_string(QueryHash(query)) + ",\"p\":[" + std::to_string(last.pos.part) +
                  "," + std::to_string(last.pos.seq) + "," + std::to_string(last.pos.ord) + "],\"k\":[";
  for (size_t i = 0; i < last.keys.size(); ++i) {
    if (i > 0) j += ',';
    j += '[';
    if (last.keys[i].IsDefined()) json::Write(j, last.keys[i].json());
    j += ']';
  }
  j += "],\"s\":" + std::to_string(w.skip) + ",\"t\":" + (w.take ? std::to_string(*w.take) : "null") + "}";
  return util::Base64Encode(j);
}

CosmosError InvalidContinuation() { return CosmosError(400, 0, "BadRequest", "Invalid Continuation Token"); }

Resume DecodeResume(const std::string& token, std::string_view query, size_t key_count, json::Document& holder) {
  auto raw = util::Base64Decode(token);
  if (!raw || json::Parse(*raw, holder) != json::ParseStatus::kOk || !holder.IsObject()) throw InvalidContinuation();
  auto get = [&](const char* name) -> const json::Value& {
    auto it = holder.FindMember(name);
    if (it == holder.MemberEnd()) throw InvalidContinuation();
    return it->value;
  };
  const auto& h = get("h");
  if (!h.IsUint64() || h.GetUint64() != QueryHash(query)) throw InvalidContinuation();
  const auto& p = get("p");
  if (!p.IsArray() || p.Size() != 3 || !p[0].IsUint64() || !p[1].IsUint64() || !p[2].IsUint64()) {
    throw InvalidContinuation();
  }
  Resume r;
  r.pos = {p[0].GetUint64(), p[1].GetUint64(), p[2].GetUint64()};
  const auto& k = get("k");
  if (!k.IsArray() || k.Size() != key_count) throw InvalidContinuation();
  for (const auto& e : k.GetArray()) {
    if (!e.IsArray() || e.Size() > 1) throw InvalidContinuation();
    r.keys.push_back(e.Size() == 0 ? Val() : Val(e[0]));
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

void AddFacts(PageFacts& f, const store::Item& item, bool matched) {
  double kb = static_cast<double>(item.text.size()) / 1024.0;
  if (matched) {
    ++f.docs_loaded;
    f.kb_loaded += kb;
  } else {
    ++f.docs_scanned;
    f.kb_scanned += kb;
  }
}

void WriteRow(std::string& out, const OutRow& r) {
  if (r.text != nullptr) {
    out = *r.text;
    return;
  }
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
  ForEachRow(plan, 0, cx, [&] { collector.Add(cx, Pos{0, 0, ord++}, nullptr, 0); });
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

// Runs `plan` over the scope's documents and hands each row of the final result, in order, to
// `emit` (which returns false to stop). Rows at or before `resume` are skipped by position (or,
// for ordered results, by sort key). A FROM subquery over the container is run to completion first
// and its values become the outer query's input.
//
// A streaming page may end early (its budget spent: BudgetCheck throws PageStop once the page has
// progressed); `stopped` then receives the position of the last candidate row it completed.
void Run(const Plan& plan, const Scope& scope, EvalContext& cx, std::vector<store::ItemPtr>& pinned,
         const std::optional<Resume>& resume, PageFacts& facts, const std::function<bool(OutRow&)>& emit,
         std::optional<Pos>* stopped = nullptr) {
  const bool streaming = Streaming(plan);
  const Source* root = plan.sources.empty() ? nullptr : &plan.sources.front();
  Collector collector(plan);

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
    ForEachRow(plan, 0, cx, [&] { collector.Add(cx, Pos{}, nullptr, 0); });
    for (auto& r : collector.Finish(cx)) {
      if (!emit(r)) break;
    }
    return;
  }

  bool stop = false;
  BudgetCheck* budget = cx.budget;
  const bool stoppable = streaming && stopped != nullptr && budget != nullptr;
  // One root input (a document, or a value of a FROM subquery) bound in env: enumerate its rows.
  auto visit = [&](uint64_t part, uint64_t seq, const store::ItemPtr& item, size_t first_source) {
    Cursor cursor;
    bool matched = false;
    bool pin = false;
    // Completing a candidate is progress only past the position the page resumed from.
    if (resume && streaming) {
      const Pos doc{part, seq, 0};
      const Pos at{resume->pos.part, resume->pos.seq, 0};
      cursor.arm_after = doc < at ? UINT64_MAX : doc == at ? resume->pos.ord : 0;
    }
    auto each = [&] {
      const Pos pos{part, seq, cursor.ord};
      matched = true;
      if (stop) return;
      const double kb = item ? static_cast<double>(item->text.size()) / 1024.0 : 0;
      if (!streaming) {
        collector.Add(cx, pos, item ? &item->text : nullptr, kb);
        pin = true;
        return;
      }
      if (resume && pos <= resume->pos) return;
      OutRow r{{}, pos, Project(plan, cx)};
      if (r.value.IsUndefined()) return;
      if (item && plan.select == Plan::Select::kStar && root->kind == Source::Kind::kContainer) r.text = &item->text;
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
    // The document a streaming page resumes in was loaded (and charged) by the previous page.
    const bool resumed_here = resume && streaming && part == resume->pos.part && seq == resume->pos.seq;
    if (item && !resumed_here) AddFacts(facts, *item, matched || !plan.where);
  };

  // Between two root inputs, a streaming page may end after the one it has just completed (every row
  // of it handled: the next page resumes after its last possible row).
  auto Between = [&](uint64_t part, uint64_t seq) {
    if (resume && Pos{part, seq, UINT64_MAX} <= resume->pos) return;
    budget->armed = true;
    try {
      budget->Tick();
    } catch (const PageStop&) {
      *stopped = Pos{part, seq, UINT64_MAX};
      stop = true;
    }
  };

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
      cx.env[root->slot] = values[i];
      visit(0, i + 1, nullptr, 1);
      if (!stop && stoppable) Between(0, i + 1);
    }
  } else {
    for (size_t pi = resume && streaming ? resume->pos.part : 0; pi < scope.partitions.size() && !stop; ++pi) {
      store::PhysicalPartition& part = *scope.partitions[pi];
      bool touched = false;
      uint64_t after = 0;
      if (resume && streaming && pi == resume->pos.part) after = resume->pos.seq == 0 ? 0 : resume->pos.seq - 1;
      while (!stop) {
        auto chunk = scope.view ? ViewChunk(*scope.view, after, 512)
                                : part.Feed(after, 512, scope.now_seconds, store::ItemPolicy{scope.default_ttl, std::nullopt});
        if (chunk.empty()) break;
        for (const auto& item : chunk) {
          after = item->seq;
          if (scope.partition_key && item->pk != *scope.partition_key) continue;
          if (scope.epk_range && !(item->epk >= scope.epk_range->first && item->epk < scope.epk_range->second))
            continue;
          touched = true;
          cx.env[root->slot] = Val(item->body);
          visit(pi, item->seq, item, 0);
          if (stop) break;
          if (stoppable) Between(pi, item->seq);
          if (stop) break;
        }
      }
      if ((touched || !scope.partition_key) &&
          std::find(facts.partitions_touched.begin(), facts.partitions_touched.end(), pi) ==
              facts.partitions_touched.end()) {
        facts.partitions_touched.push_back(pi);
      }
    }
  }
  if (streaming) return;

  std::vector<OutRow> rows = collector.Finish(cx);
  const auto& desc = collector.descending();
  std::optional<OutRow> resume_row;
  if (resume) resume_row = OutRow{resume->keys, resume->pos, Val()};
  // ORDER BY alone walks the order index: it loads only the documents it returns (plus the one
  // that tells it more remain). GROUP BY, DISTINCT and aggregates read every match.
  const bool index_walk = plan.group_by.empty() && !plan.aggregate_query && !plan.distinct;
  if (index_walk) {
    facts.docs_loaded = 0;
    facts.kb_loaded = 0;
  }
  for (auto& r : rows) {
    if (resume_row && CompareRows(desc, r, *resume_row) <= 0) continue;
    const bool emitted = emit(r);
    if (index_walk) {
      ++facts.docs_loaded;
      facts.kb_loaded += r.kb;
    }
    if (!emitted) break;
  }
}

}  // namespace

void BudgetCheck::Check() {
  if (budget_.cancelled != nullptr && budget_.cancelled->load(std::memory_order_relaxed)) {
    throw CosmosError(408, 0, "RequestTimeout", errors::Wrap("The request was cancelled."));
  }
  const bool over_memory = arena_.used() + held_bytes > budget_.memory_bytes;
  if (stoppable) {
    // A streaming page ends (with a continuation) once it has progressed; its memory is the arena.
    if (armed && (over_memory || std::chrono::steady_clock::now() >= budget_.deadline)) throw PageStop{};
    return;
  }
  if (over_memory) throw errors::QueryMemoryExceeded(budget_.memory_bytes);
}

namespace {

Page ExecutePageHolding(const Plan& plan, const Scope& scope, const PageRequest& request, size_t& held) {
  Arena arena;
  EvalContext cx{arena, FunctionContext{arena, request.now_ms, request.udfs}, {}, nullptr, nullptr};
  cx.env.resize(std::max<size_t>(plan.slot_count, 1));
  const bool streaming = Streaming(plan);
  BudgetCheck budget(request.budget, arena, &held);
  budget.stoppable = streaming;
  cx.budget = &budget;
  const size_t key_count = streaming ? 0 : (!plan.order_by.empty() ? plan.order_by.size() : plan.group_by.size());

  json::Document token_holder;
  std::optional<Resume> resume;
  if (!request.continuation.empty()) {
    resume = DecodeResume(request.continuation, request.query_text, key_count, token_holder);
  }
  Window window = resume ? resume->window : InitialWindow(plan);

  Page page;
  std::vector<store::ItemPtr> pinned;  // documents the result rows point into
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
    // one. (TOP or LIMIT used up ends the query instead.)
    if (streaming && (page.rows.size() >= request.max_items || page_bytes >= request.max_bytes) &&
        !(window.take && *window.take == 0)) {
      more = true;
      return false;
    }
    return true;
  };
  std::optional<Pos> stopped;
  Run(plan, scope, cx, pinned, resume, page.facts, emit, &stopped);
  if (more && last_emitted) {
    page.continuation = EncodeResume(*last_emitted, window, request.query_text);
  } else if (stopped && !done && !(window.take && *window.take == 0)) {
    // The budget ended the page: the next one resumes after the last row this one completed.
    page.continuation = EncodeResume(OutRow{{}, *stopped, Val()}, window, request.query_text);
  }
  return page;
}

// A page that held this much gives the memory back to the system when it ends (glibc keeps freed
// heap memory: an ORDER BY that held 1.9 GB kept 1.7 GB after answering).
constexpr size_t kTrimAfterBytes = 64u << 20;

}  // namespace

Page ExecutePage(const Plan& plan, const Scope& scope, const PageRequest& request) {
  size_t held = 0;
  try {
    Page page = ExecutePageHolding(plan, scope, request, held);
    if (held >= kTrimAfterBytes) malloc_trim(0);
    return page;
  } catch (...) {
    if (held >= kTrimAfterBytes) malloc_trim(0);
    throw;
  }
}

}  // namespace cosmos::query
