// The persistence files (emulator/persist/log.h, docs/persistence.md): records survive a reopen,
// a torn or corrupt tail is cut off at the last whole record, a damaged snapshot stops recovery,
// checkpoints replace the snapshot and restart the log, concurrent appends are numbered in order.
#include "persist/log.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

namespace cosmos::persist {
namespace {

namespace fs = std::filesystem;

std::string FreshDir(const std::string& name) {
  std::string dir = ::testing::TempDir() + "/persist_log_" + name;
  fs::remove_all(dir);
  return dir;
}

std::vector<std::string> Payloads(const Recovered& r) {
  std::vector<std::string> out;
  for (const auto& rec : r.records) out.push_back(rec.payload);
  return out;
}

std::string ErrorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const PersistError& e) {
    return e.what();
  }
  return "";
}

TEST(PersistLog, Crc32cIsCastagnoli) {
  EXPECT_EQ(Crc32c("123456789"), 0xE3069283u);  // the standard check value
  EXPECT_EQ(Crc32c(""), 0u);
}

TEST(PersistLog, RecordsSurviveAReopen) {
  const std::string dir = FreshDir("reopen");
  Recovered r;
  {
    Log log(dir, Durability::kFsync, r);
    EXPECT_FALSE(r.snapshot);
    EXPECT_TRUE(r.records.empty());
    EXPECT_EQ(log.Append("one"), 1u);
    EXPECT_EQ(log.Append(""), 2u);
    EXPECT_EQ(log.Append(std::string(100000, 'x')), 3u);
    EXPECT_EQ(log.log_bytes(), 16u + 3 * 16 + 3 + 100000);
  }
  Log again(dir, Durability::kFsync, r);
  EXPECT_EQ(Payloads(r), (std::vector<std::string>{"one", "", std::string(100000, 'x')}));
  EXPECT_EQ(r.records[2].seq, 3u);
  EXPECT_EQ(r.last_seq, 3u);
  EXPECT_EQ(r.discarded_bytes, 0u);
  EXPECT_EQ(again.Append("four"), 4u);
}

TEST(PersistLog, ATornTailIsCutAtTheLastWholeRecord) {
  const std::string dir = FreshDir("torn");
  Recovered r;
  {
    Log log(dir, Durability::kProcess, r);
    log.Append("a");
    log.Append("b");
    log.Append("cccccc");
  }
  const auto size = fs::file_size(dir + "/wal.log");
  fs::resize_file(dir + "/wal.log", size - 3);  // the last write cut short
  {
    Log log(dir, Durability::kProcess, r);
    EXPECT_EQ(Payloads(r), (std::vector<std::string>{"a", "b"}));
    EXPECT_EQ(r.discarded_bytes, 16u + 6 - 3);
    EXPECT_EQ(r.discarded_reason, "a record cut short at byte " + std::to_string(16 + 2 * 17));
    EXPECT_EQ(fs::file_size(dir + "/wal.log"), 16u + 2 * 17);
    EXPECT_EQ(log.Append("c2"), 3u);
  }
  Log log(dir, Durability::kProcess, r);
  EXPECT_EQ(Payloads(r), (std::vector<std::string>{"a", "b", "c2"}));
  EXPECT_EQ(r.discarded_bytes, 0u);
}

