// Item functions: DOCUMENTID.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "query/functions/function.h"
#include "util/util.h"

namespace cosmos::query {

namespace {

// DOCUMENTID(root): the item's integer identifier within its physical partition ("Returns the
// integer identifier corresponding to a specific item within a physical partition", the .NET SDK's
// CosmosLinqExtensions.DocumentId). It is the item part of the item's resource id: the last 8 bytes
// of the 16 that `_rid` encodes, little-endian. Anything that is not an item (no item `_rid`) gives
// undefined.
Val DocumentId(FunctionContext& ctx, std::span<const Val> args) {
  if (!args[0].IsObject()) return Val();
  const json::Value& doc = args[0].json();
  auto rid = doc.FindMember("_rid");
  if (rid == doc.MemberEnd() || !rid->value.IsString()) return Val();
  std::string text(rid->value.GetString(), rid->value.GetStringLength());
  for (char& c : text) {
    if (c == '-') c = '/';  // resource ids write '/' as '-'
  }
  const std::optional<std::string> bytes = util::Base64Decode(text);
  if (!bytes || bytes->size() != 16) return Val();
  uint64_t id = 0;
  for (int i = 7; i >= 0; --i) id = (id << 8) | static_cast<unsigned char>((*bytes)[8 + i]);
  if (id > static_cast<uint64_t>(INT64_MAX)) return Val();
  return ctx.arena.Int(static_cast<int64_t>(id));
}

constexpr FunctionDef kItemFunctions[] = {
    {"DOCUMENTID", 1, 1, DocumentId},
};

}  // namespace

std::span<const FunctionDef> ItemFunctions() { return kItemFunctions; }

}  // namespace cosmos::query
