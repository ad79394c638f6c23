// query/query_plan: the plan against the SDK's query-plan baselines
// (tests/data/cosmos-baselines/query-plan) and the plans the real service answered
// (tests/data/real-service-recordings); provenance in tests/data/README.md.
#include "query/query_plan.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "common/errors.h"
#include "store/epk.h"

namespace cosmos::query {
namespace {

namespace fs = std::filesystem;

// A file's text; CRLF line ends (some baseline files have them) read as LF, as the service writes.
std::string ReadFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  std::erase(text, '\r');
  return text;
}

// XML text content: CDATA unwrapped, entities decoded.
std::string XmlText(const std::string& raw) {
  std::string s = raw;
  const auto cdata = s.find("<![CDATA[");
  if (cdata != std::string::npos) {
    const auto end = s.find("]]>", cdata);
    return s.substr(cdata + 9, end - cdata - 9);
  }
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    static const std::pair<const char*, char> kEntities[] = {
        {"&lt;", '<'}, {"&gt;", '>'}, {"&amp;", '&'}, {"&quot;", '"'}, {"&apos;", '\''}};
    bool done = false;
    if (s[i] == '&') {
      for (const auto& [name, ch] : kEntities) {
        if (s.compare(i, std::strlen(name), name) == 0) {
          out.push_back(ch);
          i += std::strlen(name) - 1;
          done = true;
          break;
        }
      }
    }
    if (!done) out.push_back(s[i]);
  }
  return out;
}

// The raw inner text of every <tag>...</tag> in `block` (self-closing <tag /> gives nothing).
std::vector<std::string> Blocks(const std::string& block, const std::string& tag) {
  std::vector<std::string> out;
  const std::string open = "<" + tag + ">", close = "</" + tag + ">";
  for (size_t pos = 0; (pos = block.find(open, pos)) != std::string::npos;) {
    const size_t start = pos + open.size();
    const size_t end = block.find(close, start);
    if (end == std::string::npos) break;
    out.push_back(block.substr(start, end - start));
    pos = end + close.size();
  }
  return out;
}

std::optional<std::string> Element(const std::string& block, const std::string& tag) {
  auto b = Blocks(block, tag);
  if (b.empty()) return std::nullopt;
  return XmlText(b.front());
}

std::vector<std::string> Texts(const std::string& block, const std::string& tag) {
  std::vector<std::string> out;
  for (const auto& b : Blocks(block, tag)) out.push_back(XmlText(b));
  return out;
}

struct Case {
  std::string file;  // e.g. "OrderBy"
  std::string description;
  std::string query;
  std::optional<std::string> params;  // JSON array text
  store::PartitionKeyDefinition pk;
  bool geometry = false;  // <GeospatialType>Geometry</GeospatialType>: a geometry container
  std::string output;  // the <Output> block
};

std::vector<Case> LoadCases() {
  std::vector<Case> cases;
  const fs::path dir = fs::path(COSMOS_TEST_DATA) / "cosmos-baselines" / "query-plan";
  if (!fs::is_directory(dir)) return cases;
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir)) files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  for (const auto& path : files) {
    std::string name = path.stem().string();  // QueryPlanBaselineTests.OrderBy
    name = name.substr(name.find('.') + 1);
    const std::string text = ReadFile(path);
    for (const auto& block : Blocks(text, "Result")) {
      Case c;
      c.file = name;
      const std::string input = Blocks(block, "Input").front();
      c.description = Element(input, "Description").value_or("");
      c.query = Element(input, "Query").value_or("");
      c.params = Element(input, "QueryParameters");
      for (const auto& key : Texts(input, "Key")) {
        c.pk.paths.push_back(key);
        std::vector<std::string> parts;
        std::stringstream ss(key.substr(1));
        for (std::string part; std::getline(ss, part, '/');) parts.push_back(part);
        c.pk.parts.push_back(parts);
      }
      c.pk.kind = Element(input, "PartitionKeyType").value_or("Hash");
      c.geometry = Element(input, "GeospatialType").value_or("Geography") == "Geometry";
      c.output = Blocks(block, "Output").front();
      cases.push_back(std::move(c));
    }
  }
  return cases;
}

using RangeKey = std::tuple<std::string, std::string, bool, bool>;

