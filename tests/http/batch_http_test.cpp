// Transactional batch, bulk and unique keys through Handle(): the real service's recorded batch
// exchanges replayed (200, 207 with 424s, the substatus header of a partition-key mismatch, a
// non-atomic batch), exact result bodies and per-operation charges, the limits (100 operations,
// 2,202,010 bytes, empty), per-operation 429s of a bulk request under rate limiting, and unique
// key enforcement with the service's 409 and the 403 of a policy change.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <regex>
#include <string>
#include <vector>

#include "recording_util.h"

namespace cosmos::testing {
namespace {

const std::regex kEtag(R"re("[0-9a-f]{8}-0000-0100-0000-[0-9a-f]{8}0000")re");

std::vector<std::string> Keys(const json::Value& v) {
  std::vector<std::string> keys;
  if (!v.IsObject()) return keys;
  for (auto& m : v.GetObject()) keys.emplace_back(m.name.GetString());
  return keys;
}

double Round2(double ru) { return std::round(ru * 100.0) / 100.0; }

// Index terms of a stored item under the default policy: one per leaf value (each array element,
// empty containers count once), `id` and `_ts` included, the other system properties not.
int Terms(const json::Value& v) {
  if (v.IsObject()) {
    if (v.MemberCount() == 0) return 1;
    int n = 0;
    for (auto& m : v.GetObject()) n += Terms(m.value);
    return n;
  }
  if (v.IsArray()) {
    if (v.Empty()) return 1;
    int n = 0;
    for (auto& e : v.GetArray()) n += Terms(e);
    return n;
  }
  return 1;
}
int ItemTerms(const json::Value& item) {
  int n = 0;
  for (auto& m : item.GetObject()) {
    const std::string k = m.name.GetString();
    if (k == "_rid" || k == "_self" || k == "_etag" || k == "_attachments") continue;
    n += Terms(m.value);
  }
  return n;
}
double Kb(const json::Value& item) { return static_cast<double>(json::Write(item).size()) / 1024.0; }
// docs/request-units.md: Create = 4.6 + 0.6 KB + 0.38 T; Replace = 1.85 x that; Read = max(1, 1 + 0.1 (KB - 1)).
double CreateRu(const json::Value& item) { return Round2(4.6 + 0.6 * Kb(item) + 0.38 * ItemTerms(item)); }
double ReplaceRu(const json::Value& item) { return Round2(1.85 * (4.6 + 0.6 * Kb(item) + 0.38 * ItemTerms(item))); }
double ReadRu(const json::Value& item) { return Round2(std::max(1.0, 1.0 + 0.1 * (Kb(item) - 1.0))); }
constexpr double kRejected = 1.24;

Headers BatchHeaders(const std::string& pk) {
  return {{"x-ms-cosmos-is-batch-request", "True"},
          {"x-ms-cosmos-batch-atomic", "True"},
          {"x-ms-documentdb-partitionkey", pk}};
}
Headers BulkHeaders(const std::string& range) {
  return {{"x-ms-cosmos-is-batch-request", "True"},
          {"x-ms-cosmos-batch-atomic", "False"},
          {"x-ms-cosmos-batch-continue-on-error", "True"},
          {"x-ms-documentdb-partitionkeyrangeid", range}};
}

double SumCharges(const json::Value& results) {
  double sum = 0;
  for (auto& r : results.GetArray()) sum += r["requestCharge"].GetDouble();
  return sum;
}

class BatchTest : public EmulatorTest {
 protected:
  void SetUp() override {
    MakeDatabase("db");
    MakeContainer("db", "c");
  }
  Reply Batch(const std::string& body, const std::string& pk = R"(["a"])", const std::string& coll = "c") {
    return Post("/dbs/db/colls/" + coll + "/docs", body, BatchHeaders(pk));
  }
  Reply Read(const std::string& id, const std::string& pk = R"(["a"])", const std::string& coll = "c") {
    return Get("/dbs/db/colls/" + coll + "/docs/" + id, {{"x-ms-documentdb-partitionkey", pk}});
  }
  // The header charge is the rounded sum of the per-operation charges.
  static void ExpectChargeIsSum(const Reply& r) {
    auto d = r.Json();
    ASSERT_TRUE(d.IsArray()) << r;
    EXPECT_EQ(r.Charge(), json::FormatNumber(Round2(SumCharges(d))));
  }
};

// ---- success --------------------------------------------------------------------------------

TEST_F(BatchTest, CreatesAnswer200WithTheServiceResultShape) {
  auto r = Batch(R"([{"operationType":"Create","resourceBody":{"id":"b1","pk":"a","n":10}},)"
                 R"({"operationType":"Create","resourceBody":{"id":"b2","pk":"a","n":11}}])");
  ASSERT_EQ(r.status(), 200) << r;
  EXPECT_EQ(r.Header("content-type"), "application/json");
  EXPECT_EQ(r.Header("x-ms-item-count"), "2");
  EXPECT_FALSE(r.Has("x-ms-substatus"));
  EXPECT_FALSE(r.Has("etag"));
  EXPECT_TRUE(r.Has("x-ms-session-token"));
  EXPECT_EQ(r.Header("x-ms-documentdb-partitionkeyrangeid"), "0");
  auto d = r.Json();
  ASSERT_TRUE(d.IsArray() && d.Size() == 2u) << r;
  for (unsigned i = 0; i < 2; ++i) {
    const auto& res = d[i];
    EXPECT_EQ(Keys(res), (std::vector<std::string>{"statusCode", "requestCharge", "eTag", "resourceBody"}));
    EXPECT_EQ(res["statusCode"].GetInt(), 201);
    const auto& body = res["resourceBody"];
    EXPECT_EQ(Keys(body), (std::vector<std::string>{"id", "pk", "n", "_rid", "_self", "_etag", "_attachments", "_ts"}));
    EXPECT_EQ(std::string(res["eTag"].GetString()), std::string(body["_etag"].GetString()));
    EXPECT_TRUE(std::regex_match(std::string(res["eTag"].GetString()), kEtag));
    EXPECT_EQ(res["requestCharge"].GetDouble(), CreateRu(body));
    // the item is stored exactly as returned
    auto read = Read(body["id"].GetString());
    ASSERT_EQ(read.status(), 200);
    EXPECT_EQ(read.body(), json::Write(body));
  }
  ExpectChargeIsSum(r);
}

TEST_F(BatchTest, EveryOperationTypeWithItsOwnCharge) {
  ASSERT_EQ(CreateDoc("db", "c", R"({"id":"r","pk":"a","v":1})", R"(["a"])").status(), 201);
  ASSERT_EQ(CreateDoc("db", "c", R"({"id":"u","pk":"a","v":1})", R"(["a"])").status(), 201);
  auto del = CreateDoc("db", "c", R"({"id":"d","pk":"a","list":[1,2,3]})", R"(["a"])");
  ASSERT_EQ(del.status(), 201);
  const double delete_ru = std::stod(del.Charge());  // Delete = Create of the stored image
  ASSERT_EQ(CreateDoc("db", "c", R"({"id":"p","pk":"a","n":1})", R"(["a"])").status(), 201);

  auto r = Batch(R"([{"operationType":"Read","id":"r"},)"
                 R"({"operationType":"Replace","id":"r","resourceBody":{"id":"r","pk":"a","v":2}},)"
                 R"({"operationType":"Upsert","resourceBody":{"id":"u","pk":"a","v":2}},)"
                 R"({"operationType":"Upsert","resourceBody":{"id":"new","pk":"a"}},)"
                 R"({"operationType":"Delete","id":"d"},)"
                 R"({"operationType":"Patch","id":"p","resourceBody":{"operations":[{"op":"incr","path":"/n","value":2}]}}])");
  ASSERT_EQ(r.status(), 200) << r;
  auto d = r.Json();
  ASSERT_TRUE(d.IsArray() && d.Size() == 6u) << r;
  const int statuses[] = {200, 200, 200, 201, 204, 200};
  for (unsigned i = 0; i < 6; ++i) EXPECT_EQ(d[i]["statusCode"].GetInt(), statuses[i]) << i;
  EXPECT_EQ(d[0]["resourceBody"]["v"].GetInt(), 1);
  EXPECT_EQ(d[0]["requestCharge"].GetDouble(), ReadRu(d[0]["resourceBody"]));
  EXPECT_EQ(d[1]["requestCharge"].GetDouble(), ReplaceRu(d[1]["resourceBody"]));
  EXPECT_EQ(d[2]["requestCharge"].GetDouble(), ReplaceRu(d[2]["resourceBody"]));
  EXPECT_EQ(d[3]["requestCharge"].GetDouble(), CreateRu(d[3]["resourceBody"]));
  EXPECT_FALSE(d[4].HasMember("resourceBody"));
  EXPECT_EQ(d[4]["requestCharge"].GetDouble(), delete_ru);
  EXPECT_EQ(d[5]["resourceBody"]["n"].GetInt(), 3);
  EXPECT_EQ(d[5]["requestCharge"].GetDouble(), ReplaceRu(d[5]["resourceBody"]));
  ExpectChargeIsSum(r);
  EXPECT_EQ(Read("d").status(), 404);
  EXPECT_EQ(Read("r").Json()["v"].GetInt(), 2);
}

// The service commits a whole batch with one LSN (Microsoft's Python SDK's test_batch_lsn: the
// batch's lsn header is one past a read's before it), and the change feed returns a batch's items
// together, past the page size if need be (the .NET SDK's ChangeFeedRequestOptions.PageSizeHint),
// each with that LSN as its _lsn; in all versions and deletes too, each with metadata.lsn.
TEST_F(BatchTest, AllWritesOfABatchShareOneLsn) {
  MakeContainer("db", "logged", R"("changeFeedPolicy":{"retentionDuration":60})");
  auto first = CreateDoc("db", "logged", R"({"id":"x","pk":"a"})", R"(["a"])");
  ASSERT_EQ(first.status(), 201);
  const int lsn = std::stoi(first.Header("lsn"));
  const std::string cf_start = Get("/dbs/db/colls/logged/docs", {{"A-IM", "Full-Fidelity Feed"},
                                                                  {"x-ms-cosmos-changefeed-wire-format-version", "2021-09-15"},
                                                                  {"If-None-Match", "*"}})
                                   .Header("etag");
  auto r = Batch(R"([{"operationType":"Create","resourceBody":{"id":"y","pk":"a"}},)"
                 R"({"operationType":"Delete","id":"x"},{"operationType":"Upsert","resourceBody":{"id":"z","pk":"a"}},)"
                 R"({"operationType":"Read","id":"y"}])",
                 R"(["a"])", "logged");
  ASSERT_EQ(r.status(), 200) << r;
  EXPECT_EQ(r.Header("x-ms-session-token"), "0:-1#" + std::to_string(lsn + 1));
  EXPECT_EQ(r.Header("lsn"), std::to_string(lsn + 1));
  auto w = CreateDoc("db", "logged", R"({"id":"w","pk":"a"})", R"(["a"])");
  EXPECT_EQ(w.Header("lsn"), std::to_string(lsn + 2));  // the next write goes on from it

  // Latest version, a page of one: the batch's two items, then the next write.
  const Headers latest{{"A-IM", "Incremental feed"}, {"x-ms-max-item-count", "1"}};
  auto p1 = Get("/dbs/db/colls/logged/docs", latest);
  ASSERT_EQ(p1.status(), 200) << p1;
  auto d1 = p1.Json();
  ASSERT_EQ(d1["Documents"].Size(), 2u) << p1;
  EXPECT_EQ(p1.Header("x-ms-item-count"), "2");
  for (auto& doc : d1["Documents"].GetArray()) EXPECT_EQ(doc["_lsn"].GetInt(), lsn + 1);
  EXPECT_STREQ(d1["Documents"][0]["id"].GetString(), "y");
  EXPECT_STREQ(d1["Documents"][1]["id"].GetString(), "z");
  Headers next = latest;
  next.emplace_back("If-None-Match", p1.Header("etag"));
  auto p2 = Get("/dbs/db/colls/logged/docs", next);
  ASSERT_EQ(p2.status(), 200) << p2;
  ASSERT_EQ(p2.Json()["Documents"].Size(), 1u);
  EXPECT_STREQ(p2.Json()["Documents"][0]["id"].GetString(), "w");

  // All versions and deletes from before the batch, a page of one: its three changes together.
  auto a1 = Get("/dbs/db/colls/logged/docs", {{"A-IM", "Full-Fidelity Feed"},
                                              {"x-ms-cosmos-changefeed-wire-format-version", "2021-09-15"},
                                              {"x-ms-max-item-count", "1"},
                                              {"If-None-Match", cf_start}});
  ASSERT_EQ(a1.status(), 200) << a1;
  auto all = a1.Json();
  ASSERT_EQ(all["Documents"].Size(), 3u) << a1;
  std::vector<std::string> kinds;
  for (auto& e : all["Documents"].GetArray()) {
    kinds.emplace_back(e["metadata"]["operationType"].GetString());
    EXPECT_EQ(e["metadata"]["lsn"].GetInt(), lsn + 1);
  }
  EXPECT_EQ(kinds, (std::vector<std::string>{"create", "delete", "create"}));
}

TEST_F(BatchTest, AReplaceWhoseBodyNamesAnotherIdRenamesTheItem) {
  // As a direct replace does (the service renames; Microsoft's Python SDK tests do it in a batch).
  auto first = CreateDoc("db", "c", R"({"id":"x","pk":"a","v":1})", R"(["a"])");
  ASSERT_EQ(first.status(), 201);
  auto r = Batch(R"([{"operationType":"Replace","id":"x","resourceBody":{"id":"x2","pk":"a","v":2}},)"
                 R"({"operationType":"Read","id":"x2"},{"operationType":"Create","resourceBody":{"id":"x","pk":"a"}}])");
  ASSERT_EQ(r.status(), 200) << r;
  EXPECT_EQ(r.Json()[1]["statusCode"].GetInt(), 200);
  auto renamed = Read("x2");
  ASSERT_EQ(renamed.status(), 200) << renamed;
  EXPECT_EQ(renamed.Str("_rid"), first.Str("_rid"));
  EXPECT_EQ(renamed.Json()["v"].GetInt(), 2);
  auto recreated = Read("x");
  ASSERT_EQ(recreated.status(), 200) << recreated;
  EXPECT_NE(recreated.Str("_rid"), first.Str("_rid"));
  // Onto a taken id: 409, and nothing of the batch is applied.
  auto taken = Batch(R"([{"operationType":"Upsert","resourceBody":{"id":"z","pk":"a"}},)"
                     R"({"operationType":"Replace","id":"x2","resourceBody":{"id":"x","pk":"a"}}])");
  ASSERT_EQ(taken.status(), 207) << taken;
  EXPECT_EQ(taken.Json()[1]["statusCode"].GetInt(), 409);
  EXPECT_EQ(Read("z").status(), 404);
  EXPECT_EQ(Read("x2").status(), 200);
}

// ---- failure --------------------------------------------------------------------------------

TEST_F(BatchTest, FailureIs207WithExactBodiesAndNothingApplied) {
  ASSERT_EQ(CreateDoc("db", "c", R"({"id":"dup","pk":"a"})", R"(["a"])").status(), 201);
  auto r = Batch(R"([{"operationType":"Create","resourceBody":{"id":"b9","pk":"a","n":10}},)"
                 R"({"operationType":"Create","resourceBody":{"id":"dup","pk":"a"}},)"
                 R"({"operationType":"Create","resourceBody":{"id":"b10","pk":"a"}}])");
  ASSERT_EQ(r.status(), 207) << r;
  EXPECT_FALSE(r.Has("x-ms-substatus"));
  EXPECT_EQ(r.Header("x-ms-item-count"), "3");
  EXPECT_EQ(Read("b9").status(), 404);
  EXPECT_EQ(Read("b10").status(), 404);
  // the create that ran before the conflict keeps what it cost on its own
  auto alone = CreateDoc("db", "c", R"({"id":"b9","pk":"a","n":10})", R"(["a"])");
  ASSERT_EQ(alone.status(), 201);
  EXPECT_EQ(r.body(), "[{\"statusCode\":424,\"requestCharge\":" + alone.Charge() +
                          "},{\"statusCode\":409,\"requestCharge\":1.24},{\"statusCode\":424,\"requestCharge\":0}]");
  ExpectChargeIsSum(r);
}

TEST_F(BatchTest, PartitionKeyMismatchIs400WithSubstatusHeader) {
  auto r = Batch(R"([{"operationType":"Create","resourceBody":{"id":"b8","pk":"zzz"}}])");
  ASSERT_EQ(r.status(), 207) << r;
  EXPECT_EQ(r.Substatus(), "1001");
  EXPECT_EQ(r.body(), R"([{"statusCode":400,"requestCharge":1.24}])");
  EXPECT_EQ(r.Charge(), "1.24");
  EXPECT_EQ(Read("b8", R"(["zzz"])").status(), 404);
}

// A prefix of a hierarchical key names no one logical partition: 400 in the service's words (the
// Python SDK's test_batch_subpartition); a header with no key at all keeps the header's message.
TEST_F(BatchTest, PrefixOfAHierarchicalKeyIs400) {
  MakeContainer("db", "h", "", R"({"paths":["/state","/city","/zipcode"],"kind":"MultiHash","version":2})");
  const std::string ops = R"([{"operationType":"Create","resourceBody":{"id":"x","state":"WA","city":"Redmond","zipcode":"98052"}}])";
  auto r = Batch(ops, R"(["WA","Redmond"])", "h");
  EXPECT_EQ(r.status(), 400) << r;
  EXPECT_EQ(r.Substatus(), "1001");
  EXPECT_NE(r.Message().find("Partition key provided either doesn't correspond to definition in the collection or "
                             "doesn't match partition key field values specified in the document."),
            std::string::npos)
      << r;
  auto whole = Batch(ops, R"(["WA","Redmond","98052"])", "h");
  EXPECT_EQ(whole.status(), 200) << whole;
}

TEST_F(BatchTest, ReadOfMissingItemFailsTheBatch) {
  auto r = Batch(R"([{"operationType":"Read","id":"nope"},{"operationType":"Create","resourceBody":{"id":"n","pk":"a"}}])");
  ASSERT_EQ(r.status(), 207) << r;
  EXPECT_EQ(r.body(), R"([{"statusCode":404,"requestCharge":1},{"statusCode":424,"requestCharge":0}])");
  EXPECT_EQ(r.Charge(), "1");
  EXPECT_EQ(Read("n").status(), 404);
}

TEST_F(BatchTest, PreconditionFailedIs412) {
  auto created = CreateDoc("db", "c", R"({"id":"e","pk":"a","v":1})", R"(["a"])");
  ASSERT_EQ(created.status(), 201);
  auto r = Batch(R"([{"operationType":"Replace","id":"e","resourceBody":{"id":"e","pk":"a","v":2},"ifMatch":"\"x\""}])");
  ASSERT_EQ(r.status(), 207) << r;
  EXPECT_EQ(r.body(), R"([{"statusCode":412,"requestCharge":1.24}])");
  auto ok = Batch(R"([{"operationType":"Replace","id":"e","resourceBody":{"id":"e","pk":"a","v":2},"ifMatch":)" +
                  json::Quote(created.Header("etag")) + "}]");
  ASSERT_EQ(ok.status(), 200) << ok;
  EXPECT_EQ(Read("e").Json()["v"].GetInt(), 2);
}

