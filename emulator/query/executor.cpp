// The page driver: ExecutePage decodes the page's continuation, takes up the collection an earlier
// page suspended (or starts one), runs the plan over the scope through the row loop or an index
// walk, writes the rows the window and the page's size let in, and ends the page with its
// continuation (or suspends what a collecting page read before its deadline).
#include "query/executor.h"

#include <malloc.h>

#include "query/executor_internal.h"

namespace cosmos::query {

namespace detail {

namespace {

void WriteRow(std::string& out, const OutRow& r) {
  WriteJson(out, r.value);
}

// What a page leaves its caller besides the rows: the memory it held at most, and the collection it
// suspends (under suspend_id) for the next page.
struct PageOutcome {
  size_t held = 0;
  std::unique_ptr<Suspended> suspend;
  uint64_t suspend_id = 0;
};

// One page being answered: where it resumes, the collection it continues or starts, how it reads
// (streaming, an index walk, or collecting) and where it stopped, and the rows it returns.
struct PageState {
  PageState(const Plan& p, const PageRequest& r) : plan(p), request(r), plain(Streaming(p)) {}

  const Plan& plan;
  const PageRequest& request;
  const bool plain;  // a streaming query
  json::Document token_holder;  // what the resume's sort keys point into
  std::optional<Resume> resume;
  Scope adjusted_scope;
  const Scope* scope = nullptr;  // the request's scope, or adjusted_scope after a split
  std::string ranges;            // the continuation's "r" and "g" members
  bool bounded = false;          // the page has a deadline
  bool partial = false;          // a partial page (ResumePage)
  std::string scope_key;
  std::unique_ptr<Suspended> state;  // the collection (and its arena and pinned documents)
  bool replay = false;               // the page returns rows an earlier page computed (state->rows)
  std::vector<OutRow> rest;          // the rows of the result this page computed and could not return
  ScanRange range;

  std::optional<Walk> walk;            // an ORDER BY page that walks an index
  bool streaming = false;              // plain, or walked: rows come in their final order
  std::optional<OutRow> walk_stopped;
  std::optional<Pos> stopped;

  Page page;
  Window window;
  size_t page_bytes = 0;
  std::optional<OutRow> last_emitted;
  bool more = false;
  bool done = false;

