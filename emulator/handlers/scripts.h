// What the item and query handlers need from server-side scripts (script.cpp): triggers around
// item writes, user-defined functions in queries, and the query charge scripts share.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <unordered_map>

#include "charge/charge.h"
#include "http/context.h"
#include "query/executor.h"
#include "query/index_use.h"
#include "query/plan.h"
#include "store/store.h"

namespace cosmos::handlers {

// The request units of one query page (query.cpp). `vectors`: the container's vector embedding
// policy (the index an ORDER BY VectorDistance searches), `scope`: what the page read.
double QueryCharge(const query::Plan& plan, const query::IndexUse& use, const query::PageFacts& facts,
                   charge::Consistency consistency, const store::VectorPolicy* vectors, const query::Scope& scope);

// The container's user-defined functions as a query calls them (one JavaScript call per use).
class ContainerUdfs : public query::Udfs {
 public:
  ContainerUdfs(const http::Services& s, const store::Container& c) : s_(s), c_(c) {}
  bool Has(std::string_view name) const override;
  // Each call runs under the script time limit (--script-timeout-ms) and ends earlier at the
  // query's deadline (query::UdfDeadline) or when the request is cancelled (408).
  query::Val Call(std::string_view name, std::span<const query::Val> args, query::Arena& arena,
                  const query::UdfLimits& limits) override;

 private:
  const http::Services& s_;
  const store::Container& c_;
  mutable std::unordered_map<std::string, store::ScriptPtr> found_;  // one version per query
};

// The triggers a write request names (x-ms-documentdb-pre/post-trigger-include): at most one of
// each (400), existing (404), of the type the header asks for (400).
struct Triggers {
  store::ScriptPtr pre;
  store::ScriptPtr post;
  bool any() const { return pre || post; }
};
Triggers RequestTriggers(const http::RequestContext& ctx, const store::Container& c);

// What a write run between its triggers produced.
struct TriggeredWrite {
  store::WriteResult result;
  uint64_t lsn = 0;                      // the partition's LSN once committed
  std::optional<std::string> response;   // the post-trigger's getResponse().setBody(...), as JSON
  double scripts_charge = 0;             // what the triggers cost
  std::string log;                       // the triggers' console.log output
};

// x-ms-documentdb-script-log-results (percent-encoded as encodeURIComponent does), when the request
// asked for the script log.
std::optional<std::pair<std::string, std::string>> ScriptLogHeader(const http::RequestContext& ctx,
                                                                   const std::string& log);
// Runs `write` in one transaction between the triggers. The pre-trigger sees `body` (null for a
// delete) and may replace it; `write` gets the body to write. A trigger that throws, or a trigger
// whose operation does not match, leaves nothing written.
using TransactionalWrite = std::function<store::WriteResult(store::Transaction& tx, const json::Value* body)>;
TriggeredWrite RunTriggered(http::Services& s, http::RequestContext& ctx, const store::ContainerPtr& c,
                            store::PhysicalPartition& p, const std::string& pk, const std::string& epk,
                            const Triggers& triggers, store::WriteKind op, const std::string& id, const json::Value* body,
                            const TransactionalWrite& write);

}  // namespace cosmos::handlers
