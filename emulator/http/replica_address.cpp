#include "http/replica_address.h"

#include <vector>

#include "util/util.h"

namespace cosmos::http {
namespace {

std::vector<std::string_view> NonEmptyParts(std::string_view text) {
  std::vector<std::string_view> parts;
  for (auto p : util::Split(text, '/'))
    if (!p.empty()) parts.push_back(p);
  return parts;
}

}  // namespace

std::optional<ResolveFor> ParseResolveFor(std::string_view text) {
  const auto parts = NonEmptyParts(text);
  if (parts.size() == 1 && parts[0] == "dbs") return ResolveFor{true, "", ""};
  if ((parts.size() != 4 && parts.size() != 5) || parts[0] != "dbs" || parts[2] != "colls" ||
      (parts.size() == 5 && parts[4] != "docs"))
    return std::nullopt;
  return ResolveFor{false, std::string(parts[1]), std::string(parts[3])};
}

std::string ReplicaPathText(std::string_view service, std::string_view range) {
  return std::string("/apps/") + kAccountId + "/services/" + std::string(service) + "/partitions/" +
         std::string(range) + "/replicas/1p/";
}

std::optional<ReplicaPath> ParseReplicaPath(std::string_view path) {
  const auto parts = NonEmptyParts(path);
  if (parts.size() != 8 || parts[0] != "apps" || parts[2] != "services" || parts[4] != "partitions" ||
      parts[6] != "replicas")
    return std::nullopt;
  return ReplicaPath{parts[3] == "master", std::string(parts[3]), std::string(parts[5])};
}

}  // namespace cosmos::http
