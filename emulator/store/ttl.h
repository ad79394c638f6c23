// Times to live as bodies give them.
#pragma once

#include <cstdint>

#include "json/json.h"

namespace cosmos::store {

// A time to live given in a body (an item's "ttl", a container's "defaultTtl"): -1 (never expire)
// or a whole number of seconds from 1 to 2147483647. Anything else, null included, is 400 with the
// service's message naming the value as written.
int64_t ValidTtl(const json::Value& v);

}  // namespace cosmos::store
