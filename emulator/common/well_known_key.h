// The emulator's published master key (every official emulator's): the default --key, and the key
// with which the emulator's own pages and report stay open to unsigned reads.
#pragma once

#include <string_view>

namespace cosmos {

inline constexpr std::string_view kWellKnownKey =
    "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw==";

}  // namespace cosmos
