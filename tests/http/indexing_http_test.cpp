// The indexing policy through Handle(): created, returned and replaced exactly; the queries the
// service refuses for lack of an index (several ORDER BY items without a composite index, ORDER BY
// on an excluded path, filters in mode none without the scan header), with their status, body and
// charge; spatial indexes in write and query charges; a replaced policy applies to the next request.
#include <cmath>
#include <string>
#include <vector>

#include "http_test_util.h"

namespace cosmos::testing {
namespace {

constexpr const char* kColls = "/dbs/db1/colls";

std::string Wrapped(const std::string& text) { return "Message: {\"Errors\":[\"" + text + "\"]}"; }

const std::string kNoComposite =
    Wrapped("The order by query does not have a corresponding composite index that it can be served from.");
const std::string kExcluded = Wrapped("The index path corresponding to the specified order-by item is excluded.");
const std::string kNeedsScan = Wrapped(
    "An invalid query has been specified with filters against path(s) excluded from indexing. Consider adding allow "
    "scan header in the request.");

double Round2(double v) { return std::round(v * 100.0) / 100.0; }

// The query-page model of docs/request-units.md for one partition.
double QueryModel(const std::vector<double>& loaded_kb, const std::vector<double>& scanned_kb) {
  double c = 2.7;
  for (double kb : loaded_kb) c += 0.10 + 0.068 * kb;
  for (double kb : scanned_kb) c += 0.02 + 0.0072 * kb;
  return Round2(c);
}

double CreateRaw(double kb, int terms) { return 4.6 + 0.60 * kb + 0.38 * terms; }
double CreateModel(double kb, int terms) { return Round2(CreateRaw(kb, terms)); }

class IndexingTest : public EmulatorTest {
 protected:
  void SetUp() override { MakeDatabase("db1"); }

