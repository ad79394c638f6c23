// Items through Handle(): create, upsert, read, replace, delete, read feed, preconditions, body and
// partition-key validation, sizes, charges, etags and session tokens.
#include <regex>
#include <set>
#include <thread>

#include "common/errors.h"
#include "handlers/common.h"
#include "http_test_util.h"

namespace cosmos::testing {
namespace {

constexpr const char* kDocs = "/dbs/db1/colls/c1/docs";
const std::string kPkA = R"(["a"])";
const std::regex kEtag(R"re("[0-9a-f]{8}-0000-0100-0000-[0-9a-f]{8}0000")re");

std::vector<std::string> Keys(const json::Value& v) {
  std::vector<std::string> keys;
  for (auto& m : v.GetObject()) keys.emplace_back(m.name.GetString());
  return keys;
}

// The user part of a stored body: everything before ,"_rid".
std::string UserPart(const std::string& body) {
  auto pos = body.find(",\"_rid\":");
  return pos == std::string::npos ? body : body.substr(0, pos);
}

class DocumentsTest : public EmulatorTest {
 protected:
  void SetUp() override {
    MakeDatabase("db1");
    MakeContainer("db1", "c1");
  }
  Reply Create(const std::string& body, const std::string& pk = kPkA, Headers h = {}) {
    return CreateDoc("db1", "c1", body, pk, std::move(h));
  }
  Reply Read(const std::string& id, const std::string& pk = kPkA, Headers h = {}) {
    h.emplace_back("x-ms-documentdb-partitionkey", pk);
    return Get(std::string(kDocs) + "/" + id, h);
  }
  Reply Replace(const std::string& id, const std::string& body, const std::string& pk = kPkA, Headers h = {}) {
    h.emplace_back("x-ms-documentdb-partitionkey", pk);
    return Put(std::string(kDocs) + "/" + id, body, h);
  }
  Reply Remove(const std::string& id, const std::string& pk = kPkA, Headers h = {}) {
    h.emplace_back("x-ms-documentdb-partitionkey", pk);
    return Delete(std::string(kDocs) + "/" + id, h);
  }
  Reply Upsert(const std::string& body, const std::string& pk = kPkA, const char* flag = "true") {
    return Create(body, pk, {{"x-ms-documentdb-is-upsert", flag}});
  }
  Reply Feed(Headers h = {}) { return Get(kDocs, h); }
};

// ---- create ---------------------------------------------------------------------------------

TEST_F(DocumentsTest, CreateReturnsStoredImage) {
  auto r = Create(R"({"id":"d1","pk":"a","n":1,"s":"x1"})");
  ASSERT_EQ(r.status(), 201) << r;
  auto d = r.Json();
  EXPECT_EQ(Keys(d), (std::vector<std::string>{"id", "pk", "n", "s", "_rid", "_self", "_etag", "_attachments", "_ts"}));
  EXPECT_EQ(UserPart(r.body()), R"({"id":"d1","pk":"a","n":1,"s":"x1")");
  EXPECT_STREQ(d["_rid"].GetString(), "AQBAAIAAAAEBAAAAAAAAAA==");
  EXPECT_STREQ(d["_self"].GetString(), "dbs/AQBAAA==/colls/AQBAAIAAAAE=/docs/AQBAAIAAAAEBAAAAAAAAAA==/");
  EXPECT_STREQ(d["_attachments"].GetString(), "attachments/");
  EXPECT_LE(std::llabs(d["_ts"].GetInt64() - util::UnixSeconds()), 2);
  EXPECT_EQ(r.body().size(), 240u);
  // 4.6 + 0.6 * 240/1024 + 0.38 * 5 terms (id, pk, n, s, _ts)
  EXPECT_EQ(r.Charge(), "6.64");
  EXPECT_EQ(r.Header("etag"), d["_etag"].GetString());
  EXPECT_TRUE(std::regex_match(r.Header("etag"), kEtag)) << r.Header("etag");
  EXPECT_EQ(r.Header("x-ms-session-token"), "0:-1#1");
  EXPECT_EQ(r.Header("lsn"), "1");
  EXPECT_EQ(r.Header("x-ms-content-path"), "AQBAAIAAAAE=");
  EXPECT_EQ(r.Header("x-ms-alt-content-path"), "dbs/db1/colls/c1");
  EXPECT_EQ(r.Header("x-ms-documentdb-partitionkeyrangeid"), "0");
  EXPECT_EQ(r.Header("content-type"), "application/json");

  auto second = Create(R"({"id":"d2","pk":"a"})");
  ASSERT_EQ(second.status(), 201);
  EXPECT_EQ(second.Header("x-ms-session-token"), "0:-1#2");
  EXPECT_EQ(second.Str("_rid"), "AQBAAIAAAAECAAAAAAAAAA==");
  EXPECT_NE(second.Header("etag"), r.Header("etag"));
}

// An item write builds and seals its image before it takes the partition's lock (PrepareItem) and
// only stamps it under the lock (StampItem): the rid of its sequence number in _rid and _self, the
// write's own second in _ts, a new etag; the text's length follows _ts when that has one more digit.
// The image is exactly what the one-step FinishItem builds; 413 comes from the stamp.
TEST_F(DocumentsTest, AnImageBuiltBeforeItsWriteIsStampedWithTheWritesRidTimeAndEtag) {
  util::WallClock clock(999'999'999'400);  // the second before _ts has ten digits
  http::Services s{account_, config_, limiter_, stats_, clock, &faults_};
  auto c = account_.FindDatabase("db1")->FindContainer("c1");
  ASSERT_TRUE(c);
  json::Document user;
  ASSERT_EQ(json::Parse(R"({"id":"s1","pk":"a","_rid":"dropped","n":1})", user), json::ParseStatus::kOk);
  auto prepared = handlers::PrepareItem(s, *c, handlers::DraftItem(user, kPkA, "05C1"));
  EXPECT_EQ(prepared->ts, 999'999'999);
  clock.Advance(1000);
  auto item = handlers::StampItem(s, *c, prepared, 7, 3, 2u << 20);
  const std::string rid = c->ItemRid(7);
  const std::string etag = item->body["_etag"].GetString();
  EXPECT_TRUE(std::regex_match(etag, kEtag)) << etag;
  EXPECT_EQ(etag.substr(25, 8), "3b9aca00");  // the write's second, 1,000,000,000, in hexadecimal
  const std::string want = R"({"id":"s1","pk":"a","n":1,"_rid":")" + rid + R"(","_self":")" + c->self() + "docs/" + rid +
                           R"(/","_etag":"\")" + etag.substr(1, etag.size() - 2) +
                           R"(\"","_attachments":"attachments/","_ts":1000000000})";
  EXPECT_EQ(item->Text(), want);
  EXPECT_EQ(item->size, want.size());
  EXPECT_EQ(item->ts, 1'000'000'000);
  EXPECT_EQ(item->seq, 7u);
  EXPECT_EQ(item->lsn, 3u);
  EXPECT_EQ(item->rid(), rid);
  EXPECT_EQ(item->etag(), etag);
  EXPECT_EQ(item->id(), "s1");
  EXPECT_EQ(item->pk(), kPkA);
  EXPECT_EQ(item->epk(), "05C1");
  // The one-step build: the same image but for its own etag.
  auto whole = handlers::FinishItem(s, *c, handlers::DraftItem(user, kPkA, "05C1"), 7, 3, 2u << 20);
  const std::string other = whole->body["_etag"].GetString();
  EXPECT_NE(other, etag);
  std::string expected = want;
  expected.replace(expected.find(etag.substr(1, etag.size() - 2)), etag.size() - 2, other.substr(1, other.size() - 2));
  EXPECT_EQ(whole->Text(), expected);
  // Too large for the limit: the stamp refuses it with 413, under the lock, where FinishItem did.
  auto big = handlers::PrepareItem(s, *c, handlers::DraftItem(user, kPkA, "05C1"));
  try {
    handlers::StampItem(s, *c, big, 8, 4, 100);
    ADD_FAILURE() << "a 200-byte image passed a 100-byte limit";
  } catch (const CosmosError& e) {
    EXPECT_EQ(e.status, 413);
  }
}

// Prefer: return=minimal (the Go and Rust SDKs' default on item writes): the status and headers of
// the write, etag and session token included, and no body; the charge is the same.
TEST_F(DocumentsTest, ARepeatedPropertyNameKeepsItsLastValueForFilingAndReading) {
  // The service stores such a body as sent; every SDK's reader (JavaScript's JSON.parse, Python's
  // json, .NET's readers) then takes the last value, so the item is filed under the one they read.
  auto created = Create(R"({"id":"dup","pk":"p1","n":1,"pk":"p9","nested":{"a":1,"a":{"b":2}}})", R"(["p9"])");
  ASSERT_EQ(created.status(), 201) << created;
  auto read = Read("dup", R"(["p9"])");
  ASSERT_EQ(read.status(), 200) << read;
  auto doc = read.Json();
  EXPECT_EQ(std::string(doc["pk"].GetString()), "p9");
  EXPECT_EQ(doc["nested"]["a"]["b"].GetInt(), 2);
  EXPECT_EQ(read.body().find("\"p1\""), std::string::npos) << read.body();
  EXPECT_EQ(read.body().rfind(R"({"id":"dup","pk":"p9","n":1,"nested":{"a":{"b":2}},)", 0), 0u) << read.body();
  EXPECT_EQ(Read("dup", R"(["p1"])").status(), 404);
  // Filed under the first value, it is the header that disagrees with the body.
  EXPECT_EQ(Create(R"({"id":"dup2","pk":"p1","pk":"p9"})", R"(["p1"])").status(), 400);
  auto q = Post(kDocs, R"({"query":"SELECT VALUE c.pk FROM c WHERE c.id = 'dup'"})",
                {{"x-ms-documentdb-isquery", "true"}, {"content-type", "application/query+json"},
                 {"x-ms-documentdb-partitionkey", R"(["p9"])"}});
  ASSERT_EQ(q.status(), 200) << q;
  EXPECT_EQ(q.Json()["Documents"][0].GetString(), std::string("p9"));
}

TEST_F(DocumentsTest, PreferReturnMinimalAnswersNoBody) {
  const Headers minimal{{"Prefer", "return=minimal"}};
  auto created = Create(R"({"id":"m1","pk":"a","n":1})", kPkA, minimal);
  ASSERT_EQ(created.status(), 201) << created;
  EXPECT_EQ(created.body(), "");
  EXPECT_TRUE(std::regex_match(created.Header("etag"), kEtag)) << created.Header("etag");
  EXPECT_EQ(created.Header("x-ms-session-token"), "0:-1#1");
  EXPECT_EQ(created.Charge(), Create(R"({"id":"m2","pk":"a","n":1})").Charge());
  auto read = Read("m1");
  ASSERT_EQ(read.status(), 200);
  EXPECT_EQ(read.Header("etag"), created.Header("etag"));

  auto replaced = Replace("m1", R"({"id":"m1","pk":"a","n":2})", kPkA, minimal);
  EXPECT_EQ(replaced.status(), 200) << replaced;
  EXPECT_EQ(replaced.body(), "");
  EXPECT_EQ(replaced.Header("etag"), Read("m1").Header("etag"));
  auto upserted = Create(R"({"id":"m3","pk":"a"})", kPkA, {{"x-ms-documentdb-is-upsert", "true"}, {"prefer", "RETURN=MINIMAL"}});
  EXPECT_EQ(upserted.status(), 201) << upserted;
  EXPECT_EQ(upserted.body(), "");
  auto patched = Patch(std::string(kDocs) + "/m1", R"({"operations":[{"op":"set","path":"/n","value":3}]})",
                       {{"x-ms-documentdb-partitionkey", kPkA}, {"Prefer", "return=minimal"}});
  EXPECT_EQ(patched.status(), 200) << patched;
  EXPECT_EQ(patched.body(), "");
  EXPECT_EQ(Read("m1").Json()["n"].GetInt(), 3);
  // return=representation, or no Prefer, answers the image.
  auto full = Replace("m1", R"({"id":"m1","pk":"a","n":4})", kPkA, {{"Prefer", "return=representation"}});
  EXPECT_EQ(full.Json()["n"].GetInt(), 4);
  // Errors keep their bodies.
  auto conflict = Create(R"({"id":"m1","pk":"a"})", kPkA, minimal);
  EXPECT_EQ(conflict.status(), 409);
  EXPECT_EQ(conflict.Code(), "Conflict");
}

// A query that names no partition but whose filter fixes the partition key runs whole on that
// logical partition, ORDER BY included (the Go SDK's TestSinglePartitionQueryInline); without
// the filter the gateway still answers 400/1004 with the plan.
TEST_F(DocumentsTest, QueryPinnedByItsFilterIsServedByTheGateway) {
  for (int i = 0; i < 6; ++i) {
    const std::string pk = i % 2 ? "b" : "a";
    ASSERT_EQ(CreateDoc("db1", "c1", R"({"id":"i)" + std::to_string(5 - i) + R"(","pk":")" + pk + "\"}", "[\"" + pk + "\"]").status(), 201);
  }
  const Headers cross{{"x-ms-documentdb-isquery", "True"}, {"x-ms-documentdb-query-enablecrosspartition", "True"},
                      {"content-type", "application/query+json"}};
  auto r = Post(kDocs, R"({"query":"SELECT VALUE c.id FROM c WHERE c.pk = 'a' ORDER BY c.id"})", cross);
  ASSERT_EQ(r.status(), 200) << r;
  EXPECT_NE(r.body().find(R"("Documents":["i1","i3","i5"])"), std::string::npos) << r.body();
  r = Post(kDocs, R"({"query":"SELECT VALUE COUNT(1) FROM c WHERE c.pk = @p","parameters":[{"name":"@p","value":"b"}]})", cross);
  ASSERT_EQ(r.status(), 200) << r;
  EXPECT_NE(r.body().find(R"("Documents":[3])"), std::string::npos) << r.body();
  r = Post(kDocs, R"({"query":"SELECT VALUE c.id FROM c ORDER BY c.id"})", cross);
  EXPECT_EQ(r.status(), 400) << r;
  EXPECT_EQ(r.Substatus(), "1004");
  r = Post(kDocs, R"({"query":"SELECT VALUE c.id FROM c WHERE c.pk IN ('a', 'b') ORDER BY c.id"})", cross);
  EXPECT_EQ(r.status(), 400) << r;
  EXPECT_EQ(r.Substatus(), "1004");
  // Pinned by its filter, it needs no x-ms-documentdb-query-enablecrosspartition either; a query
  // over every partition still does.
  const Headers plain{{"x-ms-documentdb-isquery", "True"}, {"content-type", "application/query+json"}};
  r = Post(kDocs, R"({"query":"SELECT VALUE c.id FROM c WHERE c.pk = @pk","parameters":[{"name":"@pk","value":"b"}]})", plain);
  ASSERT_EQ(r.status(), 200) << r;
  EXPECT_NE(r.body().find(R"("Documents":["i4","i2","i0"])"), std::string::npos) << r.body();
  r = Post(kDocs, R"({"query":"SELECT VALUE c.id FROM c"})", plain);
  EXPECT_EQ(r.status(), 400) << r;
  EXPECT_NE(r.Message().find("Cross partition query is required but disabled"), std::string::npos) << r;
}

