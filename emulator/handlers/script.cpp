// /dbs/{db}/colls/{coll}/sprocs, /triggers, /udfs: script resources; stored procedure execution;
// triggers around item writes; user-defined functions in queries. Scripts reach the store through
// ScriptHost, over a transaction on the request's logical partition.
#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstring>

#include "charge/charge.h"
#include "common/errors.h"
#include "handlers/common.h"
#include "handlers/handlers.h"
#include "handlers/items.h"
#include "handlers/scripts.h"
#include "http/headers.h"
#include "json/json.h"
#include "query/parse_cache.h"
#include "scripting/engine.h"
#include "util/clock.h"
#include "util/util.h"

namespace cosmos::handlers {
namespace {

using store::ScriptKind;

// The routes give script handlers .../{sprocs,triggers,udfs}[/{id}] only.
ScriptKind KindOf(const RequestContext& ctx) { return *store::ScriptKindOfPath(ctx.seg(4)); }

const char* FeedKey(ScriptKind kind) {
  switch (kind) {
    case ScriptKind::kStoredProcedure: return "StoredProcedures";
    case ScriptKind::kTrigger: return "Triggers";
    case ScriptKind::kUserDefinedFunction: return "UserDefinedFunctions";
  }
  return "";
}

const char* PathSegment(ScriptKind kind) {
  switch (kind) {
    case ScriptKind::kStoredProcedure: return "sprocs";
    case ScriptKind::kTrigger: return "triggers";
    case ScriptKind::kUserDefinedFunction: return "udfs";
  }
  return "";
}

std::string ScriptJson(const store::Container& c, ScriptKind kind, const store::ScriptResource& r) {
  json::Document d;
  auto& a = d.GetAllocator();
  d.SetObject();
  d.AddMember("body", json::Value(r.body.c_str(), a), a);
  d.AddMember("id", json::Value(r.id.c_str(), a), a);
  if (kind == ScriptKind::kTrigger) {
    d.AddMember("triggerOperation", json::Value(r.trigger_operation.c_str(), a), a);
    d.AddMember("triggerType", json::Value(r.trigger_type.c_str(), a), a);
  }
  d.AddMember("_rid", json::Value(r.rid.c_str(), a), a);
  d.AddMember("_ts", r.ts, a);
  std::string self = c.self() + PathSegment(kind) + "/" + r.rid + "/";
  d.AddMember("_self", json::Value(self.c_str(), a), a);
  d.AddMember("_etag", json::Value(r.etag.c_str(), a), a);
  return json::Write(d);
}

// The value of `name` from a case-insensitive list, in the list's spelling; nullopt otherwise.
std::optional<std::string> OneOf(std::string_view value, std::initializer_list<const char*> names) {
  for (const char* n : names) {
    if (util::EqualsIgnoreCase(value, n)) return std::string(n);
  }
  return std::nullopt;
}

CosmosError MissingProperties(const std::string& names) {
  return errors::BadRequest("The input content is invalid because the required properties - '" + names +
                            "' - are missing");
}

// A script resource from a create or replace body.
store::ScriptResource ScriptFromBody(ScriptKind kind, const json::Value& body) {
  ValidateId(body);
  store::ScriptResource r;
  r.id = IdOf(body);
  std::string missing;
  auto text = body.FindMember("body");
  if (text == body.MemberEnd() || text->value.IsNull()) missing += "body; ";
  if (kind == ScriptKind::kTrigger) {
    auto type = body.FindMember("triggerType");
    auto op = body.FindMember("triggerOperation");
    if (type == body.MemberEnd() || type->value.IsNull()) missing += "triggerType; ";
    if (op == body.MemberEnd() || op->value.IsNull()) missing += "triggerOperation; ";
    if (missing.empty()) {
      auto t = type->value.IsString() ? OneOf(type->value.GetString(), {"Pre", "Post"}) : std::nullopt;
      if (!t) throw errors::BadRequest("The value of triggerType is invalid: it must be Pre or Post.");
      auto o = op->value.IsString()
                   ? OneOf(op->value.GetString(), {"All", "Create", "Update", "Delete", "Replace"})
                   : std::nullopt;
      if (!o) {
        throw errors::BadRequest(
            "The value of triggerOperation is invalid: it must be All, Create, Update, Delete or Replace.");
      }
      // Kept as sent, in whatever case (the Python SDK sends "pre" and "all" and asserts it reads
      // them back so); the emulator compares them without regard to case.
      r.trigger_type.assign(type->value.GetString(), type->value.GetStringLength());
      r.trigger_operation.assign(op->value.GetString(), op->value.GetStringLength());
    }
  }
  if (!missing.empty()) throw MissingProperties(missing);
  if (!text->value.IsString()) throw errors::BadRequest("The input content is invalid because the property 'body' must be a string.");
  r.body.assign(text->value.GetString(), text->value.GetStringLength());
  return r;
}

// The key naming one version of a script in the engine's per-thread cache.
std::string CacheKey(const store::ScriptResource& r) { return "v" + std::to_string(r.version); }

scripting::Limits LimitsOf(const http::Services& s) {
  scripting::Limits l;
  l.timeout = std::chrono::milliseconds(s.config.script_timeout_ms);
  l.memory_bytes = s.config.script_memory_bytes;
  return l;
}

// What a failed execution answers, as the service words it.
CosmosError ScriptFailure(const http::Services& s, const scripting::Outcome& out) {
  using Status = scripting::Outcome::Status;
  switch (out.status) {
    case Status::kTimedOut:
      return CosmosError(408, 0, "RequestTimeout",
                         errors::Wrap("The requested operation exceeded maximum alloted time. Learn more: "
                                      "https://aka.ms/cosmosdb-tsg-service-request-timeout"));
    case Status::kOutOfMemory:
      return errors::BadRequest("Encountered exception while executing function. Exception = Error: Out of memory: "
                                "the script needed more memory than an execution may use (" +
                                std::to_string(s.config.script_memory_bytes >> 20) + " MB).");
    case Status::kInvalidScript:
      return errors::BadRequest("Encountered exception while compiling Javascript. Exception = " + out.error);
    case Status::kThrew:
    case Status::kOk:
      break;
  }
  return errors::BadRequest("Encountered exception while executing function. Exception = " + out.error,
                            out.error_number.value_or(0));
}

// The error text an operation's callback sees: the service's {"Errors":[...]} without "Message: ".
std::string OperationMessage(const CosmosError& e) {
  std::string m = e.what();
  if (m.rfind("Message: ", 0) == 0) m = m.substr(9);
  return m;
}

// An operation's failure as the prelude reads it: under "error" the callback gets it; under
// "throw" the call throws it at once (a bad argument, as the service's wrapper checks links).
std::string FailureReply(const char* key, int status, int substatus, const std::string& code,
                         const std::string& message) {
  std::string out = std::string("{\"") + key + "\":{\"number\":" + std::to_string(status);
  if (substatus) out += ",\"substatus\":" + std::to_string(substatus);
  out += ",\"code\":";
  json::WriteString(out, code);
  out += ",\"message\":";
  json::WriteString(out, message);
  return out + "}}";
}

std::string ThrowReply(const std::string& message) { return FailureReply("throw", 400, 0, "BadRequest", message); }

// What one feed page may hold: the service's responses stop at about 4 MB.
constexpr size_t kFeedPageBytes = 4u << 20;

const char* kOtherPartition =
    "Requests originating from scripts cannot reference partition keys other than the one for which client request "
    "was submitted.";

// The store as a stored procedure or trigger sees it: one logical partition, through `tx`.
class ScriptHost : public scripting::Host {
 public:
  ScriptHost(http::Services& s, const store::ContainerPtr& c, const std::string& alt_link, store::Transaction& tx,
             std::string epk)
      : s_(s), c_(c), settings_(c->settings()), alt_link_(alt_link), tx_(tx), epk_(std::move(epk)) {}

