// Seeding (emulator/seed/, docs/seeding.md): the manifest, reading items from JSON lines and JSON
// files with each bad item reported at its file and line, fail and skip modes (a failed load
// writes and creates nothing), what seeded items look like next to REST-created ones, existing
// databases and containers, persistence, and POST /_emulator/import through the pipeline.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>

#include "http_test_util.h"
#include "persist/state.h"
#include "seed/seed.h"

namespace cosmos::testing {
namespace {

namespace fs = std::filesystem;

constexpr const char* kOrders =
    R"({"containers":[{"database":"shop","container":"orders","partitionKey":{"paths":["/pk"],"kind":"Hash","version":2},"data":"orders.jsonl"}]})";

class SeedTest : public EmulatorTest {
 protected:
  SeedTest() {
    dir_ = ::testing::TempDir() + "/seed_" + ::testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  ~SeedTest() override { fs::remove_all(dir_); }

  // Persistence over `data` for `account` (what it recovered in `recovered`).
  static std::unique_ptr<persist::Persistence> OpenData(store::Account& account, const std::string& data,
                                                        persist::RecoveryReport& recovered) {
    persist::Options o;
    o.dir = data;
    return std::make_unique<persist::Persistence>(account, o, recovered);
  }

  void Write(const std::string& name, const std::string& text) {
    fs::create_directories((fs::path(dir_) / name).parent_path());
    std::ofstream out(dir_ + "/" + name, std::ios::binary | std::ios::trunc);
    out << text;
  }

  seed::SeedReport Run(seed::OnError on_error = seed::OnError::kFail, http::Services* services = nullptr) {
    seed::SeedOptions o;
    o.on_error = on_error;
    o.threads = 2;
    o.notice = [this](const std::string& line) { notices_.push_back(line); };
    return seed::Seed(services ? *services : services_, dir_, o);
  }

  // The SeedError a run stops with ("" when it does not).
  std::string RunError() {
    try {
      Run();
    } catch (const seed::SeedError& e) {
      return e.what();
    }
    return "";
  }

  // Each error as "<where>: <message>".
  static std::vector<std::string> Errors(const seed::Outcome& o) {
    std::vector<std::string> out;
    for (const auto& e : o.errors) out.push_back(e.Where() + ": " + e.message);
    return out;
  }

  // The ids of a container's items, in feed order.
  std::vector<std::string> Ids(const std::string& db, const std::string& coll) {
    auto r = Get("/dbs/" + db + "/colls/" + coll + "/docs", {{"x-ms-max-item-count", "1000"}});
    EXPECT_EQ(r.status(), 200) << r;
    std::vector<std::string> ids;
    auto d = r.Json();
    if (!d.IsObject()) return ids;
    for (auto& item : d["Documents"].GetArray()) ids.emplace_back(item["id"].GetString());
    return ids;
  }

  std::string dir_;
  std::vector<std::string> notices_;
};

// --- The manifest ---

TEST_F(SeedTest, ManifestReadsEveryField) {
  auto m = seed::ParseManifest(
      R"({"containers":[
        {"database":"shop","container":"orders","partitionKey":{"paths":["/customer"],"kind":"Hash","version":2},
         "throughput":{"manual":12000},"partitionCount":4,"data":["orders.jsonl","more/"]},
        {"database":"shared","databaseThroughput":{"autoscale":4000},"container":"events",
         "partitionKey":{"paths":["/tenant","/user"],"kind":"MultiHash"},"data":"events.json"}]})",
      "m.json", "/base");
  ASSERT_EQ(m.containers.size(), 2u);
  const auto& a = m.containers[0];
  EXPECT_EQ(a.database, "shop");
  EXPECT_EQ(a.container, "orders");
  EXPECT_EQ(a.partition_key.paths, std::vector<std::string>{"/customer"});
  EXPECT_EQ(a.partition_key.kind, "Hash");
  EXPECT_EQ(a.partition_key.version, 2);
  EXPECT_TRUE(a.version_given);
  ASSERT_TRUE(a.throughput);
  EXPECT_EQ(a.throughput->ru, 12000);
  EXPECT_FALSE(a.throughput->autoscale);
  EXPECT_FALSE(a.database_throughput);
  EXPECT_EQ(a.partition_count, 4);
  EXPECT_EQ(a.data, (std::vector<std::string>{"orders.jsonl", "more/"}));
  const auto& b = m.containers[1];
  EXPECT_EQ(b.partition_key.kind, "MultiHash");
  EXPECT_EQ(b.partition_key.version, 2);
  EXPECT_FALSE(b.version_given);
  EXPECT_FALSE(b.throughput);
  ASSERT_TRUE(b.database_throughput);
  EXPECT_EQ(b.database_throughput->ru, 4000);
  EXPECT_TRUE(b.database_throughput->autoscale);
  EXPECT_FALSE(b.partition_count);
  EXPECT_EQ(b.data, std::vector<std::string>{"events.json"});
}