// A body in Cosmos binary JSON (the Rust SDK's default for create, replace and upsert; captured
// from azure_data_cosmos 1.1.0-beta.1) is taken as its text would be; a malformed one answers 400.
TEST_F(DocumentsTest, CosmosBinaryBodiesAreTakenAsText) {
  const std::string binary(
      "\x80\xed\x17\x04\x82\x69\x64\x82\x62\x31\x82\x70\x6b\x81\x61\x81\x6e\x07\x81\x73\x86\x68\xc3\xa9"
      "\x6c\x6c\x6f",
      27);
  auto created = Create(binary, kPkA, {{"x-ms-cosmos-supported-serialization-formats", "CosmosBinary"}});
  ASSERT_EQ(created.status(), 201) << created;
  EXPECT_EQ(UserPart(created.body()), R"({"id":"b1","pk":"a","n":7,"s":"héllo")");
  EXPECT_EQ(created.Charge(), Create(R"({"id":"b2","pk":"a","n":7,"s":"héllo"})").Charge());
  EXPECT_EQ(UserPart(Read("b1").body()), R"({"id":"b1","pk":"a","n":7,"s":"héllo")");
  auto replaced = Replace("b1", binary);
  EXPECT_EQ(replaced.status(), 200) << replaced;
  auto upserted = Upsert(binary);
  EXPECT_EQ(upserted.status(), 200) << upserted;
  auto cut = Create(binary.substr(0, 20));
  EXPECT_EQ(cut.status(), 400) << cut;
  EXPECT_EQ(cut.Code(), "BadRequest");
}