TEST_F(BatchTest, NotModifiedReadDoesNotFailTheBatch) {
  auto created = CreateDoc("db", "c", R"({"id":"m","pk":"a"})", R"(["a"])");
  ASSERT_EQ(created.status(), 201);
  auto r = Batch(R"([{"operationType":"Create","resourceBody":{"id":"m2","pk":"a"}},{"operationType":"Read","id":"m","ifNoneMatch":)" +
                 json::Quote(created.Header("etag")) + "}]");
  ASSERT_EQ(r.status(), 207) << r;
  auto d = r.Json();
  ASSERT_TRUE(d.IsArray() && d.Size() == 2u) << r;
  EXPECT_EQ(d[0]["statusCode"].GetInt(), 201);
  EXPECT_EQ(d[1]["statusCode"].GetInt(), 304);
  EXPECT_FALSE(d[1].HasMember("resourceBody"));
  EXPECT_EQ(Read("m2").status(), 200);
}

// ---- refused as a whole ---------------------------------------------------------------------

TEST_F(BatchTest, MoreThan100OperationsIs400) {
  std::string ops = "[";
  for (int i = 0; i < 101; ++i) {
    if (i) ops += ",";
    ops += R"({"operationType":"Create","resourceBody":{"id":"o)" + std::to_string(i) + R"(","pk":"a"}})";
  }
  ops += "]";
  auto r = Batch(ops);
  EXPECT_EQ(r.status(), 400) << r;
  EXPECT_EQ(r.Code(), "BadRequest");
  EXPECT_FALSE(r.Has("x-ms-substatus"));
  EXPECT_EQ(r.Message().rfind(R"(Message: {"Errors":["Batch request has more operations than what is supported."]})", 0), 0u)
      << r.Message();
  EXPECT_EQ(Read("o0").status(), 404);
  // the same through the bulk form
  auto bulk = Post("/dbs/db/colls/c/docs", ops, BulkHeaders("0"));
  EXPECT_EQ(bulk.status(), 400) << bulk;
}

