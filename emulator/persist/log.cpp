#include "persist/log.h"
#include "util/files.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <boost/crc.hpp>

#include <cerrno>
#include <cstring>
#include <ctime>

namespace cosmos::persist {
namespace {

constexpr char kLogMagic[8] = {'C', 'E', 'M', 'U', 'W', 'A', 'L', '\0'};
constexpr char kSnapshotMagic[8] = {'C', 'E', 'M', 'U', 'S', 'N', 'A', 'P'};
constexpr uint32_t kVersion = 1;             // of the snapshot, and of the first log format
constexpr uint32_t kLogVersion = 2;          // the log format written
constexpr size_t kLogHeaderV1Bytes = 16;     // magic, version 1, reserved
constexpr size_t kLogHeaderBytes = 24;       // magic, version 2, reserved, the snapshot sequence it follows
constexpr size_t kRecordHeaderBytes = 16;    // length, crc, seq
constexpr size_t kSnapshotHeaderBytes = 40;  // magic, version, reserved, seq, length, crc, reserved

void PutU32(std::string& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
void PutU64(std::string& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
uint32_t GetU32(const char* p) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(p[i]);
  return v;
}
uint64_t GetU64(const char* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(p[i]);
  return v;
}

std::string Errno(const std::string& what, const std::string& path) {
  return what + " " + path + ": " + std::strerror(errno);
}

// The whole file, or nullopt when it does not exist.
std::optional<std::string> ReadFile(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return std::nullopt;
    throw PersistError(Errno("cannot open", path));
  }
  std::string data;
  char buf[1 << 16];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      ::close(fd);
      errno = err;
      throw PersistError(Errno("cannot read", path));
    }
    if (n == 0) break;
    data.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return data;
}

void Check(const std::string& error) {
  if (!error.empty()) throw PersistError(error);
}

std::string LogHeader(uint64_t base) {
  std::string h(kLogMagic, sizeof kLogMagic);
  PutU32(h, kLogVersion);
  PutU32(h, 0);
  PutU64(h, base);
  return h;
}

using Crc32cState = boost::crc_optimal<32, 0x1EDC6F41, 0xFFFFFFFF, 0xFFFFFFFF, true, true>;

// Over the sequence number and the payload, so a record moved to another place does not pass.
uint32_t RecordCrc(uint64_t seq, std::string_view payload) {
  std::string seq_bytes;
  PutU64(seq_bytes, seq);
  Crc32cState crc;
  crc.process_bytes(seq_bytes.data(), seq_bytes.size());
  crc.process_bytes(payload.data(), payload.size());
  return crc.checksum();
}

// What snapshot.bin holds. `damage` is set when it is present but unusable.
struct SnapshotScan {
  bool present = false;
  uint64_t bytes = 0;
  uint64_t seq = 0;  // the last record it covers (from its header, when the header is whole)
  std::string payload;
  std::string damage;  // why it cannot be used, with where
};

SnapshotScan ScanSnapshot(const std::string& path) {
  SnapshotScan out;
  auto data = ReadFile(path);
  if (!data) return out;
  out.present = true;
  out.bytes = data->size();
  if (data->size() < kSnapshotHeaderBytes) {
    out.damage = "shorter than its header: " + std::to_string(data->size()) + " bytes";
    return out;
  }
  if (std::memcmp(data->data(), kSnapshotMagic, sizeof kSnapshotMagic) != 0) {
    out.damage = "not a snapshot file";
    return out;
  }
  if (GetU32(data->data() + 8) != kVersion) {
    out.damage = "format version " + std::to_string(GetU32(data->data() + 8));
    return out;
  }
  out.seq = GetU64(data->data() + 16);
  const uint64_t length = GetU64(data->data() + 24);
  const uint32_t crc = GetU32(data->data() + 32);
  if (length != data->size() - kSnapshotHeaderBytes) {
    out.damage = "holds " + std::to_string(data->size() - kSnapshotHeaderBytes) + " bytes after its header at byte " +
                 std::to_string(kSnapshotHeaderBytes) + ", its header says " + std::to_string(length);
    return out;
  }
  if (Crc32c(std::string_view(*data).substr(kSnapshotHeaderBytes)) != crc) {
    out.damage = "checksum mismatch over its " + std::to_string(length) + " bytes from byte " +
                 std::to_string(kSnapshotHeaderBytes);
    return out;
  }
  out.payload = data->substr(kSnapshotHeaderBytes);
  return out;
}

// Whole records (their checksums match) found at any offset of `data` from `from` on: how many,
// and the sequence numbers of the first and the last.
struct Found {
  uint64_t count = 0, first = 0, last = 0;
};

Found WholeRecordsFrom(std::string_view data, size_t from) {
  Found out;
  size_t pos = from;
  while (data.size() >= kRecordHeaderBytes && pos <= data.size() - kRecordHeaderBytes) {
    const uint32_t length = GetU32(data.data() + pos);
    const uint64_t seq = GetU64(data.data() + pos + 8);
    if (seq > 0 && length <= Log::kMaxRecordBytes && data.size() - pos - kRecordHeaderBytes >= length &&
        RecordCrc(seq, data.substr(pos + kRecordHeaderBytes, length)) == GetU32(data.data() + pos + 4)) {
      if (out.count++ == 0) out.first = seq;
      out.last = seq;
      pos += kRecordHeaderBytes + length;
      continue;
    }
    ++pos;
  }
  return out;
}

// What wal.log holds, read after a snapshot covering records up to `snapshot_seq`.
struct LogScan {
  bool present = false;
  uint64_t bytes = 0;                 // the file's length
  size_t header_bytes = 0;            // 0: the header is cut short (or the file is empty)
  std::optional<uint64_t> base;       // the snapshot sequence the log follows (format 2)
  std::vector<Record> records;        // the whole records after the snapshot, in order
  uint64_t first_seq = 0;             // the first record's sequence number in the file (0: none)
  uint64_t last_seq = 0;              // the last one kept (the snapshot's when none)
  uint64_t good = 0;                  // the bytes of the header and the records kept
  std::string data;                   // the file as read (recovery reuses it: read once)
  std::string why;                    // what ends the log before its end, with where
  bool torn = false;                  // ... and it is a torn tail
  Found after;                        // whole records after the end
};

LogScan ScanLog(const std::string& path, uint64_t snapshot_seq) {
  LogScan out;
  out.last_seq = snapshot_seq;
  auto file = ReadFile(path);
  if (!file) return out;
  out.present = true;
  out.data = std::move(*file);
  const std::string* data = &out.data;
  out.bytes = data->size();
  if (data->size() >= 12 && std::memcmp(data->data(), kLogMagic, sizeof kLogMagic) == 0 &&
      GetU32(data->data() + 8) == kLogVersion && data->size() >= kLogHeaderBytes) {
    out.header_bytes = kLogHeaderBytes;
    out.base = GetU64(data->data() + 16);
  } else if (data->size() >= 12 && std::memcmp(data->data(), kLogMagic, sizeof kLogMagic) == 0 &&
             GetU32(data->data() + 8) == kVersion && data->size() >= kLogHeaderV1Bytes) {
    out.header_bytes = kLogHeaderV1Bytes;  // the first format: no base in the header
  } else if (data->size() < kLogHeaderBytes &&
             std::string_view(*data).substr(0, std::min(data->size(), sizeof kLogMagic)) ==
                 std::string_view(kLogMagic, std::min(data->size(), sizeof kLogMagic))) {
    return out;  // a header cut short
  } else {
    throw PersistError("the log " + path + " is not a log of this format; start-up stopped and no file was changed");
  }
  std::string_view all(*data);
  size_t pos = out.header_bytes;
  uint64_t prev = snapshot_seq;
  bool kept_any = false;
  while (pos < all.size()) {
    const size_t left = all.size() - pos;
    bool cut_short = false;
    if (left < kRecordHeaderBytes) {
      out.why = "a record header cut short";
      cut_short = true;
    } else {
      const uint32_t length = GetU32(all.data() + pos);
      const uint64_t seq = GetU64(all.data() + pos + 8);
      if (length > Log::kMaxRecordBytes) {
        out.why = "a record length of " + std::to_string(length) + " bytes";
      } else if (left - kRecordHeaderBytes < length) {
        out.why = "a record cut short";
        cut_short = true;
      } else if (RecordCrc(seq, all.substr(pos + kRecordHeaderBytes, length)) != GetU32(all.data() + pos + 4)) {
        out.why = "a checksum mismatch";
      } else {
        if (out.first_seq == 0) out.first_seq = seq;
        if (seq <= snapshot_seq && !kept_any) {
          pos += kRecordHeaderBytes + length;  // already in the snapshot (a checkpoint was cut short)
          continue;
        }
        if (seq != prev + 1) {
          out.why = "sequence number " + std::to_string(seq) + " after " + std::to_string(prev);
        } else {
          out.records.push_back(Record{seq, std::string(all.substr(pos + kRecordHeaderBytes, length))});
          prev = seq;
          kept_any = true;
          pos += kRecordHeaderBytes + length;
          continue;
        }
      }
    }
    // The log ends here. A torn tail is a record cut short (or bytes the file system extended
    // the file with and never wrote: zeros) with no whole record after it.
    out.after = WholeRecordsFrom(all, pos);
    const bool zeros = all.substr(pos).find_first_not_of('\0') == std::string_view::npos;
    out.torn = out.after.count == 0 && (cut_short || zeros);
    out.why += " at byte " + std::to_string(pos);
    break;
  }
  out.good = pos;
  out.last_seq = prev;
  return out;
}

std::string Plural(uint64_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

// "3 records (sequence numbers 7 to 9)"
std::string RecordsText(uint64_t count, uint64_t first, uint64_t last) {
  std::string out = Plural(count, "whole record", "whole records");
  if (count == 1) out += " (sequence number " + std::to_string(first) + ")";
  if (count > 1) out += " (sequence numbers " + std::to_string(first) + " to " + std::to_string(last) + ")";
  return out;
}

std::string Stopped(const std::string& what) {
  return what + "; start-up stopped and no file was changed: restore the file, or start with --recover salvage";
}

}  // namespace

uint32_t Crc32c(std::string_view data) {
  Crc32cState crc;
  crc.process_bytes(data.data(), data.size());
  return crc.checksum();
}

Log::Log(std::string dir, Durability durability, Recovered& recovered, Recovery recovery)
    : dir_(std::move(dir)), durability_(durability) {
  // Its parents too, as mkdir -p would.
  for (size_t i = 1; i <= dir_.size(); ++i) {
    if (i < dir_.size() && dir_[i] != '/') continue;
    const std::string part = dir_.substr(0, i);
    if (::mkdir(part.c_str(), 0700) != 0 && errno != EEXIST)
      throw PersistError(Errno("cannot create the data directory", part));
  }
  // Two emulators appending to one log would interleave their records: the directory is taken.
  const std::string lock_path = dir_ + "/LOCK";
  lock_fd_ = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (lock_fd_ < 0) throw PersistError(Errno("cannot open", lock_path));
  if (::flock(lock_fd_, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    ::close(lock_fd_);
    lock_fd_ = -1;
    if (err == EWOULDBLOCK)
      throw PersistError("the data directory " + dir_ + " is in use by another emulator process");
    errno = err;
    throw PersistError(Errno("cannot lock", lock_path));
  }
  try {
    Recover(recovered, recovery);
  } catch (...) {
    // No destructor runs for a constructor that throws: give the files and the directory back.
    if (fd_ >= 0) ::close(fd_);
    ::close(lock_fd_);
    throw;
  }
}

// Reads both files, decides, and only then changes anything: a refusal leaves every file as it was.
void Log::Recover(Recovered& recovered, Recovery recovery) {
  recovered = Recovered{};
  const std::string snap_path = dir_ + "/snapshot.bin", log_path = dir_ + "/wal.log";
  const bool salvage = recovery == Recovery::kSalvage;
  auto& dropped = recovered.salvaged;
  std::string aside;  // where damaged files went (made on first use)

  SnapshotScan snap = ScanSnapshot(snap_path);
  if (!snap.damage.empty()) {
    const std::string what = "the snapshot " + snap_path + " is damaged (" + snap.damage + ")";
    if (!salvage) throw PersistError(Stopped(what + ": everything it holds would be lost"));
    SetAside("snapshot.bin", aside);
    dropped.push_back(what + ": set aside, with everything it held" +
                      (snap.seq ? " (records 1 to " + std::to_string(snap.seq) + ")" : std::string()));
    snap = SnapshotScan{};
  }
  LogScan log = ScanLog(log_path, snap.present ? snap.seq : 0);
  const uint64_t snap_seq = snap.present ? snap.seq : 0;
  const uint64_t log_records = log.records.size();

  // The log needs a snapshot it does not have: it follows a checkpoint (its header says so, or its
  // first record is not the next one) that this snapshot does not reach.
  const uint64_t needs = log.base ? *log.base : log.first_seq > 0 ? log.first_seq - 1 : 0;
  if (needs > snap_seq) {
    std::string what = snap.present ? "the log " + log_path + " continues from record " + std::to_string(needs) +
                                          " but the snapshot " + snap_path + " holds only records 1 to " +
                                          std::to_string(snap_seq)
                                    : "the snapshot " + snap_path + " is missing but the log " + log_path +
                                          " continues from it (record " + std::to_string(needs) + ")";
    const Found all = WholeRecordsFrom(log.data, log.header_bytes);
    what += ": the log's " + Plural(log.bytes - log.header_bytes, "byte", "bytes") + " from byte " +
            std::to_string(log.header_bytes) + ", holding " +
            RecordsText(all.count, all.first, all.last) + ", cannot be applied without it";
    if (!salvage) throw PersistError(Stopped(what));
    SetAside("wal.log", aside);
    dropped.push_back(what + ": the log was set aside");
    WriteFreshLog(snap_seq, {});
    log = LogScan{};
    log.last_seq = snap_seq;
  } else if (snap.present && log.header_bytes == 0) {
    // Beside a snapshot the log is never missing or empty: a checkpoint replaces it whole.
    const std::string what = "the log " + log_path + (log.present ? " is " + Plural(log.bytes, "byte", "bytes") + " long, shorter than its header,"
                                                                  : std::string(" is missing")) +
                             " beside the snapshot " + snap_path + " (records 1 to " + std::to_string(snap_seq) +
                             "): every write logged after the snapshot would be lost";
    if (!salvage) throw PersistError(Stopped(what));
    if (log.present) SetAside("wal.log", aside);
    dropped.push_back(what + ": kept the snapshot's state" + (log.present ? ", the log was set aside" : ""));
    WriteFreshLog(snap_seq, {});
  } else if (!log.why.empty() && !log.torn) {
    const uint64_t follow = log.bytes - log.good;
    const std::string what = "the log " + log_path + " is damaged at byte " + std::to_string(log.good) + " (" +
                             log.why.substr(0, log.why.rfind(" at byte ")) + "): the " +
                             Plural(follow, "byte", "bytes") + " from there to its end hold " +
                             RecordsText(log.after.count, log.after.first, log.after.last);
    if (!salvage)
      throw PersistError(Stopped(what + " that would be lost; " + Plural(log_records, "record", "records") +
                                 (log_records == 1 ? " before it is whole" : " before it are whole")));
    const std::string kept = log.data.substr(log.header_bytes, log.good - log.header_bytes);
    SetAside("wal.log", aside);
    dropped.push_back(what + ": dropped them and kept the " + Plural(log_records, "record", "records") +
                      " before it; the whole log was set aside");
    WriteFreshLog(log.base.value_or(snap_seq), kept);
    log.why.clear();
  } else if (!log.present || log.header_bytes == 0) {
    // A new directory, or a log whose creation was cut short before anything was written to it.
    WriteFreshLog(0, {});
  }
  if (!aside.empty()) recovered.set_aside = aside;

  if (snap.present) {
    recovered.snapshot = std::move(snap.payload);
    recovered.snapshot_seq = snap_seq;
  }
  recovered.records = std::move(log.records);
  recovered.last_seq = log.last_seq;
  next_seq_ = recovered.last_seq + 1;
  written_seq_ = durable_seq_ = recovered.last_seq;
  OpenLogForAppend();
  bytes_ = static_cast<uint64_t>(::lseek(fd_, 0, SEEK_END));
  if (log.torn) {
    // Cut the torn tail off so that appends continue after the last whole record.
    recovered.discarded_bytes = log.bytes - log.good;
    recovered.discarded_reason = log.why;
    if (::ftruncate(fd_, static_cast<off_t>(log.good)) != 0 || ::fsync(fd_) != 0)
      throw PersistError(Errno("cannot truncate", log_path));
    bytes_ = log.good;
  }
  if (::lseek(fd_, static_cast<off_t>(bytes_), SEEK_SET) < 0) throw PersistError(Errno("cannot seek", log_path));
}

void Log::SetAside(const std::string& name, std::string& aside) {
  if (aside.empty()) {
    char stamp[32];
    const std::time_t now = std::time(nullptr);
    std::tm tm{};
    ::gmtime_r(&now, &tm);
    std::strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &tm);
    for (int n = 1;; ++n) {
      aside = dir_ + "/damaged-" + stamp + (n > 1 ? "-" + std::to_string(n) : std::string());
      if (::mkdir(aside.c_str(), 0700) == 0) break;
      if (errno != EEXIST) throw PersistError(Errno("cannot create", aside));
    }
  }
  const std::string from = dir_ + "/" + name, to = aside + "/" + name;
  if (::rename(from.c_str(), to.c_str()) != 0) throw PersistError(Errno("cannot move " + from + " to", to));
  Check(util::SyncPath(aside, true));
  Check(util::SyncPath(dir_, true));
}

void Log::WriteFreshLog(uint64_t base, std::string_view records) {
  // Written beside and renamed into place, so that a crash leaves the old file or the new one.
  const std::string path = dir_ + "/wal.log", next = dir_ + "/wal.tmp";
  std::string fresh = LogHeader(base);
  fresh.append(records);
  Check(util::WriteFile(next, fresh, 0600, true));
  if (::rename(next.c_str(), path.c_str()) != 0) throw PersistError(Errno("cannot rename", next));
  Check(util::SyncPath(dir_, true));
}

Log::~Log() {
  if (fd_ >= 0) ::close(fd_);
  if (lock_fd_ >= 0) ::close(lock_fd_);  // releases the directory
}

void Log::OpenLogForAppend() {
  const std::string path = dir_ + "/wal.log";
  if (fd_ >= 0) ::close(fd_);
  fd_ = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd_ < 0) throw PersistError(Errno("cannot open", path));
}