  // The execution's end (its time limit) and the request's cancellation, which bound the script's
  // queries and feeds as they bound the script.
  void Bound(std::chrono::steady_clock::time_point deadline, const std::atomic<bool>* cancelled) {
    deadline_ = deadline;
    cancelled_ = cancelled;
  }

  // The standalone charges of every operation so far.
  double inner() const { return inner_; }
  void reset_inner() { inner_ = 0; }

  std::string Call(std::string_view op, std::string_view args_json) override {
    json::Document args;
    if (json::Parse(args_json, args) != json::ParseStatus::kOk || !args.IsObject())
      return ThrowReply("The arguments of " + std::string(op) + " are not valid JSON.");
    const json::Value empty_options(rapidjson::kObjectType);
    auto opt = args.FindMember("options");
    const json::Value& options = opt != args.MemberEnd() && opt->value.IsObject() ? opt->value : empty_options;
    std::string link;
    if (auto l = args.FindMember("link"); l != args.MemberEnd() && l->value.IsString())
      link.assign(l->value.GetString(), l->value.GetStringLength());
    try {
      if (op == "create" || op == "upsert") return WriteDocument(op == "create" ? store::WriteKind::kCreate : store::WriteKind::kUpsert, link, args, options);
      if (op == "replace") return WriteDocument(store::WriteKind::kReplace, link, args, options);
      if (op == "read") return ReadDocument(link, options);
      if (op == "delete") return DeleteDocument(link, options);
      if (op == "readFeed") return ReadFeed(link, options);
      if (op == "query") return Query(link, args, options);
      return ThrowReply("Unknown operation " + std::string(op) + ".");
    } catch (const CosmosError& e) {
      if (e.charge > 0) inner_ += e.charge;
      return FailureReply("error", e.status, e.substatus, e.code, OperationMessage(e));
    } catch (const LinkError& e) {
      return ThrowReply(e.message);
    }
  }