TEST_F(DocumentsTest, ClientSystemPropertiesAreReplaced) {
  auto r = Create(R"({"_ts":5,"id":"d1","_rid":"x","pk":"a","_etag":"y","_self":"z","_attachments":"w","_custom":1})");
  ASSERT_EQ(r.status(), 201) << r;
  EXPECT_EQ(Keys(r.Json()),
            (std::vector<std::string>{"id", "pk", "_custom", "_rid", "_self", "_etag", "_attachments", "_ts"}));
  EXPECT_EQ(r.Str("_rid"), "AQBAAIAAAAEBAAAAAAAAAA==");
  EXPECT_EQ(r.Str("_etag"), r.Header("etag"));
}

TEST_F(DocumentsTest, PropertyOrderNumbersAndStringsAreKept) {
  const std::string user =
      R"({"id":"nums","pk":"a","i64":9007199254740993,"u64":18446744073709551615,"i64min":-9223372036854775808,)"
      R"("ovr":18446744073709551616,"huge":123456789012345678901234567890,"dec":0.1000000000000000055511151231257827,)"
      R"("one":1.0,"negzero":-0.0,"big":1.7976931348623157e308,"tiny":5e-324,"under":1e-400,)"
      R"("frac":12345678901234567890.123,"s":"a\u0000b\u001f\"\\é\u2028","zeta":{"b":[true,false,null],"a":{}}})";
  auto r = Create(user);
  ASSERT_EQ(r.status(), 201) << r;
  const std::string expected =
      R"({"id":"nums","pk":"a","i64":9007199254740993,"u64":18446744073709551615,"i64min":-9223372036854775808,)"
      R"("ovr":18446744073709552000,"huge":1.2345678901234568e+29,"dec":0.1,"one":1,"negzero":0,)"
      R"("big":1.7976931348623157e+308,"tiny":5e-324,"under":0,"frac":12345678901234567000,)"
      "\"s\":\"a\\u0000b\\u001f\\\"\\\\é\u2028\",\"zeta\":{\"b\":[true,false,null],\"a\":{}}";
  EXPECT_EQ(UserPart(r.body()), expected);
  EXPECT_EQ(UserPart(Read("nums").body()), expected);
}

TEST_F(DocumentsTest, CreateConflictIs409PerLogicalPartition) {
  ASSERT_EQ(Create(R"({"id":"d1","pk":"a"})").status(), 201);
  auto dup = Create(R"({"id":"d1","pk":"a","other":1})");
  EXPECT_EQ(dup.status(), 409);
  EXPECT_EQ(dup.Code(), "Conflict");
  EXPECT_EQ(dup.Charge(), "1.24");
  EXPECT_FALSE(dup.Has("x-ms-substatus"));
  EXPECT_EQ(Create(R"({"id":"d1","pk":"b"})", R"(["b"])").status(), 201);
  EXPECT_EQ(Create(R"({"id":"D1","pk":"a"})").status(), 201);  // ids are case-sensitive
  EXPECT_EQ(UserPart(Read("d1").body()), R"({"id":"d1","pk":"a")");
}

TEST_F(DocumentsTest, MissingContainerOrDatabaseIs404) {
  auto r = CreateDoc("db1", "nope", R"({"id":"d1","pk":"a"})", kPkA);
  EXPECT_EQ(r.status(), 404);
  EXPECT_EQ(r.Code(), "NotFound");
  EXPECT_EQ(CreateDoc("nodb", "c1", R"({"id":"d1","pk":"a"})", kPkA).status(), 404);
  EXPECT_EQ(Get("/dbs/db1/colls/nope/docs/d1", {{"x-ms-documentdb-partitionkey", kPkA}}).status(), 404);
  EXPECT_EQ(Get("/dbs/db1/colls/nope/docs").status(), 404);
}

// ---- body validation ------------------------------------------------------------------------

TEST_F(DocumentsTest, MalformedBodiesAre400) {
  for (const std::string& body :
       {std::string(R"({"id":)"), std::string("[1]"), std::string(R"("str")"), std::string("null"),
        std::string(R"({"id":"d1","pk":"a"} x)"), std::string(R"({"id":"d1","pk":"a","e":1e400})"),
        std::string("{\"id\":\"\xff\"}"), std::string(R"({"id":"d1","pk":"a","n":NaN})")}) {
    auto r = Create(body);
    EXPECT_EQ(r.status(), 400) << body;
    EXPECT_EQ(r.Code(), "BadRequest") << body;
    EXPECT_EQ(r.Charge(), "1.24") << body;
    EXPECT_FALSE(r.Has("x-ms-substatus")) << body;
    EXPECT_EQ(r.Message().rfind("Message: {\"Errors\":[\"The request payload is invalid. Ensure to provide a valid "
                                "request payload.\"]}\r\nActivityId: ",
                                0),
              0u)
        << r.Message();
  }
}

TEST_F(DocumentsTest, IdValidation) {
  auto missing = Create(R"({"pk":"a"})");
  EXPECT_EQ(missing.status(), 400);
  EXPECT_EQ(missing.Code(), "BadRequest");
  EXPECT_EQ(missing.Charge(), "1.24");
  EXPECT_EQ(missing.Message().rfind("Message: {\"Errors\":[\"The input content is invalid because the required "
                                    "properties - 'id; ' - are missing.\"]}",
                                    0),
            0u)
      << missing.Message();
  EXPECT_EQ(Create(R"({"id":null,"pk":"a"})").status(), 400);
  EXPECT_EQ(Create(R"({"id":1,"pk":"a"})").status(), 400);
  auto empty = Create(R"({"id":"","pk":"a"})");
  EXPECT_EQ(empty.status(), 400);
  EXPECT_EQ(empty.Code(), "BadRequest");
  EXPECT_NE(empty.Message().find("is invalid."), std::string::npos) << empty.Message();
  // Database and container names refuse '/', '\', '?' and '#'; item ids do not.
  for (const char* bad : {"a/b", "a?b", "a#b", "a\\\\b"}) {
    auto r = Post("/dbs", std::string("{\"id\":\"") + bad + "\"}");
    EXPECT_EQ(r.status(), 400) << bad;
    EXPECT_NE(r.Message().find("is invalid."), std::string::npos) << r.Message();
  }
  // Item ids: up to 1,023 bytes (databases and containers: 255 characters).
  auto too_long = Create("{\"id\":\"" + std::string(1024, 'x') + "\",\"pk\":\"a\"}");
  EXPECT_EQ(too_long.status(), 400);
  EXPECT_EQ(too_long.Code(), "BadRequest");
  EXPECT_EQ(too_long.Charge(), "1.24");
  EXPECT_NE(too_long.Message().find("exceeds the maximum length of 1023 bytes."), std::string::npos)
      << too_long.Message();
  EXPECT_EQ(Create("{\"id\":\"" + std::string(1023, 'x') + "\",\"pk\":\"a\"}").status(), 201);
  EXPECT_EQ(Create("{\"id\":\"" + std::string(256, 'y') + "\",\"pk\":\"a\"}").status(), 201);
  std::string accented;  // 512 characters, 1,024 bytes
  for (int i = 0; i < 512; ++i) accented += "é";
  EXPECT_EQ(Create("{\"id\":\"" + accented + "\",\"pk\":\"a\"}").status(), 400);
  EXPECT_EQ(Create("{\"id\":\"" + accented.substr(2) + "\",\"pk\":\"a\"}").status(), 201);
  // Characters that are fine in an id, addressed percent-encoded.
  ASSERT_EQ(Create(R"({"id":"a b+c%é","pk":"a"})").status(), 201);
  auto read = Get(std::string(kDocs) + "/a%20b+c%25%C3%A9", {{"x-ms-documentdb-partitionkey", kPkA}});
  EXPECT_EQ(read.status(), 200) << read;
  EXPECT_EQ(read.Str("id"), "a b+c%é");
}

