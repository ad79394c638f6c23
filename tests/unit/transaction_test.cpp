// store/: Transaction, a stored procedure's or trigger's view of one logical partition. Reads see
// the transaction's own writes; Items() overlays them on the committed items in feed order;
// nothing reaches the partition until Commit, which gives all its writes one LSN (and the change
// feed's pages never split them); a transaction
// that ends without Commit leaves the partition as it was. One transaction per logical partition:
// Begin and direct writes to that logical partition wait for it, other logical partitions do not.
// The HTTP side is tests/http/scripts_http_test.cpp.
//
// The concurrency tests assert the order of events (and the LSNs, which record it), never how long
// anything took: a thread that should be blocked is given a moment to run, and the test checks it
// has not got past the point it must wait at.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "common/errors.h"
#include "store/store.h"
#include "test_items.h"

namespace cosmos::store {
namespace {

const std::string kA = R"(["a"])";
const std::string kB = R"(["b"])";
const ItemPolicy kPolicy{std::nullopt, std::nullopt};
const ItemPolicy kLogged{std::nullopt, int64_t{3600}};
const ItemFilter kAll = [](const Item&) { return true; };

// {"id":<id>,"n":<n>} with a resource id and etag derived from what the partition assigned.
ItemPtr NumberItem(const std::string& id, const std::string& pk, int64_t ts, uint64_t seq, uint64_t lsn, int n) {
  auto item = NewItem();
  item->set_id(id);
  item->set_pk(pk);
  item->ts = ts;
  item->seq = seq;
  item->lsn = lsn;
  item->set_rid("rid-" + std::to_string(seq));
  item->set_etag("\"" + id + "-" + std::to_string(n) + "\"");
  auto& draft = item->Draft();
  draft.SetObject();
  auto& a = draft.GetAllocator();
  draft.AddMember("id", json::Value(id.c_str(), a), a);
  draft.AddMember("n", n, a);
  item->Seal();
  return item;
}

Transaction::Maker TxMaker(const std::string& id, const std::string& pk, int n, int64_t ts = 100) {
  return [=](const ItemPtr&, uint64_t seq, uint64_t lsn) { return NumberItem(id, pk, ts, seq, lsn, n); };
}

int N(const ItemPtr& item) { return item ? item->body["n"].GetInt() : -1; }

// "id:n" of each item, in order.
std::string Show(const std::vector<ItemPtr>& items) {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : " ") + std::string(i->id()) + ":" + std::to_string(N(i));
  return out;
}

// The status of the CosmosError `f` throws (0 when it throws none).
template <typename F>
int StatusOf(F&& f) {
  try {
    f();
  } catch (const CosmosError& e) {
    return e.status;
  }
  return 0;
}

// Events recorded from several threads, in the order they happened.
class Events {
 public:
  void Add(const std::string& e) {
    std::lock_guard lock(mu_);
    events_.push_back(e);
  }
  std::string All() const {
    std::lock_guard lock(mu_);
    std::string out;
    for (const auto& e : events_) out += (out.empty() ? "" : " ") + e;
    return out;
  }

 private:
  mutable std::mutex mu_;
  std::vector<std::string> events_;
};

// Lets a thread that should be blocked run for a while (how long does not matter for correctness:
// a correct store keeps it blocked however long it gets).
void GiveItAMoment() { std::this_thread::sleep_for(std::chrono::milliseconds(50)); }

// A safety net for tests whose failure mode is a hang: waits for `f` at most a long while.
constexpr auto kHang = std::chrono::seconds(30);

class TransactionTest : public ::testing::Test {
 protected:
  WriteResult Direct(WriteKind kind, const std::string& pk, const std::string& id, int n, int64_t now = 100) {
    return p_.Write(kind, pk, id, Preconditions{}, now, kPolicy, TxMaker(id, pk, n, now));
  }
  WriteResult Staged(Transaction& tx, WriteKind kind, const std::string& id, int n, const Preconditions& pre = {},
                     int64_t now = 100) {
    return tx.Write(kind, id, pre, now, TxMaker(id, tx.pk(), n, now));
  }
  // "id@lsn" of the latest-version change feed from the beginning, plus "|resume".
  std::string Latest(uint64_t after = 0, size_t max = 100) {
    auto page = p_.LatestChanges(after, max, kAll, 100, kPolicy);
    std::string out;
    for (auto& item : page.entries) out += std::string(item->id()) + "@" + std::to_string(item->lsn) + " ";
    return out + "|" + std::to_string(page.resume_lsn);
  }