TEST_F(BatchTest, EmptyBatchIs400) {
  auto r = Batch("[]");
  EXPECT_EQ(r.status(), 400) << r;
  EXPECT_EQ(r.Code(), "BadRequest");
  EXPECT_EQ(r.Message().rfind(R"(Message: {"Errors":["Batch request has no operations."]})", 0), 0u) << r.Message();
}

TEST_F(BatchTest, BodyOverTheBatchLimitIs413) {
  // 2,202,010 bytes is the service's batch body limit; one byte more is refused as a whole.
  auto make = [](size_t total) {
    std::string head = "[";
    std::string out;
    for (int i = 0; i < 18; ++i) {
      if (i) head += ",";
      head += R"({"operationType":"Create","resourceBody":{"id":"g)" + std::to_string(i) + R"(","pk":"a","pad":")";
      head += std::string(i == 17 ? 0 : 115 * 1024, 'x');
      if (i != 17) head += "\"}}";
    }
    const std::string tail = "\"}}]";
    out = head + std::string(total - head.size() - tail.size(), 'y') + tail;
    return out;
  };
  const std::string fits = make(2202010);
  ASSERT_EQ(fits.size(), 2202010u);
  const std::string over = make(2202011);
  auto r = Batch(over);
  EXPECT_EQ(r.status(), 413) << r.status();
  EXPECT_EQ(r.Code(), "RequestEntityTooLarge");
  EXPECT_EQ(Read("g0").status(), 404);
  auto ok = Batch(fits);
  EXPECT_EQ(ok.status(), 200) << ok.status() << " " << ok.body().substr(0, 200);
}

