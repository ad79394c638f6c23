// Partition micro-benchmarks (Google Benchmark), in process, one thread:
//
//   1. Placement of one logical key: Container::Locate (EPK + partition lookup) for V1, V2 and
//      MultiHash (2 paths) definitions, on containers of 1, 4 and 64 physical partitions; and
//      Container::PartitionForEpk alone (the binary search over the ranges) on the same counts.
//   2. RateLimiter::Admit + Consume on one partition, rate limiting enabled vs disabled.
//   3. End to end through http::Handle (signed requests, as tests/http builds them, no sockets):
//      create and point read of a 1 KB item, on containers of 1 and 16 physical partitions, with
//      rate limiting off and on (with a budget far too large to throttle). run.sh prints the
//      ratios 16 vs 1 partitions and limiter on vs off.
//   4. Container::SplitRange of a range holding 10,000 and 100,000 small items (what a request
//      that arrives during a split waits for).
//
// Run with medians:  build-bench/bench/partition_bench --benchmark_repetitions=9 --benchmark_report_aggregates_only=true
// or:                bench/run.sh partitions
#include <benchmark/benchmark.h>

#include "http_env.h"

#include "util/clock.h"

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/errors.h"
#include "http/auth.h"
#include "http/context.h"
#include "http/pipeline.h"
#include "json/json.h"
#include "stats/report.h"
#include "store/epk.h"
#include "store/partition_key.h"
#include "store/store.h"
#include "throughput/limiter.h"
#include "util/util.h"

