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

// The message of the 400 a policy gets ("" when accepted).
std::string PolicyMessage(const std::string& text, const std::string& geo = "") {
  try {
    auto d = J(text);
    if (geo.empty()) {
      IndexingPolicy::FromJson(&d);
    } else {
      auto g = J(geo);
      IndexingPolicy::FromJson(&d, &g);
    }
    return "";
  } catch (const CosmosError& e) {
    EXPECT_EQ(e.status, 400);
    EXPECT_EQ(e.code, "BadRequest");
    return e.what();
  }
}

std::string Wrapped(const std::string& text) { return "Message: {\"Errors\":[\"" + text + "\"]}"; }

std::string BadPathText(const std::string& path, int pos) {
  return Wrapped("The indexing path '" + path + "' could not be accepted, failed near position '" + std::to_string(pos) +
                 "'. Please ensure that the path is a valid path. Common errors include invalid characters or "
                 "absence of quotes around labels.");
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
  // Left out, automatic reads back false; true is refused.
  EXPECT_EQ(json::Write(Policy(R"({"indexingMode":"none"})").raw),
            R"({"indexingMode":"none","automatic":false,"includedPaths":[],"excludedPaths":[]})");
  EXPECT_FALSE(Policy(R"({"indexingMode":"None"})").automatic);
  EXPECT_EQ(PolicyMessage(R"({"indexingMode":"none","automatic":true})"),
            Wrapped("Indexing mode value cannot be 'none' when automatic indexing is specified as 'true'."));
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
        R"({"compositeIndexes":[[{"path":"/a"},{"path":"b"}]]})", R"({"spatialIndexes":{}})",
        R"({"spatialIndexes":[{"path":"/loc","types":["Point"]}]})"}) {
    EXPECT_EQ(PolicyError(bad), 400) << bad;
  }
}

TEST(IndexingPolicy, PathErrorsNameThePathAndPosition) {
  EXPECT_EQ(PolicyMessage(R"({"includedPaths":[{"path":"a/*"}]})"), BadPathText("a/*", 0));
  EXPECT_EQ(PolicyMessage(R"({"includedPaths":[{"path":"/passwordHash"}]})"), BadPathText("/passwordHash", 13));
  EXPECT_EQ(PolicyMessage(R"({"excludedPaths":[{"path":"/a//?"}]})"), BadPathText("/a//?", 3));
  EXPECT_EQ(PolicyMessage(R"({"excludedPaths":[{"path":"/lineItems/*/name/?"}]})"),
            BadPathText("/lineItems/*/name/?", 11));
  EXPECT_EQ(PolicyMessage(R"({"excludedPaths":[{"path":"/\"a/?"}]})"), BadPathText("/\\\"a/?", 1));
  EXPECT_EQ(PolicyMessage(R"({"excludedPaths":[{"path":"/a/"}]})"), BadPathText("/a/", 2));
  // Quoted labels, array elements and wildcards at the end are fine.
  EXPECT_EQ(PolicyMessage(R"({"excludedPaths":[{"path":"/\"a b\"/[]/c/?"},{"path":"/x/*"}]})"), "");
}

