#include "store/path_index.h"

#include "store/order_key.h"
#include "store/store.h"

namespace cosmos::store {

std::string PathName(const DocPath& path) {
  // Names are length-prefixed, so no property name can make two paths share a text.
  std::string out;
  for (const auto& step : path) {
    if (step.index >= 0) {
      out += '#' + std::to_string(step.index) + ';';
    } else {
      out += '.' + std::to_string(step.name.size()) + ':' + step.name;
    }
  }
  return out;
}

std::string IndexName(const IndexColumns& columns) {
  if (columns.size() == 1 && !columns[0].descending) return PathName(columns[0].path);
  // Composite names start with 'c' (path names with '.' or '#', vector indexes with 'v').
  std::string out = "c";
  for (const auto& c : columns) {
    out += c.descending ? '-' : '+';
    const std::string name = PathName(c.path);
    out += std::to_string(name.size()) + ':' + name;
  }
  return out;
}

bool TurnFirstAscending(IndexColumns& columns) {
  if (columns.empty() || !columns.front().descending) return false;
  for (auto& c : columns) c.descending = !c.descending;
  return true;
}

void AppendColumnKey(std::string& out, const json::Value* v, bool descending) {
  const size_t from = out.size();
  AppendOrderKey(out, v);
  if (!descending) return;
  for (size_t i = from; i < out.size(); ++i) out[i] = static_cast<char>(~static_cast<unsigned char>(out[i]));
}

namespace {

// The first key after every key that starts with `p`: `p` without its trailing 0xff bytes, its last
// byte one higher; none when `p` is all 0xff (or empty).
std::optional<std::string> PrefixEnd(std::string p) {
  while (!p.empty() && static_cast<unsigned char>(p.back()) == 0xff) p.pop_back();
  if (p.empty()) return std::nullopt;
  p.back() = static_cast<char>(static_cast<unsigned char>(p.back()) + 1);
  return p;
}

}  // namespace

KeyWindow WindowOf(const KeyRange& r) {
  KeyWindow w;
  if (r.prefix) {
    w.from = r.lo;
    w.to = PrefixEnd(r.lo);
    return w;
  }
  if (r.lo_inclusive) {
    w.from = r.lo;
  } else if (auto after = PrefixEnd(r.lo)) {
    w.from = std::move(*after);
  } else {
    w.from = r.lo;
    w.to = r.lo;  // nothing is after it
    return w;
  }
  if (r.hi) w.to = r.hi_inclusive ? PrefixEnd(*r.hi) : r.hi;
  return w;
}

const json::Value* Resolve(const json::Value& doc, const DocPath& path) {
  const json::Value* v = &doc;
  for (const auto& step : path) {
    if (step.index >= 0) {
      if (!v->IsArray() || static_cast<uint64_t>(step.index) >= v->Size()) return nullptr;
      v = &(*v)[static_cast<rapidjson::SizeType>(step.index)];
    } else {
      if (!v->IsObject()) return nullptr;
      auto it = v->FindMember(
          json::Value(rapidjson::StringRef(step.name.data(), static_cast<rapidjson::SizeType>(step.name.size()))));
      if (it == v->MemberEnd()) return nullptr;
      v = &it->value;
    }
  }
  return v;
}

std::string PathIndex::KeyOf(const Item& item) const {
  std::string key;
  for (const auto& c : columns_) AppendColumnKey(key, Resolve(item.body, c.path), c.descending);
  return key;
}

void PathIndex::Add(const Item& item) { entries_.insert(Entry{KeyOf(item), item.seq}); }

void PathIndex::Remove(const Item& item) { entries_.erase(Entry{KeyOf(item), item.seq}); }

template <typename F>
void PathIndex::ForEach(const KeyRange& r, F&& f) const {
  // Entries of one key are ordered by sequence number: seq 0 comes before every item (items count
  // from 1), UINT64_MAX after.
  auto it = entries_.lower_bound(Entry{r.lo, r.lo_inclusive ? 0 : UINT64_MAX});
  for (; it != entries_.end(); ++it) {
    if (r.prefix) {
      if (!it->key.view().starts_with(r.lo)) break;
    } else if (r.hi) {
      int c = it->key.compare(*r.hi);
      if (c > 0 || (c == 0 && !r.hi_inclusive)) break;
    }
    if (!f(*it)) break;
  }
}

std::optional<std::vector<uint64_t>> PathIndex::Lookup(const std::vector<KeyRange>& ranges, size_t cap) const {
  std::vector<uint64_t> out;
  bool over = false;
  for (const auto& r : ranges) {
    ForEach(r, [&](const Entry& e) {
      if (out.size() >= cap) {
        over = true;
        return false;
      }
      out.push_back(e.seq);
      return true;
    });
    if (over) return std::nullopt;
  }
  return out;
}

size_t PathIndex::Count(const std::vector<KeyRange>& ranges) const {
  size_t n = 0;
  for (const auto& r : ranges) {
    ForEach(r, [&](const Entry&) {
      ++n;
      return true;
    });
  }
  return n;
}

}  // namespace cosmos::store