TEST(PersistLog, ACorruptRecordEndsTheLog) {
  const std::string dir = FreshDir("corrupt");
  Recovered r;
  {
    Log log(dir, Durability::kProcess, r);
    log.Append("first");
    log.Append("second");
  }
  {
    std::fstream f(dir + "/wal.log", std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(16 + 21 + 16 + 2);  // inside "second"
    f.put('X');
  }
  Log log(dir, Durability::kProcess, r);
  EXPECT_EQ(Payloads(r), (std::vector<std::string>{"first"}));
  EXPECT_EQ(r.discarded_reason, "a checksum mismatch at byte 37");
  EXPECT_EQ(r.discarded_bytes, 22u);
}

TEST(PersistLog, AGarbageLengthEndsTheLog) {
  const std::string dir = FreshDir("garbage");
  Recovered r;
  { Log log(dir, Durability::kProcess, r); log.Append("ok"); }
  {
    std::ofstream f(dir + "/wal.log", std::ios::app | std::ios::binary);
    f << std::string("\xff\xff\xff\x7f", 4) << std::string(40, 'z');
  }
  Log log(dir, Durability::kProcess, r);
  EXPECT_EQ(Payloads(r), (std::vector<std::string>{"ok"}));
  EXPECT_EQ(r.discarded_reason, "a record length of 2147483647 bytes at byte 34");
}

TEST(PersistLog, CheckpointReplacesTheSnapshotAndRestartsTheLog) {
  const std::string dir = FreshDir("checkpoint");
  Recovered r;
  {
    Log log(dir, Durability::kFsync, r);
    for (int i = 0; i < 5; ++i) log.Append(std::string("r").append(std::to_string(i)));
    log.Checkpoint("state after five", 5);
    EXPECT_EQ(log.log_bytes(), 16u);
    EXPECT_EQ(log.Append("six"), 6u);
    EXPECT_EQ(log.Append("seven"), 7u);
  }
  Log log(dir, Durability::kFsync, r);
  ASSERT_TRUE(r.snapshot);
  EXPECT_EQ(*r.snapshot, "state after five");
  EXPECT_EQ(r.snapshot_seq, 5u);
  EXPECT_EQ(Payloads(r), (std::vector<std::string>{"six", "seven"}));
  EXPECT_EQ(r.records[0].seq, 6u);
  EXPECT_FALSE(fs::exists(dir + "/snapshot.tmp"));
}

TEST(PersistLog, ACheckpointKeepsTheRecordsWrittenAfterItsMark) {
  // The state was captured after record 3; records 4 and 5 were written while the snapshot was.
  const std::string dir = FreshDir("skip");
  Recovered r;
  {
    Log log(dir, Durability::kFsync, r);
    for (int i = 1; i <= 3; ++i) log.Append(std::string("r").append(std::to_string(i)));
    const Log::Mark at = log.Position();
    EXPECT_EQ(at.seq, 3u);
    for (int i = 4; i <= 5; ++i) log.Append(std::string("r").append(std::to_string(i)));
    log.Checkpoint("up to 3", at);
    // The log restarted with records 4 and 5 alone: its header and two 18-byte frames.
    EXPECT_EQ(log.log_bytes(), 16u + 2 * (16 + 2));
    EXPECT_EQ(fs::file_size(dir + "/wal.log"), 16u + 2 * (16 + 2));
    EXPECT_EQ(log.Append("r6"), 6u);
  }
  Log log(dir, Durability::kProcess, r);
  EXPECT_EQ(*r.snapshot, "up to 3");
  EXPECT_EQ(Payloads(r), (std::vector<std::string>{"r4", "r5", "r6"}));
  EXPECT_EQ(r.last_seq, 6u);
  EXPECT_EQ(log.Append("r7"), 7u);
}

TEST(PersistLog, RecordsTheSnapshotAlreadyHoldsAreSkipped) {
  // A checkpoint cut short after the snapshot was renamed and before the log restarted: the old
  // log still holds the records the snapshot covers.
  const std::string dir = FreshDir("skip2");
  Recovered r;
  {
    Log log(dir, Durability::kProcess, r);
    for (int i = 1; i <= 5; ++i) log.Append(std::string("r").append(std::to_string(i)));
  }
  const std::string old_log = dir + "/wal.keep";
  fs::copy_file(dir + "/wal.log", old_log);
  {
    Log log(dir, Durability::kProcess, r);
    log.Checkpoint("up to 5", 5);
  }
  fs::rename(old_log, dir + "/wal.log");
  {
    Log log(dir, Durability::kProcess, r);
    EXPECT_EQ(*r.snapshot, "up to 5");
    EXPECT_TRUE(r.records.empty());
    EXPECT_EQ(r.last_seq, 5u);
    EXPECT_EQ(log.Append("r6"), 6u);
  }
  Log log(dir, Durability::kProcess, r);
  EXPECT_EQ(Payloads(r), (std::vector<std::string>{"r6"}));
}

TEST(PersistLog, AppendsGoOnWhileACheckpointIsWritten) {
  const std::string dir = FreshDir("online");
  Recovered r;
  std::atomic<int> written{0};
  {
    Log log(dir, Durability::kFsync, r);
    std::atomic<bool> stop{false};
    std::vector<std::thread> writers;
    for (int t = 0; t < 4; ++t) {
      writers.emplace_back([&, t] {
        for (int i = 0; !stop || i < 50; ++i) {
          log.Append("w" + std::to_string(t) + "." + std::to_string(i));
          ++written;
        }
      });
    }
    for (int k = 0; k < 5; ++k) {
      const Log::Mark at = log.Position();
      log.Checkpoint(std::string(100000, static_cast<char>('a' + k)) + std::to_string(at.seq), at);
    }
    stop = true;
    for (auto& w : writers) w.join();
  }
  Log log(dir, Durability::kProcess, r);
  ASSERT_TRUE(r.snapshot);
  // Every record after the last snapshot is in the log, numbered on from it.
  EXPECT_EQ(r.last_seq, static_cast<uint64_t>(written.load()));
  EXPECT_EQ(r.snapshot_seq + r.records.size(), r.last_seq);
  for (size_t i = 0; i < r.records.size(); ++i) EXPECT_EQ(r.records[i].seq, r.snapshot_seq + 1 + i);
}

TEST(PersistLog, ADamagedSnapshotStopsRecovery) {
  const std::string dir = FreshDir("badsnap");
  Recovered r;
  {
    Log log(dir, Durability::kFsync, r);
    log.Append("x");
    log.Checkpoint("the whole state", 1);
  }
  {
    std::fstream f(dir + "/snapshot.bin", std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(45);
    f.put('!');
  }
  EXPECT_EQ(ErrorOf([&] { Log log(dir, Durability::kFsync, r); }),
            "the snapshot " + dir + "/snapshot.bin is damaged (checksum mismatch); start-up stopped so that nothing "
            "is lost silently: restore it, or move the data directory away to start empty");
  fs::resize_file(dir + "/snapshot.bin", 20);
  EXPECT_EQ(ErrorOf([&] { Log log(dir, Durability::kFsync, r); }).rfind(
                "the snapshot " + dir + "/snapshot.bin is damaged (shorter than its header)", 0),
            0u);
}

TEST(PersistLog, ALogOfAnotherFormatStopsRecovery) {
  const std::string dir = FreshDir("foreign");
  fs::create_directories(dir);
  std::ofstream(dir + "/wal.log") << "this is not a log at all";
  Recovered r;
  EXPECT_EQ(ErrorOf([&] { Log log(dir, Durability::kFsync, r); }),
            "the log " + dir + "/wal.log is not a log of this format; start-up stopped");
}

TEST(PersistLog, ConcurrentAppendsAreNumberedAndAllKept) {
  const std::string dir = FreshDir("concurrent");
  Recovered r;
  constexpr int kThreads = 8, kEach = 200;
  {
    Log log(dir, Durability::kFsync, r);
    std::vector<std::thread> threads;
    std::vector<std::vector<uint64_t>> seqs(kThreads);
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        for (int i = 0; i < kEach; ++i) seqs[t].push_back(log.Append(std::to_string(t) + ":" + std::to_string(i)));
      });
    }
    for (auto& th : threads) th.join();
    std::set<uint64_t> all;
    for (const auto& s : seqs) {
      EXPECT_TRUE(std::is_sorted(s.begin(), s.end()));
      all.insert(s.begin(), s.end());
    }
    EXPECT_EQ(all.size(), static_cast<size_t>(kThreads * kEach));
    EXPECT_EQ(*all.rbegin(), static_cast<uint64_t>(kThreads * kEach));
  }
  Log log(dir, Durability::kFsync, r);
  ASSERT_EQ(r.records.size(), static_cast<size_t>(kThreads * kEach));
  // Each thread's records are in its own order.
  std::vector<int> next(kThreads, 0);
  for (const auto& rec : r.records) {
    const auto colon = rec.payload.find(':');
    const int t = std::stoi(rec.payload.substr(0, colon));
    EXPECT_EQ(std::stoi(rec.payload.substr(colon + 1)), next[t]++);
  }
}