// A baseline range such as [[5.0],[5.0]] or [[],"Infinity") as EPKs under `pk`; nullopt for the
// Range-kind sentinels (MinNumber, MaxString, ...) we do not model.
std::optional<RangeKey> BaselineRange(const std::string& text, const store::PartitionKeyDefinition& pk) {
  if (text.size() < 2) return std::nullopt;
  const bool min_inclusive = text.front() == '[';
  const bool max_inclusive = text.back() == ']';
  json::Document d;
  if (json::Parse("[" + text.substr(1, text.size() - 2) + "]", d) != json::ParseStatus::kOk || d.Size() != 2) {
    return std::nullopt;
  }
  std::string bounds[2];
  for (int i = 0; i < 2; ++i) {
    const json::Value& b = d[i];
    if (b.IsString() && std::string(b.GetString()) == "Infinity") {
      bounds[i] = std::string(store::kMaxEpk);
      continue;
    }
    if (!b.IsArray()) return std::nullopt;
    store::PartitionKeyValue key;
    for (const auto& c : b.GetArray()) {
      if (c.IsObject() && c.ObjectEmpty()) {
        key.components.push_back(std::nullopt);
        continue;
      }
      auto canon = store::CanonicalComponent(c);
      if (!canon) return std::nullopt;
      key.components.push_back(canon);
    }
    bounds[i] = store::EffectivePartitionKey(pk, key);
  }
  return RangeKey{bounds[0], bounds[1], min_inclusive, max_inclusive};
}

std::vector<std::string> JsonStrings(const json::Value& v) {
  std::vector<std::string> out;
  if (v.IsArray()) {
    for (const auto& s : v.GetArray()) out.push_back(s.IsString() ? s.GetString() : json::Write(s));
  }
  return out;
}

std::string NullableCount(const json::Value& v) { return v.IsNull() ? "" : json::Write(v); }

// Compares our plan with the baseline's expected output; returns the differences.
std::vector<std::string> Compare(const Case& c, const std::string& plan_json) {
  std::vector<std::string> diffs;
  json::Document plan;
  if (json::Parse(plan_json, plan) != json::ParseStatus::kOk) return {"plan is not JSON"};
  const json::Value& qi = plan["queryInfo"];
  const std::string info = Blocks(c.output, "QueryInfo").front();
  auto expect = [&](const std::string& field, const std::string& want, const std::string& got) {
    if (want != got) diffs.push_back(field + ": want [" + want + "] got [" + got + "]");
  };
  auto expect_list = [&](const std::string& field, const std::vector<std::string>& want,
                         const std::vector<std::string>& got) {
    std::string w, g;
    for (const auto& s : want) w += s + "|";
    for (const auto& s : got) g += s + "|";
    expect(field, w, g);
  };
  expect("distinctType", Element(info, "DistinctType").value_or(""), qi["distinctType"].GetString());
  expect("top", Element(info, "Top").value_or(""), NullableCount(qi["top"]));
  expect("offset", Element(info, "Offset").value_or(""), NullableCount(qi["offset"]));
  expect("limit", Element(info, "Limit").value_or(""), NullableCount(qi["limit"]));
  expect_list("orderBy", Texts(info, "SortOrder"), JsonStrings(qi["orderBy"]));
  expect_list("orderByExpressions", Texts(info, "OrderByExpression"), JsonStrings(qi["orderByExpressions"]));
  expect_list("groupByExpressions", Texts(info, "GroupByExpression"), JsonStrings(qi["groupByExpressions"]));
  const auto aliases_block = Blocks(info, "GroupByAliases");
  expect_list("groupByAliases",
              aliases_block.empty() ? std::vector<std::string>{} : Texts(aliases_block.front(), "Alias"),
              JsonStrings(qi["groupByAliases"]));
  const auto aggregates_block = Blocks(info, "Aggregates");
  expect_list(
      "aggregates",
      aggregates_block.empty() ? std::vector<std::string>{} : Texts(aggregates_block.front(), "AggregateOperator"),
      JsonStrings(qi["aggregates"]));
  std::map<std::string, std::string> want_types, got_types;
  for (const auto& a : Blocks(info, "AliasToAggregateType")) {
    want_types[Element(a, "Alias").value_or("")] = Element(a, "AggregateOperator").value_or("");
  }
  for (const auto& m : qi["groupByAliasToAggregateType"].GetObject()) {
    got_types[m.name.GetString()] = m.value.IsNull() ? "null" : m.value.GetString();
  }
  std::string wt, gt;
  for (const auto& [k, v] : want_types) wt += k + "=" + v + ";";
  for (const auto& [k, v] : got_types) gt += k + "=" + v + ";";
  expect("groupByAliasToAggregateType", wt, gt);
  expect("hasSelectValue", Element(info, "HasSelectValue").value_or(""),
         qi["hasSelectValue"].GetBool() ? "True" : "False");
  expect("rewrittenQuery", Element(c.output, "RewrittenQuery").value_or(""), qi["rewrittenQuery"].GetString());

  std::set<RangeKey> want_ranges, got_ranges;
  const auto ranges_block = Blocks(c.output, "QueryRanges");
  // <QueryRanges><Range><Range>[[1.0],[1.0]]</Range><Range>...</Range></Range></QueryRanges>
  std::vector<std::string> range_texts;
  const std::string& rb = ranges_block.front();
  for (size_t pos = 0; (pos = rb.find("<Range>", pos)) != std::string::npos;) {
    pos += 7;
    const std::string t = rb.substr(pos, rb.find('<', pos) - pos);
    if (!t.empty() && (t[0] == '[' || t[0] == '(')) range_texts.push_back(XmlText(t));
  }
  for (const auto& text : range_texts) {
    auto r = BaselineRange(text, c.pk);
    if (!r) {
      diffs.push_back("queryRanges: baseline range " + text + " uses Range-kind sentinels (not modelled)");
      continue;
    }
    want_ranges.insert(*r);
  }
  for (const auto& r : plan["queryRanges"].GetArray()) {
    got_ranges.insert(RangeKey{r["min"].GetString(), r["max"].GetString(), r["isMinInclusive"].GetBool(),
                               r["isMaxInclusive"].GetBool()});
  }
  auto text = [](const std::set<RangeKey>& s) {
    std::string out;
    for (const auto& [min, max, mi, ma] : s) out += (mi ? "[" : "(") + min + "," + max + (ma ? "]" : ")") + " ";
    return out;
  };
  if (want_ranges != got_ranges) diffs.push_back("queryRanges: want " + text(want_ranges) + " got " + text(got_ranges));
  return diffs;
}

