#include "util/files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace cosmos::util {
namespace {

std::string Failure(const char* what, const std::string& path, int err) {
  return std::string(what) + " " + path + ": " + std::strerror(err);
}

// Closes `fd` after a failure: the message names the first error, not close's.
std::string CloseAfter(int fd, std::string message) {
  ::close(fd);
  return message;
}

}  // namespace

std::string WriteAll(int fd, std::string_view bytes, const std::string& path) {
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return Failure("cannot write", path, n < 0 ? errno : ENOSPC);
    done += static_cast<size_t>(n);
  }
  return {};
}

std::string WriteFile(const std::string& path, std::string_view bytes, mode_t mode, bool sync) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
  if (fd < 0) return Failure("cannot create", path, errno);
  if (::fchmod(fd, mode) != 0) return CloseAfter(fd, Failure("cannot set the mode of", path, errno));
  if (auto err = WriteAll(fd, bytes, path); !err.empty()) return CloseAfter(fd, err);
  if (sync && ::fsync(fd) != 0) return CloseAfter(fd, Failure("cannot sync", path, errno));
  if (::close(fd) != 0) return Failure("cannot close", path, errno);
  return {};
}

std::string SyncPath(const std::string& path, bool directory) {
  int fd = ::open(path.c_str(), (directory ? O_RDONLY | O_DIRECTORY : O_RDONLY) | O_CLOEXEC);
  if (fd < 0) return Failure("cannot open", path, errno);
  if (::fsync(fd) != 0) return CloseAfter(fd, Failure("cannot sync", path, errno));
  ::close(fd);
  return {};
}

}  // namespace cosmos::util
