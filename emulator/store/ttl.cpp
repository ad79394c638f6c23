#include "store/ttl.h"

#include <string>

#include "common/errors.h"

namespace cosmos::store {

int64_t ValidTtl(const json::Value& v) {
  constexpr int64_t kMaxTtl = 2147483647;
  if (v.IsInt64()) {
    const int64_t n = v.GetInt64();
    if (n == -1 || (n >= 1 && n <= kMaxTtl)) return n;
  }
  throw errors::BadRequest("The input ttl '" + (v.IsString() ? std::string(v.GetString(), v.GetStringLength()) : json::Write(v)) +
                           "' is invalid. Ensure to provide a nonzero positive integer less than or equal to '" +
                           std::to_string(kMaxTtl) + "', or '-1' which means never expire.");
}

}  // namespace cosmos::store
