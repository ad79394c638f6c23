// The route table resolves operations: (verb, path pattern, operation from the headers) -> handler.
#include <gtest/gtest.h>

#include "handlers/handlers.h"
#include "http/rid_links.h"
#include "faults/faults.h"
#include "http/routes.h"

namespace cosmos::testing {
namespace {

using http::Operation;
using http::RouteMatch;
using V = http::beast_http::verb;

http::Request Req(V verb, std::vector<std::pair<std::string, std::string>> headers = {}) {
  http::Request r{verb, "/", 11};
  for (auto& [k, v] : headers) r.set(k, v);
  return r;
}

std::vector<std::string> Path(std::initializer_list<const char*> segs) { return {segs.begin(), segs.end()}; }

TEST(Routes, OperationComesFromTheHeaders) {
  EXPECT_EQ(http::OperationOf(Req(V::post)), Operation::kPlain);
  EXPECT_EQ(http::OperationOf(Req(V::post, {{"x-ms-documentdb-isquery", "True"}})), Operation::kQuery);
  EXPECT_EQ(http::OperationOf(Req(V::post, {{"content-type", "Application/Query+JSON; charset=utf-8"}})), Operation::kQuery);
  EXPECT_EQ(http::OperationOf(Req(V::post, {{"x-ms-cosmos-is-query-plan-request", "true"}, {"x-ms-documentdb-isquery", "true"}})),
            Operation::kQueryPlan);
  EXPECT_EQ(http::OperationOf(Req(V::post, {{"x-ms-documentdb-is-upsert", "true"}})), Operation::kUpsert);
  EXPECT_EQ(http::OperationOf(Req(V::post, {{"x-ms-documentdb-is-upsert", "false"}})), Operation::kPlain);
  EXPECT_EQ(http::OperationOf(Req(V::post, {{"x-ms-cosmos-is-batch-request", "True"}})), Operation::kBatch);
  EXPECT_EQ(http::OperationOf(Req(V::post, {{"x-ms-cosmos-is-batch-request", "True"}, {"x-ms-cosmos-batch-atomic", "True"}})),
            Operation::kBatch);
  EXPECT_EQ(http::OperationOf(Req(V::post, {{"x-ms-cosmos-is-batch-request", "True"}, {"x-ms-cosmos-batch-atomic", "False"}})),
            Operation::kBulk);
  EXPECT_EQ(http::OperationOf(Req(V::get, {{"A-IM", "Incremental Feed"}})), Operation::kChangeFeed);
  // Headers of another verb's operation change nothing.
  EXPECT_EQ(http::OperationOf(Req(V::get, {{"x-ms-documentdb-isquery", "True"}})), Operation::kPlain);
}

// Each operation's facts, as its route row names them.
const http::OperationFacts& FactsOf(V verb, const std::string& target,
                                    std::vector<std::pair<std::string, std::string>> headers = {}) {
  http::Request r{verb, target, 11};
  for (auto& [k, v] : headers) r.set(k, v);
  const http::Route* route = http::RouteOf(r);
  static const http::OperationFacts kNone{.fault_type = "(no route)"};
  return route ? route->facts : kNone;
}

TEST(Routes, FaultTypesFromTheRouteTable) {
  const std::string docs = "/dbs/d/colls/c/docs", doc = "/dbs/d/colls/c/docs/x";
  EXPECT_EQ(FactsOf(V::post, docs).fault_type, "CreateItem");
  EXPECT_EQ(FactsOf(V::post, docs, {{"x-ms-documentdb-is-upsert", "true"}}).fault_type, "UpsertItem");
  EXPECT_EQ(FactsOf(V::post, docs, {{"x-ms-documentdb-isquery", "true"}}).fault_type, "QueryItem");
  EXPECT_EQ(FactsOf(V::post, docs, {{"x-ms-cosmos-is-query-plan-request", "true"}}).fault_type, "MetadataQueryPlan");
  EXPECT_EQ(FactsOf(V::post, docs, {{"x-ms-cosmos-is-batch-request", "true"}}).fault_type, "Batch");
  EXPECT_EQ(FactsOf(V::post, docs, {{"x-ms-cosmos-is-batch-request", "true"}, {"x-ms-cosmos-batch-atomic", "false"}})
                .fault_type,
            "Batch");
  EXPECT_EQ(FactsOf(V::get, docs).fault_type, "ReadFeed");
  EXPECT_EQ(FactsOf(V::get, docs, {{"A-IM", "Incremental Feed"}}).fault_type, "ChangeFeed");
  EXPECT_EQ(FactsOf(V::get, doc).fault_type, "ReadItem");
  EXPECT_EQ(FactsOf(V::put, doc).fault_type, "ReplaceItem");
  EXPECT_EQ(FactsOf(V::delete_, doc).fault_type, "DeleteItem");
  EXPECT_EQ(FactsOf(V::patch, doc).fault_type, "PatchItem");
  EXPECT_EQ(FactsOf(V::get, "/").fault_type, "MetadataDatabaseAccount");
  EXPECT_EQ(FactsOf(V::get, "/dbs/d/colls/c").fault_type, "MetadataContainer");
  EXPECT_EQ(FactsOf(V::get, "/dbs/d/colls/c/pkranges").fault_type, "MetadataPartitionKeyRange");
  EXPECT_EQ(FactsOf(V::post, "/dbs/d/colls/c/sprocs/s").fault_type, "ExecuteStoredProcedure");
  EXPECT_EQ(FactsOf(V::get, "/dbs/d").fault_type, "Metadata");
  // Direct mode's address feed, as Java and .NET ask for it.
  EXPECT_EQ(FactsOf(V::get, "/addresses/?$resolveFor=dbs").fault_type, "Metadata");
  EXPECT_EQ(FactsOf(V::get, "//addresses/?$resolveFor=dbs").fault_type, "Metadata");
  EXPECT_FALSE(FactsOf(V::get, "/addresses/").data_plane);
  EXPECT_TRUE(FactsOf(V::get, doc).data_plane);
  EXPECT_FALSE(FactsOf(V::post, docs, {{"x-ms-cosmos-is-query-plan-request", "true"}}).data_plane);
  // Every row names a type fault rules accept, and partitions answer exactly the non-Metadata ones.
  for (const auto& r : http::Routes()) {
    EXPECT_TRUE(faults::IsOperationType(r.facts.fault_type)) << r.facts.fault_type;
    EXPECT_EQ(r.facts.data_plane, !r.facts.fault_type.starts_with("Metadata")) << r.facts.fault_type;
  }
}

TEST(Routes, ReportNamesAndMetadataChangesFromTheRouteTable) {
  const std::string docs = "/dbs/d/colls/c/docs", doc = "/dbs/d/colls/c/docs/x";
  EXPECT_EQ(FactsOf(V::post, docs).report_name, "create");
  EXPECT_EQ(FactsOf(V::post, docs, {{"x-ms-documentdb-is-upsert", "true"}}).report_name, "upsert");
  EXPECT_EQ(FactsOf(V::get, doc).report_name, "read");
  EXPECT_EQ(FactsOf(V::get, docs).report_name, "readFeed");
  EXPECT_EQ(FactsOf(V::put, doc).report_name, "replace");
  EXPECT_EQ(FactsOf(V::delete_, doc).report_name, "delete");
  EXPECT_EQ(FactsOf(V::patch, doc).report_name, "patch");
  EXPECT_EQ(FactsOf(V::post, docs, {{"x-ms-documentdb-isquery", "true"}}).report_name, "query");
  EXPECT_EQ(FactsOf(V::post, docs, {{"x-ms-cosmos-is-batch-request", "true"}}).report_name, "batch");
  EXPECT_EQ(FactsOf(V::post, docs, {{"x-ms-cosmos-is-batch-request", "true"}, {"x-ms-cosmos-batch-atomic", "false"}})
                .report_name,
            "bulk");
  EXPECT_EQ(FactsOf(V::get, docs, {{"A-IM", "Incremental Feed"}}).report_name, "changeFeed");
  EXPECT_EQ(FactsOf(V::post, "/dbs/d/colls/c/sprocs/s").report_name, "storedProcedure");
  EXPECT_EQ(FactsOf(V::post, "/dbs/d/colls/c/operations/partitionkeydelete").report_name,
            "deleteAllItemsForPartitionKey");
  // What persistence records whole after a success: creating, replacing, deleting metadata.
  for (auto [verb, target] : std::vector<std::pair<V, std::string>>{
           {V::post, "/dbs"}, {V::delete_, "/dbs/d"}, {V::post, "/dbs/d/colls"}, {V::put, "/dbs/d/colls/c"},
           {V::delete_, "/dbs/d/colls/c"}, {V::post, "/dbs/d/colls/c/udfs"}, {V::put, "/dbs/d/colls/c/triggers/t"},
           {V::delete_, "/dbs/d/colls/c/sprocs/s"}, {V::post, "/dbs/d/users"}, {V::put, "/dbs/d/users/u"},
           {V::post, "/dbs/d/users/u/permissions"}, {V::delete_, "/dbs/d/users/u/permissions/p"},
           {V::post, "/dbs/d/clientencryptionkeys"}, {V::put, "/dbs/d/clientencryptionkeys/k"},
           {V::put, "/offers/o"}}) {
    EXPECT_TRUE(FactsOf(verb, target).changes_metadata) << target;
  }
  for (auto [verb, target] : std::vector<std::pair<V, std::string>>{
           {V::get, "/dbs"}, {V::get, "/dbs/d/colls/c"}, {V::post, "/dbs/d/colls/c/docs"},
           {V::delete_, "/dbs/d/colls/c/docs/x"}, {V::post, "/dbs/d/colls/c/sprocs/s"},
           {V::delete_, "/dbs/d/colls/c/conflicts/x"}, {V::post, "/dbs/d/colls/c/operations/partitionkeydelete"}}) {
    EXPECT_FALSE(FactsOf(verb, target).changes_metadata) << target;
  }
  EXPECT_FALSE(FactsOf(V::post, "/dbs", {{"x-ms-documentdb-isquery", "true"}}).changes_metadata);
  EXPECT_TRUE(FactsOf(V::post, "/dbs", {{"x-ms-documentdb-is-upsert", "true"}}).changes_metadata);
}

TEST(Routes, OneHandlerPerOperation) {
  namespace h = handlers;
  const auto dbs = Path({"dbs"});
  EXPECT_EQ(http::FindRoute(dbs, V::post, Operation::kPlain).handler, &h::CreateDatabase);
  EXPECT_EQ(http::FindRoute(dbs, V::post, Operation::kQuery).handler, &h::QueryDatabases);
  const auto docs = Path({"dbs", "d", "colls", "c", "docs"});
  EXPECT_EQ(http::FindRoute(docs, V::post, Operation::kPlain).handler, &h::CreateDocument);
  EXPECT_EQ(http::FindRoute(docs, V::post, Operation::kUpsert).handler, &h::UpsertDocument);
  EXPECT_EQ(http::FindRoute(docs, V::post, Operation::kQuery).handler, &h::QueryDocuments);
  EXPECT_EQ(http::FindRoute(docs, V::post, Operation::kQueryPlan).handler, &h::QueryPlan);
  EXPECT_EQ(http::FindRoute(docs, V::post, Operation::kBatch).handler, &h::ExecuteBatch);
  EXPECT_EQ(http::FindRoute(docs, V::get, Operation::kChangeFeed).handler, &h::ReadChangeFeed);
  EXPECT_EQ(http::FindRoute(docs, V::get, Operation::kPlain).handler, &h::ReadDocumentFeed);
  for (const char* kind : {"sprocs", "triggers", "udfs"}) {
    const auto scripts = Path({"dbs", "d", "colls", "c", kind});
    EXPECT_EQ(http::FindRoute(scripts, V::post, Operation::kUpsert).handler, &h::UpsertScript) << kind;
    EXPECT_EQ(http::FindRoute(scripts, V::post, Operation::kQuery).handler, &h::QueryScripts) << kind;
  }
  EXPECT_EQ(http::FindRoute(Path({"dbs", "d", "users"}), V::post, Operation::kUpsert).handler, &h::UpsertUser);
  EXPECT_EQ(http::FindRoute(Path({"dbs", "d", "users", "u", "permissions"}), V::post, Operation::kQuery).handler,
            &h::QueryPermissions);
}

TEST(Routes, FallbacksAndRefusals) {
  namespace h = handlers;
  // An upsert where there is none is the create; A-IM on a feed without a change feed is its read.
  EXPECT_EQ(http::FindRoute(Path({"dbs"}), V::post, Operation::kUpsert).handler, &h::CreateDatabase);
  EXPECT_EQ(http::FindRoute(Path({"dbs", "d", "colls", "c", "pkranges"}), V::get, Operation::kChangeFeed).handler,
            &h::ListPartitionKeyRanges);
  // A query or batch where none is served is refused; a plain POST to a query-only feed is 405.
  EXPECT_EQ(http::FindRoute(Path({"dbs"}), V::post, Operation::kBatch).match, RouteMatch::kWrongOperation);
  EXPECT_EQ(http::FindRoute(Path({"offers"}), V::post, Operation::kPlain).match, RouteMatch::kWrongVerb);
  EXPECT_EQ(http::FindRoute(Path({"dbs", "d"}), V::put, Operation::kPlain).match, RouteMatch::kWrongVerb);
  EXPECT_EQ(http::FindRoute(Path({"nope"}), V::get, Operation::kPlain).match, RouteMatch::kNoSuchPath);
}

TEST(Routes, NamedParameters) {
  const auto path = Path({"dbs", "d1", "colls", "c 1", "docs", "i/1"});
  auto r = http::FindRoute(path, V::get, Operation::kPlain);
  ASSERT_NE(r.route, nullptr);
  const auto params = http::BindParams(*r.route, path);
  ASSERT_EQ(params.size(), 3u);
  EXPECT_EQ(params[0], (std::pair<std::string, std::string>{"db", "d1"}));
  EXPECT_EQ(params[1], (std::pair<std::string, std::string>{"coll", "c 1"}));
  EXPECT_EQ(params[2], (std::pair<std::string, std::string>{"id", "i/1"}));
}

TEST(Routes, RidPathsAreTheSdksRidLinks) {
  EXPECT_TRUE(http::IsRidPath(Path({"dbs", "AQAAAA=="})));
  EXPECT_TRUE(http::IsRidPath(Path({"dbs", "AQAAAA==", "colls", "AQAAAIA-AAA=", "docs"})));
  EXPECT_FALSE(http::IsRidPath(Path({"dbs", "db1"})));         // 3 bytes
  EXPECT_FALSE(http::IsRidPath(Path({"dbs", "mydatabase"})));  // not 4 bytes
  EXPECT_FALSE(http::IsRidPath(Path({"offers", "AQAA"})));
  EXPECT_FALSE(http::IsRidPath(Path({})));
}

TEST(Routes, AQuestionMarkInAnItemIdIsPartOfThePath) {
  // The JavaScript SDK (encodeURI) and the .NET SDK send an item id's '?' unescaped; the service
  // takes it as part of the id (the SDKs' id-encoding tests: "Disallowed?Chars" is read, replaced
  // and deleted). Elsewhere a '?' starts the query.
  EXPECT_EQ(http::TargetPath("/dbs/d/colls/c/docs/Disallowed?Chars"), "/dbs/d/colls/c/docs/Disallowed?Chars");
  EXPECT_EQ(http::TargetQuery("/dbs/d/colls/c/docs/Disallowed?Chars"), "");
  EXPECT_EQ(http::TargetPath("/dbs/d/colls/c/docs/?a?b=c"), "/dbs/d/colls/c/docs/?a?b=c");
  std::vector<std::string> segs;
  ASSERT_TRUE(http::SplitPath("/dbs/d/colls/c/docs/a%20b?c", segs));
  EXPECT_EQ(segs, Path({"dbs", "d", "colls", "c", "docs", "a b?c"}));
  for (const char* target : {"/dbs/d/colls/c/docs?x=1", "/dbs/d/colls/c?x=1", "/addresses/?$resolveFor=dbs",
                             "/dbs/d/colls/c/docs/?x", "/dbs/d/colls/c/sprocs/s?x", "/x/d/colls/c/docs/i?x"}) {
    const std::string_view t = target;
    const std::string_view path = http::TargetPath(t);
    if (std::string_view(target) == "/dbs/d/colls/c/docs/?x") {
      EXPECT_EQ(path, t) << target;  // an id that starts with '?'
      continue;
    }
    EXPECT_EQ(path, t.substr(0, t.find('?'))) << target;
    EXPECT_EQ(http::TargetQuery(t), t.substr(t.find('?') + 1)) << target;
  }
  EXPECT_EQ(http::TargetQuery("/dbs/d/colls/c/docs/i"), "");
}

}  // namespace
}  // namespace cosmos::testing