  Reply CreateColl(const std::string& id, const std::string& policy, const std::string& extra = "") {
    std::string body = R"({"id":")" + id + R"(","partitionKey":{"paths":["/pk"]})";
    if (!policy.empty()) body += R"(,"indexingPolicy":)" + policy;
    body += extra + "}";
    return Post(kColls, body);
  }
  Reply ReplaceColl(const std::string& id, const std::string& policy) {
    return Put(std::string(kColls) + "/" + id,
               R"({"id":")" + id + R"(","partitionKey":{"paths":["/pk"]},"indexingPolicy":)" + policy + "}");
  }
  Reply Doc(const std::string& coll, const std::string& body) { return CreateDoc("db1", coll, body, R"(["p"])"); }
  // KB of the stored text, as the charge model counts it.
  double StoredKb(const std::string& coll, const std::string& id) {
    auto r = Get(std::string(kColls) + "/" + coll + "/docs/" + id, {{"x-ms-documentdb-partitionkey", R"(["p"])"}});
    EXPECT_EQ(r.status(), 200) << r;
    return static_cast<double>(r.body().size()) / 1024.0;
  }
  Reply Query(const std::string& coll, const std::string& text, Headers h = {}) {
    h.emplace_back("x-ms-documentdb-isquery", "True");
    h.emplace_back("content-type", "application/query+json");
    h.emplace_back("x-ms-documentdb-query-enablecrosspartition", "True");
    // Unless scoped otherwise, to the one partition key range, as the SDKs send each range its query
    // (whole, the gateway would answer ORDER BY and aggregates with 400/1004 and the plan).
    bool scoped = false;
    for (const auto& [k, v] : h) scoped = scoped || k == "x-ms-documentdb-partitionkey" || k == "x-ms-documentdb-partitionkeyrangeid";
    if (!scoped) h.emplace_back("x-ms-documentdb-partitionkeyrangeid", "0");
    return Post(std::string(kColls) + "/" + coll + "/docs", R"({"query":)" + Quote(text) + "}", h);
  }
  static std::string Quote(const std::string& s) {
    std::string out;
    json::WriteString(out, s);
    return out;
  }
  // The ids of a successful query page, in order.
  static std::vector<std::string> Ids(const Reply& r) {
    std::vector<std::string> ids;
    auto d = r.Json();
    if (!d.IsObject() || !d.HasMember("Documents")) return ids;
    for (auto& row : d["Documents"].GetArray()) {
      if (row.IsString()) ids.emplace_back(row.GetString());
      else if (row.IsObject() && row.HasMember("id")) ids.emplace_back(row["id"].GetString());
    }
    return ids;
  }
  static void ExpectRefused(const Reply& r, const std::string& message) {
    EXPECT_EQ(r.status(), 400) << r;
    EXPECT_EQ(r.Code(), "BadRequest") << r;
    EXPECT_FALSE(r.Has("x-ms-substatus")) << r;
    EXPECT_EQ(r.Message().substr(0, message.size()), message) << r;
    EXPECT_EQ(r.Charge(), "0") << r;
  }
};

// ---- the policy as stored and returned ------------------------------------------------------

TEST_F(IndexingTest, PolicyIsReturnedExactlyOnCreateReadAndReplace) {
  const std::string given =
      R"({"indexingMode":"consistent","automatic":true,"includedPaths":[{"path":"/*"}],)"
      R"("excludedPaths":[{"path":"/secret/?"}],)"
      R"("compositeIndexes":[[{"path":"/a","order":"ascending"},{"path":"/b","order":"descending"}]],)"
      R"("spatialIndexes":[{"path":"/loc/*","types":["Point","Polygon"]}]})";
  const std::string stored =
      R"({"indexingMode":"consistent","automatic":true,"includedPaths":[{"path":"/*"}],)"
      R"("excludedPaths":[{"path":"/secret/?"},{"path":"/\"_etag\"/?"}],)"
      R"("compositeIndexes":[[{"path":"/a","order":"ascending"},{"path":"/b","order":"descending"}]],)"
      R"("spatialIndexes":[{"path":"/loc/*","types":["Point","Polygon"]}]})";
  auto r = CreateColl("c1", given);
  ASSERT_EQ(r.status(), 201) << r;
  EXPECT_EQ(json::Write(r.Json()["indexingPolicy"]), stored);
  EXPECT_EQ(json::Write(Get(std::string(kColls) + "/c1").Json()["indexingPolicy"]), stored);

  const std::string replaced = R"({"indexingMode":"none","automatic":false,"includedPaths":[],"excludedPaths":[]})";
  auto p = ReplaceColl("c1", R"({"indexingMode":"none"})");
  ASSERT_EQ(p.status(), 200) << p;
  EXPECT_EQ(json::Write(p.Json()["indexingPolicy"]), replaced);
  EXPECT_EQ(json::Write(Get(std::string(kColls) + "/c1").Json()["indexingPolicy"]), replaced);
}

TEST_F(IndexingTest, InvalidPoliciesAnswerTheServiceText) {
  auto single = CreateColl("c1", R"({"compositeIndexes":[[{"path":"/a"}]]})");
  EXPECT_EQ(single.status(), 400) << single;
  EXPECT_EQ(single.Message().substr(0, single.Message().find("\r\n")),
            Wrapped("The composite index at 'indexingPolicy.additionalIndexes.composite['0']' must have at least 2 "
                    "paths."));
  auto wildcard = CreateColl("c1", R"({"compositeIndexes":[[{"path":"/a/*"},{"path":"/b"}]]})");
  EXPECT_EQ(wildcard.status(), 400) << wildcard;
  EXPECT_EQ(wildcard.Message().substr(0, wildcard.Message().find("\r\n")),
            Wrapped("The indexing path '/a/*' could not be accepted, failed near position '3'. Please ensure that the "
                    "path is a valid path. Common errors include invalid characters or absence of quotes around "
                    "labels."));
  auto none = CreateColl("c1", R"({"indexingMode":"none","automatic":true})");
  EXPECT_EQ(none.status(), 400) << none;
  EXPECT_EQ(none.Message().substr(0, none.Message().find("\r\n")),
            Wrapped("Indexing mode value cannot be 'none' when automatic indexing is specified as 'true'."));
  // The service escapes every '/' of these messages.
  auto vector = CreateColl("c1", R"({"vectorIndexes":[{"path":"/v","type":"flat"}]})");
  EXPECT_EQ(vector.status(), 400) << vector;
  EXPECT_EQ(vector.Message().substr(0, vector.Message().find("\r\n")),
            R"(Message: {"Errors":["The Vector Indexing Policy's path::\/v not matching in Embedding's path."]})");
  EXPECT_EQ(Get(kColls).Header("x-ms-item-count"), "0");
}

// ---- ORDER BY refusals ------------------------------------------------------------------------

TEST_F(IndexingTest, SeveralOrderByItemsNeedACompositeIndexAndAReplaceAddsIt) {
  ASSERT_EQ(CreateColl("c1", "").status(), 201);
  for (const char* d : {R"({"id":"1","pk":"p","a":1,"b":1})", R"({"id":"2","pk":"p","a":1,"b":2})",
                        R"({"id":"3","pk":"p","a":0,"b":5})"}) {
    ASSERT_EQ(Doc("c1", d).status(), 201);
  }
  const std::string q = "SELECT * FROM c ORDER BY c.a, c.b DESC";
  ExpectRefused(Query("c1", q), kNoComposite);
  // The gateway's query plan does not know the policy: the SDK gets its plan, then this refusal.
  auto plan = Query("c1", q, {{"x-ms-cosmos-is-query-plan-request", "True"}});
  EXPECT_EQ(plan.status(), 200) << plan;

  auto rep = ReplaceColl("c1", R"({"compositeIndexes":[[{"path":"/a","order":"ascending"},)"
                               R"({"path":"/b","order":"descending"}]]})");
  ASSERT_EQ(rep.status(), 200) << rep;
  auto ok = Query("c1", q);
  ASSERT_EQ(ok.status(), 200) << ok;
  EXPECT_EQ(Ids(ok), (std::vector<std::string>{"3", "2", "1"}));
  // Every direction reversed is served too; a mixed reversal, another sequence or a prefix is not.
  auto reversed = Query("c1", "SELECT * FROM c ORDER BY c.a DESC, c.b ASC");
  ASSERT_EQ(reversed.status(), 200) << reversed;
  EXPECT_EQ(Ids(reversed), (std::vector<std::string>{"1", "2", "3"}));
  ExpectRefused(Query("c1", "SELECT * FROM c ORDER BY c.a, c.b"), kNoComposite);
  ExpectRefused(Query("c1", "SELECT * FROM c ORDER BY c.b DESC, c.a"), kNoComposite);
  ExpectRefused(Query("c1", "SELECT * FROM c WHERE c.a = 1 ORDER BY c.a, c.b, c.id"), kNoComposite);
  // A filter does not change the rule.
  auto filtered = Query("c1", "SELECT * FROM c WHERE c.a = 1 ORDER BY c.a, c.b DESC");
  ASSERT_EQ(filtered.status(), 200) << filtered;
  EXPECT_EQ(Ids(filtered), (std::vector<std::string>{"2", "1"}));
  // The JavaScript SDK's rewritten per-partition form is judged the same way.
  auto rewritten = Query("c1",
                         "SELECT c._rid, [{\"item\": c.a}, {\"item\": c.b}] AS orderByItems, c AS payload\nFROM c\n"
                         "WHERE (true)\nORDER BY c.a DESC, c.b DESC");
  ExpectRefused(rewritten, kNoComposite);
}

TEST_F(IndexingTest, OrderByOnAnExcludedPathIsRefused) {
  ASSERT_EQ(CreateColl("c1", R"({"excludedPaths":[{"path":"/secret/?"},{"path":"/hidden/*"}]})").status(), 201);
  ASSERT_EQ(Doc("c1", R"({"id":"1","pk":"p","secret":2,"hidden":{"x":1},"other":1})").status(), 201);
  ExpectRefused(Query("c1", "SELECT * FROM c ORDER BY c.secret"), kExcluded);
  ExpectRefused(Query("c1", "SELECT * FROM c ORDER BY c.hidden.x DESC"), kExcluded);
  EXPECT_EQ(Query("c1", "SELECT * FROM c ORDER BY c.other").status(), 200);
  EXPECT_EQ(Query("c1", "SELECT * FROM c ORDER BY c.id DESC").status(), 200);
  // Filters on an excluded path are served by a scan.
  EXPECT_EQ(Ids(Query("c1", "SELECT * FROM c WHERE c.secret = 2")), (std::vector<std::string>{"1"}));

  // Including the path again serves the ORDER BY at once.
  ASSERT_EQ(ReplaceColl("c1", R"({"excludedPaths":[{"path":"/hidden/*"}]})").status(), 200);
  EXPECT_EQ(Query("c1", "SELECT * FROM c ORDER BY c.secret").status(), 200);
}

// The orderby corpus cases with several sort keys, with the composite indexes they need.
TEST_F(IndexingTest, CorpusOrderByCasesWithTheirCompositeIndexes) {
  const std::string docs[] = {
      R"({"id":"o1","pk":"p1","n":3,"s":"c","name":{"last":"Smith"},"g":"x"})",
      R"({"id":"o2","pk":"p2","n":1,"s":"a","name":{"last":"Jones"},"g":"y"})",
      R"({"id":"o3","pk":"p3","n":2,"s":"b","name":{"last":"Brown"},"g":"x"})",
      R"({"id":"o4","pk":"p1","n":5,"s":"e","name":{"last":"Adams"},"g":"y"})",
      R"({"id":"o5","pk":"p2","n":4,"s":"d","name":{"last":"Clark"},"g":"x"})"};
  ASSERT_EQ(CreateColl("c1", R"({"compositeIndexes":[[{"path":"/g","order":"ascending"},{"path":"/n","order":"ascending"}],)"
                             R"([{"path":"/g","order":"ascending"},{"path":"/n","order":"descending"}],)"
                             R"([{"path":"/g","order":"descending"},{"path":"/s","order":"ascending"}]]})")
                .status(),
            201);
  for (const auto& d : docs) {
    json::Document parsed;
    ASSERT_EQ(json::Parse(d, parsed), json::ParseStatus::kOk);
    ASSERT_EQ(CreateDoc("db1", "c1", d, "[" + json::Write(parsed["pk"]) + "]").status(), 201);
  }
  EXPECT_EQ(Ids(Query("c1", "SELECT VALUE c.id FROM c ORDER BY c.g, c.n")),
            (std::vector<std::string>{"o3", "o1", "o5", "o2", "o4"}));
  EXPECT_EQ(Ids(Query("c1", "SELECT VALUE c.id FROM c ORDER BY c.g ASC, c.n DESC")),
            (std::vector<std::string>{"o5", "o1", "o3", "o4", "o2"}));
  EXPECT_EQ(Ids(Query("c1", "SELECT VALUE c.id FROM c ORDER BY c.g DESC, c.s ASC")),
            (std::vector<std::string>{"o2", "o4", "o3", "o1", "o5"}));
}

// ---- indexing mode none -------------------------------------------------------------------------

TEST_F(IndexingTest, ModeNoneNeedsTheScanHeaderForFilters) {
  ASSERT_EQ(CreateColl("c1", R"({"indexingMode":"none"})").status(), 201);
  auto created = Doc("c1", R"({"id":"1","pk":"p","n":1})");
  ASSERT_EQ(created.status(), 201);
  const double kb1 = StoredKb("c1", "1");
  EXPECT_EQ(std::stod(created.Charge()), CreateModel(kb1, 0));  // no index terms at all
  ASSERT_EQ(Doc("c1", R"({"id":"2","pk":"p","n":2})").status(), 201);
  const double kb2 = StoredKb("c1", "2");

  ExpectRefused(Query("c1", "SELECT * FROM c WHERE c.id = '1'"), kNeedsScan);
  ExpectRefused(Query("c1", "SELECT VALUE COUNT(1) FROM c WHERE c.n > 0"), kNeedsScan);
  auto scan = Query("c1", "SELECT * FROM c WHERE c.id = '1'", {{"x-ms-documentdb-query-enable-scan", "true"}});
  ASSERT_EQ(scan.status(), 200) << scan;
  EXPECT_EQ(Ids(scan), (std::vector<std::string>{"1"}));
  EXPECT_EQ(std::stod(scan.Charge()), QueryModel({}, {kb1, kb2}));
  // Without a filter the query reads every document and needs no header.
  auto all = Query("c1", "SELECT * FROM c");
  ASSERT_EQ(all.status(), 200) << all;
  EXPECT_EQ(Ids(all), (std::vector<std::string>{"1", "2"}));
  EXPECT_EQ(std::stod(all.Charge()), QueryModel({kb1, kb2}, {}));
  // Nothing is ordered: ORDER BY is refused even with the scan header.
  ExpectRefused(Query("c1", "SELECT * FROM c ORDER BY c.id"), kExcluded);
  ExpectRefused(Query("c1", "SELECT * FROM c ORDER BY c.n", {{"x-ms-documentdb-query-enable-scan", "true"}}),
                kExcluded);

  // Back to consistent: the same filter is served from the index at once.
  ASSERT_EQ(ReplaceColl("c1", R"({"indexingMode":"consistent"})").status(), 200);
  auto indexed = Query("c1", "SELECT * FROM c WHERE c.id = '1'");
  ASSERT_EQ(indexed.status(), 200) << indexed;
  EXPECT_EQ(std::stod(indexed.Charge()), QueryModel({kb1}, {}));
}

// ---- spatial indexes ------------------------------------------------------------------------------

TEST_F(IndexingTest, SpatialIndexAddsAWriteTermAndServesSpatialFilters) {
  ASSERT_EQ(CreateColl("geo", R"({"spatialIndexes":[{"path":"/loc/*","types":["Point","Polygon"]}]})").status(), 201);
  ASSERT_EQ(CreateColl("plain", "").status(), 201);
  std::vector<double> kb_geo, kb_plain;
  for (int i = 0; i < 30; ++i) {
    const std::string id = "d" + std::to_string(i);
    const std::string body = R"({"id":")" + id + R"(","pk":"p","loc":{"type":"Point","coordinates":[)" +
                             std::to_string(10 + i) + R"(.5,20.5]}})";
    auto g = Doc("geo", body);
    auto p = Doc("plain", body);
    ASSERT_EQ(g.status(), 201) << g;
    ASSERT_EQ(p.status(), 201) << p;
    kb_geo.push_back(StoredKb("geo", id));
    kb_plain.push_back(StoredKb("plain", id));
    // id, pk, loc/type, two coordinates and _ts; the spatial index adds one term for the point.
    EXPECT_EQ(std::stod(p.Charge()), CreateModel(kb_plain.back(), 6)) << id;
    EXPECT_EQ(std::stod(g.Charge()), CreateModel(kb_geo.back(), 7)) << id;
  }
  const std::string q =
      "SELECT * FROM c WHERE ST_DISTANCE(c.loc, {'type': 'Point', 'coordinates': [10.5, 20.5]}) < 1000";
  auto g = Query("geo", q);
  auto p = Query("plain", q);
  ASSERT_EQ(g.status(), 200) << g;
  ASSERT_EQ(p.status(), 200) << p;
  EXPECT_EQ(Ids(g), (std::vector<std::string>{"d0"}));
  EXPECT_EQ(Ids(p), (std::vector<std::string>{"d0"}));
  // With the index only the match is loaded; without it every point is scanned.
  EXPECT_EQ(std::stod(g.Charge()), QueryModel({kb_geo[0]}, {}));
  EXPECT_EQ(std::stod(p.Charge()), QueryModel({}, kb_plain));
  EXPECT_LT(std::stod(g.Charge()), std::stod(p.Charge()));
  auto within = Query("geo",
                      "SELECT * FROM c WHERE ST_WITHIN(c.loc, {'type': 'Polygon', 'coordinates': "
                      "[[[10, 20], [12, 20], [12, 21], [10, 21], [10, 20]]]})");
  ASSERT_EQ(within.status(), 200) << within;
  EXPECT_EQ(Ids(within), (std::vector<std::string>{"d0", "d1"}));
  EXPECT_EQ(std::stod(within.Charge()), QueryModel({kb_geo[0], kb_geo[1]}, {}));

  // Dropping the spatial index by a replace: the same query scans on the next request.
  ASSERT_EQ(ReplaceColl("geo", "{}").status(), 200);
  EXPECT_EQ(std::stod(Query("geo", q).Charge()), QueryModel({}, kb_geo));
}

// ---- geometry containers (geospatialConfig type Geometry) --------------------------------------

TEST_F(IndexingTest, GeometryContainersComputeOnThePlane) {
  const std::string spatial =
      R"({"spatialIndexes":[{"path":"/loc/*","types":["Point","Polygon"],)"
      R"("boundingBox":{"xmin":-10,"ymin":-10,"xmax":5000,"ymax":5000}}]})";
  ASSERT_EQ(CreateColl("flat", spatial, R"(,"geospatialConfig":{"type":"Geometry"})").status(), 201);
  ASSERT_EQ(CreateColl("earth", "").status(), 201);
  for (const char* coll : {"flat", "earth"}) {
    ASSERT_EQ(Doc(coll, R"({"id":"o","pk":"p","loc":{"type":"Point","coordinates":[0,0]}})").status(), 201);
    ASSERT_EQ(Doc(coll, R"({"id":"far","pk":"p","loc":{"type":"Point","coordinates":[3000,4000]}})").status(), 201);
  }
  const std::string distance =
      "SELECT VALUE ST_DISTANCE(c.loc, {'type': 'Point', 'coordinates': [3, 4]}) FROM c WHERE c.id = 'o'";
  auto flat = Query("flat", distance);
  ASSERT_EQ(flat.status(), 200) << flat;
  EXPECT_EQ(flat.Json()["Documents"][0].GetDouble(), 5);  // Euclidean, in the coordinates' unit
  auto earth = Query("earth", distance);
  ASSERT_EQ(earth.status(), 200) << earth;
  EXPECT_NEAR(earth.Json()["Documents"][0].GetDouble(), 554059, 1);  // meters on the WGS-84 ellipsoid
  // Coordinates beyond longitude and latitude ranges are valid geometry (not geography).
  const std::string valid = "SELECT VALUE ST_ISVALID(c.loc) FROM c WHERE c.id = 'far'";
  EXPECT_EQ(Query("flat", valid).Json()["Documents"][0].GetBool(), true);
  EXPECT_EQ(Query("earth", valid).Json()["Documents"][0].GetBool(), false);
  // Straight polygon edges: (0, 40) lies in the box on the plane, not on the earth.
  const std::string within =
      "SELECT VALUE ST_WITHIN({'type': 'Point', 'coordinates': [0, 40]}, {'type': 'Polygon', 'coordinates': "
      "[[[-60, 20], [70, 20], [70, 70], [-60, 70], [-60, 20]]]}) FROM c WHERE c.id = 'o'";
  EXPECT_EQ(Query("flat", within).Json()["Documents"][0].GetBool(), true);
  EXPECT_EQ(Query("earth", within).Json()["Documents"][0].GetBool(), false);
  // A filter and the plan's constant folding see the same model.
  auto near = Query("flat", "SELECT VALUE c.id FROM c WHERE ST_DISTANCE(c.loc, {'type': 'Point', 'coordinates': "
                            "[3000, 4004]}) < 5");
  ASSERT_EQ(near.status(), 200) << near;
  EXPECT_EQ(Ids(near), (std::vector<std::string>{"far"}));
  const std::string folded =
      "SELECT * FROM c WHERE NOT ST_WITHIN({'type': 'Point', 'coordinates': [0, 40]}, {'type':'Polygon',"
      "'coordinates':[[[-60,20], [70,20], [70,70], [-60,70], [-60,20]]]})";
  auto plan = Query("flat", folded, {{"x-ms-cosmos-is-query-plan-request", "True"}});
  ASSERT_EQ(plan.status(), 200) << plan;
  EXPECT_NE(plan.body().find(R"("queryRanges":[{"min":"","max":"","isMinInclusive":true,"isMaxInclusive":true}])"),
            std::string::npos)
      << plan;
  auto earth_plan = Query("earth", folded, {{"x-ms-cosmos-is-query-plan-request", "True"}});
  EXPECT_NE(earth_plan.body().find(R"("queryRanges":[{"min":"","max":"FF")"), std::string::npos) << earth_plan;
}

// ---- x-ms-indexing-directive ------------------------------------------------------------------

TEST_F(IndexingTest, AnItemWrittenWithExcludeIsLeftOutOfQueriesOnly) {
  ASSERT_EQ(CreateColl("c1", "").status(), 201);
  ASSERT_EQ(Doc("c1", R"({"id":"a","pk":"p","orderId":"order1"})").status(), 201);
  auto excluded = CreateDoc("db1", "c1", R"({"id":"x","pk":"p","orderId":"order2"})", R"(["p"])",
                            {{"x-ms-indexing-directive", "Exclude"}});
  ASSERT_EQ(excluded.status(), 201) << excluded;
  // Nothing is indexed for it: the write has no index terms.
  EXPECT_EQ(std::stod(excluded.Charge()), CreateModel(StoredKb("c1", "x"), 0));
  // No query finds it, with or without a filter (Microsoft's IndexManagement samples query on its
  // orderId and expect nothing).
  for (const char* q : {"SELECT * FROM c WHERE c.orderId = 'order2'", "SELECT * FROM c WHERE c.id = 'x'",
                        "SELECT * FROM c", "SELECT * FROM c ORDER BY c.orderId", "SELECT VALUE c.id FROM c"}) {
    auto r = Query("c1", q);
    ASSERT_EQ(r.status(), 200) << q << r;
    EXPECT_EQ(Ids(r), q == std::string("SELECT * FROM c WHERE c.orderId = 'order2'") ||
                              q == std::string("SELECT * FROM c WHERE c.id = 'x'")
                          ? std::vector<std::string>{}
                          : std::vector<std::string>{"a"})
        << q;
  }
  auto count = Query("c1", "SELECT VALUE COUNT(1) FROM c");
  ASSERT_EQ(count.status(), 200) << count;
  EXPECT_EQ(count.Json()["Documents"][0].GetInt(), 1);
  // Within its logical partition too.
  auto scoped = Query("c1", "SELECT * FROM c", {{"x-ms-documentdb-partitionkey", R"(["p"])"}});
  EXPECT_EQ(Ids(scoped), (std::vector<std::string>{"a"}));
  // The item is there: point reads, the read feed and the change feed see it.
  EXPECT_EQ(Get(std::string(kColls) + "/c1/docs/x", {{"x-ms-documentdb-partitionkey", R"(["p"])"}}).status(), 200);
  EXPECT_EQ(Ids(Get(std::string(kColls) + "/c1/docs")), (std::vector<std::string>{"a", "x"}));
  EXPECT_EQ(Ids(Get(std::string(kColls) + "/c1/docs", {{"A-IM", "Incremental feed"}})),
            (std::vector<std::string>{"a", "x"}));

  // A later write without the directive indexes it as the policy does; another Exclude (any case,
  // as the JavaScript SDK sends it) leaves it out again; a patch follows its own directive.
  const std::string doc_x = std::string(kColls) + "/c1/docs/x";
  const Headers pk = {{"x-ms-documentdb-partitionkey", R"(["p"])"}};
  ASSERT_EQ(Put(doc_x, R"({"id":"x","pk":"p","orderId":"order2"})", pk).status(), 200);
  EXPECT_EQ(Ids(Query("c1", "SELECT * FROM c WHERE c.orderId = 'order2'")), (std::vector<std::string>{"x"}));
  Headers exclude = pk;
  exclude.emplace_back("x-ms-indexing-directive", "exclude");
  ASSERT_EQ(Put(doc_x, R"({"id":"x","pk":"p","orderId":"order2"})", exclude).status(), 200);
  EXPECT_EQ(Ids(Query("c1", "SELECT * FROM c WHERE c.orderId = 'order2'")), (std::vector<std::string>{}));
  const std::string set_n = R"({"operations":[{"op":"set","path":"/n","value":1}]})";
  ASSERT_EQ(Patch(doc_x, set_n, exclude).status(), 200);
  EXPECT_EQ(Ids(Query("c1", "SELECT * FROM c WHERE c.n = 1")), (std::vector<std::string>{}));
  ASSERT_EQ(Patch(doc_x, set_n, pk).status(), 200);
  EXPECT_EQ(Ids(Query("c1", "SELECT * FROM c WHERE c.n = 1")), (std::vector<std::string>{"x"}));
  // Upsert and a batch operation carry it as well.
  auto upsert = CreateDoc("db1", "c1", R"({"id":"u","pk":"p"})", R"(["p"])",
                          {{"x-ms-indexing-directive", "Exclude"}, {"x-ms-documentdb-is-upsert", "true"}});
  ASSERT_EQ(upsert.status(), 201) << upsert;
  auto batch = Post(std::string(kColls) + "/c1/docs",
                    R"([{"operationType":"Create","resourceBody":{"id":"b","pk":"p"},"indexingDirective":"Exclude"}])",
                    {{"x-ms-cosmos-is-batch-request", "True"},
                     {"x-ms-cosmos-batch-atomic", "True"},
                     {"x-ms-documentdb-partitionkey", R"(["p"])"},
                     {"content-type", "application/json"}});
  ASSERT_EQ(batch.status(), 200) << batch;
  EXPECT_EQ(Ids(Query("c1", "SELECT * FROM c")), (std::vector<std::string>{"a", "x"}));
  // Any other value is refused.
  auto bad = CreateDoc("db1", "c1", R"({"id":"y","pk":"p"})", R"(["p"])", {{"x-ms-indexing-directive", "Sometimes"}});
  EXPECT_EQ(bad.status(), 400) << bad;
  EXPECT_EQ(Get(std::string(kColls) + "/c1/docs/y", pk).status(), 404);
}

TEST_F(IndexingTest, IncludeOptsInUnderAutomaticFalseAndModeNoneScansEverything) {
  // Opt-in indexing (automatic false): only Include enters the index (the IndexManagement samples'
  // "manual indexing").
  ASSERT_EQ(CreateColl("manual", R"({"automatic":false})").status(), 201);
  ASSERT_EQ(Doc("manual", R"({"id":"d","pk":"p","orderId":"o"})").status(), 201);
  ASSERT_EQ(CreateDoc("db1", "manual", R"({"id":"i","pk":"p","orderId":"o"})", R"(["p"])",
                      {{"x-ms-indexing-directive", "Include"}})
                .status(),
            201);
  EXPECT_EQ(Ids(Query("manual", "SELECT * FROM c WHERE c.orderId = 'o'")), (std::vector<std::string>{"i"}));
  EXPECT_EQ(Ids(Get(std::string(kColls) + "/manual/docs")), (std::vector<std::string>{"d", "i"}));
  // Mode none indexes nothing and every query scans the documents: Include and Exclude are
  // accepted, and every item is found.
  ASSERT_EQ(CreateColl("none", R"({"indexingMode":"none"})").status(), 201);
  for (const char* d : {"Include", "Exclude", "Default"}) {
    auto r = CreateDoc("db1", "none", std::string(R"({"id":")") + d + R"(","pk":"p"})", R"(["p"])",
                       {{"x-ms-indexing-directive", d}});
    ASSERT_EQ(r.status(), 201) << r;
    EXPECT_EQ(std::stod(r.Charge()), CreateModel(StoredKb("none", d), 0)) << d;
  }
  EXPECT_EQ(Ids(Query("none", "SELECT * FROM c")), (std::vector<std::string>{"Include", "Exclude", "Default"}));
  EXPECT_EQ(Ids(Query("none", "SELECT * FROM c WHERE c.id = 'Exclude'", {{"x-ms-documentdb-query-enable-scan", "true"}})),
            (std::vector<std::string>{"Exclude"}));
}

// ---- replace: charges follow the new policy at once ---------------------------------------------

TEST_F(IndexingTest, ReplacedPolicyDrivesTheNextWriteAndQueryCharges) {
  ASSERT_EQ(CreateColl("c1", "").status(), 201);
  const std::string body = R"({"id":"1","pk":"p","a":1,"b":2,"c":3})";
  auto before = Doc("c1", body);
  ASSERT_EQ(before.status(), 201);
  const double kb = StoredKb("c1", "1");
  EXPECT_EQ(std::stod(before.Charge()), CreateModel(kb, 6));  // id pk a b c _ts
  auto q1 = Query("c1", "SELECT * FROM c WHERE c.a = 1");
  EXPECT_EQ(std::stod(q1.Charge()), QueryModel({kb}, {}));

  ASSERT_EQ(ReplaceColl("c1", R"({"excludedPaths":[{"path":"/a/?"},{"path":"/b/?"},{"path":"/c/?"}]})").status(),
            200);
  auto after = Doc("c1", R"({"id":"2","pk":"p","a":1,"b":2,"c":3})");
  ASSERT_EQ(after.status(), 201);
  const double kb2 = StoredKb("c1", "2");
  EXPECT_EQ(std::stod(after.Charge()), CreateModel(kb2, 3));  // id pk _ts
  EXPECT_LT(std::stod(after.Charge()), std::stod(before.Charge()));
  auto q2 = Query("c1", "SELECT * FROM c WHERE c.a = 1");
  ASSERT_EQ(q2.status(), 200) << q2;
  EXPECT_EQ(Ids(q2), (std::vector<std::string>{"1", "2"}));
  EXPECT_EQ(std::stod(q2.Charge()), QueryModel({}, {kb, kb2}));
  ExpectRefused(Query("c1", "SELECT * FROM c ORDER BY c.a"), kExcluded);
  EXPECT_EQ(Query("c1", "SELECT * FROM c ORDER BY c.pk").status(), 200);
  // The first item keeps the charge it was written with; a replace of it pays under the new policy.
  auto rewrite = Put(std::string(kColls) + "/c1/docs/1", body, {{"x-ms-documentdb-partitionkey", R"(["p")" "]"}});
  ASSERT_EQ(rewrite.status(), 200) << rewrite;
  EXPECT_EQ(std::stod(rewrite.Charge()), Round2(1.85 * CreateRaw(StoredKb("c1", "1"), 3)));
}

}  // namespace
}  // namespace cosmos::testing
