#include "http/rid_links.h"

#include <algorithm>

#include "charge/charge.h"
#include "common/errors.h"
#include "store/store.h"
#include "util/util.h"

namespace cosmos::http {
namespace {

std::optional<std::string> RidBytes(std::string s) {
  std::replace(s.begin(), s.end(), '-', '/');
  return util::Base64Decode(s);
}

CosmosError NoSuchResource() {
  auto e = errors::NotFound();
  e.charge = charge::MetadataNotFound();  // as a name that names nothing
  return e;
}

// The item of container `c` whose rid is `rid`. Item rids carry the sequence number the item was
// created with (Container::ItemRid), so the item is usually found at that position of the feed;
// an item replaced since then moved on, and is found by walking the feed.
store::ItemPtr FindItemByRid(const store::Container& c, const std::string& rid, int64_t now) {
  auto bytes = RidBytes(rid);
  if (!bytes || bytes->size() != 16) return nullptr;
  uint64_t seq = 0;
  for (int i = 7; i >= 0; --i) seq = (seq << 8) | static_cast<unsigned char>((*bytes)[8 + i]);
  const auto policy = c.settings()->items();
  for (const auto& p : c.partitions()) {
    if (seq > 0) {
      auto hit = p->Feed(seq - 1, 1, now, policy);
      if (!hit.empty() && hit.front()->rid == rid) return hit.front();
    }
  }
  for (const auto& p : c.partitions()) {
    uint64_t after = 0;
    while (true) {
      auto chunk = p->Feed(after, 1000, now, policy);
      if (chunk.empty()) break;
      for (const auto& it : chunk) {
        if (it->rid == rid) return it;
        after = it->seq;
      }
    }
  }
  return nullptr;
}

store::ScriptKind ScriptKindOf(const std::string& segment) {
  if (segment == "sprocs") return store::ScriptKind::kStoredProcedure;
  if (segment == "triggers") return store::ScriptKind::kTrigger;
  return store::ScriptKind::kUserDefinedFunction;
}

}  // namespace

bool IsRidPath(const std::vector<std::string>& segments) {
  if (segments.size() < 2 || segments[0] != "dbs") return false;
  auto bytes = RidBytes(segments[1]);
  return bytes && bytes->size() == 4;
}

std::vector<std::string> ResolveRidPath(Services& s, const std::vector<std::string>& segments) {
  std::vector<std::string> out = segments;
  store::DatabasePtr db;
  for (auto& d : s.account.Databases()) {
    if (d->rid() == segments[1]) db = d;
  }
  if (!db) throw NoSuchResource();
  out[1] = db->id();
  if (segments.size() < 4) return out;
  const std::string& kind = segments[2];
  if (kind == "colls") {
    store::ContainerPtr c;
    for (auto& x : db->Containers()) {
      if (x->rid() == segments[3]) c = x;
    }
    if (!c) throw NoSuchResource();
    out[3] = c->id();
    if (segments.size() < 6) return out;
    const std::string& child = segments[4];
    const std::string& rid = segments[5];
    if (child == "docs") {
      auto item = FindItemByRid(*c, rid, s.clock.UnixSeconds());
      if (!item) throw NoSuchResource();
      out[5] = item->id;
    } else if (child == "sprocs" || child == "triggers" || child == "udfs") {
      std::string id;
      for (const auto& r : c->scripts().List(ScriptKindOf(child))) {
        if (r->rid == rid) id = r->id;
      }
      if (id.empty()) throw NoSuchResource();
      out[5] = id;
    }
    return out;
  }
  if (kind == "clientencryptionkeys") {
    std::string id;
    for (const auto& k : db->encryption_keys().List()) {
      if (k.rid == segments[3]) id = k.id;
    }
    if (id.empty()) throw NoSuchResource();
    out[3] = id;
    return out;
  }
  if (kind == "users") {
    std::optional<store::User> user;
    for (auto& u : db->users().Users()) {
      if (u.rid == segments[3]) user = u;
    }
    if (!user) throw NoSuchResource();
    out[3] = user->id;
    if (segments.size() >= 6 && segments[4] == "permissions") {
      std::string user_rid;
      auto p = db->users().FindPermissionByRid(segments[5], &user_rid);
      if (!p || user_rid != user->rid) throw NoSuchResource();
      out[5] = p->id;
    }
  }
  return out;
}

}  // namespace cosmos::http
