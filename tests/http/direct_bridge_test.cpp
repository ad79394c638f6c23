// Direct mode's bridge (emulator/direct/bridge.cpp) and address feed (handlers/addresses.cpp),
// in-process: RNTBD requests built by hand as the Java SDK 4.81.0 sends them (names, tokens,
// ReplicaPath from the address feed), answered through direct::Handle, the tokens checked with
// their exact wire types.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "direct/bridge.h"
#include "http_test_util.h"
#include "rntbd/constants.h"
#include "rntbd/message.h"
#include "store/partition_key.h"

namespace cosmos::testing {
namespace {

namespace rt = rntbd::request_token;
namespace st = rntbd::response_token;
namespace res = rntbd::resource;
namespace op = rntbd::operation;
using rntbd::Token;
using rntbd::TokenType;

class DirectBridgeTest : public EmulatorTest {
 protected:
  void SetUp() override {
    MakeDatabase("db");
    auto r = Post("/dbs/db/colls", R"({"id":"c","partitionKey":{"paths":["/pk"],"version":2}})",
                  {{"x-cosmos-emulator-partition-count", "2"}});
    ASSERT_EQ(r.status(), 201) << r;
    coll_rid_ = r.Str("_rid");
    db_rid_ = Get("/dbs/db").Str("_rid");
    config_.direct_port = 10253;
  }

  // The range that holds partition key `pk` (a string value).
  std::string RangeOf(const std::string& pk) {
    auto c = account_.FindDatabase("db")->FindContainer("c");
    return c->PartitionFor(store::ParsePartitionKeyHeader(c->partition_key(), "[\"" + pk + "\"]")).range_id();
  }
  uint64_t LsnOf(const std::string& range) {
    return account_.FindDatabase("db")->FindContainer("c")->PartitionById(range)->lsn();
  }
  std::string ReplicaPath(const std::string& range) const {
    return "/apps/cosmosdev/services/" + coll_rid_ + "/partitions/" + range + "/replicas/1p";
  }

  // A request as the SDK sends it: the signature of the equivalent HTTP request (verb, path),
  // its date, the replica path, and `tokens`.
  rntbd::Request Make(uint16_t type, uint16_t operation, bh::verb verb, const std::string& signed_path,
                      std::vector<Token> tokens, std::optional<std::string> body = std::nullopt,
                      const std::optional<std::string>& key = std::nullopt) const {
    rntbd::Request r;
    r.resource_type = type;
    r.operation_type = operation;
    const std::string date = Now();
    r.tokens.list.push_back(Token::String(rt::kAuthorizationToken,
                                          AuthHeader(key.value_or(config_.master_key), verb, signed_path, date)));
    r.tokens.list.push_back(Token::SmallString(rt::kDate, date));
    r.tokens.list.push_back(Token::ULong(rt::kTransportRequestID, 7));
    for (auto& t : tokens) r.tokens.list.push_back(std::move(t));
    r.body = std::move(body);
    r.tokens.list.push_back(Token::Byte(rt::kPayloadPresent, r.body ? 1 : 0));
    return r;
  }
  // The db/coll name tokens, the container's rid, the replica of `range`, and more.
  std::vector<Token> Names(const std::string& range, std::vector<Token> more = {}) const {
    std::vector<Token> out = {Token::String(rt::kDatabaseName, "db"), Token::String(rt::kCollectionName, "c"),
                              Token::String(rt::kCollectionRid, coll_rid_),
                              Token::String(rt::kReplicaPath, ReplicaPath(range))};
    for (auto& t : more) out.push_back(std::move(t));
    return out;
  }
  // A point operation on item `id` of key `pk`, addressed to the key's range.
  rntbd::Request Point(uint16_t operation, bh::verb verb, const std::string& id, const std::string& pk,
                       std::optional<std::string> body = std::nullopt, std::vector<Token> more = {}) {
    more.push_back(Token::String(rt::kDocumentName, id));
    more.push_back(Token::String(rt::kPartitionKey, "[\"" + pk + "\"]"));
    return Make(res::kDocument, operation, verb, "/dbs/db/colls/c/docs/" + util::PercentEncode(id),
                Names(RangeOf(pk), std::move(more)),
                std::move(body));
  }
  // A create-like operation (Create, Upsert) of `body` with key `pk`.
  rntbd::Request Write(uint16_t operation, const std::string& pk, const std::string& body, std::vector<Token> more = {}) {
    more.push_back(Token::String(rt::kPartitionKey, "[\"" + pk + "\"]"));
    return Make(res::kDocument, operation, bh::verb::post, "/dbs/db/colls/c/docs", Names(RangeOf(pk), std::move(more)),
                body);
  }
  using EmulatorTest::Send;  // HTTP requests, beside the RNTBD ones
  rntbd::Response Send(const rntbd::Request& r) {
    return direct::Handle(services_, r, server::Connection{true, nullptr});
  }

