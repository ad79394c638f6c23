// A library preloaded into the emulator (LD_PRELOAD) by the tests of what the emulator does when
// its disk fails (tests/sdk/js/durability.test.mjs): it makes the system calls on the files of one
// directory fail the way a failing or read-only disk makes them fail, while the process runs.
//
//   COSMOS_IO_FAULTS_DIR   the directory whose files fail (the emulator's data directory)
//   COSMOS_IO_FAULTS_FILE  a file the test writes at any time; its first word says what fails now:
//                            eio-write  write() returns EIO
//                            eio-fsync  fsync() and fdatasync() return EIO
//                            erofs      opening for writing, write(), rename() and mkdir() return EROFS
//                          (missing or empty: nothing fails)
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

std::string Mode() {
  const char* file = std::getenv("COSMOS_IO_FAULTS_FILE");
  if (!file) return "";
  FILE* f = std::fopen(file, "r");
  if (!f) return "";
  char word[32] = {0};
  const int n = std::fscanf(f, "%31s", word);
  std::fclose(f);
  return n == 1 ? word : "";
}

bool Under(const std::string& path) {
  const char* dir = std::getenv("COSMOS_IO_FAULTS_DIR");
  if (!dir || !*dir) return false;
  const std::string prefix = std::string(dir) + "/";
  return path.rfind(prefix, 0) == 0 || path == dir;
}

bool FdUnder(int fd) {
  char link[64], target[4096];
  std::snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  const ssize_t n = ::readlink(link, target, sizeof target - 1);
  if (n <= 0) return false;
  target[n] = 0;
  return Under(target);
}

template <typename F>
F Next(const char* name) {
  return reinterpret_cast<F>(::dlsym(RTLD_NEXT, name));
}

bool Fails(const char* mode, bool applies) {
  if (!applies) return false;
  const std::string now = Mode();
  if (now != mode) return false;
  errno = now == "erofs" ? EROFS : EIO;
  return true;
}

bool OpensToWrite(int flags) { return (flags & (O_WRONLY | O_RDWR | O_CREAT | O_TRUNC)) != 0; }

using OpenFn = int (*)(const char*, int, ...);

// open() and open64() alike: the mode argument is there only with O_CREAT or O_TMPFILE.
int Open(OpenFn next, const char* path, int flags, va_list ap) {
  const mode_t mode = (flags & (O_CREAT | O_TMPFILE)) ? va_arg(ap, mode_t) : 0;
  if (OpensToWrite(flags) && Fails("erofs", Under(path))) return -1;
  return next(path, flags, mode);
}

}  // namespace

extern "C" {

ssize_t write(int fd, const void* buf, size_t n) {
  static auto next = Next<ssize_t (*)(int, const void*, size_t)>("write");
  if (fd > 2 && (Fails("eio-write", FdUnder(fd)) || Fails("erofs", FdUnder(fd)))) return -1;
  return next(fd, buf, n);
}

int fsync(int fd) {
  static auto next = Next<int (*)(int)>("fsync");
  if (Fails("eio-fsync", FdUnder(fd))) return -1;
  return next(fd);
}

int fdatasync(int fd) {
  static auto next = Next<int (*)(int)>("fdatasync");
  if (Fails("eio-fsync", FdUnder(fd))) return -1;
  return next(fd);
}

int open(const char* path, int flags, ...) {
  static auto next = Next<OpenFn>("open");
  va_list ap;
  va_start(ap, flags);
  const int fd = Open(next, path, flags, ap);
  va_end(ap);
  return fd;
}

int open64(const char* path, int flags, ...) {
  static auto next = Next<OpenFn>("open64");
  va_list ap;
  va_start(ap, flags);
  const int fd = Open(next, path, flags, ap);
  va_end(ap);
  return fd;
}

int rename(const char* from, const char* to) {
  static auto next = Next<int (*)(const char*, const char*)>("rename");
  if (Fails("erofs", Under(from) || Under(to))) return -1;
  return next(from, to);
}

int mkdir(const char* path, mode_t mode) {
  static auto next = Next<int (*)(const char*, mode_t)>("mkdir");
  struct stat st;
  if (::stat(path, &st) != 0 && Fails("erofs", Under(path))) return -1;  // an existing one: EEXIST, as there
  return next(path, mode);
}

}  // extern "C"
