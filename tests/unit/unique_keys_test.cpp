// store/: the unique key policy (parsing, the value tuples an item holds) and its enforcement per
// logical partition by PhysicalPartition, for direct writes and inside a Transaction, where staged
// writes count. The HTTP and SDK sides are tests/http/batch_http_test.cpp and the SDK suites.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "common/errors.h"
#include "store/store.h"
#include "store/unique_keys.h"

namespace cosmos::store {
namespace {

const ItemPolicy kPolicy{std::nullopt, std::nullopt};
const std::string kA = R"(["a"])";
const std::string kB = R"(["b"])";

UniqueKeyPolicy Parse(const std::string& text) {
  json::Document d;
  EXPECT_EQ(json::Parse(text, d), json::ParseStatus::kOk) << text;
  return UniqueKeyPolicy::FromJson(&d);
}

int StatusOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const CosmosError& e) {
    return e.status;
  }
  return 0;
}

// An item with the given JSON body (its id taken from it).
PhysicalPartition::Maker Body(const std::string& pk, const std::string& text) {
  return [=](const ItemPtr&, uint64_t seq, uint64_t lsn) {
    auto item = NewItem();
    EXPECT_EQ(json::Parse(text, item->Draft()), json::ParseStatus::kOk);
    item->Seal();
    item->set_id(item->body["id"].GetString());
    item->set_pk(pk);
    item->seq = seq;
    item->lsn = lsn;
    item->set_etag("\"e" + std::to_string(seq) + "\"");
    return ItemPtr(item);
  };
}

class UniquePartition : public ::testing::Test {
 protected:
  UniquePartition()
      : policy_(std::make_shared<UniqueKeyPolicy>(Parse(R"({"uniqueKeys":[{"paths":["/email"]},{"paths":["/first","/last"]}]})"))),
        part_("0", "", "FF", policy_) {}

  int Write(WriteKind kind, const std::string& pk, const std::string& text) {
    json::Document d;
    d.Parse(text.c_str());
    const std::string id = d["id"].GetString();
    return StatusOf([&] { part_.Write(kind, pk, id, {}, 100, kPolicy, Body(pk, text)); });
  }

  UniqueKeysPtr policy_;
  PhysicalPartition part_;
};

TEST(UniqueKeyPolicyTest, ParsesAndReturnsThePolicyAsGiven) {
  auto p = Parse(R"({"uniqueKeys":[{"paths":["/email"]},{"paths":["/name/first","/\"last name\""]}]})");
  ASSERT_EQ(p.keys.size(), 2u);
  EXPECT_EQ(p.keys[1][0], (std::vector<std::string>{"name", "first"}));
  EXPECT_EQ(p.keys[1][1], (std::vector<std::string>{"last name"}));
  EXPECT_EQ(json::Write(p.raw), R"({"uniqueKeys":[{"paths":["/email"]},{"paths":["/name/first","/\"last name\""]}]})");
  EXPECT_TRUE(Parse(R"({"uniqueKeys":[]})").empty());
  EXPECT_EQ(json::Write(Parse(R"({})").raw), R"({"uniqueKeys":[]})");
}

