#include "http/routes.h"

#include "http/headers.h"
#include "handlers/handlers.h"
#include "util/util.h"

namespace cosmos::http {
namespace {

using V = beast_http::verb;
using Op = Operation;
namespace h = handlers;

bool BoolHeader(const Request& req, std::string_view name) {
  auto it = req.find(boost::beast::string_view(name.data(), name.size()));
  return it != req.end() && util::EqualsIgnoreCase(std::string_view(it->value().data(), it->value().size()), "true");
}

// The operations' facts (OperationFacts): fault type, report name, data plane, point, changes
// metadata, and the data action role-based access control checks for an Entra ID token
// (docs/entra-id.md; kManagement: never served to a token, 403/5300).
using A = RbacAction;
constexpr OperationFacts kAccount{.fault_type = "MetadataDatabaseAccount", .rbac = A::kReadMetadata};
// Databases and containers read, listed or queried: metadata reads.
constexpr OperationFacts kMetadata{.fault_type = "Metadata", .rbac = A::kReadMetadata};
// Reads of what only the management plane serves to a token: scripts, users and permissions, offers.
constexpr OperationFacts kManagementRead{.fault_type = "Metadata"};
constexpr OperationFacts kMetadataChange{.fault_type = "Metadata", .changes_metadata = true};
constexpr OperationFacts kConflicts{.fault_type = "Metadata", .rbac = A::kManageConflicts};
constexpr OperationFacts kContainerRead{.fault_type = "MetadataContainer", .rbac = A::kReadMetadata};  // the container itself
constexpr OperationFacts kContainerChange{.fault_type = "MetadataContainer", .changes_metadata = true};
constexpr OperationFacts kRanges{.fault_type = "MetadataPartitionKeyRange", .rbac = A::kReadMetadata};
constexpr OperationFacts kAddresses{.fault_type = "Metadata", .rbac = A::kReadMetadata};  // Direct mode's replica addresses
constexpr OperationFacts kDeleteByPartitionKey{.fault_type = "Metadata", .report_name = "deleteAllItemsForPartitionKey",
                                               .rbac = A::kDeleteItem};
constexpr OperationFacts kCreateItem{.fault_type = "CreateItem", .report_name = "create", .data_plane = true, .point = true,
                                     .rbac = A::kCreateItem};
constexpr OperationFacts kUpsertItem{.fault_type = "UpsertItem", .report_name = "upsert", .data_plane = true, .point = true,
                                     .rbac = A::kUpsertItem};
constexpr OperationFacts kQueryItems{.fault_type = "QueryItem", .report_name = "query", .data_plane = true,
                                     .rbac = A::kExecuteQuery};
constexpr OperationFacts kQueryPlan{.fault_type = "MetadataQueryPlan", .rbac = A::kExecuteQuery};
constexpr OperationFacts kBatch{.fault_type = "Batch", .report_name = "batch", .data_plane = true, .rbac = A::kBatchItems};
constexpr OperationFacts kBulk{.fault_type = "Batch", .report_name = "bulk", .data_plane = true, .rbac = A::kBatchItems};
constexpr OperationFacts kReadFeed{.fault_type = "ReadFeed", .report_name = "readFeed", .data_plane = true,
                                   .rbac = A::kReadChangeFeed};
constexpr OperationFacts kChangeFeed{.fault_type = "ChangeFeed", .report_name = "changeFeed", .data_plane = true,
                                     .rbac = A::kReadChangeFeed};
constexpr OperationFacts kReadItem{.fault_type = "ReadItem", .report_name = "read", .data_plane = true, .point = true,
                                   .rbac = A::kReadItem};
constexpr OperationFacts kReplaceItem{.fault_type = "ReplaceItem", .report_name = "replace", .data_plane = true,
                                      .point = true, .rbac = A::kReplaceItem};
constexpr OperationFacts kDeleteItem{.fault_type = "DeleteItem", .report_name = "delete", .data_plane = true, .point = true,
                                     .rbac = A::kDeleteItem};
// A patch changes part of an item: the service documents no action of its own for it.
constexpr OperationFacts kPatchItem{.fault_type = "PatchItem", .report_name = "patch", .data_plane = true, .point = true,
                                    .rbac = A::kReplaceItem};
constexpr OperationFacts kExecute{.fault_type = "ExecuteStoredProcedure", .report_name = "storedProcedure",
                                  .data_plane = true, .rbac = A::kExecuteStoredProcedure};

const std::vector<Route>& Table() {
  static const std::vector<Route> kRoutes = {
      {{}, V::get, Op::kPlain, h::ReadAccount, kAccount},
      // Direct mode's address feed (//addresses/ as .NET asks: empty segments are dropped).
      {{"addresses"}, V::get, Op::kPlain, h::ReadAddresses, kAddresses},

      {{"dbs"}, V::post, Op::kPlain, h::CreateDatabase, kMetadataChange},
      {{"dbs"}, V::post, Op::kQuery, h::QueryDatabases, kMetadata},
      {{"dbs"}, V::get, Op::kPlain, h::ListDatabases, kMetadata},
      {{"dbs", "{db}"}, V::get, Op::kPlain, h::ReadDatabase, kMetadata},
      {{"dbs", "{db}"}, V::delete_, Op::kPlain, h::DeleteDatabase, kMetadataChange},

      {{"dbs", "{db}", "colls"}, V::post, Op::kPlain, h::CreateContainer, kMetadataChange},
      {{"dbs", "{db}", "colls"}, V::post, Op::kQuery, h::QueryContainers, kMetadata},
      {{"dbs", "{db}", "colls"}, V::get, Op::kPlain, h::ListContainers, kMetadata},
      {{"dbs", "{db}", "colls", "{coll}"}, V::get, Op::kPlain, h::ReadContainer, kContainerRead},
      {{"dbs", "{db}", "colls", "{coll}"}, V::put, Op::kPlain, h::ReplaceContainer, kContainerChange},
      {{"dbs", "{db}", "colls", "{coll}"}, V::delete_, Op::kPlain, h::DeleteContainer, kContainerChange},
      {{"dbs", "{db}", "colls", "{coll}", "pkranges"}, V::get, Op::kPlain, h::ListPartitionKeyRanges, kRanges},
      {{"dbs", "{db}", "colls", "{coll}", "operations", "partitionkeydelete"}, V::post, Op::kPlain,
       h::DeleteAllItemsForPartitionKey, kDeleteByPartitionKey},
      {{"dbs", "{db}", "colls", "{coll}", "conflicts"}, V::get, Op::kPlain, h::ListConflicts, kConflicts},
      {{"dbs", "{db}", "colls", "{coll}", "conflicts"}, V::post, Op::kQuery, h::QueryConflicts, kConflicts},
      {{"dbs", "{db}", "colls", "{coll}", "conflicts", "{id}"}, V::get, Op::kPlain, h::ReadConflict, kConflicts},
      {{"dbs", "{db}", "colls", "{coll}", "conflicts", "{id}"}, V::delete_, Op::kPlain, h::DeleteConflict, kConflicts},

      {{"dbs", "{db}", "colls", "{coll}", "docs"}, V::post, Op::kPlain, h::CreateDocument, kCreateItem},
      {{"dbs", "{db}", "colls", "{coll}", "docs"}, V::post, Op::kUpsert, h::UpsertDocument, kUpsertItem},
      {{"dbs", "{db}", "colls", "{coll}", "docs"}, V::post, Op::kQuery, h::QueryDocuments, kQueryItems},
      {{"dbs", "{db}", "colls", "{coll}", "docs"}, V::post, Op::kQueryPlan, h::QueryPlan, kQueryPlan},
      {{"dbs", "{db}", "colls", "{coll}", "docs"}, V::post, Op::kBatch, h::ExecuteBatch, kBatch},
      {{"dbs", "{db}", "colls", "{coll}", "docs"}, V::post, Op::kBulk, h::ExecuteBulk, kBulk},
      {{"dbs", "{db}", "colls", "{coll}", "docs"}, V::get, Op::kPlain, h::ReadDocumentFeed, kReadFeed},
      {{"dbs", "{db}", "colls", "{coll}", "docs"}, V::get, Op::kChangeFeed, h::ReadChangeFeed, kChangeFeed},
      {{"dbs", "{db}", "colls", "{coll}", "docs", "{id}"}, V::get, Op::kPlain, h::ReadDocument, kReadItem},
      {{"dbs", "{db}", "colls", "{coll}", "docs", "{id}"}, V::put, Op::kPlain, h::ReplaceDocument, kReplaceItem},
      {{"dbs", "{db}", "colls", "{coll}", "docs", "{id}"}, V::delete_, Op::kPlain, h::DeleteDocument, kDeleteItem},
      {{"dbs", "{db}", "colls", "{coll}", "docs", "{id}"}, V::patch, Op::kPlain, h::PatchDocument, kPatchItem},

      {{"dbs", "{db}", "colls", "{coll}", "sprocs"}, V::post, Op::kPlain, h::CreateScript, kMetadataChange},
      {{"dbs", "{db}", "colls", "{coll}", "sprocs"}, V::post, Op::kUpsert, h::UpsertScript, kMetadataChange},
      {{"dbs", "{db}", "colls", "{coll}", "sprocs"}, V::post, Op::kQuery, h::QueryScripts, kManagementRead},
      {{"dbs", "{db}", "colls", "{coll}", "sprocs"}, V::get, Op::kPlain, h::ListScripts, kManagementRead},
      {{"dbs", "{db}", "colls", "{coll}", "sprocs", "{id}"}, V::get, Op::kPlain, h::ReadScript, kManagementRead},
      {{"dbs", "{db}", "colls", "{coll}", "sprocs", "{id}"}, V::put, Op::kPlain, h::ReplaceScript, kMetadataChange},
      {{"dbs", "{db}", "colls", "{coll}", "sprocs", "{id}"}, V::delete_, Op::kPlain, h::DeleteScript, kMetadataChange},
      {{"dbs", "{db}", "colls", "{coll}", "sprocs", "{id}"}, V::post, Op::kPlain, h::ExecuteStoredProcedure, kExecute},
      {{"dbs", "{db}", "colls", "{coll}", "triggers"}, V::post, Op::kPlain, h::CreateScript, kMetadataChange},
      {{"dbs", "{db}", "colls", "{coll}", "triggers"}, V::post, Op::kUpsert, h::UpsertScript, kMetadataChange},
      {{"dbs", "{db}", "colls", "{coll}", "triggers"}, V::post, Op::kQuery, h::QueryScripts, kManagementRead},
      {{"dbs", "{db}", "colls", "{coll}", "triggers"}, V::get, Op::kPlain, h::ListScripts, kManagementRead},
      {{"dbs", "{db}", "colls", "{coll}", "triggers", "{id}"}, V::get, Op::kPlain, h::ReadScript, kManagementRead},
      {{"dbs", "{db}", "colls", "{coll}", "triggers", "{id}"}, V::put, Op::kPlain, h::ReplaceScript, kMetadataChange},
      {{"dbs", "{db}", "colls", "{coll}", "triggers", "{id}"}, V::delete_, Op::kPlain, h::DeleteScript, kMetadataChange},
      {{"dbs", "{db}", "colls", "{coll}", "udfs"}, V::post, Op::kPlain, h::CreateScript, kMetadataChange},
      {{"dbs", "{db}", "colls", "{coll}", "udfs"}, V::post, Op::kUpsert, h::UpsertScript, kMetadataChange},
      {{"dbs", "{db}", "colls", "{coll}", "udfs"}, V::post, Op::kQuery, h::QueryScripts, kManagementRead},
      {{"dbs", "{db}", "colls", "{coll}", "udfs"}, V::get, Op::kPlain, h::ListScripts, kManagementRead},
      {{"dbs", "{db}", "colls", "{coll}", "udfs", "{id}"}, V::get, Op::kPlain, h::ReadScript, kManagementRead},
      {{"dbs", "{db}", "colls", "{coll}", "udfs", "{id}"}, V::put, Op::kPlain, h::ReplaceScript, kMetadataChange},
      {{"dbs", "{db}", "colls", "{coll}", "udfs", "{id}"}, V::delete_, Op::kPlain, h::DeleteScript, kMetadataChange},

      {{"dbs", "{db}", "users"}, V::post, Op::kPlain, h::CreateUser, kMetadataChange},
      {{"dbs", "{db}", "users"}, V::post, Op::kUpsert, h::UpsertUser, kMetadataChange},
      {{"dbs", "{db}", "users"}, V::post, Op::kQuery, h::QueryUsers, kManagementRead},
      {{"dbs", "{db}", "users"}, V::get, Op::kPlain, h::ListUsers, kManagementRead},
      {{"dbs", "{db}", "users", "{user}"}, V::get, Op::kPlain, h::ReadUser, kManagementRead},
      {{"dbs", "{db}", "users", "{user}"}, V::put, Op::kPlain, h::ReplaceUser, kMetadataChange},
      {{"dbs", "{db}", "users", "{user}"}, V::delete_, Op::kPlain, h::DeleteUser, kMetadataChange},
      {{"dbs", "{db}", "users", "{user}", "permissions"}, V::post, Op::kPlain, h::CreatePermission, kMetadataChange},
      {{"dbs", "{db}", "users", "{user}", "permissions"}, V::post, Op::kUpsert, h::UpsertPermission, kMetadataChange},
      {{"dbs", "{db}", "users", "{user}", "permissions"}, V::post, Op::kQuery, h::QueryPermissions, kManagementRead},
      {{"dbs", "{db}", "users", "{user}", "permissions"}, V::get, Op::kPlain, h::ListPermissions, kManagementRead},
      {{"dbs", "{db}", "users", "{user}", "permissions", "{id}"}, V::get, Op::kPlain, h::ReadPermission, kManagementRead},
      {{"dbs", "{db}", "users", "{user}", "permissions", "{id}"}, V::put, Op::kPlain, h::ReplacePermission, kMetadataChange},
      {{"dbs", "{db}", "users", "{user}", "permissions", "{id}"}, V::delete_, Op::kPlain, h::DeletePermission, kMetadataChange},

      {{"dbs", "{db}", "clientencryptionkeys"}, V::post, Op::kPlain, h::CreateClientEncryptionKey, kMetadataChange},
      {{"dbs", "{db}", "clientencryptionkeys"}, V::post, Op::kQuery, h::QueryClientEncryptionKeys, kMetadata},
      {{"dbs", "{db}", "clientencryptionkeys"}, V::get, Op::kPlain, h::ListClientEncryptionKeys, kMetadata},
      {{"dbs", "{db}", "clientencryptionkeys", "{id}"}, V::get, Op::kPlain, h::ReadClientEncryptionKey, kMetadata},
      {{"dbs", "{db}", "clientencryptionkeys", "{id}"}, V::put, Op::kPlain, h::ReplaceClientEncryptionKey, kMetadataChange},

      {{"offers"}, V::get, Op::kPlain, h::ListOffers, kManagementRead},
      {{"offers"}, V::post, Op::kQuery, h::QueryOffers, kManagementRead},
      {{"offers", "{id}"}, V::get, Op::kPlain, h::ReadOffer, kManagementRead},
      {{"offers", "{id}"}, V::put, Op::kPlain, h::ReplaceOffer, kMetadataChange},
  };
  return kRoutes;
}

// Resources of the service this emulator does not serve yet: any verb answers 501.
const std::vector<std::vector<std::string_view>>& Unimplemented() {
  static const std::vector<std::vector<std::string_view>> kPaths = {
      {"dbs", "{db}", "colls", "{coll}", "docs", "{doc}", "attachments"},
      {"dbs", "{db}", "colls", "{coll}", "docs", "{doc}", "attachments", "{id}"},
  };
  return kPaths;
}

bool IsParam(std::string_view s) { return s.size() >= 2 && s.front() == '{' && s.back() == '}'; }

bool Matches(const std::vector<std::string_view>& pattern, const std::vector<std::string>& segments) {
  if (pattern.size() != segments.size()) return false;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (!IsParam(pattern[i]) && pattern[i] != segments[i]) return false;
  }
  return true;
}

}  // namespace

