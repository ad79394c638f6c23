// Persistence (emulator/persist/state.h, docs/persistence.md), through the request pipeline: what
// requests made comes back after a restart exactly (bodies, rids, etags, LSNs, session tokens, the
// change feed in both modes), from the log alone and from a snapshot; new resources after a
// restart never reuse an id or etag; a torn log tail is cut; a damaged snapshot stops start-up;
// checkpoints taken while writers run lose nothing.
#include <sys/stat.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <string>
#include <thread>

#include "aad_token_util.h"
#include "http/rbac.h"
#include "http_test_util.h"
#include "persist/state.h"

namespace cosmos::testing {
namespace {

namespace fs = std::filesystem;

std::string FreshDir(const std::string& name) {
  std::string dir = ::testing::TempDir() + "/persist_state_" + name;
  fs::remove_all(dir);
  return dir;
}

class PersistenceTest : public EmulatorTest {
 protected:
  // One emulator process: an account recovered from `dir_` and the services around it.
  struct Instance {
    Instance(PersistenceTest& t, const std::string& dir, persist::Durability d)
        : services{account, t.config_, t.limiter_, t.stats_, t.wall_} {
      persist::Options o;
      o.dir = dir;
      o.durability = d;
      persistence = std::make_unique<persist::Persistence>(account, o, report);
      services.rbac = &roles;
    }
    store::Account account;
    http::Services services;
    http::RbacRoles roles;
    persist::RecoveryReport report;
    std::unique_ptr<persist::Persistence> persistence;
  };

  void Start(persist::Durability d = persist::Durability::kFsync) {
    inst_.reset();  // as a process killed: no checkpoint at the end
    inst_ = std::make_unique<Instance>(*this, dir_, d);
  }
  // A start as main makes it: recovery, then the roles in force (`rbac`: --rbac's document).
  http::RolesOrigin StartWithRoles(const std::string& rbac = "") {
    Start();
    return http::StartRoles(inst_->services, rbac);
  }

  Reply Do(bh::verb verb, std::string_view target, std::string body = "", const Headers& headers = {}) {
    return Reply{http::Handle(inst_->services, Build(verb, target, std::move(body), headers))};
  }
  Reply DoGet(std::string_view target, const Headers& headers = {}) { return Do(bh::verb::get, target, "", headers); }
  Reply DoPost(std::string_view target, std::string body, const Headers& headers = {}) {
    return Do(bh::verb::post, target, std::move(body), headers);
  }
  static Headers Pk(const std::string& pk) { return {{"x-ms-documentdb-partitionkey", pk}}; }

  // Everything a client can read back, as text: bodies and the headers that carry state.
  std::string Everything() {
    std::string out;
    auto add = [&](const std::string& what, const Reply& r, std::initializer_list<const char*> headers = {}) {
      std::string body = r.body();
      if (auto at = body.find("ActivityId: "); at != std::string::npos) body.erase(at + 12, 36);  // one per request
      out += what + " -> " + std::to_string(r.status()) + " " + body + "\n";
      for (const char* h : headers) out += "  " + std::string(h) + ": " + r.Header(h) + "\n";
    };
    add("dbs", DoGet("/dbs"));
    add("offers", DoGet("/offers"));
    for (const char* db : {"/dbs/d1", "/dbs/d2"}) {
      const std::string p(db);
      add(p, DoGet(p));
      add(p + "/colls", DoGet(p + "/colls"));
      add(p + "/users", DoGet(p + "/users"));
      add(p + "/users/u1/permissions", DoGet(p + "/users/u1/permissions"));
      add(p + "/clientencryptionkeys", DoGet(p + "/clientencryptionkeys"));
    }
    for (const char* c : {"/dbs/d1/colls/c1", "/dbs/d1/colls/c2", "/dbs/d2/colls/s1"}) {
      const std::string p(c);
      add(p, DoGet(p));
      add(p + "/docs", DoGet(p + "/docs"), {"x-ms-session-token"});
      add(p + "/pkranges", DoGet(p + "/pkranges"));
      for (const char* kind : {"/sprocs", "/triggers", "/udfs"}) add(p + kind, DoGet(p + kind));
      add(p + " changes", DoGet(p + "/docs", {{"A-IM", "Incremental feed"}, {"x-ms-max-item-count", "1000"}}),
          {"etag", "x-ms-session-token"});
    }
    add("c1 all versions",
        DoGet("/dbs/d1/colls/c1/docs", {{"A-IM", "Full-Fidelity Feed"},
                                        {"x-ms-cosmos-changefeed-wire-format-version", "2021-09-15"},
                                        {"If-Modified-Since", "Thu, 01 Jan 1970 00:00:01 GMT"},
                                        {"x-ms-max-item-count", "1000"}}),
        {"etag"});
    add("read a", DoGet("/dbs/d1/colls/c1/docs/a", Pk("[\"p1\"]")), {"etag", "x-ms-session-token"});
    return out;
  }

