// Fuzz target: query text through the parser, the binder, the executor (over the seeded items,
// across partitions and in one), the printer (continuations) and the query plan, as the SDKs send
// queries: POST .../docs with application/query+json, and the query-plan request.
#include <cstdint>
#include <string>

#include "fuzz_env.h"
#include "json/json.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace cosmos;
  auto& env = fuzz::TheEnv();
  env.MaybeReset();
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::string body = "{\"query\":";
  json::WriteString(body, text);
  body += ",\"parameters\":[{\"name\":\"@p\",\"value\":1},{\"name\":\"@s\",\"value\":\"a\"}]}";
  const fuzz::Headers query = {{"content-type", "application/query+json"},
                               {"x-ms-documentdb-isquery", "true"},
                               {"x-ms-documentdb-query-enablecrosspartition", "true"},
                               {"x-ms-max-item-count", "3"}};
  auto res = env.Send(fuzz::bh::verb::post, "/dbs/db/colls/c/docs", body, query);
  // Follow one continuation, as the SDKs page.
  if (auto it = res.find("x-ms-continuation"); it != res.end()) {
    auto next = query;
    next.emplace_back("x-ms-continuation", std::string(it->value()));
    env.Send(fuzz::bh::verb::post, "/dbs/db/colls/c/docs", body, next);
  }
  auto single = query;
  single.emplace_back("x-ms-documentdb-partitionkey", "[\"a\"]");
  env.Send(fuzz::bh::verb::post, "/dbs/db/colls/c/docs", body, single);
  env.Send(fuzz::bh::verb::post, "/dbs/db/colls/c/docs", body,
           {{"content-type", "application/query+json"},
            {"x-ms-cosmos-is-query-plan-request", "True"},
            {"x-ms-cosmos-supported-query-features",
             "Aggregate, CompositeAggregate, Distinct, GroupBy, MultipleAggregates, MultipleOrderBy, OffsetAndLimit, "
             "OrderBy, Top, NonValueAggregate, DCount"}});
  return 0;
}
