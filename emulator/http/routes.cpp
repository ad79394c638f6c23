#include "http/routes.h"

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

const std::vector<Route>& Table() {
  static const std::vector<Route> kRoutes = {
      {{}, V::get, Op::kPlain, h::ReadAccount},

      {{"dbs"}, V::post, Op::kPlain, h::CreateDatabase},
      {{"dbs"}, V::post, Op::kQuery, h::QueryDatabases},
      {{"dbs"}, V::get, Op::kPlain, h::ListDatabases},
      {{"dbs", "{db}"}, V::get, Op::kPlain, h::ReadDatabase},
      {{"dbs", "{db}"}, V::delete_, Op::kPlain, h::DeleteDatabase},

      {{"dbs", "{db}", "colls"}, V::post, Op::kPlain, h::CreateContainer},
      {{"dbs", "{db}", "colls"}, V::post, Op::kQuery, h::QueryContainers},
      {{"dbs", "{db}", "colls"}, V::get, Op::kPlain, h::ListContainers},
      {{"dbs", "{db}", "colls", "{coll}"}, V::get, Op::kPlain, h::ReadContainer},
      {{"dbs", "{db}", "colls", "{coll}"}, V::put, Op::kPlain, h::ReplaceContainer},
      {{"dbs", "{db}", "colls", "{coll}"}, V::delete_, Op::kPlain, h::DeleteContainer},
      {{"dbs", "{db}", "colls", "{coll}", "pkranges"}, V::get, Op::kPlain, h::ListPartitionKeyRanges},
      {{"dbs", "{db}", "colls", "{coll}", "operations", "partitionkeydelete"}, V::post, Op::kPlain,
       h::DeleteAllItemsForPartitionKey},
      {{"dbs", "{db}", "colls", "{coll}", "conflicts"}, V::get, Op::kPlain, h::ListConflicts},
      {{"dbs", "{db}", "colls", "{coll}", "conflicts"}, V::post, Op::kQuery, h::QueryConflicts},
      {{"dbs", "{db}", "colls", "{coll}", "conflicts", "{id}"}, V::get, Op::kPlain, h::ReadConflict},
      {{"dbs", "{db}", "colls", "{coll}", "conflicts", "{id}"}, V::delete_, Op::kPlain, h::DeleteConflict},

      {{"dbs", "{db}", "colls", "{coll}", "docs"}, V::post, Op::kPlain, h::CreateDocument},
      {{"dbs", "{db}", "colls", "{coll}", "docs"}, V::post, Op::kUpsert, h::UpsertDocument},
      {{"dbs", "{db}", "colls", "{coll}", "docs"}, V::post, Op::kQuery, h::QueryDocuments},
      {{"dbs", "{db}", "colls", "{coll}", "docs"}, V::post, Op::kQueryPlan, h::QueryPlan},
      {{"dbs", "{db}", "colls", "{coll}", "docs"}, V::post, Op::kBatch, h::ExecuteBatch},
      {{"dbs", "{db}", "colls", "{coll}", "docs"}, V::get, Op::kPlain, h::ReadDocumentFeed},
      {{"dbs", "{db}", "colls", "{coll}", "docs"}, V::get, Op::kChangeFeed, h::ReadChangeFeed},
      {{"dbs", "{db}", "colls", "{coll}", "docs", "{id}"}, V::get, Op::kPlain, h::ReadDocument},
      {{"dbs", "{db}", "colls", "{coll}", "docs", "{id}"}, V::put, Op::kPlain, h::ReplaceDocument},
      {{"dbs", "{db}", "colls", "{coll}", "docs", "{id}"}, V::delete_, Op::kPlain, h::DeleteDocument},
      {{"dbs", "{db}", "colls", "{coll}", "docs", "{id}"}, V::patch, Op::kPlain, h::PatchDocument},

      {{"dbs", "{db}", "colls", "{coll}", "sprocs"}, V::post, Op::kPlain, h::CreateScript},
      {{"dbs", "{db}", "colls", "{coll}", "sprocs"}, V::post, Op::kUpsert, h::UpsertScript},
      {{"dbs", "{db}", "colls", "{coll}", "sprocs"}, V::post, Op::kQuery, h::QueryScripts},
      {{"dbs", "{db}", "colls", "{coll}", "sprocs"}, V::get, Op::kPlain, h::ListScripts},
      {{"dbs", "{db}", "colls", "{coll}", "sprocs", "{id}"}, V::get, Op::kPlain, h::ReadScript},
      {{"dbs", "{db}", "colls", "{coll}", "sprocs", "{id}"}, V::put, Op::kPlain, h::ReplaceScript},
      {{"dbs", "{db}", "colls", "{coll}", "sprocs", "{id}"}, V::delete_, Op::kPlain, h::DeleteScript},
      {{"dbs", "{db}", "colls", "{coll}", "sprocs", "{id}"}, V::post, Op::kPlain, h::ExecuteStoredProcedure},
      {{"dbs", "{db}", "colls", "{coll}", "triggers"}, V::post, Op::kPlain, h::CreateScript},
      {{"dbs", "{db}", "colls", "{coll}", "triggers"}, V::post, Op::kUpsert, h::UpsertScript},
      {{"dbs", "{db}", "colls", "{coll}", "triggers"}, V::post, Op::kQuery, h::QueryScripts},
      {{"dbs", "{db}", "colls", "{coll}", "triggers"}, V::get, Op::kPlain, h::ListScripts},
      {{"dbs", "{db}", "colls", "{coll}", "triggers", "{id}"}, V::get, Op::kPlain, h::ReadScript},
      {{"dbs", "{db}", "colls", "{coll}", "triggers", "{id}"}, V::put, Op::kPlain, h::ReplaceScript},
      {{"dbs", "{db}", "colls", "{coll}", "triggers", "{id}"}, V::delete_, Op::kPlain, h::DeleteScript},
      {{"dbs", "{db}", "colls", "{coll}", "udfs"}, V::post, Op::kPlain, h::CreateScript},
      {{"dbs", "{db}", "colls", "{coll}", "udfs"}, V::post, Op::kUpsert, h::UpsertScript},
      {{"dbs", "{db}", "colls", "{coll}", "udfs"}, V::post, Op::kQuery, h::QueryScripts},
      {{"dbs", "{db}", "colls", "{coll}", "udfs"}, V::get, Op::kPlain, h::ListScripts},
      {{"dbs", "{db}", "colls", "{coll}", "udfs", "{id}"}, V::get, Op::kPlain, h::ReadScript},
      {{"dbs", "{db}", "colls", "{coll}", "udfs", "{id}"}, V::put, Op::kPlain, h::ReplaceScript},
      {{"dbs", "{db}", "colls", "{coll}", "udfs", "{id}"}, V::delete_, Op::kPlain, h::DeleteScript},

      {{"dbs", "{db}", "users"}, V::post, Op::kPlain, h::CreateUser},
      {{"dbs", "{db}", "users"}, V::post, Op::kUpsert, h::UpsertUser},
      {{"dbs", "{db}", "users"}, V::post, Op::kQuery, h::QueryUsers},
      {{"dbs", "{db}", "users"}, V::get, Op::kPlain, h::ListUsers},
      {{"dbs", "{db}", "users", "{user}"}, V::get, Op::kPlain, h::ReadUser},
      {{"dbs", "{db}", "users", "{user}"}, V::put, Op::kPlain, h::ReplaceUser},
      {{"dbs", "{db}", "users", "{user}"}, V::delete_, Op::kPlain, h::DeleteUser},
      {{"dbs", "{db}", "users", "{user}", "permissions"}, V::post, Op::kPlain, h::CreatePermission},
      {{"dbs", "{db}", "users", "{user}", "permissions"}, V::post, Op::kUpsert, h::UpsertPermission},
      {{"dbs", "{db}", "users", "{user}", "permissions"}, V::post, Op::kQuery, h::QueryPermissions},
      {{"dbs", "{db}", "users", "{user}", "permissions"}, V::get, Op::kPlain, h::ListPermissions},
      {{"dbs", "{db}", "users", "{user}", "permissions", "{id}"}, V::get, Op::kPlain, h::ReadPermission},
      {{"dbs", "{db}", "users", "{user}", "permissions", "{id}"}, V::put, Op::kPlain, h::ReplacePermission},
      {{"dbs", "{db}", "users", "{user}", "permissions", "{id}"}, V::delete_, Op::kPlain, h::DeletePermission},

      {{"dbs", "{db}", "clientencryptionkeys"}, V::post, Op::kPlain, h::CreateClientEncryptionKey},
      {{"dbs", "{db}", "clientencryptionkeys"}, V::post, Op::kQuery, h::QueryClientEncryptionKeys},
      {{"dbs", "{db}", "clientencryptionkeys"}, V::get, Op::kPlain, h::ListClientEncryptionKeys},
      {{"dbs", "{db}", "clientencryptionkeys", "{id}"}, V::get, Op::kPlain, h::ReadClientEncryptionKey},
      {{"dbs", "{db}", "clientencryptionkeys", "{id}"}, V::put, Op::kPlain, h::ReplaceClientEncryptionKey},

      {{"offers"}, V::get, Op::kPlain, h::ListOffers},
      {{"offers"}, V::post, Op::kQuery, h::QueryOffers},
      {{"offers", "{id}"}, V::get, Op::kPlain, h::ReadOffer},
      {{"offers", "{id}"}, V::put, Op::kPlain, h::ReplaceOffer},
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

Operation OperationOf(const Request& req) {
  switch (req.method()) {
    case V::post: {
      if (BoolHeader(req, "x-ms-cosmos-is-query-plan-request")) return Op::kQueryPlan;
      if (BoolHeader(req, "x-ms-documentdb-isquery")) return Op::kQuery;
      auto ct = req.find(beast_http::field::content_type);
      if (ct != req.end() &&
          util::ToLower(std::string_view(ct->value().data(), ct->value().size())).starts_with("application/query+json"))
        return Op::kQuery;
      if (BoolHeader(req, "x-ms-cosmos-is-batch-request")) return Op::kBatch;
      if (BoolHeader(req, "x-ms-documentdb-is-upsert")) return Op::kUpsert;
      return Op::kPlain;
    }
    case V::get:
      return req.find("a-im") != req.end() ? Op::kChangeFeed : Op::kPlain;
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

std::vector<std::pair<std::string, std::string>> BindParams(const Route& route, const std::vector<std::string>& segments) {
  std::vector<std::pair<std::string, std::string>> out;
  for (size_t i = 0; i < route.pattern.size() && i < segments.size(); ++i) {
    if (IsParam(route.pattern[i]))
      out.emplace_back(std::string(route.pattern[i].substr(1, route.pattern[i].size() - 2)), segments[i]);
  }
  return out;
}

}  // namespace cosmos::http
