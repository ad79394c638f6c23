#include "store/full_text_policy.h"

#include "common/errors.h"
#include "store/vector_policy.h"

namespace cosmos::store {

namespace {

CosmosError Invalid(const std::string& text) { return CosmosError(400, 0, "BadRequest", errors::Wrap(text)); }

util::TextLanguage Language(const json::Value& v) {
  if (!v.IsString()) throw errors::InvalidInput();
  const std::string_view text(v.GetString(), v.GetStringLength());
  auto language = util::ParseTextLanguage(text);
  if (!language)
    throw Invalid("The Full Text Policy contains an unsupported language " + std::string(text) +
                  ". Supported languages are: " + util::SupportedTextLanguages());
  return *language;
}

}  // namespace

const FullTextPath* FullTextPolicy::Find(const std::vector<std::string>& segments) const {
  for (const auto& p : paths) {
    if (p.segments == segments) return &p;
  }
  return nullptr;
}

FullTextPolicy FullTextPolicy::FromJson(const json::Value& v) {
  if (!v.IsObject()) throw errors::InvalidInput();
  FullTextPolicy policy;
  if (auto d = v.FindMember("defaultLanguage"); d != v.MemberEnd() && !d->value.IsNull())
    policy.default_language = Language(d->value);
  auto list = v.FindMember("fullTextPaths");
  if (list == v.MemberEnd() || list->value.IsNull()) return policy;
  if (!list->value.IsArray()) throw errors::InvalidInput();
  for (const auto& e : list->value.GetArray()) {
    if (!e.IsObject()) throw errors::InvalidInput();
    auto path = e.FindMember("path");
    if (path == e.MemberEnd() || !path->value.IsString()) throw errors::InvalidInput();
    FullTextPath out;
    out.path.assign(path->value.GetString(), path->value.GetStringLength());
    auto segments = PolicyPathSegments(out.path);
    if (!segments) throw Invalid("The Full Text Policy contains an invalid Path: " + out.path);
    out.segments = std::move(*segments);
    if (policy.Find(out.segments) != nullptr)
      throw Invalid("The Full Text Policy contains a duplicate Path: " + out.path);
    out.language = policy.default_language;
    if (auto l = e.FindMember("language"); l != e.MemberEnd() && !l->value.IsNull()) out.language = Language(l->value);
    policy.paths.push_back(std::move(out));
  }
  return policy;
}

void CheckFullTextIndexes(const json::Value& indexes, const FullTextPolicy* policy) {
  if (!indexes.IsArray()) throw errors::InvalidInput();
  for (rapidjson::SizeType i = 0; i < indexes.Size(); ++i) {
    const json::Value& index = indexes[i];
    const std::string at = "(" + std::to_string(i) + ")";
    if (!index.IsObject()) throw errors::InvalidInput();
    auto path = index.FindMember("path");
    if (path == index.MemberEnd() || path->value.IsNull())
      throw Invalid("Missing path in full-text index specification at index " + at);
    if (!path->value.IsString()) throw errors::InvalidInput();
    const std::string text(path->value.GetString(), path->value.GetStringLength());
    auto segments = PolicyPathSegments(text);
    if (!segments) throw Invalid("Full-text index specification at index " + at + " contains invalid path");
    if (policy == nullptr || policy->Find(*segments) == nullptr)
      throw Invalid("The path of the Full Text Index " + text +
                    " does not match the path specified in the Full Text Policy");
  }
}

}  // namespace cosmos::store
