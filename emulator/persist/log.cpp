#include "persist/log.h"
#include "util/files.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <boost/crc.hpp>

#include <cerrno>
#include <cstring>

namespace cosmos::persist {
namespace {

constexpr char kLogMagic[8] = {'C', 'E', 'M', 'U', 'W', 'A', 'L', '\0'};
constexpr char kSnapshotMagic[8] = {'C', 'E', 'M', 'U', 'S', 'N', 'A', 'P'};
constexpr uint32_t kVersion = 1;
constexpr size_t kLogHeaderBytes = 16;       // magic, version, reserved
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

std::string LogHeader() {
  std::string h(kLogMagic, sizeof kLogMagic);
  PutU32(h, kVersion);
  PutU32(h, 0);
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

// Reads the snapshot; a damaged one throws.
void ReadSnapshot(const std::string& path, Recovered& out) {
  auto data = ReadFile(path);
  if (!data) return;
  auto bad = [&](const std::string& why) {
    return PersistError("the snapshot " + path + " is damaged (" + why +
                        "); start-up stopped so that nothing is lost silently: restore it, or move the "
                        "data directory away to start empty");
  };
  if (data->size() < kSnapshotHeaderBytes) throw bad("shorter than its header");
  if (std::memcmp(data->data(), kSnapshotMagic, sizeof kSnapshotMagic) != 0) throw bad("not a snapshot file");
  if (GetU32(data->data() + 8) != kVersion) throw bad("format version " + std::to_string(GetU32(data->data() + 8)));
  const uint64_t seq = GetU64(data->data() + 16);
  const uint64_t length = GetU64(data->data() + 24);
  const uint32_t crc = GetU32(data->data() + 32);
  if (length != data->size() - kSnapshotHeaderBytes)
    throw bad("holds " + std::to_string(data->size() - kSnapshotHeaderBytes) + " bytes, its header says " +
              std::to_string(length));
  std::string payload = data->substr(kSnapshotHeaderBytes);
  if (Crc32c(payload) != crc) throw bad("checksum mismatch");
  out.snapshot = std::move(payload);
  out.snapshot_seq = seq;
  out.last_seq = seq;
}

// Reads the log's whole records after the snapshot; returns the length of its good prefix.
uint64_t ReadLog(const std::string& path, Recovered& out) {
  auto data = ReadFile(path);
  if (!data) return 0;
  if (data->size() < kLogHeaderBytes) {
    out.discarded_bytes = data->size();
    out.discarded_reason = "the log's header was cut short";
    return 0;
  }
  if (std::memcmp(data->data(), kLogMagic, sizeof kLogMagic) != 0 || GetU32(data->data() + 8) != kVersion)
    throw PersistError("the log " + path + " is not a log of this format; start-up stopped");
  size_t pos = kLogHeaderBytes;
  uint64_t prev = out.snapshot_seq;
  bool seen_after_snapshot = false;
  while (pos < data->size()) {
    const size_t left = data->size() - pos;
    std::string why;
    if (left < kRecordHeaderBytes) {
      why = "a record header cut short";
    } else {
      const uint32_t length = GetU32(data->data() + pos);
      const uint32_t crc = GetU32(data->data() + pos + 4);
      const uint64_t seq = GetU64(data->data() + pos + 8);
      if (length > Log::kMaxRecordBytes) {
        why = "a record length of " + std::to_string(length) + " bytes";
      } else if (left - kRecordHeaderBytes < length) {
        why = "a record cut short";
      } else {
        std::string_view payload(data->data() + pos + kRecordHeaderBytes, length);
        if (RecordCrc(seq, payload) != crc) {
          why = "a checksum mismatch";
        } else if (seq <= out.snapshot_seq && !seen_after_snapshot) {
          pos += kRecordHeaderBytes + length;  // already in the snapshot (a checkpoint was cut short)
          continue;
        } else if (seq != prev + 1) {
          why = "sequence number " + std::to_string(seq) + " after " + std::to_string(prev);
        } else {
          out.records.push_back(Record{seq, std::string(payload)});
          prev = seq;
          seen_after_snapshot = true;
          pos += kRecordHeaderBytes + length;
          continue;
        }
      }
    }
    out.discarded_bytes = left;
    out.discarded_reason = why + " at byte " + std::to_string(pos);
    break;
  }
  out.last_seq = prev;
  return pos;
}

}  // namespace

uint32_t Crc32c(std::string_view data) {
  Crc32cState crc;
  crc.process_bytes(data.data(), data.size());
  return crc.checksum();
}

Log::Log(std::string dir, Durability durability, Recovered& recovered) : dir_(std::move(dir)), durability_(durability) {
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
    Recover(recovered);
  } catch (...) {
    // No destructor runs for a constructor that throws: give the files and the directory back.
    if (fd_ >= 0) ::close(fd_);
    ::close(lock_fd_);
    throw;
  }
}

void Log::Recover(Recovered& recovered) {
  recovered = Recovered{};
  ReadSnapshot(dir_ + "/snapshot.bin", recovered);
  const uint64_t good = ReadLog(dir_ + "/wal.log", recovered);
  next_seq_ = recovered.last_seq + 1;
  written_seq_ = durable_seq_ = recovered.last_seq;
  OpenLogForAppend(good == 0);
  if (good > 0 && recovered.discarded_bytes > 0) {
    // Cut the torn tail off so that appends continue after the last whole record.
    if (::ftruncate(fd_, static_cast<off_t>(good)) != 0 || ::fsync(fd_) != 0)
      throw PersistError(Errno("cannot truncate", dir_ + "/wal.log"));
  }
  bytes_ = good > 0 ? good : kLogHeaderBytes;
  if (::lseek(fd_, static_cast<off_t>(bytes_), SEEK_SET) < 0) throw PersistError(Errno("cannot seek", dir_ + "/wal.log"));
}

Log::~Log() {
  if (fd_ >= 0) ::close(fd_);
  if (lock_fd_ >= 0) ::close(lock_fd_);  // releases the directory
}

void Log::OpenLogForAppend(bool truncate_to_header) {
  const std::string path = dir_ + "/wal.log";
  if (truncate_to_header) {
    // A fresh log: its header, made durable with the directory entry.
    Check(util::WriteFile(path, LogHeader(), 0600, true));
    Check(util::SyncPath(dir_, true));
  }
  if (fd_ >= 0) ::close(fd_);
  fd_ = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd_ < 0) throw PersistError(Errno("cannot open", path));
}