// What the service's gateway does with ids it creates but cannot address in a path (Microsoft's Go
// SDK emulator tests, TestItemIdEncodingRoutingGW): '?' (sent as %3F) works throughout; '/', '\',
// '#', a trailing blank and a percent escape answer 401 on point operations; CR, LF and tab 400.
TEST_F(DocumentsTest, IdsTheGatewayCannotAddress) {
  const Headers pk{{"x-ms-documentdb-partitionkey", kPkA}};
  ASSERT_EQ(Create(R"({"id":"Disallowed?Chars","pk":"a"})").status(), 201);
  EXPECT_EQ(Get(std::string(kDocs) + "/Disallowed%3FChars", pk).status(), 200);
  EXPECT_EQ(Put(std::string(kDocs) + "/Disallowed%3FChars", R"({"id":"Disallowed?Chars","pk":"a","n":1})", pk).status(), 200);
  EXPECT_EQ(Delete(std::string(kDocs) + "/Disallowed%3FChars", pk).status(), 204);
  const std::vector<std::pair<std::string, std::string>> unaddressable{
      {"Disallowed/Chars", "Disallowed%2FChars"}, {"Disallowed\\\\Chars", "Disallowed%5CChars"},
      {"Disallowed#Chars", "Disallowed%23Chars"}, {"Test ", "Test%20"}, {"Test  ", "Test%20%20"},
      {"Ending%20", "Ending%2520"}, {"Special%E9%B1%80", "Special%25E9%25B1%2580"}, {"%41%20", "%2541%2520"}};
  for (const auto& [id, path] : unaddressable) {
    auto created = Create("{\"id\":\"" + id + "\",\"pk\":\"a\"}");
    ASSERT_EQ(created.status(), 201) << id << created;
    for (auto verb : {bh::verb::get, bh::verb::put, bh::verb::delete_}) {
      std::string body = verb == bh::verb::put ? created.body() : "";
      auto r = Call(verb, std::string(kDocs) + "/" + path, body, pk);
      EXPECT_EQ(r.status(), 401) << id << " " << verb << r;
      EXPECT_EQ(r.Code(), "Unauthorized") << r;
    }
  }
  for (const std::string id : {"With\\rCarriageReturn", "With\\tTab", "With\\nLineFeed"}) {
    ASSERT_EQ(Create("{\"id\":\"" + id + "\",\"pk\":\"a\"}").status(), 201) << id;
  }
  for (const char* path : {"With%0DCarriageReturn", "With%09Tab", "With%0ALineFeed"}) {
    auto r = Get(std::string(kDocs) + "/" + path, pk);
    EXPECT_EQ(r.status(), 400) << path << r;
  }
  // Leading and inner blanks, '%' that starts no escape and escapes that decode to no UTF-8 text
  // (left as they are) are addressed as usual.
  for (const auto& [id, path] : std::vector<std::pair<std::string, std::string>>{
           {" Lead", "%20Lead"}, {"in ner", "in%20ner"}, {"100%", "100%25"}, {"per%cent", "per%25cent"}}) {
    ASSERT_EQ(Create("{\"id\":\"" + id + "\",\"pk\":\"a\"}").status(), 201) << id;
    EXPECT_EQ(Get(std::string(kDocs) + "/" + path, pk).status(), 200) << id;
  }
}

// The SQL compute endpoint (--compute-port; the Windows emulator's /EnableSqlComputeEndpoint, which
// TestItemIdEncodingComputeGW drives) reads, replaces and deletes every id the gateway cannot address.
TEST_F(DocumentsTest, TheComputeEndpointAddressesEveryId) {
  compute_endpoint_ = true;
  const Headers pk{{"x-ms-documentdb-partitionkey", kPkA}};
  const std::vector<std::pair<std::string, std::string>> ids{
      {"Disallowed/Chars", "Disallowed%2FChars"}, {"Disallowed\\\\Chars", "Disallowed%5CChars"},
      {"Disallowed#Chars", "Disallowed%23Chars"}, {"Test ", "Test%20"}, {"Test  ", "Test%20%20"},
      {"Ending%20", "Ending%2520"}, {"Special%E9%B1%80", "Special%25E9%25B1%2580"},
      {"With\\rCarriageReturn", "With%0DCarriageReturn"}, {"With\\tTab", "With%09Tab"},
      {"With\\nLineFeed", "With%0ALineFeed"}, {"Disallowed?Chars", "Disallowed%3FChars"}};
  for (const auto& [id, path] : ids) {
    auto created = Create("{\"id\":\"" + id + "\",\"pk\":\"a\"}");
    ASSERT_EQ(created.status(), 201) << id << created;
    auto read = Get(std::string(kDocs) + "/" + path, pk);
    EXPECT_EQ(read.status(), 200) << id << read;
    EXPECT_EQ(std::string(read.Json()["id"].GetString()), std::string(created.Json()["id"].GetString())) << id;
    EXPECT_EQ(Put(std::string(kDocs) + "/" + path, created.body(), pk).status(), 200) << id;
    EXPECT_EQ(Delete(std::string(kDocs) + "/" + path, pk).status(), 204) << id;
    EXPECT_EQ(Get(std::string(kDocs) + "/" + path, pk).status(), 404) << id;
  }
}

TEST_F(DocumentsTest, NestingDepth) {
  // The item object is level 1: 127 more levels are fine, 128 more are too deep.
  auto doc = [](int arrays) {
    return R"({"id":"deep","pk":"a","v":)" + std::string(static_cast<size_t>(arrays), '[') +
           std::string(static_cast<size_t>(arrays), ']') + "}";
  };
  auto ok = Create(doc(127));
  EXPECT_EQ(ok.status(), 201) << ok.Message();
  auto deep = Create(doc(128));
  EXPECT_EQ(deep.status(), 400);
  EXPECT_EQ(deep.Code(), "BadRequest");
  EXPECT_EQ(deep.Charge(), "1.24");
  EXPECT_NE(deep.Message().find("the JSON nesting depth exceeds the maximum of 128."), std::string::npos)
      << deep.Message();
  auto huge = Create(R"({"id":"deep2","pk":"a","v":)" + std::string(100000, '[') + std::string(100000, ']') + "}");
  EXPECT_EQ(huge.status(), 400);
}

