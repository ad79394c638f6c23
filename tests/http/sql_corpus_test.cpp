// The data-driven SQL corpus (tests/sql/*.test, format in tests/sql/README.md): one parameterised
// test per case, run through the in-process HTTP harness. Each docs block is loaded into a fresh
// container (partition key /pk); each query case is sent twice, once in a single page
// (x-ms-max-item-count: -1) and once in pages of at most 2 rows following x-ms-continuation.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "http_test_util.h"

namespace cosmos::testing {
namespace {

namespace fs = std::filesystem;

struct SqlCase {
  std::string file;  // stem, e.g. "select"
  int line = 0;      // 1-based line of the case header
  std::string parse_error;  // non-empty: the file could not be parsed here

  std::vector<std::string> docs;  // the documents of the docs block in force
  std::string policy;              // the indexing policy in force (JSON object text), or empty
  std::string query;
  std::string params;  // JSON object text {"@p": value, ...}, or empty
  bool unordered = false;
  std::vector<std::string> expected;  // one JSON value per row

  bool is_error = false;
  int status = 0;
  std::string substatus;  // e.g. "4001"
  std::string sc_code;    // e.g. "SC1001"
  std::optional<std::pair<int, int>> location;
  std::string message;  // substring of the error message

  bool without_indexes = false;  // run with --query-indexes off: the same rows must come back
  bool in_parallel = false;      // collections read in parts on 4 threads: the same rows must come back
};

// gtest prints parameters of failing tests: keep it to the case's location.
void PrintTo(const SqlCase& c, std::ostream* os) { *os << "tests/sql/" << c.file << ".test:" << c.line; }

fs::path CorpusDir() {
  if (const char* env = std::getenv("COSMOS_SQL_CORPUS_DIR"); env && *env) return fs::path(env);
  // Beside tests/data (an absolute path the build gives; __FILE__ may be relative to the build
  // directory when a compiler cache rewrites paths).
  return fs::path(COSMOS_TEST_DATA).parent_path() / "sql";
}

std::string TrimRight(std::string s) {
  while (!s.empty() && (s.back() == '\r' || s.back() == ' ' || s.back() == '\t')) s.pop_back();
  return s;
}

bool StartsWith(const std::string& s, const std::string& p) { return s.rfind(p, 0) == 0; }

std::vector<std::string> SplitWords(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

bool AllDigits(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// Parses one corpus file. Never throws: a malformed file yields a case carrying parse_error.
std::vector<SqlCase> ParseFile(const fs::path& path) {
  std::vector<SqlCase> out;
  const std::string stem = path.stem().string();
  std::ifstream in(path, std::ios::binary);
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(TrimRight(l));

  auto fail = [&](int line, const std::string& why) {
    SqlCase c;
    c.file = stem;
    c.line = line;
    c.parse_error = why;
    out.push_back(std::move(c));
  };

  std::vector<std::string> docs;
  std::string policy;
  size_t i = 0;
  const size_t n = lines.size();
  while (i < n) {
    const std::string& l = lines[i];
    if (l.empty() || l[0] == '#') {
      ++i;
      continue;
    }
    const int header_line = static_cast<int>(i) + 1;
    if (StartsWith(l, "policy ")) {
      json::Document d;
      if (json::Parse(l.substr(7), d) != json::ParseStatus::kOk || !d.IsObject()) {
        fail(header_line, "a policy line is not a JSON object: " + l);
      }
      policy = l.substr(7);
      ++i;
      continue;
    }
    if (l == "docs") {
      docs.clear();
      policy.clear();
      ++i;
      for (; i < n && !lines[i].empty(); ++i) {
        if (lines[i][0] == '#') continue;
        json::Document d;
        if (json::Parse(lines[i], d) != json::ParseStatus::kOk || !d.IsObject()) {
          fail(static_cast<int>(i) + 1, "a docs line is not a JSON object: " + lines[i]);
        }
        docs.push_back(lines[i]);
      }
      continue;
    }
    if (l == "query" || StartsWith(l, "query ")) {
      SqlCase c;
      c.file = stem;
      c.line = header_line;
      c.docs = docs;
      c.policy = policy;
      std::string rest = l.substr(5);
      while (!rest.empty() && rest[0] == ' ') rest.erase(0, 1);
      if (StartsWith(rest, "unordered")) {
        c.unordered = true;
        rest = rest.substr(9);
        while (!rest.empty() && rest[0] == ' ') rest.erase(0, 1);
      }
      if (StartsWith(rest, "params")) {
        c.params = rest.substr(6);
        json::Document p;
        if (json::Parse(c.params, p) != json::ParseStatus::kOk || !p.IsObject()) {
          fail(header_line, "params is not a JSON object: " + c.params);
          c.params.clear();
        }
      } else if (!rest.empty()) {
        fail(header_line, "unknown words after 'query': " + rest);
      }
      ++i;
      std::string q;
      bool first = true;
      for (; i < n && lines[i] != "----"; ++i) {
        if (lines[i].empty()) break;
        q += (first ? "" : "\n") + lines[i];
        first = false;
      }
      if (i >= n || lines[i] != "----") {
        fail(header_line, "query case without a '----' line");
        continue;
      }
      c.query = q;
      ++i;
      for (; i < n && !lines[i].empty(); ++i) {
        json::Document d;
        if (json::Parse(lines[i], d) != json::ParseStatus::kOk) {
          fail(static_cast<int>(i) + 1, "an expected row is not JSON: " + lines[i]);
        }
        c.expected.push_back(lines[i]);
      }
      out.push_back(std::move(c));
      continue;
    }
    if (StartsWith(l, "error ")) {
      SqlCase c;
      c.file = stem;
      c.line = header_line;
      c.docs = docs;
      c.is_error = true;
      auto w = SplitWords(l.substr(6));
      bool ok = !w.empty() && AllDigits(w[0]);
      if (ok) c.status = std::atoi(w[0].c_str());
      if (ok && w.size() >= 2) {
        if (StartsWith(w[1], "SC")) {
          c.sc_code = w[1];
          if (w.size() == 4 && AllDigits(w[2]) && AllDigits(w[3])) {
            c.location = std::make_pair(std::atoi(w[2].c_str()), std::atoi(w[3].c_str()));
          } else if (w.size() != 2) {
            ok = false;
          }
        } else if (AllDigits(w[1]) && w.size() == 2) {
          c.substatus = w[1];
        } else {
          ok = false;
        }
      }
      if (!ok) fail(header_line, "malformed error header: " + l);
      ++i;
      std::string q;
      bool first = true;
      for (; i < n && lines[i] != "----" && !lines[i].empty(); ++i) {
        q += (first ? "" : "\n") + lines[i];
        first = false;
      }
      c.query = q;
      if (i < n && lines[i] == "----") {
        ++i;
        std::string msg;
        bool mfirst = true;
        for (; i < n && !lines[i].empty(); ++i) {
          msg += (mfirst ? "" : "\n") + lines[i];
          mfirst = false;
        }
        c.message = msg;
      }
      if (ok) out.push_back(std::move(c));
      continue;
    }
    fail(header_line, "unexpected line: " + l);
    ++i;
  }
  return out;
}

std::vector<SqlCase> LoadCorpus() {
  std::vector<SqlCase> all;
  std::vector<fs::path> files;
  std::error_code ec;
  const fs::path dir = CorpusDir();
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (e.is_regular_file() && e.path().extension() == ".test") files.push_back(e.path());
  }
  if (ec || files.empty()) {
    SqlCase c;
    c.file = "corpus";
    c.parse_error = "no *.test files found in " + dir.string();
    all.push_back(c);
    return all;
  }
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    auto cases = ParseFile(f);
    all.insert(all.end(), std::make_move_iterator(cases.begin()), std::make_move_iterator(cases.end()));
  }
  return all;
}

const std::vector<SqlCase>& Corpus() {
  static const std::vector<SqlCase> corpus = LoadCorpus();
  return corpus;
}

// Every case again with the path indexes off: an index may change what a query reads, never its
// result, so each case must pass both ways.
std::vector<SqlCase> CorpusWithoutIndexes() {
  std::vector<SqlCase> cases = Corpus();
  for (auto& c : cases) c.without_indexes = true;
  return cases;
}

// Every case again with every collecting query read in parallel, in parts of one item (a part per
// item, merged in order): the same rows must come back.
std::vector<SqlCase> CorpusInParallel() {
  std::vector<SqlCase> cases = Corpus();
  for (auto& c : cases) c.in_parallel = true;
  return cases;
}

// ---- comparison ------------------------------------------------------------------------------

bool SameNumber(const json::Value& a, const json::Value& b) {
  // Integers (as parsed) compare exactly; anything else compares as double.
  if (a.IsInt64() && b.IsInt64()) return a.GetInt64() == b.GetInt64();
  if (a.IsUint64() && b.IsUint64()) return a.GetUint64() == b.GetUint64();
  if ((a.IsInt64() || a.IsUint64()) && (b.IsInt64() || b.IsUint64())) return false;  // int64 < 0 vs > INT64_MAX
  return a.GetDouble() == b.GetDouble();
}

bool SameValue(const json::Value& a, const json::Value& b) {
  if (a.IsNumber() && b.IsNumber()) return SameNumber(a, b);
  if (a.GetType() != b.GetType()) {
    // rapidjson has kFalseType/kTrueType as separate types: that difference is a mismatch anyway.
    return false;
  }
  switch (a.GetType()) {
    case rapidjson::kNullType:
    case rapidjson::kFalseType:
    case rapidjson::kTrueType:
      return true;
    case rapidjson::kStringType:
      return a.GetStringLength() == b.GetStringLength() &&
             std::string_view(a.GetString(), a.GetStringLength()) == std::string_view(b.GetString(), b.GetStringLength());
    case rapidjson::kArrayType: {
      if (a.Size() != b.Size()) return false;
      for (rapidjson::SizeType k = 0; k < a.Size(); ++k) {
        if (!SameValue(a[k], b[k])) return false;
      }
      return true;
    }
    case rapidjson::kObjectType: {
      if (a.MemberCount() != b.MemberCount()) return false;
      for (auto& m : a.GetObject()) {
        auto it = b.FindMember(m.name);
        if (it == b.MemberEnd() || !SameValue(m.value, it->value)) return false;
      }
      return true;
    }
    default:
      return false;
  }
}

bool RowsMatch(const std::vector<std::string>& expected, const std::vector<std::string>& actual, bool unordered) {
  if (expected.size() != actual.size()) return false;
  std::vector<json::Document> exp(expected.size()), act(actual.size());
  for (size_t k = 0; k < expected.size(); ++k) {
    if (json::Parse(expected[k], exp[k]) != json::ParseStatus::kOk) return false;
    if (json::Parse(actual[k], act[k]) != json::ParseStatus::kOk) return false;
  }
  if (!unordered) {
    for (size_t k = 0; k < exp.size(); ++k) {
      if (!SameValue(exp[k], act[k])) return false;
    }
    return true;
  }
  std::vector<bool> used(act.size(), false);
  for (auto& e : exp) {
    bool found = false;
    for (size_t k = 0; k < act.size() && !found; ++k) {
      if (!used[k] && SameValue(e, act[k])) used[k] = found = true;
    }
    if (!found) return false;
  }
  return true;
}

std::string Rows(const std::vector<std::string>& rows) {
  std::string s;
  for (auto& r : rows) s += "    " + r + "\n";
  return s.empty() ? "    (no rows)\n" : s;
}

// ---- the fixture -----------------------------------------------------------------------------

constexpr const char* kDb = "sqldb";
constexpr const char* kColl = "sqlc";

class SqlCorpusTest : public EmulatorTest, public ::testing::WithParamInterface<SqlCase> {
 protected:
  struct Page {
    Reply reply;
    std::vector<std::string> rows;
    bool ok = false;
    std::string error;
  };

