// JSON parsing and writing with Cosmos DB fidelity rules: property order kept, numbers printed
// the way JavaScript prints them, integers kept exact, nesting depth bounded.
#pragma once

#include <stdexcept>

// RapidJSON's assertions guard API misuse; in every build they throw (the pipeline answers 500)
// instead of aborting (debug) or running on into undefined behaviour (release).
#ifndef RAPIDJSON_ASSERT
#define RAPIDJSON_ASSERT(x)                                                    \
  do {                                                                         \
    if (!(x)) throw std::logic_error("RapidJSON assertion failed: " #x);     \
  } while (0)
#endif
#include <rapidjson/document.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace cosmos::json {

using Document = rapidjson::Document;
using Value = rapidjson::Value;
using Allocator = rapidjson::Document::AllocatorType;

// The service rejects documents nested deeper than this (objects and arrays both count).
inline constexpr int kMaxDepth = 128;

// Per-thread buffers kept between calls (the parse's text copy and reader, Item::Seal's text) are
// kept only up to this size: every worker thread has its own, and a megabyte body kept by each
// would hold megabytes nothing uses.
inline constexpr size_t kKeptPerThreadBytes = 64u << 10;

enum class ParseStatus { kOk, kMalformed, kTooDeep };

// Parses `text` into `out`. Never recurses on the input: depth is checked before parsing.
ParseStatus Parse(std::string_view text, Document& out);

// A document for short texts parsed on every request (the partition key header): its first KB of
// values lives in the object itself. A default Document takes a 64 KB block from the heap for its
// first value, and freeing a block that size makes malloc consolidate its free lists.
class SmallDocument {
 public:
  SmallDocument() : pool_(buffer_, sizeof buffer_), doc_(&pool_) {}
  SmallDocument(const SmallDocument&) = delete;
  SmallDocument& operator=(const SmallDocument&) = delete;
  Document& doc() { return doc_; }

 private:
  alignas(8) char buffer_[1024];
  Allocator pool_;
  Document doc_;
};

// Appends the compact JSON text of `v` to `out`.
void Write(std::string& out, const Value& v);
std::string Write(const Value& v);

// Appends a number as ECMAScript's Number.prototype.toString would print it.
void WriteDouble(std::string& out, double d);
// The length of the well-formed UTF-8 sequence at s[i] (1 for ASCII), or 0 when the bytes there are
// not UTF-8 (a bad lead byte, a truncated sequence, an overlong form or a surrogate).
size_t Utf8SequenceLength(std::string_view s, size_t i);
bool ValidUtf8(std::string_view s);
// Appends a JSON string literal (quotes included); non-ASCII is written as UTF-8, and a byte that
// is not part of well-formed UTF-8 as \ufffd, so the result is always valid JSON.
void WriteString(std::string& out, std::string_view s);
// `s` as a JSON string literal.
std::string Quote(std::string_view s);

// Formats a request charge or other figure: JavaScript number text of the value.
std::string FormatNumber(double d);

// The value reached from `root` through the property names `path` (nested objects), or null when
// one is missing or a step is not an object.
const Value* AtPath(const Value& root, const std::vector<std::string>& path);

// Deep equality of two JSON values, with numbers compared by value (1 == 1.0).
bool Equal(const Value& a, const Value& b);

}  // namespace cosmos::json