TEST_F(DocumentsTest, BodiesOver2MBAre413) {
  const size_t limit = 2 * 1024 * 1024;
  const std::string prefix = R"({"id":"big","pk":"a","s":")";
  std::string over = prefix + std::string(limit, 'x') + "\"}";
  auto r = Create(over);
  EXPECT_EQ(r.status(), 413);
  EXPECT_EQ(r.Code(), "RequestEntityTooLarge");
  EXPECT_EQ(r.Charge(), "0");
  EXPECT_NE(r.Message().find("Request size is too large."), std::string::npos);
  // Fits as a request, but not once the system properties are added.
  std::string edge = prefix + std::string(limit - prefix.size() - 2, 'x') + "\"}";
  ASSERT_EQ(edge.size(), limit);
  EXPECT_EQ(Create(edge).status(), 413);
  // Comfortably under the limit.
  std::string fits = prefix + std::string(limit - 1024, 'x') + "\"}";
  auto created = Create(fits);
  EXPECT_EQ(created.status(), 201);
  EXPECT_EQ(Replace("big", over).status(), 413);
  EXPECT_EQ(Read("big").status(), 200);
}

// ---- partition keys -------------------------------------------------------------------------

TEST_F(DocumentsTest, PartitionKeyMismatchIs400With1001) {
  auto r = Create(R"({"id":"m1","pk":"a"})", R"(["zzz"])");
  EXPECT_EQ(r.status(), 400);
  EXPECT_EQ(r.Substatus(), "1001");
  EXPECT_EQ(r.Code(), "BadRequest");
  EXPECT_EQ(r.Charge(), "1.24");
  EXPECT_EQ(r.Message().rfind("Message: {\"Errors\":[\"PartitionKey extracted from document doesn't match the one "
                              "specified in the header.\"]}",
                              0),
            0u)
      << r.Message();
  EXPECT_EQ(Create(R"({"id":"m2"})").Substatus(), "1001");                     // document lacks the key
  EXPECT_EQ(Create(R"({"id":"m3","pk":null})").Substatus(), "1001");           // null is not None
  EXPECT_EQ(Create(R"({"id":"m4","pk":5})", R"(["5"])").Substatus(), "1001");  // 5 is not "5"
  EXPECT_EQ(Replace("m1", R"({"id":"m1","pk":"b"})").Substatus(), "1001");
}

TEST_F(DocumentsTest, MissingOrMalformedPartitionKeyHeaderIs400With1001) {
  auto missing = Post(kDocs, R"({"id":"m2","pk":"a"})");
  EXPECT_EQ(missing.status(), 400);
  EXPECT_EQ(missing.Substatus(), "1001");
  EXPECT_EQ(missing.Charge(), "0");
  EXPECT_EQ(missing.Message().rfind("Message: {\"Errors\":[\"The partition key supplied in x-ms-partitionkey header "
                                    "has fewer components than defined in the the collection.\"]}",
                                    0),
            0u)
      << missing.Message();
  auto read_missing = Get(std::string(kDocs) + "/d1");
  EXPECT_EQ(read_missing.status(), 400);
  EXPECT_EQ(read_missing.Substatus(), "1001");
  EXPECT_EQ(read_missing.Charge(), "0");
  for (const char* bad : {"abc", "\"a\"", "[]", R"(["a","b"])", "[[1]]", R"([{"x":1}])"}) {
    auto r = Create(R"({"id":"m5","pk":"a"})", bad);
    EXPECT_EQ(r.status(), 400) << bad;
    EXPECT_EQ(r.Substatus(), "1001") << bad;
    EXPECT_EQ(r.Code(), "BadRequest") << bad;
  }
}

TEST_F(DocumentsTest, EquivalentKeysAddressTheSameItem) {
  ASSERT_EQ(Create(R"({"id":"n","pk":5})", "[5]").status(), 201);
  EXPECT_EQ(Read("n", "[5.0]").status(), 200);
  EXPECT_EQ(Read("n", "[5e0]").status(), 200);
  EXPECT_EQ(Read("n", R"(["5"])").status(), 404);
  ASSERT_EQ(Create(R"({"id":"none"})", "[{}]").status(), 201);
  EXPECT_EQ(Read("none", "[{}]").status(), 200);
  EXPECT_EQ(Read("none", "[null]").status(), 404);
  ASSERT_EQ(Create("{\"id\":\"u\",\"pk\":\"é\"}", R"(["\u00e9"])").status(), 201);
  EXPECT_EQ(Read("u", "[\"é\"]").status(), 200);
}

TEST_F(DocumentsTest, SystemKeyContainerNeedsNoHeader) {
  ASSERT_EQ(Post("/dbs/db1/colls", R"({"id":"nokey"})").status(), 201);
  auto r = Post("/dbs/db1/colls/nokey/docs", R"({"id":"d1","x":1})");
  ASSERT_EQ(r.status(), 201) << r;
  EXPECT_EQ(Get("/dbs/db1/colls/nokey/docs/d1").status(), 200);
  EXPECT_EQ(Get("/dbs/db1/colls/nokey/docs/d1", {{"x-ms-documentdb-partitionkey", "[]"}}).status(), 200);
  EXPECT_EQ(Get("/dbs/db1/colls/nokey/docs/d1", {{"x-ms-documentdb-partitionkey", "[{}]"}}).status(), 200);
}

TEST_F(DocumentsTest, HierarchicalPartitionKey) {
  MakeContainer("db1", "h", "", R"({"paths":["/t","/u"],"kind":"MultiHash","version":2})");
  auto ok = CreateDoc("db1", "h", R"({"id":"1","t":"x","u":1})", R"(["x",1])");
  ASSERT_EQ(ok.status(), 201) << ok;
  auto partial = CreateDoc("db1", "h", R"({"id":"2","t":"x","u":1})", R"(["x"])");
  EXPECT_EQ(partial.status(), 400);
  EXPECT_EQ(partial.Substatus(), "1001");
  EXPECT_EQ(CreateDoc("db1", "h", R"({"id":"3","t":"x"})", R"(["x",{}])").status(), 201);
  EXPECT_EQ(CreateDoc("db1", "h", R"({"id":"4","t":"x","u":2})", R"(["x",1])").Substatus(), "1001");
  EXPECT_EQ(Get("/dbs/db1/colls/h/docs/1", {{"x-ms-documentdb-partitionkey", R"(["x",1])"}}).status(), 200);
  EXPECT_EQ(Get("/dbs/db1/colls/h/docs/1", {{"x-ms-documentdb-partitionkey", R"(["x",2])"}}).status(), 404);
}

// ---- read -----------------------------------------------------------------------------------

TEST_F(DocumentsTest, Read) {
  auto created = Create(R"({"id":"d1","pk":"a","n":1,"s":"x1"})");
  ASSERT_EQ(created.status(), 201);
  Create(R"({"id":"other","pk":"a"})");
  auto r = Read("d1");
  ASSERT_EQ(r.status(), 200) << r;
  EXPECT_EQ(r.body(), created.body());
  EXPECT_EQ(r.Charge(), "1");
  EXPECT_EQ(r.Header("etag"), created.Header("etag"));
  EXPECT_EQ(r.Header("x-ms-session-token"), "0:-1#2");  // the partition's current LSN
  EXPECT_EQ(r.Header("x-ms-content-path"), "AQBAAIAAAAE=");

  auto missing = Read("nope");
  EXPECT_EQ(missing.status(), 404);
  EXPECT_EQ(missing.Code(), "NotFound");
  EXPECT_EQ(missing.Charge(), "1");
  EXPECT_EQ(Read("d1", R"(["b"])").status(), 404);
}

TEST_F(DocumentsTest, ReadChargeGrowsWithSize) {
  // 100 KB item: 1 + 0.1 * (KB - 1).
  const std::string prefix = R"({"id":"big","pk":"a","s":")";
  auto created = Create(prefix + std::string(100 * 1024, 'x') + "\"}");
  ASSERT_EQ(created.status(), 201);
  const double kb = static_cast<double>(created.body().size()) / 1024.0;
  EXPECT_EQ(created.body().size(), 102633u);
  EXPECT_EQ(Read("big").Charge(), "10.92");
  EXPECT_NEAR(1 + 0.1 * (kb - 1), 10.92, 0.005);
}

