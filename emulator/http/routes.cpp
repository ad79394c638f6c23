#include "http/routes.h"

#include "handlers/handlers.h"

namespace cosmos::http {
namespace {

using V = beast_http::verb;
namespace h = handlers;

const std::vector<Route>& Table() {
  static const std::vector<Route> kRoutes = {
      {{}, V::get, h::ReadAccount},
      {{"dbs"}, V::post, h::CreateDatabase},
      {{"dbs"}, V::get, h::ListDatabases},
      {{"dbs", "{}"}, V::get, h::ReadDatabase},
      {{"dbs", "{}"}, V::delete_, h::DeleteDatabase},
      {{"dbs", "{}", "colls"}, V::post, h::CreateContainer},
      {{"dbs", "{}", "colls"}, V::get, h::ListContainers},
      {{"dbs", "{}", "colls", "{}"}, V::get, h::ReadContainer},
      {{"dbs", "{}", "colls", "{}"}, V::put, h::ReplaceContainer},
      {{"dbs", "{}", "colls", "{}"}, V::delete_, h::DeleteContainer},
      {{"dbs", "{}", "colls", "{}", "pkranges"}, V::get, h::ListPartitionKeyRanges},
      {{"dbs", "{}", "colls", "{}", "sprocs"}, V::post, h::CreateScript},
      {{"dbs", "{}", "colls", "{}", "sprocs"}, V::get, h::ListScripts},
      {{"dbs", "{}", "colls", "{}", "sprocs", "{}"}, V::get, h::ReadScript},
      {{"dbs", "{}", "colls", "{}", "sprocs", "{}"}, V::put, h::ReplaceScript},
      {{"dbs", "{}", "colls", "{}", "sprocs", "{}"}, V::delete_, h::DeleteScript},
      {{"dbs", "{}", "colls", "{}", "triggers"}, V::post, h::CreateScript},
      {{"dbs", "{}", "colls", "{}", "triggers"}, V::get, h::ListScripts},
      {{"dbs", "{}", "colls", "{}", "triggers", "{}"}, V::get, h::ReadScript},
      {{"dbs", "{}", "colls", "{}", "triggers", "{}"}, V::put, h::ReplaceScript},
      {{"dbs", "{}", "colls", "{}", "triggers", "{}"}, V::delete_, h::DeleteScript},
      {{"dbs", "{}", "colls", "{}", "udfs"}, V::post, h::CreateScript},
      {{"dbs", "{}", "colls", "{}", "udfs"}, V::get, h::ListScripts},
      {{"dbs", "{}", "colls", "{}", "udfs", "{}"}, V::get, h::ReadScript},
      {{"dbs", "{}", "colls", "{}", "udfs", "{}"}, V::put, h::ReplaceScript},
      {{"dbs", "{}", "colls", "{}", "udfs", "{}"}, V::delete_, h::DeleteScript},
      {{"dbs", "{}", "colls", "{}", "docs"}, V::post, h::PostDocuments},
      {{"dbs", "{}", "colls", "{}", "docs"}, V::get, h::ReadDocumentFeed},
      {{"dbs", "{}", "colls", "{}", "docs", "{}"}, V::get, h::ReadDocument},
      {{"dbs", "{}", "colls", "{}", "docs", "{}"}, V::put, h::ReplaceDocument},
      {{"dbs", "{}", "colls", "{}", "docs", "{}"}, V::delete_, h::DeleteDocument},
      {{"dbs", "{}", "colls", "{}", "docs", "{}"}, V::patch, h::PatchDocument},
      {{"dbs", "{}", "colls", "{}", "sprocs", "{}"}, V::post, h::ExecuteStoredProcedure},
      {{"dbs", "{}", "users"}, V::post, h::PostUsers},
      {{"dbs", "{}", "users"}, V::get, h::ListUsers},
      {{"dbs", "{}", "users", "{}"}, V::get, h::ReadUser},
      {{"dbs", "{}", "users", "{}"}, V::put, h::ReplaceUser},
      {{"dbs", "{}", "users", "{}"}, V::delete_, h::DeleteUser},
      {{"dbs", "{}", "users", "{}", "permissions"}, V::post, h::PostPermissions},
      {{"dbs", "{}", "users", "{}", "permissions"}, V::get, h::ListPermissions},
      {{"dbs", "{}", "users", "{}", "permissions", "{}"}, V::get, h::ReadPermission},
      {{"dbs", "{}", "users", "{}", "permissions", "{}"}, V::put, h::ReplacePermission},
      {{"dbs", "{}", "users", "{}", "permissions", "{}"}, V::delete_, h::DeletePermission},
      {{"offers"}, V::get, h::ListOffers},
      {{"offers"}, V::post, h::PostOffers},
      {{"offers", "{}"}, V::get, h::ReadOffer},
      {{"offers", "{}"}, V::put, h::ReplaceOffer},
  };
  return kRoutes;
}

// Resources of the service this emulator does not serve yet: any verb answers 501.
const std::vector<std::vector<std::string_view>>& Unimplemented() {
  static const std::vector<std::vector<std::string_view>> kPaths = {
      {"dbs", "{}", "colls", "{}", "conflicts"},
      {"dbs", "{}", "colls", "{}", "conflicts", "{}"},
      {"dbs", "{}", "colls", "{}", "docs", "{}", "attachments"},
      {"dbs", "{}", "colls", "{}", "docs", "{}", "attachments", "{}"},
  };
  return kPaths;
}

bool Matches(const std::vector<std::string_view>& pattern, const std::vector<std::string>& segments) {
  if (pattern.size() != segments.size()) return false;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] != "{}" && pattern[i] != segments[i]) return false;
  }
  return true;
}

}  // namespace

RouteMatch FindRoute(const std::vector<std::string>& segments, beast_http::verb verb, HandlerFn& out) {
  bool path_known = false;
  for (const auto& r : Table()) {
    if (!Matches(r.pattern, segments)) continue;
    path_known = true;
    if (r.verb == verb) {
      out = r.handler;
      return RouteMatch::kFound;
    }
  }
  if (path_known) return RouteMatch::kWrongVerb;
  for (const auto& p : Unimplemented()) {
    if (Matches(p, segments)) {
      out = h::NotYetImplemented;
      return RouteMatch::kFound;
    }
  }
  return RouteMatch::kNoSuchPath;
}

}  // namespace cosmos::http
