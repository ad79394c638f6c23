// Issue 41: indexes built ahead in the background. A container replace that changes the indexing
// policy builds the indexes the new policy asks for (its composite indexes) without a query
// asking, and a container read with x-ms-documentdb-populatequotainfo: true reports the progress in
// x-ms-documentdb-collection-index-transformation-progress (0 to 100, 100 once built). A container
// that grows by ordinary writes gets its indexes built as it passes 1,024 items.
#include <algorithm>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "http_test_util.h"
#include "store/path_index.h"
#include "store/store.h"

namespace cosmos {
namespace {

using testing::Reply;

constexpr const char kProgress[] = "x-ms-documentdb-collection-index-transformation-progress";

class IndexBuildTest : public testing::EmulatorTest {
 protected:
  void SetUp() override { MakeDatabase("db"); }

  void Fill(const std::string& coll, int from, int to) {
    for (int i = from; i < to; ++i) {
      const std::string pk = "k" + std::to_string(i % 10);
      auto r = CreateDoc("db", coll,
                         R"({"id":"d)" + std::to_string(i) + R"(","pk":")" + pk + R"(","city":"c)" +
                             std::to_string(i % 20) + R"(","n":)" + std::to_string(i) + "}",
                         "[\"" + pk + "\"]");
      ASSERT_EQ(r.status(), 201) << r;
    }
  }

  // The container's partitions holding items that do not keep index `name`.
  int PartitionsWithout(const std::string& coll, const std::string& name) {
    int n = 0;
    for (const auto* p : account_.FindDatabase("db")->FindContainer(coll)->partitions()) {
      const auto names = p->IndexNames();
      if (p->Count() > 0 && std::find(names.begin(), names.end(), name) == names.end()) ++n;
    }
    return n;
  }

  // Reads the progress until it is 100 (a generous deadline: no timing is asserted); every value
  // read on the way is an integer from 0 to 100.
  std::string AwaitProgress(const std::string& coll) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    std::string value;
    while (std::chrono::steady_clock::now() < deadline) {
      auto r = Get("/dbs/db/colls/" + coll, {{"x-ms-documentdb-populatequotainfo", "true"}});
      EXPECT_EQ(r.status(), 200) << r;
      value = r.Header(kProgress);
      EXPECT_FALSE(value.empty());
      EXPECT_TRUE(std::all_of(value.begin(), value.end(), [](char ch) { return ch >= '0' && ch <= '9'; })) << value;
      if (value.empty() || std::stoi(value) > 100) break;
      if (value == "100") break;
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    return value;
  }

  static store::DocPath Path(const char* name) { return store::DocPath{store::PathStep{name, -1}}; }
};

const char kComposite[] =
    R"("indexingPolicy":{"compositeIndexes":[[{"path":"/city","order":"ascending"},{"path":"/n","order":"descending"}]]})";

TEST_F(IndexBuildTest, APolicyReplaceBuildsItsCompositeIndexWithoutAQuery) {
  MakeContainer("db", "c", "", R"({"paths":["/pk"]})");
  Fill("c", 0, 3000);
  const std::string name = store::IndexName({{Path("city"), false}, {Path("n"), true}});
  EXPECT_EQ(PartitionsWithout("c", name), 1);
  EXPECT_EQ(AwaitProgress("c"), "100");  // no policy change waits
  auto r = Put("/dbs/db/colls/c", std::string(R"({"id":"c","partitionKey":{"paths":["/pk"]},)") + kComposite + "}");
  ASSERT_EQ(r.status(), 200) << r;
  EXPECT_EQ(AwaitProgress("c"), "100");
  EXPECT_EQ(PartitionsWithout("c", name), 0);
  // Without populatequotainfo the read carries no progress, as the service's.
  EXPECT_FALSE(Get("/dbs/db/colls/c").Has(kProgress));
}

