// The route table resolves operations: (verb, path pattern, operation from the headers) -> handler.
#include <gtest/gtest.h>

#include "handlers/handlers.h"
#include "http/rid_links.h"
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
  EXPECT_EQ(http::OperationOf(Req(V::get, {{"A-IM", "Incremental Feed"}})), Operation::kChangeFeed);
  // Headers of another verb's operation change nothing.
  EXPECT_EQ(http::OperationOf(Req(V::get, {{"x-ms-documentdb-isquery", "True"}})), Operation::kPlain);
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

}  // namespace
}  // namespace cosmos::testing