TEST_F(BatchTest, MalformedBodiesAre400) {
  for (const char* body : {R"({"operationType":"Create"})", "nope", R"([{"operationType":"Create"}]x)"}) {
    auto r = Batch(body);
    EXPECT_EQ(r.status(), 400) << body << " " << r;
    EXPECT_EQ(r.Code(), "BadRequest") << body;
  }
  // An element that is not an operation object is refused, as a whole or as that operation.
  auto r = Batch("[1]");
  if (r.status() == 207) {
    auto d = r.Json();
    ASSERT_TRUE(d.IsArray() && d.Size() == 1u) << r;
    EXPECT_EQ(d[0]["statusCode"].GetInt(), 400) << r;
  } else {
    EXPECT_EQ(r.status(), 400) << r;
    EXPECT_EQ(r.Code(), "BadRequest");
  }
}

TEST_F(BatchTest, BatchOnMissingContainerIs404) {
  auto r = Batch(R"([{"operationType":"Read","id":"x"}])", R"(["a"])", "nocontainer");
  EXPECT_EQ(r.status(), 404) << r;
  EXPECT_EQ(r.Code(), "NotFound");
}

// ---- bulk -----------------------------------------------------------------------------------

TEST_F(BatchTest, BulkRunsEveryOperationInItsOwnPartition) {
  ASSERT_EQ(CreateDoc("db", "c", R"({"id":"1","pk":"b"})", R"(["b"])").status(), 201);
  auto r = Post("/dbs/db/colls/c/docs",
                R"([{"operationType":"Create","partitionKey":"[\"a\"]","resourceBody":{"id":"1","pk":"a"}},)"
                R"({"operationType":"Create","partitionKey":"[\"b\"]","resourceBody":{"id":"1","pk":"b"}},)"
                R"({"operationType":"Read","partitionKey":"[\"b\"]","id":"1"}])",
                BulkHeaders("0"));
  ASSERT_EQ(r.status(), 207) << r;
  auto d = r.Json();
  ASSERT_TRUE(d.IsArray() && d.Size() == 3u) << r;
  EXPECT_EQ(d[0]["statusCode"].GetInt(), 201);
  EXPECT_EQ(json::Write(d[1]), R"({"statusCode":409,"requestCharge":1.24})");
  EXPECT_EQ(d[2]["statusCode"].GetInt(), 200);
  ExpectChargeIsSum(r);
  EXPECT_EQ(Read("1").status(), 200);
}