std::string_view TargetPath(std::string_view target) {
  const size_t q = target.find('?');
  if (q == std::string_view::npos) return target;
  // The segments before the '?': "", "dbs", db, "colls", coll, "docs", and the id's beginning.
  const auto parts = util::Split(target.substr(0, q), '/');
  const bool in_item_id = parts.size() == 7 && parts[0].empty() && parts[1] == "dbs" && !parts[2].empty() &&
                          parts[3] == "colls" && !parts[4].empty() && parts[5] == "docs";
  return in_item_id ? target : target.substr(0, q);
}

std::string_view TargetQuery(std::string_view target) {
  const std::string_view path = TargetPath(target);
  return path.size() < target.size() ? target.substr(path.size() + 1) : std::string_view();
}

bool SplitPath(std::string_view path, std::vector<std::string>& out) {
  path = TargetPath(path);
  size_t i = 0;
  while (i < path.size()) {
    size_t end = path.find('/', i);
    if (end == std::string_view::npos) end = path.size();
    if (end > i) {
      auto decoded = util::PercentDecode(path.substr(i, end - i));
      if (!decoded) return false;
      out.push_back(std::move(*decoded));
    }
    i = end + 1;
  }
  return true;
}

Operation OperationOf(const Request& req) {
  switch (req.method()) {
    case V::post: {
      if (BoolHeader(req, headers::kIsQueryPlanRequest)) return Op::kQueryPlan;
      if (BoolHeader(req, headers::kIsQuery)) return Op::kQuery;
      auto ct = req.find(beast_http::field::content_type);
      if (ct != req.end() &&
          util::ToLower(std::string_view(ct->value().data(), ct->value().size())).starts_with("application/query+json"))
        return Op::kQuery;
      if (BoolHeader(req, headers::kIsBatchRequest)) {
        auto atomic = req.find(headers::kBatchAtomic);
        const bool bulk = atomic != req.end() &&
                          util::EqualsIgnoreCase(std::string_view(atomic->value().data(), atomic->value().size()), "false");
        return bulk ? Op::kBulk : Op::kBatch;
      }
      if (BoolHeader(req, headers::kIsUpsert)) return Op::kUpsert;
      return Op::kPlain;
    }
    case V::get:
      return req.find(headers::kAIm) != req.end() ? Op::kChangeFeed : Op::kPlain;
    default:
      return Op::kPlain;
  }
}

