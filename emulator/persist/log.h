// The persistence files: a write-ahead log of records and a snapshot, in the format
// docs/persistence.md describes. This layer knows records as opaque bytes; what they mean (the
// store's changes) is the store's business.
//
//   DIR/snapshot.bin   everything up to its sequence number, replaced atomically (write, fsync,
//                      rename, fsync the directory)
//   DIR/wal.log        the records after it, appended; each one framed with its length, a
//                      CRC-32C and its sequence number
//
// Recovery reads the snapshot and then the log. Only a torn tail (the last record cut short: a
// write in progress when the process or the machine stopped, never acknowledged) is cut off
// without asking. Any other damage (a damaged snapshot, a damaged or missing record with records
// after it, a missing snapshot or log the other file needs) stops start-up with one line and
// changes no file, unless the caller chose Recovery::kSalvage: then the longest valid prefix is
// kept, the damaged files are moved aside within the directory, and what was dropped is listed.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace cosmos::persist {

// Files that cannot be used; what() is one line naming the file and the reason.
class PersistError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// When Append returns.
enum class Durability {
  kFsync,    // the record is on disk (fdatasync; concurrent appends share one sync)
  kProcess,  // the record is in the operating system's hands: it survives the emulator being
             // killed (kill -9), not the machine losing power
};

// What recovery does with damage other than a torn tail.
enum class Recovery {
  kRefuse,   // stop start-up (PersistError), change nothing
  kSalvage,  // keep the longest valid prefix, move the damaged files aside, list what was dropped
};

struct Record {
  uint64_t seq;
  std::string payload;
};

struct Recovered {
  std::optional<std::string> snapshot;  // the snapshot's payload, when there is one
  uint64_t snapshot_seq = 0;            // the last sequence number the snapshot covers
  std::vector<Record> records;          // the log's whole records after it, in order
  uint64_t last_seq = 0;                // the last sequence number recovered (snapshot or log)
  uint64_t discarded_bytes = 0;         // a torn tail cut off the log
  std::string discarded_reason;         // why and where, when discarded_bytes > 0
  // With Recovery::kSalvage: what was dropped, one line each (empty: nothing was damaged), and
  // the directory within the data directory the damaged files were moved to.
  std::vector<std::string> salvaged;
  std::string set_aside;
};

// CRC-32C (Castagnoli), as the files use it.
uint32_t Crc32c(std::string_view data);

class Log {
 public:
  // Creates DIR when missing, takes it for this process (another process, or another Log of this
  // one, holding it is an error), recovers what it holds (see above) and opens the log for
  // appends. Throws PersistError.
  Log(std::string dir, Durability durability, Recovered& recovered, Recovery recovery = Recovery::kRefuse);
  ~Log();
  Log(const Log&) = delete;
  Log& operator=(const Log&) = delete;

  // Appends one record and returns its sequence number once it is as durable as the log's
  // Durability says. Safe from many threads; records are numbered and written in call order.
  // Throws PersistError when the disk refuses the write (the record is then not acknowledged).
  uint64_t Append(std::string_view payload) {
    const uint64_t seq = Write(payload);
    Sync(seq);
    return seq;
  }
  // Append in two steps: Write hands the record to the file and numbers it; Sync returns once
  // every record up to `seq` is durable (at once for Durability::kProcess). Concurrent Syncs share
  // one fdatasync (group commit).
  uint64_t Write(std::string_view payload);
  void Sync(uint64_t seq);

  // Where the log is: its last record and the file's length after it.
  struct Mark {
    uint64_t seq = 0;
    uint64_t bytes = 0;
  };
  Mark Position() const;

  // Replaces the snapshot with `payload`, covering every record up to `at` (a Position taken when
  // the state in `payload` was), and starts the log afresh with the records written since. Appends
  // may go on meanwhile; they wait only while the records after `at` are copied.
  void Checkpoint(std::string_view payload, Mark at);
  // The same, covering every record up to `seq`, which must be the last one written.
  void Checkpoint(std::string_view payload, uint64_t seq);

  const std::string& dir() const { return dir_; }
  // Why the log refuses every append (a write or a sync failed), or empty.
  std::string failure() const;
  uint64_t last_seq() const;
  uint64_t log_bytes() const;

  static constexpr uint64_t kMaxRecordBytes = 64ull << 20;

 private:
  void Recover(Recovered& recovered, Recovery recovery);
  // Moves `name` (in the directory) into `aside` (made when missing, within the directory).
  void SetAside(const std::string& name, std::string& aside);
  // Replaces wal.log with a fresh one: its header (following snapshot sequence `base`) and `records`.
  void WriteFreshLog(uint64_t base, std::string_view records);
  void OpenLogForAppend();

  std::string dir_;
  Durability durability_;
  int fd_ = -1;
  int lock_fd_ = -1;  // DIR/LOCK, held (flock) while the log is open: one process per directory
  mutable std::mutex mu_;
  std::condition_variable synced_;
  uint64_t next_seq_ = 1;
  uint64_t written_seq_ = 0;  // the last record handed to write()
  uint64_t durable_seq_ = 0;  // the last record a sync covered
  bool syncing_ = false;
  uint64_t bytes_ = 0;
  bool failed_ = false;
  std::string failure_;  // why failed_
};

}  // namespace cosmos::persist