  std::string Describe(const SqlCase& c) const {
    std::string s = "  case: tests/sql/" + c.file + ".test:" + std::to_string(c.line) + "\n  query: " + c.query + "\n";
    if (!c.params.empty()) s += "  params: " + c.params + "\n";
    if (c.without_indexes) s += "  (--query-indexes off)\n";
    if (c.in_parallel) s += "  (read in parallel, in parts of one item)\n";
    return s;
  }

  std::string Body(const SqlCase& c) const {
    std::string body = "{\"query\":";
    json::WriteString(body, c.query);
    body += ",\"parameters\":[";
    if (!c.params.empty()) {
      json::Document p;
      json::Parse(c.params, p);
      bool first = true;
      for (auto& m : p.GetObject()) {
        if (!first) body += ",";
        first = false;
        body += "{\"name\":";
        json::WriteString(body, std::string_view(m.name.GetString(), m.name.GetStringLength()));
        body += ",\"value\":";
        json::Write(body, m.value);
        body += "}";
      }
    }
    body += "]}";
    return body;
  }

  void Load(const SqlCase& c) {
    config_.query_indexes = !c.without_indexes;
    if (c.in_parallel) {
      config_.query_threads = 4;
      config_.query_parallel_min_items = 0;
      config_.query_parallel_part_items = 1;
    }
    MakeDatabase(kDb);
    MakeContainer(kDb, kColl, c.policy.empty() ? "" : "\"indexingPolicy\":" + c.policy);
    for (const auto& doc : c.docs) {
      json::Document d;
      ASSERT_EQ(json::Parse(doc, d), json::ParseStatus::kOk) << doc;
      std::string pk = "[";
      if (d.HasMember("pk")) {
        json::Write(pk, d["pk"]);
      } else {
        pk += "{}";
      }
      pk += "]";
      auto r = CreateDoc(kDb, kColl, doc, pk);
      ASSERT_EQ(r.status(), 201) << "loading " << doc << "\n" << r;
    }
  }

