// Values during query evaluation, with Cosmos DB semantics: undefined, the cross-type order,
// integer vs floating-point numbers, and deep equality.
//
// A Val is a pointer to a JSON value that lives either in a stored document (items are immutable
// snapshots, kept alive by the query) or in an Arena, or null for `undefined`. Nothing is copied
// to read a property of a stored document.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "json/json.h"

namespace cosmos::query {

// The service's ORDER BY order across types: undefined < null < boolean < number < string < array < object.
enum class Type { kUndefined = 0, kNull, kBoolean, kNumber, kString, kArray, kObject };

class Val {
 public:
  Val() = default;  // undefined
  explicit Val(const json::Value* v) : v_(v) {}
  explicit Val(const json::Value& v) : v_(&v) {}

  bool IsUndefined() const { return v_ == nullptr; }
  bool IsDefined() const { return v_ != nullptr; }
  Type type() const;
  bool IsNull() const { return v_ && v_->IsNull(); }
  bool IsBool() const { return v_ && v_->IsBool(); }
  bool IsNumber() const { return v_ && v_->IsNumber(); }
  bool IsString() const { return v_ && v_->IsString(); }
  bool IsArray() const { return v_ && v_->IsArray(); }
  bool IsObject() const { return v_ && v_->IsObject(); }
  // True only for the boolean true (WHERE keeps a row only then).
  bool IsTrue() const { return v_ && v_->IsBool() && v_->GetBool(); }
  // An integer the service computes with exactly (int64), as opposed to a double.
  bool IsInteger() const { return v_ && (v_->IsInt64() || (v_->IsUint64() && !v_->IsInt64())) && !v_->IsDouble(); }

  bool AsBool() const { return v_->GetBool(); }
  double AsNumber() const { return v_->GetDouble(); }  // valid for every number kind
  int64_t AsInt64() const { return v_->GetInt64(); }    // valid when IsInteger() and it fits
  std::string_view AsString() const { return {v_->GetString(), v_->GetStringLength()}; }
  const json::Value& json() const { return *v_; }
  const json::Value* ptr() const { return v_; }

 private:
  const json::Value* v_ = nullptr;
};

// Owns every value built while evaluating a query (numbers, strings, arrays, objects); all are
// freed together when the arena goes away. Not thread-safe: one per executing query.
class Arena {
 public:
  Arena();
  ~Arena();
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;

  static Val True();
  static Val False();
  static Val Bool(bool b) { return b ? True() : False(); }
  static Val Null();

  Val Int(int64_t i);
  Val Number(double d);  // any double, including NaN and infinities (refused only when written out)
  Val String(std::string_view s);
  // A deep copy of `v` owned by this arena (for values that must outlive their document or row).
  Val Copy(Val v);

  // Builders: create, fill with Append/Set (values are deep-copied), then wrap with Val(ptr).
  json::Value* NewArray();
  json::Value* NewObject();
  void Append(json::Value* array, Val v);
  // Undefined values are skipped, as the service drops undefined properties.
  void Set(json::Value* object, std::string_view key, Val v);

  json::Allocator& allocator() { return *cur_; }
  // Bytes the arena holds now: what it keeps, and what the row being filtered has made so far
  // (RowScratch: gone once the row is decided).
  size_t used() const;

  // While one is alive, what the arena makes is a row's temporaries: they go into a scratch area
  // that is emptied when the outermost RowScratch ends, so a filter evaluated over a million
  // documents holds one row's values at a time, not a million rows'. Only for values nothing keeps
  // past that point (a WHERE's verdict is read, and its values are dropped).
  class RowScratch {
   public:
    explicit RowScratch(Arena& a);
    ~RowScratch();
    RowScratch(const RowScratch&) = delete;
    RowScratch& operator=(const RowScratch&) = delete;

   private:
    Arena& arena_;
    bool outermost_;
  };

 private:
  static constexpr size_t kChunk = 64 * 1024;
  static constexpr size_t kScratch = 64 * 1024;  // the scratch area's own block; more comes in chunks
  struct Scratch;
  json::Value* Make();
  json::Allocator alloc_;
  json::Allocator* cur_ = &alloc_;
  std::unique_ptr<Scratch> scratch_;
};

// Deep equality as the `=` operator sees it: same type and same value; numbers by value
// (1 = 1.0); arrays element-wise; objects by the same set of properties with equal values.
bool Equals(Val a, Val b);

// The total order ORDER BY uses: by Type first, then by value within the type (false < true,
// numbers numerically, strings by UTF-16 code unit... compared as the service does, arrays and
// objects by their contents). Returns <0, 0, >0.
int CompareForOrder(Val a, Val b);

// The order the comparison operators (<, <=, >, >=) use: only between two numbers, two strings or
// two booleans; any other pairing (including arrays and objects) is undefined (nullopt-like: returns
// false in `ok`).
int CompareScalars(Val a, Val b, bool& ok);

// The type name the service uses in messages and IS_* style checks ("Number", "String", ...).
std::string_view TypeName(Type t);

// Appends the JSON text of `v` (must be defined). Throws CosmosError 400/4001 for NaN or infinity.
void WriteJson(std::string& out, Val v);

}  // namespace cosmos::query
