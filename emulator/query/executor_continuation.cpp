// Continuations: a page's resume token, encoded and decoded (the format is described at Resume in
// executor_internal.h), the range ids and floors it carries, how a token made before a split is
// moved onto the ranges that replaced the ones it named, and the key a suspended collection is
// kept under.
#include <algorithm>
#include <string>

#include "common/errors.h"
#include "json/json.h"
#include "query/executor_internal.h"
#include "util/util.h"

namespace cosmos::query::detail {

uint32_t QueryHash(std::string_view text) {
  uint32_t h = 2166136261u;
  for (char c : text) h = (h ^ static_cast<unsigned char>(c)) * 16777619u;
  return h;
}

namespace {

void WritePos(std::string& j, const char* name, const Pos& p) {
  j += ",\"";
  j += name;
  j += "\":[" + std::to_string(p.part) + "," + std::to_string(p.seq) + "," + std::to_string(p.ord) + "]";
}

}  // namespace

std::string EncodeResume(const std::string& ranges, const OutRow* last, const Window& w, std::string_view query,
                         const std::optional<Pos>& scan, const std::optional<Pos>& segment_end, uint64_t state,
                         uint64_t kept) {
  // The format's version is "ev", not "v": the Python SDK takes any continuation that is base64 of
  // a JSON object with a "v" for its own feed-range token (feed_range_continuation._decode_token).
  std::string j = "{\"ev\":1,\"h\":" + std::to_string(QueryHash(query));
  if (last != nullptr) {
    WritePos(j, "p", last->pos);
    j += ",\"k\":[";
    for (size_t i = 0; i < last->keys.size(); ++i) {
      if (i > 0) j += ',';
      j += '[';
      if (last->keys[i].IsDefined()) json::Write(j, last->keys[i].json());
      j += ']';
    }
    j += "]";
  }
  j += ",\"s\":" + std::to_string(w.skip) + ",\"t\":" + (w.take ? std::to_string(*w.take) : "null");
  if (scan) WritePos(j, "c", *scan);
  if (segment_end) WritePos(j, "f", *segment_end);
  if (state != 0) j += ",\"x\":" + std::to_string(state);
  if (kept != 0) j += ",\"y\":" + std::to_string(kept);
  j += ranges;
  j += "}";
  return util::Base64Encode(j);
}

// Where partition `pi`'s scan starts when the page does not resume in it (Scope::floors).
uint64_t FloorOf(const Scope& scope, size_t pi) { return pi < scope.floors.size() ? scope.floors[pi] : 0; }

CosmosError InvalidContinuation() { return CosmosError(400, 0, "BadRequest", "Invalid Continuation Token"); }

Resume DecodeResume(const std::string& token, std::string_view query, size_t key_count, json::Document& holder) {
  auto raw = util::Base64Decode(token);
  if (!raw || json::Parse(*raw, holder) != json::ParseStatus::kOk || !holder.IsObject()) throw InvalidContinuation();
  auto find = [&](const char* name) -> const json::Value* {
    auto it = holder.FindMember(name);
    return it == holder.MemberEnd() ? nullptr : &it->value;
  };
  auto get = [&](const char* name) -> const json::Value& {
    const json::Value* v = find(name);
    if (v == nullptr) throw InvalidContinuation();
    return *v;
  };
  auto pos = [&](const json::Value& p) {
    if (!p.IsArray() || p.Size() != 3 || !p[0].IsUint64() || !p[1].IsUint64() || !p[2].IsUint64()) {
      throw InvalidContinuation();
    }
    return Pos{p[0].GetUint64(), p[1].GetUint64(), p[2].GetUint64()};
  };
  const auto& h = get("h");
  if (!h.IsUint64() || h.GetUint64() != QueryHash(query)) throw InvalidContinuation();
  Resume r;
  if (const json::Value* c = find("c")) r.scan = pos(*c);
  if (const json::Value* f = find("f")) {
    if (!r.scan) throw InvalidContinuation();
    r.segment_end = pos(*f);
  }
  if (const json::Value* x = find("x")) {
    if (!r.scan || !x->IsUint64() || x->GetUint64() == 0) throw InvalidContinuation();
    r.state = x->GetUint64();
  }
  const json::Value* p = find("p");
  r.has_row = p != nullptr;
  if (const json::Value* y = find("y")) {
    // Kept rows follow a row returned, of a page that read nothing it did not compute.
    if (p == nullptr || r.state != 0 || !y->IsUint64() || y->GetUint64() == 0) throw InvalidContinuation();
    r.kept = y->GetUint64();
  }
  if (p == nullptr && (!r.scan || r.segment_end)) throw InvalidContinuation();  // only a scan may lack a row
  if (p != nullptr) {
    r.pos = pos(*p);
    const auto& k = get("k");
    if (!k.IsArray() || k.Size() != key_count) throw InvalidContinuation();
    for (const auto& e : k.GetArray()) {
      if (!e.IsArray() || e.Size() > 1) throw InvalidContinuation();
      r.keys.push_back(e.Size() == 0 ? Val() : Val(e[0]));
    }
  }
  if (const json::Value* rs = find("r")) {
    if (!rs->IsArray()) throw InvalidContinuation();
    for (const auto& e : rs->GetArray()) {
      if (!e.IsString()) throw InvalidContinuation();
      r.ranges.emplace_back(e.GetString(), e.GetStringLength());
    }
  }
  if (const json::Value* gs = find("g")) {
    if (!gs->IsArray()) throw InvalidContinuation();
    for (const auto& e : gs->GetArray()) {
      if (!e.IsArray() || e.Size() != 2 || !e[0].IsString() || !e[1].IsUint64()) throw InvalidContinuation();
      r.floors.emplace_back(std::string(e[0].GetString(), e[0].GetStringLength()), e[1].GetUint64());
    }
  }
  const auto& s = get("s");
  const auto& t = get("t");
  if (!s.IsInt64() || s.GetInt64() < 0 || !(t.IsNull() || (t.IsInt64() && t.GetInt64() >= 0))) {
    throw InvalidContinuation();
  }
  r.window.skip = s.GetInt64();
  if (!t.IsNull()) r.window.take = t.GetInt64();
  return r;
}

std::string ScopeKey(const Scope& scope) {
  std::string k;
  for (const auto* p : scope.partitions) k += std::to_string(reinterpret_cast<uintptr_t>(p)) + ",";
  k += "|" + scope.partition_key.value_or("*");
  if (scope.epk_range) k += "|" + scope.epk_range->first + "|" + scope.epk_range->second;
  if (scope.view) k += "|view";
  return k;
}

// The "r" and "g" members of a continuation: the scope's range ids and floors.
std::string RangesMember(const Scope& scope) {
  std::string j = ",\"r\":[";
  for (size_t i = 0; i < scope.partitions.size(); ++i) {
    if (i) j += ',';
    json::WriteString(j, scope.partitions[i]->range_id());
  }
  j += "]";
  std::string g;
  for (size_t i = 0; i < scope.floors.size(); ++i) {
    if (scope.floors[i] == 0) continue;
    g += g.empty() ? "[" : ",[";
    json::WriteString(g, scope.partitions[i]->range_id());
    g += "," + std::to_string(scope.floors[i]) + "]";
  }
  if (!g.empty()) j += ",\"g\":[" + g + "]";
  return j;
}

// A continuation made over other ranges than the scope's (a range was split since): each position
// moves to the first range descended from the one it named, and when that range was split, its
// other descendants start after the position's sequence number (Scope::floors). `adjusted` holds
// the scope when it must change. A range the scope does not descend from makes the token invalid.
const Scope& AdjustForSplits(const Scope& scope, std::optional<Resume>& resume, Scope& adjusted) {
  if (!resume || (resume->ranges.empty() && resume->floors.empty())) return scope;
  const auto& was = resume->ranges;
  bool same = was.empty() || was.size() == scope.partitions.size();
  for (size_t i = 0; !was.empty() && same && i < was.size(); ++i) same = was[i] == scope.partitions[i]->range_id();
  if (same && resume->floors.empty()) return scope;
  adjusted = scope;
  adjusted.floors.assign(scope.partitions.size(), 0);
  for (const auto& [range, seq] : resume->floors) {
    for (size_t j = 0; j < scope.partitions.size(); ++j) {
      if (scope.partitions[j]->DescendsFrom(range)) adjusted.floors[j] = std::max(adjusted.floors[j], seq);
    }
  }
  if (same) return adjusted;
  auto move = [&](Pos& p, bool start) {
    if (p.part >= was.size()) throw InvalidContinuation();
    const std::string& range = was[p.part];
    size_t first = SIZE_MAX, last = SIZE_MAX;
    for (size_t j = 0; j < scope.partitions.size(); ++j) {
      if (!scope.partitions[j]->DescendsFrom(range)) continue;
      if (first == SIZE_MAX) first = j;
      last = j;
    }
    if (first == SIZE_MAX) throw InvalidContinuation();
    if (start && scope.partitions[first]->range_id() != range) {
      for (size_t j = first + 1; j <= last; ++j) adjusted.floors[j] = std::max(adjusted.floors[j], p.seq);
    }
    p.part = start ? first : last;
  };
  if (resume->has_row) move(resume->pos, true);
  if (resume->scan) move(*resume->scan, true);
  if (resume->segment_end) move(*resume->segment_end, false);
  return adjusted;
}

}  // namespace cosmos::query::detail
