#include "http/rbac.h"

#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/errors.h"
#include "http/replica_address.h"
#include "http/rid_links.h"
#include "json/json.h"
#include "store/store.h"
#include "util/util.h"

namespace cosmos::http {
namespace {

constexpr std::string_view kActionPrefix = "Microsoft.DocumentDB/databaseAccounts/";
constexpr std::string_view kLearnMore = " Learn more: https://aka.ms/cosmos-native-rbac.";

// Every data action the service defines, and the two wildcards it accepts (at the container and
// the item level; reference-data-plane-actions).
constexpr std::string_view kValidActions[] = {
    "Microsoft.DocumentDB/databaseAccounts/readMetadata",
    "Microsoft.DocumentDB/databaseAccounts/sqlDatabases/containers/items/create",
    "Microsoft.DocumentDB/databaseAccounts/sqlDatabases/containers/items/read",
    "Microsoft.DocumentDB/databaseAccounts/sqlDatabases/containers/items/replace",
    "Microsoft.DocumentDB/databaseAccounts/sqlDatabases/containers/items/upsert",
    "Microsoft.DocumentDB/databaseAccounts/sqlDatabases/containers/items/delete",
    "Microsoft.DocumentDB/databaseAccounts/sqlDatabases/containers/executeQuery",
    "Microsoft.DocumentDB/databaseAccounts/sqlDatabases/containers/readChangeFeed",
    "Microsoft.DocumentDB/databaseAccounts/sqlDatabases/containers/executeStoredProcedure",
    "Microsoft.DocumentDB/databaseAccounts/sqlDatabases/containers/manageConflicts",
    "Microsoft.DocumentDB/databaseAccounts/sqlDatabases/containers/*",
    "Microsoft.DocumentDB/databaseAccounts/sqlDatabases/containers/items/*",
};

std::string BlockedPrefix() { return std::string("Request blocked by Auth ") + kAccountId + " : "; }

// Whether granted action `granted` (maybe "<prefix>/*": every action directly under the prefix)
// covers `action`. Action names compare without regard to case, as ARM's do.
bool Covers(std::string_view granted, std::string_view action) {
  if (util::EqualsIgnoreCase(granted, action)) return true;
  if (granted.size() < 2 || !granted.ends_with("/*")) return false;
  const std::string_view prefix = granted.substr(0, granted.size() - 1);  // with its '/'
  if (action.size() <= prefix.size() || !util::EqualsIgnoreCase(action.substr(0, prefix.size()), prefix)) return false;
  return action.substr(prefix.size()).find('/') == std::string_view::npos;
}

// Whether assignment scope `scope` contains `resource` (both normalized).
bool ScopeContains(std::string_view scope, std::string_view resource) {
  if (scope == "/") return true;
  return resource == scope || (resource.size() > scope.size() && resource.starts_with(scope) &&
                               resource[scope.size()] == '/');
}

// A member of `o` by name, without regard to case (the ARM shapes are camelCase, the CLI's bodies
// PascalCase); null when absent.
const json::Value* Member(const json::Value& o, std::string_view name) {
  if (!o.IsObject()) return nullptr;
  for (auto it = o.MemberBegin(); it != o.MemberEnd(); ++it) {
    if (util::EqualsIgnoreCase(std::string_view(it->name.GetString(), it->name.GetStringLength()), name))
      return &it->value;
  }
  return nullptr;
}

std::string StringMember(const json::Value& o, std::string_view name) {
  const json::Value* v = Member(o, name);
  return v && v->IsString() ? std::string(v->GetString(), v->GetStringLength()) : std::string();
}

// The properties of an ARM resource ({"id", "name", "properties": {...}}) or the object itself.
const json::Value& Properties(const json::Value& o) {
  const json::Value* p = Member(o, "properties");
  return p && p->IsObject() ? *p : o;
}

CosmosError RbacBadRequest(const std::string& text) { return CosmosError(400, 0, "BadRequest", text); }

// A role definition's id from an ARM id (".../sqlRoleDefinitions/<guid>") or a GUID.
std::string RoleDefinitionId(std::string_view text) {
  const size_t slash = text.rfind('/');
  return util::ToLower(slash == std::string_view::npos ? text : text.substr(slash + 1));
}

std::vector<std::string> StringArray(const json::Value& o, std::string_view name, const std::string& where) {
  std::vector<std::string> out;
  const json::Value* v = Member(o, name);
  if (!v) return out;
  if (!v->IsArray()) throw RbacBadRequest(where + ": " + std::string(name) + " must be an array of strings.");
  for (const auto& e : v->GetArray()) {
    if (!e.IsString()) throw RbacBadRequest(where + ": " + std::string(name) + " must be an array of strings.");
    out.emplace_back(e.GetString(), e.GetStringLength());
  }
  return out;
}

// An entry's id, as the ARM shapes give it: its "name", else the last segment of its "id"; empty
// when it has neither.
std::string EntryId(const json::Value& entry) {
  std::string id = RoleDefinitionId(StringMember(entry, "name"));
  return id.empty() ? RoleDefinitionId(StringMember(entry, "id")) : id;
}

RoleDefinition ParseDefinition(const json::Value& entry, size_t index) {
  const std::string where = "roleDefinitions[" + std::to_string(index) + "]";
  if (!entry.IsObject()) throw RbacBadRequest(where + " must be an object.");
  const json::Value& p = Properties(entry);
  RoleDefinition d;
  d.id = EntryId(entry);
  if (d.id.empty()) throw RbacBadRequest(where + " needs its id (\"name\" or \"id\": a GUID).");
  d.role_name = StringMember(p, "roleName");
  if (d.role_name.empty()) throw RbacBadRequest(where + " needs a roleName.");
  const std::string type = StringMember(p, "type");
  if (!type.empty() && !util::EqualsIgnoreCase(type, "CustomRole"))
    throw RbacBadRequest(where + ": type must be CustomRole (the built-in roles cannot be defined).");
  for (const auto& s : StringArray(p, "assignableScopes", where)) {
    auto n = NormalizeScope(s);
    if (!n) throw RbacBadRequest(where + ": the assignable scope [" + s + "] is not /, /dbs/<db> or /dbs/<db>/colls/<coll>.");
    d.assignable_scopes.push_back(*n);
  }
  if (d.assignable_scopes.empty()) throw RbacBadRequest(where + " needs at least one assignableScopes entry.");
  const json::Value* perms = Member(p, "permissions");
  if (!perms || !perms->IsArray()) throw RbacBadRequest(where + " needs permissions: [{\"dataActions\": [...]}].");
  for (const auto& perm : perms->GetArray()) {
    if (!perm.IsObject()) throw RbacBadRequest(where + ": each permission must be an object.");
    if (!StringArray(perm, "notDataActions", where).empty())
      throw RbacBadRequest(where + ": notDataActions is not supported by Azure Cosmos DB's role-based access control; "
                           "list the allowed dataActions only.");
    for (const auto& a : StringArray(perm, "dataActions", where)) {
      bool valid = false;
      for (auto v : kValidActions) valid = valid || util::EqualsIgnoreCase(v, a);
      if (!valid)
        throw RbacBadRequest("The provided data action string [" + a +
                             "] does not correspond to any valid SQL data action.");
      d.data_actions.push_back(a);
    }
  }
  return d;
}

RoleAssignment ParseAssignment(const json::Value& entry, size_t index, const std::vector<RoleDefinition>& defs) {
  const std::string where = "roleAssignments[" + std::to_string(index) + "]";
  if (!entry.IsObject()) throw RbacBadRequest(where + " must be an object.");
  const json::Value& p = Properties(entry);
  RoleAssignment a;
  a.id = EntryId(entry);
  if (a.id.empty()) a.id = util::NewUuid();
  a.role_definition_id = RoleDefinitionId(StringMember(p, "roleDefinitionId"));
  const RoleDefinition* def = nullptr;
  for (const auto& d : defs)
    if (d.id == a.role_definition_id) def = &d;
  if (!def)
    throw RbacBadRequest(where + ": roleDefinitionId [" + StringMember(p, "roleDefinitionId") +
                         "] names no role definition.");
  const std::string scope = StringMember(p, "scope");
  auto n = NormalizeScope(scope.empty() ? "/" : scope);
  if (!n) throw RbacBadRequest(where + ": the scope [" + scope + "] is not /, /dbs/<db> or /dbs/<db>/colls/<coll>.");
  a.scope = *n;
  bool assignable = false;
  for (const auto& s : def->assignable_scopes) assignable = assignable || ScopeContains(s, a.scope);
  if (!assignable)
    throw RbacBadRequest(where + ": the scope [" + a.scope + "] is not within the assignable scopes of role " +
                         def->role_name + ".");
  a.principal_id = util::ToLower(StringMember(p, "principalId"));
  if (a.principal_id.empty()) throw RbacBadRequest(where + " needs a principalId (an object id, or \"*\").");
  return a;
}

void WriteStrings(std::string& out, const std::vector<std::string>& v) {
  out += '[';
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) out += ',';
    json::WriteString(out, v[i]);
  }
  out += ']';
}