 private:
  struct LinkError {
    std::string message;
  };

  static std::string Trim(std::string link) {
    if (!link.empty() && link.front() == '/') link.erase(0, 1);
    if (!link.empty() && link.back() == '/') link.pop_back();
    return link;
  }
  std::string SelfLink() const { return Trim(c_->self()); }

  // A collection link must name this collection, by ids or resource ids.
  void CheckCollectionLink(const std::string& raw) const {
    const std::string link = Trim(raw);
    if (link == alt_link_ || link == SelfLink()) return;
    auto parts = util::Split(link, '/');
    if (parts.size() != 4 || !util::EqualsIgnoreCase(parts[0], "dbs") || !util::EqualsIgnoreCase(parts[2], "colls"))
      throw LinkError{"Invalid collection link: \"" + raw + "\"."};
    throw LinkError{"Function is not allowed to operate on resources outside current collection. Make sure that the "
                    "link provided, \"" + raw + "\", belongs to current collection."};
  }

  // The item a document link names: dbs/<db>/colls/<coll>/docs/<id> or the _self form (null when
  // there is none in the logical partition).
  store::ItemPtr Resolve(const std::string& raw, util::Instant now) const {
    const std::string link = Trim(raw);
    const size_t slash = link.rfind('/');
    if (slash == std::string::npos || link.size() < 6) throw LinkError{"Invalid document link: \"" + raw + "\"."};
    const std::string docs = link.substr(0, slash);
    if (docs.size() < 5 || docs.compare(docs.size() - 5, 5, "/docs") != 0)
      throw LinkError{"Invalid document link: \"" + raw + "\"."};
    const std::string coll = docs.substr(0, docs.size() - 5);
    CheckCollectionLink(coll);
    const std::string key = link.substr(slash + 1);
    return coll == SelfLink() ? tx_.ReadByRid(key, now) : tx_.Read(key, now);  // resource-id or name form
  }

  static store::Preconditions EtagOf(const json::Value& options) {
    store::Preconditions pre;
    auto it = options.FindMember("etag");
    if (it != options.MemberEnd() && it->value.IsString()) pre.if_match = std::string(it->value.GetString());
    return pre;
  }

  std::string Reply(const std::string& result, const std::string& options = "{}") const {
    return "{\"result\":" + result + ",\"options\":" + options + "}";
  }

  std::string WriteDocument(store::WriteKind kind, const std::string& link, const json::Value& args,
                            const json::Value& options) {
    const util::Instant now = s_.clock.Now();
    store::ItemPtr target;
    if (kind == store::WriteKind::kReplace) {
      target = Resolve(link, now);
      if (!target) throw WithCharge(errors::NotFound(), charge::RejectedWrite());
    } else {
      CheckCollectionLink(link);
    }
    auto d = args.FindMember("doc");
    if (d == args.MemberEnd() || !d->value.IsObject())
      return ThrowReply("The document body must be an object or a string representing a JSON-serialized object.");
    const json::Value& doc = d->value;
    return ChargedWrite([&] {
      const CheckedItem item = CheckItemWrite(c_->partition_key(), doc, [&](const CheckedItem& i) {
        if (target && i.id != target->id())
          throw errors::BadRequest("The id in the document does not match the id in the link.");
        if (i.pk != tx_.pk()) throw errors::BadRequest(kOtherPartition);
      });
      auto w = tx_.Write(kind, item.id, EtagOf(options), now, [&](const store::ItemPtr&, uint64_t seq, uint64_t lsn) {
        return MakeItem(s_, *c_, doc, tx_.pk(), epk_, seq, lsn, s_.config.max_item_bytes);
      });
      auto facts = Facts(*w.item, *settings_);
      inner_ += w.created ? charge::Create(facts) : charge::Replace(facts);
      return Reply(w.item->Text());
    });
  }