  bool finished() const { return done || (window.take && *window.take == 0); }
};

// Decodes the continuation, adjusts the scope for splits and takes up the collection an earlier page
// suspended (or starts a new one).
void ResumePage(PageState& p, const Scope& given_scope) {
  const Plan& plan = p.plan;
  const PageRequest& request = p.request;
  const bool plain = p.plain;
  const size_t key_count = plain ? 0 : (!plan.order_by.empty() ? plan.order_by.size() : plan.group_by.size());
  if (!request.continuation.empty()) {
    p.resume = DecodeResume(request.continuation, request.query_text, key_count, p.token_holder);
    if (plain && (p.resume->scan || !p.resume->has_row || p.resume->kept != 0)) throw InvalidContinuation();
  }
  p.scope = &AdjustForSplits(given_scope, p.resume, p.adjusted_scope);
  p.ranges = RangesMember(*p.scope);
  p.bounded = request.budget.deadline != std::chrono::steady_clock::time_point::max();
  // A partial page: the client merges what the pages of one range return (the SDKs' pipeline
  // sums partial aggregates, merges groups and removes duplicates across pages), so a page of
  // GROUP BY, aggregates or DISTINCT without ORDER BY ends at the deadline with the result over
  // what it read, as the service's pages do. Every other query that collects keeps what it read
  // (suspends) and answers an empty page until it has read everything.
  const bool windowed = plan.top || plan.offset || plan.limit;
  p.partial = !plain && request.client_merges && plan.order_by.empty() && !windowed;
  const uint32_t query_hash = QueryHash(request.query_text);
  p.scope_key = plain ? std::string() : ScopeKey(*p.scope);

  const std::optional<Resume>& resume = p.resume;
  // The rest of a result an earlier page computed: returned without reading again.
  if (!plain && resume && resume->kept != 0) {
    p.state = SuspendedPages::Get().Take(resume->kept, query_hash, p.scope_key);
    if (p.state && p.state->rows.empty()) p.state.reset();
    p.replay = p.state != nullptr;
  }
  // Otherwise (none kept, or gone) the token resumes as it says.
  if (!p.replay && !plain && resume && resume->scan) {
    if (p.partial) {
      p.range.from = resume->scan;
      p.range.to = resume->segment_end;
    } else if (resume->state != 0 && (p.state = SuspendedPages::Get().Take(resume->state, query_hash, p.scope_key))) {
      p.range.from = resume->scan;
    }
    // Otherwise the collection is gone: the scan starts again (the rows returned stay skipped).
  }
  if (!p.state) {
    p.state = std::make_unique<Suspended>();
    p.state->arena = std::make_unique<Arena>();
    p.state->collector = std::make_unique<Collector>(plan);
    p.state->query = query_hash;
    p.state->scope = p.scope_key;
  }
  p.state->collector->Rebind(plan);
  if (request.keepalive) p.state->keepalive.push_back(request.keepalive);
}

// Emits one row of the final result into the page; returns false once the page is complete.
bool Emit(PageState& p, OutRow& row) {
  Window& window = p.window;
  const PageRequest& request = p.request;
  if (window.skip > 0) {
    --window.skip;
    return true;
  }
  if (p.done || (window.take && *window.take == 0)) {
    p.done = true;
    return false;
  }
  if (p.page.rows.size() >= request.max_items || p.page_bytes >= request.max_bytes) {
    p.more = true;
    return false;
  }
  std::string text;
  WriteRow(text, row);
  p.page_bytes += text.size();
  p.page.rows.push_back(std::move(text));
  if (window.take) --*window.take;
  p.last_emitted = row;
  // A streaming page ends as soon as it is full, as the service's does: it carries a continuation
  // without looking further, so a page that ends exactly at the last row is followed by an empty
  // one. (TOP or LIMIT used up ends the query instead.) An ordered page, walked or sorted, reads
  // the next row first, as the service's index walk loads one more document to know whether
  // more remain: it has no continuation when nothing follows.
  if (p.plain && (p.page.rows.size() >= request.max_items || p.page_bytes >= request.max_bytes) &&
      !(window.take && *window.take == 0)) {
    p.more = true;
    return false;
  }
  return true;
}

// Returns the rows an earlier page of the query computed and could not return (p.state->rows) from
// where it ended, and leaves in p.rest those this page cannot return either. It reads nothing: an
// ORDER BY result counts the documents of the rows it returns (as EmitCollected does), the others
// nothing.
void Replay(PageState& p) {
  const Plan& plan = p.plan;
  const bool ordered = plan.group_by.empty() && !plan.aggregate_query && !plan.distinct;
  std::vector<OutRow>& rows = p.state->rows;
  size_t i = 0;
  for (; i < rows.size(); ++i) {
    const bool emitted = Emit(p, rows[i]);
    if (ordered) {
      ++p.page.facts.docs_loaded;
      p.page.facts.kb_loaded += rows[i].kb;
    }
    if (!emitted) break;
  }
  rows.erase(rows.begin(), rows.begin() + static_cast<std::ptrdiff_t>(i));
  p.rest = std::move(rows);
  rows.clear();
}

// Keeps the rows of the result the page computed and could not return (p.rest) with the page's
// collection, for the next page; returns the number they are kept under (0: not kept, the next
// page computes them again). Only when the page is full, and when the plan's constants (which rows
// may point into) are kept with them.
uint64_t KeepRest(PageState& p) {
  if (!p.more || !p.last_emitted || p.rest.empty() || p.state->keepalive.empty() || p.walk || p.streaming) return 0;
  p.state->rows = std::move(p.rest);
  p.rest.clear();
  return SuspendedPages::Get().NewId();
}

// Gives the page its continuation once the plan has run. Returns whether the page suspends its
// collection, or keeps the rows it could not return (under *suspend_id*).
bool EndPage(PageState& p, RunState& run, BudgetCheck& budget, uint64_t& suspend_id) {
  const Plan& plan = p.plan;
  const std::string& ranges = p.ranges;
  const std::string& query_text = p.request.query_text;
  const Window& window = p.window;
  const std::optional<OutRow>& last_emitted = p.last_emitted;
  const std::optional<Pos>& stopped = p.stopped;
  const ScanRange& range = p.range;
  std::optional<std::string>& continuation = p.page.continuation;
  const bool more = p.more;
  const bool finished = p.finished();
  if (p.replay) {
    // The kept rows' page: it continues as the page that computed them (the rest of its part, or
    // the next part).
    suspend_id = KeepRest(p);
    if (suspend_id != 0) {
      continuation = EncodeResume(ranges, &*last_emitted, window, query_text, p.resume->scan, p.resume->segment_end, 0,
                                  suspend_id);
    } else if (more && last_emitted) {
      continuation = EncodeResume(ranges, &*last_emitted, window, query_text, p.resume->scan, p.resume->segment_end);
    } else if (!finished && p.resume->segment_end) {
      continuation = EncodeResume(ranges, nullptr, window, query_text, p.resume->segment_end);
    }
    return suspend_id != 0;
  }
  if (p.walk) {
    if (more && last_emitted) {
      continuation = EncodeResume(ranges, &*last_emitted, window, query_text);
    } else if (p.walk_stopped && !finished) {
      continuation = EncodeResume(ranges, &*p.walk_stopped, window, query_text);
    }
  } else if (p.streaming) {
    if (more && last_emitted) {
      continuation = EncodeResume(ranges, &*last_emitted, window, query_text);
    } else if (stopped && !finished) {
      // The budget ended the page: the next one resumes after the last row this one completed.
      const OutRow at{{}, *stopped, Val()};
      continuation = EncodeResume(ranges, &at, window, query_text);
    }
  } else if (stopped && p.partial) {
    // The result over the candidates read, (range.from, *stopped]; what does not fit in the page
    // is returned by the next, which reads that part again.
    budget.stoppable = false;
    EmitCollected(run, *p.state->collector, std::nullopt);
    if (p.more && p.last_emitted) {
      // (A part that starts at the beginning starts after position {0,0,0}, which no row has.)
      suspend_id = KeepRest(p);
      continuation = EncodeResume(ranges, &*p.last_emitted, p.window, query_text, range.from.value_or(Pos{}), *stopped,
                                  0, suspend_id);
    } else {
      continuation = EncodeResume(ranges, nullptr, p.window, query_text, *stopped);
    }
  } else if (stopped) {
    // Nothing returned yet: what was read waits for the next page, which reads on after *stopped.
    if (plan.group_by.empty() && !plan.aggregate_query && !plan.distinct) {
      p.page.facts.docs_loaded = 0;  // ORDER BY walks its index: it has loaded nothing to return yet
      p.page.facts.kb_loaded = 0;
    }
    std::optional<OutRow> shown;
    if (p.resume && p.resume->has_row) shown = OutRow{p.resume->keys, p.resume->pos, Val()};
    suspend_id = SuspendedPages::Get().NewId();
    continuation =
        EncodeResume(ranges, shown ? &*shown : nullptr, window, query_text, *stopped, std::nullopt, suspend_id);
    return true;
  } else if (p.partial && range.from) {
    // A part read to its end (range.to, or the end of the range).
    if (more && last_emitted) {
      suspend_id = KeepRest(p);
      continuation = EncodeResume(ranges, &*last_emitted, window, query_text, range.from, range.to, 0, suspend_id);
    } else if (range.to) {
      continuation = EncodeResume(ranges, nullptr, window, query_text, range.to);
    }
  } else if (more && last_emitted) {
    suspend_id = KeepRest(p);
    continuation = EncodeResume(ranges, &*last_emitted, window, query_text, std::nullopt, std::nullopt, 0, suspend_id);
  }
  return suspend_id != 0;
}

Page ExecutePageHolding(const Plan& plan, const Scope& given_scope, const PageRequest& request, PageOutcome& out) {
  PageState p(plan, request);
  ResumePage(p, given_scope);
  const Scope& scope = *p.scope;
  Arena& arena = *p.state->arena;
  EvalContext cx{arena, FunctionContext{arena, request.now_ms, request.udfs, request.geometry}, {}, nullptr, nullptr};
  cx.env.resize(std::max<size_t>(plan.slot_count, 1));
  // An ORDER BY page that walks its index returns rows as a streaming one does.
  if (!p.replay) p.walk = WalkPath(plan, scope, p.resume, cx);
  p.streaming = p.plain || p.walk.has_value();
  bool suspending = false;
  {
    BudgetCheck budget(request.budget, arena, &out.held);
    budget.held_bytes = p.state->held_bytes;
    budget.collects = !p.streaming;
    // A collecting page stops only when what it keeps outlives the request (a suspension needs
    // the plan's constants), and a partial page only before it returns rows of a computed part.
    budget.stoppable = p.streaming || (p.bounded && (p.partial ? !(p.resume && p.resume->has_row)
                                                               : !p.state->keepalive.empty()));
    if (p.partial && !plan.aggregate_query) {
      Collector* c = p.state->collector.get();
      budget.may_stop = [c] { return c->HasOutput(); };  // the SDKs end a GROUP BY at an empty page
    }
    cx.budget = &budget;

    p.window = p.resume ? p.resume->window : InitialWindow(plan);
    p.done = p.window.take && *p.window.take == 0;
    const std::function<bool(OutRow&)> emit = [&p](OutRow& row) { return Emit(p, row); };
    // The documents the result rows point into are pinned with the collection.
    RunState run{plan, scope, cx, p.state->pinned, p.page.facts, p.resume, emit, p.state->collector.get(), p.range,
                 &p.stopped, &p.rest};
    if (p.replay) {
      Replay(p);
    } else if (p.walk) {
      RunWalk(run, *p.walk, p.walk_stopped);
    } else {
      Run(run);
    }
    suspending = EndPage(p, run, budget, out.suspend_id);
    if (suspending) p.state->held_bytes = budget.held_bytes;
  }
  // The collection goes to the caller once the budget check no longer looks at its arena.
  if (suspending) out.suspend = std::move(p.state);
  return std::move(p.page);
}

// A page that held this much gives the memory back to the system when it ends (glibc keeps freed
// heap memory: an ORDER BY that held 1.9 GB kept 1.7 GB after answering).
constexpr size_t kTrimAfterBytes = 64u << 20;

}  // namespace

}  // namespace detail

Page ExecutePage(const Plan& plan, const Scope& scope, const PageRequest& request) {
  detail::PageOutcome out;
  try {
    Page page = detail::ExecutePageHolding(plan, scope, request, out);
    if (out.suspend) {
      detail::SuspendedPages::Get().Put(out.suspend_id, std::move(out.suspend), request.budget.memory_bytes);
    } else if (out.held >= detail::kTrimAfterBytes) {
      malloc_trim(0);
    }
    return page;
  } catch (...) {
    if (out.held >= detail::kTrimAfterBytes) malloc_trim(0);
    throw;
  }
}

}  // namespace cosmos::query
