// store/: the change-feed side of PhysicalPartition: LSN sequence, the latest-version index
// (LatestChanges), the all-versions-and-deletes log (AllChanges, retention, policy switches),
// StartLsn and the TTL sweep (ExpireItems). The HTTP side is tests/http/changefeed_http_test.cpp.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "common/errors.h"
#include "test_items.h"
#include "store/store.h"
#include "util/clock.h"

namespace cosmos::store {
namespace {

const std::string kA = R"(["a"])";
const std::string kB = R"(["b"])";

// The 400 of the all-versions log, as the service-style wrapped message.
const std::string kOutsideRetention =
    "Message: {\"Errors\":[\"The requested start of the change feed in all versions and deletes mode lies outside "
    "the container's retention window. You must read the change feed from within the retention period.\"]}";

ItemPolicy NoLog(std::optional<int64_t> default_ttl = std::nullopt) { return ItemPolicy{default_ttl, std::nullopt}; }
ItemPolicy Logged(int64_t retention_seconds, std::optional<int64_t> default_ttl = std::nullopt) {
  return ItemPolicy{default_ttl, retention_seconds};
}

const ItemFilter kAll = [](const Item&) { return true; };

class ChangeLogTest : public ::testing::Test {
 protected:
  PhysicalPartition::Maker Maker(const std::string& id, const std::string& pk, int64_t ts,
                                 std::optional<int64_t> ttl = std::nullopt, const std::string& payload = "") {
    return [=](const ItemPtr&, uint64_t seq, uint64_t lsn) {
      return testing::TestItem(id, pk, ts, seq, lsn, ttl, "\"e" + std::to_string(lsn) + "\"", payload);
    };
  }

  // One write at time `now` (the item's _ts is `now` too).
  WriteResult Do(WriteKind kind, const std::string& pk, const std::string& id, int64_t now, const ItemPolicy& policy,
                 std::optional<int64_t> item_ttl = std::nullopt, const std::string& payload = "") {
    return p_.Write(kind, pk, id, Preconditions{}, now, policy, Maker(id, pk, now, item_ttl, payload));
  }

  // "id@lsn" of a latest-version page, plus "|resume".
  std::string Latest(uint64_t after, size_t max, int64_t now, const ItemPolicy& policy, const ItemFilter& keep = kAll) {
    auto page = p_.LatestChanges(after, max, keep, now, policy);
    std::string out;
    for (auto& item : page.entries) out += std::string(item->id()) + "@" + std::to_string(item->lsn) + " ";
    return out + "|" + std::to_string(page.resume_lsn);
  }

  // "<kind>:<id>@<lsn>" per change ("c", "r", "d", "ttl" for expiry deletes), plus "|resume".
  std::string All(uint64_t after, size_t max = 100, const ItemFilter& keep = kAll) {
    auto page = p_.AllChanges(after, max, keep);
    std::string out;
    for (auto& ch : page.entries) {
      const char* kind = ch.kind == ChangeKind::kCreate    ? "c"
                         : ch.kind == ChangeKind::kReplace ? "r"
                         : ch.ttl_expired                  ? "ttl"
                                                           : "d";
      const ItemPtr& shown = ch.current ? ch.current : ch.previous;
      out += std::string(kind) + ":" + std::string(shown->id()) + "@" + std::to_string(ch.lsn) + " ";
    }
    return out + "|" + std::to_string(page.resume_lsn);
  }

  // The message of the CosmosError `f` throws ("" when it throws none).
  template <typename F>
  static std::string ErrorOf(F&& f, int* status = nullptr) {
    try {
      f();
    } catch (const CosmosError& e) {
      if (status) *status = e.status;
      return e.what();
    }
    return "";
  }