  Page Send(const SqlCase& c, const std::string& max_items, const std::string& continuation) {
    // Sent to the container's one partition key range, as the SDKs send each range its query: the
    // backend runs the whole query there (the gateway would answer ORDER BY, aggregates and the
    // like with 400/1004 and the plan).
    Headers h = {{"x-ms-documentdb-isquery", "True"},
                 {"content-type", "application/query+json"},
                 {"x-ms-documentdb-query-enablecrosspartition", "True"},
                 {"x-ms-documentdb-partitionkeyrangeid", "0"},
                 {"x-ms-max-item-count", max_items}};
    if (!continuation.empty()) h.emplace_back("x-ms-continuation", continuation);
    Page p{Post(std::string("/dbs/") + kDb + "/colls/" + kColl + "/docs", Body(c), h), {}, false, {}};
    if (p.reply.status() != 200) {
      p.error = "status " + std::to_string(p.reply.status()) + ": " + p.reply.body();
      return p;
    }
    auto d = p.reply.Json();
    if (!d.IsObject() || !d.HasMember("Documents") || !d["Documents"].IsArray()) {
      p.error = "the body has no Documents array: " + p.reply.body();
      return p;
    }
    for (auto& v : d["Documents"].GetArray()) {
      if (v.IsObject()) {
        for (const char* sys : {"_rid", "_self", "_etag", "_attachments", "_ts"}) v.RemoveMember(sys);
      }
      p.rows.push_back(json::Write(v));
    }
    p.ok = true;
    return p;
  }