TEST_F(BatchTest, BulkOperationsPastTheBudgetAnswer429) {
  limiter_.set_enabled(true);
  MakeContainer("db", "limited");  // 400 RU/s, one partition
  std::string ops = "[";
  for (int i = 0; i < 100; ++i) {
    if (i) ops += ",";
    ops += R"({"operationType":"Create","partitionKey":"[\"a\"]","resourceBody":{"id":"d)" + std::to_string(i) +
           R"(","pk":"a","pad":"0123456789012345678901234567890123456789"}})";
  }
  ops += "]";
  auto r = Post("/dbs/db/colls/limited/docs", ops, BulkHeaders("0"));
  ASSERT_EQ(r.status(), 207) << r.status() << " " << r.body().substr(0, 300);
  auto d = r.Json();
  ASSERT_TRUE(d.IsArray() && d.Size() == 100u);
  double spent = 0;
  unsigned admitted = 0;
  while (admitted < 100 && d[admitted]["statusCode"].GetInt() == 201) spent += d[admitted++]["requestCharge"].GetDouble();
  ASSERT_GT(admitted, 0u);
  ASSERT_LT(admitted, 100u);
  // admitted while RU remained: the last admitted operation took the bucket below zero
  EXPECT_GE(spent, 400.0);
  EXPECT_LT(spent - d[admitted - 1]["requestCharge"].GetDouble(), 400.0);
  const int retry_after = static_cast<int>(std::floor((spent - 400.0) * 1000.0 / 400.0)) + 1;
  // The first throttled operation may run once the bucket is back above zero (as for a single
  // request); later ones wait at least as long (the emulator staggers them by their charges).
  int previous = retry_after;
  for (unsigned i = admitted; i < 100; ++i) {
    EXPECT_EQ(d[i]["statusCode"].GetInt(), 429) << i;
    EXPECT_EQ(d[i]["requestCharge"].GetDouble(), 0.0) << i;
    ASSERT_TRUE(d[i].HasMember("retryAfterMilliseconds") && d[i]["retryAfterMilliseconds"].IsInt()) << i;
    const int wait = d[i]["retryAfterMilliseconds"].GetInt();
    if (i == admitted) {
      EXPECT_EQ(wait, retry_after);
    }
    EXPECT_GE(wait, previous) << i;
    previous = wait;
    EXPECT_FALSE(d[i].HasMember("resourceBody"));
  }
  EXPECT_EQ(r.Charge(), json::FormatNumber(Round2(spent)));
  EXPECT_EQ(Get("/dbs/db/colls/limited/docs/d" + std::to_string(admitted), {{"x-ms-documentdb-partitionkey", R"(["a"])"}})
                .status(),
            429);  // the partition is still out of RU: reads are throttled too
  clock_.Advance(retry_after);
  EXPECT_EQ(Get("/dbs/db/colls/limited/docs/d" + std::to_string(admitted), {{"x-ms-documentdb-partitionkey", R"(["a"])"}})
                .status(),
            404);  // throttled operations were not applied
  // an atomic batch arriving at an empty bucket is throttled as a whole
  auto drain = Post("/dbs/db/colls/limited/docs", ops, BulkHeaders("0"));
  ASSERT_EQ(drain.status(), 207);
  auto atomic = Post("/dbs/db/colls/limited/docs", R"([{"operationType":"Create","resourceBody":{"id":"z","pk":"a"}}])",
                     BatchHeaders(R"(["a"])"));
  EXPECT_EQ(atomic.status(), 429) << atomic;
  EXPECT_EQ(atomic.Substatus(), "3200");
  EXPECT_EQ(atomic.Charge(), "0");
  EXPECT_TRUE(atomic.Has("x-ms-retry-after-ms"));
}

