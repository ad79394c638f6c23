// Query micro-benchmarks (Google Benchmark), in process, no HTTP:
//
//   1. Front end of a typical parameterised query: sql::Parse alone, the cached
//      query::ParseQuery, and parse + query::Bind (uncached and cached).
//   2. query::ExecutePage over a container of 100,000 items (~300 bytes each): a 1% filter with
//      projection, a COUNT over a 10% filter, and TOP 10 ... ORDER BY. Each query reads every item.
//
// Run with medians:  build-bench/bench/query_bench --benchmark_repetitions=9 --benchmark_report_aggregates_only=true
// or:                bench/run.sh query
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <string_view>

#include "json/json.h"
#include "query/executor.h"
#include "query/parse_cache.h"
#include "query/plan.h"
#include "query/value.h"
#include "sqlparser/ast.h"
#include "store/partition_key.h"
#include "store/store.h"

namespace {

using namespace cosmos;

// ---------------------------------------------------------------------------------------------
// 1. Parse and bind

constexpr const char* kTypicalQuery =
    "SELECT c.id, c.name, c.address.city FROM c WHERE c.age > @minAge AND STARTSWITH(c.name, @prefix) "
    "ORDER BY c.age DESC OFFSET 0 LIMIT 20";
constexpr const char* kTypicalParams = R"([{"name":"@minAge","value":30},{"name":"@prefix","value":"Al"}])";

const json::Document& TypicalParams() {
  static const json::Document* doc = [] {
    auto* d = new json::Document;
    if (json::Parse(kTypicalParams, *d) != json::ParseStatus::kOk) std::abort();
    return d;
  }();
  return *doc;
}

// (a) The parser alone: ANTLR lexer and parser, then our syntax tree. No cache.
void BM_Parse(benchmark::State& state) {
  for (auto _ : state) {
    sql::SyntaxError error;
    sql::QueryPtr q = sql::Parse(kTypicalQuery, error);
    if (!q) {
      state.SkipWithError(("parse failed: " + error.message).c_str());
      break;
    }
    benchmark::DoNotOptimize(q.get());
  }
}
BENCHMARK(BM_Parse);

// (b) query::ParseQuery with the text already cached: what every request after the first pays
// (a mutex, a std::string copy of the text and a hash-map lookup).
void BM_ParseCached(benchmark::State& state) {
  query::ParseQuery(kTypicalQuery);  // fill the cache
  for (auto _ : state) {
    auto q = query::ParseQuery(kTypicalQuery);
    benchmark::DoNotOptimize(q.get());
  }
}
BENCHMARK(BM_ParseCached);

// (c) sql::Parse + query::Bind with the parameters, each iteration with a fresh Arena (as the
// query handler does per request): the whole front end on a cache miss.
void BM_ParseBind(benchmark::State& state) {
  const json::Value* params = &TypicalParams();
  for (auto _ : state) {
    sql::SyntaxError error;
    sql::QueryPtr q = sql::Parse(kTypicalQuery, error);
    if (!q) {
      state.SkipWithError(("parse failed: " + error.message).c_str());
      break;
    }
    query::Arena arena;
    auto plan = query::Bind(*q, params, arena);
    benchmark::DoNotOptimize(plan.get());
  }
}
BENCHMARK(BM_ParseBind);

// (d) Cached query::ParseQuery + query::Bind: the front end of a repeated query, as the handler
// runs it per request. The difference from (b) is the cost of Bind.
void BM_CachedParseBind(benchmark::State& state) {
  const json::Value* params = &TypicalParams();
  query::ParseQuery(kTypicalQuery);
  for (auto _ : state) {
    auto q = query::ParseQuery(kTypicalQuery);
    query::Arena arena;
    auto plan = query::Bind(*q, params, arena);
    benchmark::DoNotOptimize(plan.get());
  }
}
BENCHMARK(BM_CachedParseBind);

// ---------------------------------------------------------------------------------------------
// 2. Queries over 100,000 items

constexpr size_t kItemCount = 100'000;

// One account, database and container (partition key /pk), filled once, the way the item
// handler stores items: user properties first, then the system properties, and `text` the
// compact JSON of the body.
struct Dataset {
  store::Account account;
  store::ContainerPtr container;
  size_t total_bytes = 0;  // sum of item text sizes
  size_t age42 = 0;        // expected matches, for checking the results
  size_t oslo = 0;
  int64_t max_age = -1;
  std::string first_oldest;  // id of the first item (in feed order) with the highest age
};

const Dataset& Data() {
  static Dataset* data = [] {
    auto* d = new Dataset;
    auto db = d->account.CreateDatabase("bench", std::nullopt);
    json::Document pkdef;
    pkdef.Parse(R"({"paths":["/pk"],"kind":"Hash"})");
    store::ContainerSettings settings;
    settings.indexing = store::IndexingPolicy::FromJson(nullptr);
    d->container = d->account.CreateContainer(*db, "c", store::PartitionKeyDefinition::FromJson(pkdef),
                                              std::move(settings), std::nullopt);
    const auto& pk_def = d->container->partition_key();

    static const char* const kCities[] = {"Oslo", "Paris", "Berlin", "Madrid", "Rome",
                                          "Vienna", "Prague", "Lisbon", "Dublin", "Warsaw"};
    static const char* const kFirst[] = {"Alice", "Bob", "Carol", "Dave", "Eve", "Frank", "Grace", "Heidi"};
    static const char* const kLast[] = {"Smith", "Jones", "Brown", "Taylor", "Wilson", "Evans"};
    static const char* const kTags[] = {"red", "green", "blue", "gold", "silver", "black", "white"};
    std::mt19937_64 rng(42);  // fixed seed: the same data every run
    const int64_t ts = 1'700'000'000;

    for (size_t i = 0; i < kItemCount; ++i) {
      // The user document.
      json::Document user;
      auto& ua = user.GetAllocator();
      user.SetObject();
      char idbuf[32];
      std::snprintf(idbuf, sizeof idbuf, "item-%06zu", i);
      const std::string id = idbuf;
      const std::string pk = "pk-" + std::to_string(rng() % 100);
      const int64_t age = static_cast<int64_t>(rng() % 100);
      const std::string name = std::string(kFirst[rng() % 8]) + " " + kLast[rng() % 6];
      const char* city = kCities[rng() % 10];
      user.AddMember("id", json::Value(id.c_str(), ua), ua);
      user.AddMember("pk", json::Value(pk.c_str(), ua), ua);
      user.AddMember("age", age, ua);
      user.AddMember("name", json::Value(name.c_str(), ua), ua);
      user.AddMember("city", json::Value(city, ua), ua);
      json::Value tags(rapidjson::kArrayType);
      for (int t = 0; t < 3; ++t) tags.PushBack(json::Value(kTags[rng() % 7], ua), ua);
      user.AddMember("tags", tags, ua);

      if (age == 42) ++d->age42;
      if (std::string_view(city) == "Oslo") ++d->oslo;
      if (age > d->max_age) {
        d->max_age = age;
        d->first_oldest = id;
      }

      const store::PartitionKeyValue key = store::ExtractPartitionKey(pk_def, user);
      const std::string canonical = key.Canonical();
      store::PhysicalPartition& part = d->container->PartitionFor(key);
      const store::Container& c = *d->container;
      auto result = part.Write(
          store::WriteKind::kCreate, canonical, id, store::Preconditions{}, util::Instant::FromMs(ts * 1000),
          store::ItemPolicy{},
          [&](const store::ItemPtr&, uint64_t seq, uint64_t lsn) {
            auto item = store::NewItem();
            auto& draft = item->Draft();
            auto& a = draft.GetAllocator();
            draft.SetObject();
            for (auto& m : user.GetObject()) draft.AddMember(json::Value(m.name, a), json::Value(m.value, a), a);
            item->set_id(id);
            item->set_pk(canonical);
            item->ts = ts;
            item->set_etag(d->account.NewEtag(ts));
            item->set_rid(c.ItemRid(seq));
            item->seq = seq;
            item->lsn = lsn;
            draft.AddMember("_rid", json::Value(item->rid().data(), a), a);
            std::string self = c.self() + "docs/" + std::string(item->rid()) + "/";
            draft.AddMember("_self", json::Value(self.c_str(), a), a);
            draft.AddMember("_etag", json::Value(item->etag().data(), a), a);
            draft.AddMember("_attachments", "attachments/", a);
            draft.AddMember("_ts", item->ts, a);
            item->Seal();
            return store::ItemPtr(item);
          });
      d->total_bytes += result.item->size;
    }
    return d;
  }();
  return *data;
}

// Runs `text` as one page over the whole container (cross-partition), with limits high enough for
// every result to fit in that page. Parse and bind happen once, outside the timed loop.
// `expected_first`, when not empty, is the JSON text the first row must have.
void RunQuery(benchmark::State& state, const char* text, size_t expected_rows, const std::string& expected_first = "") {
  const Dataset& d = Data();
  sql::SyntaxError error;
  sql::QueryPtr ast = sql::Parse(text, error);
  if (!ast) {
    state.SkipWithError(("parse failed: " + error.message).c_str());
    return;
  }
  query::Arena constants;
  auto plan = query::Bind(*ast, nullptr, constants);

  query::Scope scope;
  scope.partitions = d.container->partitions();
  scope.now = util::Instant::FromMs(1'700'000'100'000);
  query::PageRequest request;
  request.max_items = kItemCount;
  request.max_bytes = SIZE_MAX;
  request.query_text = text;
  request.now_ms = 1'700'000'100'000;

  // The executor has no index: it reads every item of the partitions in scope, whatever the
  // query. (PageFacts are charge facts, not a count of items read: for ORDER BY they count only
  // the documents returned, as the service's index walk would, so they are not used here.)
  size_t stored = 0;
  for (const auto* p : scope.partitions) stored += p->Count();
  if (stored != kItemCount) {
    state.SkipWithError(("the container holds " + std::to_string(stored) + " items").c_str());
    return;
  }

  size_t rows = 0;
  std::string first;
  for (auto _ : state) {
    query::Page page = query::ExecutePage(*plan, scope, request);
    rows = page.rows.size();
    if (!page.rows.empty()) first = page.rows.front();
    if (page.continuation) {
      state.SkipWithError("the result did not fit in one page");
      return;
    }
    benchmark::DoNotOptimize(page.rows.data());
  }
  if (rows != expected_rows || (!expected_first.empty() && first != expected_first)) {
    state.SkipWithError(("unexpected result: " + std::to_string(rows) + " rows (expected " +
                         std::to_string(expected_rows) + "), first row " + first + " (expected " +
                         (expected_first.empty() ? "any" : expected_first) + ")")
                            .c_str());
    return;
  }
  state.counters["items/s"] = benchmark::Counter(static_cast<double>(kItemCount),
                                                 benchmark::Counter::kIsIterationInvariantRate);
  state.counters["rows"] = static_cast<double>(rows);
  state.counters["item_bytes"] = static_cast<double>(d.total_bytes) / kItemCount;
}

void BM_Query_FilterAge(benchmark::State& state) {
  RunQuery(state, "SELECT c.id, c.age FROM c WHERE c.age = 42", Data().age42);
}
void BM_Query_CountCity(benchmark::State& state) {
  RunQuery(state, "SELECT VALUE COUNT(1) FROM c WHERE c.city = 'Oslo'", 1, std::to_string(Data().oslo));
}
void BM_Query_Top10OrderBy(benchmark::State& state) {
  RunQuery(state, "SELECT TOP 10 c.id FROM c ORDER BY c.age DESC", 10, "{\"id\":\"" + Data().first_oldest + "\"}");
}
BENCHMARK(BM_Query_FilterAge)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Query_CountCity)->Unit(benchmark::kMillisecond);
// ~130 ms a query: at the default 0.5 s a repetition would be 4 iterations, and this one's
// 100,000-row sort buffer makes single iterations vary, so give each repetition 2 s.
BENCHMARK(BM_Query_Top10OrderBy)->Unit(benchmark::kMillisecond)->MinTime(2.0);

}  // namespace

BENCHMARK_MAIN();