TEST_F(SeedTest, ManifestErrorsNameTheEntryAndTheProblem) {
  auto error = [](const std::string& text) {
    try {
      seed::ParseManifest(text, "m.json", ".");
    } catch (const seed::SeedError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string pk = R"("partitionKey":{"paths":["/pk"]})";
  auto entry = [&](const std::string& more) {
    return R"({"containers":[{"database":"d","container":"c",)" + pk + R"(,"data":"x.jsonl")" + more + "}]}";
  };
  EXPECT_EQ(error("{"), "m.json: not valid JSON");
  EXPECT_EQ(error("[]"), "m.json: the manifest must be a JSON object {\"containers\": [...]}");
  EXPECT_EQ(error(R"({"containers":[]})"), "m.json: \"containers\" must be a non-empty array");
  EXPECT_EQ(error(R"({"containers":[{}],"extra":1})"), "m.json: unknown property \"extra\" (a manifest has only \"containers\")");
  EXPECT_EQ(error(R"({"containers":[1]})"), "m.json: containers[0]: each entry must be an object");
  EXPECT_EQ(error(entry(R"(,"throughput":{"manual":400},"colour":"red")")),
            "m.json: containers[0]: unknown property \"colour\" (known: database, container, partitionKey, throughput, "
            "databaseThroughput, partitionCount, indexingPolicy, data)");
  EXPECT_EQ(error(R"({"containers":[{"container":"c",)" + pk + R"(,"data":"x.jsonl"}]})"),
            "m.json: containers[0]: \"database\" is missing");
  EXPECT_EQ(error(R"({"containers":[{"database":"d","container":"a/b",)" + pk + R"(,"data":"x.jsonl"}]})"),
            "m.json: containers[0]: \"container\": The input name 'a/b' is invalid. Ensure to provide a unique "
            "non-empty string less than '255' characters and containing no '/', '\\\\', '?' or '#'.");
  EXPECT_EQ(error(R"({"containers":[{"database":"d","container":"c","data":"x.jsonl"}]})"),
            "m.json: containers[0]: \"partitionKey\" is missing (e.g. {\"paths\": [\"/pk\"], \"kind\": \"Hash\", "
            "\"version\": 2})");
  EXPECT_EQ(error(R"({"containers":[{"database":"d","container":"c","partitionKey":{"paths":[]},"data":"x.jsonl"}]})"),
            "m.json: containers[0]: \"partitionKey\": The partition key definition is invalid: paths must be a "
            "non-empty array.");
  EXPECT_EQ(error(R"({"containers":[{"database":"d","container":"c","partitionKey":{"paths":["/a"],"systemKey":true},"data":"x"}]})"),
            "m.json: containers[0]: \"partitionKey\": unknown property \"systemKey\" (known: paths, kind, version)");
  EXPECT_EQ(error(entry(R"(,"throughput":{"manual":450})")),
            "m.json: containers[0]: \"throughput\": The offer throughput 450 is invalid: it must be at least 400 RU/s "
            "and a multiple of 100.");
  EXPECT_EQ(error(entry(R"(,"databaseThroughput":{"autoscale":1500})")),
            "m.json: containers[0]: \"databaseThroughput\": The autoscale maximum throughput must be at least 1000 "
            "RU/s and a multiple of 1000.");
  EXPECT_EQ(error(entry(R"(,"throughput":{"manual":400,"autoscale":4000})")),
            "m.json: containers[0]: \"throughput\" must be {\"manual\": RU/s} or {\"autoscale\": maximum RU/s}");
  EXPECT_EQ(error(entry(R"(,"partitionCount":0)")),
            "m.json: containers[0]: \"partitionCount\" must be a whole number from 1 to 1024");
  EXPECT_EQ(error(R"({"containers":[{"database":"d","container":"c",)" + pk + "}]}"),
            "m.json: containers[0]: \"data\" is missing (a file or directory, or an array of them, relative to the "
            "manifest)");
  EXPECT_EQ(error(R"({"containers":[{"database":"d","container":"c",)" + pk + R"(,"data":[]}]})"),
            "m.json: containers[0]: \"data\" is an empty array");
  EXPECT_EQ(error(R"({"containers":[{"database":"d","container":"c",)" + pk +
                  R"(,"data":"a.jsonl"},{"database":"d","container":"c","partitionKey":{"paths":["/other"]},"data":"b.jsonl"}]})"),
            "m.json: containers[1]: container d/c is named by an earlier entry with other settings (partitionKey, "
            "throughput, partitionCount, indexingPolicy)");
}

TEST_F(SeedTest, PathProblemsStopTheSeed) {
  EXPECT_EQ(RunError(), dir_ + " holds no manifest.json (the manifest naming each container and its data files; "
                               "docs/seeding.md)");
  Write("manifest.json", kOrders);
  EXPECT_EQ(RunError(), dir_ + "/manifest.json: the data path orders.jsonl does not exist (" + dir_ + "/orders.jsonl)");
  Write("manifest.json",
        R"({"containers":[{"database":"d","container":"c","partitionKey":{"paths":["/pk"]},"data":"orders.csv"}]})");
  Write("orders.csv", "id,pk\n");
  EXPECT_EQ(RunError(), dir_ + "/manifest.json: the data file orders.csv is neither .json (an item, or an array of "
                               "items) nor .jsonl or .ndjson (an item per line)");
  Write("manifest.json",
        R"({"containers":[{"database":"d","container":"c","partitionKey":{"paths":["/pk"]},"data":"empty"}]})");
  fs::create_directories(dir_ + "/empty");
  Write("empty/notes.txt", "nothing");
  EXPECT_EQ(RunError(), dir_ + "/manifest.json: the directory empty holds no .json, .jsonl or .ndjson file");
  EXPECT_EQ(Get("/dbs/d").status(), 404);
}

// --- Reading items, and what a bad one does ---

const char* const kMixedLines =
    R"({"id":"a","pk":"p1","n":1})" "\n"
    "\n"
    "   \r\n"
    R"({"id":"b","pk":"p2","n":2})" "\r\n"
    "{not json\n"
    "[1,2]\n"
    R"({"pk":"p1"})" "\n"
    R"({"id":"","pk":"p1"})" "\n"
    R"({"id":"c"})" "\n"
    R"({"id":"d","pk":{"k":1}})" "\n"
    R"({"id":"a","pk":"p1","again":true})" "\n"
    R"({"id":"e","pk":"p1","ttl":0})" "\n"
    R"({"id":"f","pk":5,"n":6})";  // no newline at the end

const std::vector<std::string> kMixedErrors = {
    "orders.jsonl:5: not valid JSON",
    "orders.jsonl:6: not a JSON object (each item must be one)",
    "orders.jsonl:7: The input content is invalid because the required properties - 'id; ' - are missing.",
    "orders.jsonl:8: The input name '' is invalid. Ensure to provide a unique non-empty string less than '255' "
    "characters and containing no '/', '\\\\', '?' or '#'.",
    "orders.jsonl:9: the item has no value at the partition key path /pk",
    "orders.jsonl:10: the value at the partition key path /pk is an object or an array; a partition key value is a "
    "string, a number, true, false or null",
    "orders.jsonl:11: the id \"a\" with partition key [\"p1\"] is already in this load, at orders.jsonl:1",
    "orders.jsonl:12: The input ttl '0' is invalid. Ensure to provide a nonzero positive integer less than or equal "
    "to '2147483647', or '-1' which means never expire.",
};

TEST_F(SeedTest, FailModeReportsEveryBadLineAndLoadsNothing) {
  Write("manifest.json", kOrders);
  Write("orders.jsonl", kMixedLines);
  const auto report = Run();
  EXPECT_FALSE(report.outcome.applied);
  EXPECT_EQ(report.outcome.items, 11u);  // blank lines are not items
  EXPECT_EQ(report.outcome.error_count, 8u);
  EXPECT_EQ(Errors(report.outcome), kMixedErrors);
  EXPECT_EQ(report.outcome.loaded, 0u);
  // Nothing was created either: the database did not exist before.
  EXPECT_EQ(Get("/dbs/shop").status(), 404);
  EXPECT_EQ(report.databases_created, 0u);
  EXPECT_EQ(report.containers_created, 0u);
}

TEST_F(SeedTest, SkipModeLoadsTheGoodLinesAndListsTheOthers) {
  Write("manifest.json", kOrders);
  Write("orders.jsonl", kMixedLines);
  const auto report = Run(seed::OnError::kSkip);
  EXPECT_TRUE(report.outcome.applied);
  EXPECT_EQ(report.outcome.items, 11u);
  EXPECT_EQ(report.outcome.loaded, 3u);
  EXPECT_EQ(report.outcome.created, 3u);
  EXPECT_EQ(report.outcome.error_count, 8u);
  EXPECT_EQ(Errors(report.outcome), kMixedErrors);
  auto ids = Ids("shop", "orders");
  std::sort(ids.begin(), ids.end());
  EXPECT_EQ(ids, (std::vector<std::string>{"a", "b", "f"}));
  // The first "a" is the one kept.
  auto a = Get("/dbs/shop/colls/orders/docs/a", {{"x-ms-documentdb-partitionkey", "[\"p1\"]"}});
  ASSERT_EQ(a.status(), 200) << a;
  EXPECT_FALSE(a.Json().HasMember("again"));
  auto f = Get("/dbs/shop/colls/orders/docs/f", {{"x-ms-documentdb-partitionkey", "[5]"}});
  EXPECT_EQ(f.status(), 200) << f;
}

TEST_F(SeedTest, JsonFilesHoldOneItemOrAnArrayAndErrorsNameTheItem) {
  Write("manifest.json",
        R"({"containers":[{"database":"d","container":"c","partitionKey":{"paths":["/pk"]},"data":["one.json","many.json"]}]})");
  Write("one.json", "\xEF\xBB\xBF\n  {\"id\": \"solo\",\n   \"pk\": \"s\"}\n\n");
  Write("many.json",
        "[\n"
        "  {\"id\": \"m1\", \"pk\": \"a\", \"text\": \"a ] and a , in a string\"},\n"
        "  {\"id\": \"m2\",\n"
        "   \"pk\": \"a\",\n"
        "   \"nested\": {\"list\": [1, {\"x\": \"}\"}]}},\n"
        "  {\"id\": \"m3\", \"pk\": [1]},\n"
        "  \"text\",\n"
        "  {\"id\": \"m4\", \"pk\": \"b\", \"escaped\": \"quote \\\" here\"}\n"
        "]\n");
  auto report = Run();
  EXPECT_EQ(Errors(report.outcome),
            (std::vector<std::string>{"many.json:6 (item 3): the value at the partition key path /pk is an object or "
                                      "an array; a partition key value is a string, a number, true, false or null",
                                      "many.json:7 (item 4): not a JSON object (each item must be one)"}));
  EXPECT_FALSE(report.outcome.applied);
  report = Run(seed::OnError::kSkip);
  EXPECT_EQ(report.outcome.items, 6u);
  EXPECT_EQ(report.outcome.loaded, 4u);
  EXPECT_EQ(Ids("d", "c"), (std::vector<std::string>{"solo", "m1", "m2", "m4"}));
  auto m2 = Get("/dbs/d/colls/c/docs/m2", {{"x-ms-documentdb-partitionkey", "[\"a\"]"}});
  ASSERT_EQ(m2.status(), 200);
  EXPECT_EQ(json::Write(m2.Json()["nested"]), R"({"list":[1,{"x":"}"}]})");
}

TEST_F(SeedTest, BrokenArraysAreReportedWhereTheyBreak) {
  Write("manifest.json",
        R"({"containers":[{"database":"d","container":"c","partitionKey":{"paths":["/pk"]},"data":["a.json","b.json","c.json"]}]})");
  Write("a.json", "[{\"id\":\"1\",\"pk\":\"x\"},,\n{\"id\":\"2\",\"pk\":\"x\"},]");
  Write("b.json", "[{\"id\":\"3\",\"pk\":\"x\"}]\n\n{\"id\":\"4\"}");
  Write("c.json", "[{\"id\":\"5\",\"pk\":\"x\"},\n {\"id\":\"6\",\n \"pk\":\"x\"");
  const auto report = Run(seed::OnError::kSkip);
  EXPECT_EQ(Errors(report.outcome),
            (std::vector<std::string>{"a.json:1 (item 2): an empty item: two commas with nothing between them",
                                      "a.json:2 (item 4): an empty item: a comma before the closing ]",
                                      "b.json:3: text after the closing ] of the array",
                                      "c.json:2 (item 2): the array is not closed: the file ends inside this item"}));
  EXPECT_EQ(Ids("d", "c"), (std::vector<std::string>{"1", "2", "3", "5"}));
}

TEST_F(SeedTest, ItemsOverTwoMegabytesAreRefusedAsARestCreateRefusesThem) {
  Write("manifest.json", kOrders);
  const size_t max = config_.max_item_bytes;
  auto item = [](const std::string& id, size_t bytes) {
    std::string head = "{\"id\":\"" + id + "\",\"pk\":\"p\",\"pad\":\"";
    return head + std::string(bytes - head.size() - 2, 'x') + "\"}";
  };
  // Fits as text, but not with the system properties a write adds.
  const std::string near = item("near", max - 20);
  Write("orders.jsonl", item("small", 1000) + "\n" + item("big", max + 1) + "\n" + near + "\n" +
                            item("fits", max - 400) + "\n");
  const auto report = Run(seed::OnError::kSkip);
  EXPECT_EQ(Errors(report.outcome),
            (std::vector<std::string>{
                "orders.jsonl:2: the item is 2097153 bytes, more than an item may be (2097152 bytes)",
                "orders.jsonl:3: the item is more than 2097152 bytes with its system properties"}));
  EXPECT_EQ(report.outcome.loaded, 2u);
  // The same items through REST: the same answers.
  MakeContainer("shop", "rest");
  EXPECT_EQ(CreateDoc("shop", "rest", item("big", max + 1), "[\"p\"]").status(), 413);
  EXPECT_EQ(CreateDoc("shop", "rest", near, "[\"p\"]").status(), 413);
  EXPECT_EQ(CreateDoc("shop", "rest", item("fits", max - 400), "[\"p\"]").status(), 201);
}

TEST_F(SeedTest, DuplicatesAcrossFilesAreFoundAndADirectoryIsReadInNameOrder) {
  Write("manifest.json",
        R"({"containers":[{"database":"d","container":"c","partitionKey":{"paths":["/pk"]},"data":"parts"}]})");
  Write("parts/b.ndjson", "{\"id\":\"2\",\"pk\":\"x\"}\n{\"id\":\"1\",\"pk\":\"x\"}\n{\"id\":\"1\",\"pk\":\"y\"}\n");
  Write("parts/a.jsonl", "{\"id\":\"1\",\"pk\":\"x\"}\n");
  Write("parts/readme.md", "not data");
  const auto report = Run(seed::OnError::kSkip);
  EXPECT_EQ(Errors(report.outcome),
            std::vector<std::string>{
                "parts/b.ndjson:2: the id \"1\" with partition key [\"x\"] is already in this load, at parts/a.jsonl:1"});
  EXPECT_EQ(Ids("d", "c"), (std::vector<std::string>{"1", "2", "1"}));
  EXPECT_EQ(notices_, std::vector<std::string>{"seed: ignored " + dir_ + "/parts/readme.md (not .json, .jsonl or .ndjson)"});
}

// --- What is created, and what seeded items look like ---

// Issue 41: a seed builds the indexes queries will ask for before the first query does. The
// composite indexes of the policy, and each path the policy indexes at which the first items
// hold scalars: not arrays, not system properties but _ts, not a path holding a string longer than
// 64 bytes (an index of it would copy the strings).
TEST_F(SeedTest, SeedingBuildsTheIndexesQueriesWillAskFor) {
  Write("manifest.json", kOrders);
  std::string lines;
  for (int i = 0; i < 50; ++i) {
    lines += R"({"id":"i)" + std::to_string(i) + R"(","pk":"p)" + std::to_string(i % 3) + R"(","city":"c)" +
             std::to_string(i % 5) + R"(","n":)" + std::to_string(i) + R"(,"nested":{"m":true,"deeper":{"x":{"y":1}}},)" +
             R"("arr":[1,2],"text":")" + std::string(i == 7 ? 65 : 10, 'a') + "\"}\n";
  }
  Write("orders.jsonl", lines);
  EXPECT_EQ(Run().outcome.loaded, 50u);
  auto c = account_.FindDatabase("shop")->FindContainer("orders");
  const auto names = [](std::vector<std::vector<std::string>> paths) {
    std::vector<std::string> out;
    for (const auto& p : paths) {
      store::DocPath path;
      for (const auto& step : p) path.push_back(store::PathStep{step, -1});
      out.push_back(store::PathName(path));
    }
    std::sort(out.begin(), out.end());
    return out;
  };
  for (const auto* part : c->partitions()) {
    if (part->Count() == 0) continue;
    EXPECT_EQ(part->IndexNames(), names({{"_ts"}, {"city"}, {"id"}, {"n"}, {"nested", "m"}, {"pk"}}));
  }
}

