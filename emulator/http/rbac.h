// Data-plane role-based access control for Microsoft Entra ID principals (docs/entra-id.md): the
// built-in roles (Cosmos DB Built-in Data Reader and Data Contributor), custom role definitions
// with data actions and wildcards, assignments to principals at the account, a database or a
// container, and the check each request with a token passes: the data action its route names
// (OperationFacts::rbac) on the resource it addresses, or 403/5300 for a management operation,
// 403/5301 outside the principal's roles, with the service's messages.
#pragma once

#include <functional>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <vector>

#include "http/context.h"
#include "http/entra.h"

namespace cosmos::http {

inline constexpr int kRbacOperationNotSupported = 5300;  // a management operation with a token
inline constexpr int kRbacUnauthorized = 5301;           // outside the principal's roles

inline constexpr std::string_view kDataReaderRoleId = "00000000-0000-0000-0000-000000000001";
inline constexpr std::string_view kDataContributorRoleId = "00000000-0000-0000-0000-000000000002";

// The service's name of a data action ("Microsoft.DocumentDB/databaseAccounts/readMetadata", ...);
// empty for kManagement and kBatchItems, which are not actions themselves.
std::string_view RbacActionName(RbacAction a);

// The data actions a request needs: the route's, or for a batch each operation's item action (from
// its body's operationType; a body that does not parse needs none here, the handler answers 400).
std::vector<RbacAction> RequiredActions(const RequestContext& ctx);

// The resource a request addresses, as scopes name it: "/", "/dbs/{db}", "/dbs/{db}/colls/{coll}".
std::string RbacResource(Services& s, const RequestContext& ctx);

// "/", "/dbs/{db}" or "/dbs/{db}/colls/{coll}" from a scope as role assignments give it (that form,
// or the full ARM id of the account and below); nullopt when it is neither.
std::optional<std::string> NormalizeScope(std::string_view scope);

struct RoleDefinition {
  std::string id;  // a GUID
  std::string role_name;
  bool built_in = false;
  std::vector<std::string> assignable_scopes;  // normalized
  std::vector<std::string> data_actions;
};

struct RoleAssignment {
  std::string id;
  std::string role_definition_id;  // a GUID
  std::string scope;               // normalized
  std::string principal_id;        // an object id, a group's object id, or "*" (every principal)
};

// The account's role definitions and assignments. Thread-safe; replaced whole (--rbac FILE at
// start, PUT /_emulator/rbac while running).
class RbacRoles {
 public:
  // The built-in roles, and the default assignment: every principal ("*") is a Data Contributor
  // at "/" (what the SDKs' own test suites, which assign no roles, need).
  RbacRoles();
  // Replaces the custom role definitions and the assignments with the document's
  // ({"roleDefinitions": [...], "roleAssignments": [...]}, ARM shapes); throws CosmosError 400
  // naming what is wrong, and then changes nothing. `commit`, when given, is called with the new
  // roles as ToJson will write them, before they take effect and in the order replacements take
  // effect (persistence records them there); when it throws, nothing changes.
  void Replace(std::string_view json_text, const std::function<void(const std::string& document)>& commit = nullptr);
  // {"roleDefinitions": [built-in and custom], "roleAssignments": [...]}, ARM shapes.
  std::string ToJson() const;
  // Whether one of `principals` (the object id and the groups of a token) holds `action` on
  // `resource`; `any_assignment` is set to whether any assignment names one of them.
  bool Allows(const std::vector<std::string>& principals, std::string_view action, std::string_view resource,
              bool& any_assignment) const;
  // One line for the start report.
  std::string Summary() const;

 private:
  mutable std::shared_mutex mu_;
  std::vector<RoleDefinition> definitions_;
  std::vector<RoleAssignment> assignments_;
};

// Replaces the account's roles (RbacRoles::Replace) and keeps them with the account
// (store::Account::roles), recorded by its journal when it has one (persistence: --data-dir), so
// that they outlive a restart. Throws as Replace does, and 500 when they cannot be recorded.
void ReplaceRoles(Services& s, std::string_view json_text);

// Where the roles in force at start came from (StartRoles).
enum class RolesOrigin { kDefault, kGiven, kKept };

// The roles in force at start, once persistence has recovered the account: `given` (--rbac's
// document) when not empty, which replaces the ones the account kept and is kept from then on (as
// --seed's items replace recovered ones); else the ones the account kept (PUT /_emulator/rbac or
// an earlier --rbac, docs/entra-id.md); else the default. Throws CosmosError when the document
// cannot be used.
RolesOrigin StartRoles(Services& s, std::string_view given);

// Throws 403/5300 when the request is a management operation, 403/5301 when the principal's roles
// do not hold the action it needs on the resource it addresses.
void AuthorizeAad(Services& s, const RequestContext& ctx, const AadPrincipal& principal);

}  // namespace cosmos::http
