#include "http/rid_links.h"

#include <algorithm>

#include "handlers/common.h"
#include "store/store.h"
#include "util/util.h"

namespace cosmos::http {
namespace {

std::optional<std::string> RidBytes(std::string s) {
  std::replace(s.begin(), s.end(), '-', '/');
  return util::Base64Decode(s);
}

}  // namespace

bool IsRidPath(const std::vector<std::string>& segments) {
  if (segments.size() < 2 || segments[0] != "dbs") return false;
  auto bytes = RidBytes(segments[1]);
  return bytes && bytes->size() == 4;
}

std::vector<std::string> ResolveRidPath(Services& s, const std::vector<std::string>& segments) {
  std::vector<std::string> out = segments;
  store::DatabasePtr db = s.account.FindDatabaseByRid(segments[1]);
  if (!db) throw handlers::MetadataNotFound();
  out[1] = db->id();
  if (segments.size() < 4) return out;
  const std::string& kind = segments[2];
  if (kind == "colls") {
    store::ContainerPtr c = db->FindContainerByRid(segments[3]);
    if (!c) throw handlers::MetadataNotFound();
    out[3] = c->id();
    if (segments.size() < 6) return out;
    const std::string& child = segments[4];
    const std::string& rid = segments[5];
    if (child == "docs") {
      auto item = c->FindItemByRid(rid, s.clock.Now());
      if (!item) throw handlers::MetadataNotFound();
      out[5] = item->id();
    } else if (auto kind = store::ScriptKindOfPath(child)) {
      auto script = c->scripts().FindByRid(*kind, rid);
      if (!script) throw handlers::MetadataNotFound();
      out[5] = script->id;
    }
    return out;
  }
  if (kind == "clientencryptionkeys") {
    std::string id;
    for (const auto& k : db->encryption_keys().List()) {
      if (k.rid == segments[3]) id = k.id;
    }
    if (id.empty()) throw handlers::MetadataNotFound();
    out[3] = id;
    return out;
  }
  if (kind == "users") {
    std::optional<store::User> user;
    for (auto& u : db->users().Users()) {
      if (u.rid == segments[3]) user = u;
    }
    if (!user) throw handlers::MetadataNotFound();
    out[3] = user->id;
    if (segments.size() >= 6 && segments[4] == "permissions") {
      std::string user_rid;
      auto p = db->users().FindPermissionByRid(segments[5], &user_rid);
      if (!p || user_rid != user->rid) throw handlers::MetadataNotFound();
      out[5] = p->id;
    }
  }
  return out;
}

}  // namespace cosmos::http
