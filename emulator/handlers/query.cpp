// POST .../docs with a query: parse (cached), bind with the request's parameters, run one page
// over the partitions the request scopes, and answer the page with its continuation and charge.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

#include "charge/charge.h"
#include "common/errors.h"
#include "handlers/common.h"
#include "handlers/handlers.h"
#include "handlers/scripts.h"
#include "http/headers.h"
#include "query/executor.h"
#include "query/index_use.h"
#include "query/parse_cache.h"
#include "query/query_plan.h"
#include "sqlparser/printer.h"
#include "util/util.h"

namespace cosmos::handlers {

namespace {


// The query's normal form (the parser's printer), which names its shape in the RU report.
// The RU report's key: the query's shape, without the values in it.
std::string NormalisedText(const sql::Query& q) { return sql::ToShape(q); }

// The gateway answers a query that names no partition itself only when the partitions' results
// need no merging. Otherwise it refuses with 400/1004 and the query plan in additionalErrorInfo
// (recording cosmos-119/123); the SDKs then fetch the plan and query each partition key range,
// merging on the client, as they do against the service.
[[noreturn]] void RefuseWithPlan(std::string plan);

// Whether the query's filter fixes the whole partition key: it then reads one logical partition,
// and the gateway runs it there whole (ORDER BY and aggregates included), as with the partition
// key header, without x-ms-documentdb-query-enablecrosspartition (the REST reference: "Queries that
// filter against a single partition key ... do not need to set the header"; the Go SDK's
// TestSinglePartitionQueryInline, the Python SDK's test_none_options).
bool PinnedToOnePartitionKey(const sql::Query& ast, const QueryBody& body, const store::Container& c) {
  auto ranges = query::QueryRanges(ast, body.params, c.partition_key(), c.settings()->geometry);
  return ranges.size() == 1 && ranges[0].max_inclusive && ranges[0].min == ranges[0].max;
}

// The plan's queryInfo decides: the client merges the partitions' results of DISTINCT, TOP,
// OFFSET/LIMIT, ORDER BY, GROUP BY or aggregates (QueryPlan::NeedsClientMerge).
void CheckGatewayServable(const sql::Query& ast, const QueryBody& body, const store::Container& c) {
  const auto settings = c.settings();
  const query::QueryPlan plan =
      query::BuildQueryPlan(ast, body.params, c.partition_key(), settings->vectors.get(), false, settings->geometry);
  if (!plan.NeedsClientMerge()) return;
  RefuseWithPlan(query::QueryPlanJson(plan));
}

void RefuseWithPlan(const sql::Query& ast, const QueryBody& body, const store::Container& c) {
  const auto settings = c.settings();
  RefuseWithPlan(
      query::QueryPlanJson(ast, body.params, c.partition_key(), settings->vectors.get(), false, settings->geometry));
}

[[noreturn]] void RefuseWithPlan(std::string plan) {
  CosmosError e(400, 1004, "BadRequest",
                "The provided cross partition query can not be directly served by the gateway. This is a first chance "
                "(internal) exception that all newer clients will know how to handle gracefully. This exception is "
                "traced, but unless you see it bubble up as an exception (which only happens on older SDK clients), "
                "then you can safely ignore this message.");
  e.additional_error_info = std::move(plan);
  throw e;
}

// What x-ms-documentdb-query-metrics reports for one page: measured times and the page's facts.
struct Metrics {
  double compile_ms = 0;  // parse (cached) and bind
  double execute_ms = 0;  // running the plan over the partitions
  double write_ms = 0;    // writing the result page
  size_t retrieved = 0;
  double retrieved_bytes = 0;
  size_t output = 0;
  size_t output_bytes = 0;
  double index_ratio = 1;
};

// A document path's steps as the indexing policy's paths have them (a position as its number), and
// those steps as a policy path ("/a/b").
std::vector<std::string> SegmentsOf(const store::DocPath& path) {
  std::vector<std::string> segments;
  for (const auto& step : path) segments.push_back(step.index >= 0 ? std::to_string(step.index) : step.name);
  return segments;
}
std::string SlashPath(const std::vector<std::string>& segments) {
  std::string out;
  for (const auto& segment : segments) out += "/" + segment;
  return out;
}

// x-ms-cosmos-index-utilization: the indexes the query is answered with, in the service's shapes.
// The emulator names what it knows, the single-path index its lookup reads and the composite index
// its ORDER BY walks; it suggests no index.
// - Asked for with x-ms-cosmos-populateindexmetrics (the first form): base64 of
//   {"UtilizedSingleIndexes":[...],"PotentialSingleIndexes":[],"UtilizedCompositeIndexes":[],
//   "PotentialCompositeIndexes":[]} (the .NET SDK's IndexUtilizationInfo, the Go SDK requires it).
// - Asked for with x-ms-cosmos-populateindexmetrics-V2 (what @azure/cosmos 4.x and the .NET SDK send
//   now): the percent-encoded JSON {"UtilizedIndexes":{"SingleIndexes":[{"IndexSpec","IndexImpactScore"}],
//   "CompositeIndexes":[]},"PotentialIndexes":{...}}, which the JS SDK decodes with
//   decodeURIComponent and the .NET SDK's IndexMetricsInfo with UrlDecode (the shape the Azure
//   Databases extension for VS Code shows as the service's second format).
// The composite index an ORDER BY over two or more paths walks (query::OrderByIndexColumns), as the
// service names one ("IndexSpecs": ["/city ASC", "/n DESC"], the .NET SDK's writer joins them with
// ", " as Microsoft's index-metrics article shows): each path with its direction in the policy, which
// is the query's or, for an index walked backwards, every one reversed. Empty for anything else.
std::vector<std::string> CompositeSpecs(const query::Plan& plan, const store::IndexingPolicy& policy) {
  const auto columns = query::OrderByIndexColumns(plan, policy);
  if (!columns || columns->size() < 2) return {};
  std::vector<std::vector<std::string>> paths;
  std::vector<bool> descending;
  for (const auto& c : *columns) {
    paths.push_back(SegmentsOf(c.path));
    descending.push_back(c.descending);
  }
  bool as_queried = false;
  for (size_t i = 0; i < policy.composites.size(); ++i) {
    if (policy.composites[i] == paths && policy.composite_descending[i] == descending) as_queried = true;
  }
  std::vector<std::string> specs;
  for (size_t k = 0; k < paths.size(); ++k) specs.push_back(SlashPath(paths[k]) + (descending[k] == as_queried ? " DESC" : " ASC"));
  return specs;
}

std::string IndexUtilizationHeader(const query::Plan& plan, const store::IndexingPolicy& policy, int64_t now_ms,
                                   query::Udfs* udfs, bool geometry, bool v2) {
  query::Arena arena;
  query::EvalContext cx{arena, query::FunctionContext{arena, now_ms, udfs, geometry}, {}, nullptr, nullptr};
  std::string spec;
  bool exact = false;
  if (auto lookup = query::ChooseIndexLookup(plan, policy, cx)) {
    spec = SlashPath(SegmentsOf(lookup->path)) + "/?";
    exact = lookup->exact;
  }
  std::string composite;
  if (const auto specs = CompositeSpecs(plan, policy); !specs.empty()) {
    composite = "{\"IndexSpecs\":[";
    for (size_t k = 0; k < specs.size(); ++k) composite += (k ? "," : "") + json::Quote(specs[k]);
    composite += v2 ? "],\"IndexImpactScore\":\"High\"}" : "],\"IndexPreciseSet\":true,\"IndexImpactScore\":\"High\"}";
  }
  if (v2) {
    std::string json = "{\"UtilizedIndexes\":{\"SingleIndexes\":[";
    if (!spec.empty()) json += "{\"IndexSpec\":" + json::Quote(spec) + ",\"IndexImpactScore\":\"High\"}";
    json += "],\"CompositeIndexes\":[" + composite +
            "]},\"PotentialIndexes\":{\"SingleIndexes\":[],\"CompositeIndexes\":[]}}";
    return util::PercentEncode(json);
  }
  std::string json = "{\"UtilizedSingleIndexes\":[";
  if (!spec.empty()) {
    json += "{\"IndexSpec\":" + json::Quote(spec) + ",\"FilterPreciseSet\":" + (exact ? "true" : "false") +
            ",\"IndexPreciseSet\":true,\"IndexImpactScore\":\"High\"}";
  }
  json += "],\"PotentialSingleIndexes\":[],\"UtilizedCompositeIndexes\":[" + composite +
          "],\"PotentialCompositeIndexes\":[]}";
  return util::Base64Encode(json);
}

// The service's format: "name=value" pairs joined by ';' (no trailing ';'), times in ms with two
// decimals, counts and sizes (bytes) as integers. The SDKs split on ';' and '=' and parse floats.
std::string QueryMetricsHeader(const Metrics& m) {
  auto ms = [](double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f", v);
    return std::string(buf);
  };
  const double total = m.compile_ms + m.execute_ms + m.write_ms;
  std::string out;
  out += "totalExecutionTimeInMs=" + ms(total);
  out += ";queryCompileTimeInMs=" + ms(m.compile_ms);
  out += ";queryLogicalPlanBuildTimeInMs=0.00;queryPhysicalPlanBuildTimeInMs=0.00;queryOptimizationTimeInMs=0.00";
  out += ";VMExecutionTimeInMs=" + ms(m.execute_ms);
  out += ";indexLookupTimeInMs=0.00;documentLoadTimeInMs=0.00";
  out += ";systemFunctionExecuteTimeInMs=0.00;userFunctionExecuteTimeInMs=0.00";
  out += ";retrievedDocumentCount=" + std::to_string(m.retrieved);
  out += ";retrievedDocumentSize=" + std::to_string(static_cast<uint64_t>(std::llround(m.retrieved_bytes)));
  out += ";outputDocumentCount=" + std::to_string(m.output);
  out += ";outputDocumentSize=" + std::to_string(m.output_bytes);
  out += ";writeOutputTimeInMs=" + ms(m.write_ms);
  out += ";indexUtilizationRatio=" + ms(m.index_ratio);
  return out;
}

// ORDER BY VectorDistance(<document path>, ...): the search over the vectors of the partitions the
// page read, by the index the policy gives the path (none, flat or bruteForce: every vector
// compared). The number of dimensions is the embedding's, else the constant vector's.
double VectorSearchCharge(const query::Plan& plan, const query::PageFacts& facts, const store::VectorPolicy* vectors,
                          const query::Scope& scope) {
  auto order = query::VectorOrderOf(plan);
  if (!order) return 0;
  const query::Node& call = *order->call;
  auto kind = charge::VectorSearchKind::kExhaustive;
  size_t dims = 0;
  if (order->other->op == query::Node::Op::kConst && order->other->constant.IsArray())
    dims = order->other->constant.json().Size();
  std::vector<std::string> names;
  for (const auto& step : order->path) names.push_back(step.index >= 0 ? std::to_string(step.index) : step.name);
  if (const store::VectorEmbedding* e = vectors != nullptr ? vectors->Find(names) : nullptr) {
    dims = static_cast<size_t>(e->dimensions);
    kind = e->index == store::VectorIndexType::kDiskAnn         ? charge::VectorSearchKind::kGraph
           : e->index == store::VectorIndexType::kQuantizedFlat ? charge::VectorSearchKind::kQuantized
                                                                 : charge::VectorSearchKind::kExhaustive;
  }
  if (call.kids.size() > 2 && call.kids[2].op == query::Node::Op::kConst && call.kids[2].constant.IsTrue())
    kind = charge::VectorSearchKind::kExhaustive;  // bruteForce
  size_t held = 0;
  for (size_t pi : facts.partitions_touched) held += scope.partitions[pi]->Count();
  return charge::VectorSearch(kind, std::max<size_t>(facts.partitions_touched.size(), 1), held, dims);
}

double MsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

double QueryCharge(const query::Plan& plan, const query::IndexUse& use, const query::PageFacts& facts,
                   charge::Consistency consistency, const store::VectorPolicy* vectors, const query::Scope& scope) {
  if (plan.sources.empty()) return charge::QueryWithoutFrom();
  charge::QueryFacts f;
  f.vector_search = VectorSearchCharge(plan, facts, vectors, scope);
  f.partitions = std::max<size_t>(facts.partitions_touched.size(), 1);
  f.aggregate = plan.aggregate_query;
  f.index_lookups = use.lookups;
  if (!use.filter_uses_index) {
    // No index answers the filter: every document the page read was scanned.
    f.docs_scanned = facts.docs_loaded + facts.docs_scanned;
    f.kb_scanned = facts.kb_loaded + facts.kb_scanned;
  } else if (!f.aggregate) {  // aggregates without GROUP BY are answered from the index
    f.docs_loaded = facts.docs_loaded;
    f.kb_loaded = facts.kb_loaded;
  }
  return charge::QueryPage(f, consistency);
}

Result QueryPlan(Services& s, RequestContext& ctx) {
  auto c = ResolveContainer(s, ctx);
  QueryBody body = ParseQueryBody(ctx.body());
  auto ast = query::ParseQuery(body.text);
  Result r;
  // ORDER BY RANK components: plain TOP queries when the client says it handles them so.
  bool skip_rewrite = false;
  if (auto features = ctx.Header(headers::kSupportedQueryFeatures)) {
    for (auto f : util::Split(*features, ',')) skip_rewrite = skip_rewrite || util::Trim(f) == "HybridSearchSkipOrderByRewrite";
  }
  const auto settings = c->settings();
  r.body = query::QueryPlanJson(*ast, body.params, c->partition_key(), settings->vectors.get(), skip_rewrite,
                                settings->geometry);
  r.charge = 0;
  return r;
}

Result QueryDocuments(Services& s, RequestContext& ctx) {
  const auto started = std::chrono::steady_clock::now();
  auto c = ResolveContainer(s, ctx);  // 404 before anything else
  // The request, its parse tree and constants: a page of a query that collects (ORDER BY, ...)
  // and reaches its deadline keeps them with what it read, for the next page.
  struct Bound {
    QueryBody body;
    std::shared_ptr<const sql::Query> ast;
    query::Arena constants;
    std::shared_ptr<const query::Plan> plan;
  };
  auto bound = std::make_shared<Bound>();
  bound->body = ParseQueryBody(ctx.body());
  const QueryBody& body = bound->body;
  bound->ast = query::ParseQuery(body.text);
  const auto& ast = bound->ast;

  // ORDER BY RANK (full-text and hybrid search) always runs through its plan: the SDKs fetch it
  // when the gateway answers 400/1004 with it, whether or not the query names a partition key.
  if (ast->order_by_rank && !ctx.scope().range_id && !ctx.scope().start_epk)
    RefuseWithPlan(*ast, body, *c);
  ContainerUdfs udfs(s, *c);
  auto settings = c->settings();
  bound->plan = query::Bind(*ast, body.params, bound->constants,
                            {&udfs, settings->vectors.get(), settings->full_text.get(), settings->computed.get()});
  const auto& plan = bound->plan;

  const query::IndexUse use = query::AnalyzeIndexUse(*plan, settings->indexing);
  query::Scope scope;
  scope.now = s.clock.Now();
  scope.default_ttl = settings->default_ttl;
  scope.indexed_only = settings->indexing.mode != "none";
  if (s.config.query_indexes) scope.indexing = &settings->indexing;
  scope.parallel = {s.config.query_threads, s.config.query_parallel_min_items, s.config.query_parallel_part_items};
  const bool scoped =
      ctx.scope().scoped() || (!plan->sources.empty() && PinnedToOnePartitionKey(*ast, body, *c));
  if (!scoped && !plan->sources.empty()) CheckCrossPartitionAllowed(ctx, *c);
  if (!scoped && !c->partition_key().system_key && !plan->sources.empty()) CheckGatewayServable(*ast, body, *c);
  // The backend refuses what the container's index cannot serve (the query plan above never does:
  // the gateway does not know the policy). The settings snapshot is the current one, so a policy
  // replace takes effect on the next request.
  query::CheckIndexSupport(*plan, settings->indexing, ctx.BoolHeader(headers::kEnableScan));
  Routed routed = RouteRequest(ctx, c);
  if (routed.all) {
    // The gateway sends the query only to the ranges its partition-key filter allows.
    std::vector<store::PhysicalPartition*> narrowed;
    for (const auto& range : query::QueryRanges(*ast, body.params, c->partition_key(), settings->geometry)) {
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
  Admit(s, ctx, c, routed.partitions);
  ctx.usage.query = NormalisedText(*ast);
  scope.partitions = routed.partitions;
  scope.partition_key = routed.pk;
  scope.epk_range = routed.epk;

  query::PageRequest req;
  req.max_items = MaxItemCount(ctx).value_or(100).value_or(SIZE_MAX);
  if (auto h = ctx.Header(headers::kContinuation); h && !h->empty()) req.continuation = std::string(*h);
  req.query_text = sql::ToStringWithoutWhere(*ast);
  req.now_ms = s.clock.UnixMs();
  req.udfs = &udfs;
  req.geometry = settings->geometry;
  // The service ends a page after 5 s of work (with a continuation); ORDER BY, DISTINCT, GROUP BY
  // and aggregates hold their rows within a memory budget.
  req.budget.deadline = started + std::chrono::milliseconds(s.config.query_page_timeout_ms);
  req.budget.memory_bytes = s.config.query_memory_bytes;
  req.budget.cancelled = ctx.cancel_flag();  // the client went away: stop (the server watches its socket)
  req.keepalive = bound;
  // One partition key range of the SDKs' pipeline (it merges the range's pages): GROUP BY,
  // aggregates and DISTINCT pages may end at the deadline with their partial result, as the
  // service's do. A query scoped by its partition key is answered whole (the SDKs pass its pages
  // through as they come).
  req.client_merges = !ctx.scope().partition_key && (ctx.scope().range_id || ctx.scope().start_epk);

  Metrics metrics;
  metrics.compile_ms = MsSince(started);
  const auto executing = std::chrono::steady_clock::now();
  query::Page page = query::ExecutePage(*plan, scope, req);
  metrics.execute_ms = MsSince(executing);

  const auto writing = std::chrono::steady_clock::now();
  Result r;
  r.body = FeedJson(c->rid(), "Documents", page.rows);
  metrics.write_ms = MsSince(writing);
  r.headers.emplace_back(headers::kItemCount, std::to_string(page.rows.size()));
  if (page.continuation) r.headers.emplace_back(headers::kContinuation, *page.continuation);
  // The partitions the page touched are what it used; the session token covers them.
  std::vector<store::PhysicalPartition*> touched;
  for (size_t i : page.facts.partitions_touched) touched.push_back(scope.partitions[i]);
  if (touched.empty()) touched.push_back(scope.partitions.front());
  ctx.usage.partitions = touched;
  SessionHeaders(r, ctx, *c, touched);
  r.charge = QueryCharge(*plan, use, page.facts, ReadConsistency(s, ctx), settings->vectors.get(), scope);
  if (ctx.BoolHeader(headers::kPopulateQueryMetrics)) {
    metrics.retrieved = page.facts.docs_loaded + page.facts.docs_scanned;
    metrics.retrieved_bytes = (page.facts.kb_loaded + page.facts.kb_scanned) * 1024.0;
    metrics.output = page.rows.size();
    for (const auto& row : page.rows) metrics.output_bytes += row.size();
    metrics.index_ratio = !use.filter_uses_index ? 0.0
                          : metrics.retrieved == 0
                              ? 1.0
                              : static_cast<double>(page.facts.docs_loaded) / static_cast<double>(metrics.retrieved);
    r.headers.emplace_back(headers::kQueryMetrics, QueryMetricsHeader(metrics));
  }
  if (ctx.BoolHeader(headers::kPopulateIndexMetricsV2)) {
    r.headers.emplace_back(headers::kIndexUtilization,
                           IndexUtilizationHeader(*plan, settings->indexing, req.now_ms, &udfs, settings->geometry, /*v2=*/true));
  } else if (ctx.BoolHeader(headers::kPopulateIndexMetrics)) {
    r.headers.emplace_back(headers::kIndexUtilization,
                           IndexUtilizationHeader(*plan, settings->indexing, req.now_ms, &udfs, settings->geometry, /*v2=*/false));
  }
  return r;
}

}  // namespace cosmos::handlers
