// Replays the real service's recordings that the foundation covers and compares status,
// substatus, error code, and (where the emulator uses the service's flat charges) the charge.
// Body checks compare property order and values, never activity ids, rids, etags or timestamps.
#include <regex>

#include "recording_util.h"

namespace cosmos::testing {
namespace {

std::vector<std::string> Keys(const json::Value& v) {
  std::vector<std::string> keys;
  if (!v.IsObject()) return keys;
  for (auto& m : v.GetObject()) keys.emplace_back(m.name.GetString());
  return keys;
}

bool IsSystem(const std::string& name) {
  return name == "_rid" || name == "_self" || name == "_etag" || name == "_attachments" || name == "_ts";
}

// The user properties of a recorded item, as JSON text in their order (input for a create).
std::string UserBody(const json::Value& item) {
  json::Document d;
  d.CopyFrom(item, d.GetAllocator());
  for (const char* k : {"_rid", "_self", "_etag", "_attachments", "_ts"}) d.RemoveMember(k);
  return json::Write(d);
}

// The text of one property value in a compact body ("" when absent).
std::string ValueText(const json::Value& item, const char* name) {
  return item.HasMember(name) ? json::Write(item[name]) : std::string();
}

// Same properties in the same order, user values equal by value.
void ExpectSameItem(const json::Value& recorded, const json::Value& ours) {
  ASSERT_TRUE(ours.IsObject());
  EXPECT_EQ(Keys(ours), Keys(recorded));
  for (auto& m : recorded.GetObject()) {
    const std::string name = m.name.GetString();
    if (IsSystem(name)) continue;
    ASSERT_TRUE(ours.HasMember(m.name)) << name;
    EXPECT_TRUE(json::Equal(m.value, ours[m.name]))
        << name << ": recorded " << json::Write(m.value) << ", ours " << json::Write(ours[m.name]);
  }
}

class RealServiceRecordings : public RecordingTest {
 protected:
  // The account state the recordings start from: database dbimp_it with shared throughput (002)
  // and container kv partitioned on /pk (003).
  void MakeDbimp() {
    auto db = Check(2, /*charge=*/true);
    ASSERT_EQ(db.status(), 201) << db;
    auto kv = Check(3, /*charge=*/true);
    ASSERT_EQ(kv.status(), 201) << kv;
  }
  Reply CreateInKv(const std::string& body, const std::string& pk) { return CreateDoc("dbimp_it", "kv", body, pk); }

