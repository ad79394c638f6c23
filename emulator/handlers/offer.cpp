// /offers and /offers/{id}: the throughput of containers with their own RU/s and of databases whose
// containers share theirs. Offers are master resources: no session tokens, flat metadata charges.
#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <memory>

#include "charge/charge.h"
#include "common/errors.h"
#include "handlers/common.h"
#include "handlers/handlers.h"
#include "http/headers.h"
#include "query/executor.h"
#include "query/parse_cache.h"
#include "util/util.h"

namespace cosmos::handlers {
namespace {


using Limits = store::Throughput;  // the accepted RU/s: Limits::kManualMin, Limits::kAutoscaleStep, ...
// Migrating manual throughput to autoscale: the maximum is at least this (and at least the
// current RU/s rounded up to a multiple of 1000), as the service chooses.
constexpr int kMigratedAutoscaleMin = 4000;

// The offer as the service returns it, keys in the service's order (recording cosmos-164; the
// autoscale content per the replace-an-offer REST reference).
std::string OfferJson(const store::Offer& o) {
  const store::Throughput t = o.throughput();
  std::string out = "{\"resource\":";
  json::WriteString(out, o.resource_self());
  out += ",\"offerType\":\"Invalid\",\"offerResourceId\":";
  json::WriteString(out, o.resource_rid());
  out += ",\"offerVersion\":\"V2\",\"content\":{\"offerThroughput\":";
  // Autoscale: the RU/s the system is scaled to; idle, a tenth of the maximum.
  out += std::to_string(t.autoscale ? t.ru / 10 : t.ru);
  out += ",\"offerIsRUPerMinuteThroughputEnabled\":false,\"offerMinimumThroughputParameters\":{"
         "\"maxThroughputEverProvisioned\":";
  out += std::to_string(o.max_ever_provisioned());
  out += ",\"maxConsumedStorageEverInKB\":0}";
  if (int64_t last = o.last_replace_ts()) {
    out += ",\"offerLastReplaceTimestamp\":";
    out += std::to_string(last);
  }
  if (t.autoscale) {
    out += ",\"offerAutopilotSettings\":{\"maxThroughput\":";
    out += std::to_string(t.ru);
    out += "}";
  }
  out += "},\"id\":";
  json::WriteString(out, o.id());
  out += ",\"_rid\":";
  json::WriteString(out, o.id());
  out += ",\"_self\":";
  json::WriteString(out, "offers/" + o.id() + "/");
  out += ",\"_etag\":";
  json::WriteString(out, o.etag());
  out += ",\"_ts\":";
  out += std::to_string(o.ts());
  out += "}";
  return out;
}

// An offer's resource id is 4 characters of the rid alphabet (base64, '-' for '/'); anything else
// in the URL is a malformed id, refused before any lookup.
bool IsOfferRid(const std::string& id) {
  if (id.size() != 4) return false;
  for (unsigned char c : id) {
    if (!std::isalnum(c) && c != '+' && c != '-' && c != '=' && c != '_') return false;
  }
  return true;
}

store::OfferPtr ResolveOffer(Services& s, const std::string& id) {
  if (!IsOfferRid(id)) throw errors::BadRequest("The offer id '" + id + "' in the request URL is not a valid resource id.");
  auto offer = s.account.FindOffer(id);
  if (!offer) throw MetadataNotFound();
  return offer;
}


CosmosError InvalidThroughput(int min, int step) {
  return errors::BadRequest("The offer should have valid throughput values between " + std::to_string(min) + " and " +
                            std::to_string(Limits::kMax) + " inclusive in increments of " + std::to_string(step) +
                            ".");
}

// An integer in [min, Limits::kMax] that is a multiple of `step`; else 400.
int ValidThroughput(const json::Value* v, int min, int step) {
  if (v == nullptr || !v->IsNumber()) throw InvalidThroughput(min, step);
  const double d = v->GetDouble();
  if (!(d >= min && d <= Limits::kMax) || d != std::floor(d)) throw InvalidThroughput(min, step);
  const int n = static_cast<int>(d);
  if (n % step != 0) throw InvalidThroughput(min, step);
  return n;
}

const json::Value* Member(const json::Value& obj, const char* name) {
  if (!obj.IsObject()) return nullptr;
  auto it = obj.FindMember(name);
  return it == obj.MemberEnd() || it->value.IsNull() ? nullptr : &it->value;
}

CosmosError ModeSwitch(bool to_autoscale) {
  return errors::BadRequest(
      std::string("The offer cannot be changed from ") + (to_autoscale ? "manual to autoscale" : "autoscale to manual") +
      " throughput by a replace alone: send the " + (to_autoscale ? headers::kMigrateOfferToAutopilot : headers::kMigrateOfferToManual) +
      ": true header.");
}

}  // namespace

Result ListOffers(Services& s, RequestContext& ctx) {
  std::vector<std::string> items;
  for (const auto& o : s.account.Offers()) items.push_back(OfferJson(*o));
  Result r;
  r.body = FeedJson("", "Offers", Page(ctx, std::move(items), r));
  r.charge = charge::MetadataRead();
  return r;
}

// A query over the offers (one resource per offer, in list order).
Result QueryOffers(Services& s, RequestContext& ctx) {
  std::vector<std::pair<std::string, std::string>> offers;
  for (const auto& o : s.account.Offers()) offers.emplace_back(o->id(), OfferJson(*o));
  return QueryResources(s, ctx, "Offers", "", offers);
}

Result ReadOffer(Services& s, RequestContext& ctx) {
  auto offer = ResolveOffer(s, ctx.Param("id"));
  Result r;
  r.body = OfferJson(*offer);
  r.headers.emplace_back(headers::kETag, offer->etag());
  // The lowest value a replace may set: manual RU/s, or the autoscale maximum.
  r.headers.emplace_back(headers::kMinThroughput,
                         std::to_string(offer->throughput().autoscale ? Limits::kAutoscaleMin : Limits::kManualMin));
  r.charge = charge::MetadataRead();
  return r;
}

Result ReplaceOffer(Services& s, RequestContext& ctx) {
  auto offer = ResolveOffer(s, ctx.Param("id"));
  json::Document body = ParseObjectBody(ctx.body());
  ValidateId(body);
  if (IdOf(body) != offer->id())
    throw errors::BadRequest("The id in the request body does not match the offer id in the URL.");
  // The body names the offer and its resource again: each one given must be this offer's (a
  // foreign or malformed _rid, resource or offerResourceId is refused; absent ones are fine).
  auto names = [&](const char* key, const std::string& expected) {
    auto it = body.FindMember(key);
    if (it == body.MemberEnd()) return;
    if (!it->value.IsString() || std::string(it->value.GetString(), it->value.GetStringLength()) != expected)
      throw errors::BadRequest(std::string("The offer's '") + key + "' in the request body " +
                               (it->value.IsString() ? "'" + std::string(it->value.GetString()) + "' " : "") +
                               "does not name the offer or its resource in the URL.");
  };
  names("_rid", offer->id());
  names("resource", offer->resource_self());
  names("offerResourceId", offer->resource_rid());
  const bool to_autoscale = ctx.BoolHeader(headers::kMigrateOfferToAutopilot);
  const bool to_manual = ctx.BoolHeader(headers::kMigrateOfferToManual);
  if (to_autoscale && to_manual)
    throw errors::BadRequest(std::string("The ") + headers::kMigrateOfferToAutopilot + " and " + headers::kMigrateOfferToManual +
                             " headers cannot be used together.");
  const store::Throughput current = offer->throughput();
  store::Throughput next;
  if (to_autoscale) {
    if (current.autoscale) throw errors::BadRequest("The offer already has autoscale throughput.");
    // The body's throughput is ignored: the maximum is the current RU/s rounded up to a multiple
    // of 1000, and at least 4000.
    constexpr int step = Limits::kAutoscaleStep;
    next = {std::max(kMigratedAutoscaleMin, (current.ru + step - 1) / step * step), true};
  } else if (to_manual) {
    if (!current.autoscale) throw errors::BadRequest("The offer already has manual throughput.");
    next = {current.ru, false};  // the previous autoscale maximum
  } else {
    const json::Value* content = Member(body, "content");
    if (content == nullptr || !content->IsObject())
      throw errors::BadRequest("The offer content is missing or is not a JSON object.");
    const json::Value* autopilot = Member(*content, "offerAutopilotSettings");
    if (current.autoscale) {
      if (autopilot == nullptr) throw ModeSwitch(false);
      next = {ValidThroughput(Member(*autopilot, "maxThroughput"), Limits::kAutoscaleMin, Limits::kAutoscaleStep),
              true};
    } else {
      if (autopilot != nullptr) throw ModeSwitch(true);
      next = {ValidThroughput(Member(*content, "offerThroughput"), Limits::kManualMin, Limits::kManualStep), false};
    }
  }
  const int64_t ts = s.clock.UnixSeconds();
  // The new RU/s take effect at once: the rate limiter reads Offer::throughput() (through
  // PartitionBudget) on every request. A container's own offer raised past 10,000 RU/s per range
  // splits its ranges before the answer (the service splits in the background, and reports
  // isOfferReplacePending meanwhile; here it is done when the replace answers). Lowering the
  // throughput never merges ranges, as on the service.
  const auto if_match = IfMatchHeader(ctx);
  if (!offer->Replace(next, ts, s.account.NewEtag(ts), if_match ? std::optional<std::string_view>(*if_match) : std::nullopt))
    throw errors::PreconditionFailed();
  for (const auto& db : s.account.Databases()) {
    for (const auto& c : db->Containers()) {
      if (c->offer() == offer) SplitForThroughput(s, *c, next);
    }
  }
  Result r;
  r.body = OfferJson(*offer);
  r.headers.emplace_back(headers::kETag, offer->etag());
  r.charge = charge::MetadataWrite();
  return r;
}

}  // namespace cosmos::handlers