// Compares a hybrid search (ORDER BY RANK) plan: the global statistics query, each component's
// counts, order and rewritten query, skip, take and whether statistics are required.
std::vector<std::string> CompareHybrid(const Case& c, const std::string& plan_json) {
  std::vector<std::string> diffs;
  json::Document plan;
  if (json::Parse(plan_json, plan) != json::ParseStatus::kOk) return {"plan is not JSON"};
  if (!plan.HasMember("hybridSearchQueryInfo") || !plan["hybridSearchQueryInfo"].IsObject()) return {"no hybridSearchQueryInfo"};
  const json::Value& h = plan["hybridSearchQueryInfo"];
  auto expect = [&](const std::string& field, const std::string& want, const std::string& got) {
    if (want != got) diffs.push_back(field + ": want [" + want + "] got [" + got + "]");
  };
  auto count = [&](const json::Value& o, const char* key) {
    auto it = o.FindMember(key);
    return it == o.MemberEnd() ? std::string() : NullableCount(it->value);
  };
  expect("globalStatisticsQuery", Element(c.output, "GlobalStatisticsQuery").value_or(""),
         h["globalStatisticsQuery"].GetString());
  const auto components = Blocks(c.output, "componentQueryInfo");
  const auto& got = h["componentQueryInfos"];
  if (components.size() != got.Size()) return {"component count differs"};
  for (size_t i = 0; i < components.size(); ++i) {
    const std::string& want = components[i];
    const json::Value& qi = got[static_cast<rapidjson::SizeType>(i)];
    const std::string at = "component " + std::to_string(i) + " ";
    expect(at + "top", Element(want, "Top").value_or(""), count(qi, "top"));
    expect(at + "offset", Element(want, "Offset").value_or(""), count(qi, "offset"));
    expect(at + "limit", Element(want, "Limit").value_or(""), count(qi, "limit"));
    std::string w, g;
    for (const auto& t : Texts(want, "SortOrder")) w += t + "|";
    for (const auto& t : JsonStrings(qi["orderBy"])) g += t + "|";
    expect(at + "orderBy", w, g);
    w.clear(), g.clear();
    for (const auto& t : Texts(want, "OrderByExpression")) w += t + "|";
    for (const auto& t : JsonStrings(qi["orderByExpressions"])) g += t + "|";
    expect(at + "orderByExpressions", w, g);
    expect(at + "rewrittenQuery", Element(want, "RewrittenQuery").value_or(""), qi["rewrittenQuery"].GetString());
  }
  expect("skip", Element(c.output, "Skip").value_or(""), count(h, "skip"));
  expect("take", Element(c.output, "Take").value_or(""), count(h, "take"));
  expect("requiresGlobalStatistics", Element(c.output, "RequiresGlobalStatistics").value_or(""),
         h["requiresGlobalStatistics"].GetBool() ? "True" : "False");
  return diffs;
}