  std::string ReadDocument(const std::string& link, const json::Value& options) {
    auto item = Resolve(link, s_.clock.Now());
    if (!item) throw WithCharge(errors::NotFound(), charge::PointReadNotFound());
    inner_ += charge::PointRead({item->kb(), 0});
    auto inm = options.FindMember("ifNoneMatch");
    if (inm != options.MemberEnd() && inm->value.IsString() &&
        (item->etag() == inm->value.GetString() || std::string_view(inm->value.GetString()) == "*")) {
      return "{\"options\":{\"notModified\":true}}";
    }
    return Reply(item->Text());
  }

  std::string DeleteDocument(const std::string& link, const json::Value& options) {
    const util::Instant now = s_.clock.Now();
    auto current = Resolve(link, now);
    if (!current) throw WithCharge(errors::NotFound(), charge::RejectedWrite());
    return ChargedWrite([&] {
      auto w = tx_.Write(store::WriteKind::kDelete, std::string(current->id()), EtagOf(options), now,
                         [](const store::ItemPtr&, uint64_t, uint64_t) { return store::ItemPtr(); });
      inner_ += charge::Delete(Facts(*w.previous, *settings_));
      return std::string("{\"options\":{}}");
    });
  }

  // pageSize (default 100; -1: all) and continuation (the feed position of the last item read).
  static size_t PageSize(const json::Value& options) {
    auto it = options.FindMember("pageSize");
    if (it == options.MemberEnd() || !it->value.IsNumber()) return 100;
    const double n = it->value.GetDouble();
    if (n < 0) return SIZE_MAX;
    if (n < 1) throw errors::BadRequest("The pageSize option must be a positive number or -1.");
    return static_cast<size_t>(n);
  }
  static std::string Continuation(const json::Value& options) {
    auto it = options.FindMember("continuation");
    if (it == options.MemberEnd() || !it->value.IsString()) return "";
    return std::string(it->value.GetString(), it->value.GetStringLength());
  }
  static std::string ContinuationOption(const std::optional<std::string>& token) {
    if (!token) return "{}";
    std::string out = "{\"continuation\":";
    json::WriteString(out, *token);
    return out + "}";
  }

  std::string ReadFeed(const std::string& link, const json::Value& options) {
    CheckCollectionLink(link);
    const size_t page_size = PageSize(options);
    uint64_t after = 0;
    if (std::string token = Continuation(options); !token.empty()) {
      auto seq = util::ParseInteger<uint64_t>(token);
      if (!seq) throw CosmosError(400, 0, "BadRequest", errors::Wrap("Invalid Continuation Token"));
      after = *seq;
    }
    std::string out = "[";
    size_t n = 0;
    double kb = 0;
    std::optional<std::string> next;
    size_t bytes = 0;
    for (const auto& item : tx_.Items(s_.clock.Now())) {
      if (item->seq <= after) continue;
      // A page ends full, at the response size limit, or at the script's end (with what it has).
      if (n == page_size || (n > 0 && (bytes >= kFeedPageBytes || std::chrono::steady_clock::now() >= deadline_))) {
        next = std::to_string(after);
        break;
      }
      if (cancelled_ != nullptr && cancelled_->load(std::memory_order_relaxed)) {
        throw CosmosError(408, 0, "RequestTimeout", errors::Wrap("The request was cancelled."));
      }
      bytes += item->size;
      if (n++) out += ",";
      item->AppendText(out);
      kb += item->kb();
      after = item->seq;
    }
    out += "]";
    inner_ += charge::FeedPage(n, kb);
    return Reply(out, ContinuationOption(next));
  }