TEST(UniqueKeyPolicyTest, InvalidPoliciesAre400) {
  std::string eleven = R"({"uniqueKeys":[)";
  for (int i = 0; i < 11; ++i) eleven += (i ? "," : "") + std::string(R"({"paths":["/p)") + std::to_string(i) + "\"]}";
  eleven += "]}";
  std::string seventeen = R"({"uniqueKeys":[{"paths":[)";
  for (int i = 0; i < 17; ++i) seventeen += (i ? "," : "") + std::string("\"/p") + std::to_string(i) + "\"";
  seventeen += "]}]}";
  for (const std::string& bad :
       {std::string(R"([])"), std::string(R"({"uniqueKeys":{}})"), std::string(R"({"uniqueKeys":[{}]})"),
        std::string(R"({"uniqueKeys":[{"paths":[]}]})"), std::string(R"({"uniqueKeys":[{"paths":["email"]}]})"),
        std::string(R"({"uniqueKeys":[{"paths":["/a/*"]}]})"), std::string(R"({"uniqueKeys":[{"paths":["/a/?"]}]})"),
        std::string(R"({"uniqueKeys":[{"paths":["/tags/[]"]}]})"), std::string(R"({"uniqueKeys":[{"paths":[1]}]})"),
        std::string(R"({"uniqueKeys":[{"paths":["/a","/a"]}]})"),
        std::string(R"({"uniqueKeys":[{"paths":["/a"]},{"paths":["/a"]}]})"), eleven, seventeen}) {
    json::Document d;
    ASSERT_EQ(json::Parse(bad, d), json::ParseStatus::kOk) << bad;
    EXPECT_EQ(StatusOf([&] { UniqueKeyPolicy::FromJson(&d); }), 400) << bad;
  }
  // Ten keys of sixteen paths are allowed.
  std::string ten = R"({"uniqueKeys":[)";
  for (int i = 0; i < 10; ++i) ten += (i ? "," : "") + std::string(R"({"paths":["/p)") + std::to_string(i) + "\"]}";
  ten += "]}";
  EXPECT_EQ(Parse(ten).keys.size(), 10u);
}

TEST(UniqueKeyPolicyTest, TuplesCountMissingValuesAsNull) {
  auto p = Parse(R"({"uniqueKeys":[{"paths":["/email"]},{"paths":["/a/b","/c"]}]})");
  json::Document d;
  d.Parse(R"({"email":"X@y","a":{"b":[1,2]}})");
  EXPECT_EQ(p.Tuples(d), (std::vector<std::string>{R"(0:["X@y"])", R"(1:[[1,2],null])"}));
  d.Parse(R"({"a":1})");
  EXPECT_EQ(p.Tuples(d), (std::vector<std::string>{"0:[null]", "1:[null,null]"}));
}

TEST_F(UniquePartition, DirectWritesAreCheckedPerLogicalPartition) {
  EXPECT_EQ(Write(WriteKind::kCreate, kA, R"({"id":"1","email":"x","first":"a","last":"b"})"), 0);
  // The same email in the same logical partition: 409; case differs: allowed; another partition: allowed.
  EXPECT_EQ(Write(WriteKind::kCreate, kA, R"({"id":"2","email":"x","first":"c","last":"d"})"), 409);
  EXPECT_EQ(Write(WriteKind::kCreate, kA, R"({"id":"2","email":"X","first":"c","last":"d"})"), 0);
  EXPECT_EQ(Write(WriteKind::kCreate, kB, R"({"id":"3","email":"x","first":"a","last":"b"})"), 0);
  // The second key is the pair: one equal half is fine, both equal is not.
  EXPECT_EQ(Write(WriteKind::kCreate, kA, R"({"id":"4","email":"y","first":"a","last":"z"})"), 0);
  EXPECT_EQ(Write(WriteKind::kUpsert, kA, R"({"id":"5","email":"z","first":"a","last":"b"})"), 409);
  // A replace may keep its own values, not take another item's.
  EXPECT_EQ(Write(WriteKind::kReplace, kA, R"({"id":"1","email":"x","first":"a","last":"b","n":1})"), 0);
  EXPECT_EQ(Write(WriteKind::kReplace, kA, R"({"id":"1","email":"y","first":"a","last":"b"})"), 409);
  // Deleting frees the values; replacing frees the old ones.
  EXPECT_EQ(StatusOf([&] { part_.Write(WriteKind::kDelete, kA, "4", {}, 100, kPolicy, Body(kA, "{}")); }), 0);
  EXPECT_EQ(Write(WriteKind::kReplace, kA, R"({"id":"1","email":"y","first":"a","last":"b"})"), 0);
  EXPECT_EQ(Write(WriteKind::kCreate, kA, R"({"id":"6","email":"x","first":"q","last":"r"})"), 0);
  EXPECT_EQ(part_.Count(), 4u);  // 1, 2, 3 (other partition), 6
}

TEST_F(UniquePartition, TransactionsSeeTheirStagedWrites) {
  EXPECT_EQ(Write(WriteKind::kCreate, kA, R"({"id":"1","email":"x","first":"a","last":"b"})"), 0);
  {
    auto tx = part_.Begin(kA, kPolicy);
    auto write = [&](WriteKind kind, const std::string& text) {
      json::Document d;
      d.Parse(text.c_str());
      return StatusOf([&] { tx->Write(kind, d["id"].GetString(), {}, 100, Body(kA, text)); });
    };
    // Move item 1 off "x", then another item may take "x"; a third may not take 1's new value.
    EXPECT_EQ(write(WriteKind::kReplace, R"({"id":"1","email":"w","first":"a","last":"b"})"), 0);
    EXPECT_EQ(write(WriteKind::kCreate, R"({"id":"2","email":"x","first":"c","last":"d"})"), 0);
    EXPECT_EQ(write(WriteKind::kCreate, R"({"id":"3","email":"w","first":"e","last":"f"})"), 409);
    EXPECT_EQ(write(WriteKind::kCreate, R"({"id":"3","email":"x","first":"e","last":"f"})"), 409);
    tx->Commit(100);
  }
  EXPECT_EQ(Write(WriteKind::kCreate, kA, R"({"id":"9","email":"w","first":"g","last":"h"})"), 409);
  EXPECT_EQ(Write(WriteKind::kCreate, kA, R"({"id":"9","email":"x","first":"g","last":"h"})"), 409);
  // A rolled-back transaction leaves the index as it was.
  {
    auto tx = part_.Begin(kA, kPolicy);
    EXPECT_EQ(StatusOf([&] { tx->Write(WriteKind::kDelete, "2", {}, 100, Body(kA, "{}")); }), 0);
  }
  EXPECT_EQ(Write(WriteKind::kCreate, kA, R"({"id":"9","email":"x","first":"g","last":"h"})"), 409);
}

}  // namespace
}  // namespace cosmos::store