// The number of baseline cases this implementation matches; a regression fails the test.
constexpr int kExpectedMatches = 359;

TEST(QueryPlanBaseline, MatchesTheServicePlans) {
  const auto cases = LoadCases();
  ASSERT_FALSE(cases.empty()) << "no query-plan baselines in " << COSMOS_TEST_DATA
                              << "/cosmos-baselines/query-plan (tests/data/README.md)";
  std::map<std::string, std::pair<int, int>> per_file;  // matched, total
  int matched = 0;
  for (const auto& c : cases) {
    auto& [file_matched, file_total] = per_file[c.file];
    ++file_total;
    const bool must_fail = c.output.find("<Exception>") != std::string::npos;
    // Hybrid (ORDER BY RANK) plans, as the service writes them for a client without
    // HybridSearchSkipOrderByRewrite.
    const bool hybrid = !must_fail && c.output.find("<HybridSearchQueryInfo>") != std::string::npos;
    // The vector search cases ran on a container whose embedding policy gives /embedding the
    // distance function their description names (the XML does not carry the policy).
    store::VectorPolicy vectors;
    if (c.file == "VectorSearch") {
      store::VectorEmbedding e;
      e.path = "/embedding";
      e.segments = {"embedding"};
      e.distance = c.description.find("Euclidean") != std::string::npos ? store::DistanceFunction::kEuclidean
                   : c.description.find("Dot Product") != std::string::npos ? store::DistanceFunction::kDotProduct
                                                                              : store::DistanceFunction::kCosine;
      vectors.embeddings.push_back(e);
    }
    std::string outcome;
    std::vector<std::string> diffs;
    try {
      sql::SyntaxError error;
      auto q = sql::Parse(c.query, error);
      if (!q) throw errors::QueryError(error.code, error.loc.start, error.loc.end, error.message);
      json::Document params;
      const json::Value* p = nullptr;
      if (c.params) {
        ASSERT_EQ(json::Parse(*c.params, params), json::ParseStatus::kOk) << *c.params;
        p = &params;
      }
      const std::string plan = QueryPlanJson(*q, p, c.pk, &vectors, false, c.geometry);
      if (must_fail) {
        diffs.push_back("must fail, got a plan");
      } else if (hybrid) {
        diffs = CompareHybrid(c, plan);
      } else {
        diffs = Compare(c, plan);
      }
    } catch (const CosmosError& e) {
      if (!must_fail) {
        diffs.push_back("refused: " + std::string(e.what()));
      }
      EXPECT_EQ(e.status, 400) << c.file << ": " << c.description;
    }
    if (diffs.empty()) {
      ++matched;
      ++file_matched;
      continue;
    }
    std::printf("  [%s] %s\n", c.file.c_str(), c.description.c_str());
    for (const auto& d : diffs) std::printf("      %s\n", d.c_str());
  }
  std::printf("query-plan baselines: %d of %zu match\n", matched, cases.size());
  for (const auto& [file, counts] : per_file)
    std::printf("  %-20s %3d of %3d\n", file.c_str(), counts.first, counts.second);
  EXPECT_EQ(cases.size(), 365u);
  EXPECT_GE(matched, kExpectedMatches);
  // Every spatial case, Geometry containers' constant folding on the plane included.
  EXPECT_EQ(per_file["Spatial"], std::make_pair(16, 16));
}

