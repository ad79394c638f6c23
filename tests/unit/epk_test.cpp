// store/epk: MurmurHash3, the V1/V2 partition key hashes and effective partition keys, against the
// SDK's hash baselines (tests/data/cosmos-baselines/partition-key-hash, effective-partition-key)
// and the service's EPK strings (docs/protocol.md §8).
#include "store/epk.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace cosmos::store {
namespace {

// The text of the first <tag>...</tag> in `block` (XML entities decoded), or nullopt.
std::optional<std::string> Element(const std::string& block, const std::string& tag) {
  const std::string open = "<" + tag + ">";
  auto start = block.find(open);
  if (start == std::string::npos) return std::nullopt;
  start += open.size();
  auto end = block.find("</" + tag + ">", start);
  if (end == std::string::npos) return std::nullopt;
  std::string raw = block.substr(start, end - start), out;
  for (size_t i = 0; i < raw.size(); ++i) {
    if (raw[i] != '&') {
      out.push_back(raw[i]);
      continue;
    }
    static const std::pair<const char*, char> kEntities[] = {
        {"&lt;", '<'}, {"&gt;", '>'}, {"&amp;", '&'}, {"&quot;", '"'}, {"&apos;", '\''}};
    bool done = false;
    for (const auto& [name, ch] : kEntities) {
      if (raw.compare(i, std::strlen(name), name) == 0) {
        out.push_back(ch);
        i += std::strlen(name) - 1;
        done = true;
        break;
      }
    }
    if (!done) out.push_back('&');
  }
  return out;
}

// "0A-A1-..." -> raw bytes.
std::string DashedHexToBytes(const std::string& s) {
  std::string out;
  for (size_t i = 0; i + 1 < s.size(); i += 3) out.push_back(static_cast<char>(std::stoi(s.substr(i, 2), nullptr, 16)));
  return out;
}

std::string BigEndian(uint64_t v) {
  std::string out;
  for (int i = 7; i >= 0; --i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
  return out;
}

// One baseline input: a value (or, for hierarchical lists, several) as typed components.
std::vector<PkComponent> ParseInput(const std::string& text, const std::string& description, bool* is_list) {
  *is_list = false;
  if (text == "UNDEFINED") return {PkComponent::Undefined()};
  if (text == "\"NaN\"") return {PkComponent::Number(std::nan(""))};
  if (text == "\"Infinity\"") return {PkComponent::Number(HUGE_VAL)};
  if (text == "\"-Infinity\"") return {PkComponent::Number(-HUGE_VAL)};
  // The older effective-partition-key file writes negative zero as "0" (see data/README.md).
  if (description == "negative zero") return {PkComponent::Number(-0.0)};
  json::Document d;
  EXPECT_EQ(json::Parse(text, d), json::ParseStatus::kOk) << text;
  if (d.IsArray()) {
    *is_list = true;
    std::vector<PkComponent> out;
    for (const auto& v : d.GetArray()) out.push_back(PkComponent::FromJson(v));
    return out;
  }
  if (d.IsNumber()) return {PkComponent::Number(std::strtod(text.c_str(), nullptr))};
  return {PkComponent::FromJson(d)};
}

// The SDK baseline's 16-byte forms of a single value's hashes (strings hashed without suffix).
std::string HashV1Bytes(const PkComponent& c) {
  const uint32_t h = HashV1({c}, StringSuffix::kNone);
  return std::string(12, '\0') + BigEndian(h).substr(4);
}
std::string HashV2Bytes(const PkComponent& c) {
  const Hash128 h = HashV2({c}, StringSuffix::kNone);
  return BigEndian(h.h2) + BigEndian(h.h1);
}
std::string EpkV1Bytes(const PkComponent& c) {
  const uint32_t h = HashV1({c}, StringSuffix::kNone);
  std::string out;
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((h >> (8 * i)) & 0xFF));
  return out + std::string(12, '\0');
}
std::string EpkV2Bytes(const PkComponent& c) {
  std::string out = HashV2Bytes(c);
  out[0] = static_cast<char>(static_cast<uint8_t>(out[0]) & 0x3F);
  return out;
}

TEST(EpkBaseline, MatchesTheSdkHashVectors) {
  const std::filesystem::path root = std::filesystem::path(COSMOS_TEST_DATA) / "cosmos-baselines";
  for (const char* folder : {"partition-key-hash", "effective-partition-key"}) {
    ASSERT_TRUE(std::filesystem::is_directory(root / folder))
        << "no EPK baselines at " << (root / folder) << " (tests/data/README.md)";
  }
  int total = 0, matched = 0;
  for (const char* folder : {"partition-key-hash", "effective-partition-key"}) {
    for (const auto& entry : std::filesystem::directory_iterator(root / folder)) {
      std::ifstream in(entry.path());
      std::stringstream ss;
      ss << in.rdbuf();
      const std::string text = ss.str();
      for (size_t pos = 0; (pos = text.find("<Result>", pos)) != std::string::npos;) {
        const size_t end = text.find("</Result>", pos);
        const std::string block = text.substr(pos, end - pos);
        pos = end;
        const std::string description = Element(block, "Description").value_or("");
        const std::string input = Element(block, "PartitionKeyValue").value_or("");
        bool is_list = false;
        const auto components = ParseInput(input, description, &is_list);
        struct Check {
          const char* tag;
          std::string (*fn)(const PkComponent&);
        };
        for (const Check& check :
             {Check{"PartitionKeyHashV1", HashV1Bytes}, Check{"PartitionKeyHashV2", HashV2Bytes},
              Check{"EffectivePartitionKeyV1", EpkV1Bytes}, Check{"EffectivePartitionKeyV2", EpkV2Bytes}}) {
          auto expected = Element(block, check.tag);
          if (!expected) continue;
          // Lists hash each element separately and concatenate the 16-byte results.
          std::string actual;
          for (const auto& c : components) actual += check.fn(c);
          ++total;
          const std::string want = DashedHexToBytes(*expected);
          EXPECT_EQ(HexUpper(actual), HexUpper(want))
              << entry.path().filename().string() << " " << description << " " << check.tag;
          if (actual == want) ++matched;
        }
      }
    }
  }
  std::printf("EPK vectors: %d of %d match\n", matched, total);
  EXPECT_EQ(total, 110);
  EXPECT_EQ(matched, total);
}

TEST(Epk, MurmurHash3ReferenceValues) {
  EXPECT_EQ(MurmurHash3_32(""), 0u);
  EXPECT_EQ(MurmurHash3_32("", 1), 0x514E28B7u);
  EXPECT_EQ(MurmurHash3_32(std::string(1, '\0')), 0x514E28B7u);
  EXPECT_EQ(MurmurHash3_32("Hello, world!", 1234), 0xFAF6CDB3u);
  const Hash128 empty = MurmurHash3_128("");
  EXPECT_EQ(empty.h1, 0u);
  EXPECT_EQ(empty.h2, 0u);
}

PartitionKeyDefinition HashDef(int version) {
  PartitionKeyDefinition def;
  def.paths = {"/pk"};
  def.parts = {{"pk"}};
  def.kind = "Hash";
  def.version = version;
  return def;
}

PartitionKeyValue Key(std::vector<std::optional<std::string>> components) { return PartitionKeyValue{components}; }

// The service's EPK strings (docs/protocol.md §8): strings are hashed with their terminator.
TEST(Epk, ServiceEffectivePartitionKeyStrings) {
  struct Vector {
    std::optional<std::string> component;
    const char* v1;
    const char* v2;
  };
  const Vector vectors[] = {
      {"\"a\"", "05C1D78593652C086200", "3A5381E1114EB8D3FCC90795045B49B7"},
      {"5", "05C1D9C1C5517C05C014", "19C08621B135968252FB34B4CF66F811"},
      {"\"\"", "05C1CF33970FF80800", "32E9366E637A71B4E710384B2F4970A0"},
      {"true", "05C1D7C5A903D803", "0E711127C5B5A8E4726AC6DD306A3E59"},
      {"null", "05C1ED45D7475601", "378867E4430E67857ACE5C908374FE16"},
      {std::nullopt, "05C1D529E345DC00", "11622DAA78F835834610ABE56EFF5CB5"},
  };
  int matched = 0;
  for (const auto& v : vectors) {
    const std::string e1 = EffectivePartitionKey(HashDef(1), Key({v.component}));
    const std::string e2 = EffectivePartitionKey(HashDef(2), Key({v.component}));
    EXPECT_EQ(e1, v.v1) << v.component.value_or("None");
    EXPECT_EQ(e2, v.v2) << v.component.value_or("None");
    matched += (e1 == v.v1) + (e2 == v.v2);
  }
  std::printf("service EPK strings: %d of 12 match\n", matched);
}

TEST(Epk, MultiHashConcatenatesComponentV2Keys) {
  PartitionKeyDefinition def;
  def.paths = {"/a", "/b"};
  def.parts = {{"a"}, {"b"}};
  def.kind = "MultiHash";
  def.version = 2;
  EXPECT_EQ(EffectivePartitionKey(def, Key({"\"a\"", "5"})),
            "3A5381E1114EB8D3FCC90795045B49B719C08621B135968252FB34B4CF66F811");
  // A prefix of the key gives a prefix of the EPK.
  EXPECT_EQ(EffectivePartitionKey(def, Key({"\"a\""})), "3A5381E1114EB8D3FCC90795045B49B7");
  EXPECT_EQ(EffectivePartitionKey(def, Key({})), "");
}

TEST(Epk, V1TruncatesLongStringsAndEqualNumbersAgree) {
  const auto def = HashDef(1);
  const std::string a100(100, 'a');
  EXPECT_EQ(EffectivePartitionKey(def, Key({"\"" + a100 + "\""})),
            EffectivePartitionKey(def, Key({"\"" + a100 + "b\""})));
  EXPECT_NE(EffectivePartitionKey(HashDef(2), Key({"\"" + a100 + "\""})),
            EffectivePartitionKey(HashDef(2), Key({"\"" + a100 + "b\""})));
  EXPECT_EQ(EffectivePartitionKey(def, Key({"1"})), EffectivePartitionKey(def, Key({"1.0"})));
  // Every EPK of a non-empty key sorts inside the ring.
  for (const char* c : {"\"z\"", "1e300", "-1e300", "false"}) {
    const std::string e = EffectivePartitionKey(HashDef(2), Key({c}));
    EXPECT_LT(e, std::string(kMaxEpk)) << c;
    EXPECT_EQ(e.size(), 32u);
  }
}

}  // namespace
}  // namespace cosmos::store