  static const Token* Find(const rntbd::Response& r, uint16_t id) {
    const Token* found = nullptr;
    for (const auto& t : r.tokens.list)
      if (t.id == id) found = &t;
    return found;
  }
  static std::string Str(const rntbd::Response& r, uint16_t id) {
    const Token* t = Find(r, id);
    if (!t) return "<absent>";
    EXPECT_EQ(t->type, TokenType::kString) << "token " << id;
    return t->bytes;
  }
  static int64_t Int(const rntbd::Response& r, uint16_t id, TokenType type) {
    const Token* t = Find(r, id);
    if (!t) {
      ADD_FAILURE() << "token " << id << " absent";
      return -999;
    }
    EXPECT_EQ(t->type, type) << "token " << id;
    return t->integer;
  }
  static json::Document Body(const rntbd::Response& r) {
    json::Document d;
    if (!r.body || json::Parse(*r.body, d) != json::ParseStatus::kOk) d.SetNull();
    return d;
  }
  // The tokens every answer carries (direct-mode-client.md §3.2-3.3), with LSN `lsn`.
  static void ExpectReplicaTokens(const rntbd::Response& r, int64_t lsn) {
    for (uint16_t id : {st::kLSN, st::kLocalLSN, st::kQuorumAckedLSN, st::kQuorumAckedLocalLSN, st::kGlobalCommittedLSN})
      EXPECT_EQ(Int(r, id, TokenType::kLongLong), lsn) << "token " << id;
    EXPECT_EQ(Int(r, st::kCurrentReplicaSetSize, TokenType::kULong), 1);
    EXPECT_EQ(Int(r, st::kCurrentWriteQuorum, TokenType::kULong), 1);
    EXPECT_EQ(Int(r, st::kNumberOfReadRegions, TokenType::kULong), 0);
    const Token* charge = Find(r, st::kRequestCharge);
    ASSERT_NE(charge, nullptr);
    EXPECT_EQ(charge->type, TokenType::kDouble);
    for (const auto& t : r.tokens.list) EXPECT_NE(t.type, TokenType::kULongString);
  }