// ---- unique keys ----------------------------------------------------------------------------

class UniqueKeyHttpTest : public EmulatorTest {
 protected:
  void SetUp() override {
    MakeDatabase("db");
    MakeContainer("db", "uk", R"("uniqueKeyPolicy":{"uniqueKeys":[{"paths":["/email"]},{"paths":["/first","/last"]}]})");
  }
};

TEST_F(UniqueKeyHttpTest, PolicyIsStoredAndReturned) {
  auto r = Get("/dbs/db/colls/uk");
  ASSERT_EQ(r.status(), 200) << r;
  auto d = r.Json();
  EXPECT_EQ(json::Write(d["uniqueKeyPolicy"]), R"({"uniqueKeys":[{"paths":["/email"]},{"paths":["/first","/last"]}]})");
  auto keys = Keys(d);
  auto at = [&](const char* k) { return std::find(keys.begin(), keys.end(), k) - keys.begin(); };
  EXPECT_LT(at("partitionKey"), at("uniqueKeyPolicy"));
  EXPECT_LT(at("uniqueKeyPolicy"), at("conflictResolutionPolicy"));
}

TEST_F(UniqueKeyHttpTest, ViolationIs409WithTheServiceMessage) {
  ASSERT_EQ(CreateDoc("db", "uk", R"({"id":"1","pk":"p","email":"a@b"})", R"(["p"])").status(), 201);
  auto r = CreateDoc("db", "uk", R"({"id":"2","pk":"p","email":"a@b"})", R"(["p"])");
  EXPECT_EQ(r.status(), 409) << r;
  EXPECT_EQ(r.Code(), "Conflict");
  EXPECT_EQ(r.Message().rfind("Entity with the specified id already exists in the system.", 0), 0u) << r.Message();
  EXPECT_FALSE(r.Has("x-ms-substatus"));
  EXPECT_EQ(r.Charge(), "1.24");
  EXPECT_EQ(CreateDoc("db", "uk", R"({"id":"2","pk":"q","email":"a@b"})", R"(["q"])").status(), 201);
  // a missing value is null: one item per logical partition may lack it
  ASSERT_EQ(CreateDoc("db", "uk", R"({"id":"3","pk":"p","first":"x"})", R"(["p"])").status(), 201);
  EXPECT_EQ(CreateDoc("db", "uk", R"({"id":"4","pk":"p","email":"z","first":"x","last":null})", R"(["p"])").status(), 409);
  EXPECT_EQ(CreateDoc("db", "uk", R"({"id":"4","pk":"p","email":"z","first":"x","last":"y"})", R"(["p"])").status(), 201);
}