// The roles as GET /_emulator/rbac answers them and Replace reads them again: ARM shapes.
std::string RolesJson(const std::vector<RoleDefinition>& definitions, const std::vector<RoleAssignment>& assignments) {
  std::string out = "{\"roleDefinitions\":[";
  for (size_t i = 0; i < definitions.size(); ++i) {
    const auto& d = definitions[i];
    if (i) out += ',';
    out += "{\"id\":" + json::Quote(d.id) + ",\"name\":" + json::Quote(d.id) +
           ",\"type\":\"Microsoft.DocumentDB/databaseAccounts/sqlRoleDefinitions\",\"properties\":{\"roleName\":" +
           json::Quote(d.role_name) + ",\"type\":" + (d.built_in ? "\"BuiltInRole\"" : "\"CustomRole\"") +
           ",\"assignableScopes\":";
    WriteStrings(out, d.assignable_scopes);
    out += ",\"permissions\":[{\"dataActions\":";
    WriteStrings(out, d.data_actions);
    out += ",\"notDataActions\":[]}]}}";
  }
  out += "],\"roleAssignments\":[";
  for (size_t i = 0; i < assignments.size(); ++i) {
    const auto& a = assignments[i];
    if (i) out += ',';
    out += "{\"id\":" + json::Quote(a.id) + ",\"name\":" + json::Quote(a.id) +
           ",\"type\":\"Microsoft.DocumentDB/databaseAccounts/sqlRoleAssignments\",\"properties\":{"
           "\"roleDefinitionId\":" + json::Quote(a.role_definition_id) + ",\"scope\":" + json::Quote(a.scope) +
           ",\"principalId\":" + json::Quote(a.principal_id) + "}}";
  }
  out += "]}";
  return out;
}