// Writes made while the background build runs are in the index it keeps: the ORDER BY the
// composite index serves answers what the items hold after the writes.
TEST_F(IndexBuildTest, WritesDuringTheBackgroundBuildAreInTheBuiltIndex) {
  MakeContainer("db", "w", "", R"({"paths":["/pk"]})");
  ASSERT_EQ(account_.FindDatabase("db")->FindContainer("w")->partition_count(), 1u);
  Fill("w", 0, 12000);
  auto r = Put("/dbs/db/colls/w", std::string(R"({"id":"w","partitionKey":{"paths":["/pk"]},)") + kComposite + "}");
  ASSERT_EQ(r.status(), 200) << r;
  // At once (the build is under way or queued): creates, replaces that move items, deletes.
  Fill("w", 12000, 12300);
  for (int i = 0; i < 300; ++i) {
    const std::string id = "d" + std::to_string(i * 37);
    const std::string pk = "k" + std::to_string((i * 37) % 10);
    auto up = Put("/dbs/db/colls/w/docs/" + id,
                  R"({"id":")" + id + R"(","pk":")" + pk + R"(","city":"c3","n":)" + std::to_string(50000 + i) + "}",
                  {{"x-ms-documentdb-partitionkey", "[\"" + pk + "\"]"}});
    ASSERT_EQ(up.status(), 200) << up;
  }
  for (int i = 0; i < 300; ++i) {
    const int k = i * 37 + 1;
    auto del = Delete("/dbs/db/colls/w/docs/d" + std::to_string(k),
                      {{"x-ms-documentdb-partitionkey", "[\"k" + std::to_string(k % 10) + "\"]"}});
    ASSERT_EQ(del.status(), 204) << del;
  }
  EXPECT_EQ(AwaitProgress("w"), "100");
  const std::string name = store::IndexName({{Path("city"), false}, {Path("n"), true}});
  EXPECT_EQ(PartitionsWithout("w", name), 0);
  // The ORDER BY over the composite walks the index built in the background; the same rows
  // sorted here from a full read are the truth.
  auto rows = [&](const std::string& text) {
    std::vector<std::string> out;
    std::string continuation;
    do {
      std::string body = "{\"query\":";
      json::WriteString(body, text);
      body += "}";
      testing::Headers h{{"x-ms-documentdb-isquery", "True"},
                         {"x-ms-documentdb-partitionkeyrangeid", "0"},  // (the one range)
                         {"x-ms-max-item-count", "1000"}};
      if (!continuation.empty()) h.emplace_back("x-ms-continuation", continuation);
      auto req = Build(boost::beast::http::verb::post, "/dbs/db/colls/w/docs", body, h);
      req.set(boost::beast::http::field::content_type, "application/query+json");
      Reply q = Send(req);
      EXPECT_EQ(q.status(), 200) << q;
      if (q.status() != 200) break;
      const auto page = q.Json();
      for (const auto& v : page["Documents"].GetArray()) out.push_back(json::Write(v));
      continuation = q.Header("x-ms-continuation");
    } while (!continuation.empty());
    return out;
  };
  const auto ordered = rows("SELECT c.id, c.city, c.n FROM c ORDER BY c.city ASC, c.n DESC");
  struct Row {
    std::string city;
    int64_t n;
    std::string text;
  };
  std::vector<Row> all;
  for (const auto& text : rows("SELECT c.id, c.city, c.n FROM c")) {
    json::Document d;
    json::Parse(text, d);
    all.push_back({d["city"].GetString(), d["n"].GetInt64(), text});
  }
  EXPECT_EQ(all.size(), 12000u);
  std::sort(all.begin(), all.end(), [](const Row& a, const Row& b) {
    return a.city != b.city ? a.city < b.city : a.n > b.n;  // (n distinct: no ties)
  });
  std::vector<std::string> want;
  for (const auto& row : all) want.push_back(row.text);
  EXPECT_EQ(ordered, want);
}

// A container filled by ordinary creates has its indexes built as it passes 1,024 items (in the
// background), kept by every write after: the first query finds them.
TEST_F(IndexBuildTest, GrowthBuildsTheIndexesAheadOfTheFirstQuery) {
  MakeContainer("db", "g", std::string(kComposite), R"({"paths":["/pk"]})");
  Fill("g", 0, 1023);
  const std::string composite = store::IndexName({{Path("city"), false}, {Path("n"), true}});
  const std::string city = store::PathName(Path("city"));
  EXPECT_EQ(PartitionsWithout("g", composite), 1);
  Fill("g", 1023, 1100);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while ((PartitionsWithout("g", composite) > 0 || PartitionsWithout("g", city) > 0) &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  EXPECT_EQ(PartitionsWithout("g", composite), 0);
  EXPECT_EQ(PartitionsWithout("g", city), 0);
  // No policy change: the progress stays 100.
  EXPECT_EQ(Get("/dbs/db/colls/g", {{"x-ms-documentdb-populatequotainfo", "true"}}).Header(kProgress), "100");
}

}  // namespace
}  // namespace cosmos
