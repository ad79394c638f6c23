// Persistence of the account: every acknowledged change as a record of the write-ahead log
// (persist/log.h), snapshots of the whole state, and recovery at start. docs/persistence.md
// describes the records.
//
// Items are recorded by the store as they change (store::Journal::ItemsChanged: one record per
// change, or per transaction, under the partition's lock, in LSN order); the account's roles by the
// HTTP layer when they are replaced (AccountChanged); a database's metadata (its offer, containers, scripts, users,
// permissions, client encryption keys) is recorded whole by the HTTP pipeline after each request
// that changed it (DatabaseChanged), and the pipeline waits for the records of a request to be
// durable before it answers (AwaitDurable).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <span>
#include <string>
#include <thread>

#include "persist/log.h"
#include "store/store.h"

namespace cosmos::persist {

struct Options {
  std::string dir;
  Durability durability = Durability::kFsync;
  Recovery recovery = Recovery::kRefuse;  // what damage other than a torn tail does (persist/log.h)
  // A checkpoint is taken when the log grows past this many bytes.
  uint64_t checkpoint_bytes = 64ull << 20;
  // Where a failed background checkpoint is reported (the log keeps every record meanwhile).
  std::function<void(const std::string&)> warn;
};

// What recovery found, for the start-up line.
struct RecoveryReport {
  uint64_t snapshot_records = 0;
  uint64_t log_records = 0;
  size_t databases = 0;
  size_t containers = 0;
  size_t items = 0;
  uint64_t discarded_bytes = 0;
  std::string discarded_reason;
  std::vector<std::string> salvaged;  // Recovery::kSalvage: what was dropped
  std::string set_aside;              // ... and where the damaged files went
  double milliseconds = 0;
};

class Persistence final : public store::Journal {
 public:
  // Recovers the account from `options.dir` (throws PersistError: start-up must stop) and from
  // then on records every change of `account` there.
  Persistence(store::Account& account, Options options, RecoveryReport& report);
  ~Persistence() override;
  Persistence(const Persistence&) = delete;
  Persistence& operator=(const Persistence&) = delete;

  void ItemsChanged(const store::PhysicalPartition& p, std::span<const store::Change> changes) override;
  void DatabaseChanged(const std::string& id) override;
  void RangesSplit(const std::string& container_rid, const store::RangeSplit& split) override;
  void AccountChanged() override;
  void AwaitDurable() override;
  void ForgetThread() override;
  std::string Failure() const override { return log_.failure(); }

  // Writes a snapshot of everything and restarts the log after it. Safe while requests run.
  void Checkpoint();

 private:
  void RequestCheckpoint();
  void CheckpointLoop();
  uint64_t Write(const std::string& payload);

  store::Account& account_;
  Options options_;
  std::chrono::steady_clock::time_point created_ = std::chrono::steady_clock::now();  // recovery's start
  Recovered recovered_;  // what the log held at start; emptied once replayed
  Log log_;
  std::mutex meta_mu_;        // database records: serialised and written in one step
  std::mutex checkpoint_mu_;  // one checkpoint at a time
  std::mutex loop_mu_;
  std::condition_variable loop_cv_;
  bool wanted_ = false;
  bool stopping_ = false;
  std::thread loop_;
  struct Recovery;  // what replaying records needs between them
};

}  // namespace cosmos::persist
