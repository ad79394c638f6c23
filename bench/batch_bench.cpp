// Transactional batch, bulk and unique key micro-benchmarks (Google Benchmark), in process, one
// thread, end to end through http::Handle (signed requests built as tests/http builds them, no
// sockets), on a fresh container of one physical partition for every run, all items in one fixed
// logical partition. Every iteration writes kOpsPerRequest (100) new 1 KB items:
//
//   1. BM_DirectCreate/unique:0: 100 POST .../docs, one item each: the path the others are
//      compared with.
//   2. BM_Batch: one transactional batch (x-ms-cosmos-batch-atomic: true, the partition key
//      header) of 100 Create operations.
//   3. BM_Bulk: one bulk request (x-ms-cosmos-batch-atomic: false, continue-on-error, partition key
//      range 0) of 100 Create operations, each with its own partitionKey.
//   4. BM_DirectCreate/unique:1: as 1, into a container with the unique key /email (every item has
//      its own email): the cost of the unique index. The items of 1 carry the same emails.
//
// Each benchmark makes one untimed iteration first (100 items), then exactly kIterations timed
// ones, so that every variant does the same work on containers of the same sizes. run.sh divides the
// median CPU time of an iteration by 100 to give the cost of one item. The counter RU is the
// x-ms-request-charge of the last response: one create for 1 and 4, the sum of the 100 operations
// for 2 and 3.
//
// Run with medians:  build-bench/bench/batch_bench --benchmark_repetitions=9 --benchmark_report_aggregates_only=true
// or:                bench/run.sh batch
#include <benchmark/benchmark.h>

#include "http_env.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "http/context.h"
#include "http/pipeline.h"
#include "store/store.h"

namespace {

using namespace cosmos;
namespace bh = boost::beast::http;
using bench::Env;

constexpr size_t kItemBytes = 1024;  // as scripts_bench's and partition_bench's creates
constexpr size_t kOpsPerRequest = 100;  // the service's most operations in one batch request
// Timed iterations in one run (into a fresh container each): fixed, so that every variant writes
// the same 5,000 items (after the untimed 100) on containers of the same sizes.
constexpr int64_t kIterations = 50;
// Every item's partition key value: one logical partition.
constexpr const char* kPk = "bench-pk";
constexpr const char* kPkHeader = R"(["bench-pk"])";
constexpr const char* kUniqueKeyPolicy = R"({"uniqueKeys":[{"paths":["/email"]}]})";

// The shared environment, with rate limiting off (as by default).
Env& E2E() {
  static Env* env = [] {
    Env* e = &bench::E2E();
    e->limiter.set_enabled(false);
    return e;
  }();
  return *env;
}

using bench::ChargeOf;
using bench::Failure;
using bench::HeaderOf;

// Where the 8 digits of an item's number sit in a request body: in its id and in its email.
struct Slot {
  size_t id_at;
  size_t email_at;
};

// A 1 KB item: {"id":"it-00000000","pk":"bench-pk","email":"u00000000@bench.test","payload":"xxx..."}.
// The number has a fixed width, so a request body can be given new ones in place (SetNumber).
std::string ItemBody(size_t n, Slot* slot = nullptr) {
  char num[24];
  std::snprintf(num, sizeof num, "%08zu", n);
  std::string doc = std::string("{\"id\":\"it-") + num + "\",\"pk\":\"" + kPk + "\",\"email\":\"u" + num +
                    "@bench.test\",\"payload\":\"";
  if (slot) *slot = {doc.find("it-") + 3, doc.find("\"u") + 2};
  doc.append(kItemBytes - doc.size() - 2, 'x');
  doc += "\"}";
  return doc;
}

void SetNumber(std::string& body, const Slot& at, size_t n) {
  char digits[24];
  std::snprintf(digits, sizeof digits, "%08zu", n);
  std::memcpy(body.data() + at.id_at, digits, 8);
  std::memcpy(body.data() + at.email_at, digits, 8);
}

// A batch or bulk body of kOpsPerRequest Create operations, `prefix` before each resourceBody
// (`{"operationType":"Create",...,"resourceBody":`); *slots: where each item's number sits.
std::string OperationsBody(const std::string& prefix, std::vector<Slot>* slots) {
  std::string body = "[";
  slots->clear();
  for (size_t i = 0; i < kOpsPerRequest; ++i) {
    if (i) body += ',';
    body += prefix;
    Slot s{};
    const size_t at = body.size();
    body += ItemBody(0, &s);
    slots->push_back({at + s.id_at, at + s.email_at});
    body += '}';
  }
  body += ']';
  return body;
}

// A fresh container (one physical partition, partition key /pk, the unique key /email when asked)
// for one run of a benchmark, so that the items of one run do not pile up in the next; deleted when
// the run ends.
struct RunContainer {
  Env& env;
  std::string path;  // /dbs/bench/colls/<id>
  store::ContainerPtr c;

  RunContainer(Env& e, bool unique) : env(e) {
    const std::string id = "c" + std::to_string(++env.containers);
    path = "/dbs/bench/colls/" + id;
    env.stats.Reset();
    std::string body = "{\"id\":\"" + id + R"(","partitionKey":{"paths":["/pk"],"kind":"Hash","version":2})";
    if (unique) body += std::string(",\"uniqueKeyPolicy\":") + kUniqueKeyPolicy;
    body += '}';
    const int status = env.Send(env.Build(bh::verb::post, "/dbs/bench/colls", body,
                                          {{"x-ms-offer-throughput", "1000000"}, {"x-cosmos-emulator-partition-count", "1"}}));
    if (status != 201) return;
    c = env.account.FindDatabase("bench")->FindContainer(id);
    if (c && c->partitions().size() != 1) c.reset();
  }
  ~RunContainer() { env.Send(env.Build(bh::verb::delete_, path)); }

