// query/index_use: which WHERE filters the index answers, and with how many lookups, for real
// query texts bound against several indexing policies; store/indexing IsIndexed.
#include "query/index_use.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "common/errors.h"
#include "json/json.h"
#include "query/parse_cache.h"
#include "store/indexing.h"

namespace cosmos::query {
namespace {

using store::IndexingPolicy;

IndexingPolicy Policy(const std::string& text) {
  json::Document d;
  EXPECT_EQ(json::Parse(text, d), json::ParseStatus::kOk) << text;
  return IndexingPolicy::FromJson(&d);
}

const std::map<std::string, IndexingPolicy>& Policies() {
  static const auto* policies = [] {
    auto* m = new std::map<std::string, IndexingPolicy>();
    m->emplace("default", IndexingPolicy::FromJson(nullptr));
    m->emplace("secret", Policy(R"({"includedPaths":[{"path":"/*"}],"excludedPaths":[{"path":"/\"secret\"/?"}]})"));
    m->emplace("only_a", Policy(R"({"includedPaths":[{"path":"/a/?"}],"excludedPaths":[{"path":"/*"}]})"));
    m->emplace("no_tags", Policy(R"({"excludedPaths":[{"path":"/tags/*"}]})"));
    m->emplace("none", Policy(R"({"indexingMode":"none"})"));
    m->emplace("composite", Policy(R"({"compositeIndexes":[[{"path":"/a","order":"ascending"},)"
                                   R"({"path":"/b","order":"descending"}]]})"));
    m->emplace("spatial", Policy(R"({"spatialIndexes":[{"path":"/loc/*","types":["Point","Polygon"]}]})"));
    m->emplace("spatial_excluded", Policy(R"({"excludedPaths":[{"path":"/loc/*"}],)"
                                          R"("spatialIndexes":[{"path":"/loc/*","types":["Point"]}]})"));
    return m;
  }();
  return *policies;
}

constexpr const char* kParams =
    R"([{"name":"@v","value":5},{"name":"@s","value":"x"},{"name":"@arr","value":[1,2]},)"
    R"({"name":"@obj","value":{"id":1}}])";

IndexUse Analyze(const std::string& policy, const std::string& text) {
  json::Document params;
  EXPECT_EQ(json::Parse(kParams, params), json::ParseStatus::kOk);
  Arena arena;
  auto ast = ParseQuery(text);
  auto plan = Bind(*ast, &params, arena);
  return AnalyzeIndexUse(*plan, Policies().at(policy));
}

struct Case {
  const char* policy;
  const char* query;
  bool uses_index;
  size_t lookups;
};

std::ostream& operator<<(std::ostream& os, const Case& c) { return os << "[" << c.policy << "] " << c.query; }

const Case kCases[] = {
    // No WHERE: nothing to answer.
    {"default", "SELECT * FROM c", true, 1},
    {"none", "SELECT * FROM c", true, 1},
    {"only_a", "SELECT c.b FROM c ORDER BY c.b", true, 1},
    // Comparisons of a path with a constant or parameter, either side.
    {"default", "SELECT * FROM c WHERE c.a = 1", true, 1},
    {"default", "SELECT * FROM c WHERE 1 = c.a", true, 1},
    {"default", "SELECT * FROM c WHERE c.a.b > 2", true, 1},
    {"default", "SELECT * FROM c WHERE c[\"a\"][\"b\"] <= @v", true, 1},
    {"default", "SELECT * FROM c WHERE c.a != @s", true, 1},
    {"default", "SELECT * FROM c WHERE @v >= c.a", true, 1},
    {"default", "SELECT * FROM c WHERE c.a > -1", true, 1},
    {"default", "SELECT * FROM c WHERE c.a = ('a' || 'b')", true, 1},
    {"default", "SELECT * FROM c WHERE c.ts > GetCurrentTimestamp()", true, 1},
    {"default", "SELECT * FROM c WHERE c[@s] = 1", true, 1},
    {"default", "SELECT * FROM c WHERE c.a = @obj", true, 1},
    // IN: one lookup per value; BETWEEN.
    {"default", "SELECT * FROM c WHERE c.a IN (1, 2, 3)", true, 3},
    {"default", "SELECT * FROM c WHERE c.id IN ('a', 'b', 'c', 'd', 'e')", true, 5},
    {"default", "SELECT * FROM c WHERE c.a IN (@v)", true, 1},
    {"default", "SELECT * FROM c WHERE c.a NOT IN (1, 2)", true, 2},
    {"default", "SELECT * FROM c WHERE c.a IN (1, c.b)", false, 1},
    {"default", "SELECT * FROM c WHERE c.a BETWEEN 1 AND 5", true, 1},
    {"default", "SELECT * FROM c WHERE c.a NOT BETWEEN @v AND 10", true, 1},
    {"default", "SELECT * FROM c WHERE c.a BETWEEN c.b AND 5", false, 1},
    // Bare boolean paths and NOT.
    {"default", "SELECT * FROM c WHERE c.flag", true, 1},
    {"default", "SELECT * FROM c WHERE NOT c.flag", true, 1},
    {"default", "SELECT * FROM c WHERE NOT (c.a = 1)", true, 1},
    {"default", "SELECT * FROM c WHERE NOT (c.a = 1 OR c.b IN (1, 2))", true, 3},
    // Constant filters need no index and narrow nothing (the SDKs' rewritten ORDER BY queries send
    // WHERE (true), or (filter AND true)).
    {"default", "SELECT * FROM c WHERE true", true, 1},
    {"default", "SELECT * FROM c WHERE (true)", true, 1},
    {"default", "SELECT * FROM c WHERE 1 = 1 AND @v > 2", true, 1},
    {"default", "SELECT * FROM c WHERE (c.a = 1) AND (true)", true, 1},
    {"default", "SELECT * FROM c WHERE (LOWER(c.b) = 'x') AND (true)", false, 1},
    {"secret", "SELECT * FROM c WHERE (true) AND c.secret = 1", false, 1},
    {"none", "SELECT * FROM c WHERE (true)", true, 1},
    // Type checks and string / array functions of a path.
    {"default", "SELECT * FROM c WHERE IS_DEFINED(c.a)", true, 1},
    {"default", "SELECT * FROM c WHERE NOT IS_DEFINED(c.a)", true, 1},
    {"default", "SELECT * FROM c WHERE IS_NULL(c.a) OR IS_STRING(c.b) OR IS_PRIMITIVE(c.d)", true, 3},
    {"default", "SELECT * FROM c WHERE is_number(c.a) AND IS_BOOL(c.b) AND IS_ARRAY(c.c) AND IS_OBJECT(c.d)", true, 1},
    {"default", "SELECT * FROM c WHERE STARTSWITH(c.name, 'ab')", true, 1},
    {"default", "SELECT * FROM c WHERE STARTSWITH(c.name, 'ab', true)", true, 1},
    {"default", "SELECT * FROM c WHERE ENDSWITH(c.name, @s)", true, 1},
    {"default", "SELECT * FROM c WHERE CONTAINS(c.name, 'b', false)", true, 1},
    {"default", "SELECT * FROM c WHERE StringEquals(c.name, 'x', true)", true, 1},
    {"default", "SELECT * FROM c WHERE STARTSWITH(c.name, c.prefix)", false, 1},
    {"default", "SELECT * FROM c WHERE ARRAY_CONTAINS(c.tags, 'x')", true, 1},
    {"default", "SELECT * FROM c WHERE ARRAY_CONTAINS(c.items, {\"id\": 1}, true)", true, 1},
    {"default", "SELECT * FROM c WHERE ARRAY_CONTAINS(@arr, c.a)", false, 1},
    {"no_tags", "SELECT * FROM c WHERE ARRAY_CONTAINS(c.tags, 'x')", false, 1},
    // Not answerable from the index.
    {"default", "SELECT * FROM c WHERE LOWER(c.b) = 'x'", false, 1},
    {"default", "SELECT * FROM c WHERE c.a + 1 = 2", false, 1},
    {"default", "SELECT * FROM c WHERE c.a = c.b", false, 1},
    {"default", "SELECT * FROM c WHERE c.name LIKE 'ab%'", false, 1},
    {"default", "SELECT * FROM c WHERE IS_FINITE_NUMBER(c.a)", false, 1},
    {"default", "SELECT * FROM c WHERE EXISTS(SELECT VALUE t FROM t IN c.tags WHERE t = 'x')", false, 1},
    {"default", "SELECT * FROM c WHERE c.a = (SELECT VALUE 1)", false, 1},
    {"default", "SELECT * FROM c WHERE c", false, 1},
    // AND: any usable conjunct (largest lookups); OR: every branch (lookups add up).
    {"default", "SELECT * FROM c WHERE c.a = 1 AND c.b = 2", true, 1},
    {"default", "SELECT * FROM c WHERE c.a IN (1, 2) AND c.b IN (1, 2, 3)", true, 3},
    {"default", "SELECT * FROM c WHERE c.a = 1 AND LOWER(c.b) = 'x'", true, 1},
    {"default", "SELECT * FROM c WHERE LOWER(c.b) = 'x' AND c.a IN (1, 2)", true, 2},
    {"default", "SELECT * FROM c WHERE c.a = 1 OR c.b = 2", true, 2},
    {"default", "SELECT * FROM c WHERE c.a IN (1, 2) OR c.b = 3", true, 3},
    {"default", "SELECT * FROM c WHERE c.a = 1 OR LOWER(c.b) = 'x'", false, 1},
    {"default", "SELECT * FROM c WHERE c.a = 1 AND (c.b = 2 OR LOWER(c.c) = 'x')", true, 1},
    {"default", "SELECT * FROM c WHERE (c.a = 1 OR c.b = 2) AND c.c IN (1, 2, 3, 4)", true, 4},
    {"default", "SELECT * FROM c WHERE (c.a = 1 AND LOWER(c.x) = 'y') OR c.b = 2", true, 2},
    // FROM / JOIN aliases over the root document.
    {"default", "SELECT c.id FROM c JOIN t IN c.tags WHERE t = 'x'", true, 1},
    {"no_tags", "SELECT c.id FROM c JOIN t IN c.tags WHERE t = 'x'", false, 1},
    {"no_tags", "SELECT c.id FROM c JOIN t IN c.tags WHERE t = 'x' AND c.a = 1", true, 1},
    {"default", "SELECT c.id FROM c JOIN i IN c.items WHERE i.name IN ('a', 'b')", true, 2},
    {"default", "SELECT c.id FROM c JOIN t IN c.tags JOIN i IN c.items WHERE t = 'x' OR i.price > 10", true, 2},
    {"default", "SELECT VALUE t FROM t IN c.tags WHERE t = 'x'", true, 1},
    {"no_tags", "SELECT VALUE t FROM t IN c.tags WHERE t = 'x'", false, 1},
    {"no_tags", "SELECT * FROM c WHERE c.tags[0] = 'x'", false, 1},
    {"default", "SELECT * FROM c.address WHERE address.city = 'x'", true, 1},
    {"only_a", "SELECT * FROM c.a x WHERE x = 1", true, 1},
    {"only_a", "SELECT * FROM c.a x WHERE x.b = 1", false, 1},
    {"default", "SELECT c.id FROM c JOIN (SELECT VALUE t FROM t IN c.tags) s WHERE s = 'x'", false, 1},
    // Policies: excluded and included paths, system paths, mode none, composite indexes.
    {"secret", "SELECT * FROM c WHERE c.secret = 1", false, 1},
    {"secret", "SELECT * FROM c WHERE c.secret.x = 1", true, 1},
    {"secret", "SELECT * FROM c WHERE c.other = 1", true, 1},
    {"secret", "SELECT * FROM c WHERE c.secret = 1 OR c.other = 1", false, 1},
    {"only_a", "SELECT * FROM c WHERE c.a = 1", true, 1},
    {"only_a", "SELECT * FROM c WHERE c.b = 1", false, 1},
    {"only_a", "SELECT * FROM c WHERE c.a.b = 1", false, 1},
    {"only_a", "SELECT * FROM c WHERE c.id = 'x'", true, 1},
    {"only_a", "SELECT * FROM c WHERE c._ts > 100", true, 1},
    {"only_a", "SELECT * FROM c WHERE ARRAY_CONTAINS(c.a, 1)", false, 1},
    {"default", "SELECT * FROM c WHERE c._etag = 'x'", false, 1},
    {"none", "SELECT * FROM c WHERE c.id = 'x'", false, 1},
    {"none", "SELECT * FROM c WHERE c.a IN (1, 2, 3)", false, 1},
    {"composite", "SELECT * FROM c WHERE c.a = 1 ORDER BY c.a, c.b DESC", true, 1},
    {"composite", "SELECT * FROM c WHERE c.a IN (1, 2) OR c.b = 3", true, 3},
    // Mode none: aggregates read every document too.
    {"none", "SELECT VALUE COUNT(1) FROM c", false, 1},
    {"default", "SELECT VALUE COUNT(1) FROM c", true, 1},
    // Spatial predicates: answered by a spatial index on the path, scans without one.
    {"spatial", "SELECT * FROM c WHERE ST_DISTANCE(c.loc, {'type': 'Point', 'coordinates': [1, 2]}) < 3000", true, 1},
    {"spatial", "SELECT * FROM c WHERE 3000 >= ST_DISTANCE({'type': 'Point', 'coordinates': [1, 2]}, c.loc)", true, 1},
    {"spatial", "SELECT * FROM c WHERE ST_DISTANCE(c.loc.home, @obj) < @v", true, 1},
    {"spatial", "SELECT * FROM c WHERE ST_WITHIN(c.loc, {'type': 'Polygon', 'coordinates': [[[0,0],[1,0],[1,1],[0,0]]]})", true, 1},
    {"spatial", "SELECT * FROM c WHERE ST_INTERSECTS(@obj, c.loc)", true, 1},
    {"spatial", "SELECT * FROM c WHERE NOT ST_WITHIN(c.loc, @obj)", true, 1},
    {"spatial", "SELECT * FROM c WHERE ST_DISTANCE(c.loc, @obj) < 10 AND c.n = 1", true, 1},
    {"spatial", "SELECT * FROM c WHERE ST_DISTANCE(c.other, @obj) < 10", false, 1},
    {"spatial", "SELECT * FROM c WHERE ST_DISTANCE(c.loc, c.loc2) < 10", false, 1},
    {"spatial", "SELECT * FROM c WHERE ST_DISTANCE(c.loc, @obj) < c.max", false, 1},
    {"spatial", "SELECT * FROM c WHERE ST_ISVALID(c.loc)", false, 1},
    {"spatial_excluded", "SELECT * FROM c WHERE ST_WITHIN(c.loc, @obj)", true, 1},
    {"default", "SELECT * FROM c WHERE ST_DISTANCE(c.loc, {'type': 'Point', 'coordinates': [1, 2]}) < 3000", false, 1},
    {"default", "SELECT * FROM c WHERE ST_WITHIN(c.loc, @obj)", false, 1},
    {"none", "SELECT * FROM c WHERE ST_WITHIN(c.loc, @obj)", false, 1},
};

class IndexUseTest : public ::testing::TestWithParam<Case> {};

TEST_P(IndexUseTest, Decides) {
  const Case& c = GetParam();
  IndexUse use = Analyze(c.policy, c.query);
  EXPECT_EQ(use.filter_uses_index, c.uses_index) << c;
  EXPECT_EQ(use.lookups, c.lookups) << c;
}

INSTANTIATE_TEST_SUITE_P(Queries, IndexUseTest, ::testing::ValuesIn(kCases));

// ---- CheckIndexSupport: the refusals -----------------------------------------------------------

constexpr const char* kNoComposite =
    "Message: {\"Errors\":[\"The order by query does not have a corresponding composite index that it can be served "
    "from.\"]}";
constexpr const char* kExcluded =
    "Message: {\"Errors\":[\"The index path corresponding to the specified order-by item is excluded.\"]}";
constexpr const char* kNeedsScan =
    "Message: {\"Errors\":[\"An invalid query has been specified with filters against path(s) excluded from "
    "indexing. Consider adding allow scan header in the request.\"]}";

// "" when the query is served; else the 400's message.
std::string Refusal(const std::string& policy, const std::string& text, bool scan = false) {
  json::Document params;
  EXPECT_EQ(json::Parse(kParams, params), json::ParseStatus::kOk);
  Arena arena;
  auto plan = Bind(*ParseQuery(text), &params, arena);
  try {
    CheckIndexSupport(*plan, Policies().at(policy), scan);
    return "";
  } catch (const CosmosError& e) {
    EXPECT_EQ(e.status, 400);
    EXPECT_EQ(e.substatus, 0);
    EXPECT_EQ(e.code, "BadRequest");
    return e.what();
  }
}

TEST(CheckIndexSupport, SeveralOrderByItemsNeedAMatchingCompositeIndex) {
  EXPECT_EQ(Refusal("default", "SELECT * FROM c ORDER BY c.a, c.b"), kNoComposite);
  EXPECT_EQ(Refusal("default", "SELECT * FROM c ORDER BY c.id, c._ts"), kNoComposite);
  // An aggregate without GROUP BY answers one value whatever the order: no composite needed.
  EXPECT_EQ(Refusal("default", "SELECT VALUE AVG(c.a) FROM c ORDER BY c.a, c.b"), "");
  EXPECT_EQ(Refusal("default", "SELECT COUNT(1) AS n FROM c ORDER BY c.a DESC, c.b"), "");
  // The composite is (/a ASC, /b DESC): served as written and with every direction reversed.
  EXPECT_EQ(Refusal("composite", "SELECT * FROM c ORDER BY c.a, c.b DESC"), "");
  EXPECT_EQ(Refusal("composite", "SELECT * FROM c ORDER BY c.a ASC, c.b DESC"), "");
  EXPECT_EQ(Refusal("composite", "SELECT * FROM c ORDER BY c.a DESC, c.b ASC"), "");
  EXPECT_EQ(Refusal("composite", "SELECT * FROM c ORDER BY c.a DESC, c.b"), "");
  EXPECT_EQ(Refusal("composite", "SELECT * FROM c ORDER BY c.a, c.b"), kNoComposite);
  EXPECT_EQ(Refusal("composite", "SELECT * FROM c ORDER BY c.a DESC, c.b DESC"), kNoComposite);
  EXPECT_EQ(Refusal("composite", "SELECT * FROM c ORDER BY c.b DESC, c.a"), kNoComposite);
  EXPECT_EQ(Refusal("composite", "SELECT * FROM c ORDER BY c.a, c.b DESC, c.c"), kNoComposite);
  // A filter does not change the rule; the SDKs' rewritten form is judged the same way.
  EXPECT_EQ(Refusal("composite", "SELECT * FROM c WHERE c.x = 1 ORDER BY c.a, c.b DESC"), "");
  EXPECT_EQ(Refusal("composite", "SELECT * FROM c WHERE c.x = 1 ORDER BY c.a, c.x"), kNoComposite);
  EXPECT_EQ(Refusal("default",
                    "SELECT c._rid, [{\"item\": c.a}, {\"item\": c.b}] AS orderByItems, c AS payload FROM c "
                    "WHERE (true) ORDER BY c.a, c.b"),
            kNoComposite);
  EXPECT_EQ(Refusal("composite", "SELECT c._rid, [{\"item\": c.a}, {\"item\": c.b}] AS orderByItems, c AS payload "
                                 "FROM c WHERE (true) ORDER BY c.a, c.b DESC"),
            "");
  // Aliases over the root resolve to their paths; a composite index does not need the range index.
  EXPECT_EQ(Refusal("composite", "SELECT * FROM r ORDER BY r[\"a\"], r.b DESC"), "");
  EXPECT_EQ(Refusal("composite", "SELECT x FROM c.a x ORDER BY x"), "");
}

TEST(CheckIndexSupport, OneOrderByItemNeedsItsRangeIndex) {
  EXPECT_EQ(Refusal("default", "SELECT * FROM c ORDER BY c.a"), "");
  EXPECT_EQ(Refusal("default", "SELECT * FROM c WHERE c.b = 1 ORDER BY c.a DESC"), "");
  EXPECT_EQ(Refusal("secret", "SELECT * FROM c ORDER BY c.secret"), kExcluded);
  EXPECT_EQ(Refusal("secret", "SELECT * FROM c ORDER BY c.secret.x"), "");
  EXPECT_EQ(Refusal("only_a", "SELECT * FROM c ORDER BY c.b"), kExcluded);
  EXPECT_EQ(Refusal("only_a", "SELECT * FROM c ORDER BY c.a DESC"), "");
  EXPECT_EQ(Refusal("only_a", "SELECT * FROM c ORDER BY c.id"), "");
  EXPECT_EQ(Refusal("only_a", "SELECT * FROM c ORDER BY c._ts DESC"), "");
  EXPECT_EQ(Refusal("no_tags", "SELECT VALUE c.id FROM c ORDER BY c.tags[0]"), kExcluded);
  EXPECT_EQ(Refusal("default", "SELECT * FROM c ORDER BY c._etag"), kExcluded);
  EXPECT_EQ(Refusal("only_a", "SELECT TOP 1 * FROM c ORDER BY c.b"), kExcluded);
}

TEST(CheckIndexSupport, ModeNone) {
  // Filters need the scan header; a query without one runs.
  EXPECT_EQ(Refusal("none", "SELECT * FROM c WHERE c.id = 'x'"), kNeedsScan);
  EXPECT_EQ(Refusal("none", "SELECT VALUE COUNT(1) FROM c WHERE c.a > 1"), kNeedsScan);
  EXPECT_EQ(Refusal("none", "SELECT * FROM c WHERE c.id = 'x'", true), "");
  EXPECT_EQ(Refusal("none", "SELECT * FROM c"), "");
  EXPECT_EQ(Refusal("none", "SELECT VALUE COUNT(1) FROM c"), "");
  EXPECT_EQ(Refusal("none", "SELECT * FROM c WHERE (true)"), "");
  EXPECT_EQ(Refusal("none", "SELECT 1 AS one"), "");
  // ORDER BY cannot be served at all, scan header or not.
  EXPECT_EQ(Refusal("none", "SELECT * FROM c ORDER BY c.id"), kExcluded);
  EXPECT_EQ(Refusal("none", "SELECT * FROM c ORDER BY c.id", true), kExcluded);
  EXPECT_EQ(Refusal("none", "SELECT * FROM c ORDER BY c.a, c.b", true), kExcluded);
  // The scan header changes nothing in consistent mode.
  EXPECT_EQ(Refusal("default", "SELECT * FROM c ORDER BY c.a, c.b", true), kNoComposite);
  EXPECT_EQ(Refusal("secret", "SELECT * FROM c WHERE c.secret = 1"), "");
}

// ---- IndexingPolicy::IsIndexed ----------------------------------------------------------------

using P = std::vector<std::string>;

TEST(IsIndexed, DefaultIndexesEverythingButEtag) {
  const auto& p = Policies().at("default");
  EXPECT_TRUE(p.IsIndexed(P{"a"}));
  EXPECT_TRUE(p.IsIndexed(P{"a", "b", "c"}));
  EXPECT_TRUE(p.IsIndexed(P{"tags", "[]"}));
  EXPECT_TRUE(p.IsIndexed(P{"id"}));
  EXPECT_TRUE(p.IsIndexed(P{"_ts"}));
  EXPECT_FALSE(p.IsIndexed(P{"_etag"}));
  EXPECT_FALSE(p.IsIndexed(P{}));
}

TEST(IsIndexed, ExcludedLeaf) {
  const auto& p = Policies().at("secret");
  EXPECT_FALSE(p.IsIndexed(P{"secret"}));
  EXPECT_TRUE(p.IsIndexed(P{"secret", "x"}));  // /"secret"/? covers the leaf only
  EXPECT_TRUE(p.IsIndexed(P{"other"}));
}

TEST(IsIndexed, IncludedLeafOnly) {
  const auto& p = Policies().at("only_a");
  EXPECT_TRUE(p.IsIndexed(P{"a"}));
  EXPECT_FALSE(p.IsIndexed(P{"a", "b"}));
  EXPECT_FALSE(p.IsIndexed(P{"a", "[]"}));
  EXPECT_FALSE(p.IsIndexed(P{"b"}));
  // System paths are always indexed in consistent mode.
  EXPECT_TRUE(p.IsIndexed(P{"id"}));
  EXPECT_TRUE(p.IsIndexed(P{"_ts"}));
  EXPECT_FALSE(p.IsIndexed(P{"x", "id"}));
}

TEST(IsIndexed, ModeNoneIndexesNothing) {
  const auto& p = Policies().at("none");
  EXPECT_FALSE(p.IsIndexed(P{"id"}));
  EXPECT_FALSE(p.IsIndexed(P{"_ts"}));
  EXPECT_FALSE(p.IsIndexed(P{"a"}));
}

TEST(IsIndexed, MostSpecificPathWins) {
  auto p = Policy(
      R"({"includedPaths":[{"path":"/*"},{"path":"/a/b/?"},{"path":"/items/[]/name/?"}],)"
      R"("excludedPaths":[{"path":"/a/*"},{"path":"/items/*"}]})");
  EXPECT_TRUE(p.IsIndexed(P{"a", "b"}));
  EXPECT_FALSE(p.IsIndexed(P{"a", "c"}));
  EXPECT_FALSE(p.IsIndexed(P{"a", "b", "c"}));
  EXPECT_TRUE(p.IsIndexed(P{"items", "[]", "name"}));
  EXPECT_FALSE(p.IsIndexed(P{"items", "[]", "price"}));
  EXPECT_TRUE(p.IsIndexed(P{"z"}));
}

}  // namespace
}  // namespace cosmos::query
