// Fuzz target: the header parsers at their real call sites: the partition key, session token,
// continuation (queries, read feeds, the change feed), consistency, the change feed's start
// headers, max item count, and the authorization header itself (sent unsigned).
#include <cstdint>
#include <string>

#include "fuzz_env.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace cosmos;
  auto& env = fuzz::TheEnv();
  env.MaybeReset();
  const std::string v(reinterpret_cast<const char*>(data), size);
  // Header values cannot hold CR, LF or NUL on the wire; Beast's parser refuses them before us.
  for (char c : v) {
    if (c == '\r' || c == '\n' || c == '\0') return 0;
  }
  using fuzz::bh::verb;
  env.Send(verb::get, "/dbs/db/colls/c/docs/1", "", {{"x-ms-documentdb-partitionkey", v}});
  env.Send(verb::get, "/dbs/db/colls/c/docs/1", "",
           {{"x-ms-documentdb-partitionkey", "[\"a\"]"}, {"x-ms-session-token", v}, {"x-ms-consistency-level", v}});
  env.Send(verb::get, "/dbs/db/colls/c/docs", "", {{"x-ms-continuation", v}, {"x-ms-max-item-count", v}});
  env.Send(verb::post, "/dbs/db/colls/c/docs", R"({"query":"SELECT * FROM c ORDER BY c.n"})",
           {{"content-type", "application/query+json"},
            {"x-ms-documentdb-isquery", "true"},
            {"x-ms-documentdb-query-enablecrosspartition", "true"},
            {"x-ms-continuation", v}});
  env.Send(verb::get, "/dbs/db/colls/c/docs", "",
           {{"a-im", "Incremental Feed"}, {"x-ms-documentdb-partitionkeyrangeid", "0"}, {"if-none-match", v}});
  env.Send(verb::get, "/dbs/db/colls/c/docs", "",
           {{"a-im", "Full-Fidelity Feed"}, {"x-ms-cosmos-changefeed-wire-format-version", "2021-09-15"},
            {"if-modified-since", v}, {"x-ms-start-epk", v}, {"x-ms-end-epk", "FF"}});
  env.Send(verb::get, "/dbs/db/colls/c/docs", "", {{"authorization", v}}, /*sign=*/false);
  return 0;
}