uint64_t Log::Write(std::string_view payload) {
  if (payload.size() > kMaxRecordBytes) throw PersistError("a record of " + std::to_string(payload.size()) + " bytes");
  std::string frame;
  frame.reserve(kRecordHeaderBytes + payload.size());
  std::lock_guard<std::mutex> lock(mu_);
  if (failed_) throw PersistError("the log " + dir_ + "/wal.log failed earlier; no write is acknowledged");
  const uint64_t seq = next_seq_;
  PutU32(frame, static_cast<uint32_t>(payload.size()));
  PutU32(frame, RecordCrc(seq, payload));
  PutU64(frame, seq);
  frame.append(payload);
  if (auto err = util::WriteAll(fd_, frame, dir_ + "/wal.log"); !err.empty()) {
    failed_ = true;  // a partial frame may be on disk: nothing more may follow it
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
    if (failed_) throw PersistError("the log " + dir_ + "/wal.log could not be synced; the write is not acknowledged");
    if (syncing_) {
      synced_.wait(lock);
      continue;
    }
    syncing_ = true;
    const uint64_t covers = written_seq_;
    const int fd = fd_;  // Checkpoint waits for !syncing_ before it replaces the file
    lock.unlock();
    const bool ok = ::fdatasync(fd) == 0;
    lock.lock();
    syncing_ = false;
    if (ok) {
      durable_seq_ = std::max(durable_seq_, covers);
    } else {
      failed_ = true;
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
  std::string fresh = LogHeader();
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
    throw PersistError(Errno("cannot open", path));
  }
  bytes_ = fresh.size();
  if (::lseek(fd_, static_cast<off_t>(bytes_), SEEK_SET) < 0) {
    failed_ = true;
    throw PersistError(Errno("cannot seek", path));
  }
  // Every record written so far is in the new file, which was synced.
  durable_seq_ = std::max(durable_seq_, written_seq_);
  synced_.notify_all();
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