// The manifest may name the container's indexing policy (the REST create's "indexingPolicy"): the
// container is created with it, the seed builds its composite indexes ahead with the rest, and an
// existing container must have it (as the service normalises it).
TEST_F(SeedTest, AManifestNamesTheIndexingPolicyTheSeedBuildsAhead) {
  const std::string policy =
      R"({"excludedPaths":[{"path":"/nested/*"}],"compositeIndexes":[[{"path":"/city","order":"ascending"},)"
      R"({"path":"/n","order":"descending"}]]})";
  Write("manifest.json",
        R"({"containers":[{"database":"shop","container":"orders","partitionKey":{"paths":["/pk"]},"indexingPolicy":)" +
            policy + R"(,"data":"orders.jsonl"}]})");
  std::string lines;
  for (int i = 0; i < 50; ++i) {
    lines += R"({"id":"i)" + std::to_string(i) + R"(","pk":"p)" + std::to_string(i % 3) + R"(","city":"c)" +
             std::to_string(i % 5) + R"(","n":)" + std::to_string(i) + R"(,"nested":{"m":true}})" + "\n";
  }
  Write("orders.jsonl", lines);
  EXPECT_EQ(Run().outcome.loaded, 50u);
  auto got = Get("/dbs/shop/colls/orders");
  ASSERT_EQ(got.status(), 200) << got;
  json::Document given;
  ASSERT_EQ(json::Parse(policy, given), json::ParseStatus::kOk);
  const std::string normalised = json::Write(store::IndexingPolicy::FromJson(&given).raw);
  EXPECT_EQ(json::Write(got.Json()["indexingPolicy"]), normalised);
  store::IndexColumns composite{{{store::PathStep{"city", -1}}, false}, {{store::PathStep{"n", -1}}, true}};
  std::vector<std::string> want{store::IndexName(composite)};
  for (const char* p : {"_ts", "city", "id", "n", "pk"}) want.push_back(store::PathName({store::PathStep{p, -1}}));
  std::sort(want.begin(), want.end());
  auto c = account_.FindDatabase("shop")->FindContainer("orders");
  for (const auto* part : c->partitions()) {
    if (part->Count() == 0) continue;
    auto names = part->IndexNames();
    std::sort(names.begin(), names.end());
    EXPECT_EQ(names, want);
  }
  // The two-path ORDER BY the composite index serves (400 without it, as on the service).
  auto q = Post("/dbs/shop/colls/orders/docs", R"({"query":"SELECT VALUE c.n FROM c ORDER BY c.city, c.n DESC"})",
                {{"x-ms-documentdb-isquery", "True"}, {"x-ms-documentdb-partitionkey", "[\"p0\"]"},
                 {"content-type", "application/query+json"}});
  EXPECT_EQ(q.status(), 200) << q;
  // Seeding again with the same policy uses the container; another policy, or a bad one, stops.
  EXPECT_EQ(RunError(), "");
  Write("manifest.json",
        R"({"containers":[{"database":"shop","container":"orders","partitionKey":{"paths":["/pk"]},"indexingPolicy":{},"data":"orders.jsonl"}]})");
  const std::string other = RunError();
  EXPECT_EQ(other.rfind("container shop/orders exists with the indexing policy " + normalised + "; the manifest says ", 0), 0u)
      << other;
  Write("manifest.json",
        R"({"containers":[{"database":"shop","container":"orders","partitionKey":{"paths":["/pk"]},"indexingPolicy":[],"data":"orders.jsonl"}]})");
  EXPECT_EQ(RunError(), dir_ + "/manifest.json: containers[0]: \"indexingPolicy\" must be an object, as in the body of a "
                               "REST container create");
  Write("manifest.json",
        R"({"containers":[{"database":"shop","container":"orders","partitionKey":{"paths":["/pk"]},"indexingPolicy":{"indexingMode":"sometimes"},"data":"orders.jsonl"}]})");
  EXPECT_EQ(RunError().rfind(dir_ + "/manifest.json: containers[0]: \"indexingPolicy\": ", 0), 0u);
}

TEST_F(SeedTest, SeededItemsCarryTheSystemPropertiesOfARestCreate) {
  Write("manifest.json", kOrders);
  Write("orders.jsonl", R"({"z":1,"id":"a","pk":"p","_rid":"mine","_ts":5,"_etag":"x","nested":{"n":1.50}})" "\n");
  const auto report = Run();
  EXPECT_EQ(report.outcome.loaded, 1u);
  MakeContainer("shop", "rest", "", R"({"paths":["/pk"],"kind":"Hash","version":2})");
  ASSERT_EQ(CreateDoc("shop", "rest", R"({"z":1,"id":"a","pk":"p","_rid":"mine","_ts":5,"_etag":"x","nested":{"n":1.50}})",
                      "[\"p\"]")
                .status(),
            201);
  auto seeded = Get("/dbs/shop/colls/orders/docs/a", {{"x-ms-documentdb-partitionkey", "[\"p\"]"}}).Json();
  auto rest = Get("/dbs/shop/colls/rest/docs/a", {{"x-ms-documentdb-partitionkey", "[\"p\"]"}}).Json();
  auto names = [](const json::Value& v) {
    std::vector<std::string> out;
    for (auto& m : v.GetObject()) out.emplace_back(m.name.GetString());
    return out;
  };
  EXPECT_EQ(names(seeded), (std::vector<std::string>{"z", "id", "pk", "nested", "_rid", "_self", "_etag",
                                                     "_attachments", "_ts"}));
  EXPECT_EQ(names(seeded), names(rest));
  const std::string coll_rid = Get("/dbs/shop/colls/orders").Str("_rid");
  const std::string rid = seeded["_rid"].GetString();
  EXPECT_EQ(rid.size(), 24u);
  EXPECT_EQ(std::string(seeded["_self"].GetString()),
            "dbs/" + Get("/dbs/shop").Str("_rid") + "/colls/" + coll_rid + "/docs/" + rid + "/");
  EXPECT_EQ(json::Write(seeded["nested"]), json::Write(rest["nested"]));
  EXPECT_EQ(std::string(seeded["_attachments"].GetString()), "attachments/");
  EXPECT_EQ(seeded["_ts"].GetInt64(), wall_.UnixSeconds());
  EXPECT_EQ(std::string(seeded["_etag"].GetString()).size(), std::string(rest["_etag"].GetString()).size());
  // Found by its rid too, and in the change feed as a create.
  auto by_rid = Get("/dbs/" + Get("/dbs/shop").Str("_rid") + "/colls/" + coll_rid + "/docs/" + rid,
                    {{"x-ms-documentdb-partitionkey", "[\"p\"]"}});
  EXPECT_EQ(by_rid.status(), 200) << by_rid;
  auto feed = Get("/dbs/shop/colls/orders/docs", {{"A-IM", "Incremental feed"}, {"x-ms-documentdb-partitionkey", "[\"p\"]"}});
  EXPECT_EQ(feed.status(), 200);
  EXPECT_EQ(feed.Json()["Documents"].Size(), 1u);
}

TEST_F(SeedTest, CreatesDatabasesAndContainersWithTheManifestSettings) {
  Write("manifest.json", R"({"containers":[
    {"database":"own","container":"c","partitionKey":{"paths":["/pk"],"version":2},"throughput":{"manual":12000},"data":"a.jsonl"},
    {"database":"own","container":"auto","partitionKey":{"paths":["/pk"]},"throughput":{"autoscale":4000},"partitionCount":3,"data":"a.jsonl"},
    {"database":"shared","databaseThroughput":{"manual":1000},"container":"s","partitionKey":{"paths":["/t","/u"],"kind":"MultiHash"},"data":"h.jsonl"}]})");
  Write("a.jsonl", "{\"id\":\"1\",\"pk\":\"x\"}\n{\"id\":\"2\",\"pk\":\"y\"}\n");
  Write("h.jsonl", "{\"id\":\"1\",\"t\":\"x\",\"u\":\"y\"}\n{\"id\":\"1\",\"t\":\"x\",\"u\":\"z\"}\n");
  const auto report = Run();
  EXPECT_EQ(report.databases_created, 2u);
  EXPECT_EQ(report.containers_created, 3u);
  EXPECT_EQ(report.containers, 3u);
  EXPECT_EQ(report.files, 3u);
  EXPECT_EQ(report.outcome.loaded, 6u);
  EXPECT_EQ(json::Write(Get("/dbs/own/colls/c").Json()["partitionKey"]), R"({"paths":["/pk"],"kind":"Hash","version":2})");
  EXPECT_EQ(json::Write(Get("/dbs/own/colls/auto").Json()["partitionKey"]), R"({"paths":["/pk"],"kind":"Hash","version":1})");
  EXPECT_EQ(json::Write(Get("/dbs/shared/colls/s").Json()["partitionKey"]),
            R"({"paths":["/t","/u"],"kind":"MultiHash","version":2})");
  // Partitions: 12,000 RU/s gives two; the manifest asks three for "auto"; the shared one has one.
  EXPECT_EQ(Get("/dbs/own/colls/c/pkranges").Json()["PartitionKeyRanges"].Size(), 2u);
  EXPECT_EQ(Get("/dbs/own/colls/auto/pkranges").Json()["PartitionKeyRanges"].Size(), 3u);
  EXPECT_EQ(Get("/dbs/shared/colls/s/pkranges").Json()["PartitionKeyRanges"].Size(), 1u);
  std::map<std::string, std::string> offers;  // resource rid -> throughput
  const json::Document offer_feed = Get("/offers").Json();  // kept: the loop reads into it
  for (const auto& o : offer_feed["Offers"].GetArray()) {
    const auto& content = o["content"];
    std::string t = content.HasMember("offerAutopilotSettings")
                        ? "autoscale " + std::to_string(content["offerAutopilotSettings"]["maxThroughput"].GetInt())
                        : "manual " + std::to_string(content["offerThroughput"].GetInt());
    offers[o["offerResourceId"].GetString()] = t;
  }
  EXPECT_EQ(offers, (std::map<std::string, std::string>{{Get("/dbs/own/colls/c").Str("_rid"), "manual 12000"},
                                                        {Get("/dbs/own/colls/auto").Str("_rid"), "autoscale 4000"},
                                                        {Get("/dbs/shared").Str("_rid"), "manual 1000"}}));
}

TEST_F(SeedTest, ExistingContainersAreUsedAndSeedingAgainReplaces) {
  Write("manifest.json", kOrders);
  Write("orders.jsonl", "{\"id\":\"1\",\"pk\":\"x\",\"v\":1}\n{\"id\":\"2\",\"pk\":\"y\",\"v\":1}\n");
  auto first = Run();
  EXPECT_EQ(first.outcome.created, 2u);
  const std::string rid = Get("/dbs/shop/colls/orders/docs/1", {{"x-ms-documentdb-partitionkey", "[\"x\"]"}}).Str("_rid");
  Write("orders.jsonl", "{\"id\":\"1\",\"pk\":\"x\",\"v\":2}\n{\"id\":\"3\",\"pk\":\"y\",\"v\":2}\n");
  auto second = Run();
  EXPECT_EQ(second.databases_created, 0u);
  EXPECT_EQ(second.containers_created, 0u);
  EXPECT_EQ(second.outcome.created, 1u);
  EXPECT_EQ(second.outcome.replaced, 1u);
  auto one = Get("/dbs/shop/colls/orders/docs/1", {{"x-ms-documentdb-partitionkey", "[\"x\"]"}});
  EXPECT_EQ(one.Json()["v"].GetInt(), 2);
  EXPECT_EQ(one.Str("_rid"), rid);  // replaced in place, as an upsert does
  EXPECT_EQ(Ids("shop", "orders"), (std::vector<std::string>{"1", "2", "3"}));
}

TEST_F(SeedTest, WhatExistsMustBeWhatTheManifestDescribes) {
  Write("orders.jsonl", "{\"id\":\"1\",\"pk\":\"x\"}\n");
  MakeDatabase("shop");
  MakeContainer("shop", "orders", "", R"({"paths":["/customer"],"kind":"Hash","version":2})");
  Write("manifest.json", kOrders);
  EXPECT_EQ(RunError(), "container shop/orders exists with partition key Hash (/customer) version 2; the manifest says "
                        "Hash (/pk) version 2");
  ASSERT_EQ(Delete("/dbs/shop/colls/orders").status(), 204);
  MakeContainer("shop", "orders", "", R"({"paths":["/pk"],"kind":"Hash","version":2})");
  Write("manifest.json",
        R"({"containers":[{"database":"shop","container":"orders","partitionKey":{"paths":["/pk"]},"throughput":{"manual":500},"data":"orders.jsonl"}]})");
  EXPECT_EQ(RunError(), "container shop/orders exists with manual 400 RU/s; the manifest says manual 500 RU/s");
  Write("manifest.json",
        R"({"containers":[{"database":"shop","container":"orders","partitionKey":{"paths":["/pk"]},"partitionCount":2,"data":"orders.jsonl"}]})");
  EXPECT_EQ(RunError(), "container shop/orders exists with 1 physical partitions; the manifest says 2");
  Write("manifest.json",
        R"({"containers":[{"database":"shop","databaseThroughput":{"manual":400},"container":"orders","partitionKey":{"paths":["/pk"]},"data":"orders.jsonl"}]})");
  EXPECT_EQ(RunError(), "database shop exists without shared throughput; the manifest gives it manual 400 RU/s");
  // Without "version" any version of those paths will do.
  Write("manifest.json",
        R"({"containers":[{"database":"shop","container":"orders","partitionKey":{"paths":["/pk"]},"data":"orders.jsonl"}]})");
  EXPECT_EQ(RunError(), "");
  MakeContainer("shop", "unique", R"("uniqueKeyPolicy":{"uniqueKeys":[{"paths":["/email"]}]})");
  Write("manifest.json",
        R"({"containers":[{"database":"shop","container":"unique","partitionKey":{"paths":["/pk"]},"data":"orders.jsonl"}]})");
  EXPECT_EQ(RunError(), "container shop/unique has unique keys: items are not loaded into such containers (a "
                        "unique-key conflict would stop a load half-way); create them with the REST API instead");
}

TEST_F(SeedTest, AFailedSeedTakesAwayWhatItCreated) {
  MakeDatabase("shop");
  Write("manifest.json", R"({"containers":[
    {"database":"shop","container":"orders","partitionKey":{"paths":["/pk"]},"data":"good.jsonl"},
    {"database":"other","container":"c","partitionKey":{"paths":["/pk"]},"data":"bad.jsonl"}]})");
  Write("good.jsonl", "{\"id\":\"1\",\"pk\":\"x\"}\n");
  Write("bad.jsonl", "{\"id\":\"1\"}\n");
  const auto report = Run();
  EXPECT_FALSE(report.outcome.applied);
  EXPECT_EQ(Errors(report.outcome), std::vector<std::string>{"bad.jsonl:1: the item has no value at the partition key path /pk"});
  EXPECT_EQ(Get("/dbs/shop").status(), 200);
  EXPECT_EQ(Get("/dbs/shop/colls/orders").status(), 404);
  EXPECT_EQ(Get("/dbs/other").status(), 404);
}

TEST_F(SeedTest, SeedingChargesNothingAndIsNotInTheRuReport) {
  Write("manifest.json", kOrders);
  Write("orders.jsonl", "{\"id\":\"1\",\"pk\":\"x\"}\n");
  Run();
  EXPECT_EQ(Get("/_emulator/stats").body(), R"({"containers":[]})");
}

TEST_F(SeedTest, SeededItemsAreDurableInTheDataDirectory) {
  const std::string data = dir_ + "-data";
  fs::remove_all(data);
  Write("manifest.json", R"({"containers":[
    {"database":"shop","container":"orders","partitionKey":{"paths":["/pk"]},"throughput":{"manual":12000},"data":"orders.jsonl"}]})");
  std::string lines;
  for (int i = 0; i < 100; ++i) lines += "{\"id\":\"" + std::to_string(i) + "\",\"pk\":\"p" + std::to_string(i % 7) + "\"}\n";
  Write("orders.jsonl", lines);
  std::string before;
  {
    store::Account account;
    http::Services services{account, config_, limiter_, stats_, wall_};
    persist::RecoveryReport recovered;
    auto p = OpenData(account, data, recovered);
    EXPECT_EQ(Run(seed::OnError::kFail, &services).outcome.loaded, 100u);
    before = account.FindDatabase("shop")->FindContainer("orders")->ToJson();
    // Dropped as a process killed: no checkpoint, the log alone.
  }
  store::Account account;
  persist::RecoveryReport recovered;
  auto p = OpenData(account, data, recovered);
  EXPECT_EQ(recovered.databases, 1u);
  EXPECT_EQ(recovered.containers, 1u);
  EXPECT_EQ(recovered.items, 100u);
  auto c = account.FindDatabase("shop")->FindContainer("orders");
  EXPECT_EQ(c->ToJson(), before);
  EXPECT_EQ(c->partitions().size(), 2u);
  EXPECT_EQ(c->offer()->throughput().ru, 12000);
  p.reset();
  fs::remove_all(data);
}

TEST_F(SeedTest, AFailedSeedLeavesNothingInTheDataDirectory) {
  const std::string data = dir_ + "-data";
  fs::remove_all(data);
  Write("manifest.json", kOrders);
  Write("orders.jsonl", "{\"id\":\"1\",\"pk\":\"x\"}\n{\"id\":2,\"pk\":\"x\"}\n");
  {
    store::Account account;
    http::Services services{account, config_, limiter_, stats_, wall_};
    persist::RecoveryReport recovered;
    auto p = OpenData(account, data, recovered);
    EXPECT_FALSE(Run(seed::OnError::kFail, &services).outcome.applied);
  }
  store::Account account;
  persist::RecoveryReport recovered;
  auto p = OpenData(account, data, recovered);
  EXPECT_EQ(recovered.databases, 0u);
  EXPECT_EQ(recovered.items, 0u);
  EXPECT_EQ(account.FindDatabase("shop"), nullptr);
  p.reset();
  fs::remove_all(data);
}

// --- POST /_emulator/import ---

class ImportTest : public SeedTest {
 protected:
  void SetUp() override {
    seed::ServeImport(services_);  // as main does
    MakeDatabase("shop");
    MakeContainer("shop", "orders");
  }
  Reply Import(const std::string& query, const std::string& body, const SignOptions& opt = {}) {
    return Call(bh::verb::post, "/_emulator/import" + query, body, {}, opt);
  }
};

TEST_F(ImportTest, LoadsJsonLinesAndAnswersTheCounts) {
  ASSERT_EQ(CreateDoc("shop", "orders", R"({"id":"old","pk":"x","v":1})", "[\"x\"]").status(), 201);
  ASSERT_EQ(Delete("/_emulator/stats").status(), 204);
  auto r = Import("?database=shop&container=orders",
                  "{\"id\":\"old\",\"pk\":\"x\",\"v\":2}\n\n{\"id\":\"new\",\"pk\":\"y\"}\n");
  EXPECT_EQ(r.status(), 200) << r;
  EXPECT_EQ(r.body(),
            R"({"database":"shop","container":"orders","items":2,"loaded":2,"created":1,"replaced":1,"skipped":0,"errors":[]})");
  EXPECT_EQ(r.Charge(), "0");
  EXPECT_EQ(Get("/_emulator/stats").body(), R"({"containers":[]})");  // an import is not a request on the container
  EXPECT_EQ(Get("/dbs/shop/colls/orders/docs/old", {{"x-ms-documentdb-partitionkey", "[\"x\"]"}}).Json()["v"].GetInt(), 2);
  EXPECT_EQ(Ids("shop", "orders"), (std::vector<std::string>{"old", "new"}));
}

TEST_F(ImportTest, AnArrayBodyIsReadAsItsItems) {
  auto r = Import("?database=shop&container=orders", "[\n {\"id\":\"a\",\"pk\":\"x\"},\n {\"id\":\"b\",\"pk\":\"x\"}\n]");
  EXPECT_EQ(r.status(), 200) << r;
  EXPECT_EQ(r.body(),
            R"({"database":"shop","container":"orders","items":2,"loaded":2,"created":2,"replaced":0,"skipped":0,"errors":[]})");
}

TEST_F(ImportTest, FailModeAnswers400AndLoadsNothing) {
  auto r = Import("?database=shop&container=orders", "{\"id\":\"a\",\"pk\":\"x\"}\n{oops\n{\"id\":\"b\"}\n");
  EXPECT_EQ(r.status(), 400) << r;
  EXPECT_EQ(r.Code(), "BadRequest");
  EXPECT_EQ(r.Message(), "2 items of the body cannot be loaded, so nothing was loaded (errors=skip loads the others). "
                         "line 2: not valid JSON");
  auto d = r.Json();
  EXPECT_EQ(json::Write(d["errors"]),
            R"([{"line":2,"message":"not valid JSON"},{"line":3,"message":"the item has no value at the partition key path /pk"}])");
  EXPECT_EQ(d["items"].GetInt(), 3);
  EXPECT_EQ(d["loaded"].GetInt(), 0);
  EXPECT_EQ(d["errorCount"].GetInt(), 2);
  EXPECT_TRUE(Ids("shop", "orders").empty());
}

TEST_F(ImportTest, SkipModeLoadsTheRestAndListsTheSkipped) {
  auto r = Import("?database=shop&container=orders&errors=skip",
                  "[{\"id\":\"a\",\"pk\":\"x\"},\n 7,\n{\"id\":\"a\",\"pk\":\"x\"}]");
  EXPECT_EQ(r.status(), 200) << r;
  EXPECT_EQ(r.body(),
            R"J({"database":"shop","container":"orders","items":3,"loaded":1,"created":1,"replaced":0,"skipped":2,)J"
            R"J("errors":[{"line":2,"item":2,"message":"not a JSON object (each item must be one)"},)J"
            R"J({"line":3,"item":3,"message":"the id \"a\" with partition key [\"x\"] is already in this load, at line 1 (item 1)"}]})J");
  EXPECT_EQ(Ids("shop", "orders"), std::vector<std::string>{"a"});
}

TEST_F(ImportTest, NeedsAMasterKey) {
  const std::string body = "{\"id\":\"a\",\"pk\":\"x\"}";
  auto none = Import("?database=shop&container=orders", body, NoSignature());
  EXPECT_EQ(none.status(), 401) << none;
  EXPECT_EQ(none.Code(), "Unauthorized");
  auto wrong = Import("?database=shop&container=orders", body, SignedWith("another key"));
  EXPECT_EQ(wrong.status(), 401);
  EXPECT_NE(wrong.Message().find("'post\\n_emulator\\n_emulator/import\\n"), std::string::npos) << wrong.Message();
  config_.readonly_key = "a read-only key";
  EXPECT_EQ(Import("?database=shop&container=orders", body, SignedWith(config_.readonly_key)).status(), 401);
  config_.secondary_key = "a secondary key";
  EXPECT_EQ(Import("?database=shop&container=orders", body, SignedWith(config_.secondary_key)).status(), 200);
  EXPECT_EQ(Ids("shop", "orders"), std::vector<std::string>{"a"});
}

TEST_F(ImportTest, RefusesWhatItCannotDo) {
  auto expect = [&](const std::string& query, const std::string& body, int status, const std::string& message) {
    auto r = Import(query, body);
    EXPECT_EQ(r.status(), status) << query << " " << r;
    EXPECT_EQ(r.Message().substr(0, r.Message().find("\r\nActivityId")), message) << query;
  };
  const std::string usage =
      "POST /_emulator/import?database=DB&container=COLL[&errors=fail|skip] with the items as JSON lines or a JSON "
      "array (docs/seeding.md).";
  const std::string item = "{\"id\":\"a\",\"pk\":\"x\"}";
  expect("", item, 400, "Message: {\"Errors\":[\"The query parameters 'database' and 'container' are required. " + usage + "\"]}");
  expect("?database=shop&container=orders&mode=x", item, 400,
         "Message: {\"Errors\":[\"Unknown query parameter 'mode'. " + usage + "\"]}");
  expect("?database=shop&container=orders&errors=maybe", item, 400,
         "Message: {\"Errors\":[\"The query parameter 'errors' must be fail or skip, not 'maybe'.\"]}");
  expect("?database=nope&container=orders", item, 404, "The database 'nope' does not exist.");
  expect("?database=shop&container=nope", item, 404, "The container 'shop/nope' does not exist.");
  expect("?database=shop&container=orders", " \n \n", 400,
         "Message: {\"Errors\":[\"The body holds no item. " + usage + "\"]}");
  auto get = Call(bh::verb::get, "/_emulator/import?database=shop&container=orders");
  EXPECT_EQ(get.status(), 405) << get;
  // Percent-encoded names.
  MakeContainer("shop", "a b");
  auto r = Import("?database=shop&container=a%20b", item);
  EXPECT_EQ(r.status(), 200) << r;
  EXPECT_EQ(r.Str("container"), "a b");
}

}  // namespace
}  // namespace cosmos::testing