  // A bit of everything, through requests.
  void Populate() {
    ASSERT_EQ(DoPost("/dbs", R"({"id":"d1"})").status(), 201);
    ASSERT_EQ(DoPost("/dbs", R"({"id":"d2"})", {{"x-ms-offer-throughput", "1000"}}).status(), 201);
    ASSERT_EQ(DoPost("/dbs/d1/colls",
                     R"({"id":"c1","partitionKey":{"paths":["/pk"]},"defaultTtl":-1,)"
                     R"("uniqueKeyPolicy":{"uniqueKeys":[{"paths":["/u"]}]},"changeFeedPolicy":{"retentionDuration":60}})",
                     {{"x-ms-offer-throughput", "12000"}})
                  .status(),
              201);
    ASSERT_EQ(DoPost("/dbs/d1/colls", R"({"id":"c2","partitionKey":{"paths":["/a","/b"],"kind":"MultiHash","version":2}})")
                  .status(),
              201);
    ASSERT_EQ(DoPost("/dbs/d2/colls", R"({"id":"s1","partitionKey":{"paths":["/pk"]}})").status(), 201);
    for (int i = 0; i < 30; ++i) {
      const std::string pk = "p" + std::to_string(i % 4);
      auto r = DoPost("/dbs/d1/colls/c1/docs",
                      "{\"id\":\"i" + std::to_string(i) + "\",\"pk\":\"" + pk + "\",\"u\":" + std::to_string(i) +
                          ",\"n\":1.5e3,\"s\":\"\\u00e9\\n\"}",
                      Pk("[\"" + pk + "\"]"));
      ASSERT_EQ(r.status(), 201) << r;
    }
    ASSERT_EQ(DoPost("/dbs/d1/colls/c1/docs", R"({"id":"a","pk":"p1","u":-1,"ttl":3600})", Pk("[\"p1\"]")).status(), 201);
    ASSERT_EQ(Do(bh::verb::put, "/dbs/d1/colls/c1/docs/i5", R"({"id":"i5","pk":"p1","u":105})", Pk("[\"p1\"]")).status(),
              200);
    ASSERT_EQ(Do(bh::verb::patch, "/dbs/d1/colls/c1/docs/i6",
                 R"({"operations":[{"op":"incr","path":"/u","value":100}]})", Pk("[\"p2\"]"))
                  .status(),
              200);
    ASSERT_EQ(Do(bh::verb::delete_, "/dbs/d1/colls/c1/docs/i7", "", Pk("[\"p3\"]")).status(), 204);
    ASSERT_EQ(DoPost("/dbs/d1/colls/c1/docs", R"({"id":"i8","pk":"p0","u":8,"upserted":true})",
                     {{"x-ms-documentdb-partitionkey", "[\"p0\"]"}, {"x-ms-documentdb-is-upsert", "true"}})
                  .status(),
              200);
    ASSERT_EQ(DoPost("/dbs/d1/colls/c2/docs", R"({"id":"h","a":"x","b":2})", Pk("[\"x\",2]")).status(), 201);
    ASSERT_EQ(DoPost("/dbs/d2/colls/s1/docs", R"({"id":"s","pk":"z"})", Pk("[\"z\"]")).status(), 201);
    ASSERT_EQ(DoPost("/dbs/d1/colls/c1/sprocs",
                     R"({"id":"sp","body":"function(id){ var c = getContext().getCollection(); )"
                     R"(c.createDocument(c.getSelfLink(), {id: id, pk: 'p1', u: 1000}); }"})")
                  .status(),
              201);
    ASSERT_EQ(DoPost("/dbs/d1/colls/c1/triggers",
                     R"({"id":"tr","body":"function(){}","triggerType":"Pre","triggerOperation":"Create"})")
                  .status(),
              201);
    ASSERT_EQ(DoPost("/dbs/d1/colls/c1/udfs", R"({"id":"f","body":"function(x){ return x + 1; }"})").status(), 201);
    auto run = DoPost("/dbs/d1/colls/c1/sprocs/sp", R"(["fromsproc"])", Pk("[\"p1\"]"));
    ASSERT_EQ(run.status(), 200) << run;
    ASSERT_EQ(Do(bh::verb::put, "/dbs/d1/colls/c1/udfs/f", R"({"id":"f","body":"function(x){ return x + 2; }"})").status(),
              200);
    ASSERT_EQ(DoPost("/dbs/d1/users", R"({"id":"u1"})").status(), 201);
    auto perm = DoPost("/dbs/d1/users/u1/permissions", R"({"id":"p","permissionMode":"Read","resource":"dbs/d1/colls/c1"})");
    ASSERT_EQ(perm.status(), 201) << perm;
    ASSERT_EQ(DoPost("/dbs/d1/clientencryptionkeys",
                     R"({"id":"k1","encryptionAlgorithm":"AEAD_AES_256_CBC_HMAC_SHA256","wrappedDataEncryptionKey":)"
                     R"("AAECAwQFBgc=","keyWrapMetadata":{"type":"AZURE_KEY_VAULT","name":"kek","value":"v","algorithm":"RSA-OAEP"}})")
                  .status(),
              201);
    // Throughput replaced: the container's offer.
    auto offers = DoGet("/offers").Json();
    ASSERT_TRUE(offers.IsObject());
    for (auto& o : offers["Offers"].GetArray()) {
      if (std::string(o["offerResourceId"].GetString()) != Rid("/dbs/d1/colls/c1")) continue;
      json::Document body;
      body.CopyFrom(o, body.GetAllocator());
      body["content"]["offerThroughput"].SetInt(15000);
      auto r = Do(bh::verb::put, std::string("/offers/") + o["id"].GetString(), json::Write(body));
      ASSERT_EQ(r.status(), 200) << r;
    }
    // A container replaced, one deleted and re-created, a database deleted and re-created.
    ASSERT_EQ(Do(bh::verb::put, "/dbs/d1/colls/c2",
                 R"({"id":"c2","partitionKey":{"paths":["/a","/b"],"kind":"MultiHash","version":2},"defaultTtl":7200})")
                  .status(),
              200);
    ASSERT_EQ(DoPost("/dbs/d2/colls", R"({"id":"gone","partitionKey":{"paths":["/pk"]}})").status(), 201);
    ASSERT_EQ(DoPost("/dbs/d2/colls/gone/docs", R"({"id":"g","pk":"g"})", Pk("[\"g\"]")).status(), 201);
    ASSERT_EQ(Do(bh::verb::delete_, "/dbs/d2/colls/gone").status(), 204);
    ASSERT_EQ(DoPost("/dbs", R"({"id":"d3"})").status(), 201);
    ASSERT_EQ(Do(bh::verb::delete_, "/dbs/d3").status(), 204);
  }