uint64_t Log::Write(std::string_view payload) {
  if (payload.size() > kMaxRecordBytes) throw PersistError("a record of " + std::to_string(payload.size()) + " bytes");
  std::string frame;
  frame.reserve(kRecordHeaderBytes + payload.size());
  std::lock_guard<std::mutex> lock(mu_);
  if (failed_) throw PersistError("the log refuses every write since an earlier one failed (" + failure_ + ")");
  const uint64_t seq = next_seq_;
  PutU32(frame, static_cast<uint32_t>(payload.size()));
  PutU32(frame, RecordCrc(seq, payload));
  PutU64(frame, seq);
  frame.append(payload);
  if (auto err = util::WriteAll(fd_, frame, dir_ + "/wal.log"); !err.empty()) {
    failed_ = true;  // a partial frame may be on disk: nothing more may follow it
    failure_ = err;
    throw PersistError(err);
  }
  ++next_seq_;
  written_seq_ = seq;
  bytes_ += frame.size();
  return seq;
}

void Log::Sync(uint64_t seq) {
  if (durability_ == Durability::kProcess) return;
  std::unique_lock<std::mutex> lock(mu_);
  // Group commit: one thread syncs for everything written so far; the others wait for it.
  while (durable_seq_ < seq) {
    if (failed_) throw PersistError(failure_);
    if (syncing_) {
      synced_.wait(lock);
      continue;
    }
    syncing_ = true;
    const uint64_t covers = written_seq_;
    const int fd = fd_;  // Checkpoint waits for !syncing_ before it replaces the file
    lock.unlock();
    const bool ok = ::fdatasync(fd) == 0;
    const int err = errno;
    lock.lock();
    syncing_ = false;
    if (ok) {
      durable_seq_ = std::max(durable_seq_, covers);
    } else {
      failed_ = true;
      failure_ = "cannot sync " + dir_ + "/wal.log: " + std::strerror(err);
    }
    synced_.notify_all();
  }
}