// The plans the real service answered, byte for byte (key order, nulls, escapes).
TEST(QueryPlanRecordings, MatchTheServiceExactly) {
  const fs::path dir = fs::path(COSMOS_TEST_DATA) / "real-service-recordings";
  ASSERT_TRUE(fs::is_directory(dir)) << "no real-service recordings at " << dir << " (tests/data/README.md)";
  store::PartitionKeyDefinition pk;
  pk.paths = {"/pk"};
  pk.parts = {{"pk"}};
  int checked = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    json::Document rec;
    ASSERT_EQ(json::Parse(ReadFile(entry.path()), rec), json::ParseStatus::kOk);
    const json::Value& resp = rec["response"];
    const std::string body_text = resp["body"].IsString() ? resp["body"].GetString() : "";
    json::Document body;
    if (json::Parse(body_text, body) != json::ParseStatus::kOk || !body.IsObject()) continue;
    std::string expected;
    if (body.HasMember("partitionedQueryExecutionInfoVersion")) {
      expected = body_text;
    } else if (body.HasMember("additionalErrorInfo")) {
      expected = body["additionalErrorInfo"].GetString();
    } else {
      continue;
    }
    std::string query = rec["request"]["body"].GetString();
    json::Document req;
    if (json::Parse(query, req) == json::ParseStatus::kOk && req.IsObject()) query = req["query"].GetString();
    sql::SyntaxError error;
    auto q = sql::Parse(query, error);
    ASSERT_NE(q, nullptr) << query;
    EXPECT_EQ(QueryPlanJson(*q, nullptr, pk), expected) << entry.path().filename().string();
    ++checked;
  }
  std::printf("recorded plans checked: %d\n", checked);
  EXPECT_GE(checked, 6);
}

std::string Plan(const std::string& text, const store::PartitionKeyDefinition& pk, const char* params = nullptr) {
  sql::SyntaxError error;
  auto q = sql::Parse(text, error);
  EXPECT_NE(q, nullptr) << text << ": " << error.message;
  json::Document d;
  if (params) {
    EXPECT_EQ(json::Parse(params, d), json::ParseStatus::kOk);
  }
  return QueryPlanJson(*q, params ? &d : nullptr, pk);
}

store::PartitionKeyDefinition Pk(std::vector<std::string> names, const std::string& kind, int version) {
  store::PartitionKeyDefinition pk;
  for (const auto& n : names) {
    pk.paths.push_back("/" + n);
    pk.parts.push_back({n});
  }
  pk.kind = kind;
  pk.version = version;
  return pk;
}

std::string Ranges(const std::string& plan) {
  json::Document d;
  EXPECT_EQ(json::Parse(plan, d), json::ParseStatus::kOk);
  return json::Write(d["queryRanges"]);
}

TEST(QueryPlan, PointRangesUseTheContainersEpk) {
  const auto v2 = Pk({"pk"}, "Hash", 2);
  EXPECT_EQ(Ranges(Plan("SELECT * FROM c WHERE c.pk = 'a'", v2)),
            "[{\"min\":\"3A5381E1114EB8D3FCC90795045B49B7\",\"max\":\"3A5381E1114EB8D3FCC90795045B49B7\","
            "\"isMinInclusive\":true,\"isMaxInclusive\":true}]");
  const auto v1 = Pk({"pk"}, "Hash", 1);
  EXPECT_EQ(Ranges(Plan("SELECT * FROM c WHERE c.pk = @p", v1, R"([{"name":"@p","value":5}])")),
            "[{\"min\":\"05C1D9C1C5517C05C014\",\"max\":\"05C1D9C1C5517C05C014\","
            "\"isMinInclusive\":true,\"isMaxInclusive\":true}]");
  // Not an equality on the key: every range.
  EXPECT_EQ(Ranges(Plan("SELECT * FROM c WHERE c.pk > 'a'", v2)),
            "[{\"min\":\"\",\"max\":\"FF\",\"isMinInclusive\":true,\"isMaxInclusive\":false}]");
}

TEST(QueryPlan, HierarchicalKeyPrefixGivesAPrefixRange) {
  const auto mh = Pk({"tenant", "user"}, "MultiHash", 2);
  EXPECT_EQ(Ranges(Plan("SELECT * FROM c WHERE c.tenant = 'a'", mh)),
            "[{\"min\":\"3A5381E1114EB8D3FCC90795045B49B7\",\"max\":\"3A5381E1114EB8D3FCC90795045B49B7FF\","
            "\"isMinInclusive\":true,\"isMaxInclusive\":false}]");
  EXPECT_EQ(Ranges(Plan("SELECT * FROM c WHERE c.tenant = 'a' AND c.user = 5", mh)),
            "[{\"min\":\"3A5381E1114EB8D3FCC90795045B49B719C08621B135968252FB34B4CF66F811\","
            "\"max\":\"3A5381E1114EB8D3FCC90795045B49B719C08621B135968252FB34B4CF66F811\","
            "\"isMinInclusive\":true,\"isMaxInclusive\":true}]");
  // Only the second level: no narrowing.
  EXPECT_EQ(Ranges(Plan("SELECT * FROM c WHERE c.user = 5", mh)),
            "[{\"min\":\"\",\"max\":\"FF\",\"isMinInclusive\":true,\"isMaxInclusive\":false}]");
}

