// Vector search through Handle(): the container's vector embedding policy and vector indexes
// (created and read back exactly, checked with the service's errors, fixed by a replace), and
// VectorDistance in SELECT and WHERE with the policy's distance function, the query's options and
// undefined for what is not two vectors of one length.
#include <string>
#include <vector>

#include "http_test_util.h"

namespace cosmos::testing {
namespace {

constexpr const char* kColls = "/dbs/db1/colls";

// The service escapes every '/' in these messages (path::\/v).
std::string Wrapped(const std::string& text) {
  std::string escaped;
  for (char c : text) {
    if (c == '/') escaped += '\\';
    escaped += c;
  }
  return "Message: {\"Errors\":[\"" + escaped + "\"]}";
}

constexpr const char* kPolicy =
    R"({"vectorEmbeddings":[{"path":"/e","dataType":"float32","dimensions":3,"distanceFunction":"euclidean"},)"
    R"({"path":"/d","dataType":"float32","dimensions":3,"distanceFunction":"dotproduct"}]})";

class VectorTest : public EmulatorTest {
 protected:
  void SetUp() override { MakeDatabase("db1"); }

  Reply CreateColl(const std::string& id, const std::string& extra) {
    return Post(kColls, R"({"id":")" + id + R"(","partitionKey":{"paths":["/pk"]})" + extra + "}");
  }
  std::string ErrorOf(const Reply& r) { return r.Message().substr(0, r.Message().find("\r\n")); }
  Reply Query(const std::string& coll, const std::string& text) {
    std::string body;
    json::WriteString(body, text);
    return Post(std::string(kColls) + "/" + coll + "/docs", R"({"query":)" + body + "}",
                {{"x-ms-documentdb-isquery", "True"},
                 {"content-type", "application/query+json"},
                 {"x-ms-documentdb-query-enablecrosspartition", "True"},
                 {"x-ms-documentdb-partitionkeyrangeid", "0"}});
  }
  // The Documents array of a successful page, as JSON text.
  std::string Rows(const std::string& coll, const std::string& text) {
    auto r = Query(coll, text);
    EXPECT_EQ(r.status(), 200) << text << "\n" << r;
    auto d = r.Json();
    return d.HasMember("Documents") ? json::Write(d["Documents"]) : r.body();
  }
};

TEST_F(VectorTest, PoliciesAreKeptExactlyAndSurviveAReplaceThatRepeatsThem) {
  const std::string indexes =
      R"({"vectorIndexes":[{"path":"/e","type":"flat"},)"
      R"({"path":"/d","type":"diskANN","quantizationByteSize":2,"indexingSearchListSize":50,"vectorIndexShardKey":["/pk"]}]})";
  auto r = CreateColl("c", std::string(R"(,"vectorEmbeddingPolicy":)") + kPolicy + R"(,"indexingPolicy":)" + indexes);
  ASSERT_EQ(r.status(), 201) << r;
  auto read = Get(std::string(kColls) + "/c");
  auto d = read.Json();
  EXPECT_EQ(json::Write(d["vectorEmbeddingPolicy"]), kPolicy);
  EXPECT_EQ(json::Write(d["indexingPolicy"]["vectorIndexes"]),
            R"([{"path":"/e","type":"flat"},{"path":"/d","type":"diskANN","quantizationByteSize":2,)"
            R"("indexingSearchListSize":50,"vectorIndexShardKey":["/pk"]}])");
  // A container without the policy has no such key.
  ASSERT_EQ(CreateColl("plain", "").status(), 201);
  EXPECT_FALSE(Get(std::string(kColls) + "/plain").Json().HasMember("vectorEmbeddingPolicy"));

  // A replace that sends back what it read keeps them; one that changes either is refused.
  d.RemoveMember("_rid");
  auto same = Put(std::string(kColls) + "/c", json::Write(d));
  EXPECT_EQ(same.status(), 200) << same;
  auto changed = Put(std::string(kColls) + "/c",
                     R"({"id":"c","partitionKey":{"paths":["/pk"]},"vectorEmbeddingPolicy":)" + std::string(kPolicy) +
                         R"(,"indexingPolicy":{"vectorIndexes":[{"path":"/e","type":"quantizedFlat"}]}})");
  EXPECT_EQ(changed.status(), 400) << changed;
  EXPECT_EQ(ErrorOf(changed), Wrapped("Vector Indexing Policy cannot be changed in Collection Replace"));
  auto dropped = Put(std::string(kColls) + "/c", R"({"id":"c","partitionKey":{"paths":["/pk"]}})");
  EXPECT_EQ(dropped.status(), 400) << dropped;
  EXPECT_EQ(ErrorOf(dropped), Wrapped("Vector Embedding Policy cannot be changed in Collection Replace"));
}

TEST_F(VectorTest, InvalidPoliciesAnswerTheServiceText) {
  const std::string one = R"(,"vectorEmbeddingPolicy":{"vectorEmbeddings":[)";
  struct Case {
    std::string extra;
    std::string message;
  } cases[] = {
      {R"(,"indexingPolicy":{"vectorIndexes":[{"path":"/vector1","type":"flat"}]})",
       "The Vector Indexing Policy's path::/vector1 not matching in Embedding's path."},
      {one + R"({"path":"/v","dataType":"float33","dimensions":3,"distanceFunction":"cosine"}]})",
       "The Vector Embedding Policy has an invalid DataType:float33. Supported types are float32, float16, int8 and "
       "uint8."},
      {one + R"({"path":"/v","dataType":"float32","dimensions":8000,"distanceFunction":"cosine"}]})",
       "The Vector Embedding Policy has Dimensions:8000 which is more than the maximum supported value: 4096."},
      {one + R"({"path":"/v","dataType":"float32","dimensions":-1,"distanceFunction":"cosine"}]})",
       "The Vector Embedding Policy has Dimensions:-1 which is less than the minimum supported value: 1."},
      {one + R"({"path":"/v","dataType":"float32","dimensions":3,"distanceFunction":"handMeasured"}]})",
       "The Vector Embedding Policy has an invalid DistanceFunction:handMeasured. Supported functions are cosine, "
       "dotproduct and euclidean."},
      {one + R"({"path":"/embedding/","dimensions":3}]})",
       "The Vector Embedding Policy has an invalid Path:/embedding/. Specify the correct path for vector properties "
       "of your documents."},
      {one + R"({"path":"/v","dimensions":3},{"path":"/v","dimensions":4}]})",
       "Duplicate Path :/v found in Vector Embedding Policy."},
      {one + R"({"path":"/v","dimensions":3}]},"indexingPolicy":{"vectorIndexes":[{"path":"/v","type":"notFlat"}]})",
       "Index Type::notFlat is invalid. The vector index types are flat, quantizedFlat and diskANN."},
      {one + R"({"path":"/v","dimensions":3}]},"indexingPolicy":{"vectorIndexes":[{"path":"/v","type":"flat"},)"
             R"({"path":"/v","type":"flat"}]})",
       "Duplicate Path :/v found in Vector Indexing Policy."},
      {one + R"({"path":"/v","dimensions":256}]},"indexingPolicy":{"vectorIndexes":[)"
             R"({"path":"/v","type":"quantizedFlat","quantizationByteSize":0}]})",
       "The Vector Indexing Policy parameter QuantizationByteSize value :: 0 is out of range. The allowed range is "
       "between 1 and 256."},
      {one + R"({"path":"/v","dimensions":550}]},"indexingPolicy":{"vectorIndexes":[)"
             R"({"path":"/v","type":"diskANN","quantizationByteSize":513}]})",
       "The Vector Indexing Policy parameter QuantizationByteSize value :: 513 is out of range. The allowed range is "
       "between 1 and 512."},
      {one + R"({"path":"/v","dimensions":3}]},"indexingPolicy":{"vectorIndexes":[)"
             R"({"path":"/v","type":"diskANN","indexingSearchListSize":5}]})",
       "The Vector Indexing Policy parameter IndexingSearchListSize value :: 5 is out of range. The allowed range is "
       "between 25 and 500."},
      {one + R"({"path":"/v","dimensions":3}]},"indexingPolicy":{"vectorIndexes":[)"
             R"({"path":"/v","type":"diskANN","vectorIndexShardKey":["country"]}]})",
       "The Vector Indexing Policy has an invalid Shard Path: country."},
      {one + R"({"path":"/v","dimensions":3}]},"indexingPolicy":{"vectorIndexes":[)"
             R"({"path":"/v","type":"diskANN","vectorIndexShardKey":["/a","/b","/c"]}]})",
       "The number of shard paths defined in the Vector Indexing Policy: 3 exceeds the maximum: 1."},
      {one + R"({"path":"/v","dimensions":1536}]},"indexingPolicy":{"vectorIndexes":[{"path":"/v","type":"flat"}]})",
       "The Vector Indexing Policy's path::/v has Dimensions:1536 which is more than the maximum supported value: "
       "505 for the index type flat."},
  };
  for (const auto& c : cases) {
    auto r = CreateColl("c", c.extra);
    EXPECT_EQ(r.status(), 400) << c.extra << "\n" << r;
    EXPECT_EQ(r.Code(), "BadRequest") << c.extra;
    EXPECT_EQ(ErrorOf(r), Wrapped(c.message)) << c.extra;
  }
  auto shard_text = CreateColl("c", one + R"({"path":"/v","dimensions":3}]},"indexingPolicy":{"vectorIndexes":[)"
                                          R"({"path":"/v","type":"diskANN","vectorIndexShardKey":"/pk"}]})");
  EXPECT_EQ(shard_text.status(), 400) << shard_text;
  EXPECT_EQ(ErrorOf(shard_text), "Message: {\"Errors\":[\"One of the specified inputs is invalid\"]}");
  EXPECT_EQ(Get(kColls).Header("x-ms-item-count"), "0");
}

TEST_F(VectorTest, VectorDistanceScoresWithThePolicysFunctionUnlessTheQueryNamesOne) {
  ASSERT_EQ(CreateColl("c", std::string(R"(,"vectorEmbeddingPolicy":)") + kPolicy).status(), 201);
  ASSERT_EQ(CreateDoc("db1", "c", R"({"id":"1","pk":"p","e":[3,4,0],"d":[1,2,3],"n":[1,2]})", R"(["p"])").status(), 201);
  // /e is euclidean: |[3,4,0] - [0,0,0]| = 5; /d is dotproduct: 1*1 + 2*2 + 3*3 = 14.
  EXPECT_EQ(Rows("c", "SELECT VALUE VectorDistance(c.e, [0, 0, 0]) FROM c"), "[5]");
  EXPECT_EQ(Rows("c", "SELECT VALUE VectorDistance([1, 2, 3], c.d) FROM c"), "[14]");
  // A path without a policy, and literals, are cosine: [3,4,0].[4,3,0] / 25 = 24 / 25.
  EXPECT_EQ(Rows("c", "SELECT VALUE VectorDistance(c.n, [2, 4]) FROM c"), "[1]");
  EXPECT_EQ(Rows("c", "SELECT VALUE VectorDistance([3, 4, 0], [4, 3, 0]) FROM c"), "[0.96]");
  // The query's option wins over the policy, in any case.
  EXPECT_EQ(Rows("c", "SELECT VALUE VectorDistance(c.e, [3, 4, 0], false, {'distanceFunction': 'DotProduct'}) FROM c"),
            "[25]");
  EXPECT_EQ(Rows("c", "SELECT VALUE VectorDistance(c.d, [1, 2, 3], true, {distanceFunction: 'euclidean', "
                      "dataType: 'Float32'}) FROM c"),
            "[0]");
  // Not two vectors of one length: no value.
  EXPECT_EQ(Rows("c", "SELECT VectorDistance(c.e, [1, 2]) AS a, VectorDistance(c.e, 'x') AS b, "
                      "VectorDistance(c.missing, c.e) AS m, VectorDistance([1, 'a', 3], c.e) AS s, "
                      "VectorDistance([0, 0], [0, 0]) AS z, VectorDistance([], []) AS empty FROM c"),
            "[{}]");
  // In WHERE, as a number.
  EXPECT_EQ(Rows("c", "SELECT VALUE c.id FROM c WHERE VectorDistance(c.e, [0, 0, 0]) < 6"), R"(["1"])");
  EXPECT_EQ(Rows("c", "SELECT VALUE c.id FROM c WHERE VectorDistance(c.e, [0, 0, 0]) < 5"), "[]");
}

TEST_F(VectorTest, InvalidVectorDistanceOptionsAre400) {
  ASSERT_EQ(CreateColl("c", "").status(), 201);
  struct Case {
    const char* query;
    const char* message;
  } cases[] = {
      {"SELECT VALUE VectorDistance(c.v, [1, 2], false, {distanceFunction: 'manhattan'}) FROM c",
       "The distanceFunction given to VectorDistance, \\\"manhattan\\\", is not valid: use cosine, dotproduct or "
       "euclidean."},
      {"SELECT VALUE VectorDistance(c.v, [1, 2], false, {dataType: 'float64'}) FROM c",
       "The dataType given to VectorDistance, \\\"float64\\\", is not valid: use float32, float16, int8 or uint8."},
      {"SELECT VALUE VectorDistance(c.v, [1, 2], 'yes') FROM c",
       "The third argument of VectorDistance (bruteForce) must be a boolean."},
      {"SELECT VALUE VectorDistance(c.v, [1, 2], false, 'cosine') FROM c",
       "The fourth argument of VectorDistance must be an object of options, such as {'distanceFunction': 'cosine', "
       "'dataType': 'float32'}."},
  };
  for (const auto& c : cases) {
    auto r = Query("c", c.query);
    EXPECT_EQ(r.status(), 400) << c.query << "\n" << r;
    EXPECT_EQ(ErrorOf(r), std::string("Message: {\"Errors\":[\"") + c.message + "\"]}") << c.query;
  }
}

TEST_F(VectorTest, OrderByVectorDistancePutsTheClosestFirstAndThePlanSaysSo) {
  ASSERT_EQ(CreateColl("c", std::string(R"(,"vectorEmbeddingPolicy":)") + kPolicy).status(), 201);
  for (const char* doc : {R"({"id":"a","pk":"p","e":[0,0,3],"d":[3,0,0]})", R"({"id":"b","pk":"p","e":[0,0,1],"d":[1,0,0]})",
                          R"({"id":"c","pk":"p","e":[0,0,2],"d":[2,0,0]})"})
    ASSERT_EQ(CreateDoc("db1", "c", doc, R"(["p"])").status(), 201);
  // /e is Euclidean: the smallest distance first; /d is dot product: the largest first.
  EXPECT_EQ(Rows("c", "SELECT TOP 2 VALUE c.id FROM c ORDER BY VectorDistance(c.e, [0, 0, 0])"), R"(["b","c"])");
  EXPECT_EQ(Rows("c", "SELECT TOP 2 VALUE c.id FROM c ORDER BY VectorDistance(c.d, [1, 0, 0])"), R"(["a","c"])");
  // The query's function decides; ASC or DESC written is kept.
  EXPECT_EQ(Rows("c", "SELECT TOP 3 VALUE c.id FROM c ORDER BY VectorDistance(c.e, [0, 0, 1], false, "
                      "{distanceFunction: 'dotproduct'})"),
            R"(["a","c","b"])");
  EXPECT_EQ(Rows("c", "SELECT TOP 1 VALUE c.id FROM c ORDER BY VectorDistance(c.e, [0, 0, 0]) DESC"), R"(["a"])");

  // The plan the SDKs merge by: the direction the function implies, a non-streaming ORDER BY, and the
  // rewritten query without ASC or DESC (each range sorts as the function says).
  auto plan = Post(std::string(kColls) + "/c/docs",
                   R"x({"query":"SELECT TOP 2 c.id FROM c ORDER BY VectorDistance(c.e, [0, 0, 0])"})x",
                   {{"x-ms-cosmos-is-query-plan-request", "True"}, {"content-type", "application/query+json"}});
  ASSERT_EQ(plan.status(), 200) << plan;
  auto info = plan.Json();
  const auto& qi = info["queryInfo"];
  EXPECT_EQ(json::Write(qi["orderBy"]), R"(["Ascending"])");
  EXPECT_EQ(json::Write(qi["orderByExpressions"]), R"x(["VectorDistance(c.e, [0, 0, 0])"])x");
  EXPECT_TRUE(qi["hasNonStreamingOrderBy"].GetBool());
  EXPECT_EQ(std::string(qi["rewrittenQuery"].GetString()),
            "SELECT TOP 2 c._rid, [{\"item\": VectorDistance(c.e, [0, 0, 0])}] AS orderByItems, {\"id\": c.id} AS "
            "payload\nFROM c\nWHERE ({documentdb-formattableorderbyquery-filter})\nORDER BY VectorDistance(c.e, [0, 0, 0])");
  auto dot = Post(std::string(kColls) + "/c/docs",
                  R"x({"query":"SELECT TOP 2 c.id FROM c ORDER BY VectorDistance(c.d, [1, 0, 0])"})x",
                  {{"x-ms-cosmos-is-query-plan-request", "True"}, {"content-type", "application/query+json"}});
  EXPECT_EQ(json::Write(dot.Json()["queryInfo"]["orderBy"]), R"(["Descending"])");
}

// c[@p] with @p naming the path (how the LangChain and LlamaIndex vector stores write it) resolves like
// c.e: the policy's function in SELECT, WHERE and ORDER BY, and in the plan's direction.
TEST_F(VectorTest, ABracketedParameterPathUsesThePolicysFunction) {
  ASSERT_EQ(CreateColl("c", std::string(R"(,"vectorEmbeddingPolicy":)") + kPolicy).status(), 201);
  for (const char* doc : {R"({"id":"a","pk":"p","e":[0,0,3]})", R"({"id":"b","pk":"p","e":[0,0,1]})",
                          R"({"id":"c","pk":"p","e":[3,4,0]})"})
    ASSERT_EQ(CreateDoc("db1", "c", doc, R"(["p"])").status(), 201);
  auto rows = [&](const std::string& text, const std::string& path) {
    std::string q;
    json::WriteString(q, text);
    auto r = Post(std::string(kColls) + "/c/docs",
                  R"({"query":)" + q + R"(,"parameters":[{"name":"@p","value":")" + path +
                      R"("},{"name":"@v","value":[0,0,0]}]})",
                  {{"x-ms-documentdb-isquery", "True"},
                   {"content-type", "application/query+json"},
                   {"x-ms-documentdb-partitionkey", R"(["p"])"}});
    EXPECT_EQ(r.status(), 200) << text << "\n" << r;
    if (r.status() != 200) return r.body();
    return json::Write(r.Json()["Documents"]);
  };
  // /e is Euclidean: distances 3, 1, 5 (cosine of a zero vector would have no value).
  EXPECT_EQ(rows("SELECT VALUE VectorDistance(c[@p], @v) FROM c WHERE c.id = 'c'", "e"), "[5]");
  EXPECT_EQ(rows("SELECT VALUE c.id FROM c WHERE VectorDistance(c[@p], @v) < 4", "e"), R"(["a","b"])");
  EXPECT_EQ(rows("SELECT TOP 3 VALUE c.id FROM c ORDER BY VectorDistance(c[@p], @v)", "e"), R"(["b","a","c"])");
  auto plan = Post(std::string(kColls) + "/c/docs",
                   R"x({"query":"SELECT TOP 2 c.id FROM c ORDER BY VectorDistance(c[@p], @v)","parameters":[{"name":"@p","value":"e"},{"name":"@v","value":[0,0,0]}]})x",
                   {{"x-ms-cosmos-is-query-plan-request", "True"}, {"content-type", "application/query+json"}});
  ASSERT_EQ(plan.status(), 200) << plan;
  EXPECT_EQ(json::Write(plan.Json()["queryInfo"]["orderBy"]), R"(["Ascending"])");
}

}  // namespace
}  // namespace cosmos::testing