  std::string Rid(const std::string& path) { return DoGet(path).Str("_rid"); }

  std::string dir_ = FreshDir(::testing::UnitTest::GetInstance()->current_test_info()->name());
  std::unique_ptr<Instance> inst_;
};

TEST_F(PersistenceTest, EverythingComesBackFromTheLogAndFromASnapshot) {
  Start();
  Populate();
  if (HasFatalFailure()) return;
  const std::string before = Everything();
  EXPECT_NE(before.find("fromsproc"), std::string::npos);
  EXPECT_NE(before.find("c1 all versions -> 200 "), std::string::npos) << before;
  EXPECT_NE(before.find("\"operationType\":\"delete\""), std::string::npos);
  EXPECT_EQ(before.find("\"gone\""), std::string::npos);

  Start();  // from the log alone
  EXPECT_EQ(inst_->report.snapshot_records, 0u);
  EXPECT_GT(inst_->report.log_records, 40u);
  EXPECT_EQ(inst_->report.databases, 2u);
  EXPECT_EQ(inst_->report.containers, 3u);
  EXPECT_EQ(inst_->report.items, 33u);  // 31 in c1 (30 - 1 deleted + a + fromsproc), h, s
  EXPECT_EQ(Everything(), before);

  inst_->persistence->Checkpoint();
  EXPECT_EQ(fs::file_size(dir_ + "/wal.log"), 24u);  // the log restarted with its header alone
  Start();  // from the snapshot alone
  EXPECT_EQ(inst_->report.log_records, 0u);
  EXPECT_GT(inst_->report.snapshot_records, 33u);
  EXPECT_EQ(Everything(), before);
}

TEST_F(PersistenceTest, NewResourcesAfterARestartReuseNoIdOrEtag) {
  Start();
  Populate();
  if (HasFatalFailure()) return;
  std::set<std::string> seen;
  auto note = [&](const Reply& r) {
    auto d = r.Json();
    for (const char* k : {"_rid", "_etag"}) {
      if (d.IsObject() && d.HasMember(k)) {
        EXPECT_TRUE(seen.insert(d[k].GetString()).second) << k << " " << r;
      }
    }
  };
  for (const char* feed : {"/dbs", "/dbs/d1/colls", "/dbs/d1/colls/c1/docs", "/dbs/d1/users", "/dbs/d1/colls/c1/sprocs"}) {
    auto d = DoGet(feed).Json();
    for (auto& m : d.GetObject()) {
      if (!m.value.IsArray()) continue;
      for (auto& v : m.value.GetArray()) {
        seen.insert(v["_rid"].GetString());
        seen.insert(v["_etag"].GetString());
      }
    }
  }
  const std::string lsn_before = DoGet("/dbs/d1/colls/c1/docs/a", Pk("[\"p1\"]")).Header("x-ms-session-token");
  Start();
  note(DoPost("/dbs", R"({"id":"d4"})"));
  note(DoPost("/dbs/d1/colls", R"({"id":"c9","partitionKey":{"paths":["/pk"]}})"));
  note(DoPost("/dbs/d1/colls/c1/docs", R"({"id":"new","pk":"p1","u":-5})", Pk("[\"p1\"]")));
  note(DoPost("/dbs/d1/users", R"({"id":"u2"})"));
  note(DoPost("/dbs/d1/colls/c1/sprocs", R"({"id":"sp2","body":"function(){}"})"));
  // The partition's LSN goes on from where it was.
  const std::string lsn_after = DoGet("/dbs/d1/colls/c1/docs/a", Pk("[\"p1\"]")).Header("x-ms-session-token");
  EXPECT_NE(lsn_after, lsn_before);
  const auto lsn_of = [](const std::string& token) { return std::stoull(token.substr(token.rfind('#') + 1)); };
  EXPECT_EQ(lsn_of(lsn_after), lsn_of(lsn_before) + 1);
}

// An item written with x-ms-indexing-directive: Exclude stays out of the index after a restart, from
// the log and from a snapshot; a later write without the directive brings it back.
TEST_F(PersistenceTest, AnItemLeftOutOfTheIndexStaysOutAfterARestart) {
  Start();
  ASSERT_EQ(DoPost("/dbs", R"({"id":"d1"})").status(), 201);
  ASSERT_EQ(DoPost("/dbs/d1/colls", R"({"id":"c1","partitionKey":{"paths":["/pk"]}})").status(), 201);
  ASSERT_EQ(DoPost("/dbs/d1/colls/c1/docs", R"({"id":"a","pk":"p","o":1})", Pk("[\"p\"]")).status(), 201);
  Headers exclude = Pk("[\"p\"]");
  exclude.emplace_back("x-ms-indexing-directive", "Exclude");
  ASSERT_EQ(DoPost("/dbs/d1/colls/c1/docs", R"({"id":"x","pk":"p","o":1})", exclude).status(), 201);
  auto found = [&] {
    auto r = DoPost("/dbs/d1/colls/c1/docs", R"({"query":"SELECT VALUE c.id FROM c WHERE c.o = 1"})",
                    {{"x-ms-documentdb-isquery", "True"},
                     {"content-type", "application/query+json"},
                     {"x-ms-documentdb-partitionkey", "[\"p\"]"}});
    EXPECT_EQ(r.status(), 200) << r;
    return json::Write(r.Json()["Documents"]);
  };
  EXPECT_EQ(found(), R"(["a"])");
  Start();  // from the log
  EXPECT_EQ(found(), R"(["a"])");
  EXPECT_EQ(DoGet("/dbs/d1/colls/c1/docs/x", Pk("[\"p\"]")).status(), 200);
  inst_->persistence->Checkpoint();
  Start();  // from the snapshot
  EXPECT_EQ(found(), R"(["a"])");
  ASSERT_EQ(Do(bh::verb::put, "/dbs/d1/colls/c1/docs/x", R"({"id":"x","pk":"p","o":1})", Pk("[\"p\"]")).status(), 200);
  EXPECT_EQ(found(), R"(["a","x"])");
  Start();
  EXPECT_EQ(found(), R"(["a","x"])");
}

TEST_F(PersistenceTest, TimeToLiveDeletesAreRecorded) {
  Start();
  ASSERT_EQ(DoPost("/dbs", R"({"id":"d"})").status(), 201);
  ASSERT_EQ(DoPost("/dbs/d/colls", R"({"id":"c","partitionKey":{"paths":["/pk"]},"defaultTtl":10})").status(), 201);
  ASSERT_EQ(DoPost("/dbs/d/colls/c/docs", R"({"id":"old","pk":"p"})", Pk("[\"p\"]")).status(), 201);
  wall_.Advance(20'000);
  ASSERT_EQ(DoPost("/dbs/d/colls/c/docs", R"({"id":"young","pk":"p"})", Pk("[\"p\"]")).status(), 201);
  const std::string feed = DoGet("/dbs/d/colls/c/docs", {{"A-IM", "Incremental feed"}}).body();
  const std::string token = DoGet("/dbs/d/colls/c/docs/young", Pk("[\"p\"]")).Header("x-ms-session-token");
  EXPECT_EQ(token.substr(token.rfind('#') + 1), "3");  // create, TTL delete, create
  Start();
  EXPECT_EQ(inst_->report.items, 1u);
  EXPECT_EQ(DoGet("/dbs/d/colls/c/docs", {{"A-IM", "Incremental feed"}}).body(), feed);
  EXPECT_EQ(DoGet("/dbs/d/colls/c/docs/young", Pk("[\"p\"]")).Header("x-ms-session-token"), token);
}

// The write's milliseconds come back with the item (log record and snapshot), so a time to live
// still counts from them after a restart: written at x.950 with a ttl of 8, there at x.950 + 7.999.
TEST_F(PersistenceTest, AnItemsWriteTimeToTheMillisecondComesBack) {
  Start();
  ASSERT_EQ(DoPost("/dbs", R"({"id":"d"})").status(), 201);
  ASSERT_EQ(DoPost("/dbs/d/colls", R"({"id":"c","partitionKey":{"paths":["/pk"]},"defaultTtl":-1})").status(), 201);
  wall_.Advance((950 - wall_.UnixMs() % 1000 + 1000) % 1000);
  auto made = DoPost("/dbs/d/colls/c/docs", R"({"id":"t","pk":"p","ttl":8})", Pk("[\"p\"]"));
  ASSERT_EQ(made.status(), 201);
  wall_.Advance(7999);
  for (int round = 0; round < 2; ++round) {
    Start();  // from the log, then from a snapshot
    EXPECT_EQ(round == 0 ? inst_->report.snapshot_records : inst_->report.log_records, 0u);
    auto read = DoGet("/dbs/d/colls/c/docs/t", Pk("[\"p\"]"));
    EXPECT_EQ(read.status(), 200) << "round " << round;
    EXPECT_EQ(read.body(), made.body());
    inst_->persistence->Checkpoint();
  }
  wall_.Advance(1);
  EXPECT_EQ(DoGet("/dbs/d/colls/c/docs/t", Pk("[\"p\"]")).status(), 404);
  Start();
  EXPECT_EQ(DoGet("/dbs/d/colls/c/docs/t", Pk("[\"p\"]")).status(), 404);
}

// A transactional batch is one record ("g") holding all its changes with their one LSN: recovery
// applies it whole (from the log, then from a snapshot), with the LSN, the feeds and the session
// tokens as they were.
TEST_F(PersistenceTest, ABatchComesBackWithItsOneLsn) {
  Start();
  ASSERT_EQ(DoPost("/dbs", R"({"id":"d"})").status(), 201);
  ASSERT_EQ(DoPost("/dbs/d/colls",
                   R"({"id":"c","partitionKey":{"paths":["/pk"]},"changeFeedPolicy":{"retentionDuration":60}})")
                .status(),
            201);
  ASSERT_EQ(DoPost("/dbs/d/colls/c/docs", R"({"id":"x","pk":"p"})", Pk("[\"p\"]")).status(), 201);
  ASSERT_EQ(DoPost("/dbs/d/colls/c/docs", R"({"id":"r","pk":"p","v":1})", Pk("[\"p\"]")).status(), 201);
  Headers batch{{"x-ms-cosmos-is-batch-request", "True"}, {"x-ms-cosmos-batch-atomic", "True"},
                {"x-ms-documentdb-partitionkey", "[\"p\"]"}};
  auto b = DoPost("/dbs/d/colls/c/docs",
                  R"([{"operationType":"Create","resourceBody":{"id":"y","pk":"p"}},{"operationType":"Delete","id":"x"},)"
                  R"({"operationType":"Replace","id":"r","resourceBody":{"id":"r2","pk":"p","v":2}},)"
                  R"({"operationType":"Upsert","resourceBody":{"id":"y","pk":"p","v":3}}])",
                  batch);
  ASSERT_EQ(b.status(), 200) << b;
  EXPECT_EQ(b.Header("lsn"), "3");
  auto state = [&] {
    std::string out;
    for (const char* max : {"1", "100"}) {
      auto r = DoGet("/dbs/d/colls/c/docs", {{"A-IM", "Incremental feed"}, {"x-ms-max-item-count", max}});
      out += r.body() + " " + r.Header("etag") + "\n";
      auto a = DoGet("/dbs/d/colls/c/docs", {{"A-IM", "Full-Fidelity Feed"},
                                             {"x-ms-cosmos-changefeed-wire-format-version", "2021-09-15"},
                                             {"If-Modified-Since", "Thu, 01 Jan 1970 00:00:01 GMT"},
                                             {"x-ms-max-item-count", max}});
      out += a.body() + " " + a.Header("etag") + "\n";
    }
    out += DoGet("/dbs/d/colls/c/docs/r2", Pk("[\"p\"]")).Header("x-ms-session-token") + "\n";
    out += DoGet("/dbs/d/colls/c/docs").body();
    return out;
  };
  const std::string before = state();
  EXPECT_NE(before.find("\"_lsn\":3"), std::string::npos) << before;
  for (int round = 0; round < 2; ++round) {
    Start();  // from the log, then from a snapshot
    EXPECT_EQ(round == 0 ? inst_->report.snapshot_records : inst_->report.log_records, 0u);
    EXPECT_EQ(inst_->report.items, 2u);
    EXPECT_EQ(state(), before) << "round " << round;
    inst_->persistence->Checkpoint();
  }
  // The next write takes the next LSN.
  EXPECT_EQ(DoPost("/dbs/d/colls/c/docs", R"({"id":"z","pk":"p"})", Pk("[\"p\"]")).Header("lsn"), "4");
}

TEST_F(PersistenceTest, ARenamingReplaceComesBackUnderItsNewId) {
  Start();
  ASSERT_EQ(DoPost("/dbs", R"({"id":"d"})").status(), 201);
  ASSERT_EQ(DoPost("/dbs/d/colls", R"({"id":"c","partitionKey":{"paths":["/pk"]}})").status(), 201);
  auto created = DoPost("/dbs/d/colls/c/docs", R"({"id":"old","pk":"p","v":1})", Pk("[\"p\"]"));
  ASSERT_EQ(created.status(), 201);
  auto renamed = Do(bh::verb::put, "/dbs/d/colls/c/docs/old", R"({"id":"new","pk":"p","v":2})", Pk("[\"p\"]"));
  ASSERT_EQ(renamed.status(), 200) << renamed;
  const std::string feed = DoGet("/dbs/d/colls/c/docs").body();
  for (int round = 0; round < 2; ++round) {
    Start();  // from the log, then from a snapshot
    EXPECT_EQ(inst_->report.items, 1u);
    EXPECT_EQ(DoGet("/dbs/d/colls/c/docs/old", Pk("[\"p\"]")).status(), 404);
    auto read = DoGet("/dbs/d/colls/c/docs/new", Pk("[\"p\"]"));
    EXPECT_EQ(read.body(), renamed.body());
    EXPECT_EQ(read.Str("_rid"), created.Str("_rid"));
    EXPECT_EQ(DoGet("/dbs/d/colls/c/docs").body(), feed);
    inst_->persistence->Checkpoint();
  }
}

TEST_F(PersistenceTest, ATornLogTailIsCutAndADamagedSnapshotStopsStartUp) {
  Start();
  ASSERT_EQ(DoPost("/dbs", R"({"id":"d"})").status(), 201);
  ASSERT_EQ(DoPost("/dbs/d/colls", R"({"id":"c","partitionKey":{"paths":["/pk"]}})").status(), 201);
  ASSERT_EQ(DoPost("/dbs/d/colls/c/docs", R"({"id":"x","pk":"p"})", Pk("[\"p\"]")).status(), 201);
  const std::string doc = DoGet("/dbs/d/colls/c/docs/x", Pk("[\"p\"]")).body();
  inst_.reset();
  {
    // Half a record: a frame header promising 100 bytes and 10 of them (a write cut by kill -9).
    std::ofstream out(dir_ + "/wal.log", std::ios::binary | std::ios::app);
    const char frame[16] = {100, 0, 0, 0, 1, 2, 3, 4, 4, 0, 0, 0, 0, 0, 0, 0};
    out.write(frame, sizeof frame);
    out << "{\"t\":\"i\",\"";
  }
  const auto torn = fs::file_size(dir_ + "/wal.log");
  Start();
  EXPECT_EQ(inst_->report.discarded_bytes, 26u);
  EXPECT_EQ(inst_->report.discarded_reason.rfind("a record cut short", 0), 0u) << inst_->report.discarded_reason;
  EXPECT_EQ(fs::file_size(dir_ + "/wal.log"), torn - 26);
  EXPECT_EQ(DoGet("/dbs/d/colls/c/docs/x", Pk("[\"p\"]")).body(), doc);
  ASSERT_EQ(DoPost("/dbs/d/colls/c/docs", R"({"id":"y","pk":"p"})", Pk("[\"p\"]")).status(), 201);

  inst_->persistence->Checkpoint();
  inst_.reset();
  {
    std::fstream f(dir_ + "/snapshot.bin", std::ios::binary | std::ios::in | std::ios::out);
    f.seekp(60);
    f.put('#');
  }
  try {
    Start();
    FAIL() << "a damaged snapshot was accepted";
  } catch (const persist::PersistError& e) {
    EXPECT_NE(std::string(e.what()).find("snapshot.bin is damaged (checksum mismatch over"), std::string::npos) << e.what();
  }
}

TEST_F(PersistenceTest, CheckpointsWhileWritersRunLoseNothing) {
  Start();
  ASSERT_EQ(DoPost("/dbs", R"({"id":"d"})").status(), 201);
  ASSERT_EQ(DoPost("/dbs/d/colls", R"({"id":"c","partitionKey":{"paths":["/pk"]}})", {{"x-ms-offer-throughput", "24000"}})
                .status(),
            201);
  std::atomic<bool> stop{false};
  std::vector<std::thread> writers;
  std::vector<int> acked(4, 0);
  for (int t = 0; t < 4; ++t) {
    writers.emplace_back([&, t] {
      for (int i = 0; !stop || i < 50; ++i) {
        const std::string pk = "w" + std::to_string(t);
        auto r = DoPost("/dbs/d/colls/c/docs", "{\"id\":\"" + std::to_string(i) + "\",\"pk\":\"" + pk + "\"}",
                        Pk("[\"" + pk + "\"]"));
        if (r.status() != 201) {
          ADD_FAILURE() << r;
          return;
        }
        acked[t] = i + 1;
      }
    });
  }
  for (int k = 0; k < 5; ++k) inst_->persistence->Checkpoint();
  stop = true;
  for (auto& w : writers) w.join();
  Start();
  size_t total = 0;
  for (int t = 0; t < 4; ++t) total += acked[t];
  EXPECT_EQ(inst_->report.items, total);
  for (int t = 0; t < 4; ++t) {
    const std::string pk = "w" + std::to_string(t);
    EXPECT_EQ(DoGet("/dbs/d/colls/c/docs/" + std::to_string(acked[t] - 1), Pk("[\"" + pk + "\"]")).status(), 200);
  }
}

TEST_F(PersistenceTest, ProcessDurabilityKeepsEverythingAcrossARestartToo) {
  Start(persist::Durability::kProcess);
  ASSERT_EQ(DoPost("/dbs", R"({"id":"d"})").status(), 201);
  ASSERT_EQ(DoPost("/dbs/d/colls", R"({"id":"c","partitionKey":{"paths":["/pk"]}})").status(), 201);
  ASSERT_EQ(DoPost("/dbs/d/colls/c/docs", R"({"id":"x","pk":"p"})", Pk("[\"p\"]")).status(), 201);
  const std::string doc = DoGet("/dbs/d/colls/c/docs/x", Pk("[\"p\"]")).body();
  Start(persist::Durability::kProcess);
  EXPECT_EQ(DoGet("/dbs/d/colls/c/docs/x", Pk("[\"p\"]")).body(), doc);
}

TEST_F(PersistenceTest, SplitRangesComeBackFromTheLogAndFromASnapshot) {
  Start();
  ASSERT_EQ(DoPost("/dbs", R"({"id":"d"})").status(), 201);
  ASSERT_EQ(DoPost("/dbs/d/colls", R"({"id":"c","partitionKey":{"paths":["/pk"],"version":2}})",
                   {{"x-cosmos-emulator-partition-count", "2"}})
                .status(),
            201);
  auto create = [&](int from, int to) {
    for (int i = from; i < to; ++i) {
      const std::string id = "x" + std::to_string(i);
      ASSERT_EQ(DoPost("/dbs/d/colls/c/docs", R"({"id":")" + id + R"(","pk":")" + id + R"("})", Pk("[\"" + id + "\"]"))
                    .status(),
                201);
    }
  };
  create(0, 20);
  ASSERT_EQ(DoPost("/_emulator/containers/d/c/split", R"({"partitionKeyRangeId":"0"})").status(), 200);
  create(20, 40);  // into the children
  ASSERT_EQ(DoPost("/_emulator/containers/d/c/split", R"({"partitionKeyRangeId":"3"})").status(), 200);
  create(40, 50);
  auto state = [&] {
    std::string out = DoGet("/dbs/d/colls/c/pkranges").body() + "\n";
    for (const char* range : {"2", "4", "5", "1"}) {
      out += std::string(range) + ": " +
             DoGet("/dbs/d/colls/c/docs", {{"x-ms-documentdb-partitionkeyrangeid", range}, {"x-ms-max-item-count", "-1"}})
                 .body() +
             "\n";
    }
    return out;
  };
  const std::string before = state();
  EXPECT_NE(before.find(R"("id":"5")"), std::string::npos) << before;
  EXPECT_NE(before.find(R"("parents":["0","3"])"), std::string::npos) << before;
  Start();  // from the log alone
  EXPECT_EQ(inst_->report.items, 50u);
  EXPECT_EQ(state(), before);
  create(50, 55);  // the recovered children take writes, and keep them
  const std::string more = state();
  inst_->persistence->Checkpoint();
  Start();  // from the snapshot
  EXPECT_EQ(inst_->report.items, 55u);
  EXPECT_EQ(state(), more);
}

// Roles changed through PUT /_emulator/rbac are kept with the account: they come back after a
// restart, from the log and from a snapshot, and --rbac's document, when given at a start,
// replaces them and is kept from then on (docs/entra-id.md).
TEST_F(PersistenceTest, RolesComeBackAfterARestartAndRbacAtStartReplacesThem) {
  const std::string reader = "96313034-4739-43cb-93cd-74193adbe5b6";
  // A data operation with the SDK suites' test token of `reader`: its status and substatus.
  auto as_reader = [&](bh::verb verb, std::string_view target, std::string body = "") {
    const int64_t now = wall_.UnixSeconds();
    http::Request req = Build(verb, target, std::move(body), Pk("[\"p\"]"), NoSignature());
    req.set(bh::field::authorization,
            "type=aad&ver=1.0&sig=" + FakeToken(TestClaims(reader, now, now + 3600), kEmulatorKey));
    Reply r{http::Handle(inst_->services, req)};
    const std::string sub = r.Substatus();
    return std::to_string(r.status()) + "/" + (sub.empty() ? "0" : sub);
  };
  const auto read = [&] { return as_reader(bh::verb::get, "/dbs/d/colls/c/docs/x"); };
  const auto write = [&] { return as_reader(bh::verb::post, "/dbs/d/colls/c/docs", R"({"id":"w","pk":"p"})"); };

  EXPECT_EQ(StartWithRoles(), http::RolesOrigin::kDefault);
  ASSERT_EQ(DoPost("/dbs", R"({"id":"d"})").status(), 201);
  ASSERT_EQ(DoPost("/dbs/d/colls", R"({"id":"c","partitionKey":{"paths":["/pk"]}})").status(), 201);
  ASSERT_EQ(DoPost("/dbs/d/colls/c/docs", R"({"id":"x","pk":"p"})", Pk("[\"p\"]")).status(), 201);
  const std::string defaults = DoGet("/_emulator/rbac").body();
  EXPECT_EQ(write(), "201/0");  // every principal a Data Contributor
  ASSERT_EQ(Do(bh::verb::delete_, "/dbs/d/colls/c/docs/w", "", Pk("[\"p\"]")).status(), 204);

  // A custom role, and the reader a Data Reader on the account.
  const std::string custom =
      R"({"roleDefinitions":[{"name":"11111111-1111-1111-1111-111111111111","properties":{"roleName":"Writers",)"
      R"("type":"CustomRole","assignableScopes":["/dbs/d"],"permissions":[{"dataActions":[)"
      R"("Microsoft.DocumentDB/databaseAccounts/sqlDatabases/containers/items/create"]}]}}],)"
      R"("roleAssignments":[{"name":"22222222-2222-2222-2222-222222222222","properties":{)"
      R"("roleDefinitionId":"00000000-0000-0000-0000-000000000001","scope":"/","principalId":")" +
      reader + R"("}}]})";
  auto put = Do(bh::verb::put, "/_emulator/rbac", custom);
  ASSERT_EQ(put.status(), 200) << put;
  const std::string kept = put.body();
  EXPECT_NE(kept, defaults);
  EXPECT_EQ(read(), "200/0");
  EXPECT_EQ(write(), "403/5301");

  EXPECT_EQ(StartWithRoles(), http::RolesOrigin::kKept);  // from the log alone
  EXPECT_EQ(inst_->report.snapshot_records, 0u);
  EXPECT_EQ(DoGet("/_emulator/rbac").body(), kept);
  EXPECT_EQ(read(), "200/0");
  EXPECT_EQ(write(), "403/5301");

  inst_->persistence->Checkpoint();
  EXPECT_EQ(StartWithRoles(), http::RolesOrigin::kKept);  // from the snapshot alone
  EXPECT_EQ(inst_->report.log_records, 0u);
  EXPECT_EQ(DoGet("/_emulator/rbac").body(), kept);
  EXPECT_EQ(write(), "403/5301");

  // The default put back is kept too (not mistaken for "never set").
  ASSERT_EQ(Do(bh::verb::put, "/_emulator/rbac", defaults).status(), 200);
  EXPECT_EQ(StartWithRoles(), http::RolesOrigin::kKept);
  EXPECT_EQ(DoGet("/_emulator/rbac").body(), defaults);
  EXPECT_EQ(write(), "201/0");

  // --rbac at a start wins over the kept roles, and is kept: a later start without it has them.
  EXPECT_EQ(StartWithRoles(custom), http::RolesOrigin::kGiven);
  EXPECT_EQ(DoGet("/_emulator/rbac").body(), kept);
  EXPECT_EQ(write(), "403/5301");
  EXPECT_EQ(StartWithRoles(), http::RolesOrigin::kKept);
  EXPECT_EQ(DoGet("/_emulator/rbac").body(), kept);
  EXPECT_EQ(read(), "200/0");
  EXPECT_EQ(write(), "403/5301");

  // A refused document changes nothing, here or after a restart.
  EXPECT_EQ(Do(bh::verb::put, "/_emulator/rbac", R"({"roleAssignments":[{"properties":{"roleDefinitionId":"x"}}]})")
                .status(),
            400);
  EXPECT_EQ(StartWithRoles(), http::RolesOrigin::kKept);
  EXPECT_EQ(DoGet("/_emulator/rbac").body(), kept);
}

}  // namespace
}  // namespace cosmos::testing
