// POST .../docs with a query: parse (cached), bind with the request's parameters, run one page
// over the partitions the request scopes, and answer the page with its continuation and charge.
#include <algorithm>
#include <chrono>

#include "charge/charge.h"
#include "common/errors.h"
#include "handlers/common.h"
#include "handlers/handlers.h"
#include "query/executor.h"
#include "query/parse_cache.h"
#include "query/query_plan.h"
#include "util/util.h"

namespace cosmos::handlers {

namespace {

struct QueryBody {
  std::string text;
  json::Document doc;  // owns the parameters
  const json::Value* params = nullptr;
};

// The body is {"query": "...", "parameters": [{"name": "@p", "value": ...}]}; the service also
// takes a bare query text.
QueryBody ParseQueryBody(const std::string& body) {
  QueryBody q;
  if (json::Parse(body, q.doc) != json::ParseStatus::kOk) {
    q.text = body;
    return q;
  }
  if (!q.doc.IsObject()) throw errors::MalformedPayload();
  auto text = q.doc.FindMember("query");
  if (text == q.doc.MemberEnd() || !text->value.IsString()) throw errors::MalformedPayload();
  q.text.assign(text->value.GetString(), text->value.GetStringLength());
  auto params = q.doc.FindMember("parameters");
  if (params != q.doc.MemberEnd() && !params->value.IsNull()) {
    if (!params->value.IsArray()) throw errors::MalformedPayload();
    for (const auto& p : params->value.GetArray()) {
      auto name = p.IsObject() ? p.FindMember("name") : p.MemberEnd();
      if (!p.IsObject() || name == p.MemberEnd() || !name->value.IsString() ||
          name->value.GetStringLength() < 2 || name->value.GetString()[0] != '@') {
        throw errors::BadRequest("Invalid query parameter: every parameter needs a \"name\" starting with '@'.");
      }
    }
    q.params = &params->value;
  }
  return q;
}

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// The query's normal form (the parser's printer), which names its shape in the RU report.
std::string NormalisedText(const sql::Query& q) { return sql::ToString(q); }

CosmosError CrossPartitionDisabled() {
  return CosmosError(400, 0, "BadRequest",
                     "Cross partition query is required but disabled. Please set "
                     "x-ms-documentdb-query-enablecrosspartition to true, specify x-ms-documentdb-partitionkey, or "
                     "revise your query to avoid this exception.");
}

}  // namespace

Result QueryDocuments(Services& s, RequestContext& ctx, store::ContainerPtr c) {
  QueryBody body = ParseQueryBody(ctx.body());
  auto ast = query::ParseQuery(body.text);

  if (ctx.BoolHeader("x-ms-cosmos-is-query-plan-request")) {
    Result r;
    r.body = query::QueryPlanJson(*ast, body.params, c->partition_key());
    r.charge = 0;
    return r;
  }

  query::Arena constants;
  auto plan = query::Bind(*ast, body.params, constants);

  auto settings = c->settings();
  query::Scope scope;
  scope.now_seconds = util::UnixSeconds();
  scope.default_ttl = settings->default_ttl;
  const bool scoped = ctx.Header("x-ms-documentdb-partitionkey") || ctx.Header("x-ms-documentdb-partitionkeyrangeid") ||
                      ctx.Header("x-ms-start-epk");
  if (!scoped && !c->partition_key().system_key && !ctx.BoolHeader("x-ms-documentdb-query-enablecrosspartition") &&
      !plan->sources.empty()) {
    throw CrossPartitionDisabled();
  }
  Routed routed = RouteRequest(ctx, c);
  if (routed.all) {
    // The gateway sends the query only to the ranges its partition-key filter allows.
    std::vector<store::PhysicalPartition*> narrowed;
    for (const auto& range : query::QueryRanges(*ast, body.params, c->partition_key())) {
      std::vector<store::PhysicalPartition*> parts;
      if (range.max_inclusive) {
        parts.push_back(&c->PartitionForEpk(range.min));
      } else {
        parts = c->PartitionsOverlapping(range.min, range.max);
      }
      for (auto* p : parts) {
        if (std::find(narrowed.begin(), narrowed.end(), p) == narrowed.end()) narrowed.push_back(p);
      }
    }
    std::sort(narrowed.begin(), narrowed.end(), [](auto* a, auto* b) { return a->min_epk() < b->min_epk(); });
    if (!narrowed.empty()) routed.partitions = std::move(narrowed);
  }
  Admit(s, ctx, c, routed.partitions, "query");
  ctx.usage.query = NormalisedText(*ast);
  scope.partitions = routed.partitions;
  scope.partition_key = routed.pk;
  scope.epk_range = routed.epk;

  query::PageRequest req;
  req.max_items = MaxItemCount(ctx).value_or(100).value_or(SIZE_MAX);
  if (auto h = ctx.Header("x-ms-continuation"); h && !h->empty()) req.continuation = std::string(*h);
  req.query_text = body.text;
  req.now_ms = NowMs();

  query::Page page = query::ExecutePage(*plan, scope, req);

  Result r;
  r.body = FeedJson(c->rid(), "Documents", page.rows);
  r.headers.emplace_back("x-ms-item-count", std::to_string(page.rows.size()));
  if (page.continuation) r.headers.emplace_back("x-ms-continuation", *page.continuation);
  // The partitions the page touched are what it used; the session token covers them.
  std::vector<store::PhysicalPartition*> touched;
  for (size_t i : page.facts.partitions_touched) touched.push_back(scope.partitions[i]);
  if (touched.empty()) touched.push_back(scope.partitions.front());
  ctx.usage.partitions = touched;
  SessionHeaders(r, ctx, *c, touched);
  if (plan->sources.empty()) {
    r.charge = charge::QueryWithoutFrom();
  } else {
    charge::QueryFacts f;
    f.partitions = std::max<size_t>(page.facts.partitions_touched.size(), 1);
    f.aggregate = plan->aggregate_query;
    if (!f.aggregate) {  // aggregates without GROUP BY are answered from the index
      f.docs_loaded = page.facts.docs_loaded;
      f.kb_loaded = page.facts.kb_loaded;
    }
    r.charge = charge::QueryPage(f, ReadConsistency(s, ctx));
  }
  return r;
}

}  // namespace cosmos::handlers