  void RunQuery(const SqlCase& c) {
    // One page.
    {
      Page p = Send(c, "-1", "");
      ASSERT_TRUE(p.ok) << Describe(c) << "  expected:\n" << Rows(c.expected) << "  failed: " << p.error;
      EXPECT_TRUE(RowsMatch(c.expected, p.rows, c.unordered))
          << Describe(c) << "  (x-ms-max-item-count: -1" << (c.unordered ? ", unordered" : "") << ")\n  expected:\n"
          << Rows(c.expected) << "  actual:\n"
          << Rows(p.rows);
    }
    // Pages of at most 2 rows, following the continuation.
    {
      std::vector<std::string> all;
      std::string continuation;
      int pages = 0;
      for (int page = 0; page < 1000; ++page) {
        ++pages;
        Page p = Send(c, "2", continuation);
        ASSERT_TRUE(p.ok) << Describe(c) << "  (page " << page << " of x-ms-max-item-count: 2)\n  failed: " << p.error;
        EXPECT_LE(p.rows.size(), 2u) << Describe(c) << "  page " << page << " has more rows than x-ms-max-item-count\n"
                                      << Rows(p.rows);
        all.insert(all.end(), p.rows.begin(), p.rows.end());
        continuation = p.reply.Header("x-ms-continuation");
        if (continuation.empty()) break;
        ASSERT_LT(page, 999) << Describe(c) << "  the continuation never ends";
      }
      EXPECT_TRUE(RowsMatch(c.expected, all, c.unordered))
          << Describe(c) << "  (x-ms-max-item-count: 2, " << pages << " pages concatenated"
          << (c.unordered ? ", unordered" : "")
          << ")\n  expected:\n"
          << Rows(c.expected) << "  actual:\n"
          << Rows(all);
    }
  }

