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
  const char* base = (in_body_ >> i) & 1 ? block_.get() : texts_.get();
  if (!base) return {};
  return {base + text_at_[i], text_len_[i]};
}

void Item::LayOutTexts(const std::string_view (&now)[kTexts], uint8_t in_body) {
  size_t bytes = 0;
  for (size_t i = 0; i < kTexts; ++i) {
    if (!((in_body >> i) & 1)) bytes += now[i].size() + 1;
  }
  auto block = std::make_unique<char[]>(bytes);
  size_t at = 0;
  for (size_t i = 0; i < kTexts; ++i) {
    text_len_[i] = static_cast<uint32_t>(now[i].size());
    if ((in_body >> i) & 1) {  // a view of the document's string
      text_at_[i] = static_cast<uint32_t>(now[i].data() - block_.get());
      continue;
    }
    if (!now[i].empty()) std::memcpy(block.get() + at, now[i].data(), now[i].size());
    text_at_[i] = static_cast<uint32_t>(at);
    at += now[i].size();
    block[at++] = '\0';
  }
  in_body_ = in_body;
  texts_ = std::move(block);  // views may point into the old block: it is dropped only now
}

void Item::CurrentTexts(std::string_view (&now)[kTexts]) const {
  for (size_t i = 0; i < kTexts; ++i) now[i] = text(static_cast<Field>(i));
}

void Item::set_text(Field t, std::string_view v) {
  std::string_view now[kTexts];
  CurrentTexts(now);
  now[static_cast<size_t>(t)] = v;
  LayOutTexts(now, static_cast<uint8_t>(in_body_ & ~(1u << static_cast<unsigned>(t))));
}

void Item::ShareTextsWithBody() {
  if (!body.IsObject() || !block_) return;
  static constexpr std::pair<Field, std::string_view> kHeld[] = {
      {Field::kId, "id"}, {Field::kRid, "_rid"}, {Field::kEtag, "_etag"}};
  std::string_view now[kTexts];
  CurrentTexts(now);
  uint8_t in_body = in_body_;
  for (const auto& [field, name] : kHeld) {
    const size_t i = static_cast<size_t>(field);
    if (now[i].empty() || ((in_body >> i) & 1)) continue;
    auto m = body.FindMember(rapidjson::StringRef(name.data(), name.size()));
    if (m == body.MemberEnd() || !m->value.IsString()) continue;
    const std::string_view have(m->value.GetString(), m->value.GetStringLength());
    // Only a string inside the block (a member's short string is kept in its value, which is).
    if (have != now[i] || have.data() < block_.get() || have.data() >= block_.get() + kPoolHeader + block_bytes_)
      continue;
    now[i] = have;
    in_body |= static_cast<uint8_t>(1u << i);
  }
  if (in_body != in_body_) LayOutTexts(now, in_body);
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
  if (in_body_) {  // (sealed before: the texts read from the old block are copied out of it first)
    std::string_view now[kTexts];
    CurrentTexts(now);
    LayOutTexts(now, 0);
  }
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
  if (text.capacity() > json::kKeptPerThreadBytes) std::string().swap(text);
  ShareTextsWithBody();
}

}  // namespace cosmos::store