  PhysicalPartition p_{"0", "", "FF"};
};

TEST_F(ChangeLogTest, EveryWriteTakesTheNextLsnAndFailuresTakeNone) {
  const auto pol = NoLog();
  EXPECT_EQ(Do(WriteKind::kCreate, kA, "a", 100, pol).lsn, 1u);
  EXPECT_EQ(Do(WriteKind::kCreate, kA, "b", 100, pol).lsn, 2u);
  auto replaced = Do(WriteKind::kReplace, kA, "a", 100, pol);
  EXPECT_EQ(replaced.lsn, 3u);
  EXPECT_EQ(replaced.item->lsn, 3u);
  EXPECT_EQ(replaced.previous->lsn, 1u);
  auto upsert_new = Do(WriteKind::kUpsert, kA, "c", 100, pol);
  EXPECT_EQ(upsert_new.lsn, 4u);
  EXPECT_TRUE(upsert_new.created);
  auto upsert_old = Do(WriteKind::kUpsert, kA, "a", 100, pol);
  EXPECT_EQ(upsert_old.lsn, 5u);
  EXPECT_FALSE(upsert_old.created);
  auto deleted = Do(WriteKind::kDelete, kA, "b", 100, pol);
  EXPECT_EQ(deleted.lsn, 6u);
  EXPECT_EQ(deleted.previous->lsn, 2u);
  // Rejected writes (409, 404) take no LSN.
  EXPECT_THROW(Do(WriteKind::kCreate, kA, "a", 100, pol), CosmosError);
  EXPECT_THROW(Do(WriteKind::kReplace, kA, "b", 100, pol), CosmosError);
  EXPECT_THROW(Do(WriteKind::kDelete, kA, "zz", 100, pol), CosmosError);
  EXPECT_EQ(p_.lsn(), 6u);
  EXPECT_EQ(Do(WriteKind::kCreate, kA, "d", 100, pol).lsn, 7u);
  // The process-wide high-water mark has seen at least this partition's LSN.
  EXPECT_GE(MaxLsnIssued(), 7u);
}

TEST_F(ChangeLogTest, LatestChangesShowEachLiveItemOnceAtItsLatestLsn) {
  const auto pol = NoLog();
  Do(WriteKind::kCreate, kA, "a", 100, pol);   // 1
  Do(WriteKind::kCreate, kB, "b", 100, pol);   // 2
  Do(WriteKind::kCreate, kA, "c", 100, pol);   // 3
  Do(WriteKind::kReplace, kA, "a", 100, pol);  // 4: a moves to the end
  Do(WriteKind::kDelete, kA, "c", 100, pol);   // 5: c is gone from the index
  EXPECT_EQ(Latest(0, 100, 100, pol), "b@2 a@4 |5");
  EXPECT_EQ(Latest(2, 100, 100, pol), "a@4 |5");
  EXPECT_EQ(Latest(4, 100, 100, pol), "|5");
  EXPECT_EQ(Latest(5, 100, 100, pol), "|5");
  // A full page resumes after its last entry; a partial one at the partition's LSN.
  EXPECT_EQ(Latest(0, 1, 100, pol), "b@2 |2");
  EXPECT_EQ(Latest(2, 1, 100, pol), "a@4 |4");
  EXPECT_EQ(Latest(0, 2, 100, pol), "b@2 a@4 |4");
  EXPECT_EQ(Latest(0, 3, 100, pol), "b@2 a@4 |5");
  // A filter (one logical partition) is applied before the page fills.
  ItemFilter only_a = [](const Item& i) { return std::string(i.pk()) == kA; };
  EXPECT_EQ(Latest(0, 1, 100, pol, only_a), "a@4 |4");
  ItemFilter none = [](const Item&) { return false; };
  EXPECT_EQ(Latest(0, 1, 100, pol, none), "|5");
  // Upserting b again moves it behind a; a re-created c comes back with a new LSN.
  Do(WriteKind::kUpsert, kB, "b", 100, pol);  // 6
  Do(WriteKind::kCreate, kA, "c", 100, pol);  // 7
  EXPECT_EQ(Latest(0, 100, 100, pol), "a@4 b@6 c@7 |7");
}

TEST_F(ChangeLogTest, LatestChangesHideExpiredItemsBeforeTheSweep) {
  const auto pol = NoLog(int64_t{10});
  Do(WriteKind::kCreate, kA, "short", 100, pol, 5);  // 1, expires at 105
  Do(WriteKind::kCreate, kA, "long", 100, pol);      // 2, expires at 110
  EXPECT_EQ(Latest(0, 100, 104, pol), "short@1 long@2 |2");
  EXPECT_EQ(Latest(0, 100, 105, pol), "long@2 |2");
  EXPECT_EQ(Latest(0, 100, 110, pol), "|2");
  // Nothing was deleted yet: the sweep happens at the next write or ExpireItems.
  EXPECT_EQ(p_.lsn(), 2u);
  EXPECT_EQ(p_.Count(), 2u);
}

TEST_F(ChangeLogTest, AllChangesLogEveryVersionWithItsPreviousImage) {
  const auto pol = Logged(3600);
  auto c1 = Do(WriteKind::kCreate, kA, "a", 100, pol);   // 1
  auto u2 = Do(WriteKind::kUpsert, kB, "b", 101, pol);   // 2: upsert that creates
  auto r3 = Do(WriteKind::kReplace, kA, "a", 102, pol);  // 3
  auto u4 = Do(WriteKind::kUpsert, kB, "b", 103, pol);   // 4: upsert that replaces
  auto d5 = Do(WriteKind::kDelete, kA, "a", 104, pol);   // 5
  EXPECT_EQ(All(0), "c:a@1 c:b@2 r:a@3 r:b@4 d:a@5 |5");
  auto page = p_.AllChanges(0, 100, kAll);
  ASSERT_EQ(page.entries.size(), 5u);
  const auto& e = page.entries;
  EXPECT_EQ(e[0].current, c1.item);
  EXPECT_EQ(e[0].previous, nullptr);
  EXPECT_EQ(e[0].crts, 100);
  EXPECT_EQ(e[1].kind, ChangeKind::kCreate);
  EXPECT_EQ(e[1].current, u2.item);
  EXPECT_EQ(e[2].current, r3.item);
  EXPECT_EQ(e[2].previous, c1.item);
  EXPECT_EQ(e[2].crts, 102);
  EXPECT_EQ(e[3].kind, ChangeKind::kReplace);
  EXPECT_EQ(e[3].previous, u2.item);
  EXPECT_EQ(e[3].current, u4.item);
  EXPECT_EQ(e[4].kind, ChangeKind::kDelete);
  EXPECT_EQ(e[4].current, nullptr);
  EXPECT_EQ(e[4].previous, r3.item);
  EXPECT_EQ(e[4].previous, d5.previous);
  EXPECT_FALSE(e[4].ttl_expired);
  EXPECT_EQ(e[4].crts, 104);
  // Paging and continuing.
  EXPECT_EQ(All(0, 2), "c:a@1 c:b@2 |2");
  EXPECT_EQ(All(2, 2), "r:a@3 r:b@4 |4");
  EXPECT_EQ(All(4, 2), "d:a@5 |5");
  EXPECT_EQ(All(5, 2), "|5");
  // A filter matches deletes on the deleted version.
  ItemFilter only_a = [](const Item& i) { return std::string(i.pk()) == kA; };
  EXPECT_EQ(All(0, 100, only_a), "c:a@1 r:a@3 d:a@5 |5");
  EXPECT_EQ(All(0, 1, only_a), "c:a@1 |1");
  EXPECT_EQ(All(1, 1, only_a), "r:a@3 |3");
}

TEST_F(ChangeLogTest, WithoutAPolicyTheLogStartsAtTheFirstAllVersionsRead) {
  // The service keeps the all-versions feed at the account's level (continuous backup) for every
  // container; here a partition without a changeFeedPolicy starts its log at the first
  // all-versions read, and keeps it for the account's retention.
  Do(WriteKind::kCreate, kA, "a", 100, NoLog());  // 1
  int status = 0;
  EXPECT_EQ(ErrorOf([&] { p_.AllChanges(0, 100, kAll); }, &status), kOutsideRetention);
  EXPECT_EQ(status, 400);
  EXPECT_EQ(ErrorOf([&] { p_.AllChanges(1, 100, kAll); }), kOutsideRetention);
  EXPECT_EQ(ErrorOf([&] { p_.StartLsn(0, true); }), kOutsideRetention);
  // The latest-version start needs no log.
  EXPECT_EQ(p_.StartLsn(0, false), 0u);
  // A write does not start it; an all-versions read does, after the partition's last LSN.
  Do(WriteKind::kCreate, kA, "b", 101, NoLog());  // 2
  EXPECT_EQ(ErrorOf([&] { p_.AllChanges(2, 100, kAll); }), kOutsideRetention);
  p_.ExpireItems(102, NoLog(), /*start_log=*/true);
  EXPECT_EQ(All(2), "|2");
  EXPECT_EQ(ErrorOf([&] { p_.AllChanges(1, 100, kAll); }), kOutsideRetention);
  Do(WriteKind::kReplace, kA, "a", 103, NoLog());  // 3
  Do(WriteKind::kDelete, kA, "b", 104, NoLog());   // 4
  EXPECT_EQ(All(2), "r:a@3 d:b@4 |4");
  // Kept for the account's retention, then pruned.
  p_.ExpireItems(103 + kAccountLogRetentionSeconds, NoLog());
  EXPECT_EQ(All(2), "r:a@3 d:b@4 |4");
  p_.ExpireItems(104 + kAccountLogRetentionSeconds, NoLog());
  EXPECT_EQ(ErrorOf([&] { p_.AllChanges(2, 100, kAll); }), kOutsideRetention);
  EXPECT_EQ(All(3), "d:b@4 |4");
}

TEST_F(ChangeLogTest, RetentionPrunesTheLogAndCheckLogReachesRefusesOlderStarts) {
  const auto pol = Logged(60);
  Do(WriteKind::kCreate, kA, "a", 100, pol);  // 1
  Do(WriteKind::kCreate, kA, "b", 100, pol);  // 2
  Do(WriteKind::kCreate, kA, "c", 130, pol);  // 3
  // At 160 the changes of 100 are exactly 60 s old: still kept.
  p_.ExpireItems(160, pol);
  EXPECT_EQ(All(0), "c:a@1 c:b@2 c:c@3 |3");
  EXPECT_EQ(p_.StartLsn(100, true), 0u);
  // At 161 they are gone; the log still holds everything after LSN 2.
  p_.ExpireItems(161, pol);
  EXPECT_EQ(ErrorOf([&] { p_.AllChanges(0, 100, kAll); }), kOutsideRetention);
  EXPECT_EQ(ErrorOf([&] { p_.AllChanges(1, 100, kAll); }), kOutsideRetention);
  EXPECT_EQ(All(2), "c:c@3 |3");
  EXPECT_EQ(All(3), "|3");
  // Points in time: before the first kept second -> 400; from it on, the first change at or after.
  EXPECT_EQ(ErrorOf([&] { p_.StartLsn(100, true); }), kOutsideRetention);
  EXPECT_EQ(p_.StartLsn(101, true), 2u);
  EXPECT_EQ(p_.StartLsn(130, true), 2u);
  EXPECT_EQ(p_.StartLsn(131, true), 3u);
  // The latest-version start is unaffected by retention.
  EXPECT_EQ(p_.StartLsn(100, false), 0u);
  // A write prunes too: at 191, c (130) falls out; the log holds everything after 3.
  Do(WriteKind::kCreate, kA, "d", 191, pol);  // 4
  EXPECT_EQ(ErrorOf([&] { p_.AllChanges(2, 100, kAll); }), kOutsideRetention);
  EXPECT_EQ(All(3), "c:d@4 |4");
  EXPECT_EQ(ErrorOf([&] { p_.StartLsn(130, true); }), kOutsideRetention);
  EXPECT_EQ(p_.StartLsn(131, true), 3u);
  // Everything pruned: from now (the partition's LSN) still reads.
  p_.ExpireItems(10000, pol);
  EXPECT_EQ(All(4), "|4");
  EXPECT_EQ(ErrorOf([&] { p_.AllChanges(3, 100, kAll); }), kOutsideRetention);
  EXPECT_EQ(p_.StartLsn(9999, true), 4u);
}

TEST_F(ChangeLogTest, StartLsnFollowsItemTimestampsInLatestVersionMode) {
  const auto pol = Logged(3600);
  Do(WriteKind::kCreate, kA, "a", 100, pol);  // 1
  Do(WriteKind::kCreate, kA, "b", 110, pol);  // 2
  Do(WriteKind::kCreate, kA, "c", 120, pol);  // 3
  EXPECT_EQ(p_.StartLsn(0, false), 0u);
  EXPECT_EQ(p_.StartLsn(100, false), 0u);
  EXPECT_EQ(p_.StartLsn(101, false), 1u);
  EXPECT_EQ(p_.StartLsn(110, false), 1u);
  EXPECT_EQ(p_.StartLsn(120, false), 2u);
  EXPECT_EQ(p_.StartLsn(121, false), 3u);
  EXPECT_EQ(p_.StartLsn(0, true), 0u);  // logged since the partition was empty
  EXPECT_EQ(p_.StartLsn(110, true), 1u);
  EXPECT_EQ(p_.StartLsn(999, true), 3u);
  // Replacing a at 130 moves it behind c; deleting b removes it from the latest index, but the
  // all-versions log still starts at b's create.
  Do(WriteKind::kReplace, kA, "a", 130, pol);  // 4
  Do(WriteKind::kDelete, kA, "b", 140, pol);   // 5
  EXPECT_EQ(p_.StartLsn(101, false), 2u);      // first latest version at or after 101 is c (3)
  EXPECT_EQ(p_.StartLsn(125, false), 3u);      // a (4)
  EXPECT_EQ(p_.StartLsn(131, false), 5u);      // nothing: the partition's LSN
  EXPECT_EQ(p_.StartLsn(101, true), 1u);
  EXPECT_EQ(p_.StartLsn(131, true), 4u);  // the delete (5)
  EXPECT_EQ(p_.StartLsn(141, true), 5u);
}

TEST_F(ChangeLogTest, ExpireItemsDeletesInExpiryThenCreationOrderEachWithAnLsn) {
  const auto pol = Logged(3600, int64_t{-1});
  Do(WriteKind::kCreate, kA, "z", 100, pol, 10);  // 1, expires 110
  Do(WriteKind::kCreate, kA, "c", 100, pol, 5);   // 2, expires 105
  Do(WriteKind::kCreate, kB, "a", 100, pol, 5);   // 3, expires 105
  Do(WriteKind::kCreate, kA, "b", 102, pol, 3);   // 4, expires 105
  Do(WriteKind::kCreate, kA, "keep", 100, pol);   // 5, no ttl: never
  p_.ExpireItems(104, pol);
  EXPECT_EQ(p_.lsn(), 5u);
  // Same expiry: in creation order (sequence number), so c, a, b; then z.
  p_.ExpireItems(110, pol);
  EXPECT_EQ(p_.lsn(), 9u);
  EXPECT_EQ(All(5), "ttl:c@6 ttl:a@7 ttl:b@8 ttl:z@9 |9");
  auto page = p_.AllChanges(5, 100, kAll);
  ASSERT_EQ(page.entries.size(), 4u);
  for (auto& ch : page.entries) {
    EXPECT_EQ(ch.kind, ChangeKind::kDelete);
    EXPECT_TRUE(ch.ttl_expired);
    EXPECT_EQ(ch.crts, 110);  // the time of the sweep, not of the expiry
    EXPECT_EQ(ch.current, nullptr);
  }
  EXPECT_EQ(page.entries[0].previous->lsn, 2u);
  EXPECT_EQ(page.entries[3].previous->lsn, 1u);
  EXPECT_EQ(p_.Count(), 1u);
  EXPECT_EQ(Latest(0, 100, 110, pol), "keep@5 |9");
  // Sweeping again does nothing.
  p_.ExpireItems(1000, pol);
  EXPECT_EQ(p_.lsn(), 9u);
}

// Expiry counts from the write's own millisecond (Item::written), not from its whole-second _ts:
// the index, liveness and the sweep all compare milliseconds of the emulator's clock.
TEST_F(ChangeLogTest, ExpiryCountsFromTheWriteToTheMillisecond) {
  const auto pol = Logged(3600, int64_t{-1});
  auto at = [&](const std::string& id, int64_t ms, int64_t ttl) {
    return p_.Write(WriteKind::kCreate, kA, id, Preconditions{}, util::Instant::FromMs(ms), pol,
                    [&](const ItemPtr&, uint64_t seq, uint64_t lsn) {
                      auto item = testing::TestItem(id, kA, 0, seq, lsn, ttl, "\"e\"", "");
                      const_cast<Item&>(*item).set_written(util::Instant::FromMs(ms));
                      return item;
                    });
  };
  at("late", 100'950, 8);   // 1: _ts 100, expires at 108.950
  at("early", 100'050, 8);  // 2: _ts 100, expires at 108.050
  EXPECT_EQ(p_.Read(kA, "late", 100, pol)->ts, 100);
  EXPECT_EQ(p_.Read(kA, "late", 100, pol)->ts_ms, 950);
  EXPECT_EQ(p_.Read(kA, "late", 100, pol)->written().ms, 100'950);
  EXPECT_NE(p_.Read(kA, "late", 108, pol), nullptr);  // _ts + ttl: still there
  EXPECT_NE(p_.Read(kA, "early", 108, pol), nullptr);
  EXPECT_EQ(p_.Read(kA, "early", util::Instant::FromMs(108'050), pol), nullptr);
  EXPECT_FALSE(p_.AllLive(util::Instant::FromMs(108'050), pol));
  EXPECT_EQ(Latest(0, 100, util::Instant::FromMs(108'949).seconds(), pol), "late@1 early@2 |2");
  p_.ExpireItems(util::Instant::FromMs(108'949), pol);
  EXPECT_EQ(p_.lsn(), 3u);  // early only
  EXPECT_NE(p_.Read(kA, "late", util::Instant::FromMs(108'949), pol), nullptr);
  EXPECT_TRUE(p_.AllLive(util::Instant::FromMs(108'949), pol));
  p_.ExpireItems(util::Instant::FromMs(108'950), pol);
  EXPECT_EQ(All(2), "ttl:early@3 ttl:late@4 |4");
  EXPECT_EQ(p_.AllChanges(2, 100, kAll).entries[1].crts, 108);  // the log keeps whole seconds
}

TEST_F(ChangeLogTest, AWriteSweepsExpiredItemsFirst) {
  const auto pol = NoLog(int64_t{10});
  Do(WriteKind::kCreate, kA, "a", 100, pol);  // 1, expires 110
  Do(WriteKind::kCreate, kA, "b", 105, pol);  // 2, expires 115
  auto w = Do(WriteKind::kCreate, kB, "x", 112, pol);
  EXPECT_EQ(w.lsn, 4u);  // a's expiry took 3
  EXPECT_EQ(Latest(0, 100, 112, pol), "b@2 x@4 |4");
  // The expired item is absent for the write too: a can be created again.
  auto again = Do(WriteKind::kCreate, kA, "a", 116, pol);
  EXPECT_EQ(again.lsn, 6u);  // b's expiry took 5
  EXPECT_TRUE(again.created);
  EXPECT_EQ(Latest(0, 100, 116, pol), "x@4 a@6 |6");
}

TEST_F(ChangeLogTest, PolicySwitchedOnStartsTheLogAndOffKeepsItForTheAccountsRetention) {
  Do(WriteKind::kCreate, kA, "a", 100, NoLog());  // 1
  Do(WriteKind::kCreate, kA, "b", 100, NoLog());  // 2
  EXPECT_EQ(ErrorOf([&] { p_.AllChanges(2, 100, kAll); }), kOutsideRetention);
  // Switched on at 105 (by the next write or change-feed read): the log starts after LSN 2.
  const auto on = Logged(3600);
  p_.ExpireItems(105, on);
  EXPECT_EQ(All(2), "|2");
  EXPECT_EQ(ErrorOf([&] { p_.AllChanges(1, 100, kAll); }), kOutsideRetention);
  EXPECT_EQ(ErrorOf([&] { p_.AllChanges(0, 100, kAll); }), kOutsideRetention);
  // A point in time is safe only after the second the log started in.
  EXPECT_EQ(ErrorOf([&] { p_.StartLsn(105, true); }), kOutsideRetention);
  EXPECT_EQ(p_.StartLsn(106, true), 2u);
  Do(WriteKind::kReplace, kA, "a", 107, on);  // 3
  EXPECT_EQ(All(2), "r:a@3 |3");
  EXPECT_EQ(p_.StartLsn(106, true), 2u);
  EXPECT_EQ(p_.StartLsn(108, true), 3u);
  // Switched off: the account's retention applies; the log goes on.
  Do(WriteKind::kCreate, kA, "c", 108, NoLog());  // 4
  EXPECT_EQ(All(3), "c:c@4 |4");
  EXPECT_EQ(p_.StartLsn(108, true), 3u);
  Do(WriteKind::kCreate, kA, "d", 109, on);  // 5
  EXPECT_EQ(All(2), "r:a@3 c:c@4 c:d@5 |5");
  EXPECT_EQ(ErrorOf([&] { p_.AllChanges(1, 100, kAll); }), kOutsideRetention);
}

TEST_F(ChangeLogTest, PolicyOnForAnEmptyPartitionReachesBackToTheBeginning) {
  const auto on = Logged(60);
  p_.ExpireItems(100, on);
  EXPECT_EQ(All(0), "|0");
  EXPECT_EQ(p_.StartLsn(0, true), 0u);
  Do(WriteKind::kCreate, kA, "a", 100, on);  // 1
  EXPECT_EQ(All(0), "c:a@1 |1");
  EXPECT_EQ(p_.StartLsn(0, true), 0u);
  EXPECT_EQ(p_.StartLsn(100, true), 0u);
}

TEST_F(ChangeLogTest, DefaultTtlChangeReindexesExpiry) {
  // Created with TTL off: nothing expires, however old.
  Do(WriteKind::kCreate, kA, "a", 100, NoLog());      // 1
  Do(WriteKind::kCreate, kA, "b", 100, NoLog(), 50);  // 2: item ttl ignored while off
  Do(WriteKind::kCreate, kA, "n", 100, NoLog(), -1);  // 3: never
  p_.ExpireItems(1000, NoLog());
  EXPECT_EQ(p_.lsn(), 3u);
  EXPECT_NE(p_.Read(kA, "b", 1000, NoLog()), nullptr);
  // TTL on without a default (-1): only b (its own ttl 50 -> 150) expires.
  p_.ExpireItems(149, NoLog(int64_t{-1}));
  EXPECT_EQ(p_.lsn(), 3u);
  EXPECT_EQ(p_.Read(kA, "b", 150, NoLog(int64_t{-1})), nullptr);
  p_.ExpireItems(150, NoLog(int64_t{-1}));
  EXPECT_EQ(p_.lsn(), 4u);
  EXPECT_EQ(p_.Count(), 2u);
  // Default 1000: a expires at 1100; then shortened to 500: a expires at 600 (re-indexed).
  p_.ExpireItems(700, NoLog(int64_t{1000}));
  EXPECT_EQ(p_.lsn(), 4u);
  EXPECT_NE(p_.Read(kA, "a", 700, NoLog(int64_t{1000})), nullptr);
  EXPECT_EQ(p_.Read(kA, "a", 700, NoLog(int64_t{500})), nullptr);
  p_.ExpireItems(700, NoLog(int64_t{500}));
  EXPECT_EQ(p_.lsn(), 5u);
  EXPECT_EQ(p_.Read(kA, "a", 700, NoLog(int64_t{500})), nullptr);
  // n (ttl -1) never expires under any default.
  p_.ExpireItems(100000, NoLog(int64_t{1}));
  EXPECT_EQ(p_.lsn(), 5u);
  EXPECT_EQ(Latest(0, 100, 100000, NoLog(int64_t{1})), "n@3 |5");
  // Lengthening again before a sweep keeps items that the shorter default would have expired.
  Do(WriteKind::kCreate, kA, "s", 200000, NoLog(int64_t{10}));  // 6, expires 200010 under 10
  p_.ExpireItems(200020, NoLog(int64_t{100}));                  // under 100: 200100
  EXPECT_EQ(p_.lsn(), 6u);
  p_.ExpireItems(200100, NoLog(int64_t{100}));
  EXPECT_EQ(p_.lsn(), 7u);
}

TEST_F(ChangeLogTest, TtlDeletesAreLoggedOnlyWhileTheLogIsOn) {
  const auto ttl_only = NoLog(int64_t{10});
  const auto ttl_logged = Logged(3600, int64_t{10});
  Do(WriteKind::kCreate, kA, "a", 100, ttl_only);    // 1, expires 110
  p_.ExpireItems(105, ttl_logged);                   // log on after 1
  Do(WriteKind::kCreate, kA, "b", 106, ttl_logged);  // 2, expires 116
  p_.ExpireItems(120, ttl_logged);                   // a -> 3, b -> 4
  EXPECT_EQ(All(1), "c:b@2 ttl:a@3 ttl:b@4 |4");
}

}  // namespace
}  // namespace cosmos::store