  std::string db_rid_, coll_rid_;
};

TEST_F(DirectBridgeTest, CreateReadReplaceUpsertPatchDeleteByName) {
  const std::string range = RangeOf("a");
  auto created = Send(Write(op::kCreate, "a", R"({"id":"d1","pk":"a"})"));
  ASSERT_EQ(created.status, 201u) << created.body.value_or("");
  EXPECT_EQ(Body(created)["id"].GetString(), std::string("d1"));
  const int64_t lsn = static_cast<int64_t>(LsnOf(range));
  EXPECT_GE(lsn, 1);
  ExpectReplicaTokens(created, lsn);
  // The session token without its range, the range in its own token (rntbd-spec.md §7.3).
  EXPECT_EQ(Str(created, st::kSessionToken), "-1#" + std::to_string(lsn));
  EXPECT_EQ(Str(created, st::kPartitionKeyRangeId), range);
  EXPECT_EQ(Str(created, st::kOwnerId), coll_rid_);
  EXPECT_EQ(Str(created, st::kOwnerFullName), "dbs/db/colls/c");
  EXPECT_EQ(Str(created, st::kETag), Body(created)["_etag"].GetString());
  EXPECT_GT(Find(created, st::kRequestCharge)->real, 0.0);

  auto read = Send(Point(op::kRead, bh::verb::get, "d1", "a"));
  ASSERT_EQ(read.status, 200u) << read.body.value_or("");
  EXPECT_EQ(Body(read)["pk"].GetString(), std::string("a"));
  ExpectReplicaTokens(read, lsn);

  auto replaced = Send(Point(op::kReplace, bh::verb::put, "d1", "a", R"({"id":"d1","pk":"a","v":2})"));
  ASSERT_EQ(replaced.status, 200u) << replaced.body.value_or("");
  EXPECT_EQ(Body(replaced)["v"].GetInt(), 2);
  EXPECT_EQ(Int(replaced, st::kLSN, TokenType::kLongLong), lsn + 1);

  auto upserted = Send(Write(op::kUpsert, "a", R"({"id":"d2","pk":"a"})"));
  EXPECT_EQ(upserted.status, 201u) << upserted.body.value_or("");
  upserted = Send(Write(op::kUpsert, "a", R"({"id":"d2","pk":"a","v":3})"));
  EXPECT_EQ(upserted.status, 200u) << upserted.body.value_or("");

  auto patched = Send(Point(op::kPatch, bh::verb::patch, "d1", "a", R"({"operations":[{"op":"add","path":"/x","value":1}]})"));
  ASSERT_EQ(patched.status, 200u) << patched.body.value_or("");
  EXPECT_EQ(Body(patched)["x"].GetInt(), 1);

  auto deleted = Send(Point(op::kDelete, bh::verb::delete_, "d1", "a"));
  EXPECT_EQ(deleted.status, 204u) << deleted.body.value_or("");
  EXPECT_FALSE(deleted.body.has_value());
  EXPECT_EQ(Int(deleted, st::kLSN, TokenType::kLongLong), static_cast<int64_t>(LsnOf(range)));

  // ReturnPreference 1 is Prefer: return=minimal: no body.
  auto minimal = Send(Write(op::kCreate, "a", R"({"id":"d3","pk":"a"})", {Token::Byte(rt::kReturnPreference, 1)}));
  EXPECT_EQ(minimal.status, 201u);
  EXPECT_FALSE(minimal.body.has_value()) << *minimal.body;
}

TEST_F(DirectBridgeTest, NamesArePercentEncodedIntoThePath) {
  auto created = Send(Write(op::kCreate, "a", R"({"id":"a b?c%","pk":"a"})"));
  ASSERT_EQ(created.status, 201u) << created.body.value_or("");
  auto read = Send(Point(op::kRead, bh::verb::get, "a b?c%", "a"));
  EXPECT_EQ(read.status, 200u) << read.body.value_or("");
}

TEST_F(DirectBridgeTest, ARidBasedReadFindsTheItem) {
  auto created = Send(Write(op::kCreate, "a", R"({"id":"d1","pk":"a"})"));
  ASSERT_EQ(created.status, 201u);
  std::string doc_rid = Body(created)["_rid"].GetString();
  std::string b64 = doc_rid;
  for (char& ch : b64)
    if (ch == '-') ch = '/';
  auto r = Make(res::kDocument, op::kRead, bh::verb::get, "/dbs/" + db_rid_ + "/colls/" + coll_rid_ + "/docs/" + doc_rid,
                {Token{rt::kResourceId, TokenType::kBytes, 0, 0, *util::Base64Decode(b64)},
                 Token::String(rt::kPartitionKey, "[\"a\"]"), Token::String(rt::kReplicaPath, ReplicaPath(RangeOf("a")))});
  auto read = Send(r);
  ASSERT_EQ(read.status, 200u) << read.body.value_or("");
  EXPECT_EQ(Body(read)["id"].GetString(), std::string("d1"));
}

TEST_F(DirectBridgeTest, AQueryPerRangeReadsThatRangeOnly) {
  for (int i = 0; i < 20; ++i) {
    const std::string id = "q" + std::to_string(i);
    ASSERT_EQ(Send(Write(op::kCreate, id, R"({"id":")" + id + R"(","pk":")" + id + R"("})")).status, 201u);
  }
  size_t total = 0;
  for (const std::string range : {"0", "1"}) {
    auto q = Make(res::kDocument, op::kQuery, bh::verb::post, "/dbs/db/colls/c/docs",
                  Names(range, {Token::String(rt::kPartitionKeyRangeId, coll_rid_ + "," + range)}),
                  R"({"query":"SELECT * FROM c","parameters":[]})");
    auto r = Send(q);
    ASSERT_EQ(r.status, 200u) << r.body.value_or("");
    auto d = Body(r);
    for (const auto& doc : d["Documents"].GetArray()) EXPECT_EQ(RangeOf(doc["pk"].GetString()), range);
    EXPECT_EQ(Int(r, st::kItemCount, TokenType::kULong), static_cast<int64_t>(d["Documents"].Size()));
    EXPECT_EQ(Str(r, st::kPartitionKeyRangeId), range);
    ExpectReplicaTokens(r, static_cast<int64_t>(LsnOf(range)));
    total += d["Documents"].Size();
  }
  EXPECT_EQ(total, 20u);
  // SqlQuery: the body is the query's text.
  auto sql = Make(res::kDocument, op::kSqlQuery, bh::verb::post, "/dbs/db/colls/c/docs",
                  Names("0", {Token::String(rt::kPartitionKeyRangeId, "0")}), "SELECT VALUE c.id FROM c");
  auto r = Send(sql);
  ASSERT_EQ(r.status, 200u) << r.body.value_or("");
  auto d = Body(r);
  ASSERT_TRUE(d["Documents"].IsArray());
  for (const auto& id : d["Documents"].GetArray()) EXPECT_EQ(RangeOf(id.GetString()), "0");
}

TEST_F(DirectBridgeTest, AReadFeedPagesOneRange) {
  for (int i = 0; i < 10; ++i) {
    const std::string id = "f" + std::to_string(i);
    ASSERT_EQ(Send(Write(op::kCreate, id, R"({"id":")" + id + R"(","pk":")" + id + R"("})")).status, 201u);
  }
  const std::string range = RangeOf("f0");
  auto feed = Make(res::kDocument, op::kReadFeed, bh::verb::get, "/dbs/db/colls/c/docs",
                   Names(range, {Token::String(rt::kPartitionKeyRangeId, range), Token::ULong(rt::kPageSize, 1)}));
  auto r = Send(feed);
  ASSERT_EQ(r.status, 200u) << r.body.value_or("");
  EXPECT_EQ(Body(r)["Documents"].Size(), 1u);
  EXPECT_EQ(Int(r, st::kItemCount, TokenType::kULong), 1);
  EXPECT_NE(Str(r, st::kContinuationToken), "<absent>");
  // PageSize 0xFFFFFFFF is -1: every item of the range at once.
  feed = Make(res::kDocument, op::kReadFeed, bh::verb::get, "/dbs/db/colls/c/docs",
              Names(range, {Token::String(rt::kPartitionKeyRangeId, range), Token::ULong(rt::kPageSize, 0xFFFFFFFF)}));
  r = Send(feed);
  ASSERT_EQ(r.status, 200u) << r.body.value_or("");
  size_t in_range = 0;
  for (int i = 0; i < 10; ++i) in_range += RangeOf("f" + std::to_string(i)) == range;
  EXPECT_EQ(Body(r)["Documents"].Size(), in_range);
  EXPECT_EQ(Find(r, st::kContinuationToken), nullptr);
}

TEST_F(DirectBridgeTest, MasterResourcesAnswerWithAnAccountLsn) {
  // Read Database, which the Java SDK sends to the master partition with Strong forced (direct-mode-client.md
  // §2); the account is Session, and the level is left out rather than refused.
  auto read = Make(res::kDatabase, op::kRead, bh::verb::get, "/dbs/db",
                   {Token::String(rt::kDatabaseName, "db"), Token::Byte(rt::kConsistencyLevel, 0),
                    Token::String(rt::kReplicaPath, "/apps/cosmosdev/services/master/partitions/M/replicas/1p")});
  auto r = Send(read);
  ASSERT_EQ(r.status, 200u) << r.body.value_or("");
  EXPECT_EQ(Body(r)["id"].GetString(), std::string("db"));
  EXPECT_GE(Int(r, st::kLSN, TokenType::kLongLong), 1);
  EXPECT_EQ(Str(r, st::kPartitionKeyRangeId), "M");
  // ReadFeed of databases: no names, GET /dbs.
  auto feed = Make(res::kDatabase, op::kReadFeed, bh::verb::get, "/dbs",
                   {Token::String(rt::kReplicaPath, "/apps/cosmosdev/services/master/partitions/M/replicas/1p")});
  r = Send(feed);
  ASSERT_EQ(r.status, 200u) << r.body.value_or("");
  EXPECT_EQ(Body(r)["Databases"].Size(), 1u);
}

TEST_F(DirectBridgeTest, NotFoundCarriesTheRangesLsn) {
  ASSERT_EQ(Send(Write(op::kCreate, "a", R"({"id":"d1","pk":"a"})")).status, 201u);
  auto r = Send(Point(op::kRead, bh::verb::get, "missing", "a"));
  ASSERT_EQ(r.status, 404u);
  EXPECT_EQ(Body(r)["code"].GetString(), std::string("NotFound"));
  ExpectReplicaTokens(r, static_cast<int64_t>(LsnOf(RangeOf("a"))));
  EXPECT_EQ(Str(r, st::kPartitionKeyRangeId), RangeOf("a"));
  // An error carries the range's session token too (the Java client's session read drops an error
  // without one and answers 404/1002 itself).
  EXPECT_EQ(Str(r, st::kSessionToken), "-1#" + std::to_string(LsnOf(RangeOf("a"))));
}

// What the server answers on the connection's I/O thread: what the gateway answers there (a point
// read; a one-item write without triggers when writes need not wait for the disk), never a query or
// a batch, which would hold that thread.
TEST_F(DirectBridgeTest, AnswersAtOnceAsTheGatewayDoes) {
  const auto read = Point(op::kRead, bh::verb::get, "d1", "a");
  EXPECT_TRUE(direct::AnswersAtOnce(read, config_, false));
  const auto create = Write(op::kCreate, "a", R"({"id":"d1","pk":"a"})");
  EXPECT_TRUE(direct::AnswersAtOnce(create, config_, true));
  EXPECT_FALSE(direct::AnswersAtOnce(create, config_, false));
  const auto triggered = Write(op::kCreate, "a", R"({"id":"d1","pk":"a"})", {Token::String(rt::kPreTriggerInclude, "t")});
  EXPECT_FALSE(direct::AnswersAtOnce(triggered, config_, true));
  const auto query = Make(res::kDocument, op::kQuery, bh::verb::post, "/dbs/db/colls/c/docs",
                          Names(RangeOf("a"), {Token::String(rt::kPartitionKey, "[\"a\"]")}),
                          R"({"query":"SELECT * FROM c"})");
  EXPECT_FALSE(direct::AnswersAtOnce(query, config_, true));
  const auto batch = Make(res::kDocument, op::kBatch, bh::verb::post, "/dbs/db/colls/c/docs",
                          Names(RangeOf("a"), {Token::String(rt::kPartitionKey, "[\"a\"]")}), "[]");
  EXPECT_FALSE(direct::AnswersAtOnce(batch, config_, true));
}

TEST_F(DirectBridgeTest, AConflictIs409) {
  ASSERT_EQ(Send(Write(op::kCreate, "a", R"({"id":"d1","pk":"a"})")).status, 201u);
  auto r = Send(Write(op::kCreate, "a", R"({"id":"d1","pk":"a"})"));
  EXPECT_EQ(r.status, 409u);
  EXPECT_EQ(Body(r)["code"].GetString(), std::string("Conflict"));
  ExpectReplicaTokens(r, static_cast<int64_t>(LsnOf(RangeOf("a"))));
}

TEST_F(DirectBridgeTest, AWrongSignatureIs401) {
  auto r = Make(res::kDocument, op::kCreate, bh::verb::post, "/dbs/db/colls/c/docs",
                Names(RangeOf("a"), {Token::String(rt::kPartitionKey, "[\"a\"]")}), R"({"id":"d1","pk":"a"})",
                std::string("not the key"));
  auto answer = Send(r);
  EXPECT_EQ(answer.status, 401u);
  EXPECT_EQ(Body(answer)["code"].GetString(), std::string("Unauthorized"));
  // Signed for another path (the name tokens say another item).
  auto other = Point(op::kRead, bh::verb::get, "d1", "a");
  for (auto& t : other.tokens.list)
    if (t.id == rt::kDocumentName) t.bytes = "d2";
  EXPECT_EQ(Send(other).status, 401u);
}

TEST_F(DirectBridgeTest, AContainerCreatedAgainUnderItsNameIs410With1000) {
  auto r = Write(op::kCreate, "a", R"({"id":"d1","pk":"a"})");
  for (auto& t : r.tokens.list)
    if (t.id == rt::kCollectionRid) t.bytes = "AAAAAAAAAAA=";
  auto answer = Send(r);
  EXPECT_EQ(answer.status, 410u);
  EXPECT_EQ(Int(answer, st::kSubStatus, TokenType::kULong), 1000);
  EXPECT_EQ(Body(answer)["code"].GetString(), std::string("Gone"));
  // Told only to a client whose signature holds.
  auto unsigned_request = Make(res::kDocument, op::kCreate, bh::verb::post, "/dbs/db/colls/c/docs",
                               Names(RangeOf("a"), {Token::String(rt::kPartitionKey, "[\"a\"]")}),
                               R"({"id":"d1","pk":"a"})", std::string("not the key"));
  for (auto& t : unsigned_request.tokens.list)
    if (t.id == rt::kCollectionRid) t.bytes = "AAAAAAAAAAA=";
  EXPECT_EQ(Send(unsigned_request).status, 401u);
}

// A point operation at the wrong or a split range: 410/1007 (the Java client retries it after
// reading the ranges again); a request routed by range id: 410/1002.
TEST_F(DirectBridgeTest, AGoneOrWrongRangeIs410With1007ByKeyAnd1002ByRangeId) {
  // A key addressed to the range that does not hold it.
  auto wrong = Write(op::kCreate, "a", R"({"id":"d1","pk":"a"})");
  const std::string other = RangeOf("a") == "0" ? "1" : "0";
  for (auto& t : wrong.tokens.list)
    if (t.id == rt::kReplicaPath) t.bytes = ReplicaPath(other);
  auto answer = Send(wrong);
  EXPECT_EQ(answer.status, 410u);
  EXPECT_EQ(Int(answer, st::kSubStatus, TokenType::kULong), 1007);

  // A range that was split.
  const std::string range = RangeOf("a");
  ASSERT_EQ(Post("/_emulator/containers/db/c/split", R"({"partitionKeyRangeId":")" + range + R"("})").status(), 200);
  auto stale = Write(op::kCreate, "a", R"({"id":"d1","pk":"a"})");
  for (auto& t : stale.tokens.list)
    if (t.id == rt::kReplicaPath) t.bytes = ReplicaPath(range);
  answer = Send(stale);
  EXPECT_EQ(answer.status, 410u);
  EXPECT_EQ(Int(answer, st::kSubStatus, TokenType::kULong), 1007);
  EXPECT_GE(Int(answer, st::kLSN, TokenType::kLongLong), 1);
  // A query for the split range by its id: the gateway's own 410/1002.
  auto q = Make(res::kDocument, op::kQuery, bh::verb::post, "/dbs/db/colls/c/docs",
                Names(RangeOf("a"), {Token::String(rt::kPartitionKeyRangeId, range)}), R"({"query":"SELECT * FROM c"})");
  answer = Send(q);
  EXPECT_EQ(answer.status, 410u);
  EXPECT_EQ(Int(answer, st::kSubStatus, TokenType::kULong), 1002);
  // Addressed to the child that holds the key: served.
  EXPECT_EQ(Send(Write(op::kCreate, "a", R"({"id":"d1","pk":"a"})")).status, 201u);
  // A replica path this emulator never hands out (another emulator's): 410 with no substatus, so
  // the SDK reads the addresses again.
  for (const std::string foreign : {"/apps/other/services/x/partitions/0", "/replicas/1p", "not-a-path"}) {
    auto req = Write(op::kCreate, "a", R"({"id":"d2","pk":"a"})");
    for (auto& t : req.tokens.list)
      if (t.id == rt::kReplicaPath) t.bytes = foreign;
    answer = Send(req);
    EXPECT_EQ(answer.status, 410u) << foreign;
    const Token* sub = Find(answer, st::kSubStatus);
    EXPECT_TRUE(!sub || sub->integer == 0) << foreign;
  }
}

TEST_F(DirectBridgeTest, FaultRulesDropTheConnectionOrDelayTheAnswer) {
  auto rule = Post("/_emulator/faults", R"({"id":"drop","condition":{"operationType":"ReadItem"},)"
                                        R"("result":{"serverErrorType":"ConnectionClose"}})");
  ASSERT_EQ(rule.status(), 201) << rule;
  auto r = Send(Point(op::kRead, bh::verb::get, "d1", "a"));
  EXPECT_TRUE(r.drop_connection);
  ASSERT_EQ(Delete("/_emulator/faults").status(), 204);
  rule = Post("/_emulator/faults", R"({"id":"slow","condition":{"operationType":"ReadItem"},)"
                                   R"("result":{"serverErrorType":"ResponseDelay","delayMs":1500}})");
  ASSERT_EQ(rule.status(), 201) << rule;
  r = Send(Point(op::kRead, bh::verb::get, "d1", "a"));
  EXPECT_FALSE(r.drop_connection);
  EXPECT_EQ(r.delay_ms, 1500u);
  EXPECT_EQ(r.status, 404u);
}

// ---- The address feed -------------------------------------------------------------------------

class AddressFeedTest : public DirectBridgeTest {
 protected:
  // GET `target`, signed as the SDKs sign it: a read of `type` with resource id `link`.
  Reply Addresses(const std::string& target, const std::string& type, const std::string& link,
                  const std::string& key = "") {
    auto req = Build(bh::verb::get, target, "", {}, NoSignature());
    const std::string date = Now();
    req.set("x-ms-date", date);
    req.set(bh::field::authorization,
            util::PercentEncode("type=master&ver=1.0&sig=" +
                                http::Sign(key.empty() ? config_.master_key : key, "GET", {type, link}, date)));
    return Send(req);
  }
  std::string ResolveFor() const {
    return "$resolveFor=" + util::PercentEncode("dbs/" + db_rid_ + "/colls/" + coll_rid_ + "/docs");
  }
  Reply Ranges(const std::string& ids, const std::string& protocol = "rntbd") {
    return Addresses("/addresses/?" + ResolveFor() + "&$filter=protocol%20eq%20" + protocol +
                         "&$partitionKeyRangeIds=" + ids,
                     "docs", util::ToLower(coll_rid_));
  }
  static std::vector<std::string> RangeIds(const Reply& r) {
    std::vector<std::string> out;
    auto d = r.Json();
    for (const auto& a : d["Addresss"].GetArray()) out.emplace_back(a["partitionKeyRangeId"].GetString());
    return out;
  }
};

TEST_F(AddressFeedTest, OneRange) {
  auto r = Ranges("0");
  ASSERT_EQ(r.status(), 200) << r;
  auto d = r.Json();
  EXPECT_EQ(std::string(d["_rid"].GetString()), coll_rid_);
  EXPECT_EQ(d["_count"].GetInt(), 1);
  ASSERT_EQ(d["Addresss"].Size(), 1u);
  const auto& a = d["Addresss"][0];
  EXPECT_TRUE(a["isPrimary"].GetBool());
  EXPECT_EQ(std::string(a["protocol"].GetString()), "rntbd");
  EXPECT_EQ(std::string(a["physcialUri"].GetString()),
            "rntbd://localhost:10253/apps/cosmosdev/services/" + coll_rid_ + "/partitions/0/replicas/1p/");
  EXPECT_EQ(std::string(a["partitionKeyRangeId"].GetString()), "0");
  EXPECT_EQ(std::string(a["partitionIndex"].GetString()), "0");
  EXPECT_TRUE(a.HasMember("logicalUri") && a.HasMember("id") && a.HasMember("_rid"));
  // The path the SDK sends back as ReplicaPath (the URI's path without its trailing '/') is served.
  auto created = Send(Write(op::kCreate, "a", R"({"id":"d1","pk":"a"})"));
  EXPECT_EQ(created.status, 201u);
}

TEST_F(AddressFeedTest, TwoRangesAndAMissingOne) {
  auto r = Ranges("0,1");
  ASSERT_EQ(r.status(), 200) << r;
  EXPECT_EQ(RangeIds(r), (std::vector<std::string>{"0", "1"}));
  // A range that does not exist (a split parent) is left out.
  r = Ranges("1,7");
  ASSERT_EQ(r.status(), 200) << r;
  EXPECT_EQ(RangeIds(r), (std::vector<std::string>{"1"}));
  EXPECT_EQ(r.Json()["_count"].GetInt(), 1);
  ASSERT_EQ(Post("/_emulator/containers/db/c/split", R"({"partitionKeyRangeId":"0"})").status(), 200);
  r = Ranges("0");
  ASSERT_EQ(r.status(), 200) << r;
  EXPECT_TRUE(RangeIds(r).empty());
}

TEST_F(AddressFeedTest, TheMasterPartitionAsDotNetAsksForIt) {
  auto r = Addresses("//addresses/?$resolveFor=dbs&$filter=protocol%20eq%20rntbd", "dbs", "");
  ASSERT_EQ(r.status(), 200) << r;
  EXPECT_EQ(RangeIds(r), (std::vector<std::string>{"M"}));
  EXPECT_EQ(std::string(r.Json()["Addresss"][0]["physcialUri"].GetString()),
            "rntbd://localhost:10253/apps/cosmosdev/services/master/partitions/M/replicas/1p/");
}

// The gateway's port serves RNTBD too: the feed names the host and port the client reached the
// gateway at, the one port known to reach the emulator whatever maps it (a container's published
// port); the Direct port only when the gateway's port does not serve RNTBD (plain HTTP only).
TEST_F(AddressFeedTest, TheFeedNamesThePortTheClientReachedTheGatewayAtWhenItServesRntbd) {
  config_.gateway_port = "8081";
  auto uri_for = [&](const std::string& host) {
    auto req = Build(bh::verb::get, "/addresses/?" + ResolveFor() + "&$partitionKeyRangeIds=0", "", {}, NoSignature());
    req.set(bh::field::host, host);
    const std::string date = Now();
    req.set("x-ms-date", date);
    req.set(bh::field::authorization,
            util::PercentEncode("type=master&ver=1.0&sig=" +
                                http::Sign(config_.master_key, "GET", {"docs", util::ToLower(coll_rid_)}, date)));
    auto r = Send(req);
    EXPECT_EQ(r.status(), 200) << r;
    return std::string(r.Json()["Addresss"][0]["physcialUri"].GetString());
  };
  const std::string path = "/apps/cosmosdev/services/" + coll_rid_ + "/partitions/0/replicas/1p/";
  EXPECT_EQ(uri_for("localhost:32771"), "rntbd://localhost:10253" + path);  // the gateway's port has no RNTBD
  config_.direct_on_gateway_port = true;
  EXPECT_EQ(uri_for("localhost:32771"), "rntbd://localhost:32771" + path);
  EXPECT_EQ(uri_for("10.0.0.7:8081"), "rntbd://10.0.0.7:8081" + path);
  EXPECT_EQ(uri_for("localhost:8081"), "rntbd://127.0.0.1:8081" + path);
  EXPECT_EQ(uri_for("[::1]:40000"), "rntbd://[::1]:40000" + path);
  // No port: the scheme's (this fixture's requests come over plain HTTP).
  EXPECT_EQ(uri_for("cosmos.example"), "rntbd://cosmos.example:80" + path);
  // A public endpoint (--gateway-endpoint) at another port: that port.
  config_.public_scheme = "https";
  config_.public_host = "emulator.test";
  config_.public_port = "9443";
  EXPECT_EQ(uri_for("localhost:8081"), "rntbd://emulator.test:9443" + path);
}

TEST_F(AddressFeedTest, OnlyRntbdIsServedAndOnlyWithDirectModeOn) {
  auto r = Ranges("0", "https");
  EXPECT_EQ(r.status(), 400) << r;
  EXPECT_NE(r.Message().find("rntbd only"), std::string::npos) << r;
  config_.direct_port = 0;
  r = Ranges("0");
  EXPECT_EQ(r.status(), 400) << r;
  EXPECT_NE(r.Message().find("Direct mode (RNTBD) is off"), std::string::npos) << r;
}

TEST_F(AddressFeedTest, TheSignatureCoversTheContainersRid) {
  // Signed as the gateway's other paths are (resource type "addresses"): 401.
  auto r = Addresses("/addresses/?" + ResolveFor() + "&$partitionKeyRangeIds=0", "addresses", "");
  EXPECT_EQ(r.status(), 401) << r;
  r = Addresses("/addresses/?" + ResolveFor() + "&$partitionKeyRangeIds=0", "docs", util::ToLower(coll_rid_),
                "another key");
  EXPECT_EQ(r.status(), 401) << r;
  // A container that does not exist: 404.
  r = Addresses("/addresses/?$resolveFor=" + util::PercentEncode("dbs/" + db_rid_ + "/colls/AAAAAAAAAAA=/docs"),
                "docs", "aaaaaaaaaaa=");
  EXPECT_EQ(r.status(), 404) << r;
}

}  // namespace
}  // namespace cosmos::testing