  std::string Query(const std::string& link, const json::Value& args, const json::Value& options) {
    CheckCollectionLink(link);
    auto q = args.FindMember("query");
    if (q == args.MemberEnd() || !q->value.IsObject()) return ThrowReply("The query must be a string or an object.");
    auto text_it = q->value.FindMember("query");
    if (text_it == q->value.MemberEnd() || !text_it->value.IsString()) return ThrowReply("The query text must be a string.");
    const std::string text(text_it->value.GetString(), text_it->value.GetStringLength());
    auto params_it = q->value.FindMember("parameters");
    const json::Value* params =
        params_it != q->value.MemberEnd() && params_it->value.IsArray() ? &params_it->value : nullptr;
    // The parse tree, constants and parameters outlive this call when a page keeps what it read.
    struct Bound {
      std::shared_ptr<const sql::Query> ast;
      json::Document params;
      query::Arena constants;
      std::shared_ptr<const query::Plan> plan;
    };
    auto bound = std::make_shared<Bound>();
    if (params != nullptr) bound->params.CopyFrom(*params, bound->params.GetAllocator());
    bound->ast = query::ParseQuery(text);
    ContainerUdfs udfs(s_, *c_);
    bound->plan = query::Bind(*bound->ast, params != nullptr ? &bound->params : nullptr, bound->constants,
                              {&udfs, settings_->vectors.get(), settings_->full_text.get(), settings_->computed.get()});
    const auto& plan = bound->plan;
    const query::IndexUse use = query::AnalyzeIndexUse(*plan, settings_->indexing);
    const util::Instant now = s_.clock.Now();
    auto items = tx_.Items(now);
    query::Scope scope;
    scope.partitions = {&tx_.partition()};
    scope.partition_key = tx_.pk();
    scope.now = now;
    scope.default_ttl = settings_->default_ttl;
    scope.indexed_only = settings_->indexing.mode != "none";
    scope.view = &items;
    query::PageRequest req;
    req.max_items = PageSize(options);
    req.continuation = Continuation(options);
    req.query_text = text;
    req.now_ms = s_.clock.UnixMs();
    req.udfs = &udfs;
    req.geometry = settings_->geometry;
    // The script's end, the query page's time and memory, and the request's cancellation: a page
    // that reaches them answers what it has with a continuation, as the script's own pages do.
    req.budget.deadline =
        std::min(deadline_, std::chrono::steady_clock::now() + std::chrono::milliseconds(s_.config.query_page_timeout_ms));
    req.budget.memory_bytes = s_.config.query_memory_bytes;
    req.budget.cancelled = cancelled_;
    req.keepalive = bound;
    query::Page page = query::ExecutePage(*plan, scope, req);
    inner_ += QueryCharge(*plan, use, page.facts, charge::Consistency::kWeak, settings_->vectors.get(), scope);
    std::string out = "[";
    for (size_t i = 0; i < page.rows.size(); ++i) {
      if (i) out += ",";
      out += page.rows[i];
    }
    out += "]";
    return Reply(out, ContinuationOption(page.continuation));
  }

  static CosmosError WithCharge(CosmosError e, double ru) {
    e.charge = ru;
    return e;
  }