  size_t Items() const { return c->partitions().front()->Count(); }
};

// ---------------------------------------------------------------------------------------------
// 100 direct creates per iteration. state.range(0): 1 = into a container with the unique key.
void BM_DirectCreate(benchmark::State& state) {
  const bool unique = state.range(0) != 0;
  Env& env = E2E();
  RunContainer rc(env, unique);
  if (!rc.c) {
    state.SkipWithError("could not create the container");
    return;
  }
  Slot slot{};
  http::Request req =
      env.Build(bh::verb::post, rc.path + "/docs", ItemBody(0, &slot), {{"x-ms-documentdb-partitionkey", kPkHeader}});
  http::Response res;
  size_t n = 0;
  auto create100 = [&] {
    for (size_t i = 0; i < kOpsPerRequest; ++i, ++n) {
      SetNumber(req.body(), slot, n);
      res = http::Handle(env.services, req);
      if (res.result_int() != 201) return false;
    }
    return true;
  };
  if (!create100()) {  // untimed, as the batch's and bulk's first request
    state.SkipWithError(Failure("a create", res).c_str());
    return;
  }
  for (auto _ : state) {
    if (!create100()) {
      state.SkipWithError(Failure("a create", res).c_str());
      return;
    }
  }
  if (rc.Items() != n) {
    state.SkipWithError("not every item was created");
    return;
  }
  state.counters["RU"] = ChargeOf(res);
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(kOpsPerRequest));
  if (unique) {
    // Untimed: the unique index is really there, a new id with a taken email is refused.
    SetNumber(req.body(), slot, 0);
    std::memcpy(req.body().data() + slot.id_at, "99999999", 8);
    const http::Response dup = http::Handle(env.services, req);
    if (dup.result_int() != 409) state.SkipWithError(Failure("a create with a taken email", dup).c_str());
  }
}
BENCHMARK(BM_DirectCreate)->ArgName("unique")->Arg(0)->Arg(1)->Iterations(kIterations)->Unit(benchmark::kMicrosecond);

// One request of 100 Create operations per iteration: `headers` and each operation's `prefix` make
// it a transactional batch or a bulk request.
void RunOperations(benchmark::State& state, const char* what, const std::string& prefix,
                   const std::vector<std::pair<std::string, std::string>>& headers) {
  Env& env = E2E();
  RunContainer rc(env, false);
  if (!rc.c) {
    state.SkipWithError("could not create the container");
    return;
  }
  std::vector<Slot> slots;
  http::Request req = env.Build(bh::verb::post, rc.path + "/docs", OperationsBody(prefix, &slots), headers);
  size_t n = 0;
  auto number = [&] {
    for (const Slot& s : slots) SetNumber(req.body(), s, n++);
  };
  // Untimed: the first request must create all 100 items, each answering 201.
  number();
  http::Response res = http::Handle(env.services, req);
  if (res.result_int() != 200 || HeaderOf(res, "x-ms-item-count") != std::to_string(kOpsPerRequest) ||
      rc.Items() != kOpsPerRequest) {
    state.SkipWithError(Failure(what, res).c_str());
    return;
  }
  size_t created = 0;
  for (size_t at = res.body().find("\"statusCode\":201"); at != std::string::npos;
       at = res.body().find("\"statusCode\":201", at + 1))
    ++created;
  if (created != kOpsPerRequest) {
    state.SkipWithError((std::string(what) + " did not answer 201 for every operation").c_str());
    return;
  }
  // 200 means that every operation succeeded, for a batch as for a bulk request.
  for (auto _ : state) {
    number();
    res = http::Handle(env.services, req);
    if (res.result_int() != 200) {
      state.SkipWithError(Failure(what, res).c_str());
      return;
    }
  }
  if (rc.Items() != n) {
    state.SkipWithError("not every item was created");
    return;
  }
  state.counters["RU"] = ChargeOf(res);
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(kOpsPerRequest));
}

void BM_Batch(benchmark::State& state) {
  RunOperations(state, "the transactional batch", R"({"operationType":"Create","resourceBody":)",
                {{"x-ms-cosmos-is-batch-request", "true"},
                 {"x-ms-cosmos-batch-atomic", "true"},
                 {"x-ms-documentdb-partitionkey", kPkHeader}});
}
BENCHMARK(BM_Batch)->Iterations(kIterations)->Unit(benchmark::kMicrosecond);

void BM_Bulk(benchmark::State& state) {
  RunOperations(state, "the bulk request",
                R"({"operationType":"Create","partitionKey":"[\"bench-pk\"]","resourceBody":)",
                {{"x-ms-cosmos-is-batch-request", "true"},
                 {"x-ms-cosmos-batch-atomic", "false"},
                 {"x-ms-cosmos-batch-continue-on-error", "true"},
                 {"x-ms-documentdb-partitionkeyrangeid", "0"}});
}
BENCHMARK(BM_Bulk)->Iterations(kIterations)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
