// store/partition_key: definitions, extraction from documents, canonical keys, header parsing.
#include "store/partition_key.h"

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

PartitionKeyDefinition Def(const std::string& text) { return PartitionKeyDefinition::FromJson(J(text)); }

// Status of the CosmosError FromJson throws (0 when it accepts).
int DefError(const std::string& text, std::string* code = nullptr) {
  try {
    Def(text);
    return 0;
  } catch (const CosmosError& e) {
    if (code) *code = e.code;
    return e.status;
  }
}

std::string DefJson(const PartitionKeyDefinition& def) {
  json::Document d;
  def.ToJson(d, d.GetAllocator());
  return json::Write(d);
}

std::string Key(const std::string& def, const std::string& doc) {
  return ExtractPartitionKey(Def(def), J(doc)).Canonical();
}

// ---- definitions ----------------------------------------------------------------------------

TEST(PartitionKeyDefinition, SinglePathDefaults) {
  auto d = Def(R"({"paths":["/pk"]})");
  EXPECT_EQ(d.paths, (std::vector<std::string>{"/pk"}));
  EXPECT_EQ(d.parts, (std::vector<std::vector<std::string>>{{"pk"}}));
  EXPECT_EQ(d.kind, "Hash");
  EXPECT_EQ(d.version, 1);
  EXPECT_FALSE(d.system_key);
  EXPECT_EQ(DefJson(d), R"({"paths":["/pk"],"kind":"Hash","version":1})");
}

TEST(PartitionKeyDefinition, Version2AndNestedAndQuotedPaths) {
  auto v2 = Def(R"({"paths":["/pk"],"kind":"Hash","version":2})");
  EXPECT_EQ(v2.version, 2);
  EXPECT_EQ(DefJson(v2), R"({"paths":["/pk"],"kind":"Hash","version":2})");
  EXPECT_EQ(Def(R"({"paths":["/pk"],"version":null})").version, 1);
  // The Java SDK writes the enum's name; the service keeps it and answers the number.
  auto named = Def(R"({"paths":["/pk"],"kind":"Hash","version":"V2"})");
  EXPECT_EQ(named.version, 2);
  EXPECT_EQ(DefJson(named), R"({"paths":["/pk"],"kind":"Hash","version":2})");
  EXPECT_EQ(Def(R"({"paths":["/pk"],"kind":"Hash","version":"V1"})").version, 1);
  EXPECT_EQ(Def(R"({"paths":["/a","/b"],"kind":"MultiHash","version":"V2"})").version, 2);
  EXPECT_EQ(Def(R"({"paths":["/a/b/c"]})").parts, (std::vector<std::vector<std::string>>{{"a", "b", "c"}}));
  EXPECT_EQ(Def(R"({"paths":["/\"a b\"/c"]})").parts, (std::vector<std::vector<std::string>>{{"a b", "c"}}));
  EXPECT_EQ(Def(R"({"paths":["/'x/y'"]})").parts, (std::vector<std::vector<std::string>>{{"x/y"}}));
}

TEST(PartitionKeyDefinition, Hierarchical) {
  auto d = Def(R"({"paths":["/tenant","/user"]})");
  EXPECT_EQ(d.kind, "MultiHash");
  EXPECT_EQ(d.version, 2);
  EXPECT_EQ(d.parts, (std::vector<std::vector<std::string>>{{"tenant"}, {"user"}}));
  EXPECT_EQ(DefJson(d), R"({"paths":["/tenant","/user"],"kind":"MultiHash","version":2})");
  auto three = Def(R"({"paths":["/a","/b/c","/d"],"kind":"MultiHash","version":1})");
  EXPECT_EQ(three.kind, "MultiHash");
  EXPECT_EQ(three.version, 2);  // MultiHash is always version 2
  EXPECT_EQ(three.parts.size(), 3u);
}

TEST(PartitionKeyDefinition, SystemKey) {
  auto d = Def(R"({"paths":["/_partitionKey"],"kind":"Hash","systemKey":true})");
  EXPECT_TRUE(d.system_key);
  EXPECT_EQ(DefJson(d), R"({"paths":["/_partitionKey"],"kind":"Hash","version":1,"systemKey":true})");
}

