// Authorization (docs/protocol.md §2): master-key signatures with a clock-skew window, and
// resource tokens issued from permissions (docs/users.md).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "http/context.h"
#include "http/entra.h"
#include "store/users.h"
#include "util/util.h"

namespace cosmos::http {

struct ResourceAddress {
  std::string type;  // e.g. "docs", "colls", "" for the account
  std::string link;  // e.g. "dbs/db1/colls/c1"
};

// Whether the path is an operation on a container (dbs/{db}/colls/{coll}/operations/{name}).
bool IsContainerOperation(const std::vector<std::string>& segments);

// Resource type and link signed by clients for a request on `segments` (percent-decoded).
ResourceAddress AddressFor(std::string_view verb, const std::vector<std::string>& segments);

// The text a master-key signature covers (docs/protocol.md §2).
std::string StringToSign(std::string_view verb, const ResourceAddress& addr, std::string_view date);

// The signature a client with `key` (decoded bytes) would send.
std::string Sign(std::string_view key, std::string_view verb, const ResourceAddress& addr, std::string_view date);

// What a resource token grants, and until when. Carried in the token itself under a MAC keyed by
// the master key, so it cannot be forged or altered.
struct ResourceToken {
  store::PermissionScope scope;
  std::string mode;  // "Read" or "All"
  std::string permission_rid;
  std::string permission_etag;  // the permission's version the token was issued from
  int64_t start = 0;            // Unix seconds (the emulator clock)
  int64_t expiry = 0;
};

// A permission's `_token`: "type=resource&ver=1&sig=<mac>;<claims>;" (both base64), the shape of
// the service's tokens.
std::string IssueResourceToken(std::string_view key, const ResourceToken& t);
// The claims of the `sig` of a token issued under `key`; nullopt when forged, altered or garbled.
std::optional<ResourceToken> VerifyResourceToken(std::string_view key, std::string_view sig);

// Whether a read-only key may make this request: reads (GET/HEAD, the change feed, the account),
// queries and query plans; never a write, a permission (it holds resource tokens) or the
// emulator's own endpoints.
bool ReadOnlyKeyServes(const RequestContext& ctx);

// Who a request authenticated as: a key (neither set), a resource token (its claims), or a
// Microsoft Entra ID principal (docs/entra-id.md).
struct Credential {
  std::optional<ResourceToken> resource;
  std::optional<AadPrincipal> aad;
  bool key() const { return !resource && !aad; }
};

// Throws CosmosError 401/403 unless the request carries a valid master-key signature, a resource
// token issued by this account or a valid Entra ID token (checked at `now`, Unix seconds on the
// emulator clock). Any of the master keys (primary, secondary) serves every request; a read-only
// key (primary, secondary) serves what ReadOnlyKeyServes allows, and anything else answers 401 as
// a wrong key does. A token's roles are checked once the request is resolved (AuthorizeAad).
Credential Authenticate(const RequestContext& ctx, const Config& config, int64_t now = util::UnixSeconds());

// Throws 403 unless the resource token is within its lifetime on the emulator clock, the
// permission it was issued from still exists unchanged, and it grants this request.
void AuthorizeResourceToken(const Services& s, const RequestContext& ctx, const ResourceToken& t);

}  // namespace cosmos::http
