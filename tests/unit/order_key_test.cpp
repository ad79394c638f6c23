// Order keys (store/order_key.h) order values as CompareForOrder does, and path indexes
// (store/path_index.h) answer lookups and walks as a scan of the same items would.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <memory>
#include <random>
#include <utility>
#include <string>
#include <thread>
#include <vector>

#include "json/json.h"
#include "query/value.h"
#include "store/order_key.h"
#include "store/path_index.h"
#include "store/store.h"

namespace cosmos {
namespace {

int Sign(int c) { return c < 0 ? -1 : c > 0 ? 1 : 0; }

// Values of every type, with the cases an encoding gets wrong: -0, integers and doubles of one
// value, strings with NUL and high bytes, prefixes, nested arrays and objects.
const std::vector<std::string>& Samples() {
  static const std::vector<std::string> v = {
      "null", "false", "true", "0", "-0", "-0.0", "0.0", "1", "1.0", "-1", "1.5", "-1.5", "2", "10", "-10",
      "1e300", "-1e300", "5e-324", "-5e-324", "9007199254740991", "-9007199254740991", "123456789012",
      "9223372036854775807", "-9223372036854775808", "18446744073709551615", "9223372036854775808",
      "9007199254740993", "9007199254740995", "-9007199254740993",
      "\"\"", "\"a\"", "\"A\"", "\"ab\"", "\"abc\"", "\"b\"", "\"a\\u0000\"", "\"a\\u0000b\"", "\"a\\u0001\"",
      "\"\\u00e9\"", "\"\\ud83d\\ude00\"", "\"z\"", "\"aa\"", "\"a b\"",
      "[]", "[1]", "[1,2]", "[2]", "[\"a\"]", "[null]", "[[]]", "[[1],2]", "[1,\"a\"]", "[{}]",
      "{}", "{\"a\":1}", "{\"a\":2}", "{\"b\":1}", "{\"a\":1,\"b\":2}", "{\"a\":{\"b\":1}}", "{\"a\\u0000\":1}",
      "{\"\":null}", "{\"a\":[1]}"};
  return v;
}

bool BigIntegerAgainstDouble(const json::Value& a, const json::Value& b) {
  // The one documented difference: an integer of magnitude >= 2^53 and a double of the same value.
  auto big = [](const json::Value& v) { return (v.IsInt64() || v.IsUint64()) && std::fabs(v.GetDouble()) >= 9007199254740992.0; };
  return a.IsNumber() && b.IsNumber() && a.GetDouble() == b.GetDouble() && (big(a) != big(b) || (big(a) && (a.IsDouble() || b.IsDouble())));
}

TEST(OrderKeyTest, KeysOrderAsCompareForOrder) {
  std::vector<json::Document> docs(Samples().size());
  for (size_t i = 0; i < docs.size(); ++i) ASSERT_EQ(json::Parse(Samples()[i], docs[i]), json::ParseStatus::kOk) << Samples()[i];
  std::vector<const json::Value*> values = {nullptr};  // undefined
  for (auto& d : docs) values.push_back(&d);
  for (const auto* a : values) {
    for (const auto* b : values) {
      if (a && b && BigIntegerAgainstDouble(*a, *b)) continue;
      const int want = Sign(query::CompareForOrder(query::Val(a), query::Val(b)));
      const int got = Sign(store::OrderKey(a).compare(store::OrderKey(b)));
      EXPECT_EQ(got, want) << (a ? json::Write(*a) : "undefined") << " vs " << (b ? json::Write(*b) : "undefined");
    }
  }
}

TEST(OrderKeyTest, RandomValuesOrderAsCompareForOrder) {
  std::mt19937_64 rng(42);
  auto make = [&](auto&& self, json::Value& out, json::Allocator& a, int depth) -> void {
    switch (rng() % (depth > 2 ? 5 : 7)) {
      case 0: out.SetNull(); break;
      case 1: out.SetBool(rng() % 2); break;
      case 2: out.SetInt64(static_cast<int64_t>(rng() % 2001) - 1000); break;
      case 3: out.SetDouble(static_cast<double>(static_cast<int64_t>(rng() % 4001) - 2000) / 8.0); break;
      case 4: {
        std::string s;
        for (size_t n = rng() % 4; n > 0; --n) s.push_back("a\0b\xff"[rng() % 4]);
        out.SetString(s.data(), static_cast<rapidjson::SizeType>(s.size()), a);
        break;
      }
      case 5:
        out.SetArray();
        for (size_t n = rng() % 3; n > 0; --n) {
          json::Value e;
          self(self, e, a, depth + 1);
          out.PushBack(e, a);
        }
        break;
      default:
        out.SetObject();
        for (size_t n = rng() % 3; n > 0; --n) {
          json::Value e;
          self(self, e, a, depth + 1);
          std::string name(1, "ab"[rng() % 2]);
          out.AddMember(json::Value(name.c_str(), a), e, a);
        }
    }
  };
  json::Document holder;
  std::vector<json::Value> values(400);
  for (auto& v : values) make(make, v, holder.GetAllocator(), 0);
  for (const auto& a : values) {
    for (const auto& b : values) {
      const int want = Sign(query::CompareForOrder(query::Val(a), query::Val(b)));
      ASSERT_EQ(Sign(store::OrderKey(&a).compare(store::OrderKey(&b))), want) << json::Write(a) << " vs " << json::Write(b);
    }
  }
}

TEST(OrderKeyTest, StringPrefixKeyStartsEveryKeyOfThatPrefix) {
  for (const char* s : {"ab", "abc", "ab\0c", "ab\xff"}) {
    json::Document d;
    d.SetString(s, static_cast<rapidjson::SizeType>(std::char_traits<char>::length(s)), d.GetAllocator());
    EXPECT_EQ(store::OrderKey(&d).rfind(store::StringPrefixKey("ab"), 0), 0u) << s;
  }
  json::Document other;
  other.SetString("a");
  EXPECT_NE(store::OrderKey(&other).rfind(store::StringPrefixKey("ab"), 0), 0u);
}

// Index keys keep up to 15 bytes inside the entry and longer ones in a block: both read back
// exactly, copy and move keep them, and entries order by key bytes, then sequence number.
TEST(PathIndexTest, IndexKeysKeepTheirBytesInsideOrInABlock) {
  using store::IndexKey;
  using store::PathIndex;
  static_assert(sizeof(IndexKey) == 16 && sizeof(PathIndex::Entry) == 24);
  const std::string shorts[] = {"", "a", std::string("\0\xff", 2), std::string(15, 'q')};
  const std::string longs[] = {std::string(16, 'q'), std::string(1000, '\x01') + "end"};
  for (const auto& s : shorts) EXPECT_EQ(IndexKey(s).view(), s);
  for (const auto& s : longs) EXPECT_EQ(IndexKey(s).view(), s);
  IndexKey a(longs[1]);
  IndexKey b(a);  // a copy has its own block
  EXPECT_EQ(b.view(), longs[1]);
  EXPECT_NE(b.view().data(), a.view().data());
  IndexKey c(std::move(a));
  EXPECT_EQ(c.view(), longs[1]);
  EXPECT_EQ(a.view(), "");  // NOLINT: a moved-from key is empty
  c = b;
  b = IndexKey(shorts[3]);
  EXPECT_EQ(c.view(), longs[1]);
  EXPECT_EQ(b.view(), shorts[3]);
  IndexKey& same = c;
  c = same;  // self-assignment keeps the key
  EXPECT_EQ(c.view(), longs[1]);

  PathIndex::Set set;
  set.insert(PathIndex::Entry{std::string(16, 'q'), 2});
  set.insert(PathIndex::Entry{std::string(15, 'q'), 9});
  set.insert(PathIndex::Entry{std::string(16, 'q'), 1});
  set.insert(PathIndex::Entry{std::string("q"), 5});
  std::vector<std::pair<size_t, uint64_t>> order;
  for (const auto& e : set) order.emplace_back(e.key.view().size(), e.seq);
  EXPECT_EQ(order, (std::vector<std::pair<size_t, uint64_t>>{{1, 5}, {15, 9}, {16, 1}, {16, 2}}));
}

TEST(PathIndexTest, ResolveReadsAsTheQueryLanguage) {
  json::Document d;
  json::Parse(R"({"a":{"b":[10,{"c":"x"}]},"n":1})", d);
  using store::PathStep;
  EXPECT_EQ(json::Write(*store::Resolve(d, {PathStep{"a", -1}, PathStep{"b", -1}, PathStep{"", 1}, PathStep{"c", -1}})), "\"x\"");
  EXPECT_EQ(json::Write(*store::Resolve(d, {PathStep{"a", -1}, PathStep{"b", -1}, PathStep{"", 0}})), "10");
  EXPECT_EQ(store::Resolve(d, {PathStep{"a", -1}, PathStep{"b", -1}, PathStep{"", 2}}), nullptr);
  EXPECT_EQ(store::Resolve(d, {PathStep{"n", -1}, PathStep{"x", -1}}), nullptr);
  EXPECT_EQ(store::Resolve(d, {PathStep{"a", -1}, PathStep{"0", -1}}), nullptr);
  EXPECT_NE(store::PathName({PathStep{"a.b", -1}}), store::PathName({PathStep{"a", -1}, PathStep{"b", -1}}));
  EXPECT_NE(store::PathName({PathStep{"", 1}}), store::PathName({PathStep{"1", -1}}));
}

// A partition of items {"id": i, "n": <value i>}: lookups and walks against what a scan finds.
class PartitionIndexTest : public ::testing::Test {
 protected:
  void Put(const std::string& id, const std::string& body, const std::string& pk = "[\"p\"]") {
    part_.Write(store::WriteKind::kUpsert, pk, id, {}, 0, {}, [&](const store::ItemPtr&, uint64_t seq, uint64_t lsn) {
      auto item = store::NewItem();
      item->set_id(id);
      item->set_pk(pk);
      json::Parse(body, item->Draft());
      item->Seal();
      item->seq = seq;
      item->lsn = lsn;
      return store::ItemPtr(std::move(item));
    });
  }
  void Delete(const std::string& id, const std::string& pk = "[\"p\"]") {
    part_.Write(store::WriteKind::kDelete, pk, id, {}, 0, {}, [](const store::ItemPtr&, uint64_t, uint64_t) { return nullptr; });
  }
  std::vector<std::string> Ids(const std::vector<uint64_t>& seqs) {
    size_t next = 0;
    std::vector<std::string> ids;
    for (const auto& item : part_.ItemsBySeq(seqs, next, 0, 0, {})) ids.push_back(std::string(item->id()));
    return ids;
  }
  std::vector<std::string> Walk(bool desc, std::optional<std::pair<std::string, uint64_t>> after = std::nullopt,
                                size_t max = 100) {
    std::vector<std::string> ids;
    for (const auto& hit : part_.IndexWalk(n_, desc, after, max, 0, {})) ids.push_back(std::string(hit.item->id()));
    return ids;
  }
  static std::string Key(const char* json) {
    json::Document d;
    json::Parse(json, d);
    return store::OrderKey(&d);
  }

