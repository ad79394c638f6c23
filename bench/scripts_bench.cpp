// Server-side JavaScript micro-benchmarks (Google Benchmark), in process, one thread, end to end
// through http::Handle (signed requests built as tests/http builds them, no sockets), on a fresh
// container of one physical partition for every run, all items in one fixed logical partition:
//
//   1. BM_SprocEmpty: executing `function () {}`: the fixed cost of a stored procedure call
//      (routing, the transaction on the logical partition, the JavaScript call, the commit).
//   2. BM_SprocCreate: a stored procedure creating one 1 KB item, passed as its parameter.
//   3. BM_DirectCreate: the same 1 KB item created by POST .../docs, the path scripts are
//      compared with. 2 and 3 make exactly kCreatesPerRun items per run, each with a new id.
//   4. BM_Query/udf:U/items:N: `SELECT udf.plusOne(c.n) AS t FROM c` (U = 1) against
//      `SELECT c.n + 1 AS t FROM c` (U = 0) over the N items of the logical partition, one page;
//      both return the same rows. run.sh prints the ratios and the cost of one UDF call.
//
// Each benchmark makes one untimed call first, which compiles its script into this thread's
// engine, so the timed loop measures calls of an already compiled script. The counter RU is the
// x-ms-request-charge of the last response.
//
// Run with medians:  build-bench/bench/scripts_bench --benchmark_repetitions=9 --benchmark_report_aggregates_only=true
// or:                bench/run.sh scripts
#include <benchmark/benchmark.h>

#include "http_env.h"

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "http/auth.h"
#include "http/context.h"
#include "http/pipeline.h"
#include "json/json.h"
#include "scripting/engine.h"
#include "stats/report.h"
#include "store/store.h"
#include "throughput/limiter.h"
#include "util/clock.h"
#include "util/util.h"

namespace {

using namespace cosmos;
namespace bh = boost::beast::http;
using Headers = std::vector<std::pair<std::string, std::string>>;

constexpr size_t kItemBytes = 1024;  // as run.sh's point read and partition_bench's creates
// Creates in one run of BM_SprocCreate and BM_DirectCreate (into a fresh container each): fixed, so
// that both do the same work on containers of the same sizes (0 to kCreatesPerRun items).
constexpr int64_t kCreatesPerRun = 5'000;
constexpr size_t kWarmupId = 99'999'999;  // the id of the untimed first create
// Every item's partition key value: one logical partition.
constexpr const char* kPk = "bench-pk";
constexpr const char* kPkHeader = R"(["bench-pk"])";

constexpr const char* kEmptySproc = "function () {}";
constexpr const char* kCreateSproc =
    "function (doc) {\n"
    "  var c = getContext().getCollection();\n"
    "  if (!c.createDocument(c.getSelfLink(), doc)) throw new Error('not accepted');\n"
    "}";
constexpr const char* kUdf = "function plusOne(x) { return x + 1; }";
constexpr const char* kUdfQuery = "SELECT udf.plusOne(c.n) AS t FROM c";
constexpr const char* kPlainQuery = "SELECT c.n + 1 AS t FROM c";

using json::Quote;

// The shared environment, with rate limiting off (as by default) and the JavaScript engine
// started as main() starts it, before any script runs.
bench::Env& E2E() {
  static bench::Env* env = [] {
    bench::Env* e = &bench::E2E();
    e->limiter.set_enabled(false);
    scripting::Initialize();
    return e;
  }();
  return *env;
}
using bench::Env;

using bench::ChargeOf;
using bench::Failure;
using bench::HeaderOf;

// A 1 KB item: {"id":"it-00000000","pk":"bench-pk","n":42,"payload":"xxx..."}. The id has a fixed
// width, so a request body can be given a new id in place (SetId); *id_at: where its digits start.
std::string ItemBody(size_t n, size_t* id_at = nullptr) {
  char idbuf[16];
  std::snprintf(idbuf, sizeof idbuf, "it-%08zu", n);
  std::string doc = std::string("{\"id\":\"") + idbuf + "\",\"pk\":\"" + kPk + "\",\"n\":42,\"payload\":\"";
  if (id_at) *id_at = doc.find("it-") + 3;
  doc.append(kItemBytes - doc.size() - 2, 'x');
  doc += "\"}";
  return doc;
}

void SetId(std::string& body, size_t at, size_t n) {
  char digits[16];
  std::snprintf(digits, sizeof digits, "%08zu", n);
  std::memcpy(body.data() + at, digits, 8);
}

// A fresh container (one physical partition, partition key /pk) for one run of a benchmark, so
// that the items of one run do not pile up in the next; deleted when the run ends.
struct RunContainer {
  Env& env;
  std::string path;  // /dbs/bench/colls/<id>
  store::ContainerPtr c;