TEST(PartitionKeyDefinition, InvalidDefinitionsAre400) {
  for (const char* bad :
       {R"([])", R"({})", R"({"paths":[]})", R"({"paths":"/pk"})", R"({"paths":[5]})", R"({"paths":["pk"]})",
        R"({"paths":["/"]})", R"({"paths":["/a/"]})", R"({"paths":["//a"]})", R"({"paths":["/\"a"]})",
        R"({"paths":["/a","/b","/c","/d"]})", R"({"paths":["/a","/b"],"kind":"Hash"})",
        R"({"paths":["/pk"],"kind":"Foo"})", R"({"paths":["/pk"],"kind":5})", R"({"paths":["/pk"],"version":3})",
        R"({"paths":["/pk"],"version":"2"})", R"({"paths":["/pk"],"version":0})", R"({"paths":["/pk"],"version":"V3"})"}) {
    std::string code;
    EXPECT_EQ(DefError(bad, &code), 400) << bad;
    EXPECT_EQ(code, "BadRequest") << bad;
  }
}

TEST(PartitionKeyDefinition, RangeIsNotImplemented) {
  std::string code;
  EXPECT_EQ(DefError(R"({"paths":["/pk"],"kind":"Range"})", &code), 501);
  EXPECT_EQ(code, "NotImplemented");
}

// ---- extraction and canonical keys ----------------------------------------------------------

TEST(PartitionKeyExtraction, ScalarValues) {
  const std::string def = R"({"paths":["/pk"]})";
  EXPECT_EQ(Key(def, R"({"pk":"a"})"), R"(["a"])");
  EXPECT_EQ(Key(def, R"({"pk":5})"), "[5]");
  EXPECT_EQ(Key(def, R"({"pk":5.0})"), "[5]");
  EXPECT_EQ(Key(def, R"({"pk":5e0})"), "[5]");
  EXPECT_EQ(Key(def, R"({"pk":-0.0})"), "[0]");
  EXPECT_EQ(Key(def, R"({"pk":0.1})"), "[0.1]");
  EXPECT_EQ(Key(def, R"({"pk":true})"), "[true]");
  EXPECT_EQ(Key(def, R"({"pk":false})"), "[false]");
  EXPECT_EQ(Key(def, R"({"pk":null})"), "[null]");
  EXPECT_EQ(Key(def, R"({"pk":"5"})"), R"(["5"])");
  EXPECT_EQ(Key(def, R"({"pk":"a\"b\u0000"})"), R"(["a\"b\u0000"])");
}

TEST(PartitionKeyExtraction, MissingIsNone) {
  const std::string def = R"({"paths":["/pk"]})";
  EXPECT_EQ(Key(def, R"({"id":"1"})"), "[{}]");
  EXPECT_EQ(Key(def, R"({"PK":"a"})"), "[{}]");  // property names are case-sensitive
  // Objects and arrays are not partition key values.
  EXPECT_EQ(Key(def, R"({"pk":{"a":1}})"), "[{}]");
  EXPECT_EQ(Key(def, R"({"pk":[1]})"), "[{}]");
}

TEST(PartitionKeyExtraction, NestedPaths) {
  const std::string def = R"({"paths":["/a/b"]})";
  EXPECT_EQ(Key(def, R"({"a":{"b":"x"}})"), R"(["x"])");
  EXPECT_EQ(Key(def, R"({"a":{"c":"x"}})"), "[{}]");
  EXPECT_EQ(Key(def, R"({"a":"b"})"), "[{}]");
  EXPECT_EQ(Key(def, R"({"a":["b"]})"), "[{}]");
  EXPECT_EQ(Key(R"({"paths":["/\"a b\""]})", R"({"a b":7})"), "[7]");
}

TEST(PartitionKeyExtraction, Hierarchical) {
  const std::string def = R"({"paths":["/t","/u"]})";
  EXPECT_EQ(Key(def, R"({"t":"x","u":1})"), R"(["x",1])");
  EXPECT_EQ(Key(def, R"({"u":1,"t":"x"})"), R"(["x",1])");
  EXPECT_EQ(Key(def, R"({"t":"x"})"), R"(["x",{}])");
  EXPECT_EQ(Key(def, R"({})"), "[{},{}]");
}

