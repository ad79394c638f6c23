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
// database.cpp
Result CreateDatabase(Services& s, RequestContext& ctx);
Result ListDatabases(Services& s, RequestContext& ctx);
Result ReadDatabase(Services& s, RequestContext& ctx);
Result DeleteDatabase(Services& s, RequestContext& ctx);
// container.cpp
Result CreateContainer(Services& s, RequestContext& ctx);
Result ListContainers(Services& s, RequestContext& ctx);
Result ReadContainer(Services& s, RequestContext& ctx);
Result ReplaceContainer(Services& s, RequestContext& ctx);
Result DeleteContainer(Services& s, RequestContext& ctx);
// pkrange.cpp
Result ListPartitionKeyRanges(Services& s, RequestContext& ctx);
// document.cpp
Result PostDocuments(Services& s, RequestContext& ctx);
Result ReadDocumentFeed(Services& s, RequestContext& ctx);
Result ReadDocument(Services& s, RequestContext& ctx);
Result ReplaceDocument(Services& s, RequestContext& ctx);
Result DeleteDocument(Services& s, RequestContext& ctx);
Result PatchDocument(Services& s, RequestContext& ctx);
// query.cpp: a query POSTed to .../docs (PostDocuments dispatches here).
Result QueryDocuments(Services& s, RequestContext& ctx, store::ContainerPtr c);
// A GET of the documents feed carrying A-IM: the change feed.
Result ReadChangeFeed(Services& s, RequestContext& ctx, store::ContainerPtr c);
// Transactional batch and bulk (x-ms-cosmos-is-batch-request), answered in batch.cpp.
Result ExecuteBatch(Services& s, RequestContext& ctx, store::ContainerPtr c);
// offer.cpp: GET /offers, POST /offers (a query), GET|PUT /offers/{id}.
Result ListOffers(Services& s, RequestContext& ctx);
Result PostOffers(Services& s, RequestContext& ctx);
Result ReadOffer(Services& s, RequestContext& ctx);
Result ReplaceOffer(Services& s, RequestContext& ctx);
// script.cpp: stored procedures, triggers and user-defined functions (the kind from the path).
Result CreateScript(Services& s, RequestContext& ctx);
Result ListScripts(Services& s, RequestContext& ctx);
Result ReadScript(Services& s, RequestContext& ctx);
Result ReplaceScript(Services& s, RequestContext& ctx);
Result DeleteScript(Services& s, RequestContext& ctx);
Result ExecuteStoredProcedure(Services& s, RequestContext& ctx);
// user.cpp: users and their permissions (POST to the collections also queries and upserts).
Result PostUsers(Services& s, RequestContext& ctx);
Result ListUsers(Services& s, RequestContext& ctx);
Result ReadUser(Services& s, RequestContext& ctx);
Result ReplaceUser(Services& s, RequestContext& ctx);
Result DeleteUser(Services& s, RequestContext& ctx);
Result PostPermissions(Services& s, RequestContext& ctx);
Result ListPermissions(Services& s, RequestContext& ctx);
Result ReadPermission(Services& s, RequestContext& ctx);
Result ReplacePermission(Services& s, RequestContext& ctx);
Result DeletePermission(Services& s, RequestContext& ctx);
// Resource kinds the service has and this emulator does not serve yet: a clear 501.
Result NotYetImplemented(Services& s, RequestContext& ctx);

}  // namespace cosmos::handlers