std::vector<RoleDefinition> BuiltInRoles() {
  const std::string p(kActionPrefix);
  return {
      {std::string(kDataReaderRoleId), "Cosmos DB Built-in Data Reader", true, {"/"},
       {p + "readMetadata", p + "sqlDatabases/containers/executeQuery", p + "sqlDatabases/containers/readChangeFeed",
        p + "sqlDatabases/containers/items/read"}},
      {std::string(kDataContributorRoleId), "Cosmos DB Built-in Data Contributor", true, {"/"},
       {p + "readMetadata", p + "sqlDatabases/containers/*", p + "sqlDatabases/containers/items/*"}},
  };
}

// A batch operation's item action, from its operationType; nullopt for an unknown type (the
// handler refuses it).
std::optional<RbacAction> BatchOperationAction(std::string_view type) {
  if (util::EqualsIgnoreCase(type, "Create")) return RbacAction::kCreateItem;
  if (util::EqualsIgnoreCase(type, "Upsert")) return RbacAction::kUpsertItem;
  if (util::EqualsIgnoreCase(type, "Read")) return RbacAction::kReadItem;
  if (util::EqualsIgnoreCase(type, "Replace") || util::EqualsIgnoreCase(type, "Patch")) return RbacAction::kReplaceItem;
  if (util::EqualsIgnoreCase(type, "Delete")) return RbacAction::kDeleteItem;
  return std::nullopt;
}

