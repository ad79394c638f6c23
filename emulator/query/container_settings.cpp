// A container's settings from its JSON: a create or replace body, or the stored document.
#include "query/container_settings.h"

#include <string_view>

#include "common/errors.h"
#include "query/computed_properties.h"
#include "store/ttl.h"

namespace cosmos::query {
namespace {

// The longest retention the service offers for all versions and deletes (30 days).
constexpr int64_t kMaxChangeFeedRetentionMinutes = 30 * 24 * 60;

}  // namespace

store::ContainerSettings ContainerSettingsFromJson(const json::Value& body) {
  store::ContainerSettings st;
  auto ip = body.FindMember("indexingPolicy");
  auto geo_config = body.FindMember("geospatialConfig");
  st.indexing = store::IndexingPolicy::FromJson(ip == body.MemberEnd() ? nullptr : &ip->value,
                                                geo_config == body.MemberEnd() ? nullptr : &geo_config->value);
  // Present, defaultTtl must be -1 or 1..2^31-1 (null too is refused, as the service does).
  auto ttl = body.FindMember("defaultTtl");
  if (ttl != body.MemberEnd()) st.default_ttl = store::ValidTtl(ttl->value);
  auto uk = body.FindMember("uniqueKeyPolicy");
  if (uk != body.MemberEnd() && !uk->value.IsNull())
    st.unique_keys = std::make_shared<const store::UniqueKeyPolicy>(store::UniqueKeyPolicy::FromJson(&uk->value));
  auto& a = st.extra.GetAllocator();
  st.extra.SetObject();
  // Computed properties are kept as given (and left out when there are none); a replace sets them anew.
  if (auto cp = body.FindMember("computedProperties"); cp != body.MemberEnd() && !cp->value.IsNull()) {
    st.computed = ComputedPropertiesFromJson(cp->value, st.indexing);
    if (st.computed) st.extra.AddMember("computedProperties", json::Value(cp->value, a), a);
  }
  // The vector embedding policy is kept as given; the vector indexes must name its paths.
  std::shared_ptr<store::VectorPolicy> vectors;
  if (auto vep = body.FindMember("vectorEmbeddingPolicy"); vep != body.MemberEnd() && !vep->value.IsNull()) {
    vectors = std::make_shared<store::VectorPolicy>(store::VectorPolicy::FromJson(vep->value));
    st.extra.AddMember("vectorEmbeddingPolicy", json::Value(vep->value, a), a);
  }
  // The full-text policy too; the full-text indexes must name its paths. Both may change with a replace.
  if (auto ftp = body.FindMember("fullTextPolicy"); ftp != body.MemberEnd() && !ftp->value.IsNull()) {
    st.full_text = std::make_shared<const store::FullTextPolicy>(store::FullTextPolicy::FromJson(ftp->value));
    st.extra.AddMember("fullTextPolicy", json::Value(ftp->value, a), a);
  }
  if (ip != body.MemberEnd() && ip->value.IsObject()) {
    if (auto vi = ip->value.FindMember("vectorIndexes"); vi != ip->value.MemberEnd() && !vi->value.IsNull())
      store::CheckVectorIndexes(vi->value, vectors.get());
    if (auto fi = ip->value.FindMember("fullTextIndexes"); fi != ip->value.MemberEnd() && !fi->value.IsNull())
      store::CheckFullTextIndexes(fi->value, st.full_text.get());
  }
  st.vectors = std::move(vectors);
  auto crp = body.FindMember("conflictResolutionPolicy");
  if (crp != body.MemberEnd() && crp->value.IsObject()) {
    st.extra.AddMember("conflictResolutionPolicy", json::Value(crp->value, a), a);
  } else {
    json::Value v(rapidjson::kObjectType);
    v.AddMember("mode", "LastWriterWins", a);
    v.AddMember("conflictResolutionPath", "/_ts", a);
    v.AddMember("conflictResolutionProcedure", "", a);
    st.extra.AddMember("conflictResolutionPolicy", v, a);
  }
  // changeFeedPolicy.retentionDuration: minutes the all-versions-and-deletes feed keeps changes.
  auto cfp = body.FindMember("changeFeedPolicy");
  if (cfp != body.MemberEnd() && !cfp->value.IsNull()) {
    const json::Value* rd = nullptr;
    if (cfp->value.IsObject()) {
      auto it = cfp->value.FindMember("retentionDuration");
      if (it != cfp->value.MemberEnd()) rd = &it->value;
    }
    if (!rd || !rd->IsInt64() || rd->GetInt64() < 0 || rd->GetInt64() > kMaxChangeFeedRetentionMinutes)
      throw errors::BadRequest("The changeFeedPolicy is invalid: retentionDuration must be a whole number of minutes "
                               "from 0 to " + std::to_string(kMaxChangeFeedRetentionMinutes) + ".");
    if (rd->GetInt64() > 0) st.change_feed_retention_minutes = rd->GetInt64();
    st.extra.AddMember("changeFeedPolicy", json::Value(cfp->value, a), a);
  }
  auto geo = body.FindMember("geospatialConfig");
  if (geo != body.MemberEnd() && geo->value.IsObject()) {
    auto type = geo->value.FindMember("type");
    st.geometry = type != geo->value.MemberEnd() && type->value.IsString() &&
                  std::string_view(type->value.GetString(), type->value.GetStringLength()) == "Geometry";
    st.extra.AddMember("geospatialConfig", json::Value(geo->value, a), a);
  } else {
    json::Value v(rapidjson::kObjectType);
    v.AddMember("type", "Geography", a);
    st.extra.AddMember("geospatialConfig", v, a);
  }
  return st;
}

store::ContainerSettings StoredContainerSettings(const json::Value& doc) {
  store::ContainerSettings st = ContainerSettingsFromJson(doc);
  // Checked against the database's keys when it was set; kept as it was.
  if (auto cep = doc.FindMember("clientEncryptionPolicy"); cep != doc.MemberEnd() && cep->value.IsObject()) {
    auto& a = st.extra.GetAllocator();
    st.extra.AddMember("clientEncryptionPolicy", json::Value(cep->value, a), a);
  }
  return st;
}

}  // namespace cosmos::query
