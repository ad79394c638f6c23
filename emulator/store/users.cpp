#include "store/users.h"

#include <algorithm>
#include <mutex>

#include "common/errors.h"
#include "util/util.h"

namespace cosmos::store {
namespace {

// Resource ids are base64 with '/' written as '-' (as store.cpp writes them).
std::string Encode(const std::string& bytes) {
  std::string s = util::Base64Encode(bytes);
  std::replace(s.begin(), s.end(), '/', '-');
  return s;
}
std::string Decode(std::string s) {
  std::replace(s.begin(), s.end(), '-', '/');
  return util::Base64Decode(s).value_or(std::string());
}

}  // namespace

std::string UserRid(const std::string& db_rid, uint32_t n) {
  // The top bit of the fifth byte stays clear: container ids set it, so the two never meet.
  std::string bytes = Decode(db_rid);
  bytes.push_back(static_cast<char>((n >> 16) & 0x7F));
  bytes.push_back(static_cast<char>((n >> 8) & 0xFF));
  bytes.push_back(static_cast<char>(n & 0xFF));
  bytes.push_back('\0');
  return Encode(bytes);
}

std::string PermissionRid(const std::string& user_rid, uint64_t n) {
  std::string bytes = Decode(user_rid);
  for (int i = 6; i >= 0; --i) bytes.push_back(static_cast<char>((n >> (8 * i)) & 0xFF));
  bytes.push_back('\0');
  return Encode(bytes);
}

UserSet::Entry* UserSet::FindLocked(const std::string& id) {
  for (auto& e : users_) {
    if (e.user.id == id) return &e;
  }
  return nullptr;
}

const UserSet::Entry* UserSet::FindLocked(const std::string& id) const {
  for (const auto& e : users_) {
    if (e.user.id == id) return &e;
  }
  return nullptr;
}

std::vector<User> UserSet::Users() const {
  std::shared_lock lock(mu_);
  std::vector<User> out;
  out.reserve(users_.size());
  for (const auto& e : users_) out.push_back(e.user);
  return out;
}

std::optional<User> UserSet::FindUser(const std::string& id) const {
  std::shared_lock lock(mu_);
  const Entry* e = FindLocked(id);
  if (!e) return std::nullopt;
  return e->user;
}

void UserSet::CreateUser(User u) {
  std::unique_lock lock(mu_);
  if (FindLocked(u.id)) throw errors::Conflict();
  users_.push_back(Entry{std::move(u), {}});
}

void UserSet::ReplaceUser(const std::string& id, const User& u, const std::optional<std::string>& if_match) {
  std::unique_lock lock(mu_);
  Entry* e = FindLocked(id);
  if (!e) throw errors::NotFound();
  if (if_match && *if_match != "*" && *if_match != e->user.etag) throw errors::PreconditionFailed();
  if (u.id != id && FindLocked(u.id)) throw errors::Conflict();
  e->user.id = u.id;
  e->user.etag = u.etag;
  e->user.ts = u.ts;
}

bool UserSet::DeleteUser(const std::string& id) {
  std::unique_lock lock(mu_);
  auto it = std::find_if(users_.begin(), users_.end(), [&](const Entry& e) { return e.user.id == id; });
  if (it == users_.end()) return false;
  users_.erase(it);
  return true;
}

std::optional<std::vector<PermissionPtr>> UserSet::Permissions(const std::string& user_id) const {
  std::shared_lock lock(mu_);
  const Entry* e = FindLocked(user_id);
  if (!e) return std::nullopt;
  return e->permissions;
}

PermissionPtr UserSet::FindPermission(const std::string& user_id, const std::string& id) const {
  std::shared_lock lock(mu_);
  const Entry* e = FindLocked(user_id);
  if (!e) return nullptr;
  for (const auto& p : e->permissions) {
    if (p->id == id) return p;
  }
  return nullptr;
}

PermissionPtr UserSet::FindPermissionByRid(const std::string& rid, std::string* user_rid) const {
  std::shared_lock lock(mu_);
  for (const auto& e : users_) {
    for (const auto& p : e.permissions) {
      if (p->rid != rid) continue;
      if (user_rid) *user_rid = e.user.rid;
      return p;
    }
  }
  return nullptr;
}

void UserSet::CheckUniqueLocked(const Entry& e, const Permission& p, const std::string* except) {
  for (const auto& q : e.permissions) {
    if (except && q->id == *except) continue;
    // One permission per resource and user, as the service allows.
    if (q->id == p.id || q->scope == p.scope) throw errors::Conflict();
  }
}

void UserSet::CreatePermission(const std::string& user_id, PermissionPtr p) {
  std::unique_lock lock(mu_);
  Entry* e = FindLocked(user_id);
  if (!e) throw errors::NotFound();
  CheckUniqueLocked(*e, *p, nullptr);
  e->permissions.push_back(std::move(p));
}

void UserSet::ReplacePermission(const std::string& user_id, const std::string& id, PermissionPtr p,
                                const std::optional<std::string>& if_match) {
  std::unique_lock lock(mu_);
  Entry* e = FindLocked(user_id);
  if (!e) throw errors::NotFound();
  auto it = std::find_if(e->permissions.begin(), e->permissions.end(),
                         [&](const PermissionPtr& q) { return q->id == id; });
  if (it == e->permissions.end()) throw errors::NotFound();
  if (if_match && *if_match != "*" && *if_match != (*it)->etag) throw errors::PreconditionFailed();
  CheckUniqueLocked(*e, *p, &id);
  *it = std::move(p);
}

bool UserSet::DeletePermission(const std::string& user_id, const std::string& id) {
  std::unique_lock lock(mu_);
  Entry* e = FindLocked(user_id);
  if (!e) return false;
  auto it = std::find_if(e->permissions.begin(), e->permissions.end(),
                         [&](const PermissionPtr& q) { return q->id == id; });
  if (it == e->permissions.end()) return false;
  e->permissions.erase(it);
  return true;
}

std::vector<UserSet::UserEntry> UserSet::All() const {
  std::shared_lock lock(mu_);
  return users_;
}

void UserSet::Restore(std::vector<UserEntry> users, uint32_t user_counter, uint64_t permission_counter) {
  std::unique_lock lock(mu_);
  users_ = std::move(users);
  user_counter_ = std::max(user_counter_.load(), user_counter);
  permission_counter_ = std::max(permission_counter_.load(), permission_counter);
}

}  // namespace cosmos::store
