// Master-key authorization (docs/protocol.md §2): signature check with a clock-skew window.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "http/context.h"

namespace cosmos::http {

struct ResourceAddress {
  std::string type;  // e.g. "docs", "colls", "" for the account
  std::string link;  // e.g. "dbs/db1/colls/c1"
};

// Resource type and link signed by clients for a request on `segments` (percent-decoded).
ResourceAddress AddressFor(std::string_view verb, const std::vector<std::string>& segments);

// The text a master-key signature covers (protocol.md §2).
std::string StringToSign(std::string_view verb, const ResourceAddress& addr, std::string_view date);

// The signature a client with `key` (decoded bytes) would send.
std::string Sign(std::string_view key, std::string_view verb, const ResourceAddress& addr, std::string_view date);

// Throws CosmosError 401/403 unless the request carries a valid master-key signature.
void Authenticate(const RequestContext& ctx, const Config& config);

}  // namespace cosmos::http
