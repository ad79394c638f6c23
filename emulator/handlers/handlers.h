// Request handlers, one file per resource kind. Typed in (RequestContext), typed out (Result).
#pragma once

#include "http/context.h"
#include "store/store.h"

namespace cosmos::handlers {

using http::RequestContext;
using http::Result;
using http::Services;

// account.cpp
Result ReadAccount(Services& s, RequestContext& ctx);
// The gateway endpoint the account document sends clients to ("https://host:port/"): the public
// endpoint's parts, the others from the request (its scheme, its Host header).
std::string AdvertisedEndpoint(const Services& s, const RequestContext& ctx);
// addresses.cpp: GET /addresses/?$resolveFor=...&$filter=protocol eq rntbd&$partitionKeyRangeIds=...
// (Direct mode's replica addresses, docs/direct-mode.md).
Result ReadAddresses(Services& s, RequestContext& ctx);
// database.cpp
Result CreateDatabase(Services& s, RequestContext& ctx);
Result QueryDatabases(Services& s, RequestContext& ctx);
Result ListDatabases(Services& s, RequestContext& ctx);
Result ReadDatabase(Services& s, RequestContext& ctx);
Result DeleteDatabase(Services& s, RequestContext& ctx);
// container.cpp
Result CreateContainer(Services& s, RequestContext& ctx);
Result ListContainers(Services& s, RequestContext& ctx);
Result QueryContainers(Services& s, RequestContext& ctx);
Result ReadContainer(Services& s, RequestContext& ctx);
Result ReplaceContainer(Services& s, RequestContext& ctx);
Result DeleteContainer(Services& s, RequestContext& ctx);
// pkrange.cpp
Result ListPartitionKeyRanges(Services& s, RequestContext& ctx);
// POST /_emulator/containers/{db}/{coll}/split (docs/faults.md): splits the range the body names
// ({"partitionKeyRangeId": "0"}), or every live range (an empty body or {}); answers the splits
// made and the ranges after them.
std::string SplitContainer(Services& s, const std::string& db, const std::string& coll, const std::string& body);
// Splits the container's widest ranges until each has at most 10,000 RU/s of `t` (the service's
// split on a throughput increase). Returns how many splits it made.
size_t SplitForThroughput(Services& s, store::Container& c, const store::Throughput& t);
// document.cpp
Result CreateDocument(Services& s, RequestContext& ctx);
Result UpsertDocument(Services& s, RequestContext& ctx);
Result ReadDocumentFeed(Services& s, RequestContext& ctx);
Result ReadDocument(Services& s, RequestContext& ctx);
Result ReplaceDocument(Services& s, RequestContext& ctx);
Result DeleteDocument(Services& s, RequestContext& ctx);
Result PatchDocument(Services& s, RequestContext& ctx);
// query.cpp: a query POSTed to .../docs, and the query plan the SDKs ask for.
Result QueryDocuments(Services& s, RequestContext& ctx);
Result QueryPlan(Services& s, RequestContext& ctx);
// change_feed.cpp: a GET of the documents feed carrying A-IM.
Result ReadChangeFeed(Services& s, RequestContext& ctx);
// batch.cpp: transactional batch and bulk (x-ms-cosmos-is-batch-request; bulk with
// x-ms-cosmos-batch-atomic: false).
Result ExecuteBatch(Services& s, RequestContext& ctx);
Result ExecuteBulk(Services& s, RequestContext& ctx);
// offer.cpp: GET /offers, POST /offers (a query), GET|PUT /offers/{id}.
Result ListOffers(Services& s, RequestContext& ctx);
Result QueryOffers(Services& s, RequestContext& ctx);
Result ReadOffer(Services& s, RequestContext& ctx);
Result ReplaceOffer(Services& s, RequestContext& ctx);
// script.cpp: stored procedures, triggers and user-defined functions (the kind from the path).
Result CreateScript(Services& s, RequestContext& ctx);
Result UpsertScript(Services& s, RequestContext& ctx);
Result QueryScripts(Services& s, RequestContext& ctx);
Result ListScripts(Services& s, RequestContext& ctx);
Result ReadScript(Services& s, RequestContext& ctx);
Result ReplaceScript(Services& s, RequestContext& ctx);
Result DeleteScript(Services& s, RequestContext& ctx);
Result ExecuteStoredProcedure(Services& s, RequestContext& ctx);
// user.cpp: users and their permissions.
Result CreateUser(Services& s, RequestContext& ctx);
Result UpsertUser(Services& s, RequestContext& ctx);
Result QueryUsers(Services& s, RequestContext& ctx);
Result ListUsers(Services& s, RequestContext& ctx);
Result ReadUser(Services& s, RequestContext& ctx);
Result ReplaceUser(Services& s, RequestContext& ctx);
Result DeleteUser(Services& s, RequestContext& ctx);
Result CreatePermission(Services& s, RequestContext& ctx);
Result UpsertPermission(Services& s, RequestContext& ctx);
Result QueryPermissions(Services& s, RequestContext& ctx);
Result ListPermissions(Services& s, RequestContext& ctx);
Result ReadPermission(Services& s, RequestContext& ctx);
Result ReplacePermission(Services& s, RequestContext& ctx);
Result DeletePermission(Services& s, RequestContext& ctx);
// conflict.cpp: the conflicts feed of a container (always empty: one write region).
Result ListConflicts(Services& s, RequestContext& ctx);
Result QueryConflicts(Services& s, RequestContext& ctx);
Result ReadConflict(Services& s, RequestContext& ctx);
Result DeleteConflict(Services& s, RequestContext& ctx);
// partition_key_delete.cpp: POST .../colls/{coll}/operations/partitionkeydelete.
Result DeleteAllItemsForPartitionKey(Services& s, RequestContext& ctx);
// encryption_key.cpp: /dbs/{db}/clientencryptionkeys[/{id}] (client-side encryption's wrapped keys).
Result CreateClientEncryptionKey(Services& s, RequestContext& ctx);
Result QueryClientEncryptionKeys(Services& s, RequestContext& ctx);
Result ListClientEncryptionKeys(Services& s, RequestContext& ctx);
Result ReadClientEncryptionKey(Services& s, RequestContext& ctx);
Result ReplaceClientEncryptionKey(Services& s, RequestContext& ctx);
// Resource kinds the service has and this emulator does not serve yet: a clear 501.
Result NotYetImplemented(Services& s, RequestContext& ctx);

}  // namespace cosmos::handlers
