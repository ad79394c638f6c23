// /_emulator/faults and the faults it injects, through the in-process pipeline (docs/faults.md).
#include <gtest/gtest.h>

#include "http_test_util.h"
#include "server/server.h"

namespace cosmos::testing {
namespace {

class FaultsTest : public EmulatorTest {
 protected:
  void SetUp() override {
    MakeDatabase("db");
    auto r = Post("/dbs/db/colls", R"({"id":"c","partitionKey":{"paths":["/pk"],"version":2}})",
                  {{"x-cosmos-emulator-partition-count", "2"}});
    ASSERT_EQ(r.status(), 201) << r;
  }
  Reply AddRule(const std::string& rule) { return Post("/_emulator/faults", rule); }
  Reply ReadDoc(const std::string& id) {
    return Get("/dbs/db/colls/c/docs/" + id, {{"x-ms-documentdb-partitionkey", "[\"" + id + "\"]"}});
  }
};

TEST_F(FaultsTest, TheEndpointNeedsAMasterKeyAndKeepsTheRules) {
  const std::string rule = R"({"id":"r1","condition":{"operationType":"ReadItem"},"result":{"serverErrorType":"Timeout"}})";
  EXPECT_EQ(Call(bh::verb::get, "/_emulator/faults", "", {}, NoSignature()).status(), 401);
  EXPECT_EQ(Call(bh::verb::post, "/_emulator/faults", rule, {}, NoSignature()).status(), 401);
  auto added = AddRule(rule);
  ASSERT_EQ(added.status(), 201) << added;
  EXPECT_EQ(added.body(), rule);
  auto list = Get("/_emulator/faults");
  ASSERT_EQ(list.status(), 200);
  EXPECT_EQ(list.body(), R"({"rules":[{"id":"r1","condition":{"operationType":"ReadItem"},"result":{"serverErrorType":"Timeout"},"hits":0,"active":true}]})");
  auto bad = AddRule(R"({"id":"r2","result":{"serverErrorType":"Sometimes"}})");
  EXPECT_EQ(bad.status(), 400);
  EXPECT_NE(bad.body().find("Fault rule 'r2': unknown serverErrorType 'Sometimes'"), std::string::npos) << bad;
  EXPECT_EQ(Post("/_emulator/faults", "[").status(), 400);
  auto missing = Delete("/_emulator/faults/none");
  EXPECT_EQ(missing.status(), 404);
  EXPECT_NE(missing.body().find("There is no fault rule 'none'."), std::string::npos);
  EXPECT_EQ(Delete("/_emulator/faults/r1").status(), 204);
  EXPECT_EQ(Get("/_emulator/faults").body(), R"({"rules":[]})");
  AddRule(rule);
  EXPECT_EQ(Delete("/_emulator/faults").status(), 204);
  EXPECT_EQ(Get("/_emulator/faults").body(), R"({"rules":[]})");
  EXPECT_EQ(Call(bh::verb::put, "/_emulator/faults", rule).status(), 405);
}

TEST_F(FaultsTest, A429AsTheServiceSendsIt_CountedInTheRuReport) {
  ASSERT_EQ(CreateDoc("db", "c", R"({"id":"a","pk":"a"})", "[\"a\"]").status(), 201);
  ASSERT_EQ(AddRule(R"({"id":"busy","condition":{"operationType":"ReadItem","path":"/dbs/db/colls/c/**"},
                        "result":{"serverErrorType":"TooManyRequests","retryAfterMs":120},"hitLimit":2})")
                .status(),
            201);
  for (int i = 0; i < 2; ++i) {
    auto r = ReadDoc("a");
    ASSERT_EQ(r.status(), 429) << r;
    EXPECT_EQ(r.Substatus(), "3200");
    EXPECT_EQ(r.Header("x-ms-retry-after-ms"), "120");
    EXPECT_EQ(r.Charge(), "0");
    auto body = r.Json();
    EXPECT_EQ(std::string(body["code"].GetString()), "TooManyRequests");
    EXPECT_EQ(std::string(body["message"].GetString()).rfind(errors::TooManyRequests(0).what(), 0), 0u);
  }
  EXPECT_EQ(ReadDoc("a").status(), 200);  // the hit limit reached
  auto stats = Get("/_emulator/stats").Json();
  const auto& read = stats["containers"][0]["operations"][1];
  ASSERT_EQ(std::string(read["operation"].GetString()), "read");
  EXPECT_EQ(read["requests"].GetUint64(), 3u);
  EXPECT_EQ(read["throttled"].GetUint64(), 2u);
  EXPECT_EQ(read["injectedFaults"].GetUint64(), 2u);
  EXPECT_EQ(stats["containers"][0]["total"]["injectedFaults"].GetUint64(), 2u);
  EXPECT_NE(Get("/_emulator/faults").body().find(R"("hits":2,"active":false)"), std::string::npos);
}

TEST_F(FaultsTest, RulesNameARangeAndTheItemsRoutedThereFail) {
  ASSERT_EQ(AddRule(R"({"id":"r","condition":{"operationType":"CreateItem","partitionKeyRangeId":"1"},
                        "result":{"serverErrorType":"PartitionIsGone"}})")
                .status(),
            201);
  int gone = 0, created = 0;
  for (int i = 0; i < 20; ++i) {
    const std::string id = "k" + std::to_string(i);
    auto r = CreateDoc("db", "c", "{\"id\":\"" + id + "\",\"pk\":\"" + id + "\"}", "[\"" + id + "\"]");
    if (r.status() == 410) {
      ++gone;
      EXPECT_EQ(r.Substatus(), "1002");
      EXPECT_EQ(std::string(r.Json()["code"].GetString()), "Gone");
      // Nothing was written.
      EXPECT_EQ(ReadDoc(id).status(), 404);
    } else {
      ASSERT_EQ(r.status(), 201) << r;
      EXPECT_EQ(r.Header("x-ms-documentdb-partitionkeyrangeid"), "0");
      ++created;
    }
  }
  EXPECT_GT(gone, 0);
  EXPECT_GT(created, 0);
}

TEST_F(FaultsTest, MetadataRequestsDelaysAndDroppedConnections) {
  ASSERT_EQ(AddRule(R"({"id":"ranges","condition":{"operationType":"MetadataPartitionKeyRange"},
                        "result":{"serverErrorType":"ServiceUnavailable"},"hitLimit":1})")
                .status(),
            201);
  auto r = Get("/dbs/db/colls/c/pkranges");
  EXPECT_EQ(r.status(), 503);
  EXPECT_EQ(std::string(r.Json()["code"].GetString()), "ServiceUnavailable");
  EXPECT_EQ(r.Substatus(), "");
  EXPECT_EQ(Get("/dbs/db/colls/c/pkranges").status(), 200);

  // A delay: the request runs, the answer carries the wait for the server.
  AddRule(R"({"id":"slow","condition":{"operationType":"CreateItem"},"result":{"serverErrorType":"ResponseDelay","delayMs":250}})");
  auto slow = CreateDoc("db", "c", R"({"id":"s","pk":"s"})", "[\"s\"]");
  EXPECT_EQ(slow.status(), 201);
  EXPECT_EQ(slow.Header(server::kDelayMsHeader), "250");
  EXPECT_EQ(ReadDoc("s").status(), 200);
  EXPECT_EQ(ReadDoc("s").Header(server::kDelayMsHeader), "");

  // A dropped connection: nothing runs, the server is told to close without an answer.
  AddRule(R"({"id":"drop","condition":{"operationType":"DeleteItem"},"result":{"serverErrorType":"ConnectionClose"}})");
  auto dropped = Delete("/dbs/db/colls/c/docs/s", {{"x-ms-documentdb-partitionkey", "[\"s\"]"}});
  EXPECT_EQ(dropped.Header(server::kDropHeader), "1");
  EXPECT_EQ(ReadDoc("s").status(), 200);
}

}  // namespace
}  // namespace cosmos::testing
