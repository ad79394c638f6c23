// Change feed micro-benchmarks (Google Benchmark), in process, one thread, on one physical
// partition (store::PhysicalPartition, no HTTP):
//
//   1. Write cost of keeping the all-versions-and-deletes log: create of a 1 KB item, and replace
//      of one, with no change feed policy (log:0) vs a policy (log:1). run.sh prints the ratios.
//   2. Reading: a latest-version page of 100 items from the start and from the middle of a
//      partition of 100,000 items; the page of one logical partition of 1,024, through the
//      partition's LSN order filtered (pk_index:0) vs the logical partition's own LSN index
//      (pk_index:1); an all-versions page of 100 from the middle of the log.
//   3. TTL: ExpireItems deleting 1,000 expired items (each with its LSN and log entry).
//
// Run with medians:  build-bench/bench/change_feed_bench --benchmark_repetitions=9 --benchmark_report_aggregates_only=true
// or:                bench/run.sh changefeed
#include <benchmark/benchmark.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "json/json.h"
#include "store/store.h"

namespace cosmos {
namespace {

constexpr size_t kItemBytes = 1024;
constexpr int kKeys = 1024;
constexpr int64_t kNow = 1'800'000'000;

std::string Key(int k) { return "[\"key-" + std::to_string(k) + "\"]"; }

// A 1 KB stored item, as the document handler builds one (parsed body and text).
store::ItemPtr MakeItem(const std::string& id, const std::string& pk, uint64_t seq, uint64_t lsn, int64_t ts,
                        std::optional<int64_t> ttl = std::nullopt) {
  auto item = store::NewItem();
  item->set_id(id);
  item->set_pk(pk);
  item->seq = seq;
  item->lsn = lsn;
  item->ts = ts;
  item->ttl = ttl;
  item->set_etag("\"" + std::to_string(lsn) + "\"");
  std::string text = "{\"id\":\"" + id + "\",\"pk\":" + pk.substr(1, pk.size() - 2) + ",\"payload\":\"";
  text.append(kItemBytes - text.size() - 2, 'x');
  text += "\"}";
  json::Parse(text, item->Draft());
  item->Seal();
  return item;
}

store::ItemPolicy Policy(bool log) {
  store::ItemPolicy p;
  if (log) p.retention_seconds = 3600;
  return p;
}

void Create(store::PhysicalPartition& p, int i, const store::ItemPolicy& policy, int64_t now = kNow,
            std::optional<int64_t> ttl = std::nullopt) {
  const std::string id = "it-" + std::to_string(i);
  const std::string pk = Key(i % kKeys);
  p.Write(store::WriteKind::kCreate, pk, id, {}, now, policy,
          [&](const store::ItemPtr&, uint64_t seq, uint64_t lsn) { return MakeItem(id, pk, seq, lsn, now, ttl); });
}

// A partition of n creates, with or without the all-versions log.
std::unique_ptr<store::PhysicalPartition> Filled(int n, bool log) {
  auto p = std::make_unique<store::PhysicalPartition>("0", "", "FF");
  const auto policy = Policy(log);
  for (int i = 0; i < n; ++i) Create(*p, i, policy);
  return p;
}

// ---------------------------------------------------------------------------------------------
// 1. Write cost of the log

void BM_Create(benchmark::State& state) {
  const bool log = state.range(0) != 0;
  const auto policy = Policy(log);
  auto p = std::make_unique<store::PhysicalPartition>("0", "", "FF");
  int i = 0;
  for (auto _ : state) Create(*p, i++, policy);
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Create)->ArgName("log")->Arg(0)->Arg(1);

void BM_Replace(benchmark::State& state) {
  const bool log = state.range(0) != 0;
  const auto policy = Policy(log);
  auto p = Filled(kKeys, log);
  int i = 0;
  for (auto _ : state) {
    const int n = i++ % kKeys;
    const std::string id = "it-" + std::to_string(n);
    const std::string pk = Key(n);
    p->Write(store::WriteKind::kReplace, pk, id, {}, kNow, policy,
             [&](const store::ItemPtr&, uint64_t seq, uint64_t lsn) { return MakeItem(id, pk, seq, lsn, kNow); });
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Replace)->ArgName("log")->Arg(0)->Arg(1);

// ---------------------------------------------------------------------------------------------
// 2. Reading pages

store::PhysicalPartition& Big() {
  static auto* p = Filled(100'000, true).release();
  return *p;
}

void BM_LatestPage(benchmark::State& state) {
  auto& p = Big();
  const uint64_t after = static_cast<uint64_t>(state.range(0));
  const auto policy = Policy(true);
  auto all = [](const store::Item&) { return true; };
  size_t n = 0;
  for (auto _ : state) {
    auto page = p.LatestChanges(after, 100, all, kNow, policy);
    n += page.entries.size();
    benchmark::DoNotOptimize(page);
  }
  if (n != 100 * static_cast<size_t>(state.iterations())) state.SkipWithError("short page");
  state.SetItemsProcessed(static_cast<int64_t>(n));
}
BENCHMARK(BM_LatestPage)->ArgName("after_lsn")->Arg(0)->Arg(50'000);

// One logical partition: its 98 items are spread over the partition's 100,000 LSNs. pk_index:0
// filters the whole partition's LSN order; 1 walks the logical partition's own index.
void BM_LatestPageOneKey(benchmark::State& state) {
  auto& p = Big();
  const auto policy = Policy(true);
  const std::string pk = Key(7);
  auto one = [&pk](const store::Item& it) { return it.pk() == pk; };
  size_t n = 0;
  for (auto _ : state) {
    auto page = p.LatestChanges(0, 100, one, kNow, policy, state.range(0) ? &pk : nullptr);
    n += page.entries.size();
    benchmark::DoNotOptimize(page);
  }
  if (n != 98 * static_cast<size_t>(state.iterations())) state.SkipWithError("unexpected page size");  // 100,000 / 1,024 keys
  state.SetItemsProcessed(static_cast<int64_t>(n));
}
BENCHMARK(BM_LatestPageOneKey)->ArgName("pk_index")->Arg(0)->Arg(1);

void BM_AllVersionsPage(benchmark::State& state) {
  auto& p = Big();
  auto all = [](const store::Item&) { return true; };
  size_t n = 0;
  for (auto _ : state) {
    auto page = p.AllChanges(50'000, 100, all);
    n += page.entries.size();
    benchmark::DoNotOptimize(page);
  }
  state.SetItemsProcessed(static_cast<int64_t>(n));
}
BENCHMARK(BM_AllVersionsPage);

// ---------------------------------------------------------------------------------------------
// 3. TTL

void BM_ExpireItems(benchmark::State& state) {
  const bool log = state.range(0) != 0;
  store::ItemPolicy policy = Policy(log);
  policy.default_ttl = 60;
  for (auto _ : state) {
    state.PauseTiming();
    auto p = std::make_unique<store::PhysicalPartition>("0", "", "FF");
    for (int i = 0; i < 1000; ++i) Create(*p, i, policy, kNow - 120);
    state.ResumeTiming();
    p->ExpireItems(kNow, policy);
    if (p->Count() != 0) state.SkipWithError("items left");
    state.PauseTiming();
    p.reset();
    state.ResumeTiming();
  }
  state.SetItemsProcessed(state.iterations() * 1000);
}
BENCHMARK(BM_ExpireItems)->ArgName("log")->Arg(0)->Arg(1);

}  // namespace
}  // namespace cosmos

BENCHMARK_MAIN();