TEST(IndexingPolicy, CompositeIndexValidation) {
  EXPECT_EQ(PolicyMessage(R"({"compositeIndexes":[[{"path":"/a"},{"path":"/b"}],[{"path":"/a"}]]})"),
            Wrapped("The composite index at 'indexingPolicy.additionalIndexes.composite['1']' must have at least 2 "
                    "paths."));
  EXPECT_EQ(PolicyMessage(R"({"compositeIndexes":[[]]})"),
            Wrapped("The composite index at 'indexingPolicy.additionalIndexes.composite['0']' must have at least 2 "
                    "paths."));
  // Composite paths name a property: no wildcard, no "?".
  EXPECT_EQ(PolicyMessage(R"({"compositeIndexes":[[{"path":"/a/*"},{"path":"/b"}]]})"), BadPathText("/a/*", 3));
  EXPECT_EQ(PolicyMessage(R"({"compositeIndexes":[[{"path":"/a"},{"path":"/b/?"}]]})"), BadPathText("/b/?", 3));
  EXPECT_EQ(PolicyMessage(R"({"compositeIndexes":[[{"path":"/a"},{"path":"/a","order":"descending"}]]})"),
            Wrapped("The following path '/a' was specified more than once in 'additionalIndexes.composite[0][1]'. "
                    "Remove the duplicated field."));
  EXPECT_EQ(PolicyMessage(R"({"compositeIndexes":[[{"path":"/a","order":"up"},{"path":"/b"}]]})"),
            Wrapped("The composite order 'up' is invalid. Choose between 'ascending' and 'descending'."));
  auto p = Policy(R"({"compositeIndexes":[[{"path":"/a","order":"Descending"},{"path":"/\"b c\"/d"}]]})");
  ASSERT_EQ(p.composites.size(), 1u);
  EXPECT_EQ(p.composites[0], (std::vector<std::vector<std::string>>{{"a"}, {"b c", "d"}}));
  EXPECT_EQ(p.composite_descending[0], (std::vector<bool>{true, false}));
}

TEST(IndexingPolicy, CompositeMatchingIsExactOrAllReversed) {
  auto p = Policy(R"({"compositeIndexes":[[{"path":"/name","order":"ascending"},{"path":"/age","order":"descending"}],)"
                  R"([{"path":"/a"},{"path":"/b"},{"path":"/c"}]]})");
  const std::vector<std::vector<std::string>> name_age{{"name"}, {"age"}};
  EXPECT_TRUE(p.HasCompositeFor(name_age, {false, true}));
  EXPECT_TRUE(p.HasCompositeFor(name_age, {true, false}));  // every direction reversed
  EXPECT_FALSE(p.HasCompositeFor(name_age, {false, false}));
  EXPECT_FALSE(p.HasCompositeFor(name_age, {true, true}));
  EXPECT_FALSE(p.HasCompositeFor({{"age"}, {"name"}}, {true, false}));  // other sequence
  EXPECT_TRUE(p.HasCompositeFor({{"a"}, {"b"}, {"c"}}, {false, false, false}));
  EXPECT_FALSE(p.HasCompositeFor({{"a"}, {"b"}}, {false, false}));  // a prefix is not served
  EXPECT_FALSE(Policy(R"({"indexingMode":"none","compositeIndexes":[[{"path":"/a"},{"path":"/b"}]]})")
                   .HasCompositeFor({{"a"}, {"b"}}, {false, false}));
}

TEST(IndexingPolicy, SpatialIndexesAreStoredAndReturned) {
  auto p = Policy(R"({"spatialIndexes":[{"path":"/location/*","types":["Point","Polygon"]},)"
                  R"({"path":"/area/?","types":["MultiPolygon","LineString"]}]})");
  EXPECT_EQ(json::Write(p.raw),
            R"({"indexingMode":"consistent","automatic":true,"includedPaths":[{"path":"/*"}],)"
            R"("excludedPaths":[{"path":"/\"_etag\"/?"}],)"
            R"("spatialIndexes":[{"path":"/location/*","types":["Point","Polygon"]},)"
            R"({"path":"/area/?","types":["MultiPolygon","LineString"]}]})");
  EXPECT_EQ(p.spatial, (std::vector<std::vector<std::string>>{{"location", "*"}, {"area", "?"}}));
  EXPECT_TRUE(p.IsSpatiallyIndexed({"location"}));
  EXPECT_TRUE(p.IsSpatiallyIndexed({"location", "home"}));
  EXPECT_TRUE(p.IsSpatiallyIndexed({"area"}));
  EXPECT_FALSE(p.IsSpatiallyIndexed({"area", "x"}));
  EXPECT_FALSE(p.IsSpatiallyIndexed({"other"}));
  EXPECT_FALSE(IndexingPolicy::FromJson(nullptr).IsSpatiallyIndexed({"location"}));
  EXPECT_TRUE(Policy(R"({"spatialIndexes":[{"path":"/*","types":["Point"]}]})").IsSpatiallyIndexed({"a", "b"}));
  EXPECT_EQ(PolicyError(R"({"spatialIndexes":[]})"), 0);
}

TEST(IndexingPolicy, SpatialIndexValidation) {
  EXPECT_EQ(PolicyMessage(R"({"spatialIndexes":[{"path":"/loc","types":["Point"]}]})"), BadPathText("/loc", 4));
  EXPECT_EQ(PolicyMessage(R"({"spatialIndexes":[{"path":"/loc/*","types":["Circle"]}]})"),
            Wrapped("The indexing policy is invalid: the spatial type 'Circle' is not one of 'Point', 'LineString', "
                    "'Polygon' and 'MultiPolygon'."));
  EXPECT_EQ(PolicyMessage(R"({"spatialIndexes":[{"path":"/loc/*","types":[]}]})"),
            Wrapped("The indexing policy is invalid: the spatial index at path '/loc/*' needs a non-empty types "
                    "array."));
  EXPECT_EQ(PolicyMessage(R"({"spatialIndexes":[{"path":"/loc/*"}]})"),
            Wrapped("The indexing policy is invalid: the spatial index at path '/loc/*' needs a non-empty types "
                    "array."));
  // Geometry containers need a bounding box on every spatial path; geography ones do not.
  const std::string geometry = R"({"type":"Geometry"})";
  EXPECT_EQ(PolicyMessage(R"({"spatialIndexes":[{"path":"/loc/*","types":["Point"]}]})", geometry),
            Wrapped("The indexing policy is invalid: the spatial index at path '/loc/*' needs a boundingBox because "
                    "the container's geospatialConfig type is Geometry."));
  EXPECT_EQ(PolicyMessage(R"({"spatialIndexes":[{"path":"/loc/*","types":["Point"]}]})", R"({"type":"Geography"})"), "");
  EXPECT_EQ(PolicyMessage(R"({"spatialIndexes":[{"path":"/loc/*","types":["Polygon"],)"
                          R"("boundingBox":{"xmin":0,"ymin":0,"xmax":10,"ymax":10}}]})",
                          geometry),
            "");
  EXPECT_EQ(PolicyMessage(R"({"spatialIndexes":[{"path":"/loc/*","types":["Polygon"],)"
                          R"("boundingBox":{"xmin":10,"ymin":0,"xmax":0,"ymax":10}}]})"),
            Wrapped("The indexing policy is invalid: the boundingBox of the spatial index at path '/loc/*' needs "
                    "numbers xmin < xmax and ymin < ymax."));
}

// Vector and full-text indexes are checked against their policies by the container's handler
// (vector_policy_test.cpp, tests/sdk/js/full_text.test.mjs) and kept as given.
TEST(IndexingPolicy, VectorAndFullTextIndexesAreKeptAsGiven) {
  EXPECT_EQ(PolicyError(R"({"vectorIndexes":[{"path":"/v","type":"flat"}]})"), 0);
  json::Document d;
  d.Parse(R"({"vectorIndexes":[{"path":"/v","type":"diskANN","quantizationByteSize":8}]})");
  auto p = IndexingPolicy::FromJson(&d);
  EXPECT_EQ(json::Write(p.raw["vectorIndexes"]), R"([{"path":"/v","type":"diskANN","quantizationByteSize":8}])");
  d.Parse(R"({"fullTextIndexes":[{"path":"/t"}]})");
  EXPECT_EQ(json::Write(IndexingPolicy::FromJson(&d).raw["fullTextIndexes"]), R"([{"path":"/t"}])");
  EXPECT_EQ(PolicyError(R"({"vectorIndexes":[],"fullTextIndexes":[]})"), 0);
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

TEST(CountTerms, SpatialIndexAddsOnePerCoveredGeometry) {
  auto p = Policy(R"({"spatialIndexes":[{"path":"/loc/*","types":["Point","Polygon","LineString","MultiPolygon"]}]})");
  auto plain = IndexingPolicy::FromJson(nullptr);
  const std::string point = R"({"id":"1","loc":{"type":"Point","coordinates":[31.9,-4.7]}})";
  // id, loc/type, loc/coordinates/[] x2 = 4 range terms; + 1 for the point.
  EXPECT_EQ(Terms(plain, point), 4);
  EXPECT_EQ(Terms(p, point), 5);
  // Nested geometries under the spatial path count too; non-GeoJSON objects and other paths do not.
  EXPECT_EQ(Terms(p, R"({"id":"1","loc":{"home":{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,0]]]}}})"), 1 + 1 + 8 + 1);
  EXPECT_EQ(Terms(p, R"({"id":"1","loc":{"type":"Circle","coordinates":[1,2]}})"), 4);
  EXPECT_EQ(Terms(p, R"({"id":"1","loc":{"type":"Point"}})"), 2);
  EXPECT_EQ(Terms(p, R"({"id":"1","elsewhere":{"type":"Point","coordinates":[1,2]}})"), 4);
  // A spatial index on every path, and mode none.
  auto all = Policy(R"({"spatialIndexes":[{"path":"/*","types":["Point"]}]})");
  EXPECT_EQ(Terms(all, R"({"id":"1","a":{"type":"Point","coordinates":[1,2]},"b":{"type":"LineString","coordinates":[[1,2],[3,4]]}})"),
            1 + 3 + 5 + 2);
}

TEST(CountTerms, ModeNoneIsZero) {
  auto p = Policy(R"({"indexingMode":"none","automatic":false})");
  EXPECT_EQ(Terms(p, Stored(R"("id":"d1","pk":"a","n":1,"s":"x1","tags":[1,2,3])")), 0);
}

}  // namespace
}  // namespace cosmos::store