// The request's path as the 5300 message echoes it: decoded, one leading slash.
std::string EchoedPath(const RequestContext& ctx) {
  std::string_view target(ctx.raw().target().data(), ctx.raw().target().size());
  target = target.substr(0, target.find('?'));
  std::string path = util::PercentDecode(target).value_or(std::string(target));
  size_t lead = 0;
  while (lead + 1 < path.size() && path[lead] == '/' && path[lead + 1] == '/') ++lead;
  return path.substr(lead);
}

}  // namespace

std::string_view RbacActionName(RbacAction a) {
  switch (a) {
    case RbacAction::kReadMetadata:
      return "Microsoft.DocumentDB/databaseAccounts/readMetadata";
    case RbacAction::kCreateItem:
      return "Microsoft.DocumentDB/databaseAccounts/sqlDatabases/containers/items/create";
    case RbacAction::kReadItem:
      return "Microsoft.DocumentDB/databaseAccounts/sqlDatabases/containers/items/read";
    case RbacAction::kReplaceItem:
      return "Microsoft.DocumentDB/databaseAccounts/sqlDatabases/containers/items/replace";
    case RbacAction::kUpsertItem:
      return "Microsoft.DocumentDB/databaseAccounts/sqlDatabases/containers/items/upsert";
    case RbacAction::kDeleteItem:
      return "Microsoft.DocumentDB/databaseAccounts/sqlDatabases/containers/items/delete";
    case RbacAction::kExecuteQuery:
      return "Microsoft.DocumentDB/databaseAccounts/sqlDatabases/containers/executeQuery";
    case RbacAction::kReadChangeFeed:
      return "Microsoft.DocumentDB/databaseAccounts/sqlDatabases/containers/readChangeFeed";
    case RbacAction::kExecuteStoredProcedure:
      return "Microsoft.DocumentDB/databaseAccounts/sqlDatabases/containers/executeStoredProcedure";
    case RbacAction::kManageConflicts:
      return "Microsoft.DocumentDB/databaseAccounts/sqlDatabases/containers/manageConflicts";
    case RbacAction::kManagement:
    case RbacAction::kBatchItems:
      break;
  }
  return {};
}

std::optional<std::string> NormalizeScope(std::string_view scope) {
  std::string s(util::Trim(scope));
  // The full ARM form: /subscriptions/.../providers/Microsoft.DocumentDB/databaseAccounts/<account>[/dbs/...].
  const std::string lower = util::ToLower(s);
  constexpr std::string_view kProvider = "/providers/microsoft.documentdb/databaseaccounts/";
  if (lower.starts_with("/subscriptions/")) {
    const size_t at = lower.find(kProvider);
    if (at == std::string::npos) return std::nullopt;
    const size_t account = at + kProvider.size();
    const size_t end = s.find('/', account);
    if (end == account) return std::nullopt;
    s = end == std::string::npos ? std::string() : s.substr(end);
  }
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  if (s.empty() || s == "/") return std::string("/");
  std::vector<std::string_view> parts;
  for (auto p : util::Split(std::string_view(s).substr(s.front() == '/' ? 1 : 0), '/')) parts.push_back(p);
  for (auto p : parts)
    if (p.empty()) return std::nullopt;
  if (parts.size() == 2 && parts[0] == "dbs") return "/dbs/" + std::string(parts[1]);
  if (parts.size() == 4 && parts[0] == "dbs" && parts[2] == "colls")
    return "/dbs/" + std::string(parts[1]) + "/colls/" + std::string(parts[3]);
  return std::nullopt;
}

std::vector<RbacAction> RequiredActions(const RequestContext& ctx) {
  const RbacAction a = ctx.facts().rbac;
  if (a != RbacAction::kBatchItems) return {a};
  std::vector<RbacAction> out;
  json::Document d;
  if (json::Parse(ctx.body(), d) != json::ParseStatus::kOk || !d.IsArray()) return out;
  for (const auto& op : d.GetArray()) {
    if (!op.IsObject()) continue;
    auto it = op.FindMember("operationType");
    if (it == op.MemberEnd() || !it->value.IsString()) continue;
    auto action = BatchOperationAction(std::string_view(it->value.GetString(), it->value.GetStringLength()));
    if (!action) continue;
    bool seen = false;
    for (auto x : out) seen = seen || x == *action;
    if (!seen) out.push_back(*action);
  }
  return out;
}

