#include "faults/faults.h"

#include <algorithm>
#include <chrono>

#include "common/errors.h"
#include "util/util.h"

namespace cosmos::faults {
namespace {

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

constexpr std::string_view kOperationTypes[] = {
    "ReadItem",   "QueryItem", "CreateItem", "UpsertItem",           "ReplaceItem",
    "DeleteItem", "PatchItem", "Batch",      "ReadFeed",             "ChangeFeed",
    "ExecuteStoredProcedure",  "MetadataDatabaseAccount",            "MetadataContainer",
    "MetadataPartitionKeyRange", "MetadataQueryPlan",                "Metadata"};

// A named server error: what the service answers (status, substatus, body code) and its message.
struct ErrorType {
  std::string_view name;
  int status;
  int substatus;
  std::string_view code;
  std::string_view message;
};
constexpr ErrorType kErrorTypes[] = {
    {"TooManyRequests", 429, 3200, "TooManyRequests", ""},  // errors::TooManyRequests words it
    {"ServiceUnavailable", 503, 0, "ServiceUnavailable", "The service is unavailable. Please retry the request."},
    {"Timeout", 408, 0, "RequestTimeout", "The request did not complete in time."},
    {"InternalServerError", 500, 0, "InternalServerError", "An unknown error occurred while processing this request."},
    {"RetryWith", 449, 0, "RetryWith", "The request conflicts with a concurrent operation: retry it."},
    {"PartitionIsGone", 410, 1002, "Gone", "The partition key range is gone (it was split or merged)."},
    {"PartitionIsSplitting", 410, 1007, "Gone", "The partition key range is completing a split."},
    {"PartitionIsMigrating", 410, 1008, "Gone", "The partition key range is completing a migration."},
    {"NameCacheIsStale", 410, 1000, "Gone", "The name cache is stale: refresh it and retry."},
    {"LeaseNotFound", 410, 1022, "Gone", "The partition's lease was not found."},
    {"ReadSessionNotAvailable", 404, 1002, "NotFound",
     "The read session is not available for the input session token."},
};

std::string_view CodeOfStatus(int status) {
  for (const auto& t : kErrorTypes) {
    if (t.status == status) return t.code;
  }
  switch (status) {
    case 400: return "BadRequest";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "NotFound";
    case 409: return "Conflict";
    case 412: return "PreconditionFailed";
    case 413: return "RequestEntityTooLarge";
    default: return status >= 500 ? "InternalServerError" : "BadRequest";
  }
}

CosmosError Invalid(const std::string& rule, const std::string& text) {
  return errors::BadRequest(rule.empty() ? text : "Fault rule '" + rule + "': " + text);
}

// The strings of a member that is a string or an array of strings.
std::vector<std::string> Strings(const json::Value& v, const std::string& rule, const char* name) {
  std::vector<std::string> out;
  if (v.IsString()) {
    out.emplace_back(v.GetString(), v.GetStringLength());
  } else if (v.IsArray() && !v.Empty()) {
    for (const auto& e : v.GetArray()) {
      if (!e.IsString()) throw Invalid(rule, std::string(name) + " must be a string or an array of strings.");
      out.emplace_back(e.GetString(), e.GetStringLength());
    }
  } else {
    throw Invalid(rule, std::string(name) + " must be a string or a non-empty array of strings.");
  }
  return out;
}

int64_t WholeNumber(const json::Value& v, const std::string& rule, const char* name, int64_t max) {
  if (!v.IsInt64() || v.GetInt64() < 0 || v.GetInt64() > max)
    throw Invalid(rule, std::string(name) + " must be a whole number from 0 to " + std::to_string(max) + ".");
  return v.GetInt64();
}

void CheckMembers(const json::Value& v, std::initializer_list<std::string_view> allowed, const std::string& rule,
                  const char* where) {
  for (const auto& m : v.GetObject()) {
    std::string_view name(m.name.GetString(), m.name.GetStringLength());
    if (std::find(allowed.begin(), allowed.end(), name) == allowed.end())
      throw Invalid(rule, std::string(where) + " has no member '" + std::string(name) + "'.");
  }
}

bool Matches(std::string_view glob, size_t gi, const std::vector<std::string_view>& g,
             const std::vector<std::string_view>& p, size_t pi) {
  if (gi == g.size()) return pi == p.size();
  if (g[gi] == "**") {
    for (size_t k = pi; k <= p.size(); ++k) {
      if (Matches(glob, gi + 1, g, p, k)) return true;
    }
    return false;
  }
  if (pi == p.size()) return false;
  if (g[gi] != "*" && g[gi] != p[pi]) return false;
  return Matches(glob, gi + 1, g, p, pi + 1);
}

std::vector<std::string_view> Segments(std::string_view path) {
  std::vector<std::string_view> out;
  for (auto s : util::Split(path, '/')) {
    if (!s.empty()) out.push_back(s);
  }
  return out;
}

}  // namespace

bool PathMatches(std::string_view glob, std::string_view path) {
  const auto g = Segments(glob);
  if (g.size() > 32) return false;  // bounds the backtracking of "**"
  return Matches(glob, 0, g, Segments(path), 0);
}

bool IsOperationType(std::string_view name) {
  return std::find(std::begin(kOperationTypes), std::end(kOperationTypes), name) != std::end(kOperationTypes);
}

Injector::Injector() : random_(std::random_device{}()) {}

Injector::Rule Injector::Parse(const json::Value& v) const {
  if (!v.IsObject()) throw Invalid("", "A fault rule must be a JSON object.");
  Rule r;
  auto id = v.FindMember("id");
  if (id == v.MemberEnd() || !id->value.IsString() || id->value.GetStringLength() == 0 ||
      id->value.GetStringLength() > 255)
    throw Invalid("", "A fault rule needs an \"id\": a string of 1 to 255 characters.");
  r.id.assign(id->value.GetString(), id->value.GetStringLength());
  CheckMembers(v, {"id", "condition", "result", "hitLimit", "durationMs", "startDelayMs", "enabled"}, r.id,
               "The rule");
  if (auto c = v.FindMember("condition"); c != v.MemberEnd()) {
    if (!c->value.IsObject()) throw Invalid(r.id, "\"condition\" must be an object.");
    CheckMembers(c->value, {"operationType", "path", "partitionKeyRangeId"}, r.id, "\"condition\"");
    if (auto o = c->value.FindMember("operationType"); o != c->value.MemberEnd()) {
      for (auto& t : Strings(o->value, r.id, "condition.operationType")) {
        if (t == "All") continue;
        if (!IsOperationType(t)) {
          std::string names;
          for (auto n : kOperationTypes) names += (names.empty() ? "" : ", ") + std::string(n);
          throw Invalid(r.id, "unknown operationType '" + t + "' (one of: All, " + names + ").");
        }
        r.operation_types.push_back(t);
      }
    }
    if (auto p = c->value.FindMember("path"); p != c->value.MemberEnd()) {
      if (!p->value.IsString() || p->value.GetStringLength() == 0 || p->value.GetString()[0] != '/')
        throw Invalid(r.id, "condition.path must be a path starting with '/', e.g. \"/dbs/db/colls/c/**\".");
      r.path.assign(p->value.GetString(), p->value.GetStringLength());
      if (Segments(r.path).size() > 32) throw Invalid(r.id, "condition.path has more than 32 segments.");
    }
    if (auto k = c->value.FindMember("partitionKeyRangeId"); k != c->value.MemberEnd())
      r.ranges = Strings(k->value, r.id, "condition.partitionKeyRangeId");
  }
  auto res = v.FindMember("result");
  if (res == v.MemberEnd() || !res->value.IsObject())
    throw Invalid(r.id, "a rule needs a \"result\" object: {\"serverErrorType\": ...} or {\"status\": ...}.");
  const auto& rv = res->value;
  CheckMembers(rv, {"serverErrorType", "status", "substatus", "retryAfterMs", "delayMs", "injectionRate"}, r.id,
               "\"result\"");
  Fault& f = r.fault;
  f.rule_id = r.id;
  auto type = rv.FindMember("serverErrorType");
  auto status = rv.FindMember("status");
  if ((type == rv.MemberEnd()) == (status == rv.MemberEnd()))
    throw Invalid(r.id, "\"result\" needs either \"serverErrorType\" or \"status\".");
  std::string type_name;
  if (type != rv.MemberEnd()) {
    if (!type->value.IsString()) throw Invalid(r.id, "result.serverErrorType must be a string.");
    type_name.assign(type->value.GetString(), type->value.GetStringLength());
    if (type_name == "ResponseDelay") {
      f.kind = Fault::Kind::kDelay;
    } else if (type_name == "ConnectionClose") {
      f.kind = Fault::Kind::kDrop;
    } else {
      const ErrorType* found = nullptr;
      for (const auto& t : kErrorTypes) {
        if (t.name == type_name) found = &t;
      }
      if (!found) {
        std::string names = "ResponseDelay, ConnectionClose";
        for (const auto& t : kErrorTypes) names += ", " + std::string(t.name);
        throw Invalid(r.id, "unknown serverErrorType '" + type_name + "' (one of: " + names + ").");
      }
      f.status = found->status;
      f.substatus = found->substatus;
      f.code = found->code;
      f.message = std::string(found->message);
    }
  } else {
    if (!status->value.IsInt() || status->value.GetInt() < 400 || status->value.GetInt() > 599)
      throw Invalid(r.id, "result.status must be a status from 400 to 599.");
    f.status = status->value.GetInt();
    f.code = CodeOfStatus(f.status);
    f.message = "The request failed.";
    type_name = std::to_string(f.status);
  }
  if (auto s = rv.FindMember("substatus"); s != rv.MemberEnd()) {
    if (f.kind != Fault::Kind::kError) throw Invalid(r.id, "result.substatus goes with an error, not " + type_name + ".");
    f.substatus = static_cast<int>(WholeNumber(s->value, r.id, "result.substatus", 65535));
  }
  if (auto a = rv.FindMember("retryAfterMs"); a != rv.MemberEnd()) {
    if (f.status != 429) throw Invalid(r.id, "result.retryAfterMs goes with a 429 (TooManyRequests).");
    f.retry_after_ms = WholeNumber(a->value, r.id, "result.retryAfterMs", 60000);
  } else if (f.status == 429) {
    f.retry_after_ms = 500;
  }
  if (auto d = rv.FindMember("delayMs"); d != rv.MemberEnd()) {
    if (f.kind != Fault::Kind::kDelay) throw Invalid(r.id, "result.delayMs goes with serverErrorType ResponseDelay.");
    f.delay_ms = WholeNumber(d->value, r.id, "result.delayMs", 60000);
  } else if (f.kind == Fault::Kind::kDelay) {
    throw Invalid(r.id, "serverErrorType ResponseDelay needs result.delayMs (0 to 60000).");
  }
  if (auto rate = rv.FindMember("injectionRate"); rate != rv.MemberEnd()) {
    if (!rate->value.IsNumber() || rate->value.GetDouble() <= 0 || rate->value.GetDouble() > 1)
      throw Invalid(r.id, "result.injectionRate must be a number greater than 0 and at most 1.");
    r.rate = rate->value.GetDouble();
  }
  if (f.kind == Fault::Kind::kError) {
    f.message = f.status == 429 && type != rv.MemberEnd()
                    ? errors::TooManyRequests(0).what()
                    : errors::Wrap(f.message + " (Fault injected by the emulator: rule '" + r.id + "', " + type_name +
                                   ".)");
  }
  if (auto h = v.FindMember("hitLimit"); h != v.MemberEnd()) {
    const int64_t n = WholeNumber(h->value, r.id, "hitLimit", INT64_MAX);
    if (n == 0) throw Invalid(r.id, "hitLimit must be at least 1.");
    r.hit_limit = static_cast<uint64_t>(n);
  }
  const int64_t now = NowMs();
  r.start_ms = now;
  if (auto s = v.FindMember("startDelayMs"); s != v.MemberEnd())
    r.start_ms = now + WholeNumber(s->value, r.id, "startDelayMs", int64_t{366} * 24 * 3600 * 1000);
  if (auto d = v.FindMember("durationMs"); d != v.MemberEnd())
    r.end_ms = r.start_ms + WholeNumber(d->value, r.id, "durationMs", int64_t{366} * 24 * 3600 * 1000);
  if (auto e = v.FindMember("enabled"); e != v.MemberEnd()) {
    if (!e->value.IsBool()) throw Invalid(r.id, "enabled must be true or false.");
    r.enabled = e->value.GetBool();
  }
  r.json = json::Write(v);
  return r;
}

std::string Injector::Add(const json::Value& v) {
  Rule r = Parse(v);
  std::string json = r.json;
  std::lock_guard lock(mu_);
  auto same = std::find_if(rules_.begin(), rules_.end(), [&](const Rule& x) { return x.id == r.id; });
  if (same != rules_.end()) {
    *same = std::move(r);
  } else {
    if (rules_.size() >= 1000) throw errors::BadRequest("At most 1000 fault rules: remove some first.");
    rules_.push_back(std::move(r));
  }
  any_ = true;
  return json;
}

void Injector::AddAll(std::string_view text) {
  json::Document d;
  if (json::Parse(text, d) != json::ParseStatus::kOk || !(d.IsArray() || d.IsObject()))
    throw errors::BadRequest("The fault rules must be a JSON array of rules (or one rule).");
  if (d.IsObject()) {
    Add(d);
    return;
  }
  for (const auto& rule : d.GetArray()) Add(rule);
}

std::string Injector::ListJson() const {
  std::lock_guard lock(mu_);
  const int64_t now = NowMs();
  std::string out = "{\"rules\":[";
  for (size_t i = 0; i < rules_.size(); ++i) {
    const Rule& r = rules_[i];
    if (i) out += ",";
    // The rule as added, with its state appended.
    std::string body = r.json;
    body.pop_back();
    body += ",\"hits\":" + std::to_string(r.hits);
    const bool active = r.enabled && now >= r.start_ms && (!r.end_ms || now < *r.end_ms) &&
                        (!r.hit_limit || r.hits < *r.hit_limit);
    body += std::string(",\"active\":") + (active ? "true" : "false") + "}";
    out += body;
  }
  return out + "]}";
}

bool Injector::Remove(std::string_view id) {
  std::lock_guard lock(mu_);
  auto it = std::find_if(rules_.begin(), rules_.end(), [&](const Rule& r) { return r.id == id; });
  if (it == rules_.end()) return false;
  rules_.erase(it);
  any_ = !rules_.empty();
  return true;
}

void Injector::Clear() {
  std::lock_guard lock(mu_);
  rules_.clear();
  any_ = false;
}

std::optional<Fault> Injector::Match(const Target& t) {
  if (!any_.load(std::memory_order_relaxed)) return std::nullopt;
  std::lock_guard lock(mu_);
  const int64_t now = NowMs();
  for (Rule& r : rules_) {
    if (!r.enabled || now < r.start_ms || (r.end_ms && now >= *r.end_ms)) continue;
    if (r.hit_limit && r.hits >= *r.hit_limit) continue;
    if (!r.operation_types.empty() &&
        std::find(r.operation_types.begin(), r.operation_types.end(), t.operation_type) == r.operation_types.end())
      continue;
    if (!r.path.empty() && !PathMatches(r.path, t.path)) continue;
    if (!r.ranges.empty()) {
      bool hit = false;
      for (auto range : t.ranges) hit = hit || std::find(r.ranges.begin(), r.ranges.end(), range) != r.ranges.end();
      if (!hit) continue;
    }
    if (r.rate < 1.0 && std::uniform_real_distribution<double>(0.0, 1.0)(random_) >= r.rate) continue;
    ++r.hits;
    return r.fault;
  }
  return std::nullopt;
}

}  // namespace cosmos::faults
