#include "query/computed_properties.h"

#include <string_view>

#include "common/errors.h"
#include "query/parse_cache.h"
#include "query/plan.h"
#include "query/rules.h"
#include "util/util.h"

namespace cosmos::query {

namespace {

constexpr size_t kMaxComputedProperties = 20;

// The names the service keeps for itself.
constexpr std::string_view kSystemNames[] = {"id", "_rid", "_ts", "_etag", "_self", "_attachments"};

// Functions whose value is not the document's alone.
constexpr std::string_view kNonDeterministic[] = {"RAND",           "GetCurrentDateTime",       "GetCurrentTimestamp",
                                                  "GetCurrentTicks", "GetCurrentDateTimeStatic", "GetCurrentTimestampStatic",
                                                  "GetCurrentTicksStatic"};


std::string At(size_t index) { return "at index (" + std::to_string(index) + ")"; }

// What a computed property's query may not use, or empty.
std::string Unsupported(const sql::Expr& e) {
  switch (e.kind) {
    case sql::ExprKind::kSubquery:
    case sql::ExprKind::kExists:
    case sql::ExprKind::kArraySubquery:
    case sql::ExprKind::kAggregateSubquery: return "subqueries";
    case sql::ExprKind::kUdfCall: return "user-defined functions";
    case sql::ExprKind::kParameter: return "parameters";
    case sql::ExprKind::kCall:
      if (rules::AggregateOf(e)) return "aggregate functions";
      for (auto name : kNonDeterministic) {
        if (util::EqualsIgnoreCase(e.name, name)) return "non-deterministic functions";
      }
      if (e.name.size() > 3 && util::EqualsIgnoreCase(e.name.substr(0, 3), "ST_")) return "spatial functions";
      break;
    default: break;
  }
  for (const auto& a : e.args) {
    if (!a) continue;
    if (auto what = Unsupported(*a); !what.empty()) return what;
  }
  return {};
}

// The clauses a computed property's query may not have, or empty.
std::string UnsupportedClause(const sql::Query& q) {
  if (q.from.empty()) return "a query without FROM";
  if (q.from.size() > 1) return "JOIN";
  const sql::FromItem& from = q.from[0];
  if (from.subquery || from.iterator || !from.path || from.path->kind != sql::ExprKind::kName)
    return "a FROM clause other than the container's root";
  if (q.where) return "WHERE";
  if (!q.group_by.empty()) return "GROUP BY";
  if (!q.order_by.empty()) return "ORDER BY";
  if (q.top) return "TOP";
  if (q.distinct) return "DISTINCT";
  if (q.offset || q.limit) return "OFFSET LIMIT";
  return {};
}

// The service's error details for a query that does not parse or bind: its errors without
// locations, codes as numbers.
std::string ErrorDetails(const CosmosError& e) {
  std::string_view text = e.what();
  constexpr std::string_view kPrefix = "Message: ";
  if (text.starts_with(kPrefix)) text.remove_prefix(kPrefix.size());
  json::Document d;
  if (json::Parse(text, d) != json::ParseStatus::kOk || !d.IsObject()) return std::string(text);
  json::Document out;
  out.SetObject();
  auto& a = out.GetAllocator();
  json::Value list(rapidjson::kArrayType);
  const json::Value* errors = nullptr;
  for (const auto& m : d.GetObject()) {
    if (std::string_view(m.name.GetString()) == "errors" || std::string_view(m.name.GetString()) == "Errors")
      errors = &m.value;
  }
  if (errors == nullptr || !errors->IsArray()) return std::string(text);
  for (const auto& err : errors->GetArray()) {
    if (!err.IsObject()) {
      list.PushBack(json::Value(err, a), a);
      continue;
    }
    json::Value o(rapidjson::kObjectType);
    o.AddMember("severity", "Error", a);
    auto code = err.FindMember("code");
    if (code != err.MemberEnd() && code->value.IsString()) {
      std::string_view c(code->value.GetString(), code->value.GetStringLength());
      if (c.starts_with("SC")) c.remove_prefix(2);
      if (auto n = util::ParseInteger<int>(c)) {
        o.AddMember("code", *n, a);
      } else {
        o.AddMember("code", json::Value(code->value, a), a);
      }
    }
    auto message = err.FindMember("message");
    if (message != err.MemberEnd()) o.AddMember("message", json::Value(message->value, a), a);
    list.PushBack(o, a);
  }
  out.AddMember("errors", list, a);
  return json::Write(out);
}

}  // namespace

std::shared_ptr<const store::ComputedProperties> ComputedPropertiesFromJson(const json::Value& v,
                                                                            const store::IndexingPolicy& indexing) {
  if (!v.IsArray()) throw errors::InvalidInput();
  auto out = std::make_shared<store::ComputedProperties>();
  if (v.Size() > kMaxComputedProperties)
    throw errors::BadRequest("The number of computed properties (" + std::to_string(v.Size()) +
                             ") exceeds the maximum of " + std::to_string(kMaxComputedProperties) + ".");
  size_t index = 0;
  for (const auto& def : v.GetArray()) {
    if (!def.IsObject()) throw errors::InvalidInput();
    auto name_it = def.FindMember("name");
    auto query_it = def.FindMember("query");
    if (name_it == def.MemberEnd() || !name_it->value.IsString()) throw errors::InvalidInput();
    if (query_it == def.MemberEnd() || !query_it->value.IsString()) throw errors::InvalidInput();
    store::ComputedProperty cp;
    cp.name.assign(name_it->value.GetString(), name_it->value.GetStringLength());
    cp.query.assign(query_it->value.GetString(), query_it->value.GetStringLength());
    if (cp.name.empty()) throw errors::BadRequest("Computed property 'name' is either empty or unspecified.");
    if (cp.query.empty()) throw errors::BadRequest("Computed property 'query' is either empty or unspecified.");
    for (auto system : kSystemNames) {
      if (cp.name == system)
        throw errors::BadRequest("The system property name '" + cp.name + "' cannot be used as a computed property name.");
    }
    if (out->Find(cp.name))
      throw errors::BadRequest("Computed property name '" + cp.name + "' cannot be used in multiple definitions.");
    for (const auto& path : indexing.spatial) {
      if (!path.empty() && path[0] == cp.name)
        throw errors::BadRequest("Computed property '" + cp.name + "' " + At(index) +
                                 " has a spatial index. Remove the spatial index on this path.");
    }
    auto malformed = [&](const std::string& details) {
      return errors::BadRequest("Computed property " + At(index) + " has a malformed query: '" + cp.query +
                                "' Error details: '" + details + "'");
    };
    try {
      cp.ast = ParseQuery(cp.query);
    } catch (const CosmosError& e) {
      throw malformed(ErrorDetails(e));
    }
    const sql::Query& q = *cp.ast;
    if (q.select != sql::SelectKind::kValue)
      throw errors::BadRequest("Required VALUE expression missing from computed property query '" + cp.query + "' " +
                               At(index) + ".");
    std::string unsupported = UnsupportedClause(q);
    if (unsupported.empty()) unsupported = Unsupported(*q.value);
    if (!unsupported.empty())
      throw errors::BadRequest("Computed property " + At(index) + " has an unsupported query: '" + cp.query +
                               "' Computed property queries cannot use " + unsupported + ".");
    // Names that do not resolve, unknown functions and wrong argument counts, as the service's
    // query compiler reports them.
    try {
      Arena arena;
      Bind(q, nullptr, arena);
    } catch (const CosmosError& e) {
      throw malformed(ErrorDetails(e));
    }
    out->list.push_back(std::move(cp));
    ++index;
  }
  if (out->list.empty()) return nullptr;
  return out;
}

}  // namespace cosmos::query