  // A direct write run on its own thread (it may wait for a transaction); records "direct-write"
  // in `events` once it returns.
  struct BackgroundWrite {
    std::atomic<bool> done{false};
    WriteResult result;
    int status = -1;
    std::thread thread;
    ~BackgroundWrite() {
      if (thread.joinable()) thread.join();
    }
  };
  // Starts `w` and gives it a moment to reach the partition.
  void StartDirect(BackgroundWrite& w, Events& events, WriteKind kind, const std::string& pk, const std::string& id,
                   int n) {
    std::atomic<bool> started{false};
    w.thread = std::thread([&, kind, pk, id, n] {
      started = true;
      w.status = StatusOf([&] { w.result = Direct(kind, pk, id, n); });
      w.done = true;
      events.Add("direct-write");
    });
    while (!started) std::this_thread::yield();
    GiveItAMoment();
  }

  PhysicalPartition p_{"0", "", "FF"};
};

// ---- reads and writes inside a transaction ----------------------------------------------------

TEST_F(TransactionTest, ReadsSeeOwnWritesThatThePartitionDoesNotYetShow) {
  auto a = Direct(WriteKind::kCreate, kA, "a", 1);
  auto tx = p_.Begin(kA, kPolicy);
  EXPECT_EQ(tx->pk(), kA);
  EXPECT_EQ(&tx->partition(), &p_);
  EXPECT_TRUE(tx->empty());
  EXPECT_EQ(tx->Read("a", 100), a.item);
  EXPECT_EQ(tx->Read("nope", 100), nullptr);

  // A staged create: visible to the transaction only, with no LSN yet.
  auto b = Staged(*tx, WriteKind::kCreate, "b", 2);
  EXPECT_TRUE(b.created);
  EXPECT_EQ(b.lsn, 0u);
  EXPECT_EQ(b.previous, nullptr);
  ASSERT_NE(b.item, nullptr);
  EXPECT_FALSE(tx->empty());
  EXPECT_EQ(tx->Read("b", 100), b.item);
  EXPECT_EQ(p_.Read(kA, "b", 100, kPolicy), nullptr);

  // A staged replace: the transaction reads the new image, the partition still the old one.
  auto a2 = Staged(*tx, WriteKind::kReplace, "a", 3);
  EXPECT_FALSE(a2.created);
  EXPECT_EQ(a2.previous, a.item);
  EXPECT_EQ(a2.item->seq, a.item->seq);  // a replace keeps the feed position
  EXPECT_EQ(N(tx->Read("a", 100)), 3);
  EXPECT_EQ(N(p_.Read(kA, "a", 100, kPolicy)), 1);
  // Replacing a staged item sees the staged image as the current one.
  auto b2 = Staged(*tx, WriteKind::kReplace, "b", 4);
  EXPECT_EQ(b2.previous, b.item);
  EXPECT_EQ(N(tx->Read("b", 100)), 4);

  // A staged delete: gone for the transaction, still there for everyone else.
  auto gone = Staged(*tx, WriteKind::kDelete, "a", 0);
  EXPECT_EQ(gone.item, nullptr);
  EXPECT_EQ(gone.previous, a2.item);
  EXPECT_EQ(tx->Read("a", 100), nullptr);
  EXPECT_EQ(N(p_.Read(kA, "a", 100, kPolicy)), 1);
  // ... so it can be created again, as a new item (a new feed position).
  auto again = Staged(*tx, WriteKind::kCreate, "a", 5);
  EXPECT_TRUE(again.created);
  EXPECT_GT(again.item->seq, b.item->seq);
  EXPECT_EQ(N(tx->Read("a", 100)), 5);

  // ReadByRid sees staged images too.
  EXPECT_EQ(tx->ReadByRid(std::string(b.item->rid()), 100), b2.item);
  EXPECT_EQ(tx->ReadByRid("rid-999", 100), nullptr);
  // Upsert inserts or replaces against what the transaction sees.
  auto up_new = Staged(*tx, WriteKind::kUpsert, "c", 6);
  EXPECT_TRUE(up_new.created);
  auto up_old = Staged(*tx, WriteKind::kUpsert, "c", 7);
  EXPECT_FALSE(up_old.created);
  EXPECT_EQ(up_old.previous, up_new.item);
  EXPECT_EQ(N(tx->Read("c", 100)), 7);
  EXPECT_EQ(p_.lsn(), 1u);
  EXPECT_EQ(p_.Count(), 1u);
}

TEST_F(TransactionTest, WritesAreCheckedAgainstWhatTheTransactionSees) {
  auto a = Direct(WriteKind::kCreate, kA, "a", 1);
  Direct(WriteKind::kCreate, kB, "other", 1);
  auto tx = p_.Begin(kA, kPolicy);
  // 409 on an existing id (committed or staged), 404 on a missing one (never there or staged away).
  EXPECT_EQ(StatusOf([&] { Staged(*tx, WriteKind::kCreate, "a", 2); }), 409);
  Staged(*tx, WriteKind::kCreate, "b", 2);
  EXPECT_EQ(StatusOf([&] { Staged(*tx, WriteKind::kCreate, "b", 3); }), 409);
  EXPECT_EQ(StatusOf([&] { Staged(*tx, WriteKind::kReplace, "zz", 3); }), 404);
  EXPECT_EQ(StatusOf([&] { Staged(*tx, WriteKind::kDelete, "zz", 3); }), 404);
  // Another logical partition's item is not this transaction's.
  EXPECT_EQ(tx->Read("other", 100), nullptr);
  EXPECT_EQ(StatusOf([&] { Staged(*tx, WriteKind::kReplace, "other", 3); }), 404);
  Staged(*tx, WriteKind::kDelete, "b", 0);
  EXPECT_EQ(StatusOf([&] { Staged(*tx, WriteKind::kReplace, "b", 3); }), 404);
  EXPECT_EQ(StatusOf([&] { Staged(*tx, WriteKind::kDelete, "b", 3); }), 404);
  // If-Match against the etag the transaction sees.
  EXPECT_EQ(StatusOf([&] { Staged(*tx, WriteKind::kReplace, "a", 3, Preconditions{.if_match = "\"stale\"", .if_none_match = {}}); }), 412);
  auto a2 = Staged(*tx, WriteKind::kReplace, "a", 3, Preconditions{.if_match = std::string(a.item->etag()), .if_none_match = {}});
  EXPECT_EQ(StatusOf([&] { Staged(*tx, WriteKind::kReplace, "a", 4, Preconditions{.if_match = std::string(a.item->etag()), .if_none_match = {}}); }), 412);
  EXPECT_EQ(StatusOf([&] { Staged(*tx, WriteKind::kDelete, "a", 0, Preconditions{.if_match = std::string(a2.item->etag()), .if_none_match = {}}); }), 0);
  // A rejected write stages nothing: the committed partition gets only what succeeded.
  EXPECT_EQ(tx->Commit(100), 3u);  // after 2, one LSN: b create, b delete, a replace, a delete
  EXPECT_EQ(p_.Read(kA, "a", 100, kPolicy), nullptr);
  EXPECT_EQ(p_.Read(kA, "b", 100, kPolicy), nullptr);
  EXPECT_EQ(p_.Count(), 1u);
}

TEST_F(TransactionTest, ItemsOverlaysStagedWritesInFeedOrder) {
  Direct(WriteKind::kCreate, kA, "a", 1);   // seq 1
  Direct(WriteKind::kCreate, kA, "b", 1);   // seq 2
  Direct(WriteKind::kCreate, kB, "x", 1);   // seq 3, another logical partition
  Direct(WriteKind::kCreate, kA, "c", 1);   // seq 4
  Direct(WriteKind::kReplace, kA, "a", 2);  // a is now the latest LSN; its feed position stays first
  auto tx = p_.Begin(kA, kPolicy);
  EXPECT_EQ(Show(tx->Items(100)), "a:2 b:1 c:1");
  auto b2 = Staged(*tx, WriteKind::kReplace, "b", 9);
  EXPECT_EQ(Show(tx->Items(100)), "a:2 b:9 c:1");
  EXPECT_EQ(tx->Items(100)[1], b2.item);
  Staged(*tx, WriteKind::kDelete, "a", 0);
  EXPECT_EQ(Show(tx->Items(100)), "b:9 c:1");
  Staged(*tx, WriteKind::kCreate, "d", 1);
  EXPECT_EQ(Show(tx->Items(100)), "b:9 c:1 d:1");
  Staged(*tx, WriteKind::kCreate, "a", 3);  // re-created: at the end
  EXPECT_EQ(Show(tx->Items(100)), "b:9 c:1 d:1 a:3");
  Staged(*tx, WriteKind::kDelete, "d", 0);
  EXPECT_EQ(Show(tx->Items(100)), "b:9 c:1 a:3");
  // The partition's own feed is untouched until Commit.
  EXPECT_EQ(Show(p_.Feed(0, 0, 100, kPolicy)), "a:2 b:1 x:1 c:1");
  tx->Commit(100);
  tx.reset();
  EXPECT_EQ(Show(p_.Feed(0, 0, 100, kPolicy)), "b:9 x:1 c:1 a:3");
  // A new transaction sees exactly the committed state.
  auto next = p_.Begin(kA, kPolicy);
  EXPECT_EQ(Show(next->Items(100)), "b:9 c:1 a:3");
  auto onb = p_.Begin(kB, kPolicy);
  EXPECT_EQ(Show(onb->Items(100)), "x:1");
}

TEST_F(TransactionTest, ItemsAndReadsHideExpiredItems) {
  const ItemPolicy ttl{int64_t{10}, std::nullopt};
  p_.Write(WriteKind::kCreate, kA, "old", Preconditions{}, 100, ttl, TxMaker("old", kA, 1, 100));    // 1, expires 110
  p_.Write(WriteKind::kCreate, kA, "young", Preconditions{}, 105, ttl, TxMaker("young", kA, 1, 105));  // 2, 115
  auto tx = p_.Begin(kA, ttl);
  EXPECT_EQ(Show(tx->Items(109)), "old:1 young:1");
  EXPECT_EQ(Show(tx->Items(110)), "young:1");
  EXPECT_EQ(tx->Read("old", 110), nullptr);
  // An expired item is absent for writes too: creating its id again works; the commit first
  // deletes the expired version (its own LSN), then writes.
  auto w = tx->Write(WriteKind::kCreate, "old", Preconditions{}, 110, TxMaker("old", kA, 2, 110));
  EXPECT_TRUE(w.created);
  EXPECT_EQ(tx->Commit(110), 4u);
  tx.reset();
  EXPECT_EQ(N(p_.Read(kA, "old", 110, ttl)), 2);
  EXPECT_EQ(p_.Read(kA, "old", 110, ttl)->lsn, 4u);
}

// ---- commit and rollback ------------------------------------------------------------------------

TEST_F(TransactionTest, EndingWithoutCommitLeavesThePartitionUnchanged) {
  auto a = Direct(WriteKind::kCreate, kA, "a", 1);  // 1, seq 1
  auto b = Direct(WriteKind::kCreate, kA, "b", 1);  // 2, seq 2
  const std::string before = Latest();
  {
    auto tx = p_.Begin(kA, kPolicy);
    auto c = Staged(*tx, WriteKind::kCreate, "c", 1);
    EXPECT_EQ(c.item->seq, 3u);
    Staged(*tx, WriteKind::kReplace, "a", 2);
    Staged(*tx, WriteKind::kDelete, "b", 0);
    Staged(*tx, WriteKind::kUpsert, "d", 1);
  }  // rolled back
  EXPECT_EQ(p_.Count(), 2u);
  EXPECT_EQ(p_.lsn(), 2u);
  EXPECT_EQ(p_.Read(kA, "a", 100, kPolicy), a.item);
  EXPECT_EQ(p_.Read(kA, "b", 100, kPolicy), b.item);
  EXPECT_EQ(p_.Read(kA, "c", 100, kPolicy), nullptr);
  EXPECT_EQ(p_.Read(kA, "d", 100, kPolicy), nullptr);
  EXPECT_EQ(Latest(), before);
  EXPECT_EQ(before, "a@1 b@2 |2");
  // The logical partition is free again: a direct write goes through at once, with the next LSN.
  // (The rolled-back creates used sequence numbers 3 and 4: a gap, as on the service.)
  auto e = Direct(WriteKind::kCreate, kA, "e", 1);
  EXPECT_EQ(e.lsn, 3u);
  EXPECT_EQ(e.item->seq, 5u);
  // The all-versions log holds nothing of the rolled-back transaction either.
  PhysicalPartition logged{"1", "", "FF"};
  logged.ExpireItems(100, kLogged);
  {
    auto tx = logged.Begin(kA, kLogged);
    tx->Write(WriteKind::kCreate, "z", Preconditions{}, 100, TxMaker("z", kA, 1));
  }
  EXPECT_EQ(logged.AllChanges(0, 100, kAll).entries.size(), 0u);
  EXPECT_EQ(logged.lsn(), 0u);
}

// The service commits a transaction (a transactional batch, a stored procedure) with one LSN:
// Microsoft's Python SDK's test_batch_lsn expects the batch's lsn header one past a read's before
// it, however many writes it made; the .NET SDK's PageSizeHint documents that the change feed
// returns a transaction's items together, past the page size if need be.
TEST_F(TransactionTest, CommitGivesAllWritesOneLsn) {
  auto a = Direct(WriteKind::kCreate, kA, "a", 1);  // 1
  Direct(WriteKind::kCreate, kA, "gone", 1);        // 2
  auto tx = p_.Begin(kA, kPolicy);
  auto b = Staged(*tx, WriteKind::kCreate, "b", 1);
  auto a2 = Staged(*tx, WriteKind::kReplace, "a", 2);
  Staged(*tx, WriteKind::kDelete, "gone", 0);
  auto c = Staged(*tx, WriteKind::kUpsert, "c", 1);
  EXPECT_EQ(p_.lsn(), 2u);
  EXPECT_EQ(tx->Commit(100), 3u);
  EXPECT_EQ(p_.lsn(), 3u);
  // The staged images are what was stored, now with the transaction's LSN.
  EXPECT_EQ(b.item->lsn, 3u);
  EXPECT_EQ(a2.item->lsn, 3u);
  EXPECT_EQ(c.item->lsn, 3u);
  EXPECT_EQ(p_.Read(kA, "b", 100, kPolicy), b.item);
  EXPECT_EQ(p_.Read(kA, "a", 100, kPolicy), a2.item);
  EXPECT_EQ(p_.Read(kA, "gone", 100, kPolicy), nullptr);
  EXPECT_EQ(p_.Count(), 3u);
  // The latest-version feed shows them at that LSN, by creation order.
  EXPECT_EQ(Latest(), "a@3 b@3 c@3 |3");
  EXPECT_EQ(Latest(2), "a@3 b@3 c@3 |3");
  EXPECT_EQ(Latest(3), "|3");
  // A page of one takes the whole transaction, and resumes after it.
  EXPECT_EQ(Latest(0, 1), "a@3 b@3 c@3 |3");
  // Committing again changes nothing.
  EXPECT_EQ(tx->Commit(100), 3u);
  EXPECT_EQ(p_.lsn(), 3u);
  tx.reset();
  // Direct writes continue the sequence, one LSN each.
  EXPECT_EQ(Direct(WriteKind::kCreate, kA, "d", 1).lsn, 4u);
  EXPECT_EQ(Direct(WriteKind::kCreate, kA, "e", 1).lsn, 5u);
  EXPECT_EQ(a.item->lsn, 1u);  // the replaced version keeps its own
  EXPECT_EQ(Latest(0, 1), "a@3 b@3 c@3 |3");
  EXPECT_EQ(Latest(0, 4), "a@3 b@3 c@3 d@4 |4");
  EXPECT_EQ(Latest(3, 1), "d@4 |4");
  // Only the items a filter keeps: the page still ends with the whole LSN.
  auto page = p_.LatestChanges(0, 1, [](const Item& i) { return std::string(i.id()) != "a"; }, 100, kPolicy);
  ASSERT_EQ(page.entries.size(), 2u);
  EXPECT_EQ(std::string(page.entries[1]->id()), "c");
  EXPECT_EQ(page.resume_lsn, 3u);
  // Through the logical partition's own index too.
  auto own = p_.LatestChanges(0, 2, kAll, 100, kPolicy, &kA);
  EXPECT_EQ(own.entries.size(), 3u);
  EXPECT_EQ(own.resume_lsn, 3u);
}

TEST_F(TransactionTest, ATransactionThatRenamesAndRewritesAnItemKeepsOneEntryPerItem) {
  Direct(WriteKind::kCreate, kA, "a", 1);  // 1
  auto tx = p_.Begin(kA, kPolicy);
  Staged(*tx, WriteKind::kCreate, "b", 1);
  Staged(*tx, WriteKind::kReplace, "b", 2);
  tx->Write(WriteKind::kReplace, "a", Preconditions{}, 100, TxMaker("renamed", kA, 3));  // a -> renamed
  Staged(*tx, WriteKind::kReplace, "renamed", 4);
  EXPECT_EQ(tx->Commit(100), 2u);
  tx.reset();
  EXPECT_EQ(p_.Read(kA, "a", 100, kPolicy), nullptr);
  EXPECT_EQ(N(p_.Read(kA, "renamed", 100, kPolicy)), 4);
  EXPECT_EQ(N(p_.Read(kA, "b", 100, kPolicy)), 2);
  EXPECT_EQ(p_.Count(), 2u);
  EXPECT_EQ(Latest(), "renamed@2 b@2 |2");
}

TEST_F(TransactionTest, CommitLogsEveryVersionForTheAllVersionsFeed) {
  p_.ExpireItems(100, kLogged);  // the log starts now
  p_.Write(WriteKind::kCreate, kA, "a", Preconditions{}, 100, kLogged, TxMaker("a", kA, 1));  // 1
  auto tx = p_.Begin(kA, kLogged);
  tx->Write(WriteKind::kCreate, "b", Preconditions{}, 100, TxMaker("b", kA, 1));
  tx->Write(WriteKind::kReplace, "a", Preconditions{}, 100, TxMaker("a", kA, 2));
  tx->Write(WriteKind::kDelete, "b", Preconditions{}, 100, TxMaker("b", kA, 0));
  tx->Write(WriteKind::kUpsert, "a", Preconditions{}, 100, TxMaker("a", kA, 3));
  EXPECT_EQ(tx->Commit(107), 2u);
  auto show = [](const ChangePage<Change>& page) {
    std::string out;
    for (auto& ch : page.entries) {
      const char* kind = ch.kind == ChangeKind::kCreate ? "c" : ch.kind == ChangeKind::kReplace ? "r" : "d";
      const ItemPtr& shown = ch.current ? ch.current : ch.previous;
      out += std::string(kind) + ":" + std::string(shown->id()) + "@" + std::to_string(ch.lsn) + "/" + std::to_string(ch.crts) + " ";
    }
    return out + "|" + std::to_string(page.resume_lsn);
  };
  auto page = p_.AllChanges(0, 100, kAll);
  // Every change of the transaction, in order, with its one LSN.
  EXPECT_EQ(show(page), "c:a@1/100 c:b@2/107 r:a@2/107 d:b@2/107 r:a@2/107 |2");
  // Each replace names the version it replaced.
  EXPECT_EQ(page.entries[2].previous->lsn, 1u);
  EXPECT_EQ(page.entries[4].previous, page.entries[2].current);
  // A page never ends inside the transaction.
  EXPECT_EQ(show(p_.AllChanges(0, 2, kAll)), "c:a@1/100 c:b@2/107 r:a@2/107 d:b@2/107 r:a@2/107 |2");
  EXPECT_EQ(show(p_.AllChanges(0, 1, kAll)), "c:a@1/100 |1");
  EXPECT_EQ(show(p_.AllChanges(1, 1, kAll)), "c:b@2/107 r:a@2/107 d:b@2/107 r:a@2/107 |2");
  EXPECT_EQ(show(p_.AllChanges(2, 1, kAll)), "|2");
}

TEST_F(TransactionTest, AnEmptyTransactionCommitsNothing) {
  Direct(WriteKind::kCreate, kA, "a", 1);
  auto tx = p_.Begin(kA, kPolicy);
  EXPECT_TRUE(tx->empty());
  EXPECT_EQ(tx->Commit(100), 1u);
  tx.reset();
  EXPECT_EQ(p_.lsn(), 1u);
  EXPECT_EQ(Latest(), "a@1 |1");
}

// ---- one transaction per logical partition ------------------------------------------------------

TEST_F(TransactionTest, DirectWriteToTheSameLogicalPartitionWaitsForCommit) {
  Events events;
  auto tx = p_.Begin(kA, kPolicy);
  Staged(*tx, WriteKind::kCreate, "t", 1);
  BackgroundWrite direct;
  StartDirect(direct, events, WriteKind::kUpsert, kA, "t", 2);
  EXPECT_FALSE(direct.done.load()) << "a direct write went through while a transaction held its logical partition";
  events.Add("commit");
  EXPECT_EQ(tx->Commit(100), 1u);
  tx.reset();
  direct.thread.join();
  EXPECT_EQ(events.All(), "commit direct-write");
  // The write saw the committed item: it replaced it, after it, with the next LSN.
  EXPECT_EQ(direct.status, 0);
  EXPECT_FALSE(direct.result.created);
  EXPECT_EQ(direct.result.lsn, 2u);
  ASSERT_NE(direct.result.previous, nullptr);
  EXPECT_EQ(direct.result.previous->lsn, 1u);
  EXPECT_EQ(N(p_.Read(kA, "t", 100, kPolicy)), 2);
}

TEST_F(TransactionTest, DirectWriteToTheSameLogicalPartitionWaitsForRollback) {
  Events events;
  auto tx = p_.Begin(kA, kPolicy);
  Staged(*tx, WriteKind::kCreate, "t", 1);
  BackgroundWrite direct;
  StartDirect(direct, events, WriteKind::kCreate, kA, "t", 2);
  EXPECT_FALSE(direct.done.load());
  events.Add("rollback");
  tx.reset();
  direct.thread.join();
  EXPECT_EQ(events.All(), "rollback direct-write");
  // The staged create never happened: the direct create is the first write.
  EXPECT_EQ(direct.status, 0);
  EXPECT_TRUE(direct.result.created);
  EXPECT_EQ(direct.result.lsn, 1u);
  EXPECT_EQ(N(p_.Read(kA, "t", 100, kPolicy)), 2);
}

TEST_F(TransactionTest, DirectWritesToOtherLogicalPartitionsAndReadsDoNotWait) {
  Direct(WriteKind::kCreate, kA, "a", 1);  // 1
  auto tx = p_.Begin(kA, kPolicy);
  Staged(*tx, WriteKind::kReplace, "a", 2);
  // Run on another thread so that a store that wrongly waits fails the test instead of hanging it.
  auto other = std::async(std::launch::async, [&] {
    auto w = Direct(WriteKind::kCreate, kB, "b", 1);
    auto read = p_.Read(kA, "a", 100, kPolicy);  // reads of the held logical partition do not wait
    auto feed = p_.Feed(0, 0, 100, kPolicy);
    auto onb = p_.Begin(kB, kPolicy);  // nor does a transaction on another logical partition
    onb->Write(WriteKind::kCreate, "b2", Preconditions{}, 100, TxMaker("b2", kB, 1));
    onb->Commit(100);
    return std::make_tuple(w.lsn, N(read), feed.size());
  });
  const bool finished = other.wait_for(kHang) == std::future_status::ready;
  EXPECT_TRUE(finished) << "a write to another logical partition waited for the transaction";
  if (!finished) {
    tx.reset();  // let it finish before the partition goes away
    other.wait();
    return;
  }
  auto [lsn, read_n, feed_size] = other.get();
  EXPECT_EQ(lsn, 2u);
  EXPECT_EQ(read_n, 1);  // the committed image, not the staged one
  EXPECT_EQ(feed_size, 2u);
  // The held transaction's own writes come after the other partition's.
  EXPECT_EQ(tx->Commit(100), 4u);
  EXPECT_EQ(p_.Read(kA, "a", 100, kPolicy)->lsn, 4u);
}

TEST_F(TransactionTest, BeginOnTheSameLogicalPartitionWaitsForTheFirstToEnd) {
  Events events;
  auto first = p_.Begin(kA, kPolicy);
  std::atomic<bool> started{false};
  std::atomic<bool> begun{false};
  ItemPtr seen;
  uint64_t second_lsn = 0;
  std::thread t([&] {
    started = true;
    auto second = p_.Begin(kA, kPolicy);
    begun = true;
    events.Add("begin-second");
    seen = second->Read("a", 100);  // the first transaction's committed write
    second->Write(WriteKind::kReplace, "a", Preconditions{}, 100, TxMaker("a", kA, N(seen) + 1));
    second_lsn = second->Commit(100);
  });
  while (!started) std::this_thread::yield();
  GiveItAMoment();
  EXPECT_FALSE(begun.load()) << "a second transaction began while the first held the logical partition";
  Staged(*first, WriteKind::kCreate, "a", 1);
  first->Commit(100);
  events.Add("end-first");
  first.reset();
  t.join();
  EXPECT_EQ(events.All(), "end-first begin-second");
  ASSERT_NE(seen, nullptr);
  EXPECT_EQ(seen->lsn, 1u);
  EXPECT_EQ(second_lsn, 2u);
  EXPECT_EQ(N(p_.Read(kA, "a", 100, kPolicy)), 2);
}

TEST_F(TransactionTest, ConcurrentReadModifyWriteTransactionsLoseNoUpdate) {
  Direct(WriteKind::kCreate, kA, "counter", 0);  // 1
  Direct(WriteKind::kCreate, kB, "counter", 0);  // 2
  constexpr int kThreads = 4;
  constexpr int kEach = 200;
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&, i] {
      const std::string& pk = i % 2 ? kB : kA;
      for (int k = 0; k < kEach; ++k) {
        auto tx = p_.Begin(pk, kPolicy);
        const int n = N(tx->Read("counter", 100));
        std::this_thread::yield();  // invite another thread in between the read and the write
        tx->Write(WriteKind::kReplace, "counter", Preconditions{}, 100, TxMaker("counter", pk, n + 1));
        tx->Commit(100);
      }
    });
  }
  // Direct writes to the same logical partitions interleave with the transactions.
  for (int k = 0; k < kEach; ++k) Direct(WriteKind::kUpsert, kA, "direct-" + std::to_string(k % 10), k);
  for (auto& t : threads) t.join();
  EXPECT_EQ(N(p_.Read(kA, "counter", 100, kPolicy)), kThreads / 2 * kEach);
  EXPECT_EQ(N(p_.Read(kB, "counter", 100, kPolicy)), kThreads / 2 * kEach);
  EXPECT_EQ(p_.lsn(), 2u + kThreads * kEach + kEach);
}

}  // namespace
}  // namespace cosmos::store