  explicit RunContainer(Env& e) : env(e) {
    const std::string id = "c" + std::to_string(++env.containers);
    path = "/dbs/bench/colls/" + id;
    env.stats.Reset();
    const int status = env.Send(env.Build(bh::verb::post, "/dbs/bench/colls",
                                          "{\"id\":\"" + id + R"(","partitionKey":{"paths":["/pk"],"kind":"Hash","version":2}})",
                                          {{"x-ms-offer-throughput", "1000000"}, {"x-cosmos-emulator-partition-count", "1"}}));
    if (status != 201) return;
    c = env.account.FindDatabase("bench")->FindContainer(id);
    if (c && c->partitions().size() != 1) c.reset();
  }
  ~RunContainer() { env.Send(env.Build(bh::verb::delete_, path)); }

  // POST .../sprocs or .../udfs {"id","body"}.
  bool AddScript(const char* kind, const std::string& id, const char* body) {
    return env.Send(env.Build(bh::verb::post, path + "/" + kind, "{\"id\":" + Quote(id) + ",\"body\":" + Quote(body) + "}")) ==
           201;
  }
  size_t Items() const { return c->partitions().front()->Count(); }
};

// ---------------------------------------------------------------------------------------------
// Stored procedures against direct writes

// POST .../sprocs/empty with no parameters: `function () {}`.
void BM_SprocEmpty(benchmark::State& state) {
  Env& env = E2E();
  RunContainer rc(env);
  if (!rc.c || !rc.AddScript("sprocs", "empty", kEmptySproc)) {
    state.SkipWithError("could not create the container or the stored procedure");
    return;
  }
  const http::Request req =
      env.Build(bh::verb::post, rc.path + "/sprocs/empty", "[]", {{"x-ms-documentdb-partitionkey", kPkHeader}});
  http::Response res = http::Handle(env.services, req);  // untimed: compiles the script
  if (res.result_int() != 200) {
    state.SkipWithError(Failure("the empty stored procedure", res).c_str());
    return;
  }
  for (auto _ : state) {
    res = http::Handle(env.services, req);
    if (res.result_int() != 200) {
      state.SkipWithError(Failure("the empty stored procedure", res).c_str());
      return;
    }
  }
  state.counters["RU"] = ChargeOf(res);
}

// POST .../sprocs/create1 with [item]: the script creates the item (a new id each iteration).
void BM_SprocCreate(benchmark::State& state) {
  Env& env = E2E();
  RunContainer rc(env);
  if (!rc.c || !rc.AddScript("sprocs", "create1", kCreateSproc)) {
    state.SkipWithError("could not create the container or the stored procedure");
    return;
  }
  size_t id_at = 0;
  const std::string item = ItemBody(0, &id_at);
  http::Request req = env.Build(bh::verb::post, rc.path + "/sprocs/create1", "[" + item + "]",
                                {{"x-ms-documentdb-partitionkey", kPkHeader}});
  id_at += 1;  // the parameter array's '['
  SetId(req.body(), id_at, kWarmupId);
  http::Response res = http::Handle(env.services, req);  // untimed: compiles the script
  if (res.result_int() != 200) {
    state.SkipWithError(Failure("the creating stored procedure", res).c_str());
    return;
  }
  size_t n = 0;
  for (auto _ : state) {
    SetId(req.body(), id_at, n);
    res = http::Handle(env.services, req);
    if (res.result_int() != 200) {
      state.SkipWithError(Failure("the creating stored procedure", res).c_str());
      return;
    }
    ++n;
  }
  if (rc.Items() != n + 1) {
    state.SkipWithError("the stored procedure did not create every item");
    return;
  }
  state.counters["RU"] = ChargeOf(res);
}

