// Addressing by resource id: every resource is reachable by its _self link
// (dbs/{rid}/colls/{rid}/docs/{rid}, also sprocs, triggers, udfs, users, permissions, client
// encryption keys) as well as
// by its name. Clients sign such a request with the lower-cased rid of the last resource in the
// path (see AddressFor); the pipeline then resolves the rids to names, so handlers see one form.
#pragma once

#include <string>
#include <vector>

#include "http/context.h"

namespace cosmos::http {

// Whether the path addresses resources by rid: it starts dbs/{x} and {x} reads as a database rid
// (base64, '-' for '/', of exactly 4 bytes), the rule the SDKs use to tell rid links from names.
bool IsRidPath(const std::vector<std::string>& segments);

// The same path with every rid replaced by its resource's id. Throws 404 (charged as a metadata
// lookup) when a rid names no resource, 400 when a segment is not a rid of its kind.
std::vector<std::string> ResolveRidPath(Services& s, const std::vector<std::string>& segments);

}  // namespace cosmos::http