namespace {

using namespace cosmos;

constexpr size_t kKeyCount = 1024;  // keys cycled over (a power of two: i & (kKeyCount - 1))
constexpr size_t kKeyMask = kKeyCount - 1;

// kKeyCount strings of 12 characters: "<prefix>-%08zu" with a 3-character prefix.
std::vector<std::string> KeyStrings(const char* prefix) {
  std::vector<std::string> out;
  out.reserve(kKeyCount);
  char buf[32];
  for (size_t i = 0; i < kKeyCount; ++i) {
    // Spread the numbers a little so that the keys are not consecutive.
    std::snprintf(buf, sizeof buf, "%s-%08zu", prefix, (i * 2654435761u) % 100000000u);
    out.emplace_back(buf);
  }
  return out;
}

store::PartitionKeyDefinition Definition(const char* json_text) {
  json::Document d;
  d.Parse(json_text);
  return store::PartitionKeyDefinition::FromJson(d);
}

// ---------------------------------------------------------------------------------------------
// 1. EPK + placement

enum KeyKind : int64_t { kV1 = 0, kV2 = 1, kMultiHash = 2 };

const char* DefinitionJson(int64_t kind) {
  switch (kind) {
    case kV1: return R"({"paths":["/pk"],"kind":"Hash","version":1})";
    case kV2: return R"({"paths":["/pk"],"kind":"Hash","version":2})";
    default: return R"({"paths":["/tenant","/user"],"kind":"MultiHash","version":2})";
  }
}

// One account holding every container these benchmarks place keys in.
store::Account& PlacementAccount() {
  static store::Account* account = new store::Account;
  return *account;
}

store::ContainerPtr MakeContainer(store::Account& account, const std::string& id, const store::PartitionKeyDefinition& def,
                                  int partitions) {
  auto db = account.FindDatabase("bench");
  if (!db) db = account.CreateDatabase("bench", std::nullopt);
  store::ContainerSettings settings;
  settings.indexing = store::IndexingPolicy::FromJson(nullptr);
  return account.CreateContainer(*db, id, def, std::move(settings), store::Throughput{1'000'000, false}, partitions);
}

// The keys as the item handler holds them after parsing x-ms-documentdb-partitionkey.
std::vector<store::PartitionKeyValue> Keys(const store::PartitionKeyDefinition& def, int64_t kind) {
  const auto a = KeyStrings("key");
  const auto b = KeyStrings("usr");
  std::vector<store::PartitionKeyValue> out;
  out.reserve(kKeyCount);
  for (size_t i = 0; i < kKeyCount; ++i) {
    std::string header = kind == kMultiHash ? "[\"" + a[i] + "\",\"" + b[(i * 7) & kKeyMask] + "\"]" : "[\"" + a[i] + "\"]";
    out.push_back(store::ParsePartitionKeyHeader(def, header));
  }
  return out;
}

// Container::Locate: the EPK of the key (components from canonical text, hash, hex) and the binary
// search for its partition. state.range(0): KeyKind; state.range(1): physical partitions.
void BM_Locate(benchmark::State& state) {
  const int64_t kind = state.range(0);
  const int partitions = static_cast<int>(state.range(1));
  const auto def = Definition(DefinitionJson(kind));
  auto& account = PlacementAccount();
  static int counter = 0;
  auto c = MakeContainer(account, "locate-" + std::to_string(++counter), def, partitions);
  if (static_cast<int>(c->partitions().size()) != partitions) {
    state.SkipWithError("the container has the wrong partition count");
    return;
  }
  const auto keys = Keys(def, kind);
  std::set<const store::PhysicalPartition*> used;
  for (const auto& k : keys) used.insert(c->Locate(k).partition);

  size_t i = 0;
  for (auto _ : state) {
    store::Placement p = c->Locate(keys[i++ & kKeyMask]);
    benchmark::DoNotOptimize(p.partition);
    benchmark::DoNotOptimize(p.epk.data());
  }
  state.counters["epk_len"] = static_cast<double>(c->Locate(keys[0]).epk.size());
  state.counters["parts_used"] = static_cast<double>(used.size());
}
BENCHMARK(BM_Locate)
    ->ArgNames({"kind", "partitions"})
    ->ArgsProduct({{kV1, kV2, kMultiHash}, {1, 4, 64}});

// Container::PartitionForEpk alone, on precomputed V2 EPKs: what placement adds to the hash.
void BM_PartitionForEpk(benchmark::State& state) {
  const int partitions = static_cast<int>(state.range(0));
  const auto def = Definition(DefinitionJson(kV2));
  static int counter = 0;
  auto c = MakeContainer(PlacementAccount(), "epk-" + std::to_string(++counter), def, partitions);
  std::vector<std::string> epks;
  for (const auto& k : Keys(def, kV2)) epks.push_back(store::EffectivePartitionKey(def, k));
  size_t i = 0;
  for (auto _ : state) {
    store::PhysicalPartition& p = c->PartitionForEpk(epks[i++ & kKeyMask]);
    benchmark::DoNotOptimize(&p);
  }
}
BENCHMARK(BM_PartitionForEpk)->ArgName("partitions")->Arg(1)->Arg(4)->Arg(64);

// ---------------------------------------------------------------------------------------------
// 2. Rate limiter

// Admit + Consume (1 RU) on one partition of a 1,000,000 RU/s container. The manual clock moves
// 1 ms per iteration (in both cases), so the bucket refills far faster than it drains and nothing
// is ever refused. state.range(0): limiting enabled.
void BM_Limiter(benchmark::State& state) {
  const bool enabled = state.range(0) != 0;
  static int counter = 0;
  auto c = MakeContainer(PlacementAccount(), "limiter-" + std::to_string(++counter),
                         Definition(DefinitionJson(kV2)), 1);
  throughput::ManualClock clock(1'000'000);
  throughput::RateLimiter limiter(clock);
  limiter.set_enabled(enabled);
  const std::vector<store::PhysicalPartition*> parts{c->partitions().front()};
  try {
    for (auto _ : state) {
      clock.Advance(1);
      limiter.Admit(*c, parts);
      limiter.Consume(*c, parts, 1.0);
    }
  } catch (const CosmosError&) {
    state.SkipWithError("throttled: the budget is too small");
  }
}
BENCHMARK(BM_Limiter)->ArgName("enabled")->Arg(0)->Arg(1);

// ---------------------------------------------------------------------------------------------
// 3. End to end through http::Handle

constexpr size_t kItemBytes = 1024;  // as run.sh's point read
// Creates in one run of BM_E2E_Create (into a fresh container). Fixed, so that every run does the
// same work on the same container sizes: with Google Benchmark's default 0.5 s a run made 50-60k
// items (~200 MB), and its time varied by +-20% from run to run.
constexpr int64_t kCreatesPerRun = 10'000;

using bench::E2E;
using bench::Env;
namespace bh = boost::beast::http;

// A 1 KB item: {"id":"it-00000000","pk":"key-00000000","n":42,"payload":"xxx..."}. The id and
// the key have fixed widths, so a request body can be rewritten in place.
std::string ItemBody(size_t id, const std::string& pk, size_t* id_at = nullptr, size_t* pk_at = nullptr) {
  char idbuf[16];
  std::snprintf(idbuf, sizeof idbuf, "it-%08zu", id);
  std::string doc = std::string("{\"id\":\"") + idbuf + "\",\"pk\":\"" + pk + "\",\"n\":42,\"payload\":\"";
  if (id_at) *id_at = doc.find("it-") + 3;
  if (pk_at) *pk_at = doc.find("\"pk\":\"") + 6;
  doc.append(kItemBytes - doc.size() - 2, 'x');
  doc += "\"}";
  return doc;
}

// A fresh container for one run of a benchmark (every repetition gets its own, so the creates of
// one run do not pile up in the next), deleted when the run ends.
struct RunContainer {
  Env& env;
  std::string id;
  std::string path;  // /dbs/bench/colls/<id>
  store::ContainerPtr c;

