// GET /addresses/ (also //addresses/, as .NET asks): Direct mode's address feed, where the SDKs
// learn which replica serves each partition key range (direct-mode-client.md §1.2-1.4). The
// emulator has one replica per range, the primary, at the host and port the client used to reach
// the gateway (which serves RNTBD too), or on the Direct port when the gateway serves plain HTTP. Its URI's path is ours and comes back as the ReplicaPath token of every
// RNTBD request (direct/bridge.cpp reads it):
//   rntbd://<host>:<port>/apps/<account>/services/<collection rid>/partitions/<range id>/replicas/1p/
//   rntbd://<host>:<port>/apps/<account>/services/master/partitions/M/replicas/1p/   (the master)
#include <algorithm>
#include <string>
#include <vector>

#include "charge/charge.h"
#include "common/errors.h"
#include "handlers/common.h"
#include "handlers/handlers.h"
#include "http/replica_address.h"
#include "json/json.h"
#include "util/util.h"

namespace cosmos::handlers {
namespace {

// "rntbd://host:port" for the endpoint the client used to reach the gateway ("https://host:port/";
// "[::1]" keeps its brackets). When the gateway's port serves RNTBD too (TLS on it), that same
// port: the one the client is known to reach, whatever maps it (a container's published port, a
// public endpoint). Otherwise (a gateway serving plain HTTP only) the Direct port.
std::string ReplicaBase(const Services& s, const std::string& endpoint) {
  size_t start = endpoint.find("://");
  const std::string scheme = start == std::string::npos ? "https" : endpoint.substr(0, start);
  start = start == std::string::npos ? 0 : start + 3;
  const size_t end = endpoint.find('/', start);
  const std::string authority = endpoint.substr(start, end == std::string::npos ? std::string::npos : end - start);
  const size_t host_end = !authority.empty() && authority[0] == '[' ? authority.find(']') + 1 : authority.find(':');
  const std::string host = authority.substr(0, host_end);
  if (!s.config.direct_on_gateway_port) return "rntbd://" + host + ":" + std::to_string(s.config.direct_port);
  std::string port = host_end < authority.size() && authority[host_end] == ':' ? authority.substr(host_end + 1) : "";
  if (port.empty()) port = scheme == "http" ? "80" : "443";
  return "rntbd://" + host + ":" + port;
}

// The only protocol served is rntbd: `$filter=protocol eq https` (the SDKs' Direct over HTTPS) is
// refused. Without a filter, rntbd.
void CheckProtocolFilter(const RequestContext& ctx) {
  auto filter = ctx.QueryParam("$filter");
  if (!filter) return;
  auto parts = util::Split(util::Trim(*filter), ' ');
  std::vector<std::string_view> words;
  for (auto p : parts)
    if (!p.empty()) words.push_back(p);
  if (words.size() == 3 && util::EqualsIgnoreCase(words[0], "protocol") && util::EqualsIgnoreCase(words[1], "eq") &&
      util::EqualsIgnoreCase(words[2], "rntbd"))
    return;
  throw errors::BadRequest("The address feed serves the protocol rntbd only ($filter=protocol eq rntbd): '" +
                           *filter + "' is not served. Use Direct mode over TCP (RNTBD), or Gateway mode.");
}

// One primary replica address, as the service writes it (the keys are the wire's, misspellings
// included: "physcialUri").
void AddAddress(json::Document& d, json::Value& list, const std::string& base, const std::string& service,
                const std::string& range, const std::string& rid) {
  auto& a = d.GetAllocator();
  const std::string uri = base + http::ReplicaPathText(service, range);
  json::Value e(rapidjson::kObjectType);
  e.AddMember("isPrimary", true, a);
  e.AddMember("protocol", "rntbd", a);
  e.AddMember("physcialUri", json::Value(uri.c_str(), a), a);
  e.AddMember("partitionKeyRangeId", json::Value(range.c_str(), a), a);
  e.AddMember("partitionIndex", json::Value(range.c_str(), a), a);
  e.AddMember("logicalUri", json::Value(uri.c_str(), a), a);
  e.AddMember("id", json::Value(range.c_str(), a), a);
  e.AddMember("_rid", json::Value(rid.c_str(), a), a);
  list.PushBack(e, a);
}

// The container `$resolveFor` names; null for the master. 400 for anything else, 404 when the
// container does not exist (the SDKs then refresh their collection cache).
store::ContainerPtr ResolveFor(Services& s, const RequestContext& ctx) {
  const std::string text = ctx.QueryParam("$resolveFor").value_or("");
  const auto resolve_for = http::ParseResolveFor(text);
  if (!resolve_for)
    throw errors::BadRequest("$resolveFor must be dbs (the master partition) or dbs/{dbRid}/colls/{collRid}/docs, not '" +
                             text + "'.");
  if (resolve_for->master) return nullptr;
  auto db = s.account.FindDatabaseByRid(resolve_for->db_rid);
  auto c = db ? db->FindContainerByRid(resolve_for->coll_rid) : nullptr;
  if (!c) throw MetadataNotFound();
  return c;
}

}  // namespace

Result ReadAddresses(Services& s, RequestContext& ctx) {
  if (s.config.direct_port == 0)
    throw errors::BadRequest("Direct mode (RNTBD) is off in this emulator, so it has no replica addresses: use "
                             "Gateway mode, or start the emulator with Direct mode on (docs/direct-mode.md).");
  CheckProtocolFilter(ctx);
  store::ContainerPtr c = ResolveFor(s, ctx);
  const std::string base = ReplicaBase(s, AdvertisedEndpoint(s, ctx));
  json::Document d;
  auto& a = d.GetAllocator();
  d.SetObject();
  json::Value list(rapidjson::kArrayType);
  if (!c) {
    AddAddress(d, list, base, "master", "M", "");
  } else {
    // Only the ranges asked for, each once; one that does not exist (a split parent) is left out,
    // and the SDK refreshes its routing map (direct-mode-client.md §1.4, check 3). Without the
    // parameter, every live range.
    std::vector<std::string> wanted;
    if (auto ids = ctx.QueryParam("$partitionKeyRangeIds")) {
      for (auto id : util::Split(*ids, ','))
        if (!id.empty() && std::find(wanted.begin(), wanted.end(), id) == wanted.end()) wanted.emplace_back(id);
    } else {
      for (const auto* p : c->partitions()) wanted.push_back(p->range_id());
    }
    for (const auto& id : wanted)
      if (c->PartitionById(id)) AddAddress(d, list, base, c->rid(), id, c->RangeRid(id));
  }
  const auto count = list.Size();
  d.AddMember("_rid", json::Value(c ? c->rid().c_str() : "", a), a);
  d.AddMember("_count", count, a);
  d.AddMember("Addresss", list, a);  // sic: the wire's key (the SDKs' ResourceKeys.ADDRESSES)
  Result r;
  r.body = json::Write(d);
  r.headers.emplace_back(headers::kItemCount, std::to_string(count));
  r.charge = charge::MetadataRead();
  return r;
}

}  // namespace cosmos::handlers