TEST_F(DocumentsTest, StrongAccountDoublesReads) {
  config_.consistency = "Strong";
  ASSERT_EQ(Create(R"({"id":"d1","pk":"a"})").status(), 201);
  EXPECT_EQ(Read("d1").Charge(), "2");
  EXPECT_EQ(Read("d1", kPkA, {{"x-ms-consistency-level", "Strong"}}).Charge(), "2");
  EXPECT_EQ(Read("d1", kPkA, {{"x-ms-consistency-level", "Session"}}).Charge(), "1");
  EXPECT_EQ(Read("d1", kPkA, {{"x-ms-consistency-level", "Eventual"}}).Charge(), "1");
  EXPECT_EQ(Read("nope").Charge(), "1");
}

TEST_F(DocumentsTest, IfNoneMatch) {
  auto created = Create(R"({"id":"d1","pk":"a"})");
  const std::string etag = created.Header("etag");
  auto same = Read("d1", kPkA, {{"if-none-match", etag}});
  EXPECT_EQ(same.status(), 304);
  EXPECT_EQ(same.body(), "");
  EXPECT_EQ(same.Header("etag"), etag);
  EXPECT_EQ(same.Charge(), "1");
  EXPECT_EQ(same.Header("x-ms-session-token"), "0:-1#1");
  EXPECT_EQ(Read("d1", kPkA, {{"if-none-match", "*"}}).status(), 304);
  auto changed = Read("d1", kPkA, {{"if-none-match", "\"00000000-0000-0000-0000-000000000000\""}});
  EXPECT_EQ(changed.status(), 200);
  EXPECT_EQ(changed.body(), created.body());
  ASSERT_EQ(Replace("d1", R"({"id":"d1","pk":"a","v":2})").status(), 200);
  EXPECT_EQ(Read("d1", kPkA, {{"if-none-match", etag}}).status(), 200);
}

// ---- replace --------------------------------------------------------------------------------

TEST_F(DocumentsTest, Replace) {
  auto created = Create(R"({"id":"d1","pk":"a","n":1,"s":"x1"})");
  auto r = Replace("d1", R"({"id":"d1","pk":"a","n":5,"s":"y"})");
  ASSERT_EQ(r.status(), 200) << r;
  EXPECT_EQ(UserPart(r.body()), R"({"id":"d1","pk":"a","n":5,"s":"y")");
  EXPECT_EQ(r.Str("_rid"), created.Str("_rid"));
  EXPECT_NE(r.Header("etag"), created.Header("etag"));
  EXPECT_EQ(r.Header("etag"), r.Str("_etag"));
  EXPECT_EQ(r.Header("x-ms-session-token"), "0:-1#2");
  EXPECT_EQ(r.body().size(), 239u);
  EXPECT_EQ(r.Charge(), "12.28");  // 1.85 * (4.6 + 0.6 * 239/1024 + 0.38 * 5)
  EXPECT_EQ(Read("d1").body(), r.body());
}

TEST_F(DocumentsTest, ReplaceErrors) {
  auto created = Create(R"({"id":"d1","pk":"a"})");
  auto missing = Replace("nope", R"({"id":"nope","pk":"a"})");
  EXPECT_EQ(missing.status(), 404);
  EXPECT_EQ(missing.Code(), "NotFound");
  EXPECT_EQ(Replace("d1", R"({"pk":"a"})").status(), 400);
  EXPECT_EQ(Replace("d1", R"({"id":"d1","pk":"a")").status(), 400);
  EXPECT_EQ(Read("d1").body(), created.body());
}

TEST_F(DocumentsTest, ReplaceWithAnotherIdRenamesTheItem) {
  // The service renames an item whose replace body names another id (Microsoft's Python SDK tests,
  // run against it, replace "1<uuid>" with a body "2<uuid>" and expect success; .NET's Resource.Id
  // "is not immutable"). The item keeps its rid and place; its old id is gone; a taken id is 409.
  auto created = Create(R"({"id":"d1","pk":"a","n":1})");
  ASSERT_EQ(Create(R"({"id":"d3","pk":"a"})").status(), 201);
  auto renamed = Replace("d1", R"({"id":"d2","pk":"a","n":2})");
  ASSERT_EQ(renamed.status(), 200) << renamed;
  EXPECT_EQ(UserPart(renamed.body()), R"({"id":"d2","pk":"a","n":2)");
  EXPECT_EQ(renamed.Str("_rid"), created.Str("_rid"));
  EXPECT_EQ(renamed.Header("x-ms-session-token"), "0:-1#3");
  EXPECT_EQ(Read("d1").status(), 404);
  EXPECT_EQ(Read("d2").body(), renamed.body());
  auto taken = Replace("d2", R"({"id":"d3","pk":"a","n":3})");
  EXPECT_EQ(taken.status(), 409) << taken;
  EXPECT_EQ(taken.Code(), "Conflict");
  EXPECT_EQ(Read("d2").body(), renamed.body());
  // The read feed holds it once, under its new id, in its old place (before d3).
  auto feed = Feed();
  ASSERT_EQ(feed.status(), 200) << feed;
  EXPECT_EQ(feed.Json()["_count"].GetInt(), 2);
  EXPECT_EQ(std::string(feed.Json()["Documents"][0]["id"].GetString()), "d2");
  // The old id may be created again, as a new item.
  auto again = Create(R"({"id":"d1","pk":"a"})");
  EXPECT_EQ(again.status(), 201) << again;
  EXPECT_NE(again.Str("_rid"), created.Str("_rid"));
  // Renamed back, and deleted under its new name.
  EXPECT_EQ(Replace("d2", R"({"id":"d4","pk":"a"})").status(), 200);
  EXPECT_EQ(Remove("d4").status(), 204);
  EXPECT_EQ(Read("d4").status(), 404);
  EXPECT_EQ(Read("d2").status(), 404);
}

TEST_F(DocumentsTest, RenameKeepsItsOwnUniqueKeyValues) {
  ASSERT_EQ(Post("/dbs/db1/colls",
                 R"({"id":"u","partitionKey":{"paths":["/pk"],"kind":"Hash"},"uniqueKeyPolicy":{"uniqueKeys":[{"paths":["/email"]}]}})")
                .status(),
            201);
  ASSERT_EQ(CreateDoc("db1", "u", R"({"id":"a","pk":"a","email":"x@y"})", kPkA).status(), 201);
  ASSERT_EQ(CreateDoc("db1", "u", R"({"id":"b","pk":"a","email":"z@y"})", kPkA).status(), 201);
  auto own = Put("/dbs/db1/colls/u/docs/a", R"({"id":"a2","pk":"a","email":"x@y"})",
                 {{"x-ms-documentdb-partitionkey", kPkA}});
  EXPECT_EQ(own.status(), 200) << own;
  auto others = Put("/dbs/db1/colls/u/docs/a2", R"({"id":"a3","pk":"a","email":"z@y"})",
                    {{"x-ms-documentdb-partitionkey", kPkA}});
  EXPECT_EQ(others.status(), 409) << others;
}