TEST(PartitionKeyCanonical, EqualNumbersHaveEqualText) {
  EXPECT_EQ(CanonicalComponent(J("5")), "5");
  EXPECT_EQ(CanonicalComponent(J("5.0")), "5");
  EXPECT_EQ(CanonicalComponent(J("5e0")), "5");
  EXPECT_EQ(CanonicalComponent(J("50e-1")), "5");
  EXPECT_EQ(CanonicalComponent(J("1e21")), "1e+21");
  EXPECT_EQ(CanonicalComponent(J("\"5\"")), "\"5\"");
  EXPECT_EQ(CanonicalComponent(J("null")), "null");
  EXPECT_FALSE(CanonicalComponent(J("{}")).has_value());
  EXPECT_FALSE(CanonicalComponent(J("[]")).has_value());
  PartitionKeyValue none;
  none.components.push_back(std::nullopt);
  EXPECT_EQ(none.Canonical(), "[{}]");
  PartitionKeyValue empty;
  EXPECT_EQ(empty.Canonical(), "[]");
}

// ---- header parsing -------------------------------------------------------------------------

std::string Header(const std::string& def, const std::string& header) {
  return ParsePartitionKeyHeader(Def(def), header).Canonical();
}

// {status, substatus} of the error ParsePartitionKeyHeader throws ({0,0} when it accepts).
std::pair<int, int> HeaderError(const std::string& def, const std::string& header, std::string* message = nullptr) {
  try {
    Header(def, header);
    return {0, 0};
  } catch (const CosmosError& e) {
    if (message) *message = e.what();
    return {e.status, e.substatus};
  }
}

TEST(PartitionKeyHeader, ParsesValues) {
  const std::string def = R"({"paths":["/pk"]})";
  EXPECT_EQ(Header(def, R"(["a"])"), R"(["a"])");
  EXPECT_EQ(Header(def, R"([ "a" ])"), R"(["a"])");
  EXPECT_EQ(Header(def, "[5.0]"), "[5]");
  EXPECT_EQ(Header(def, "[5]"), "[5]");
  EXPECT_EQ(Header(def, "[true]"), "[true]");
  EXPECT_EQ(Header(def, "[null]"), "[null]");
  EXPECT_EQ(Header(def, "[{}]"), "[{}]");
  EXPECT_EQ(Header(def, R"(["\u00e9"])"), "[\"é\"]");
  EXPECT_EQ(Header(R"({"paths":["/t","/u"]})", R"(["x",1])"), R"(["x",1])");
  EXPECT_EQ(Header(R"({"paths":["/t","/u"]})", R"(["x",{}])"), R"(["x",{}])");
}

TEST(PartitionKeyHeader, HeaderMatchesDocument) {
  const std::string def = R"({"paths":["/pk"]})";
  EXPECT_EQ(Header(def, "[5]"), Key(def, R"({"pk":5.0})"));
  EXPECT_EQ(Header(def, R"(["\u00e9"])"), Key(def, "{\"pk\":\"é\"}"));
  EXPECT_EQ(Header(def, "[{}]"), Key(def, R"({"id":"x"})"));
  EXPECT_NE(Header(def, "[null]"), Key(def, R"({"id":"x"})"));
  EXPECT_NE(Header(def, R"(["5"])"), Key(def, R"({"pk":5})"));
}

TEST(PartitionKeyHeader, EmptyArrayIsNoneForSystemKey) {
  EXPECT_EQ(Header(R"({"paths":["/_partitionKey"],"systemKey":true})", "[]"), "[{}]");
}

TEST(PartitionKeyHeader, ErrorsAre400With1001) {
  const std::string def = R"({"paths":["/pk"]})";
  std::string message;
  EXPECT_EQ(HeaderError(def, "[]", &message), std::make_pair(400, 1001));
  EXPECT_NE(message.find("fewer components than defined in the the collection"), std::string::npos) << message;
  EXPECT_EQ(HeaderError(def, R"(["a","b"])", &message), std::make_pair(400, 1001));
  EXPECT_NE(message.find("more components"), std::string::npos) << message;
  EXPECT_EQ(HeaderError(R"({"paths":["/t","/u"]})", R"(["x"])"), std::make_pair(400, 1001));
  for (const char* bad : {"abc", "\"a\"", "5", "{}", "[[1]]", R"([{"a":1}])", "[", "[1,]", ""}) {
    EXPECT_EQ(HeaderError(def, bad), std::make_pair(400, 1001)) << bad;
  }
}

}  // namespace
}  // namespace cosmos::store
