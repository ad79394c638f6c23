// store/: PhysicalPartition writes, preconditions, TTL, feed order; Account/Database/Container ids.
#include "store/store.h"

#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <stdexcept>
#include <string>

#include "common/errors.h"
#include "test_items.h"

namespace cosmos::store {
namespace {

const std::string kA = R"(["a"])";
const std::string kB = R"(["b"])";

// Builds stored items the way a handler would, with a recognisable etag per write.
class PartitionTest : public ::testing::Test {
 protected:
  PhysicalPartition::Maker Maker(const std::string& id, const std::string& pk, int64_t ts,
                                 std::optional<int64_t> ttl = std::nullopt, std::string payload = "") {
    return [=, this](const ItemPtr&, uint64_t seq, uint64_t lsn) {
      return testing::TestItem(id, pk, ts, seq, lsn, ttl, "\"etag-" + std::to_string(++etag_counter_) + "\"", payload);
    };
  }

  WriteResult Do(WriteKind kind, const std::string& pk, const std::string& id, int64_t now = 100,
                 std::optional<std::string> if_match = std::nullopt, std::optional<int64_t> default_ttl = std::nullopt,
                 std::optional<int64_t> item_ttl = std::nullopt, const std::string& payload = "") {
    Preconditions pre;
    pre.if_match = if_match;
    return p_.Write(kind, pk, id, pre, now, ItemPolicy{default_ttl, std::nullopt}, Maker(id, pk, now, item_ttl, payload));
  }

  // Status of the CosmosError a write throws (0 = none).
  int Status(WriteKind kind, const std::string& pk, const std::string& id,
             std::optional<std::string> if_match = std::nullopt) {
    try {
      Do(kind, pk, id, 100, if_match);
      return 0;
    } catch (const CosmosError& e) {
      return e.status;
    }
  }

  std::vector<std::string> FeedIds(uint64_t after = 0, size_t max = 0, int64_t now = 100,
                                   std::optional<int64_t> default_ttl = std::nullopt) {
    std::vector<std::string> ids;
    for (auto& it : p_.Feed(after, max, now, ItemPolicy{default_ttl, std::nullopt})) ids.push_back(std::string(it->id()));
    return ids;
  }

