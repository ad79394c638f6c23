// Items: one stored version of a document, immutable once sealed and shared by pointer, and the
// ordered maps of them a partition keeps (item.cpp builds the document's block).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include <absl/container/btree_map.h>
#include <absl/container/flat_hash_set.h>
#include <absl/hash/hash.h>

#include "json/json.h"
#include "util/clock.h"

namespace cosmos::store {

// One stored version of an item, with its system properties already in `body`.
//
// The document is kept once, as a DOM in one block of exactly the bytes it needs (emulator/store/
// README.md, "Items"): the text a client reads is written from it when asked (`AppendText`), and
// `size` keeps that text's length for the charges. An item is built in a draft document (`Draft`),
// then `Seal`ed; after that it never changes.
struct Item {
  Item() = default;
  Item(const Item&) = delete;
  Item& operator=(const Item&) = delete;

  // What a scan reads of every item comes first, in the cache line of the shared pointer's counts.
  json::Value body;  // the document; read-only once sealed (it lives in `block_`)
  uint64_t seq = 0;  // creation order within the partition (read-feed order)
  int64_t ts = 0;  // when it was written: the Unix second (its _ts) ...
  std::optional<int64_t> ttl;  // the item's own "ttl" property, when it has one
  uint64_t lsn = 0;  // the partition's log sequence number of the write that made this version
  uint32_t size = 0;           // bytes of the JSON text (what AppendText writes), set by Seal
  uint16_t ts_ms = 0;          // ... and the milliseconds into that second (its time to live counts from there)
  // Left out of the index (written with x-ms-indexing-directive Exclude, or Default under a policy
  // with automatic false): point reads, the read feed and the change feed see it, queries of a
  // consistent-mode container do not (ItemPolicy::indexed_only).
  bool unindexed = false;

 private:
  uint8_t in_body_ = 0;  // bit i set: text i is in `block_` (here, in the padding of the fields above)

 public:
  // The count of the references (`ItemRef`) that hold the item; the last one deletes it.
  void AddRef() const { refs_.fetch_add(1, std::memory_order_relaxed); }
  uint32_t refs() const { return refs_.load(std::memory_order_relaxed); }
  void Release() const {
    if (refs_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
  }

  // The document being built (an empty value until set), before Seal.
  json::Document& Draft();
  // Copies the draft (or `doc`) into the item's block, frees the draft and measures the text.
  void Seal();
  void Seal(const json::Value& doc);

  // The JSON text of the document, as returned to clients.
  void AppendText(std::string& out) const { json::Write(out, body); }
  std::string Text() const {
    std::string out;
    out.reserve(size);
    AppendText(out);
    return out;
  }
  double kb() const { return static_cast<double>(size) / 1024.0; }
  // When it was written, to the millisecond.
  util::Instant written() const { return util::Instant::FromMs(ts * 1000 + ts_ms); }
  // Sets `ts` and `ts_ms` from one clock reading.
  void set_written(util::Instant at) {
    ts = at.seconds();
    ts_ms = static_cast<uint16_t>(at.ms - ts * 1000);
  }

  // Bytes the document takes in its block (for tests and the memory figures).
  size_t block_bytes() const { return block_bytes_; }

  // The item's identity texts, each followed by a NUL (so `data()` of each is a C string). Those the
  // sealed document holds as they are (its "id", "_rid" and "_etag") are read from the document's
  // block; the others are kept one after the other in one small block of their own (`texts_`).
  enum class Field : uint8_t { kId, kPk, kEpk, kRid, kEtag };
  std::string_view id() const { return text(Field::kId); }
  std::string_view pk() const { return text(Field::kPk); }    // canonical partition key text
  std::string_view epk() const { return text(Field::kEpk); }  // effective partition key: places the item on the range ring
  std::string_view rid() const { return text(Field::kRid); }
  std::string_view etag() const { return text(Field::kEtag); }  // quoted, as in _etag
  void set_id(std::string_view v) { set_text(Field::kId, v); }
  void set_pk(std::string_view v) { set_text(Field::kPk, v); }
  void set_epk(std::string_view v) { set_text(Field::kEpk, v); }
  void set_rid(std::string_view v) { set_text(Field::kRid, v); }
  void set_etag(std::string_view v) { set_text(Field::kEtag, v); }
  std::string_view get(Field f) const { return text(f); }
  void set(Field f, std::string_view v) { set_text(f, v); }

 private:
  static constexpr size_t kTexts = 5;
  std::string_view text(Field t) const;
  void set_text(Field t, std::string_view v);
  void CurrentTexts(std::string_view (&now)[kTexts]) const;
  // Sets every text to `now`: those whose bit is set in `in_body` are views of the document's
  // strings (in `block_`), the others are copied into a new `texts_`.
  void LayOutTexts(const std::string_view (&now)[kTexts], uint8_t in_body);
  // After a seal: the texts the document holds as they are are read from it.
  void ShareTextsWithBody();
  struct DraftDoc;
  struct DraftDeleter {
    void operator()(DraftDoc* d) const;
  };
  std::unique_ptr<DraftDoc, DraftDeleter> draft_;
  std::unique_ptr<char[]> block_;
  std::unique_ptr<char[]> texts_;  // the texts the document does not hold, each with its NUL
  uint32_t block_bytes_ = 0;
  uint32_t text_at_[kTexts] = {};   // where each text starts: in `texts_`, or in `block_` (see in_body_)
  uint32_t text_len_[kTexts] = {};  // its length (its NUL not counted)
  mutable std::atomic<uint32_t> refs_{0};
};

// A counted reference to an item, the count kept in the item itself: one allocation per item and
// 8 bytes in each map that holds it (a shared pointer takes 16, and a control block of 16 more in
// the item's allocation). Copies share the item; `ItemRef<Item>` (a draft being built) converts to
// `ItemRef<const Item>`.
template <class T>
class ItemRef {
 public:
  ItemRef() noexcept = default;
  ItemRef(std::nullptr_t) noexcept {}
  explicit ItemRef(T* p) noexcept : p_(p) {
    if (p_) p_->AddRef();
  }
  ItemRef(const ItemRef& o) noexcept : ItemRef(o.p_) {}
  ItemRef(ItemRef&& o) noexcept : p_(o.p_) { o.p_ = nullptr; }
  template <class U, class = std::enable_if_t<std::is_convertible_v<U*, T*>>>
  ItemRef(const ItemRef<U>& o) noexcept : ItemRef(o.get()) {}
  template <class U, class = std::enable_if_t<std::is_convertible_v<U*, T*>>>
  ItemRef(ItemRef<U>&& o) noexcept : p_(o.p_) {
    o.p_ = nullptr;
  }
  ~ItemRef() {
    if (p_) p_->Release();
  }
  ItemRef& operator=(const ItemRef& o) noexcept {
    ItemRef(o).swap(*this);
    return *this;
  }
  ItemRef& operator=(ItemRef&& o) noexcept {
    ItemRef(std::move(o)).swap(*this);
    return *this;
  }
  ItemRef& operator=(std::nullptr_t) noexcept {
    reset();
    return *this;
  }

