// Direct mode's addresses, in one place: the address feed's `$resolveFor` (which the signature
// check reads, http/auth.cpp, and the feed answers, handlers/addresses.cpp) and the replica path
// the feed hands out and every RNTBD request sends back as its ReplicaPath (direct/bridge.cpp):
//   /apps/<account>/services/<collection rid|master>/partitions/<range id|M>/replicas/1p/
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace cosmos::http {

// The account's id: what the vNext image answers (the .NET Testcontainers module's test asserts
// it), also the account's name in the replica paths.
inline constexpr const char* kAccountId = "cosmosdev";

// `$resolveFor`: "dbs" (the master partition) or "dbs/{dbRid}/colls/{collRid}[/docs]".
struct ResolveFor {
  bool master = false;
  std::string db_rid, coll_rid;  // empty for the master
};
// nullopt when the text is neither form.
std::optional<ResolveFor> ParseResolveFor(std::string_view text);

// A replica of one partition key range of a container (service: its rid), or of the master
// (service "master", range "M").
struct ReplicaPath {
  bool master = false;
  std::string service, range;
};
// The path, with its trailing '/', as the feed writes it after "rntbd://host:port".
std::string ReplicaPathText(std::string_view service, std::string_view range);
// The path as a client sends it back (with or without the trailing '/'); nullopt when it is not
// of this form (another emulator's, an older one's).
std::optional<ReplicaPath> ParseReplicaPath(std::string_view path);

}  // namespace cosmos::http