TEST(QueryPlan, RefusalsAre400) {
  const auto pk = Pk({"pk"}, "Hash", 2);
  for (const char* text :
       {"SELECT VALUE FLOOR(AVG(c.a)) FROM c", "SELECT * FROM c GROUP BY c.a", "SELECT * FROM c ORDER BY LOWER(c.a)",
        "SELECT NOPE(c.a) FROM c", "SELECT TOP 2147483648 * FROM c", "SELECT c.b FROM c GROUP BY c.a",
        "SELECT COUNT(1) AS n, c.x FROM c", "SELECT * FROM c ORDER BY RANK LOWER(c.t)"}) {
    try {
      Plan(text, pk);
      ADD_FAILURE() << "accepted: " << text;
    } catch (const CosmosError& e) {
      EXPECT_EQ(e.status, 400) << text;
    }
  }
}

std::string Info(const std::string& plan, const char* field) {
  json::Document d;
  EXPECT_EQ(json::Parse(plan, d), json::ParseStatus::kOk);
  const json::Value& v = d["queryInfo"][field];
  return v.IsString() ? v.GetString() : json::Write(v);
}

TEST(QueryPlan, OffsetLimitRewrites) {
  const auto pk = Pk({"pk"}, "Hash", 2);
  // ORDER BY with OFFSET/LIMIT: each range returns its first offset + limit rows in order.
  const std::string ordered = Plan("SELECT c.id FROM c ORDER BY c.n DESC OFFSET 1 LIMIT 2", pk);
  EXPECT_EQ(Info(ordered, "rewrittenQuery"),
            "SELECT c._rid, [{\"item\": c.n}] AS orderByItems, {\"id\": c.id} AS payload\nFROM c\n"
            "WHERE ({documentdb-formattableorderbyquery-filter})\nORDER BY c.n DESC\nOFFSET 0 LIMIT 3");
  EXPECT_EQ(Info(ordered, "offset"), "1");
  EXPECT_EQ(Info(ordered, "limit"), "2");
  // One logical partition runs OFFSET/LIMIT itself; the plan leaves the query alone.
  const std::string point = Plan("SELECT * FROM c WHERE c.pk = 'a' OFFSET 1 LIMIT 2", pk);
  EXPECT_EQ(Info(point, "offset"), "null");
  EXPECT_EQ(Info(point, "rewrittenQuery"), "");
  // Several partitions: every range returns offset + limit rows.
  EXPECT_EQ(Info(Plan("SELECT * FROM c WHERE c.pk IN ('a', 'b') OFFSET 1 LIMIT 2", pk), "rewrittenQuery"),
            "SELECT *\nFROM c\nWHERE (c.pk IN (\"a\", \"b\"))\nOFFSET 0 LIMIT 3");
}