TEST_F(DocumentsTest, IfMatch) {
  auto created = Create(R"({"id":"d1","pk":"a"})");
  const std::string etag = created.Header("etag");
  auto stale = Replace("d1", R"({"id":"d1","pk":"a","v":1})", kPkA, {{"if-match", "\"stale\""}});
  EXPECT_EQ(stale.status(), 412);
  EXPECT_EQ(stale.Code(), "PreconditionFailed");
  EXPECT_EQ(stale.Charge(), "1.24");
  EXPECT_NE(stale.Message().find("Operation cannot be performed because one of the specified precondition is not met."),
            std::string::npos);
  auto ok = Replace("d1", R"({"id":"d1","pk":"a","v":1})", kPkA, {{"if-match", etag}});
  ASSERT_EQ(ok.status(), 200) << ok;
  EXPECT_EQ(Replace("d1", R"({"id":"d1","pk":"a","v":2})", kPkA, {{"if-match", etag}}).status(), 412);
  EXPECT_EQ(Replace("d1", R"({"id":"d1","pk":"a","v":3})", kPkA, {{"if-match", "*"}}).status(), 200);
  EXPECT_EQ(Remove("d1", kPkA, {{"if-match", etag}}).status(), 412);
  EXPECT_EQ(Upsert(R"({"id":"d1","pk":"a","v":4})", kPkA, "true").status(), 200);
  auto upsert_stale =
      Create(R"({"id":"d1","pk":"a","v":5})", kPkA, {{"x-ms-documentdb-is-upsert", "true"}, {"if-match", etag}});
  EXPECT_EQ(upsert_stale.status(), 412);
  auto current = Read("d1");
  EXPECT_EQ(UserPart(current.body()), R"({"id":"d1","pk":"a","v":4)");
  EXPECT_EQ(Remove("d1", kPkA, {{"if-match", current.Header("etag")}}).status(), 204);
}

// ---- upsert ---------------------------------------------------------------------------------

TEST_F(DocumentsTest, Upsert) {
  auto first = Upsert(R"({"id":"f1","pk":"a"})");
  EXPECT_EQ(first.status(), 201) << first;
  EXPECT_EQ(first.body().size(), 225u);
  EXPECT_EQ(first.Charge(), "5.87");  // create: 4.6 + 0.6 * 225/1024 + 0.38 * 3
  auto second = Upsert(R"({"id":"f1","pk":"a"})", kPkA, "True");
  EXPECT_EQ(second.status(), 200) << second;
  EXPECT_EQ(second.Charge(), "10.86");  // replace: 1.85 * create
  EXPECT_EQ(second.Str("_rid"), first.Str("_rid"));
  EXPECT_NE(second.Header("etag"), first.Header("etag"));
  EXPECT_EQ(second.Header("x-ms-session-token"), "0:-1#2");
  // Without the header (or with false) it is a create.
  EXPECT_EQ(Upsert(R"({"id":"f1","pk":"a"})", kPkA, "false").status(), 409);
}

// ---- delete ---------------------------------------------------------------------------------

TEST_F(DocumentsTest, Delete) {
  ASSERT_EQ(Create(R"({"id":"d1","pk":"a","n":1,"s":"x1"})").status(), 201);
  auto r = Remove("d1");
  EXPECT_EQ(r.status(), 204);
  EXPECT_EQ(r.body(), "");
  EXPECT_EQ(r.Charge(), "6.64");  // create charge of the stored image
  EXPECT_EQ(r.Header("x-ms-session-token"), "0:-1#2");
  EXPECT_FALSE(r.Has("content-type"));
  EXPECT_EQ(Read("d1").status(), 404);
  auto again = Remove("d1");
  EXPECT_EQ(again.status(), 404);
  EXPECT_EQ(again.Code(), "NotFound");
  EXPECT_EQ(Remove("d1", R"(["b"])").status(), 404);
  // The id can be used again.
  EXPECT_EQ(Create(R"({"id":"d1","pk":"a"})").status(), 201);
}

// ---- TTL ------------------------------------------------------------------------------------

TEST_F(DocumentsTest, ItemTtlValidation) {
  MakeContainer("db1", "ttl", R"("defaultTtl":-1)");
  for (const char* bad : {"0", "-2", "1.5", "\"10\"", "true"}) {
    auto r = CreateDoc("db1", "ttl", std::string(R"({"id":"t","pk":"a","ttl":)") + bad + "}", kPkA);
    EXPECT_EQ(r.status(), 400) << bad;
    EXPECT_EQ(r.Code(), "BadRequest") << bad;
  }
  EXPECT_EQ(CreateDoc("db1", "ttl", R"({"id":"t1","pk":"a","ttl":-1})", kPkA).status(), 201);
  EXPECT_EQ(CreateDoc("db1", "ttl", R"({"id":"t2","pk":"a","ttl":3600})", kPkA).status(), 201);
  EXPECT_EQ(CreateDoc("db1", "ttl", R"({"id":"t3","pk":"a","ttl":null})", kPkA).status(), 400);  // as the service
  EXPECT_EQ(Get("/dbs/db1/colls/ttl/docs/t2", {{"x-ms-documentdb-partitionkey", kPkA}}).status(), 200);
}

// An item's time to live counts from its write to the millisecond, not from its whole-second _ts
// (the JS SDK's ttl.spec.ts reads an item 7 s after writing it with a ttl of 8 and expects it
// there, which the service passes): written at x.950 s with a ttl of 8, it is still there at
// _ts + 8 and until x.950 + 8, and gone from then on, in reads, queries and the read feed.
TEST_F(DocumentsTest, ItemTtlCountsFromTheWriteToTheMillisecond) {
  MakeContainer("db1", "ttlms", R"("defaultTtl":-1)");
  wall_.Advance((950 - wall_.UnixMs() % 1000 + 1000) % 1000);  // now at x.950
  auto w = CreateDoc("db1", "ttlms", R"({"id":"t","pk":"a","ttl":8})", kPkA);
  ASSERT_EQ(w.status(), 201) << w;
  const int64_t ts = w.Json()["_ts"].GetInt64();
  EXPECT_EQ(ts, wall_.UnixSeconds());  // _ts stays the whole second
  const Headers in_a{{"x-ms-documentdb-partitionkey", kPkA}};
  auto count = [&] {  // what a query finds
    auto q = Post("/dbs/db1/colls/ttlms/docs", R"({"query":"SELECT * FROM c"})",
                  {{"x-ms-documentdb-isquery", "true"}, {"content-type", "application/query+json"},
                   {"x-ms-documentdb-partitionkey", kPkA}});
    EXPECT_EQ(q.status(), 200) << q;
    auto d = q.Json();
    return d.IsObject() && d.HasMember("Documents") ? static_cast<int>(d["Documents"].Size()) : -1;
  };
  wall_.Advance(8000 - 950);  // _ts + 8: the write was 7.05 s ago
  ASSERT_EQ(wall_.UnixSeconds(), ts + 8);
  EXPECT_EQ(Get("/dbs/db1/colls/ttlms/docs/t", in_a).status(), 200);
  EXPECT_EQ(count(), 1);
  wall_.Advance(949);  // 7.999 s after the write
  EXPECT_EQ(Get("/dbs/db1/colls/ttlms/docs/t", in_a).status(), 200);
  EXPECT_EQ(Get("/dbs/db1/colls/ttlms/docs").Json()["_count"].GetInt(), 1);
  wall_.Advance(1);  // 8 s after the write
  EXPECT_EQ(Get("/dbs/db1/colls/ttlms/docs/t", in_a).status(), 404);
  EXPECT_EQ(count(), 0);
  EXPECT_EQ(Get("/dbs/db1/colls/ttlms/docs").Json()["_count"].GetInt(), 0);
}

// ---- read feed ------------------------------------------------------------------------------

TEST_F(DocumentsTest, EmptyFeed) {
  auto r = Feed();
  ASSERT_EQ(r.status(), 200) << r;
  EXPECT_EQ(r.body(), R"({"_rid":"AQBAAIAAAAE=","Documents":[],"_count":0})");
  EXPECT_EQ(r.Header("x-ms-item-count"), "0");
  EXPECT_EQ(r.Charge(), "2.7");
  EXPECT_FALSE(r.Has("x-ms-continuation"));
  EXPECT_EQ(r.Header("x-ms-session-token"), "0:-1#0");
}