  // Stores the user part of the item a recorded read returned, replays the read, and checks that
  // outcome and charge match the service's.
  Reply ReplayRecordedRead(const Recording& rec) {
    EXPECT_EQ(CreateInKv(UserBody(rec.ResponseJson()), *rec.RequestHeader("x-ms-documentdb-partitionkey")).status(),
              201);
    auto r = Replay(rec);
    ExpectSameOutcome(rec, r);
    ExpectSameCharge(rec, r);
    return r;
  }
  // The user part of our item text (everything before the system properties) is byte-identical.
  static void ExpectSameUserText(const Recording& rec, const Reply& r) {
    EXPECT_EQ(r.body().substr(0, r.body().find(",\"_rid\"")),
              rec.response_body.substr(0, rec.response_body.find(",\"_rid\"")));
  }
};

// ---- databases and containers -----------------------------------------------------------------

TEST_F(RealServiceRecordings, DeleteMissingDatabase001) { Check(1, true); }

TEST_F(RealServiceRecordings, CreateDatabase002AndContainer003) {
  auto db = Check(2, true);
  auto rec_db = LoadRecording(2);
  ASSERT_TRUE(rec_db);
  EXPECT_EQ(Keys(db.Json()), Keys(rec_db->ResponseJson()));

  auto kv = Check(3, true);
  auto rec = LoadRecording(3);
  ASSERT_TRUE(rec);
  auto ours = kv.Json();
  auto theirs = rec->ResponseJson();
  EXPECT_EQ(Keys(ours), Keys(theirs));
  EXPECT_EQ(json::Write(ours["indexingPolicy"]), json::Write(theirs["indexingPolicy"]));
  EXPECT_EQ(json::Write(ours["conflictResolutionPolicy"]), json::Write(theirs["conflictResolutionPolicy"]));
  EXPECT_EQ(json::Write(ours["geospatialConfig"]), json::Write(theirs["geospatialConfig"]));
  EXPECT_EQ(json::Write(ours["partitionKey"]["paths"]), json::Write(theirs["partitionKey"]["paths"]));
  EXPECT_EQ(json::Write(ours["partitionKey"]["kind"]), json::Write(theirs["partitionKey"]["kind"]));
  for (const char* k : {"_docs", "_sprocs", "_triggers", "_udfs", "_conflicts"})
    EXPECT_EQ(json::Write(ours[k]), json::Write(theirs[k])) << k;
}

TEST_F(RealServiceRecordings, MoreContainers004And007) {
  MakeDbimp();
  Check(4, true);
  auto r = Check(7, true);  // unknown properties (defaultValues, foreignKeyPolicy) are ignored
  auto rec = LoadRecording(7);
  ASSERT_TRUE(rec);
  EXPECT_EQ(Keys(r.Json()), Keys(rec->ResponseJson()));
}

TEST_F(RealServiceRecordings, SharedThroughputContainerWithoutKey174) {
  MakeDbimp();
  Check(174);
}

TEST_F(RealServiceRecordings, ListAndReadDatabase034And035) {
  MakeDbimp();
  auto list = Check(34, true);
  auto rec = LoadRecording(34);
  ASSERT_TRUE(rec);
  auto theirs = rec->ResponseJson();
  auto ours = list.Json();
  EXPECT_EQ(Keys(ours), Keys(theirs));
  ASSERT_GE(ours["Databases"].Size(), 1u);
  EXPECT_EQ(Keys(ours["Databases"][0]), Keys(theirs["Databases"][0]));
  auto read = Check(35, true);
  auto rec35 = LoadRecording(35);
  ASSERT_TRUE(rec35);
  EXPECT_EQ(read.body(), json::Write(ours["Databases"][0]));
  EXPECT_EQ(Keys(read.Json()), Keys(rec35->ResponseJson()));
}

TEST_F(RealServiceRecordings, ReadContainer037AndRanges038) {
  MakeDbimp();
  auto read = Check(37, true);
  auto rec = LoadRecording(37);
  ASSERT_TRUE(rec);
  EXPECT_EQ(Keys(read.Json()), Keys(rec->ResponseJson()));

  auto ranges = Check(38);
  auto rec38 = LoadRecording(38);
  ASSERT_TRUE(rec38);
  auto ours = ranges.Json();
  auto theirs = rec38->ResponseJson();
  EXPECT_EQ(Keys(ours), Keys(theirs));
  EXPECT_EQ(ranges.Header("x-ms-item-count"), *rec38->ResponseHeader("x-ms-item-count"));
  const auto& a = ours["PartitionKeyRanges"][0];
  const auto& b = theirs["PartitionKeyRanges"][0];
  for (const char* k : {"id", "minInclusive", "maxExclusive", "ridPrefix", "throughputFraction", "status", "parents"})
    EXPECT_TRUE(json::Equal(a[k], b[k])) << k;
}

TEST_F(RealServiceRecordings, DatabaseErrors171And172) {
  MakeDbimp();
  Check(171, true);  // 404 NotFound, 2 RU
  Check(172, true);  // 409 Conflict, 1.24 RU
}

TEST_F(RealServiceRecordings, InvalidUrls156And182And183) {
  MakeDbimp();
  Check(156);
  Check(182);
  Check(183);
}

TEST_F(RealServiceRecordings, MissingAuthorization185) { Check(185); }

TEST_F(RealServiceRecordings, DeleteDatabase248) {
  MakeDbimp();
  Check(248);
  EXPECT_EQ(Get("/dbs/dbimp_it").status(), 404);
}

// ---- items ------------------------------------------------------------------------------------

TEST_F(RealServiceRecordings, CreateItem039) {
  MakeDbimp();
  auto r = Check(39);
  auto rec = LoadRecording(39);
  ASSERT_TRUE(rec);
  ExpectSameItem(rec->ResponseJson(), r.Json());
  EXPECT_EQ(r.Header("etag"), r.Str("_etag"));
}

TEST_F(RealServiceRecordings, PropertyOrder045) {
  MakeDbimp();
  auto rec = LoadRecording(45);
  ASSERT_TRUE(rec);
  auto theirs = rec->ResponseJson();
  auto r = ReplayRecordedRead(*rec);
  ExpectSameItem(theirs, r.Json());
  // The user part is byte-identical to the service's.
  ExpectSameUserText(*rec, r);
}

TEST_F(RealServiceRecordings, NumberFidelity062) {
  MakeDbimp();
  auto rec = LoadRecording(62);
  ASSERT_TRUE(rec);
  auto theirs = rec->ResponseJson();
  auto r = ReplayRecordedRead(*rec);
  auto ours = r.Json();
  ExpectSameItem(theirs, ours);
  // Integers are kept exactly, and these values print the same in JavaScript and .NET.
  for (const char* k : {"i64", "u64", "i64min", "dec", "one", "negzero", "under"})
    EXPECT_EQ(ValueText(ours, k), ValueText(theirs, k)) << k;
  // The rest are the same doubles in JavaScript's notation.
  EXPECT_EQ(ValueText(ours, "ovr"), "18446744073709552000");
  EXPECT_EQ(ValueText(ours, "huge"), "1.2345678901234568e+29");
  EXPECT_EQ(ValueText(ours, "big"), "1.7976931348623157e+308");
  EXPECT_EQ(ValueText(ours, "tiny"), "5e-324");
  EXPECT_EQ(ValueText(ours, "frac"), "12345678901234567000");
}

TEST_F(RealServiceRecordings, NumberTooLarge065) {
  MakeDbimp();
  Check(65, true);
}

TEST_F(RealServiceRecordings, NulCharacter069) {
  MakeDbimp();
  auto rec = LoadRecording(69);
  ASSERT_TRUE(rec);
  auto r = ReplayRecordedRead(*rec);
  ExpectSameUserText(*rec, r);
  EXPECT_NE(r.body().find(R"("s":"a\u0000b")"), std::string::npos);
}

TEST_F(RealServiceRecordings, ItemWriteErrors176To179) {
  MakeDbimp();
  Check(176, true);  // missing id: 400, 1.24 RU
  Check(177, true);  // header/body partition key mismatch: 400/1001, 1.24 RU
  Check(178, true);  // no partition key header: 400/1001, 0 RU
  Check(179, true);  // malformed JSON: 400, 1.24 RU
  EXPECT_EQ(Get("/dbs/dbimp_it/colls/kv/docs").Header("x-ms-item-count"), "0");
}

TEST_F(RealServiceRecordings, ReadWithoutPartitionKey135) {
  MakeDbimp();
  ASSERT_EQ(Check(39).status(), 201);
  Check(135, true);
}

TEST_F(RealServiceRecordings, ReplacePatchDelete138To143) {
  MakeDbimp();
  ASSERT_EQ(Check(39).status(), 201);
  auto replaced = Check(138);
  auto rec138 = LoadRecording(138);
  ASSERT_TRUE(rec138);
  ExpectSameItem(rec138->ResponseJson(), replaced.Json());

  auto patched = Check(140);
  auto rec140 = LoadRecording(140);
  ASSERT_TRUE(rec140);
  // Same order as the service: the added property lands after _attachments, before _ts.
  ExpectSameItem(rec140->ResponseJson(), patched.Json());

  ASSERT_EQ(CreateInKv(R"({"id":"d2","pk":"a"})", R"(["a"])").status(), 201);
  Check(143);
}

TEST_F(RealServiceRecordings, NotModified205) {
  MakeDbimp();
  auto rec = LoadRecording(205);
  ASSERT_TRUE(rec);
  auto created = CreateInKv(R"({"id":"ty1","pk":"t"})", *rec->RequestHeader("x-ms-documentdb-partitionkey"));
  ASSERT_EQ(created.status(), 201);
  // The recorded etag is the service's; send ours in its place.
  const std::string etag = created.Header("etag");
  auto r = Replay(*rec, {{"If-None-Match", etag}});
  ExpectSameOutcome(*rec, r);
  ExpectSameCharge(*rec, r);
  EXPECT_EQ(r.Header("etag"), etag);
  EXPECT_EQ(r.Header("x-ms-alt-content-path"), *rec->ResponseHeader("x-ms-alt-content-path"));
}

// ---- change feed ------------------------------------------------------------------------------

TEST_F(RealServiceRecordings, ChangeFeed152) {
  ASSERT_EQ(Check(2, true).status(), 201);
  // Container uk (recording 006) also asks for a unique key policy, which the emulator refuses;
  // the same key and TTL without it.
  MakeContainer("dbimp_it", "uk", R"("defaultTtl":-1)", R"({"paths":["/pk"],"kind":"Hash"})");
  auto rec = LoadRecording(152);
  ASSERT_TRUE(rec);
  auto theirs = rec->ResponseJson();
  ASSERT_TRUE(theirs.IsObject() && theirs["Documents"].IsArray() && theirs["Documents"].Size() == 1u);
  const json::Value& recorded = theirs["Documents"][0];
  json::Document user;
  json::Parse(UserBody(recorded), user);
  user.RemoveMember("_lsn");
  ASSERT_EQ(CreateDoc("dbimp_it", "uk", json::Write(user), "[\"p\"]").status(), 201);

  auto r = Replay(*rec);  // A-Im: Incremental feed, range 0, from the beginning
  ExpectSameOutcome(*rec, r);
  auto ours = r.Json();
  ASSERT_TRUE(ours.IsObject()) << r;
  EXPECT_EQ(Keys(ours), Keys(theirs));  // _rid, Documents, _count
  ASSERT_EQ(ours["Documents"].Size(), 1u);
  const json::Value& doc = ours["Documents"][0];
  EXPECT_EQ(Keys(doc), Keys(recorded));  // user properties, system properties, _lsn last
  ASSERT_FALSE(Keys(doc).empty());
  EXPECT_EQ(Keys(doc).back(), "_lsn");
  for (const char* k : {"id", "pk", "email"}) EXPECT_EQ(ValueText(doc, k), ValueText(recorded, k)) << k;
  EXPECT_EQ(doc["_lsn"].GetUint64(), 1u);
  EXPECT_EQ(ours["_count"].GetInt(), theirs["_count"].GetInt());
  EXPECT_EQ(std::string(ours["_rid"].GetString()), r.Header("x-ms-content-path"));
  // The etag is the quoted LSN of the single range read ("43" there, 1 here).
  static const std::regex kQuotedLsn("\"[0-9]+\"");
  EXPECT_TRUE(std::regex_match(*rec->ResponseHeader("etag"), kQuotedLsn));
  EXPECT_EQ(r.Header("etag"), "\"1\"");
  EXPECT_EQ(r.Header("x-ms-item-count"), *rec->ResponseHeader("x-ms-item-count"));
  EXPECT_EQ(r.Header("x-ms-session-token"), "0:-1#1");  // the service: 0:-1#43
  EXPECT_EQ(r.Header("lsn"), "1");
  EXPECT_EQ(r.Header("x-ms-documentdb-partitionkeyrangeid"),
            *rec->ResponseHeader("x-ms-documentdb-partitionkeyrangeid"));
  EXPECT_EQ(r.Header("x-ms-alt-content-path"), *rec->ResponseHeader("x-ms-alt-content-path"));
  // The emulator charges 2 + a point read per document; the service charged 1 RU for this page.
  EXPECT_EQ(r.Charge(), "3");
  EXPECT_EQ(*rec->ResponseHeader("x-ms-request-charge"), "1");
}

}  // namespace
}  // namespace cosmos::testing