RouteResult FindRoute(const std::vector<std::string>& segments, beast_http::verb verb, Operation op) {
  RouteResult out;
  const Route* plain = nullptr;
  bool path_known = false, verb_known = false;
  for (const auto& r : Table()) {
    if (!Matches(r.pattern, segments)) continue;
    path_known = true;
    if (r.verb != verb) continue;
    verb_known = true;
    if (r.op == op) {
      out.match = RouteMatch::kFound;
      out.route = &r;
      out.handler = r.handler;
      return out;
    }
    if (r.op == Op::kPlain) plain = &r;
  }
  if (plain && (op == Op::kUpsert || op == Op::kChangeFeed)) {
    out.match = RouteMatch::kFound;
    out.route = plain;
    out.handler = plain->handler;
    return out;
  }
  if (verb_known && op != Op::kPlain) {
    out.match = RouteMatch::kWrongOperation;
    return out;
  }
  if (path_known) {
    // Also a plain POST where the path only serves queries (POST /offers creates nothing).
    out.match = RouteMatch::kWrongVerb;
    return out;
  }
  for (const auto& p : Unimplemented()) {
    if (Matches(p, segments)) {
      out.match = RouteMatch::kFound;
      out.handler = h::NotYetImplemented;
      return out;
    }
  }
  return out;
}

const std::vector<Route>& Routes() { return Table(); }

const Route* RouteOf(const Request& req) {
  std::string_view target(req.target().data(), req.target().size());
  std::vector<std::string> segments;
  if (!SplitPath(target, segments)) return nullptr;
  return FindRoute(segments, req.method(), OperationOf(req)).route;
}

std::vector<std::pair<std::string, std::string>> BindParams(const Route& route, const std::vector<std::string>& segments) {
  std::vector<std::pair<std::string, std::string>> out;
  for (size_t i = 0; i < route.pattern.size() && i < segments.size(); ++i) {
    if (IsParam(route.pattern[i]))
      out.emplace_back(std::string(route.pattern[i].substr(1, route.pattern[i].size() - 2)), segments[i]);
  }
  return out;
}

}  // namespace cosmos::http