  http::Services& s_;
  store::ContainerPtr c_;
  std::shared_ptr<const store::ContainerSettings> settings_;
  std::string alt_link_;
  store::Transaction& tx_;
  std::string epk_;
  double inner_ = 0;
  std::chrono::steady_clock::time_point deadline_ = std::chrono::steady_clock::time_point::max();
  const std::atomic<bool>* cancelled_ = nullptr;
};

// A script resource's response: its JSON and etag.
Result ScriptResponse(int status, const store::Container& c, ScriptKind kind, const store::ScriptResource& r,
                      double ru) {
  Result out;
  out.status = status;
  out.body = ScriptJson(c, kind, r);
  out.headers.emplace_back(headers::kETag, r.etag);
  out.charge = ru;
  return out;
}

std::string AltLink(const RequestContext& ctx) { return "dbs/" + ctx.Param("db") + "/colls/" + ctx.Param("coll"); }

}  // namespace

std::optional<std::pair<std::string, std::string>> ScriptLogHeader(const RequestContext& ctx, const std::string& log) {
  if (!ctx.BoolHeader(headers::kScriptEnableLogging)) return std::nullopt;
  std::string out;
  static const char* kHex = "0123456789ABCDEF";
  for (unsigned char c : log) {
    if (std::isalnum(c) || std::strchr("-_.!~*'()", c)) {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return std::make_pair(std::string(headers::kScriptLogResults), out);
}

// ---- Script resources ----

namespace {

// A create (or an upsert: an existing script keeps its rid and is replaced, 200). A script created
// between an upsert's look-up and its create makes the create fail with 409, as two racing creates
// would.
Result WriteScript(Services& s, RequestContext& ctx, bool upsert) {
  auto c = ResolveContainer(s, ctx);
  const ScriptKind kind = KindOf(ctx);
  json::Document body = ParseObjectBody(ctx.body());
  auto r = std::make_shared<store::ScriptResource>(ScriptFromBody(kind, body));
  r->ts = s.clock.UnixSeconds();
  r->etag = s.account.NewEtag(r->ts);
  if (auto current = upsert ? c->scripts().Find(kind, r->id) : nullptr) {
    r->rid = current->rid;
    c->scripts().Replace(kind, r, IfMatchHeader(ctx));
    return ScriptResponse(200, *c, kind, *r, charge::MetadataWrite());
  }
  r->rid = c->ScriptRid(kind, c->scripts().NextNumber());
  try {
    c->scripts().Create(kind, r);
  } catch (CosmosError& e) {
    e.charge = charge::RejectedWrite();  // as a duplicate container is charged
    throw;
  }
  return ScriptResponse(201, *c, kind, *r, charge::MetadataWrite());
}

}  // namespace

Result CreateScript(Services& s, RequestContext& ctx) { return WriteScript(s, ctx, false); }

Result UpsertScript(Services& s, RequestContext& ctx) { return WriteScript(s, ctx, true); }

Result QueryScripts(Services& s, RequestContext& ctx) {
  auto c = ResolveContainer(s, ctx);
  const ScriptKind kind = KindOf(ctx);
  std::vector<std::pair<std::string, std::string>> all;
  for (const auto& r : c->scripts().List(kind)) all.emplace_back(r->rid, ScriptJson(*c, kind, *r));
  return QueryResources(s, ctx, FeedKey(kind), c->rid(), all);
}

Result ListScripts(Services& s, RequestContext& ctx) {
  auto c = ResolveContainer(s, ctx);
  const ScriptKind kind = KindOf(ctx);
  std::vector<std::string> all;
  for (const auto& r : c->scripts().List(kind)) all.push_back(ScriptJson(*c, kind, *r));
  Result out;
  auto page = Page(ctx, std::move(all), out);
  out.body = FeedJson(c->rid(), FeedKey(kind), page);
  out.headers.emplace_back(headers::kItemCount, std::to_string(page.size()));
  out.charge = charge::MetadataRead();
  return out;
}

Result ReadScript(Services& s, RequestContext& ctx) {
  auto c = ResolveContainer(s, ctx);
  const ScriptKind kind = KindOf(ctx);
  auto r = c->scripts().Find(kind, ctx.Param("id"));
  if (!r) throw MetadataNotFound();
  Result out = ScriptResponse(200, *c, kind, *r, charge::MetadataRead());
  if (auto inm = ctx.Header(headers::kIfNoneMatch); inm && *inm == r->etag) {
    out.status = 304;
    out.body.clear();
  }
  return out;
}

Result ReplaceScript(Services& s, RequestContext& ctx) {
  auto c = ResolveContainer(s, ctx);
  const ScriptKind kind = KindOf(ctx);
  json::Document body = ParseObjectBody(ctx.body());
  auto r = std::make_shared<store::ScriptResource>(ScriptFromBody(kind, body));
  if (r->id != ctx.Param("id")) throw errors::BadRequest("The id in the request body does not match the id in the URL.");
  auto current = c->scripts().Find(kind, r->id);
  if (!current) throw MetadataNotFound();
  r->rid = current->rid;
  r->ts = s.clock.UnixSeconds();
  r->etag = s.account.NewEtag(r->ts);
  c->scripts().Replace(kind, r, IfMatchHeader(ctx));
  return ScriptResponse(200, *c, kind, *r, charge::MetadataWrite());
}

Result DeleteScript(Services& s, RequestContext& ctx) {
  auto c = ResolveContainer(s, ctx);
  if (!c->scripts().Delete(KindOf(ctx), ctx.Param("id"))) throw MetadataNotFound();
  Result out;
  out.status = 204;
  out.charge = charge::MetadataWrite();
  return out;
}

// ---- Stored procedure execution ----

Result ExecuteStoredProcedure(Services& s, RequestContext& ctx) {
  auto c = ResolveContainer(s, ctx);
  if (ctx.Header(headers::kPreTriggerInclude) || ctx.Header(headers::kPostTriggerInclude))
    throw errors::BadRequest("Triggers cannot be included in a stored procedure execution.");
  auto sproc = c->scripts().Find(ScriptKind::kStoredProcedure, ctx.Param("id"));
  if (!sproc) throw MetadataNotFound();
  std::string params = ctx.body().empty() ? "[]" : ctx.body();
  {
    json::Document doc = ParseBody(params);
    if (!doc.IsArray()) throw errors::BadRequest("The parameters of a stored procedure must be a JSON array.");
  }
  auto key = HeaderKey(ctx, *c);
  auto placement = c->Locate(key);
  store::PhysicalPartition& part = *placement.partition;
  Admit(s, ctx, c, {&part});
  auto settings = c->settings();
  auto tx = part.Begin(key.Canonical(), settings->items());
  const std::string alt = AltLink(ctx);
  ScriptHost host(s, c, alt, *tx, placement.epk);
  scripting::Execution e;
  e.kind = scripting::Kind::kStoredProcedure;
  e.self_link = c->self();
  e.alt_link = alt;
  e.params_json = std::move(params);
  e.logging = ctx.BoolHeader(headers::kScriptEnableLogging);
  scripting::Limits limits = LimitsOf(s);
  limits.cancelled = ctx.cancel_flag();  // a client that went away stops its script
  host.Bound(std::chrono::steady_clock::now() + limits.timeout, limits.cancelled);
  scripting::Outcome out = scripting::Run({CacheKey(*sproc), sproc->body}, e, host, limits);
  const double ru = charge::StoredProcedure(host.inner());
  auto log = ScriptLogHeader(ctx, out.log);
  if (out.status != scripting::Outcome::Status::kOk) {
    auto err = ScriptFailure(s, out);
    err.charge = ru;
    if (log) err.headers.push_back(*log);
    throw err;  // the transaction rolls back as it goes
  }
  const uint64_t lsn = tx->Commit(s.clock.Now());
  tx.reset();
  Result r;
  r.body = out.response_body.value_or("\"\"");
  ItemHeaders(r, ctx, *c, part, lsn);
  if (log) r.headers.push_back(*log);
  r.charge = ru;
  return r;
}

// ---- Triggers ----

Triggers RequestTriggers(const RequestContext& ctx, const store::Container& c) {
  Triggers t;
  auto one = [&](const char* header, const char* type) -> store::ScriptPtr {
    auto h = ctx.Header(header);
    if (!h || h->empty()) return nullptr;
    auto ids = util::Split(*h, ',');
    if (ids.size() > 1) {
      throw errors::BadRequest(std::string("Only one ") + (type[1] == 'r' ? "pre" : "post") +
                               "-trigger can be included in a request.");
    }
    std::string id(util::Trim(ids[0]));
    auto found = c.scripts().Find(ScriptKind::kTrigger, id);
    if (!found) throw errors::NotFound();
    if (!util::EqualsIgnoreCase(found->trigger_type, type)) {
      throw errors::BadRequest("Trigger '" + id + "' is a " + found->trigger_type + "-trigger and cannot be included as a " +
                               type + "-trigger.");
    }
    return found;
  };
  t.pre = one(headers::kPreTriggerInclude, "Pre");
  t.post = one(headers::kPostTriggerInclude, "Post");
  return t;
}

namespace {

const char* OperationName(store::WriteKind op) {
  switch (op) {
    case store::WriteKind::kCreate: return "Create";
    case store::WriteKind::kReplace: return "Replace";
    case store::WriteKind::kUpsert: return "Upsert";
    case store::WriteKind::kDelete: return "Delete";
  }
  return "";
}

// Whether a trigger for `operation` runs on `op` (an upsert counts as the create or replace it does).
bool Fires(const std::string& sent, store::WriteKind op, bool exists) {
  // The operation as stored is in the case it was sent in.
  const std::string operation = OneOf(sent, {"All", "Create", "Update", "Delete", "Replace"}).value_or(sent);
  if (operation == "All") return true;
  switch (op) {
    case store::WriteKind::kCreate: return operation == "Create";
    case store::WriteKind::kReplace: return operation == "Replace" || operation == "Update";
    case store::WriteKind::kUpsert: return exists ? operation == "Replace" || operation == "Update" : operation == "Create";
    case store::WriteKind::kDelete: return operation == "Delete";
  }
  return false;
}

}  // namespace

TriggeredWrite RunTriggered(Services& s, RequestContext& ctx, const store::ContainerPtr& c, store::PhysicalPartition& p,
                            const std::string& pk, const std::string& epk, const Triggers& triggers, store::WriteKind op,
                            const std::string& id, const json::Value* body, const TransactionalWrite& write) {
  auto tx = p.Begin(pk, c->settings()->items());
  const util::Instant now = s.clock.Now();
  const bool exists = tx->Read(id, now) != nullptr;
  for (const auto& t : {triggers.pre, triggers.post}) {
    if (t && !Fires(t->trigger_operation, op, exists)) {
      throw errors::BadRequest("Trigger '" + t->id + "' runs on " + t->trigger_operation +
                               " operations and cannot be included in a " + OperationName(op) + " request.");
    }
  }
  const std::string alt = AltLink(ctx);
  ScriptHost host(s, c, alt, *tx, epk);
  TriggeredWrite out;
  scripting::Execution e;
  e.self_link = c->self();
  e.alt_link = alt;
  e.operation_type = OperationName(op);
  e.logging = ctx.BoolHeader(headers::kScriptEnableLogging);
  if (body) e.request_body = json::Write(*body);
  auto run = [&](const store::ScriptPtr& t, scripting::Kind kind) {
    e.kind = kind;
    host.reset_inner();
    scripting::Limits limits = LimitsOf(s);
    limits.cancelled = ctx.cancel_flag();  // a client that went away stops its trigger
    host.Bound(std::chrono::steady_clock::now() + limits.timeout, limits.cancelled);
    auto result = scripting::Run({CacheKey(*t), t->body}, e, host, limits);
    const double ru = charge::StoredProcedure(host.inner());
    out.scripts_charge += ru;
    out.log += result.log;
    if (result.status != scripting::Outcome::Status::kOk) {
      auto err = ScriptFailure(s, result);
      err.charge = out.scripts_charge;
      if (auto log = ScriptLogHeader(ctx, out.log)) err.headers.push_back(*log);
      throw err;
    }
    return result;
  };
  json::Document replaced;
  const json::Value* to_write = body;
  if (triggers.pre) {
    auto result = run(triggers.pre, scripting::Kind::kPreTrigger);
    if (result.request_body && body) {
      json::Document doc = ParseBody(*result.request_body);
      if (!doc.IsObject()) throw errors::BadRequest("The pre-trigger must set the request body to a document.");
      replaced.Swap(doc);
      to_write = &replaced;
      e.request_body = json::Write(replaced);
    }
  }
  out.result = write(*tx, to_write);
  if (triggers.post) {
    const store::ItemPtr& shown = out.result.item ? out.result.item : out.result.previous;
    if (shown) e.response_body = shown->Text();
    auto result = run(triggers.post, scripting::Kind::kPostTrigger);
    out.response = result.response_body;
  }
  out.lsn = tx->Commit(s.clock.Now());
  return out;
}

// ---- User-defined functions ----

bool ContainerUdfs::Has(std::string_view name) const {
  std::string id(name);
  if (found_.count(id)) return true;
  auto udf = c_.scripts().Find(ScriptKind::kUserDefinedFunction, id);
  if (!udf) return false;
  found_.emplace(std::move(id), std::move(udf));
  return true;
}

query::Val ContainerUdfs::Call(std::string_view name, std::span<const query::Val> args, query::Arena& arena,
                               const query::UdfLimits& limits) {
  if (!Has(name)) throw errors::BadRequest("'udf." + std::string(name) + "' is not a recognized user-defined function name.");
  const auto& udf = found_.at(std::string(name));
  std::string json = "[";
  for (size_t i = 0; i < args.size(); ++i) {
    if (i) json += ",";
    if (args[i].IsUndefined()) {
      json += "null";  // JSON has no undefined; the service passes only JSON values
    } else {
      query::WriteJson(json, args[i]);
    }
  }
  json += "]";
  scripting::Limits bounds = LimitsOf(s_);
  bounds.cancelled = limits.cancelled;
  bounds.deadline = limits.deadline;
  const auto own_end = std::chrono::steady_clock::now() + bounds.timeout;
  auto r = scripting::CallUdf({CacheKey(*udf), udf->body}, json, bounds);
  if (r.status == scripting::Outcome::Status::kTimedOut) {
    // Stopped before its own time limit: the client went away, or the page may end here.
    if (limits.cancelled != nullptr && limits.cancelled->load(std::memory_order_relaxed)) {
      throw CosmosError(408, 0, "RequestTimeout", errors::Wrap("The request was cancelled."));
    }
    if (limits.deadline < own_end && std::chrono::steady_clock::now() >= limits.deadline) throw query::UdfDeadline{};
  }
  if (r.status != scripting::Outcome::Status::kOk) {
    scripting::Outcome out;
    out.status = r.status;
    out.error = r.error;
    out.error_number = r.error_number;
    throw ScriptFailure(s_, out);
  }
  if (r.json.empty()) return query::Val();
  json::Document doc;
  if (json::Parse(r.json, doc) != json::ParseStatus::kOk) return query::Val();
  return arena.Copy(query::Val(doc));
}

}  // namespace cosmos::handlers