std::string RbacResource(Services& s, const RequestContext& ctx) {
  std::vector<std::string> seg = ctx.segments();
  if (seg.size() == 1 && seg[0] == "addresses") {
    // Direct mode's address feed: the container it resolves (dbs/{rid}/colls/{rid}/docs), else the account.
    seg.clear();
    for (auto p : util::Split(ctx.QueryParam("$resolveFor").value_or(""), '/'))
      if (!p.empty()) seg.emplace_back(p);
    if (seg.size() < 4 || seg[0] != "dbs" || seg[2] != "colls") return "/";
    seg.resize(4);
    if (IsRidPath(seg)) {
      try {
        seg = ResolveRidPath(s, seg);
      } catch (const CosmosError&) {
        return "/";  // the handler answers for a rid that names nothing
      }
    }
  }
  if (seg.size() < 2 || seg[0] != "dbs") return "/";
  if (seg.size() < 4 || seg[2] != "colls") return "/dbs/" + seg[1];
  return "/dbs/" + seg[1] + "/colls/" + seg[3];
}

RbacRoles::RbacRoles() : definitions_(BuiltInRoles()) {
  assignments_.push_back({"00000000-0000-0000-0000-000000000000", std::string(kDataContributorRoleId), "/", "*"});
}

void RbacRoles::Replace(std::string_view json_text, const std::function<void(const std::string& document)>& commit) {
  json::Document d;
  if (json::Parse(json_text, d) != json::ParseStatus::kOk || !d.IsObject())
    throw RbacBadRequest("The body must be a JSON object {\"roleDefinitions\": [...], \"roleAssignments\": [...]} "
                         "(docs/entra-id.md).");
  for (auto it = d.MemberBegin(); it != d.MemberEnd(); ++it) {
    const std::string_view name(it->name.GetString(), it->name.GetStringLength());
    if (!util::EqualsIgnoreCase(name, "roleDefinitions") && !util::EqualsIgnoreCase(name, "roleAssignments"))
      throw RbacBadRequest("Unknown member '" + std::string(name) +
                           "': the document holds roleDefinitions and roleAssignments only.");
  }
  std::vector<RoleDefinition> defs = BuiltInRoles();
  if (const json::Value* list = Member(d, "roleDefinitions")) {
    if (!list->IsArray()) throw RbacBadRequest("roleDefinitions must be an array.");
    size_t i = 0;
    for (const auto& e : list->GetArray()) {
      // The built-in roles as GET lists them: they are always there, as they are.
      if (util::EqualsIgnoreCase(StringMember(Properties(e), "type"), "BuiltInRole")) {
        const std::string id = RoleDefinitionId(StringMember(e, "name").empty() ? StringMember(e, "id") : StringMember(e, "name"));
        if (id != kDataReaderRoleId && id != kDataContributorRoleId)
          throw RbacBadRequest("roleDefinitions[" + std::to_string(i) + "]: " + id + " is not a built-in role.");
        ++i;
        continue;
      }
      RoleDefinition def = ParseDefinition(e, i++);
      for (const auto& other : defs) {
        if (other.id == def.id)
          throw RbacBadRequest("roleDefinitions[" + std::to_string(i - 1) + "]: the id " + def.id +
                               (other.built_in ? " is a built-in role's." : " is used twice."));
        if (other.role_name == def.role_name)
          throw RbacBadRequest("roleDefinitions[" + std::to_string(i - 1) + "]: the roleName " + def.role_name +
                               " is used twice.");
      }
      defs.push_back(std::move(def));
    }
  }
  std::vector<RoleAssignment> assignments;
  if (const json::Value* list = Member(d, "roleAssignments")) {
    if (!list->IsArray()) throw RbacBadRequest("roleAssignments must be an array.");
    size_t i = 0;
    for (const auto& e : list->GetArray()) assignments.push_back(ParseAssignment(e, i++, defs));
  }
  std::unique_lock lock(mu_);
  if (commit) commit(RolesJson(defs, assignments));
  definitions_ = std::move(defs);
  assignments_ = std::move(assignments);
}

