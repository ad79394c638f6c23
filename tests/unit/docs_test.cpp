// Docs that cannot drift: README.md's flag table and docs/settings.md against the option table
// (emulator/settings/settings.cpp), the flags README.md names, its links, and the known failures
// it says docs/compatibility.md lists. Each failure names the file and the option or path.
#include <gtest/gtest.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "settings/settings.h"

namespace cosmos::settings {
namespace {

namespace fs = std::filesystem;

// The source tree: COSMOS_TEST_DATA is its tests/data.
fs::path Root() { return fs::path(COSMOS_TEST_DATA).parent_path().parent_path(); }

std::string Read(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

bool NameChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_'; }

// The flags a text names: "--name" not inside a longer word, without the "--".
std::set<std::string> FlagsIn(const std::string& text) {
  std::set<std::string> flags;
  for (size_t at = text.find("--"); at != std::string::npos; at = text.find("--", at + 2)) {
    if (at > 0 && NameChar(text[at - 1])) continue;
    size_t end = at + 2;
    if (end >= text.size() || !std::islower(static_cast<unsigned char>(text[end]))) continue;
    while (end < text.size() && (std::islower(static_cast<unsigned char>(text[end])) ||
                                 std::isdigit(static_cast<unsigned char>(text[end])) || text[end] == '-'))
      ++end;
    std::string name = text.substr(at + 2, end - at - 2);
    while (!name.empty() && name.back() == '-') name.pop_back();
    flags.insert(name);
  }
  return flags;
}

// Every flag the emulator takes: names and aliases.
std::set<std::string> FlagNames() {
  std::set<std::string> names;
  for (const Option& o : Options()) {
    if (!(o.reads & kFlag)) continue;
    names.insert(std::string(o.name));
    if (!o.alias.empty()) names.insert(std::string(o.alias));
  }
  return names;
}

// A table row's cells ("| a | b\|c |" -> {"a", "b\|c"}), blanks trimmed.
std::vector<std::string> Cells(const std::string& row) {
  std::vector<std::string> cells;
  std::string cell;
  for (size_t i = 1; i < row.size(); ++i) {
    if (row[i] == '|' && row[i - 1] != '\\') {
      const size_t b = cell.find_first_not_of(' '), e = cell.find_last_not_of(' ');
      cells.push_back(b == std::string::npos ? "" : cell.substr(b, e - b + 1));
      cell.clear();
    } else {
      cell += row[i];
    }
  }
  return cells;
}

// The flags in the first cell of each row of README.md's table under "## Options".
std::set<std::string> ReadmeFlagTable() {
  std::set<std::string> flags;
  bool in_options = false;
  for (const auto& line : Lines(Read(Root() / "README.md"))) {
    if (line.rfind("## ", 0) == 0) in_options = line == "## Options";
    if (!in_options || line.rfind("| `--", 0) != 0) continue;
    for (const auto& f : FlagsIn(Cells(line).at(0))) flags.insert(f);
  }
  return flags;
}

TEST(Docs, ReadmeFlagTableListsExactlyTheOptions) {
  const std::set<std::string> listed = ReadmeFlagTable();
  ASSERT_FALSE(listed.empty()) << "README.md: no flag table under ## Options";
  for (const Option& o : Options()) {
    if (o.section == Section::kHidden) continue;  // the official images' names: docs/settings.md
    EXPECT_TRUE(listed.count(std::string(o.name)))
        << "README.md: the flag table (## Options) has no row for --" << o.name;
  }
  const std::set<std::string> flags = FlagNames();
  for (const auto& f : listed) {
    EXPECT_TRUE(flags.count(f)) << "README.md: the flag table lists --" << f
                                << ", which is no option (emulator/settings/settings.cpp)";
  }
}

// Flags of other programs that README.md shows in their commands.
const std::map<std::string, std::string> kOtherProgramsFlags = {
    {"build-arg", "docker build"},
    {"cpu", "stress-ng"},
};

TEST(Docs, ReadmeNamesOnlyFlagsThatExist) {
  const std::set<std::string> flags = FlagNames();
  for (const auto& f : FlagsIn(Read(Root() / "README.md"))) {
    EXPECT_TRUE(flags.count(f) || kOtherProgramsFlags.count(f))
        << "README.md names --" << f
        << ", which is no option of cosmos-emulator (another program's? then add it to kOtherProgramsFlags)";
  }
}

TEST(Docs, SettingsDocNamesExactlyTheOptionsAndVariables) {
  const std::string doc = Read(Root() / "docs" / "settings.md");
  ASSERT_FALSE(doc.empty()) << "docs/settings.md: cannot read it";
  const std::set<std::string> named = FlagsIn(doc);
  const std::set<std::string> flags = FlagNames();
  for (const auto& f : flags) EXPECT_TRUE(named.count(f)) << "docs/settings.md does not name --" << f;
  for (const auto& f : named) {
    EXPECT_TRUE(flags.count(f)) << "docs/settings.md names --" << f << ", which is no option (emulator/settings/settings.cpp)";
  }
  // Every official variable read, and every variable its table of official names lists.
  std::set<std::string> official;
  for (const Option& o : Options()) {
    std::istringstream words{std::string(o.official)};
    for (std::string w; words >> w;) official.insert(w);
  }
  for (const auto& env : official)
    EXPECT_NE(doc.find("`" + env + "`"), std::string::npos) << "docs/settings.md does not name " << env;
  bool in_table = false;
  for (const auto& line : Lines(doc)) {
    if (line.rfind("## ", 0) == 0) in_table = line == "## The official names";
    if (!in_table || line.rfind("| `", 0) != 0) continue;
    std::istringstream cell(Cells(line).at(0));
    for (std::string item; std::getline(cell, item, ',');) {
      const size_t b = item.find('`'), e = item.rfind('`');
      if (b == std::string::npos || e <= b) continue;
      const std::string name = item.substr(b + 1, e - b - 1);
      if (name.rfind("--", 0) == 0) continue;  // flags: checked above
      EXPECT_TRUE(official.count(name)) << "docs/settings.md: the official names list " << name
                                        << ", which the emulator does not read (emulator/settings/settings.cpp)";
    }
  }
}

// Paths named in a markdown file: its links' targets (relative to its folder) and, in README.md,
// the source tree's paths it mentions (docs/..., tests/..., relative to the root).
void ExpectLinkedPathsExist(const std::string& file) {
  const fs::path path = Root() / file;
  const std::string text = Read(path);
  ASSERT_FALSE(text.empty()) << file << ": cannot read it";
  for (size_t at = text.find("]("); at != std::string::npos; at = text.find("](", at + 2)) {
    const size_t end = text.find(')', at);
    std::string target = text.substr(at + 2, end - at - 2);
    if (target.find("://") != std::string::npos || target.rfind("mailto:", 0) == 0 || target.rfind('#', 0) == 0)
      continue;
    target = target.substr(0, target.find('#'));
    EXPECT_TRUE(fs::exists(path.parent_path() / target)) << file << " links to " << target << ", which does not exist";
  }
  if (file != "README.md") return;
  for (const char* top : {"docs/", "samples/", "tests/", "emulator/", "bench/", "sqlparser/"}) {
    for (size_t at = text.find(top); at != std::string::npos; at = text.find(top, at + 1)) {
      if (at > 0 && std::string_view(" (`[,\n").find(text[at - 1]) == std::string_view::npos) continue;
      size_t end = at;
      while (end < text.size() && (NameChar(text[end]) || text[end] == '.' || text[end] == '/')) ++end;
      std::string named = text.substr(at, end - at);
      while (named.back() == '.' || named.back() == ',') named.pop_back();
      EXPECT_TRUE(fs::exists(Root() / named)) << "README.md names " << named << ", which does not exist";
    }
  }
}

TEST(Docs, ReadmeLinksAndPathsExist) {
  ExpectLinkedPathsExist("README.md");
  ExpectLinkedPathsExist("docs/settings.md");
}

// README.md: an SDK suite "fails only on a test its known_failures.txt does not list (each listed
// with its reason in docs/compatibility.md)". Each suite with a list has its row in that file's
// table of suites, whose "listed failures" cell counts as many tests as the list has.
TEST(Docs, CompatibilityCountsEverySuitesKnownFailures) {
  const std::string doc = Read(Root() / "docs" / "compatibility.md");
  ASSERT_FALSE(doc.empty()) << "docs/compatibility.md: cannot read it";
  std::vector<std::vector<std::string>> rows;
  size_t column = 0;
  for (const auto& line : Lines(doc)) {
    if (line.rfind("|", 0) != 0) {
      if (column && !rows.empty()) break;  // the end of the table
      continue;
    }
    const auto cells = Cells(line);
    if (!column) {
      for (size_t i = 0; i < cells.size(); ++i) {
        if (cells[i] == "listed failures") column = i;
      }
    } else if (cells.size() > column && cells[0].find("`tests/sdk/") != std::string::npos) {
      rows.push_back(cells);
    }
  }
  ASSERT_TRUE(column) << "docs/compatibility.md: no table with a \"listed failures\" column";
  for (const auto& entry : fs::directory_iterator(Root() / "tests" / "sdk")) {
    const fs::path list = entry.path() / "known_failures.txt";
    if (!fs::exists(list)) continue;
    size_t listed = 0;
    for (const auto& line : Lines(Read(list))) {
      if (line.find_first_not_of(" \t\r") != std::string::npos && line[0] != '#') ++listed;
    }
    const std::string suite = "tests/sdk/" + entry.path().filename().string();
    const std::vector<std::string>* row = nullptr;
    for (const auto& r : rows) {
      if (r[0].find("`" + suite + "`") != std::string::npos) row = &r;
    }
    if (!row) {
      ADD_FAILURE() << "docs/compatibility.md: the SDK suites' table has no row for " << suite << " (" << listed
                    << " known failures listed)";
      continue;
    }
    // "12 steady, and 7 listed as flaky": 19; "none": 0.
    size_t counted = 0;
    const std::string& cell = (*row)[column];
    for (size_t i = 0; i < cell.size();) {
      if (!std::isdigit(static_cast<unsigned char>(cell[i]))) {
        ++i;
        continue;
      }
      size_t used = 0;
      counted += std::stoul(cell.substr(i), &used);
      i += used;
    }
    EXPECT_EQ(counted, listed) << "docs/compatibility.md: " << suite << "'s row counts " << counted
                               << " listed failures; its known_failures.txt lists " << listed;
  }
  EXPECT_NE(doc.find("tests/docker/modules.sh"), std::string::npos)
      << "docs/compatibility.md: no results of tests/docker/modules.sh (README.md's layout points there)";
}

}  // namespace
}  // namespace cosmos::settings