  RunContainer(Env& e, int partitions, bool limiter) : env(e) {
    id = "c" + std::to_string(++env.containers);
    path = "/dbs/bench/colls/" + id;
    env.limiter.set_enabled(limiter);
    env.stats.Reset();
    const int status = env.Send(env.Build(bh::verb::post, "/dbs/bench/colls",
                                          "{\"id\":\"" + id + R"(","partitionKey":{"paths":["/pk"],"kind":"Hash","version":2}})",
                                          {{"x-ms-offer-throughput", "1000000"},
                                           {"x-cosmos-emulator-partition-count", std::to_string(partitions)}}));
    if (status != 201) return;
    c = env.account.FindDatabase("bench")->FindContainer(id);
    if (c && static_cast<int>(c->partitions().size()) != partitions) c.reset();
  }
  ~RunContainer() {
    env.Send(env.Build(bh::verb::delete_, path));
    env.limiter.set_enabled(false);
  }
  size_t NonEmptyPartitions() const {
    size_t n = 0;
    for (const auto& p : c->partitions()) n += p->Count() > 0 ? 1 : 0;
    return n;
  }
};

const std::vector<std::string>& E2EKeys() {
  static const auto* keys = new std::vector<std::string>(KeyStrings("key"));
  return *keys;
}

// POST /dbs/bench/colls/<c>/docs: a new 1 KB item each iteration, keys cycled over 1,024 values.
// state.range(0): physical partitions; state.range(1): rate limiting on.
void BM_E2E_Create(benchmark::State& state) {
  Env& env = E2E();
  RunContainer rc(env, static_cast<int>(state.range(0)), state.range(1) != 0);
  if (!rc.c) {
    state.SkipWithError("could not create the container");
    return;
  }
  const auto& keys = E2EKeys();
  std::vector<std::string> pk_headers;
  for (const auto& k : keys) pk_headers.push_back("[\"" + k + "\"]");
  size_t id_at = 0, pk_at = 0;
  http::Request req = env.Build(bh::verb::post, rc.path + "/docs", ItemBody(0, keys[0], &id_at, &pk_at),
                                {{"x-ms-documentdb-partitionkey", pk_headers[0]}});
  size_t n = 0;
  char idbuf[16];
  for (auto _ : state) {
    env.clock.Advance(1);
    std::snprintf(idbuf, sizeof idbuf, "%08zu", n);
    std::memcpy(req.body().data() + id_at, idbuf, 8);
    const std::string& key = keys[n & kKeyMask];
    std::memcpy(req.body().data() + pk_at, key.data(), key.size());
    req.set("x-ms-documentdb-partitionkey", pk_headers[n & kKeyMask]);
    const http::Response res = http::Handle(env.services, req);
    if (res.result_int() != 201) {
      state.SkipWithError(("create answered " + std::to_string(res.result_int()) + ": " + res.body()).c_str());
      return;
    }
    ++n;
  }
  state.counters["parts_used"] = static_cast<double>(rc.NonEmptyPartitions());
}

// GET /dbs/bench/colls/<c>/docs/<id>: point reads cycled over 1,024 items (one per key), created
// before the timing.
void BM_E2E_Read(benchmark::State& state) {
  Env& env = E2E();
  RunContainer rc(env, static_cast<int>(state.range(0)), state.range(1) != 0);
  if (!rc.c) {
    state.SkipWithError("could not create the container");
    return;
  }
  const auto& keys = E2EKeys();
  std::vector<http::Request> reads;
  reads.reserve(kKeyCount);
  for (size_t i = 0; i < kKeyCount; ++i) {
    const std::string pk_header = "[\"" + keys[i] + "\"]";
    const std::string body = ItemBody(i, keys[i]);
    if (env.Send(env.Build(bh::verb::post, rc.path + "/docs", body, {{"x-ms-documentdb-partitionkey", pk_header}})) != 201) {
      state.SkipWithError("could not create the items");
      return;
    }
    reads.push_back(env.Build(bh::verb::get, rc.path + "/docs/" + body.substr(7, 11),  // "it-%08zu"
                              "", {{"x-ms-documentdb-partitionkey", pk_header}}));
  }
  size_t n = 0;
  for (auto _ : state) {
    env.clock.Advance(1);
    const http::Response res = http::Handle(env.services, reads[n++ & kKeyMask]);
    if (res.result_int() != 200 || res.body().size() < kItemBytes) {
      state.SkipWithError(("read answered " + std::to_string(res.result_int()) + ": " + res.body()).c_str());
      return;
    }
  }
  state.counters["parts_used"] = static_cast<double>(rc.NonEmptyPartitions());
}

