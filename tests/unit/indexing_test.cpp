// store/indexing: policy normalisation and the index-term count T of docs/request-units.md.
#include "store/indexing.h"

#include <gtest/gtest.h>

#include <string>

#include "common/errors.h"

namespace cosmos::store {
namespace {

json::Document J(const std::string& text) {
  json::Document d;
  EXPECT_EQ(json::Parse(text, d), json::ParseStatus::kOk) << text;
  return d;
}

IndexingPolicy Policy(const std::string& text) {
  auto d = J(text);
  return IndexingPolicy::FromJson(&d);
}

int PolicyError(const std::string& text) {
  try {
    Policy(text);
    return 0;
  } catch (const CosmosError& e) {
    return e.status;
  }
}

int Terms(const IndexingPolicy& p, const std::string& doc) { return p.CountTerms(J(doc)); }

// A stored item as the emulator writes it: user properties then the five system properties.
std::string Stored(const std::string& user_members) {
  return "{" + user_members +
         R"(,"_rid":"AQBAAIAAAAEBAAAAAAAAAA==","_self":"dbs/AQBAAA==/colls/AQBAAIAAAAE=/docs/AQBAAIAAAAEBAAAAAAAAAA==/",)"
         R"("_etag":"\"00000003-0000-0100-0000-6ac9ff4d0000\"","_attachments":"attachments/","_ts":1791622989})";
}

