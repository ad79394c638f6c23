// The Data Explorer's files (emulator/explorer), bundled and embedded at build time: the
// generated explorer_assets.cpp (emulator/explorer/embed.cmake) defines ExplorerFiles().
#pragma once

#include <span>
#include <string_view>

namespace cosmos::http {

struct EmbeddedFile {
  std::string_view path;  // relative to /_explorer/, e.g. "app.js" or "app.js.gz"
  std::string_view data;
};

// Every embedded file; empty when the emulator was built with -DCOSMOS_BUILD_EXPLORER=OFF.
std::span<const EmbeddedFile> ExplorerFiles();

}  // namespace cosmos::http
