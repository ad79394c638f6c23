// Order keys: a JSON value (or undefined) written as bytes whose byte-wise order is the query
// language's cross-type order (undefined < null < false < true < numbers < strings < arrays <
// objects; numbers by value, strings by their UTF-8 bytes, arrays and objects by their contents
// in order), as query::CompareForOrder defines it. The path indexes (path_index.h) store these
// keys, so that an index walk returns rows in the order ORDER BY sorts them and a lookup of a
// constant is a range of keys.
//
// The encoding:
//   undefined   01
//   null        02
//   false, true 03, 04
//   number      05, then the double's bits made order-preserving (big-endian; -0 written as 0);
//               an integer of magnitude 2^53 or more also carries its exact value (8 or 9 more
//               bytes), so that integers the double cannot tell apart still order exactly
//   string      06, then the bytes with 00 written as 00 FF, then 00 00
//   array       07, then each element's key, then 00
//   object      08, then for each property 01, the name as a string's bytes and end, the value's
//               key; then 00
// Every key is prefix-free, so comparing two keys compares the values. One difference from
// CompareForOrder remains: an integer of magnitude 2^53 or more and a double of the same double
// value compare equal there (as doubles) but differently here (docs/indexing.md).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "json/json.h"

namespace cosmos::store {

enum class OrderTag : uint8_t {
  kUndefined = 0x01,
  kNull = 0x02,
  kFalse = 0x03,
  kTrue = 0x04,
  kNumber = 0x05,
  kString = 0x06,
  kArray = 0x07,
  kObject = 0x08,
};

// Appends the key of `v` (null: undefined) to `out`.
void AppendOrderKey(std::string& out, const json::Value* v);
inline std::string OrderKey(const json::Value* v) {
  std::string k;
  AppendOrderKey(k, v);
  return k;
}

// The key of a string without its end marker: every string that starts with `prefix` has a key
// that starts with this.
std::string StringPrefixKey(std::string_view prefix);

// The key every value of `tag` starts with (one byte).
inline std::string TagKey(OrderTag tag) { return std::string(1, static_cast<char>(tag)); }

}  // namespace cosmos::store