TEST_F(UniqueKeyHttpTest, BatchAndBulkEnforceIt) {
  // distinct /first values: items lacking /first and /last would share the composite (null, null)
  ASSERT_EQ(CreateDoc("db", "uk", R"({"id":"1","pk":"p","email":"a@b","first":"f1"})", R"(["p"])").status(), 201);
  auto r = Post("/dbs/db/colls/uk/docs",
                R"([{"operationType":"Create","resourceBody":{"id":"2","pk":"p","email":"new","first":"f2"}},)"
                R"({"operationType":"Patch","id":"1","resourceBody":{"operations":[{"op":"set","path":"/email","value":"new"}]}}])",
                BatchHeaders(R"(["p"])"));
  ASSERT_EQ(r.status(), 207) << r;
  auto d = r.Json();
  EXPECT_EQ(d[0]["statusCode"].GetInt(), 424);
  EXPECT_EQ(d[1]["statusCode"].GetInt(), 409);
  auto bulk = Post("/dbs/db/colls/uk/docs",
                   R"([{"operationType":"Create","partitionKey":"[\"p\"]","resourceBody":{"id":"3","pk":"p","email":"a@b","first":"f3"}},)"
                   R"({"operationType":"Create","partitionKey":"[\"p\"]","resourceBody":{"id":"4","pk":"p","email":"c@d","first":"f4"}}])",
                   BulkHeaders("0"));
  ASSERT_EQ(bulk.status(), 207) << bulk;
  auto b = bulk.Json();
  EXPECT_EQ(b[0]["statusCode"].GetInt(), 409);
  EXPECT_EQ(b[1]["statusCode"].GetInt(), 201);
}