  PhysicalPartition p_{"0", "", "FF"};
  int etag_counter_ = 0;
};

TEST_F(PartitionTest, CreateAssignsSeqAndLsn) {
  EXPECT_EQ(p_.range_id(), "0");
  EXPECT_EQ(p_.lsn(), 0u);
  auto r1 = Do(WriteKind::kCreate, kA, "1");
  EXPECT_TRUE(r1.created);
  EXPECT_EQ(r1.lsn, 1u);
  EXPECT_EQ(r1.item->seq, 1u);
  EXPECT_EQ(r1.item->lsn, 1u);
  EXPECT_EQ(r1.previous, nullptr);
  auto r2 = Do(WriteKind::kCreate, kA, "2");
  EXPECT_EQ(r2.lsn, 2u);
  EXPECT_EQ(r2.item->seq, 2u);
  EXPECT_EQ(p_.lsn(), 2u);
  EXPECT_EQ(p_.Count(), 2u);
  auto read = p_.Read(kA, "1", 100, ItemPolicy{});
  ASSERT_NE(read, nullptr);
  EXPECT_EQ(read, r1.item);
}

TEST_F(PartitionTest, CreateConflictIs409AndChangesNothing) {
  Do(WriteKind::kCreate, kA, "1");
  EXPECT_EQ(Status(WriteKind::kCreate, kA, "1"), 409);
  EXPECT_EQ(p_.lsn(), 1u);
  EXPECT_EQ(p_.Count(), 1u);
}

TEST_F(PartitionTest, SameIdInTwoLogicalPartitions) {
  auto a = Do(WriteKind::kCreate, kA, "1", 100, std::nullopt, std::nullopt, std::nullopt, "in a");
  auto b = Do(WriteKind::kCreate, kB, "1", 100, std::nullopt, std::nullopt, std::nullopt, "in b");
  EXPECT_TRUE(b.created);
  EXPECT_EQ(p_.Count(), 2u);
  EXPECT_EQ(p_.Read(kA, "1", 100, ItemPolicy{})->Text(), R"({"id":"1","v":"in a"})");
  EXPECT_EQ(p_.Read(kB, "1", 100, ItemPolicy{})->Text(), R"({"id":"1","v":"in b"})");
  EXPECT_EQ(p_.Read(R"(["c"])", "1", 100, ItemPolicy{}), nullptr);
  Do(WriteKind::kDelete, kA, "1");
  EXPECT_EQ(p_.Read(kA, "1", 100, ItemPolicy{}), nullptr);
  ASSERT_NE(p_.Read(kB, "1", 100, ItemPolicy{}), nullptr);
}

TEST_F(PartitionTest, KeysDoNotCollideAcrossPkAndIdBoundaries) {
  // pk "[\"a\"]" + id "b" must differ from pk "[\"a\"]b" + id "".
  Do(WriteKind::kCreate, R"(["a"])", "]x");
  EXPECT_EQ(p_.Read(R"(["a"]])", "x", 100, ItemPolicy{}), nullptr);
  EXPECT_EQ(Status(WriteKind::kCreate, R"(["a"]])", "x"), 0);
}

TEST_F(PartitionTest, ReplaceKeepsSeqAndReturnsPrevious) {
  auto c = Do(WriteKind::kCreate, kA, "1");
  Do(WriteKind::kCreate, kA, "2");
  auto r = Do(WriteKind::kReplace, kA, "1", 101, std::nullopt, std::nullopt, std::nullopt, "new");
  EXPECT_FALSE(r.created);
  EXPECT_EQ(r.previous, c.item);
  EXPECT_EQ(r.item->seq, 1u);
  EXPECT_EQ(r.lsn, 3u);
  EXPECT_EQ(p_.Read(kA, "1", 101, ItemPolicy{})->Text(), R"({"id":"1","v":"new"})");
  EXPECT_EQ(FeedIds(), (std::vector<std::string>{"1", "2"}));
}

TEST_F(PartitionTest, ReplaceOrDeleteMissingIs404) {
  EXPECT_EQ(Status(WriteKind::kReplace, kA, "nope"), 404);
  EXPECT_EQ(Status(WriteKind::kDelete, kA, "nope"), 404);
  Do(WriteKind::kCreate, kA, "1");
  EXPECT_EQ(Status(WriteKind::kReplace, kB, "1"), 404);  // other logical partition
  EXPECT_EQ(p_.lsn(), 1u);
}

TEST_F(PartitionTest, UpsertCreatesThenReplaces) {
  auto first = Do(WriteKind::kUpsert, kA, "1");
  EXPECT_TRUE(first.created);
  EXPECT_EQ(first.previous, nullptr);
  auto second = Do(WriteKind::kUpsert, kA, "1");
  EXPECT_FALSE(second.created);
  EXPECT_EQ(second.previous, first.item);
  EXPECT_EQ(second.item->seq, first.item->seq);
  EXPECT_EQ(p_.Count(), 1u);
  EXPECT_EQ(p_.lsn(), 2u);
}

TEST_F(PartitionTest, DeleteRemovesAndAdvancesLsn) {
  auto c = Do(WriteKind::kCreate, kA, "1");
  auto d = Do(WriteKind::kDelete, kA, "1");
  EXPECT_EQ(d.item, nullptr);
  EXPECT_EQ(d.previous, c.item);
  EXPECT_EQ(d.lsn, 2u);
  EXPECT_EQ(p_.Count(), 0u);
  EXPECT_EQ(p_.Read(kA, "1", 100, ItemPolicy{}), nullptr);
  // Re-creating after a delete gets a new sequence number.
  auto again = Do(WriteKind::kCreate, kA, "1");
  EXPECT_EQ(again.item->seq, 2u);
}

TEST_F(PartitionTest, IfMatch) {
  auto c = Do(WriteKind::kCreate, kA, "1");
  const std::string etag = std::string(c.item->etag());
  EXPECT_EQ(Status(WriteKind::kReplace, kA, "1", std::string("\"stale\"")), 412);
  EXPECT_EQ(Status(WriteKind::kUpsert, kA, "1", std::string("\"stale\"")), 412);
  EXPECT_EQ(Status(WriteKind::kDelete, kA, "1", std::string("\"stale\"")), 412);
  EXPECT_EQ(p_.lsn(), 1u);
  EXPECT_EQ(Status(WriteKind::kReplace, kA, "1", etag), 0);
  EXPECT_EQ(Status(WriteKind::kReplace, kA, "1", etag), 412);  // the replace changed the etag
  EXPECT_EQ(Status(WriteKind::kReplace, kA, "1", std::string("*")), 0);
  // Upsert with If-Match on an absent item creates it: the condition is on the item it would
  // replace (the official emulator; the Python SDK's test_etag_match_condition_compatibility).
  EXPECT_EQ(Status(WriteKind::kUpsert, kA, "absent", std::string("\"x\"")), 0);
  // Replace of an absent item is 404 before the precondition.
  EXPECT_EQ(Status(WriteKind::kReplace, kA, "missing", std::string("\"x\"")), 404);
  auto current = p_.Read(kA, "1", 100, ItemPolicy{});
  EXPECT_EQ(Status(WriteKind::kDelete, kA, "1", std::string(current->etag())), 0);
}

TEST_F(PartitionTest, MakerFailureChangesNothing) {
  Do(WriteKind::kCreate, kA, "1");
  Preconditions pre;
  EXPECT_THROW(p_.Write(WriteKind::kCreate, kA, "2", pre, 100, ItemPolicy{},
                        [](const ItemPtr&, uint64_t, uint64_t) -> ItemPtr { throw errors::RequestTooLarge(); }),
               CosmosError);
  EXPECT_EQ(p_.lsn(), 1u);
  EXPECT_EQ(p_.Count(), 1u);
  EXPECT_EQ(p_.Read(kA, "2", 100, ItemPolicy{}), nullptr);
  auto next = Do(WriteKind::kCreate, kA, "3");
  EXPECT_EQ(next.item->seq, 2u);
  EXPECT_EQ(next.lsn, 2u);
}

TEST_F(PartitionTest, MakerSeesCurrentImage) {
  auto c = Do(WriteKind::kCreate, kA, "1");
  Preconditions pre;
  ItemPtr seen;
  p_.Write(WriteKind::kReplace, kA, "1", pre, 100, ItemPolicy{},
           [&](const ItemPtr& current, uint64_t seq, uint64_t lsn) {
             seen = current;
             return Maker("1", kA, 100)(current, seq, lsn);
           });
  EXPECT_EQ(seen, c.item);
}

TEST_F(PartitionTest, TtlDefaultExpiry) {
  const std::optional<int64_t> ttl10 = 10;
  Do(WriteKind::kCreate, kA, "1", 100, std::nullopt, ttl10);
  EXPECT_NE(p_.Read(kA, "1", 109, ItemPolicy{ttl10, std::nullopt}), nullptr);
  EXPECT_EQ(p_.Read(kA, "1", 110, ItemPolicy{ttl10, std::nullopt}), nullptr);
  EXPECT_EQ(p_.Read(kA, "1", 500, ItemPolicy{ttl10, std::nullopt}), nullptr);
  EXPECT_EQ(FeedIds(0, 0, 110, ttl10), std::vector<std::string>{});
  // TTL off on the container: nothing expires.
  EXPECT_NE(p_.Read(kA, "1", 500, ItemPolicy{}), nullptr);
}

TEST_F(PartitionTest, TtlItemOverridesContainer) {
  const std::optional<int64_t> on = -1;
  Do(WriteKind::kCreate, kA, "short", 100, std::nullopt, on, 5);
  Do(WriteKind::kCreate, kA, "forever", 100, std::nullopt, int64_t{10}, -1);
  Do(WriteKind::kCreate, kA, "plain", 100, std::nullopt, on);
  EXPECT_NE(p_.Read(kA, "short", 104, ItemPolicy{on, std::nullopt}), nullptr);
  EXPECT_EQ(p_.Read(kA, "short", 105, ItemPolicy{on, std::nullopt}), nullptr);
  EXPECT_NE(p_.Read(kA, "plain", 100000, ItemPolicy{on, std::nullopt}), nullptr);  // -1: on without default
  EXPECT_NE(p_.Read(kA, "forever", 100000, ItemPolicy{int64_t{10}, std::nullopt}), nullptr);
  // Item ttl is ignored while the container has TTL off.
  EXPECT_NE(p_.Read(kA, "short", 100000, ItemPolicy{}), nullptr);
  EXPECT_EQ(FeedIds(0, 0, 105, on), (std::vector<std::string>{"forever", "plain"}));
}

TEST_F(PartitionTest, ExpiredItemCanBeCreatedAgainButNotReplaced) {
  const std::optional<int64_t> ttl10 = 10;
  Do(WriteKind::kCreate, kA, "1", 100, std::nullopt, ttl10);
  try {
    Do(WriteKind::kReplace, kA, "1", 120, std::nullopt, ttl10);
    ADD_FAILURE() << "replace of an expired item succeeded";
  } catch (const CosmosError& e) {
    EXPECT_EQ(e.status, 404);
  }
  auto again = Do(WriteKind::kCreate, kA, "1", 120, std::nullopt, ttl10);
  EXPECT_TRUE(again.created);
  EXPECT_EQ(again.previous, nullptr);
  EXPECT_EQ(p_.Count(), 1u);
  EXPECT_NE(p_.Read(kA, "1", 125, ItemPolicy{ttl10, std::nullopt}), nullptr);
}

TEST_F(PartitionTest, FeedOrderPagingAndDeletes) {
  for (const char* id : {"c", "a", "b", "e", "d"}) Do(WriteKind::kCreate, kA, id);
  EXPECT_EQ(FeedIds(), (std::vector<std::string>{"c", "a", "b", "e", "d"}));
  EXPECT_EQ(FeedIds(0, 2), (std::vector<std::string>{"c", "a"}));
  EXPECT_EQ(FeedIds(2, 2), (std::vector<std::string>{"b", "e"}));
  EXPECT_EQ(FeedIds(4, 2), (std::vector<std::string>{"d"}));
  EXPECT_EQ(FeedIds(5, 2), std::vector<std::string>{});
  Do(WriteKind::kUpsert, kA, "c");  // updates keep their place
  Do(WriteKind::kDelete, kA, "b");
  EXPECT_EQ(FeedIds(), (std::vector<std::string>{"c", "a", "e", "d"}));
  Do(WriteKind::kCreate, kB, "b");
  EXPECT_EQ(FeedIds(), (std::vector<std::string>{"c", "a", "e", "d", "b"}));
  auto items = p_.Feed(0, 0, 100, ItemPolicy{});
  ASSERT_EQ(items.size(), 5u);
  EXPECT_EQ(items.back()->seq, 6u);
}

// ---- Account / Database / Container -------------------------------------------------------------

TEST(Account, DatabaseLifecycleAndIds) {
  Account account;
  auto db1 = account.CreateDatabase("db1", std::nullopt);
  auto db2 = account.CreateDatabase("db2", Throughput{400, false});
  EXPECT_EQ(db1->rid(), "AQBAAA==");
  EXPECT_EQ(db2->rid(), "AgBAAA==");
  ASSERT_NE(db2->offer(), nullptr);
  EXPECT_EQ(db2->offer()->throughput().ru, 400);
  EXPECT_EQ(db1->offer(), nullptr);
  try {
    account.CreateDatabase("db1", std::nullopt);
    ADD_FAILURE() << "duplicate database created";
  } catch (const CosmosError& e) {
    EXPECT_EQ(e.status, 409);
    EXPECT_EQ(e.code, "Conflict");
  }
  EXPECT_EQ(account.FindDatabase("db1"), db1);
  EXPECT_EQ(account.FindDatabase("DB1"), nullptr);
  ASSERT_EQ(account.Databases().size(), 2u);
  EXPECT_EQ(account.Databases()[0]->id(), "db1");
  EXPECT_TRUE(account.DeleteDatabase("db1"));
  EXPECT_FALSE(account.DeleteDatabase("db1"));
  EXPECT_EQ(account.FindDatabase("db1"), nullptr);
}

TEST(Account, DatabaseJson) {
  Account account;
  auto db = account.CreateDatabase("db1", std::nullopt);
  json::Document d;
  ASSERT_EQ(json::Parse(db->ToJson(), d), json::ParseStatus::kOk);
  std::vector<std::string> keys;
  for (auto& m : d.GetObject()) keys.emplace_back(m.name.GetString());
  EXPECT_EQ(keys, (std::vector<std::string>{"id", "_rid", "_self", "_etag", "_colls", "_users", "_ts"}));
  EXPECT_STREQ(d["_self"].GetString(), "dbs/AQBAAA==/");
  EXPECT_EQ(d["_etag"].GetString(), db->etag());
  EXPECT_TRUE(std::regex_match(db->etag(), std::regex(R"re("[0-9a-f]{8}-0000-0100-0000-[0-9a-f]{8}0000")re")))
      << db->etag();
}

TEST(Account, EtagsAreUniqueAndEncodeTheTimestamp) {
  Account account;
  std::set<std::string> seen;
  for (int i = 0; i < 1000; ++i) seen.insert(account.NewEtag(1791622989));
  EXPECT_EQ(seen.size(), 1000u);
  EXPECT_EQ(account.NewEtag(1791622989), "\"000003e9-0000-0100-0000-6ac9ff4d0000\"");
}

TEST(Account, ContainerIdsDeriveFromTheDatabase) {
  Account account;
  auto db = account.CreateDatabase("db1", std::nullopt);
  json::Document pk;
  pk.Parse(R"({"paths":["/pk"]})");
  auto c1 = account.CreateContainer(*db, "c1", PartitionKeyDefinition::FromJson(pk), ContainerSettings{}, std::nullopt);
  auto c2 = account.CreateContainer(*db, "c2", PartitionKeyDefinition::FromJson(pk), ContainerSettings{},
                                    Throughput{400, false});
  EXPECT_EQ(c1->rid(), "AQBAAIAAAAE=");
  EXPECT_EQ(c2->rid(), "AQBAAIAAAAI=");
  EXPECT_EQ(c1->self(), "dbs/AQBAAA==/colls/AQBAAIAAAAE=/");
  EXPECT_EQ(c1->ItemRid(1), "AQBAAIAAAAEBAAAAAAAAAA==");
  EXPECT_EQ(c2->offer()->throughput().ru, 400);
  EXPECT_EQ(c1->offer()->throughput().ru, 400);  // the service default
  ASSERT_EQ(c1->partitions().size(), 1u);
  EXPECT_EQ(c1->partitions()[0]->range_id(), "0");
  EXPECT_EQ(c1->PartitionById("0"), c1->partitions()[0]);
  EXPECT_EQ(c1->PartitionById("1"), nullptr);
  PartitionKeyValue any;
  any.components.push_back(std::string("\"x\""));
  EXPECT_EQ(&c1->PartitionFor(any), c1->partitions()[0]);
  try {
    account.CreateContainer(*db, "c1", PartitionKeyDefinition::FromJson(pk), ContainerSettings{}, std::nullopt);
    ADD_FAILURE() << "duplicate container created";
  } catch (const CosmosError& e) {
    EXPECT_EQ(e.status, 409);
  }
  EXPECT_EQ(db->FindContainer("c2"), c2);
  ASSERT_EQ(db->Containers().size(), 2u);
  EXPECT_TRUE(db->RemoveContainer("c1"));
  EXPECT_FALSE(db->RemoveContainer("c1"));
  EXPECT_EQ(db->FindContainer("c1"), nullptr);
}

TEST(Account, ContainerReplaceChangesEtagAndSettings) {
  Account account;
  auto db = account.CreateDatabase("db1", std::nullopt);
  json::Document pk;
  pk.Parse(R"({"paths":["/pk"]})");
  ContainerSettings st;
  st.indexing = IndexingPolicy::FromJson(nullptr);
  auto c = account.CreateContainer(*db, "c1", PartitionKeyDefinition::FromJson(pk), std::move(st), std::nullopt);
  auto before = c->settings();
  const std::string etag = c->etag();
  ContainerSettings next;
  next.indexing = IndexingPolicy::FromJson(nullptr);
  next.default_ttl = 60;
  c->Replace(std::move(next), 1791622989, "\"new\"");
  EXPECT_EQ(c->etag(), "\"new\"");
  EXPECT_NE(c->etag(), etag);
  EXPECT_EQ(c->settings()->default_ttl, 60);
  EXPECT_FALSE(before->default_ttl.has_value());  // old snapshots stay valid
  json::Document d;
  ASSERT_EQ(json::Parse(c->ToJson(), d), json::ParseStatus::kOk);
  EXPECT_EQ(d["defaultTtl"].GetInt(), 60);
  EXPECT_EQ(d["_ts"].GetInt64(), 1791622989);
  EXPECT_STREQ(d["_etag"].GetString(), "\"new\"");
  EXPECT_EQ(json::Write(d["partitionKey"]), R"({"paths":["/pk"],"kind":"Hash","version":1})");
}

}  // namespace
}  // namespace cosmos::store
