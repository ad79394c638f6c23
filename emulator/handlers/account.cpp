// GET / : the database account the SDKs bootstrap from.
#include "charge/charge.h"
#include "handlers/handlers.h"
#include "http/emulator_pages.h"
#include "http/replica_address.h"
#include "json/json.h"
#include "util/util.h"

namespace cosmos::handlers {

std::string AdvertisedEndpoint(const Services& s, const RequestContext& ctx) {
  std::string host = "127.0.0.1";
  if (auto h = ctx.Header("host"); h && !h->empty()) host = std::string(*h);
  // The locations the SDKs go on to: the public endpoint, or this request's scheme and Host, so
  // a client that came over https://cosmos:8081 from another container is sent back there. A
  // client that came as localhost to the gateway's own port is sent to 127.0.0.1 on it, as the
  // official emulator answers: Microsoft's SDK tests take the two names for two regions of one
  // account (the Python SDK's fault-injection, circuit-breaker and excluded-locations tests, the Go
  // SDK's TestGlobalEndpointManagerEmulator).
  std::string advertised = host;
  if (const std::string local = "localhost:" + s.config.gateway_port;
      !s.config.gateway_port.empty() && util::EqualsIgnoreCase(host, local)) {
    advertised = "127.0.0.1:" + s.config.gateway_port;
  }
  return http::PublicEndpointFor(s.config, advertised, ctx.secure());
}

Result ReadAccount(Services& s, RequestContext& ctx) {
  std::string host = "127.0.0.1";
  if (auto h = ctx.Header("host"); h && !h->empty()) host = std::string(*h);
  const std::string endpoint = AdvertisedEndpoint(s, ctx);
  json::Document d;
  auto& a = d.GetAllocator();
  d.SetObject();
  d.AddMember("_self", "", a);
  // What the vNext image answers, which the .NET Testcontainers module's test asserts; not "localhost"
  // (the classic image's): an account of that id makes the SDKs read it again before every operation.
  d.AddMember("id", rapidjson::StringRef(http::kAccountId), a);
  d.AddMember("_rid", json::Value(host.c_str(), a), a);
  d.AddMember("media", "//media/", a);
  d.AddMember("addresses", "//addresses/", a);
  d.AddMember("_dbs", "//dbs/", a);
  for (const char* key : {"writableLocations", "readableLocations"}) {
    json::Value loc(rapidjson::kObjectType);
    loc.AddMember("name", "South Central US", a);
    loc.AddMember("databaseAccountEndpoint", json::Value(endpoint.c_str(), a), a);
    json::Value arr(rapidjson::kArrayType);
    arr.PushBack(loc, a);
    d.AddMember(json::Value(key, a), arr, a);
  }
  d.AddMember("enableMultipleWriteLocations", false, a);
  json::Value consistency(rapidjson::kObjectType);
  consistency.AddMember("defaultConsistencyLevel", json::Value(s.config.consistency.c_str(), a), a);
  d.AddMember("userConsistencyPolicy", consistency, a);
  json::Value replication(rapidjson::kObjectType);
  replication.AddMember("minReplicaSetSize", 1, a);
  replication.AddMember("maxReplicasetSize", 1, a);
  d.AddMember("userReplicationPolicy", json::Value(replication, a), a);
  d.AddMember("systemReplicationPolicy", replication, a);
  json::Value read_policy(rapidjson::kObjectType);
  read_policy.AddMember("primaryReadCoefficient", 1, a);
  read_policy.AddMember("secondaryReadCoefficient", 1, a);
  d.AddMember("readPolicy", read_policy, a);
  d.AddMember("queryEngineConfiguration",
              "{\"maxSqlQueryInputLength\":262144,\"maxJoinsPerSqlQuery\":5,\"maxLogicalAndPerSqlQuery\":500,"
              "\"maxLogicalOrPerSqlQuery\":500,\"maxUdfRefPerSqlQuery\":10,\"maxInExpressionItemsCount\":16000,"
              "\"queryMaxInMemorySortDocumentCount\":500,\"maxQueryRequestTimeoutFraction\":0.9,"
              "\"sqlAllowNonFiniteNumbers\":false,\"sqlAllowAggregateFunctions\":true,\"sqlAllowSubQuery\":true,"
              "\"sqlAllowScalarSubQuery\":true,\"allowNewKeywords\":true,\"sqlAllowLike\":true,"
              "\"sqlAllowGroupByClause\":true,\"maxSpatialQueryCells\":12,\"spatialMaxGeometryPointCount\":256,"
              "\"sqlDisableOptimizationFlags\":0,\"sqlAllowTop\":true,\"enableSpatialIndexing\":true}",
              a);
  Result r;
  r.body = json::Write(d);
  r.charge = charge::kAccountRead;
  return r;
}

}  // namespace cosmos::handlers
