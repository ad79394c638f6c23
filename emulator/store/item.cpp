// Items: a draft document while an item is built, then one block holding the whole DOM.
#include <cstring>

#include "store/item.h"

namespace cosmos::store {
namespace {

constexpr size_t Align(size_t n) { return (n + 7) & ~size_t{7}; }

// Strings up to this length live inside their value (rapidjson's short strings, 48-bit pointers).
constexpr size_t kInlineString = 13;

size_t StringBytes(const json::Value& s) {
  const size_t n = s.GetStringLength();
  return n > kInlineString ? Align(n + 1) : 0;
}

// What copying `v` into a pool allocates: member and element arrays, and the strings too long to
// be kept inside their value.
size_t DomBytes(const json::Value& v) {
  switch (v.GetType()) {
    case rapidjson::kObjectType: {
      size_t n = Align(v.MemberCount() * sizeof(json::Value::Member));
      for (const auto& m : v.GetObject()) n += StringBytes(m.name) + DomBytes(m.value);
      return n;
    }
    case rapidjson::kArrayType: {
      size_t n = Align(v.Size() * sizeof(json::Value));
      for (const auto& e : v.GetArray()) n += DomBytes(e);
      return n;
    }
    case rapidjson::kStringType:
      return StringBytes(v);
    default:
      return 0;
  }
}

// A pool's chunk header (rapidjson keeps it at the start of a user-supplied buffer).
constexpr size_t kPoolHeader = 3 * sizeof(size_t);

}  // namespace

struct Item::DraftDoc {
  json::Allocator pool{4096};
  json::Document doc{&pool};
};

std::string_view Item::text(Field t) const {
  const size_t i = static_cast<size_t>(t);
  if (!texts_) return {};
  const uint32_t begin = i == 0 ? 0 : text_end_[i - 1] + 1;
  return {texts_.get() + begin, text_end_[i] - begin};
}

void Item::set_text(Field t, std::string_view v) {
  std::string_view old[kTexts];
  for (size_t i = 0; i < kTexts; ++i) old[i] = text(static_cast<Field>(i));
  old[static_cast<size_t>(t)] = v;
  size_t bytes = 0;
  for (const auto& s : old) bytes += s.size() + 1;
  auto block = std::make_unique<char[]>(bytes);
  size_t at = 0;
  for (size_t i = 0; i < kTexts; ++i) {
    if (!old[i].empty()) std::memcpy(block.get() + at, old[i].data(), old[i].size());
    at += old[i].size();
    block[at] = '\0';
    text_end_[i] = static_cast<uint32_t>(at);
    ++at;
  }
  texts_ = std::move(block);  // `v` may point into the old block: it is dropped only now
}

void Item::DraftDeleter::operator()(DraftDoc* d) const { delete d; }

json::Document& Item::Draft() {
  if (!draft_) draft_.reset(new DraftDoc);
  return draft_->doc;
}

void Item::Seal() {
  if (draft_) {
    Seal(draft_->doc);
    draft_.reset();
  } else {
    Seal(json::Value(rapidjson::kObjectType));
  }
}

void Item::Seal(const json::Value& doc) {
  // One block, exactly the DOM's size; a pool allocator lends it out while the copy is made, and
  // is then dropped (the values do not refer to it). Should the estimate ever be short, the pool
  // would add a chunk of its own: the copy is then made again in a larger block.
  size_t bytes = DomBytes(doc);
  for (;;) {
    auto block = std::make_unique<char[]>(kPoolHeader + bytes + 8);
    json::Allocator pool(block.get(), kPoolHeader + bytes + 8, 64);
    json::Value copy(doc, pool);
    if (pool.Capacity() == bytes + 8) {
      body = std::move(copy);  // moves the root; its members stay in the block
      block_ = std::move(block);
      block_bytes_ = static_cast<uint32_t>(pool.Size());
      break;
    }
    bytes = bytes * 2 + 64;
  }
  thread_local std::string text;
  text.clear();
  json::Write(text, body);
  size = static_cast<uint32_t>(text.size());
  if (text.capacity() > (1u << 20)) std::string().swap(text);
}

}  // namespace cosmos::store