Log::Mark Log::Position() const {
  std::lock_guard<std::mutex> lock(mu_);
  return {written_seq_, bytes_};
}

void Log::Checkpoint(std::string_view payload, uint64_t seq) {
  Mark at = Position();
  if (seq != at.seq) throw PersistError("a checkpoint must cover the last record written");
  Checkpoint(payload, at);
}

void Log::Checkpoint(std::string_view payload, Mark at) {
  std::string file(kSnapshotMagic, sizeof kSnapshotMagic);
  PutU32(file, kVersion);
  PutU32(file, 0);
  PutU64(file, at.seq);
  PutU64(file, payload.size());
  PutU32(file, Crc32c(payload));
  PutU32(file, 0);
  file.append(payload);
  const std::string tmp = dir_ + "/snapshot.tmp", final_path = dir_ + "/snapshot.bin";
  Check(util::WriteFile(tmp, file, 0600, true));
  if (::rename(tmp.c_str(), final_path.c_str()) != 0) throw PersistError(Errno("cannot rename", tmp));
  Check(util::SyncPath(dir_, true));
  // The snapshot is durable. A crash before the log is replaced leaves the old log, whose records
  // up to `at` recovery skips. The log restarts with the records written since `at`.
  std::unique_lock<std::mutex> lock(mu_);
  synced_.wait(lock, [this] { return !syncing_; });
  if (failed_) throw PersistError("the log " + dir_ + "/wal.log failed earlier");
  if (at.seq > written_seq_ || at.bytes > bytes_) throw PersistError("a checkpoint past the last record");
  const std::string path = dir_ + "/wal.log", next = dir_ + "/wal.tmp";
  std::string fresh = LogHeader(at.seq);
  if (at.bytes < bytes_) {
    int in = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (in < 0) throw PersistError(Errno("cannot open", path));
    std::string tail(bytes_ - at.bytes, '\0');
    size_t done = 0;
    while (done < tail.size()) {
      ssize_t n = ::pread(in, tail.data() + done, tail.size() - done, static_cast<off_t>(at.bytes + done));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        ::close(in);
        throw PersistError("cannot read " + path + " to carry its last records over");
      }
      done += static_cast<size_t>(n);
    }
    ::close(in);
    fresh += tail;
  }
  Check(util::WriteFile(next, fresh, 0600, true));
  if (::rename(next.c_str(), path.c_str()) != 0) throw PersistError(Errno("cannot rename", next));
  Check(util::SyncPath(dir_, true));
  if (fd_ >= 0) ::close(fd_);
  fd_ = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd_ < 0) {
    failed_ = true;
    failure_ = Errno("cannot open", path);
    throw PersistError(failure_);
  }
  bytes_ = fresh.size();
  if (::lseek(fd_, static_cast<off_t>(bytes_), SEEK_SET) < 0) {
    failed_ = true;
    failure_ = Errno("cannot seek", path);
    throw PersistError(failure_);
  }
  // Every record written so far is in the new file, which was synced.
  durable_seq_ = std::max(durable_seq_, written_seq_);
  synced_.notify_all();
}

std::string Log::failure() const {
  std::lock_guard<std::mutex> lock(mu_);
  return failed_ ? "the log refuses every write since an earlier one failed (" + failure_ + ")" : std::string();
}

uint64_t Log::last_seq() const {
  std::lock_guard<std::mutex> lock(mu_);
  return written_seq_;
}

uint64_t Log::log_bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return bytes_;
}

}  // namespace cosmos::persist
