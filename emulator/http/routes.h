// The route table: every (verb, path pattern, operation) the emulator serves, in one place, each
// with its handler and its operation's facts (OperationFacts: its fault-rule type, its name in the
// RU report, whether partitions answer it, whether an I/O thread may, whether it changes a
// database's metadata). Adding an operation is one row and its handler.
//
// A route resolves an operation, not a URL: the same POST /dbs/{db}/colls/{coll}/docs is a create,
// an upsert, a query, a query plan, a batch or a bulk request depending on the headers the SDKs
// send with it, and a GET of the same feed with A-IM is the change feed. The operation is read from
// the headers once (OperationOf) and the table names one handler per (verb, pattern, operation);
// handlers never re-dispatch on headers.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "http/context.h"

namespace cosmos::http {

using HandlerFn = Result (*)(Services&, RequestContext&);

// The operation a request's headers select (see Operation).
Operation OperationOf(const Request& req);

// The path of a request target: what comes before its '?', unless that '?' lies in an item's id
// (dbs/{db}/colls/{coll}/docs/{id...}), where the rest of the target is the id's: the JavaScript
// SDK (encodeURI) and the .NET SDK send an id's '?' unescaped, and the service takes the item
// "Disallowed?Chars" so (the SDKs' id-encoding tests: 201, 200, 200, 204). No client sends a query
// string on an item's path.
std::string_view TargetPath(std::string_view target);

// The query string of a request target (after the '?' that ends TargetPath); empty when none.
std::string_view TargetQuery(std::string_view target);

// Splits a request path (TargetPath of what it is given) into percent-decoded segments; empty
// segments are dropped. False when a segment does not decode.
bool SplitPath(std::string_view path, std::vector<std::string>& out);

struct Route {
  std::vector<std::string_view> pattern;  // literal segments, "{name}" for a parameter
  beast_http::verb verb;
  Operation op;
  HandlerFn handler;
  OperationFacts facts;
};

// Every route, in the table's order (tests check the facts of each).
const std::vector<Route>& Routes();

enum class RouteMatch { kFound, kNoSuchPath, kWrongVerb, kWrongOperation };

struct RouteResult {
  RouteMatch match = RouteMatch::kNoSuchPath;
  const Route* route = nullptr;
  HandlerFn handler = nullptr;
};

// Finds the route for the decoded path segments, verb and operation. An upsert on a resource
// that has no upsert is its create, and A-IM on a feed that has no change feed is its read
// (the service ignores the header there); a query, query plan or batch on a path that does not
// serve one is kWrongOperation.
RouteResult FindRoute(const std::vector<std::string>& segments, beast_http::verb verb, Operation op);

// The route a raw request takes (its target split and decoded, its operation read from its
// headers), or null when it takes none: what the server asks before it has parsed the request.
const Route* RouteOf(const Request& req);

// The (name, value) pairs a route's pattern binds in `segments`.
std::vector<std::pair<std::string, std::string>> BindParams(const Route& route, const std::vector<std::string>& segments);

}  // namespace cosmos::http
