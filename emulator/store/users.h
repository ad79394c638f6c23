// The users of a database and their permissions. A permission grants Read or All on one
// container, one partition key of it, or one item or script in it; resource tokens are issued from
// permissions (http/auth.h) and checked against them on every request. Knows no HTTP.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <shared_mutex>
#include <string>
#include <vector>

namespace cosmos::store {

// What a permission grants access to, resolved to resource ids when it was written: a container
// (kind empty), or one item ("docs") or script ("sprocs", "triggers", "udfs") in it by id; with
// `pk`, only that logical partition.
struct PermissionScope {
  std::string db_rid;
  std::string coll_rid;
  std::string kind;      // "", "docs", "sprocs", "triggers", "udfs"
  std::string child_id;  // the item's or script's id (kind not empty)
  std::string pk;        // canonical partition key text; empty: every partition
  bool operator==(const PermissionScope&) const = default;
};

struct Permission {
  std::string id;
  std::string rid;
  std::string mode;                   // "Read" or "All" in any case, as given (and returned)
  std::string resource;               // the link as given
  std::string resource_pk_json;       // resourcePartitionKey as given (compact JSON); empty when absent
  PermissionScope scope;
  std::string etag;  // quoted
  int64_t ts = 0;
};
using PermissionPtr = std::shared_ptr<const Permission>;

struct User {
  std::string id;
  std::string rid;
  std::string etag;  // quoted
  int64_t ts = 0;
};

// One database's users, each with its permissions, in creation order. Thread-safe; every result
// is a copy or an immutable snapshot.
class UserSet {
 public:
  std::vector<User> Users() const;
  std::optional<User> FindUser(const std::string& id) const;
  // Throws Conflict when the id exists.
  void CreateUser(User u);
  // Gives user `id` the id, etag and time of `u` (its rid and permissions stay). Throws NotFound,
  // PreconditionFailed when `if_match` names another version, Conflict when the new id is taken.
  void ReplaceUser(const std::string& id, const User& u, const std::optional<std::string>& if_match);
  // Removes the user and its permissions; false when there is no such user.
  bool DeleteUser(const std::string& id);

  // nullopt when the user does not exist.
  std::optional<std::vector<PermissionPtr>> Permissions(const std::string& user_id) const;
  PermissionPtr FindPermission(const std::string& user_id, const std::string& id) const;
  // The permission with resource id `rid` and the rid of its user, wherever it is.
  PermissionPtr FindPermissionByRid(const std::string& rid, std::string* user_rid = nullptr) const;
  // Throws NotFound (no such user), Conflict (the id is taken, or another permission of the user
  // grants the same scope).
  void CreatePermission(const std::string& user_id, PermissionPtr p);
  // Replaces permission `id` by `p` (which may carry a new id). Throws NotFound,
  // PreconditionFailed, Conflict as above.
  void ReplacePermission(const std::string& user_id, const std::string& id, PermissionPtr p,
                         const std::optional<std::string>& if_match);
  // False when there is no such user or permission.
  bool DeletePermission(const std::string& user_id, const std::string& id);

  uint32_t NextUserNumber() { return ++user_counter_; }
  uint64_t NextPermissionNumber() { return ++permission_counter_; }

  // Every user with its permissions, and the counters (persistence).
  struct UserEntry {
    User user;
    std::vector<PermissionPtr> permissions;
  };
  std::vector<UserEntry> All() const;
  uint32_t user_counter() const { return user_counter_.load(); }
  uint64_t permission_counter() const { return permission_counter_.load(); }
  void Restore(std::vector<UserEntry> users, uint32_t user_counter, uint64_t permission_counter);

 private:
  using Entry = UserEntry;  // permissions in creation order
  Entry* FindLocked(const std::string& id);
  const Entry* FindLocked(const std::string& id) const;
  // Throws Conflict when another permission than `except` of `e` has `p`'s id or scope.
  static void CheckUniqueLocked(const Entry& e, const Permission& p, const std::string* except);

  mutable std::shared_mutex mu_;
  std::vector<Entry> users_;
  std::atomic<uint32_t> user_counter_{0};
  std::atomic<uint64_t> permission_counter_{0};
};

// Resource ids as the service shapes them: a user's is its database's 4 bytes and 4 more, a
// permission's is its user's 8 bytes and 8 more.
std::string UserRid(const std::string& db_rid, uint32_t n);
std::string PermissionRid(const std::string& user_rid, uint64_t n);

}  // namespace cosmos::store