TEST_F(UniqueKeyHttpTest, ReplacingThePolicyIs403) {
  const std::string kText =
      "The unique index cannot be modified. To change the unique index, remove the collection and re-create a new one.";
  for (const char* body : {R"({"id":"uk","partitionKey":{"paths":["/pk"]},"uniqueKeyPolicy":{"uniqueKeys":[{"paths":["/email"]}]}})",
                           R"({"id":"uk","partitionKey":{"paths":["/pk"]}})"}) {
    auto r = Put("/dbs/db/colls/uk", body);
    EXPECT_EQ(r.status(), 403) << body << " " << r;
    EXPECT_EQ(r.Code(), "Forbidden");
    EXPECT_NE(r.Message().find(kText), std::string::npos) << r.Message();
  }
  auto same = Put("/dbs/db/colls/uk",
                  R"({"id":"uk","partitionKey":{"paths":["/pk"]},"defaultTtl":5,)"
                  R"("uniqueKeyPolicy":{"uniqueKeys":[{"paths":["/email"]},{"paths":["/first","/last"]}]}})");
  EXPECT_EQ(same.status(), 200) << same;
}

// ---- the service's recorded batches ---------------------------------------------------------

class BatchRecordings : public RecordingTest {
 protected:
  void MakeDbimp() {
    ASSERT_EQ(Check(2).status(), 201);
    ASSERT_EQ(Check(3).status(), 201);
  }
  // Same statuses per operation and the same properties in each result as the service's answer.
  static void ExpectSameResults(const Recording& rec, const Reply& r) {
    auto theirs = rec.ResponseJson();
    auto ours = r.Json();
    ASSERT_TRUE(theirs.IsArray() && ours.IsArray()) << r;
    ASSERT_EQ(ours.Size(), theirs.Size()) << r;
    for (unsigned i = 0; i < theirs.Size(); ++i) {
      EXPECT_EQ(ours[i]["statusCode"].GetInt(), theirs[i]["statusCode"].GetInt()) << i;
      EXPECT_EQ(Keys(ours[i]), Keys(theirs[i])) << i;
      if (theirs[i].HasMember("resourceBody")) {
        EXPECT_EQ(Keys(ours[i]["resourceBody"]), Keys(theirs[i]["resourceBody"])) << i;
      }
    }
    EXPECT_EQ(r.Header("x-ms-item-count"), *rec.ResponseHeader("x-ms-item-count"));
    EXPECT_EQ(r.Charge(), json::FormatNumber(Round2(SumCharges(ours))));
  }
};

TEST_F(BatchRecordings, SuccessFailureMismatchAndNonAtomic) {
  MakeDbimp();
  for (int n : {193, 194, 197, 199}) {
    auto rec = LoadRecording(n);
    ASSERT_TRUE(rec);
    auto r = Replay(*rec);
    ExpectSameOutcome(*rec, r);
    ExpectSameResults(*rec, r);
  }
}

}  // namespace
}  // namespace cosmos::testing
