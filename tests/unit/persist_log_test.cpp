// The persistence files (emulator/persist/log.h, docs/persistence.md): records survive a reopen,
// a torn tail is cut off at the last whole record, any other damage (a damaged snapshot or record,
// a missing snapshot or log) stops recovery and changes no file unless salvage is asked for,
// checkpoints replace the snapshot and restart the log, concurrent appends are numbered in order.
#include "persist/log.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
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

std::string Bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// The directory's entries, sorted; a directory's own entries follow it as "name/entry".
std::vector<std::string> Listing(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) out.push_back(fs::relative(e.path(), dir).string());
  std::sort(out.begin(), out.end());
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
    EXPECT_EQ(log.log_bytes(), 24u + 3 * 16 + 3 + 100000);
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
    EXPECT_EQ(r.discarded_reason, "a record cut short at byte " + std::to_string(24 + 2 * 17));
    EXPECT_EQ(fs::file_size(dir + "/wal.log"), 24u + 2 * 17);
    EXPECT_EQ(log.Append("c2"), 3u);
  }
  Log log(dir, Durability::kProcess, r);
  EXPECT_EQ(Payloads(r), (std::vector<std::string>{"a", "b", "c2"}));
  EXPECT_EQ(r.discarded_bytes, 0u);
}

TEST(PersistLog, AFlippedByteInTheLastRecordStopsTheStart) {
  // A whole last record whose checksum fails is damage, not a write cut short.
  const std::string dir = FreshDir("corrupt");
  Recovered r;
  {
    Log log(dir, Durability::kProcess, r);
    log.Append("first");
    log.Append("second");
  }
  {
    std::fstream f(dir + "/wal.log", std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(24 + 21 + 16 + 2);  // inside "second"
    f.put('X');
  }
  const std::string before = Bytes(dir + "/wal.log");
  EXPECT_EQ(ErrorOf([&] { Log log(dir, Durability::kProcess, r); }),
            "the log " + dir + "/wal.log is damaged at byte 45 (a checksum mismatch): the 22 bytes from there to "
            "its end hold 0 whole records that would be lost; 1 record before it is whole; start-up stopped "
            "and no file was changed: restore the file, or start with --recover salvage");
  EXPECT_EQ(Bytes(dir + "/wal.log"), before);
  EXPECT_EQ(Listing(dir), (std::vector<std::string>{"LOCK", "wal.log"}));
}

TEST(PersistLog, AGarbageLengthStopsTheStart) {
  const std::string dir = FreshDir("garbage");
  Recovered r;
  { Log log(dir, Durability::kProcess, r); log.Append("ok"); }
  {
    std::ofstream f(dir + "/wal.log", std::ios::app | std::ios::binary);
    f << std::string("\xff\xff\xff\x7f", 4) << std::string(40, 'z');
  }
  EXPECT_EQ(ErrorOf([&] { Log log(dir, Durability::kProcess, r); }).substr(0, 140),
            ("the log " + dir + "/wal.log is damaged at byte 42 (a record length of 2147483647 bytes): the 44 bytes "
             "from there to its end hold 0 whole records").substr(0, 140));
}

TEST(PersistLog, AZeroFilledTailIsATornWrite) {
  // The file system extended the file and the machine stopped before the bytes were written.
  const std::string dir = FreshDir("zeros");
  Recovered r;
  { Log log(dir, Durability::kProcess, r); log.Append("ok"); }
  { std::ofstream(dir + "/wal.log", std::ios::app | std::ios::binary) << std::string(4096, '\0'); }
  Log log(dir, Durability::kProcess, r);
  EXPECT_EQ(Payloads(r), (std::vector<std::string>{"ok"}));
  EXPECT_EQ(r.discarded_bytes, 4096u);
  EXPECT_EQ(r.discarded_reason, "a checksum mismatch at byte 42");
  EXPECT_EQ(fs::file_size(dir + "/wal.log"), 42u);
}

// A log of 500 records of "r000".."r499" (20-byte frames after the 24-byte header).
void FiveHundredRecords(const std::string& dir) {
  Recovered r;
  Log log(dir, Durability::kProcess, r);
  char text[8];
  for (int i = 0; i < 500; ++i) {
    std::snprintf(text, sizeof text, "r%03d", i);
    log.Append(text);
  }
}

TEST(PersistLog, ADamagedRecordInTheMiddleOfALongLogStopsTheStartUnlessSalvageIsAsked) {
  const std::string dir = FreshDir("middle");
  FiveHundredRecords(dir);
  ASSERT_EQ(fs::file_size(dir + "/wal.log"), 24u + 500 * 20);
  {
    std::fstream f(dir + "/wal.log", std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(1002);  // 10% in: the payload of record 49, which starts at byte 24 + 48 * 20 = 984
    f.put('#');
  }
  const std::string before = Bytes(dir + "/wal.log");
  Recovered r;
  const std::string what = "the log " + dir + "/wal.log is damaged at byte 984 (a checksum mismatch): the 9040 bytes "
                           "from there to its end hold 451 whole records (sequence numbers 50 to 500)";
  EXPECT_EQ(ErrorOf([&] { Log log(dir, Durability::kProcess, r); }),
            what + " that would be lost; 48 records before it are whole; start-up stopped and no file was changed: "
                   "restore the file, or start with --recover salvage");
  EXPECT_EQ(Bytes(dir + "/wal.log"), before);
  EXPECT_EQ(Listing(dir), (std::vector<std::string>{"LOCK", "wal.log"}));
  // Salvage: the 48 records before the damage, the whole file moved aside, what was dropped said.
  {
    Log log(dir, Durability::kProcess, r, Recovery::kSalvage);
    ASSERT_EQ(r.records.size(), 48u);
    EXPECT_EQ(r.records.back().payload, "r047");
    ASSERT_EQ(r.salvaged.size(), 1u);
    EXPECT_EQ(r.salvaged[0], what + ": dropped them and kept the 48 records before it; the whole log was set aside");
    ASSERT_EQ(r.set_aside.rfind(dir + "/damaged-", 0), 0u);
    EXPECT_EQ(Bytes(r.set_aside + "/wal.log"), before);
    EXPECT_EQ(log.Append("next"), 49u);
  }
  Log log(dir, Durability::kProcess, r);
  ASSERT_EQ(r.records.size(), 49u);
  EXPECT_EQ(r.records.back().payload, "next");
  EXPECT_TRUE(r.salvaged.empty());
}

TEST(PersistLog, ASnapshotMissingBesideALogThatFollowsItStopsTheStart) {
  for (const bool records_after : {true, false}) {
    SCOPED_TRACE(records_after);
    const std::string dir = FreshDir("nosnap");
    Recovered r;
    {
      Log log(dir, Durability::kProcess, r);
      for (int i = 0; i < 5; ++i) log.Append("before");
      log.Checkpoint("up to 5", 5);
      if (records_after) {
        log.Append("six");
        log.Append("seven");
      }
    }
    fs::remove(dir + "/snapshot.bin");
    const std::string before = Bytes(dir + "/wal.log");
    const std::string what = "the snapshot " + dir + "/snapshot.bin is missing but the log " + dir +
                             "/wal.log continues from it (record 5): the log's " +
                             (records_after ? "40 bytes from byte 24, holding 2 whole records (sequence numbers 6 to 7)"
                                            : "0 bytes from byte 24, holding 0 whole records") +
                             ", cannot be applied without it";
    EXPECT_EQ(ErrorOf([&] { Log log(dir, Durability::kProcess, r); }),
              what + "; start-up stopped and no file was changed: restore the file, or start with --recover salvage");
    EXPECT_EQ(Bytes(dir + "/wal.log"), before);
    Log log(dir, Durability::kProcess, r, Recovery::kSalvage);
    EXPECT_FALSE(r.snapshot);
    EXPECT_TRUE(r.records.empty());
    EXPECT_EQ(r.salvaged, (std::vector<std::string>{what + ": the log was set aside"}));
    EXPECT_EQ(Bytes(r.set_aside + "/wal.log"), before);
    EXPECT_EQ(log.Append("fresh"), 1u);
  }
}

TEST(PersistLog, ALogMissingOrEmptyBesideASnapshotStopsTheStart) {
  for (const std::string damage : {"missing", "empty", "short"}) {
    SCOPED_TRACE(damage);
    const std::string dir = FreshDir("nolog");
    Recovered r;
    {
      Log log(dir, Durability::kProcess, r);
      log.Append("one");
      log.Checkpoint("up to 1", 1);
      log.Append("two");
    }
    if (damage == "missing") fs::remove(dir + "/wal.log");
    if (damage == "empty") fs::resize_file(dir + "/wal.log", 0);
    if (damage == "short") fs::resize_file(dir + "/wal.log", 10);
    const std::string state = damage == "missing" ? " is missing"
                              : damage == "empty" ? " is 0 bytes long, shorter than its header,"
                                                  : " is 10 bytes long, shorter than its header,";
    const std::string what = "the log " + dir + "/wal.log" + state + " beside the snapshot " + dir +
                             "/snapshot.bin (records 1 to 1): every write logged after the snapshot would be lost";
    EXPECT_EQ(ErrorOf([&] { Log log(dir, Durability::kProcess, r); }),
              what + "; start-up stopped and no file was changed: restore the file, or start with --recover salvage");
    EXPECT_EQ(fs::exists(dir + "/wal.log"), damage != "missing");
    {
      Log log(dir, Durability::kProcess, r, Recovery::kSalvage);
      EXPECT_EQ(*r.snapshot, "up to 1");
      EXPECT_TRUE(r.records.empty());
      EXPECT_EQ(r.salvaged, (std::vector<std::string>{what + ": kept the snapshot's state" +
                                                      (damage == "missing" ? "" : ", the log was set aside")}));
      EXPECT_EQ(log.Append("two again"), 2u);
    }
    Log log(dir, Durability::kProcess, r);  // and it starts as usual from then on
    EXPECT_EQ(Payloads(r), (std::vector<std::string>{"two again"}));
  }
}

TEST(PersistLog, ADamagedSnapshotIsSetAsideWithTheLogThatFollowsItOnSalvage) {
  const std::string dir = FreshDir("badsnap_salvage");
  Recovered r;
  {
    Log log(dir, Durability::kProcess, r);
    log.Append("x");
    log.Checkpoint("the whole state", 1);
    log.Append("y");
  }
  { std::fstream f(dir + "/snapshot.bin", std::ios::in | std::ios::out | std::ios::binary); f.seekp(45); f.put('!'); }
  const std::string snap = Bytes(dir + "/snapshot.bin"), wal = Bytes(dir + "/wal.log");
  Log log(dir, Durability::kProcess, r, Recovery::kSalvage);
  EXPECT_FALSE(r.snapshot);
  EXPECT_TRUE(r.records.empty());
  ASSERT_EQ(r.salvaged.size(), 2u);
  EXPECT_EQ(r.salvaged[0], "the snapshot " + dir + "/snapshot.bin is damaged (checksum mismatch over its 15 bytes "
                           "from byte 40): set aside, with everything it held (records 1 to 1)");
  EXPECT_EQ(Bytes(r.set_aside + "/snapshot.bin"), snap);
  EXPECT_EQ(Bytes(r.set_aside + "/wal.log"), wal);
}

TEST(PersistLog, ALogOfTheFirstFormatIsStillRead) {
  // Version 1: a 16-byte header without the snapshot sequence.
  const std::string dir = FreshDir("v1");
  fs::create_directories(dir);
  std::string file("CEMUWAL\0\1\0\0\0\0\0\0\0", 16);
  for (uint64_t seq = 1; seq <= 2; ++seq) {
    const std::string payload = "p" + std::to_string(seq);
    std::string seq_bytes;
    for (int i = 0; i < 8; ++i) seq_bytes.push_back(static_cast<char>((seq >> (8 * i)) & 0xff));
    const uint32_t crc = Crc32c(seq_bytes + payload);
    for (uint32_t v : {static_cast<uint32_t>(payload.size()), crc})
      for (int i = 0; i < 4; ++i) file.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
    file += seq_bytes + payload;
  }
  std::ofstream(dir + "/wal.log", std::ios::binary) << file;
  Recovered r;
  {
    Log log(dir, Durability::kProcess, r);
    EXPECT_EQ(Payloads(r), (std::vector<std::string>{"p1", "p2"}));
    EXPECT_EQ(log.Append("p3"), 3u);
  }
  Log log(dir, Durability::kProcess, r);
  EXPECT_EQ(Payloads(r), (std::vector<std::string>{"p1", "p2", "p3"}));
}

TEST(PersistLog, CheckpointReplacesTheSnapshotAndRestartsTheLog) {
  const std::string dir = FreshDir("checkpoint");
  Recovered r;
  {
    Log log(dir, Durability::kFsync, r);
    for (int i = 0; i < 5; ++i) log.Append(std::string("r").append(std::to_string(i)));
    log.Checkpoint("state after five", 5);
    EXPECT_EQ(log.log_bytes(), 24u);
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
    EXPECT_EQ(log.log_bytes(), 24u + 2 * (16 + 2));
    EXPECT_EQ(fs::file_size(dir + "/wal.log"), 24u + 2 * (16 + 2));
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
            "the snapshot " + dir + "/snapshot.bin is damaged (checksum mismatch over its 15 bytes from byte 40): "
            "everything it holds would be lost; start-up stopped and no file was changed: restore the file, or "
            "start with --recover salvage");
  fs::resize_file(dir + "/snapshot.bin", 20);
  EXPECT_EQ(ErrorOf([&] { Log log(dir, Durability::kFsync, r); }).rfind(
                "the snapshot " + dir + "/snapshot.bin is damaged (shorter than its header: 20 bytes)", 0),
            0u);
}

TEST(PersistLog, ALogOfAnotherFormatStopsRecovery) {
  const std::string dir = FreshDir("foreign");
  fs::create_directories(dir);
  std::ofstream(dir + "/wal.log") << "this is not a log at all";
  Recovered r;
  EXPECT_EQ(ErrorOf([&] { Log log(dir, Durability::kFsync, r); }),
            "the log " + dir + "/wal.log is not a log of this format; start-up stopped and no file was changed");
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
  Log after(dir, Durability::kProcess, r, Recovery::kSalvage);
  EXPECT_FALSE(r.snapshot);
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