constexpr const char* kDefaultRaw =
    R"({"indexingMode":"consistent","automatic":true,"includedPaths":[{"path":"/*"}],"excludedPaths":[{"path":"/\"_etag\"/?"}]})";

// ---- normalisation --------------------------------------------------------------------------

TEST(IndexingPolicy, DefaultMatchesTheService) {
  // Same text as the real service's container create answer (recording cosmos-003).
  EXPECT_EQ(json::Write(IndexingPolicy::FromJson(nullptr).raw), kDefaultRaw);
  auto null_doc = J("null");
  EXPECT_EQ(json::Write(IndexingPolicy::FromJson(&null_doc).raw), kDefaultRaw);
  EXPECT_EQ(json::Write(Policy("{}").raw), kDefaultRaw);
  auto p = IndexingPolicy::FromJson(nullptr);
  EXPECT_EQ(p.mode, "consistent");
  EXPECT_TRUE(p.automatic);
  EXPECT_EQ(p.included, (std::vector<std::vector<std::string>>{{"*"}}));
  EXPECT_EQ(p.excluded, (std::vector<std::vector<std::string>>{{"_etag", "?"}}));
}

TEST(IndexingPolicy, AddsEtagExclusionAfterUserPaths) {
  auto p =
      Policy(R"({"indexingMode":"Consistent","includedPaths":[{"path":"/*"}],"excludedPaths":[{"path":"/secret/*"}]})");
  EXPECT_EQ(json::Write(p.raw), R"({"indexingMode":"consistent","automatic":true,"includedPaths":[{"path":"/*"}],)"
                                R"("excludedPaths":[{"path":"/secret/*"},{"path":"/\"_etag\"/?"}]})");
}

TEST(IndexingPolicy, DoesNotDuplicateEtagExclusion) {
  EXPECT_EQ(json::Write(Policy(R"({"excludedPaths":[{"path":"/\"_etag\"/?"}]})").raw), kDefaultRaw);
  EXPECT_EQ(
      json::Write(Policy(R"({"excludedPaths":[{"path":"/_etag/?"}]})").raw),
      R"({"indexingMode":"consistent","automatic":true,"includedPaths":[{"path":"/*"}],"excludedPaths":[{"path":"/_etag/?"}]})");
}

TEST(IndexingPolicy, LazyIsConsistentAndNoneHasNoPaths) {
  EXPECT_EQ(Policy(R"({"indexingMode":"lazy"})").mode, "consistent");
  auto none = Policy(R"({"indexingMode":"none","automatic":false})");
  EXPECT_EQ(none.mode, "none");
  EXPECT_EQ(json::Write(none.raw),
            R"({"indexingMode":"none","automatic":false,"includedPaths":[],"excludedPaths":[]})");
}

TEST(IndexingPolicy, CompositeIndexesAreKept) {
  auto p = Policy(R"({"compositeIndexes":[[{"path":"/a","order":"ascending"},{"path":"/b","order":"descending"}]]})");
  EXPECT_EQ(json::Write(p.raw),
            R"({"indexingMode":"consistent","automatic":true,"includedPaths":[{"path":"/*"}],)"
            R"("excludedPaths":[{"path":"/\"_etag\"/?"}],)"
            R"("compositeIndexes":[[{"path":"/a","order":"ascending"},{"path":"/b","order":"descending"}]]})");
  ASSERT_EQ(p.composites.size(), 1u);
  EXPECT_EQ(p.composites[0], (std::vector<std::vector<std::string>>{{"a"}, {"b"}}));
}

TEST(IndexingPolicy, InvalidPoliciesAre400) {
  for (const char* bad :
       {R"([])", R"({"indexingMode":"foo"})", R"({"indexingMode":1})", R"({"automatic":"yes"})",
        R"({"includedPaths":{}})", R"({"includedPaths":[{"path":"a/*"}]})", R"({"includedPaths":[{"path":"/a"}]})",
        R"({"includedPaths":[{"path":"/a//?"}]})", R"({"excludedPaths":[{"path":"/\"a/?"}]})",
        R"({"compositeIndexes":{}})", R"({"compositeIndexes":[[{"path":"/a"}]]})",
        R"({"compositeIndexes":[[{"path":"/a"},{"path":"b"}]]})"}) {
    EXPECT_EQ(PolicyError(bad), 400) << bad;
  }
}

TEST(IndexingPolicy, SpatialVectorFullTextAreNotImplemented) {
  EXPECT_EQ(PolicyError(R"({"spatialIndexes":[{"path":"/loc/*","types":["Point"]}]})"), 501);
  EXPECT_EQ(PolicyError(R"({"vectorIndexes":[{"path":"/v","type":"flat"}]})"), 501);
  EXPECT_EQ(PolicyError(R"({"fullTextIndexes":[{"path":"/t"}]})"), 501);
  EXPECT_EQ(PolicyError(R"({"spatialIndexes":[]})"), 0);
}

// ---- CountTerms -----------------------------------------------------------------------------

TEST(CountTerms, DefaultPolicyCountsEveryLeafPlusTs) {
  auto p = IndexingPolicy::FromJson(nullptr);
  // id, pk, n, s and _ts; _rid _self _etag _attachments are not terms.
  EXPECT_EQ(Terms(p, Stored(R"("id":"d1","pk":"a","n":1,"s":"x1")")), 5);
  EXPECT_EQ(Terms(p, Stored(R"("id":"d1")")), 2);
  EXPECT_EQ(Terms(p, R"({"id":"1"})"), 1);
  EXPECT_EQ(Terms(p, R"({"id":"1","a":null,"b":true,"c":false,"d":0})"), 5);
}

TEST(CountTerms, NestedObjectsAndArrays) {
  auto p = IndexingPolicy::FromJson(nullptr);
  EXPECT_EQ(Terms(p, R"({"id":"1","tags":["a","b","c"]})"), 4);
  EXPECT_EQ(Terms(p, R"({"id":"1","a":{"b":1,"c":[1,2]}})"), 4);
  EXPECT_EQ(Terms(p, R"({"id":"1","m":[[1,2],[3]]})"), 4);
  EXPECT_EQ(Terms(p, R"({"id":"1","o":[{"x":1,"y":2},{"x":3}]})"), 4);
}

TEST(CountTerms, ExcludedPaths) {
  auto p = Policy(R"({"excludedPaths":[{"path":"/secret/*"},{"path":"/big/?"}]})");
  EXPECT_EQ(Terms(p, R"({"id":"1","secret":{"x":1,"y":[1,2]},"pub":1,"big":"x"})"), 2);
  // "/big/?" only excludes the scalar at /big, not what is below it.
  EXPECT_EQ(Terms(p, R"({"id":"1","big":{"inner":1}})"), 2);
}

TEST(CountTerms, MorePreciseIncludeWinsOverExclude) {
  auto p = Policy(
      R"({"includedPaths":[{"path":"/*"},{"path":"/category/name/?"}],"excludedPaths":[{"path":"/category/*"}]})");
  EXPECT_EQ(Terms(p, R"({"id":"1","category":{"id":"c","name":"n","x":[1,2]}})"), 2);
}

TEST(CountTerms, IncludedSpecificPaths) {
  auto p = Policy(R"({"includedPaths":[{"path":"/name/?"},{"path":"/tags/[]/?"}],"excludedPaths":[{"path":"/*"}]})");
  EXPECT_EQ(Terms(p, R"({"name":"n","tags":["a","b"],"other":2,"deep":{"name":"x"}})"), 3);
  EXPECT_EQ(Terms(p, R"({"name":{"nested":1}})"), 0);
}

TEST(CountTerms, CompositeIndexesAddOneEachWhenAllPathsAreScalars) {
  auto p = Policy(R"({"compositeIndexes":[[{"path":"/a","order":"ascending"},{"path":"/b","order":"descending"}],)"
                  R"([{"path":"/a"},{"path":"/c/d"}]]})");
  EXPECT_EQ(Terms(p, R"({"id":"1","a":1,"b":2})"), 3 + 1);
  EXPECT_EQ(Terms(p, R"({"id":"1","a":1,"b":2,"c":{"d":"x"}})"), 4 + 2);
  EXPECT_EQ(Terms(p, R"({"id":"1","a":1})"), 2);
  EXPECT_EQ(Terms(p, R"({"id":"1","a":1,"b":{"x":1}})"), 3);
  EXPECT_EQ(Terms(p, R"({"id":"1","a":1,"b":[1]})"), 3);
}

TEST(CountTerms, ModeNoneIsZero) {
  auto p = Policy(R"({"indexingMode":"none","automatic":false})");
  EXPECT_EQ(Terms(p, Stored(R"("id":"d1","pk":"a","n":1,"s":"x1","tags":[1,2,3])")), 0);
}

}  // namespace
}  // namespace cosmos::store
