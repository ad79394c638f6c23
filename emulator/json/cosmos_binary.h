// Cosmos binary JSON: the tagged byte format some SDKs (the Rust SDK by default) send item bodies in,
// with `content-type: application/json` and a first byte of 0x80. The service takes it like text; the
// emulator turns it into JSON text at the door and handles the request as if text had been sent.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace cosmos::json {

// The first byte of every binary body. No JSON text can start with it (it is a UTF-8 continuation
// byte), so it tells the two apart without any header.
inline constexpr unsigned char kCosmosBinaryPreamble = 0x80;

// Containers nested deeper than this are refused, the same bound as text bodies (json.h kMaxDepth).
inline constexpr int kCosmosBinaryMaxDepth = 128;

// Whether `body` is Cosmos binary JSON (starts with the preamble byte).
bool IsCosmosBinary(std::string_view body);

// The compact JSON text (UTF-8) of the binary document `body`: property order and duplicate names
// kept, integers printed exactly, floating-point numbers as the shortest text that reads back to the
// same double. On malformed input: nullopt, a one-line reason in *error (when given), and *too_deep
// (when given) set when the fault found is nesting deeper than kCosmosBinaryMaxDepth, so a caller can
// answer it the way it answers text nested too deep.
std::optional<std::string> CosmosBinaryToText(std::string_view body, std::string* error, bool* too_deep = nullptr);

}  // namespace cosmos::json