TEST(QueryPlan, DistinctWithOrderByKeepsEveryRowOfEachRange) {
  // The SDK removes duplicates across the ranges before TOP/OFFSET/LIMIT: a range query that kept only
  // its first rows could hand over nothing but duplicates (as the service's plan for TOP/OFFSET with
  // DISTINCT and no ORDER BY, in the Top and OffsetLimit baselines).
  const auto pk = Pk({"pk"}, "Hash", 2);
  const std::string offset = Plan("SELECT DISTINCT VALUE c.n FROM c ORDER BY c.n OFFSET 1 LIMIT 2", pk);
  EXPECT_EQ(Info(offset, "rewrittenQuery"),
            "SELECT c._rid, [{\"item\": c.n}] AS orderByItems, c.n AS payload\nFROM c\n"
            "WHERE (({documentdb-formattableorderbyquery-filter}) AND IS_DEFINED(c.n))\nORDER BY c.n");
  EXPECT_EQ(Info(offset, "distinctType"), "Ordered");
  EXPECT_EQ(Info(offset, "offset"), "1");
  EXPECT_EQ(Info(offset, "limit"), "2");
  const std::string top = Plan("SELECT DISTINCT TOP 2 c.n FROM c ORDER BY c.n DESC", pk);
  EXPECT_EQ(Info(top, "rewrittenQuery"),
            "SELECT c._rid, [{\"item\": c.n}] AS orderByItems, {\"n\": c.n} AS payload\nFROM c\n"
            "WHERE ({documentdb-formattableorderbyquery-filter})\nORDER BY c.n DESC");
  EXPECT_EQ(Info(top, "top"), "2");
  // Without DISTINCT the ranges still stop early.
  EXPECT_EQ(Info(Plan("SELECT TOP 2 c.n FROM c ORDER BY c.n DESC", pk), "rewrittenQuery"),
            "SELECT TOP 2 c._rid, [{\"item\": c.n}] AS orderByItems, {\"n\": c.n} AS payload\nFROM c\n"
            "WHERE ({documentdb-formattableorderbyquery-filter})\nORDER BY c.n DESC");
}
TEST(QueryPlan, MakeListAndMakeSetAreAggregates) {
  const auto pk = Pk({"pk"}, "Hash", 2);
  const std::string value = Plan("SELECT VALUE MAKESET(c.n) FROM c", pk);
  EXPECT_EQ(Info(value, "aggregates"), "[\"MakeSet\"]");
  EXPECT_EQ(Info(value, "rewrittenQuery"), "SELECT VALUE [{\"item\": MAKESET(c.n)}]\nFROM c");
  const std::string grouped = Plan("SELECT c.g, MAKELIST(c.n) AS l FROM c GROUP BY c.g", pk);
  EXPECT_EQ(Info(grouped, "groupByAliasToAggregateType"), "{\"g\":null,\"l\":\"MakeList\"}");
  EXPECT_EQ(Info(grouped, "rewrittenQuery"),
            "SELECT [{\"item\": c.g}] AS groupByItems, {\"g\": c.g, \"l\": {\"item\": MAKELIST(c.n)}} AS payload\n"
            "FROM c\nGROUP BY c.g");
}
// RRF weights are written as floating-point numbers, magnitudes only (a negative weight reverses
// its component's order): the Java SDK reads them as doubles and fails on "1".
TEST(QueryPlan, RrfWeightsAreFloatingPointNumbers) {
  const std::string plan = Plan(
      "SELECT c.id FROM c ORDER BY RANK RRF(FullTextScore(c.text, 'swim'), FullTextScore(c.text, 'a'), [-1, 0.5]) "
      "OFFSET 0 LIMIT 3",
      Pk({"pk"}, "Hash", 2));
  EXPECT_NE(plan.find("\"componentWeights\":[1.0,0.5]"), std::string::npos) << plan;
  const std::string tens = Plan(
      "SELECT c.id FROM c ORDER BY RANK RRF(FullTextScore(c.text, 'swim'), FullTextScore(c.text, 'a'), [10, 10])",
      Pk({"pk"}, "Hash", 2));
  EXPECT_NE(tens.find("\"componentWeights\":[10.0,10.0]"), std::string::npos) << tens;
}

TEST(QueryPlan, SubqueryClausesAreRefusedAllAtOnce) {
  const auto pk = Pk({"pk"}, "Hash", 2);
  try {
    Plan("SELECT VALUE ARRAY(SELECT TOP 1 VALUE t FROM t IN c.tags ORDER BY t.name OFFSET 0 LIMIT 1) FROM c", pk);
    ADD_FAILURE() << "accepted";
  } catch (const CosmosError& e) {
    EXPECT_EQ(e.status, 400);
    EXPECT_EQ(std::string(e.what()),
              "Message: {\"errors\":[{\"severity\":\"Error\",\"location\":{\"start\":26,\"end\":31},\"code\":\"SC2203\","
              "\"message\":\"'TOP' is not supported in subqueries.\"},{\"severity\":\"Error\",\"location\":{\"start\":57,"
              "\"end\":72},\"code\":\"SC2202\",\"message\":\"'ORDER BY' is not supported in subqueries.\"},{\"severity\":"
              "\"Error\",\"location\":{\"start\":73,\"end\":89},\"code\":\"SC2204\",\"message\":\"'OFFSET LIMIT' clause is "
              "not supported in subqueries.\"}]}");
  }
}
}  // namespace
}  // namespace cosmos::query