TEST(PersistLog, ADirectoryServesOneLogAtATime) {
  const std::string dir = FreshDir("lock");
  Recovered r;
  {
    Log first(dir, Durability::kProcess, r);
    first.Append("one");
    EXPECT_EQ(ErrorOf([&] { Log second(dir, Durability::kProcess, r); }),
              "the data directory " + dir + " is in use by another emulator process");
  }
  // Released with the first; a refused start (a damaged snapshot) releases it too.
  {
    Log again(dir, Durability::kProcess, r);
    EXPECT_EQ(Payloads(r), (std::vector<std::string>{"one"}));
    again.Checkpoint("state", 1);
  }
  {
    std::fstream f(dir + "/snapshot.bin", std::ios::binary | std::ios::in | std::ios::out);
    f.seekp(41);
    f.put('#');
  }
  EXPECT_NE(ErrorOf([&] { Log bad(dir, Durability::kProcess, r); }).find("is damaged"), std::string::npos);
  fs::remove(dir + "/snapshot.bin");
  Log after(dir, Durability::kProcess, r);
  EXPECT_TRUE(r.records.empty());
}

TEST(PersistLog, OversizedRecordsAreRefused) {
  const std::string dir = FreshDir("oversized");
  Recovered r;
  Log log(dir, Durability::kProcess, r);
  EXPECT_EQ(ErrorOf([&] { log.Append(std::string(Log::kMaxRecordBytes + 1, 'x')); }),
            "a record of " + std::to_string(Log::kMaxRecordBytes + 1) + " bytes");
  EXPECT_EQ(log.Append("fine"), 1u);
}

}  // namespace
}  // namespace cosmos::persist
