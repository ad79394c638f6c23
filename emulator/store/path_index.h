// A path index: for one document path (c.a.b, c.arr[2], c["x y"]), the order key (order_key.h)
// of the value every item of a physical partition has there, undefined included, ordered by
// (key, item sequence number). One entry per item: it answers equality, IN, ranges, STARTSWITH
// and type checks of that path as key ranges, and gives the items in ORDER BY order of that path.
//
// A composite index (the indexing policy's compositeIndexes) has several columns, each a path and
// a direction: its key is the columns' order keys one after the other, a descending column's
// bytes inverted. Order keys are prefix-free, so comparing two such keys compares the first
// columns, then the second ones, and so on (an inverted key reverses its column's order and stays
// prefix-free): one walk gives the items in the order of an ORDER BY over those paths.
//
// A partition builds the index of a path the first time a query can use it and keeps it in step
// with every change from then on, under the partition's exclusive lock (store.h, PhysicalPartition);
// the indexing policy decides which paths a query may use (query/index_use.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <absl/container/btree_set.h>

#include "json/json.h"

namespace cosmos::store {

struct Item;

// One step of a document path: a property name, or (index >= 0) an array position.
struct PathStep {
  std::string name;
  int64_t index = -1;
  bool operator==(const PathStep&) const = default;
};
using DocPath = std::vector<PathStep>;

// A text naming the path uniquely (the index's name in its partition).
std::string PathName(const DocPath& path);

// One column of an index: a path and its direction.
struct IndexColumn {
  DocPath path;
  bool descending = false;
  bool operator==(const IndexColumn&) const = default;
};
using IndexColumns = std::vector<IndexColumn>;

// A text naming the index of `columns` uniquely: PathName for one ascending column.
std::string IndexName(const IndexColumns& columns);

// An index and the one with every direction reversed are one index, walked the other way: turns
// `columns` so that the first is ascending, and returns whether it turned them (whoever walks the
// index then walks it backwards).
bool TurnFirstAscending(IndexColumns& columns);

// Appends the key of `v` for a column of direction `descending` (its order key, inverted when
// descending) to `out`.
void AppendColumnKey(std::string& out, const json::Value* v, bool descending);

// The value at `path` in `doc`, as the query language reads it (a property of a non-object, or a
// position outside an array, is undefined: null).
const json::Value* Resolve(const json::Value& doc, const DocPath& path);

// Keys from `lo` to `hi` (without `hi`: to the end of the index). With `prefix`, the keys that
// start with `lo` (`hi` unused).
struct KeyRange {
  std::string lo;
  bool lo_inclusive = true;
  std::optional<std::string> hi;
  bool hi_inclusive = true;
  bool prefix = false;

  static KeyRange Point(std::string key) { return {key, true, key, true, false}; }
  // Every key that starts with `p` (a type tag, a string prefix's key).
  static KeyRange Prefix(std::string p) { return {std::move(p), true, std::nullopt, true, true}; }
};

// The keys of an index whose first column's key lies in a KeyRange of that column (a lookup's
// range, made for the one-path index of the column's path, ascending): keys from `from` (inclusive)
// to `to` (exclusive; none: to the end). A column's key is complete and prefix-free, so every key
// whose first column lies in the range, whatever columns follow, is in the window, and no other.
struct KeyWindow {
  std::string from;
  std::optional<std::string> to;
};
KeyWindow WindowOf(const KeyRange& first_column);

// What a partition keeps in step with its items once built: every store and removal of an item
// is passed on (under the partition's exclusive lock).
class SecondaryIndex {
 public:
  virtual ~SecondaryIndex() = default;
  // A hint before a build: about this many items are to be added.
  virtual void Reserve(size_t /*items*/) {}
  virtual void Add(const Item& item) = 0;
  virtual void Remove(const Item& item) = 0;
};

// An index entry's key in 16 bytes: up to 15 bytes inside it (the last byte is the length), a
// longer key in a block of its own (a pointer and a length; the last byte 0xFF). Order keys of
// numbers, booleans and short strings fit inside, so most entries allocate nothing.
class IndexKey {
 public:
  IndexKey() { b_[kInline] = 0; }
  IndexKey(std::string_view s) { Assign(s); }  // NOLINT: implicit, as the std::string it replaced
  IndexKey(const std::string& s) { Assign(s); }  // NOLINT
  IndexKey(const IndexKey& o) { Assign(o.view()); }
  IndexKey(IndexKey&& o) noexcept {
    std::memcpy(b_, o.b_, sizeof b_);
    o.b_[kInline] = 0;
  }
  IndexKey& operator=(const IndexKey& o) {
    if (this != &o) {
      IndexKey copy(o);
      *this = std::move(copy);
    }
    return *this;
  }
  IndexKey& operator=(IndexKey&& o) noexcept {
    if (this != &o) {
      Free();
      std::memcpy(b_, o.b_, sizeof b_);
      o.b_[kInline] = 0;
    }
    return *this;
  }
  ~IndexKey() { Free(); }

