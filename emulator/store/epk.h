// Effective partition keys (EPK): the hex strings that place a logical partition key on the
// ring of partition key ranges ("" .. "FF"). V1 hashes with MurmurHash3 x86 32-bit, V2 with
// MurmurHash3 x64 128-bit; MultiHash (hierarchical keys) concatenates each component's V2 EPK.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "store/partition_key.h"

namespace cosmos::store {

// The lowest EPK (inclusive) and the highest (exclusive) of the partition key range ring.
inline constexpr std::string_view kMinEpk = "";
inline constexpr std::string_view kMaxEpk = "FF";

// MurmurHash3_x86_32 of `data`.
uint32_t MurmurHash3_32(std::string_view data, uint32_t seed = 0);

// The two 64-bit halves MurmurHash3_x64_128 produces (h1 first in the reference code).
struct Hash128 {
  uint64_t h1 = 0;
  uint64_t h2 = 0;
};

// MurmurHash3_x64_128 of `data`.
Hash128 MurmurHash3_128(std::string_view data, uint64_t seed = 0);

// One typed partition key component, as the hashing rules see it.
struct PkComponent {
  enum class Kind : uint8_t { kUndefined, kNull, kFalse, kTrue, kNumber, kString };
  Kind kind = Kind::kUndefined;
  double number = 0;
  std::string text;  // UTF-8 (kString)

  static PkComponent Undefined() { return {}; }
  static PkComponent Null() { return {Kind::kNull, 0, {}}; }
  static PkComponent Bool(bool b) { return {b ? Kind::kTrue : Kind::kFalse, 0, {}}; }
  static PkComponent Number(double d) { return {Kind::kNumber, d, {}}; }
  static PkComponent String(std::string s) { return {Kind::kString, 0, std::move(s)}; }

  // From a PartitionKeyValue component (canonical JSON text, nullopt = undefined). Objects and
  // arrays, which are not key values, are treated as undefined.
  static PkComponent FromCanonical(const std::optional<std::string>& canonical);
  // From a JSON value (objects and arrays are undefined).
  static PkComponent FromJson(const json::Value& v);
};

// The typed components of a key.
std::vector<PkComponent> Components(const PartitionKeyValue& key);

// Which string suffix the hash input of a string carries. The service terminates strings (0x00 in
// V1, 0xFF in V2); the SDK's PartitionKeyHash baselines hash them bare.
enum class StringSuffix { kService, kNone };

// The bytes V1 hashes for one component: type marker + payload (strings: the first 100 UTF-16
// code units as UTF-8; numbers: the IEEE double, little-endian).
void AppendHashInputV1(std::string& out, const PkComponent& c, StringSuffix suffix = StringSuffix::kService);
// The bytes V2 hashes for one component (strings are not truncated).
void AppendHashInputV2(std::string& out, const PkComponent& c, StringSuffix suffix = StringSuffix::kService);

// The order-preserving binary encoding of one component used inside EPKs (type marker, then a
// variable-length number or the string bytes + 1 ended by 0x00). `truncate`: V1's 100-char rule.
void AppendBinaryEncoding(std::string& out, const PkComponent& c, bool truncate);

// MurmurHash3_x86_32 over the V1 hash input of every component.
uint32_t HashV1(const std::vector<PkComponent>& components, StringSuffix suffix = StringSuffix::kService);
// MurmurHash3_x64_128 over the V2 hash input of every component.
Hash128 HashV2(const std::vector<PkComponent>& components, StringSuffix suffix = StringSuffix::kService);

// The V1 EPK: hex of the encoded hash (as a number) followed by the encoded (truncated) components.
std::string EffectivePartitionKeyV1(const std::vector<PkComponent>& components);
// The V2 EPK: 32 hex digits of the 128-bit hash, high half first, with its top two bits cleared.
std::string EffectivePartitionKeyV2(const std::vector<PkComponent>& components);
// The MultiHash EPK: the V2 EPK of each component, concatenated (a prefix key gives a prefix EPK).
std::string EffectivePartitionKeyMultiHash(const std::vector<PkComponent>& components);
// The (legacy) Range-kind EPK: the binary encoding of the components, unhashed.
std::string EffectivePartitionKeyRange(const std::vector<PkComponent>& components);

// The EPK of `key` under `def` (kind Hash with version 1 or 2, MultiHash, or Range). A key with no
// components is the minimum EPK "".
std::string EffectivePartitionKey(const PartitionKeyDefinition& def, const PartitionKeyValue& key);
std::string EffectivePartitionKey(const PartitionKeyDefinition& def, const std::vector<PkComponent>& components);

// The n+1 boundaries of n physical partitions that split the container's hash space evenly:
// "" first, "FF" last, and between them the EPK of the hash value i/n of the way round the ring
// (V1: the encoded 32-bit hash; V2 and MultiHash: 32 hex digits of the 126-bit hash). Every EPK
// the container's keys produce falls in exactly one [boundary[i], boundary[i+1]) by string order.
// Range-kind containers, whose EPKs are not hashes, always get one range.
std::vector<std::string> RangeBoundaries(const PartitionKeyDefinition& def, int n);

// Uppercase hex of raw bytes.
std::string HexUpper(std::string_view bytes);

// Where to split the range [min, max) of a container's ring in two: the middle of its span of
// hash values (V2 and MultiHash: 126-bit values written as 32 hex digits; V1: 32-bit hash values
// in V1's number encoding). nullopt when the span holds no value strictly inside it, or the
// container is not hash partitioned.
std::optional<std::string> SplitPoint(const PartitionKeyDefinition& def, std::string_view min, std::string_view max);

}  // namespace cosmos::store