TEST_F(DocumentsTest, FeedPagingWithContinuation) {
  for (int i = 1; i <= 5; ++i) {
    ASSERT_EQ(Create("{\"id\":\"f" + std::to_string(i) + "\",\"pk\":\"a\"}").status(), 201);
  }
  std::vector<std::string> ids;
  auto page1 = Feed({{"x-ms-max-item-count", "2"}});
  ASSERT_EQ(page1.status(), 200) << page1;
  EXPECT_EQ(page1.Header("x-ms-item-count"), "2");
  EXPECT_EQ(page1.Header("x-ms-continuation"), "0:2");
  EXPECT_EQ(page1.Charge(), "2.93");  // 2.7 + 0.1 * 2 + 0.068 * 2 * 225/1024
  auto d1 = page1.Json();
  EXPECT_EQ(Keys(d1), (std::vector<std::string>{"_rid", "Documents", "_count"}));
  EXPECT_EQ(d1["_count"].GetInt(), 2);
  for (auto& doc : d1["Documents"].GetArray()) ids.emplace_back(doc["id"].GetString());
  EXPECT_EQ(json::Write(d1["Documents"][0]), Read("f1").body());

  auto page2 = Feed({{"x-ms-max-item-count", "2"}, {"x-ms-continuation", "0:2"}});
  ASSERT_EQ(page2.status(), 200) << page2;
  EXPECT_EQ(page2.Header("x-ms-continuation"), "0:4");
  auto d2 = page2.Json();
  for (auto& doc : d2["Documents"].GetArray()) ids.emplace_back(doc["id"].GetString());

  auto page3 = Feed({{"x-ms-max-item-count", "2"}, {"x-ms-continuation", "0:4"}});
  ASSERT_EQ(page3.status(), 200) << page3;
  EXPECT_FALSE(page3.Has("x-ms-continuation"));
  EXPECT_EQ(page3.Header("x-ms-item-count"), "1");
  EXPECT_EQ(page3.Charge(), "2.81");
  auto d3 = page3.Json();
  for (auto& doc : d3["Documents"].GetArray()) ids.emplace_back(doc["id"].GetString());
  EXPECT_EQ(ids, (std::vector<std::string>{"f1", "f2", "f3", "f4", "f5"}));

  auto all = Feed();
  EXPECT_EQ(all.Header("x-ms-item-count"), "5");
  EXPECT_EQ(all.Charge(), "3.27");
  EXPECT_FALSE(all.Has("x-ms-continuation"));
  EXPECT_EQ(Feed({{"x-ms-max-item-count", "-1"}}).Header("x-ms-item-count"), "5");
  // Exactly a page's worth: no continuation.
  EXPECT_FALSE(Feed({{"x-ms-max-item-count", "5"}}).Has("x-ms-continuation"));
}

TEST_F(DocumentsTest, FeedReflectsUpdatesAndDeletes) {
  for (const char* id : {"c", "a", "b"}) Create(std::string("{\"id\":\"") + id + "\",\"pk\":\"a\"}");
  Replace("c", R"({"id":"c","pk":"a","v":2})");
  Remove("a");
  auto d = Feed().Json();
  ASSERT_EQ(d["Documents"].Size(), 2u);
  EXPECT_STREQ(d["Documents"][0]["id"].GetString(), "c");
  EXPECT_EQ(d["Documents"][0]["v"].GetInt(), 2);
  EXPECT_STREQ(d["Documents"][1]["id"].GetString(), "b");
}

TEST_F(DocumentsTest, FeedFilteredByPartitionKey) {
  Create(R"({"id":"1","pk":"a"})");
  Create(R"({"id":"2","pk":"b"})", R"(["b"])");
  Create(R"({"id":"3","pk":"a"})");
  Create(R"({"id":"4","pk":"b"})", R"(["b"])");
  auto b = Feed({{"x-ms-documentdb-partitionkey", R"(["b"])"}});
  ASSERT_EQ(b.status(), 200) << b;
  auto d = b.Json();
  ASSERT_EQ(d["Documents"].Size(), 2u);
  EXPECT_STREQ(d["Documents"][0]["id"].GetString(), "2");
  EXPECT_STREQ(d["Documents"][1]["id"].GetString(), "4");
  auto page = Feed({{"x-ms-documentdb-partitionkey", R"(["a"])"}, {"x-ms-max-item-count", "1"}});
  EXPECT_EQ(page.Json()["Documents"][0]["id"].GetString(), std::string("1"));
  ASSERT_TRUE(page.Has("x-ms-continuation"));
  auto next = Feed({{"x-ms-documentdb-partitionkey", R"(["a"])"},
                    {"x-ms-max-item-count", "1"},
                    {"x-ms-continuation", page.Header("x-ms-continuation")}});
  EXPECT_EQ(next.Json()["Documents"][0]["id"].GetString(), std::string("3"));
  EXPECT_EQ(Feed({{"x-ms-documentdb-partitionkey", "abc"}}).Substatus(), "1001");
}

TEST_F(DocumentsTest, FeedErrors) {
  EXPECT_EQ(Feed({{"x-ms-max-item-count", "0"}}).status(), 200);  // 0: the default page size
  for (const char* bad : {"-2", "abc", "1x"}) {
    auto r = Feed({{"x-ms-max-item-count", bad}});
    EXPECT_EQ(r.status(), 400) << bad;
    EXPECT_EQ(r.Code(), "BadRequest") << bad;
  }
  for (const char* bad : {"garbage", "1:2", "0:", "0:x"}) {
    auto r = Feed({{"x-ms-continuation", bad}});
    EXPECT_EQ(r.status(), 400) << bad;
    EXPECT_EQ(r.Code(), "BadRequest") << bad;
    EXPECT_NE(r.Message().find("Invalid Continuation Token"), std::string::npos) << r.Message();
  }
}

// ---- concurrency ----------------------------------------------------------------------------

TEST_F(DocumentsTest, ConcurrentWritesAreAllApplied) {
  constexpr int kThreads = 4;
  constexpr int kPerThread = 25;
  std::vector<std::vector<Reply>> replies(kThreads);
  // Requests are built (and signed) up front; Handle() itself runs concurrently.
  std::vector<std::vector<http::Request>> requests(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    for (int i = 0; i < kPerThread; ++i) {
      const std::string id = "t" + std::to_string(t) + "-" + std::to_string(i);
      requests[t].push_back(Build(bh::verb::post, kDocs, "{\"id\":\"" + id + "\",\"pk\":\"a\"}",
                                  {{"x-ms-documentdb-partitionkey", kPkA}}));
    }
    requests[t].push_back(Build(bh::verb::post, kDocs, R"({"id":"shared","pk":"a","t":)" + std::to_string(t) + "}",
                                {{"x-ms-documentdb-partitionkey", kPkA}, {"x-ms-documentdb-is-upsert", "true"}}));
  }
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (auto& req : requests[t]) replies[t].push_back(Send(req));
    });
  }
  for (auto& th : threads) th.join();
  std::set<std::string> tokens;
  std::set<std::string> etags;
  int created = 0;
  for (auto& list : replies) {
    for (auto& r : list) {
      EXPECT_TRUE(r.status() == 201 || r.status() == 200) << r;
      created += r.status() == 201;
      tokens.insert(r.Header("x-ms-session-token"));
      etags.insert(r.Header("etag"));
    }
  }
  const int writes = kThreads * (kPerThread + 1);
  EXPECT_EQ(created, kThreads * kPerThread + 1);  // one upsert created "shared", the others replaced it
  EXPECT_EQ(tokens.size(), static_cast<size_t>(writes));
  EXPECT_EQ(etags.size(), static_cast<size_t>(writes));
  EXPECT_EQ(tokens.count("0:-1#" + std::to_string(writes)), 1u);
  EXPECT_EQ(Feed({{"x-ms-max-item-count", "-1"}}).Header("x-ms-item-count"), std::to_string(kThreads * kPerThread + 1));
}

}  // namespace
}  // namespace cosmos::testing