  store::PhysicalPartition part_{"0", "", "FF"};
  const store::DocPath n_{store::PathStep{"n", -1}};
};

TEST_F(PartitionIndexTest, LookupsFindWhatTheValuesSay) {
  Put("1", R"({"id":"1","n":5})");
  Put("2", R"({"id":"2","n":"5"})");
  Put("3", R"({"id":"3"})");
  Put("4", R"({"id":"4","n":5.0})");
  Put("5", R"({"id":"5","n":null})");
  Put("6", R"({"id":"6","n":7})");
  using store::KeyRange;
  EXPECT_EQ(Ids(*part_.IndexLookup(n_, {KeyRange::Point(Key("5"))}, 100)), (std::vector<std::string>{"1", "4"}));
  EXPECT_EQ(Ids(*part_.IndexLookup(n_, {KeyRange::Point(Key("\"5\""))}, 100)), (std::vector<std::string>{"2"}));
  EXPECT_EQ(Ids(*part_.IndexLookup(n_, {KeyRange::Prefix(store::TagKey(store::OrderTag::kUndefined))}, 100)),
            (std::vector<std::string>{"3"}));
  // n > 5 among numbers.
  EXPECT_EQ(Ids(*part_.IndexLookup(n_, {KeyRange{Key("5"), false, store::TagKey(store::OrderTag::kString), false, false}}, 100)),
            (std::vector<std::string>{"6"}));
  // Over the cap: no answer.
  EXPECT_FALSE(part_.IndexLookup(n_, {KeyRange::Point(Key("5"))}, 1).has_value());
  // Kept in step with replaces and deletes.
  Put("1", R"({"id":"1","n":6})");
  Delete("4");
  EXPECT_TRUE(Ids(*part_.IndexLookup(n_, {KeyRange::Point(Key("5"))}, 100)).empty());
  EXPECT_EQ(Ids(*part_.IndexLookup(n_, {KeyRange::Point(Key("6"))}, 100)), (std::vector<std::string>{"1"}));
  EXPECT_EQ(part_.PathIndexCount(), 1u);
}

TEST_F(PartitionIndexTest, WalksGiveTheSortOrderAndResume) {
  Put("a", R"({"id":"a","n":2})");
  Put("b", R"({"id":"b","n":1})");
  Put("c", R"({"id":"c","n":2})");
  Put("d", R"({"id":"d"})");
  Put("e", R"({"id":"e","n":"x"})");
  Put("f", R"({"id":"f","n":1})");
  EXPECT_EQ(Walk(false), (std::vector<std::string>{"d", "b", "f", "a", "c", "e"}));
  // Descending: keys from the highest, ties still by creation order.
  EXPECT_EQ(Walk(true), (std::vector<std::string>{"e", "a", "c", "b", "f", "d"}));
  // Resuming after (2, seq of a) in both directions, and in pages of one.
  auto a = part_.Read("[\"p\"]", "a", 0, {});
  EXPECT_EQ(Walk(false, std::pair{Key("2"), a->seq}), (std::vector<std::string>{"c", "e"}));
  EXPECT_EQ(Walk(true, std::pair{Key("2"), a->seq}), (std::vector<std::string>{"c", "b", "f", "d"}));
  EXPECT_EQ(Walk(true, std::pair{Key("1.5"), 0}), (std::vector<std::string>{"b", "f", "d"}));
  EXPECT_EQ(Walk(true, std::nullopt, 2), (std::vector<std::string>{"e", "a"}));
}

// A composite index (g ascending, n descending): its key orders by g, then by n from the highest,
// then by creation; walked backwards it gives the reverse order of both (ORDER BY g DESC, n ASC),
// ties still by creation; and a walk resumes after any (key, seq).
TEST_F(PartitionIndexTest, CompositeWalksOrderByEveryColumnInItsDirection) {
  Put("a", R"({"id":"a","g":"x","n":1})");
  Put("b", R"({"id":"b","g":"w","n":5})");
  Put("c", R"({"id":"c","g":"x","n":3})");
  Put("d", R"({"id":"d","g":"x"})");
  Put("e", R"({"id":"e","g":"w","n":5})");
  Put("f", R"({"id":"f","n":9})");
  Put("g", R"({"id":"g","g":"x","n":"s"})");
  const store::DocPath g{store::PathStep{"g", -1}};
  const store::IndexColumns cols{{g, false}, {n_, true}};
  auto walk = [&](bool desc, std::optional<std::pair<std::string, uint64_t>> after = std::nullopt) {
    std::vector<std::string> ids;
    for (const auto& hit : part_.IndexWalk(cols, desc, after, 100, 0, {})) ids.push_back(std::string(hit.item->id()));
    return ids;
  };
  EXPECT_EQ(walk(false), (std::vector<std::string>{"f", "b", "e", "g", "c", "a", "d"}));
  EXPECT_EQ(walk(true), (std::vector<std::string>{"d", "a", "c", "g", "b", "e", "f"}));
  // The key of a row: each column's order key, the descending one inverted.
  json::Document x, five;
  json::Parse(R"("x")", x);
  json::Parse("5", five);
  auto key_of = [](const json::Value& gv, const json::Value& nv) {
    std::string k;
    store::AppendColumnKey(k, &gv, false);
    store::AppendColumnKey(k, &nv, true);
    return k;
  };
  auto b = part_.Read("[\"p\"]", "b", 0, {});
  EXPECT_EQ(walk(false, std::pair{key_of(*store::Resolve(b->body, g), five), b->seq}),
            (std::vector<std::string>{"e", "g", "c", "a", "d"}));
  EXPECT_EQ(walk(true, std::pair{key_of(*store::Resolve(b->body, g), five), b->seq}), (std::vector<std::string>{"e", "f"}));
  json::Document two;
  json::Parse("2", two);
  EXPECT_EQ(walk(false, std::pair{key_of(x, two), 0}), (std::vector<std::string>{"a", "d"}));
  // Kept in step with writes once built; one index for the columns, beside none other.
  Put("a", R"({"id":"a","g":"w","n":7})");
  EXPECT_EQ(walk(false), (std::vector<std::string>{"f", "a", "b", "e", "g", "c", "d"}));
  EXPECT_EQ(part_.PathIndexCount(), 1u);
  EXPECT_NE(store::IndexName(cols), store::IndexName({{g, false}, {n_, false}}));
  EXPECT_EQ(store::IndexName({{g, false}}), store::PathName(g));
}

TEST_F(PartitionIndexTest, EvictsTheLeastRecentlyUsedIndexBeyondItsLimit) {
  Put("1", R"({"id":"1","n":1})");
  for (size_t i = 0; i <= store::PhysicalPartition::kMaxPathIndexes; ++i) {
    std::string name = "p";
    name += std::to_string(i);  // (not "p" + ...: GCC 12 warns -Wrestrict there)
    part_.IndexLookup({store::PathStep{name, -1}}, {store::KeyRange::Point(Key("1"))}, 10);
  }
  EXPECT_EQ(part_.PathIndexCount(), store::PhysicalPartition::kMaxPathIndexes);
}

// Issue 41: an index built in the background, chunk by chunk while writers go on between the
// chunks, holds what a build after the last write would: every create, replace and delete made
// meanwhile, each item once. The partition keeps it (IndexNames) only once it holds every item.
TEST_F(PartitionIndexTest, WritesDuringABackgroundBuildAreInTheIndex) {
  const int items = 5 * static_cast<int>(store::PhysicalPartition::kBuildChunk) + 123;
  auto body = [](const std::string& id, int g, int n) {
    return R"({"id":")" + id + R"(","g":"g)" + std::to_string(g) + R"(","n":)" + std::to_string(n) + "}";
  };
  std::vector<std::string> live;
  for (int i = 0; i < items; ++i) {
    live.push_back("i" + std::to_string(i));
    Put(live.back(), body(live.back(), i % 7, i));
  }
  const store::DocPath g{store::PathStep{"g", -1}};
  const store::IndexColumns cols{{g, false}, {n_, true}};
  const std::string name = store::IndexName(cols);
  auto kept = [&] {
    const auto names = part_.IndexNames();
    return std::find(names.begin(), names.end(), name) != names.end();
  };
  EXPECT_FALSE(kept());
  std::atomic<uint64_t> done{0};
  std::thread build([&] { part_.BuildIndexes({cols}, &done); });
  // Creates, replaces (moving items in the order) and deletes until the index is kept.
  std::mt19937 rng(41);
  int writes = 0;
  do {
    const int what = static_cast<int>(rng() % 3);
    if (what == 0 || live.empty()) {
      live.push_back("new" + std::to_string(writes));
      Put(live.back(), body(live.back(), static_cast<int>(rng() % 7), static_cast<int>(rng() % 1000)));
    } else if (what == 1) {
      const std::string& id = live[rng() % live.size()];
      Put(id, body(id, static_cast<int>(rng() % 7), static_cast<int>(rng() % 1000)));
    } else {
      const size_t at = rng() % live.size();
      Delete(live[at]);
      live.erase(live.begin() + static_cast<std::ptrdiff_t>(at));
    }
    ++writes;
  } while (!kept());
  build.join();
  EXPECT_GE(done.load(), static_cast<uint64_t>(items) - static_cast<uint64_t>(writes));
  // The walk of the index against the items sorted by the same key (ties by sequence number).
  std::vector<std::pair<std::string, std::string>> expected;  // (key, id), in sequence order
  for (const auto& item : part_.Feed(0, 0, 0, {})) {
    std::string key;
    store::AppendColumnKey(key, store::Resolve(item->body, g), false);
    store::AppendColumnKey(key, store::Resolve(item->body, n_), true);
    expected.emplace_back(std::move(key), std::string(item->id()));
  }
  ASSERT_EQ(expected.size(), live.size());
  std::stable_sort(expected.begin(), expected.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> want, got;
  for (const auto& e : expected) want.push_back(e.second);
  for (const auto& hit : part_.IndexWalk(cols, false, std::nullopt, want.size() + 10, 0, {})) got.push_back(std::string(hit.item->id()));
  EXPECT_EQ(got, want) << writes << " writes during the build";
}

}  // namespace
}  // namespace cosmos
