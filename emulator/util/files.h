// Writing files so that what was written is known to be there: every byte written (short writes
// and EINTR retried), optionally synced to disk, errors reported with the file's name. Used by the
// persistence files and the kept certificate.
#pragma once

#include <sys/types.h>

#include <string>
#include <string_view>

namespace cosmos::util {

// Each returns an empty string on success, else one line: what failed, the path and the reason.

// Writes all of `bytes` to `fd` (named `path` in the message).
std::string WriteAll(int fd, std::string_view bytes, const std::string& path);
// Creates or truncates `path` with `mode`, writes `bytes`, syncs it when `sync`, and closes it.
std::string WriteFile(const std::string& path, std::string_view bytes, mode_t mode, bool sync);
// Syncs a file or, with `directory`, a directory (after a rename or a new entry in it).
std::string SyncPath(const std::string& path, bool directory);

}  // namespace cosmos::util