std::string RbacRoles::ToJson() const {
  std::shared_lock lock(mu_);
  return RolesJson(definitions_, assignments_);
}

bool RbacRoles::Allows(const std::vector<std::string>& principals, std::string_view action, std::string_view resource,
                       bool& any_assignment) const {
  std::shared_lock lock(mu_);
  any_assignment = false;
  for (const auto& a : assignments_) {
    bool mine = a.principal_id == "*";
    for (const auto& p : principals) mine = mine || util::EqualsIgnoreCase(p, a.principal_id);
    if (!mine) continue;
    any_assignment = true;
    if (!ScopeContains(a.scope, resource)) continue;
    for (const auto& d : definitions_) {
      if (d.id != a.role_definition_id) continue;
      for (const auto& granted : d.data_actions)
        if (Covers(granted, action)) return true;
    }
  }
  return false;
}

std::string RbacRoles::Summary() const {
  std::shared_lock lock(mu_);
  if (assignments_.size() == 1 && assignments_[0].principal_id == "*" && assignments_[0].scope == "/" &&
      assignments_[0].role_definition_id == kDataContributorRoleId && definitions_.size() == 2)
    return "every Entra ID principal is a Cosmos DB Built-in Data Contributor on the whole account";
  return std::to_string(definitions_.size() - 2) + " custom role definitions, " + std::to_string(assignments_.size()) +
         " role assignments";
}

void ReplaceRoles(Services& s, std::string_view json_text) {
  store::Journal* journal = s.account.journal();
  // Recorded before they take effect: once the log refuses records, they must not change at all.
  if (journal) {
    if (std::string failure = journal->Failure(); !failure.empty())
      throw errors::Internal("The change could not be made durable: " + failure);
  }
  s.rbac->Replace(json_text, [&](const std::string& document) {
    std::string before = s.account.roles();
    if (document == before) return;  // kept already (--rbac with the same file at each start)
    s.account.set_roles(document);
    try {
      if (journal) journal->AccountChanged();
    } catch (...) {
      s.account.set_roles(std::move(before));
      throw;
    }
  });
}

RolesOrigin StartRoles(Services& s, std::string_view given) {
  if (!given.empty()) {
    ReplaceRoles(s, given);
    if (store::Journal* journal = s.account.journal()) journal->AwaitDurable();
    return RolesOrigin::kGiven;
  }
  const std::string kept = s.account.roles();
  if (kept.empty()) return RolesOrigin::kDefault;
  s.rbac->Replace(kept);
  return RolesOrigin::kKept;
}

void AuthorizeAad(Services& s, const RequestContext& ctx, const AadPrincipal& principal) {
  if (ctx.facts().rbac == RbacAction::kManagement)
    throw CosmosError(403, kRbacOperationNotSupported, "Forbidden",
                      BlockedPrefix() + "The given request [" + std::string(ctx.raw().method_string()) + " " +
                          EchoedPath(ctx) + "] cannot be authorized by AAD token in data plane." +
                          std::string(kLearnMore));
  static const RbacRoles kDefault;
  const RbacRoles& roles = s.rbac ? *s.rbac : kDefault;
  std::vector<std::string> principals = principal.groups;
  principals.push_back(principal.oid);
  const std::string resource = RbacResource(s, ctx);
  for (RbacAction a : RequiredActions(ctx)) {
    const std::string_view action = RbacActionName(a);
    bool any = false;
    if (roles.Allows(principals, action, resource, any)) continue;
    const std::string where = any ? "on resource [" + (resource == "/" ? resource : resource.substr(1)) + "]"
                                  : std::string("on any scope");
    throw CosmosError(403, kRbacUnauthorized, "Forbidden",
                      BlockedPrefix() + "Request is blocked because principal [" + principal.oid +
                          "] does not have required RBAC permissions to perform action [" + std::string(action) +
                          "] " + where + "." + std::string(kLearnMore));
  }
}

}  // namespace cosmos::http