  T* get() const noexcept { return p_; }
  T& operator*() const noexcept { return *p_; }
  T* operator->() const noexcept { return p_; }
  explicit operator bool() const noexcept { return p_ != nullptr; }
  uint32_t use_count() const noexcept { return p_ ? p_->refs() : 0; }
  void reset() noexcept { ItemRef().swap(*this); }
  void swap(ItemRef& o) noexcept { std::swap(p_, o.p_); }

  template <class U>
  friend bool operator==(const ItemRef& a, const ItemRef<U>& b) noexcept {
    return a.get() == b.get();
  }
  friend bool operator==(const ItemRef& a, std::nullptr_t) noexcept { return a.p_ == nullptr; }

 private:
  template <class>
  friend class ItemRef;
  T* p_ = nullptr;
};
using ItemPtr = ItemRef<const Item>;
using DraftPtr = ItemRef<Item>;  // an item being built, before it is stored
inline DraftPtr NewItem() { return DraftPtr(new Item()); }
// Items by a number that only grows (sequence number): a B-tree, a few bytes per entry.
using ItemsByNumber = absl::btree_map<uint64_t, ItemPtr>;
// Items by the LSN of their latest version, then sequence number: the writes of one transaction
// (a transactional batch, a stored procedure) share one LSN.
using LsnKey = std::pair<uint64_t, uint64_t>;  // (lsn, seq)
using ItemsByLsn = absl::btree_map<LsnKey, ItemPtr>;

// Items by identity in their physical partition, (canonical partition key, id): a flat hash set of
// the item pointers themselves, looked up by the texts the items keep (`ItemKey`), so that no key
// is stored twice. A write that keeps the identity replaces the pointer in its slot.
struct ItemKey {
  std::string_view pk;
  std::string_view id;
};
struct ItemSlot {
  mutable ItemPtr item;  // (the identity, which the set hashes, never changes in place)
};
struct ItemSlotHash {
  using is_transparent = void;
  size_t operator()(const ItemKey& k) const { return absl::HashOf(k.pk, k.id); }
  size_t operator()(const ItemSlot& s) const { return absl::HashOf(s.item->pk(), s.item->id()); }
};
struct ItemSlotEq {
  using is_transparent = void;
  static ItemKey KeyOf(const ItemKey& k) { return k; }
  static ItemKey KeyOf(const ItemSlot& s) { return {s.item->pk(), s.item->id()}; }
  template <class A, class B>
  bool operator()(const A& a, const B& b) const {
    const ItemKey x = KeyOf(a), y = KeyOf(b);
    return x.pk == y.pk && x.id == y.id;
  }
};
using ItemsByKey = absl::flat_hash_set<ItemSlot, ItemSlotHash, ItemSlotEq>;

}  // namespace cosmos::store
