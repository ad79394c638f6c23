// Fuzz target: JSON bodies. The parser and writer on their own (a parsed document must write
// back and parse again to the same text), then the bytes as an item to create, replace and patch.
#include <cstdint>
#include <string>

#include "fuzz_env.h"
#include "json/json.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace cosmos;
  const std::string text(reinterpret_cast<const char*>(data), size);
  json::Document d;
  if (json::Parse(text, d) == json::ParseStatus::kOk) {
    const std::string once = json::Write(d);
    json::Document again;
    if (json::Parse(once, again) != json::ParseStatus::kOk) fuzz::Finding("written JSON does not parse");
    if (json::Write(again) != once) fuzz::Finding("JSON written twice differs");
  }
  auto& env = fuzz::TheEnv();
  env.MaybeReset();
  env.Send(fuzz::bh::verb::post, "/dbs/db/colls/c/docs", text, {{"x-ms-documentdb-partitionkey", "[\"a\"]"}});
  env.Send(fuzz::bh::verb::post, "/dbs/db/colls/c/docs", text,
           {{"x-ms-documentdb-partitionkey", "[\"a\"]"}, {"x-ms-documentdb-is-upsert", "true"}});
  env.Send(fuzz::bh::verb::put, "/dbs/db/colls/c/docs/1", text, {{"x-ms-documentdb-partitionkey", "[\"a\"]"}});
  env.Send(fuzz::bh::verb::patch, "/dbs/db/colls/c/docs/2", text, {{"x-ms-documentdb-partitionkey", "[\"a\"]"}});
  env.Send(fuzz::bh::verb::post, "/dbs/db/colls/c/docs", text,
           {{"x-ms-documentdb-partitionkey", "[\"a\"]"}, {"x-ms-cosmos-is-batch-request", "True"},
            {"x-ms-cosmos-batch-atomic", "True"}});
  return 0;
}