  std::string_view view() const {
    const auto tag = static_cast<unsigned char>(b_[kInline]);
    if (tag != kHeap) return {b_, tag};
    const char* p;
    uint32_t n;
    std::memcpy(&p, b_, sizeof p);
    std::memcpy(&n, b_ + sizeof p, sizeof n);
    return {p, n};
  }
  int compare(std::string_view o) const { return view().compare(o); }

 private:
  static constexpr size_t kInline = 15;
  static constexpr unsigned char kHeap = 0xFF;
  void Assign(std::string_view s) {
    if (s.size() <= kInline) {
      if (!s.empty()) std::memcpy(b_, s.data(), s.size());
      b_[kInline] = static_cast<char>(s.size());
      return;
    }
    char* p = new char[s.size()];
    std::memcpy(p, s.data(), s.size());
    const auto n = static_cast<uint32_t>(s.size());
    std::memcpy(b_, &p, sizeof p);
    std::memcpy(b_ + sizeof p, &n, sizeof n);
    b_[kInline] = static_cast<char>(kHeap);
  }
  void Free() {
    if (static_cast<unsigned char>(b_[kInline]) == kHeap) {
      char* p;
      std::memcpy(&p, b_, sizeof p);
      delete[] p;
    }
    b_[kInline] = 0;
  }
  char b_[16];
};

class PathIndex : public SecondaryIndex {
 public:
  struct Entry {
    IndexKey key;  // 16 bytes: an entry is 24
    uint64_t seq = 0;
  };
  struct Less {
    bool operator()(const Entry& a, const Entry& b) const {
      int c = a.key.view().compare(b.key.view());
      return c != 0 ? c < 0 : a.seq < b.seq;
    }
  };
  using Set = absl::btree_set<Entry, Less>;

  explicit PathIndex(DocPath path) : columns_{IndexColumn{std::move(path), false}} {}
  explicit PathIndex(IndexColumns columns) : columns_(std::move(columns)) {}
  const IndexColumns& columns() const { return columns_; }

  void Add(const Item& item) override;
  void Remove(const Item& item) override;
  size_t size() const { return entries_.size(); }

  // Sequence numbers of the entries in `ranges`; nullopt as soon as there are more than `cap`.
  // Unordered (a range's entries come in key order).
  std::optional<std::vector<uint64_t>> Lookup(const std::vector<KeyRange>& ranges, size_t cap) const;
  // How many entries `ranges` hold (ranges must not overlap).
  size_t Count(const std::vector<KeyRange>& ranges) const;

  const Set& entries() const { return entries_; }

 private:
  std::string KeyOf(const Item& item) const;
  template <typename F>
  void ForEach(const KeyRange& r, F&& f) const;

  const IndexColumns columns_;
  Set entries_;
};

}  // namespace cosmos::store