  void RunError(const SqlCase& c) {
    Page p = Send(c, "-1", "");
    const Reply& r = p.reply;
    std::string want = "  expected: " + std::to_string(c.status);
    if (!c.substatus.empty()) want += " substatus " + c.substatus;
    if (!c.sc_code.empty()) want += " " + c.sc_code;
    if (c.location) want += " at [" + std::to_string(c.location->first) + "," + std::to_string(c.location->second) + ")";
    if (!c.message.empty()) want += " \"" + c.message + "\"";
    const std::string got = "\n  actual: " + std::to_string(r.status()) + " substatus '" + r.Substatus() + "' " + r.body();
    ASSERT_EQ(r.status(), c.status) << Describe(c) << want << got;
    if (!c.substatus.empty()) {
      EXPECT_EQ(r.Substatus(), c.substatus) << Describe(c) << want << got;
    }
    const std::string message = r.Message();
    if (!c.sc_code.empty()) {
      EXPECT_NE(message.find(c.sc_code), std::string::npos) << Describe(c) << want << got;
    }
    if (c.location) {
      const std::string loc = "\"location\":{\"start\":" + std::to_string(c.location->first) +
                              ",\"end\":" + std::to_string(c.location->second) + "}";
      EXPECT_NE(message.find(loc), std::string::npos) << Describe(c) << "  missing " << loc << "\n" << want << got;
    }
    if (!c.message.empty()) {
      EXPECT_NE(message.find(c.message), std::string::npos) << Describe(c) << want << got;
    }
  }
};

TEST_P(SqlCorpusTest, Run) {
  const SqlCase& c = GetParam();
  ASSERT_TRUE(c.parse_error.empty()) << "tests/sql/" << c.file << ".test:" << c.line << ": " << c.parse_error;
  Load(c);
  if (HasFatalFailure()) return;
  if (c.is_error) {
    RunError(c);
  } else {
    RunQuery(c);
  }
}

std::string CaseName(const ::testing::TestParamInfo<SqlCase>& info) {
  std::string name = info.param.file + "_L" + std::to_string(info.param.line);
  for (char& ch : name) {
    if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9'))) ch = '_';
  }
  if (!info.param.parse_error.empty()) name += "_parse_error";
  return name;
}

INSTANTIATE_TEST_SUITE_P(SqlCorpus, SqlCorpusTest, ::testing::ValuesIn(Corpus()), CaseName);
INSTANTIATE_TEST_SUITE_P(SqlCorpusWithoutIndexes, SqlCorpusTest, ::testing::ValuesIn(CorpusWithoutIndexes()), CaseName);
INSTANTIATE_TEST_SUITE_P(SqlCorpusInParallel, SqlCorpusTest, ::testing::ValuesIn(CorpusInParallel()), CaseName);

// The corpus as a whole: every file parses and there are enough cases.
TEST(SqlCorpusMeta, CorpusParsesWithAtLeast450Cases) {
  size_t cases = 0;
  for (const auto& c : Corpus()) {
    EXPECT_TRUE(c.parse_error.empty()) << "tests/sql/" << c.file << ".test:" << c.line << ": " << c.parse_error;
    if (c.parse_error.empty()) ++cases;
  }
  EXPECT_GE(cases, 450u) << "corpus directory: " << CorpusDir();
}

}  // namespace
}  // namespace cosmos::testing
