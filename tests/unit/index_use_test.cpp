// query/index_use: which WHERE filters the index answers, and with how many lookups, for real
// query texts bound against several indexing policies; store/indexing IsIndexed.
#include "query/index_use.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

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
    {"default", "SELECT * FROM c WHERE true", false, 1},
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
};

class IndexUseTest : public ::testing::TestWithParam<Case> {};

TEST_P(IndexUseTest, Decides) {
  const Case& c = GetParam();
  IndexUse use = Analyze(c.policy, c.query);
  EXPECT_EQ(use.filter_uses_index, c.uses_index) << c;
  EXPECT_EQ(use.lookups, c.lookups) << c;
}

INSTANTIATE_TEST_SUITE_P(Queries, IndexUseTest, ::testing::ValuesIn(kCases));

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
