// Which requests the server answers on its I/O threads (http::AnswersAtOnce).
#include <gtest/gtest.h>

#include <string>

#include "http/pipeline.h"

namespace cosmos::http {
namespace {

bool AtOnce(boost::beast::http::verb verb, const std::string& target) {
  Request req{verb, target, 11};
  return AnswersAtOnce(req);
}

TEST(AnswersAtOnceTest, ProbesAndPointReadsOfItems) {
  using boost::beast::http::verb;
  EXPECT_TRUE(AtOnce(verb::get, "/_health"));
  EXPECT_TRUE(AtOnce(verb::get, "/ready"));
  EXPECT_TRUE(AtOnce(verb::get, "/dbs/db/colls/c/docs/item1"));
  EXPECT_TRUE(AtOnce(verb::get, "/dbs/db/colls/c/docs/item%201?x=1"));
  EXPECT_TRUE(AtOnce(verb::get, "/dbs/AAAAAA==/colls/AAAAAAAAAAA=/docs/AAAAAAAAAAABAAAAAAAAAA==/"));
}

TEST(AnswersAtOnceTest, WritesOfOneItemWithoutTriggers) {
  using boost::beast::http::verb;
  EXPECT_TRUE(AtOnce(verb::post, "/dbs/db/colls/c/docs"));
  EXPECT_TRUE(AtOnce(verb::put, "/dbs/db/colls/c/docs/item1"));
  EXPECT_TRUE(AtOnce(verb::delete_, "/dbs/db/colls/c/docs/item1"));
  EXPECT_TRUE(AtOnce(verb::patch, "/dbs/db/colls/c/docs/item1"));
  Request create{verb::post, "/dbs/db/colls/c/docs", 11};
  EXPECT_FALSE(AnswersAtOnce(create, /*item_writes=*/false));  // --durability fsync
  for (const char* header : {"x-ms-documentdb-isquery", "x-ms-cosmos-is-query-plan-request", "x-ms-cosmos-is-batch-request",
                             "x-ms-documentdb-pre-trigger-include", "x-ms-documentdb-post-trigger-include"}) {
    Request req{verb::post, "/dbs/db/colls/c/docs", 11};
    req.set(header, "True");
    EXPECT_FALSE(AnswersAtOnce(req)) << header;
  }
  Request query{verb::post, "/dbs/db/colls/c/docs", 11};
  query.set(boost::beast::http::field::content_type, "application/query+json");
  EXPECT_FALSE(AnswersAtOnce(query));
  EXPECT_FALSE(AtOnce(verb::post, "/dbs/db/colls/c/docs/item1"));
  EXPECT_FALSE(AtOnce(verb::put, "/dbs/db/colls/c"));
  EXPECT_FALSE(AtOnce(verb::post, "/dbs/db/colls/c/sprocs/s1"));  // runs a stored procedure
}

TEST(AnswersAtOnceTest, EverythingElseGoesToAWorker) {
  using boost::beast::http::verb;
  EXPECT_FALSE(AtOnce(verb::get, "/dbs/db/colls/c/docs"));  // a feed, or the change feed
  EXPECT_FALSE(AtOnce(verb::get, "/dbs/db/colls/c/docs/item1/attachments"));
  EXPECT_FALSE(AtOnce(verb::post, "/dbs/db/colls"));
  EXPECT_FALSE(AtOnce(verb::delete_, "/dbs/db"));
  EXPECT_FALSE(AtOnce(verb::get, "/dbs/db/colls/c/sprocs/s1"));
  EXPECT_FALSE(AtOnce(verb::get, "/dbs/db/colls/c"));
  EXPECT_FALSE(AtOnce(verb::get, "/"));
}

}  // namespace
}  // namespace cosmos::http