// POST .../docs with the same item (a new id each iteration).
void BM_DirectCreate(benchmark::State& state) {
  Env& env = E2E();
  RunContainer rc(env);
  if (!rc.c) {
    state.SkipWithError("could not create the container");
    return;
  }
  size_t id_at = 0;
  http::Request req =
      env.Build(bh::verb::post, rc.path + "/docs", ItemBody(0, &id_at), {{"x-ms-documentdb-partitionkey", kPkHeader}});
  SetId(req.body(), id_at, kWarmupId);
  http::Response res = http::Handle(env.services, req);  // untimed, as the stored procedure's first call
  if (res.result_int() != 201) {
    state.SkipWithError(Failure("the create", res).c_str());
    return;
  }
  size_t n = 0;
  for (auto _ : state) {
    SetId(req.body(), id_at, n);
    res = http::Handle(env.services, req);
    if (res.result_int() != 201) {
      state.SkipWithError(Failure("the create", res).c_str());
      return;
    }
    ++n;
  }
  if (rc.Items() != n + 1) {
    state.SkipWithError("not every item was created");
    return;
  }
  state.counters["RU"] = ChargeOf(res);
}

BENCHMARK(BM_SprocEmpty)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_SprocCreate)->Iterations(kCreatesPerRun)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_DirectCreate)->Iterations(kCreatesPerRun)->Unit(benchmark::kMicrosecond);

// ---------------------------------------------------------------------------------------------
// A query with a user-defined function against the same query without it

// One page of N rows from the logical partition's N items. state.range(0): 1 = with the UDF;
// state.range(1): N.
void BM_Query(benchmark::State& state) {
  const bool with_udf = state.range(0) != 0;
  const size_t items = static_cast<size_t>(state.range(1));
  Env& env = E2E();
  RunContainer rc(env);
  if (!rc.c || !rc.AddScript("udfs", "plusOne", kUdf)) {
    state.SkipWithError("could not create the container or the UDF");
    return;
  }
  for (size_t i = 0; i < items; ++i) {
    if (env.Send(env.Build(bh::verb::post, rc.path + "/docs", ItemBody(i), {{"x-ms-documentdb-partitionkey", kPkHeader}})) !=
        201) {
      state.SkipWithError("could not create the items");
      return;
    }
  }
  const Headers headers = {{"x-ms-documentdb-partitionkey", kPkHeader},
                           {"x-ms-documentdb-isquery", "true"},
                           {"content-type", "application/query+json"},
                           {"x-ms-max-item-count", std::to_string(items)}};
  auto query = [&](const char* text) {
    return env.Build(bh::verb::post, rc.path + "/docs", "{\"query\":" + Quote(text) + ",\"parameters\":[]}", headers);
  };
  const http::Request udf_req = query(kUdfQuery);
  const http::Request plain_req = query(kPlainQuery);
  // Untimed: both must return the same N rows {"t":43} in one page (this also compiles the UDF).
  const http::Response a = http::Handle(env.services, udf_req);
  const http::Response b = http::Handle(env.services, plain_req);
  if (a.result_int() != 200 || b.result_int() != 200) {
    state.SkipWithError(Failure("a query", a.result_int() != 200 ? a : b).c_str());
    return;
  }
  if (a.body() != b.body() || HeaderOf(a, "x-ms-item-count") != std::to_string(items) ||
      !HeaderOf(a, "x-ms-continuation").empty() || a.body().find("{\"t\":43}") == std::string::npos) {
    state.SkipWithError("the queries with and without the UDF do not return the same single page");
    return;
  }
  const http::Request& req = with_udf ? udf_req : plain_req;
  http::Response res;
  for (auto _ : state) {
    res = http::Handle(env.services, req);
    if (res.result_int() != 200) {
      state.SkipWithError(Failure("the query", res).c_str());
      return;
    }
  }
  state.counters["RU"] = ChargeOf(res);
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(items));
}
BENCHMARK(BM_Query)
    ->ArgNames({"udf", "items"})
    ->ArgsProduct({{0, 1}, {100, 1000}})
    ->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