BENCHMARK(BM_E2E_Create)
    ->ArgNames({"partitions", "limiter"})
    ->ArgsProduct({{1, 16}, {0, 1}})
    ->Iterations(kCreatesPerRun)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_E2E_Read)
    ->ArgNames({"partitions", "limiter"})
    ->ArgsProduct({{1, 16}, {0, 1}})
    ->Unit(benchmark::kMicrosecond);

}  // namespace

// ---------------------------------------------------------------------------------------------
// 4. Splits

// A fresh one-range container holding `n` items of about 60 bytes, written through the store.
store::ContainerPtr FilledContainer(int64_t n) {
  static int made = 0;
  const auto def = Definition(DefinitionJson(kV2));
  auto c = MakeContainer(PlacementAccount(), "split-" + std::to_string(++made), def, 1);
  const auto policy = c->settings()->items();
  char id[32];
  for (int64_t i = 0; i < n; ++i) {
    std::snprintf(id, sizeof id, "it-%08lld", static_cast<long long>(i));
    const std::string header = std::string("[\"") + id + "\"]";
    const auto key = store::ParsePartitionKeyHeader(def, header);
    const auto placement = c->Locate(key);
    const std::string pk = key.Canonical();
    placement.partition->Write(store::WriteKind::kCreate, pk, id, store::Preconditions{}, util::Instant{}, policy,
                               [&](const store::ItemPtr&, uint64_t seq, uint64_t lsn) {
                                 auto item = store::NewItem();
                                 item->set_id(id);
                                 item->set_pk(pk);
                                 item->set_epk(placement.epk);
                                 json::Parse(std::string("{\"id\":\"") + id + "\",\"pk\":\"" + id + "\",\"n\":1}",
                                             item->Draft());
                                 item->Seal();
                                 item->set_rid(c->ItemRid(seq));
                                 item->seq = seq;
                                 item->lsn = lsn;
                                 return store::ItemPtr(std::move(item));
                               });
  }
  return c;
}

// state.range(0): items in the range split.
void BM_Split(benchmark::State& state) {
  for (auto _ : state) {
    state.PauseTiming();
    auto c = FilledContainer(state.range(0));
    state.ResumeTiming();
    auto made = c->SplitRange("0", 0, "\"e\"");
    benchmark::DoNotOptimize(made);
    state.PauseTiming();
    if (c->partition_count() != 2) state.SkipWithError("the split did not happen");
    PlacementAccount().FindDatabase("bench")->RemoveContainer(c->id());
    c.reset();
    state.ResumeTiming();
  }
}
BENCHMARK(BM_Split)->ArgName("items")->Arg(10'000)->Arg(100'000)->Unit(benchmark::kMillisecond)->Iterations(5);

// Parsing an item body (json::Parse): 20 distinct names (no walk), the same with one name repeated
// (the walk that keeps the last value runs), and an object of 100 names (each name compared with
// the names before it that share its filter bit; no walk).
void BM_ParseItem(benchmark::State& state) {
  const int kind = static_cast<int>(state.range(0));
  const int names = kind == 2 ? 100 : 20;
  std::string text = "{";
  for (int i = 0; i < names; ++i)
    text += (i ? ",\"p" : "\"p") + std::to_string(i) + "\":\"" + std::string(40, 'v') + std::to_string(i) + "\"";
  if (kind == 1) text += ",\"p3\":\"again\"";
  text += "}";
  for (auto _ : state) {
    json::Document d;
    benchmark::DoNotOptimize(json::Parse(text, d));
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
}
BENCHMARK(BM_ParseItem)->ArgName("unique_repeated_100names")->Arg(0)->Arg(1)->Arg(2);

BENCHMARK_MAIN();
