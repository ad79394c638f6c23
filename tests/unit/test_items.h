// Stored items for store/ tests: what a handler's Maker builds, with a small fixed body.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "store/store.h"

namespace cosmos::store::testing {

// {"id":<id>,"v":<payload>} written at `ts` with the seq and LSN the partition assigned.
inline ItemPtr TestItem(const std::string& id, const std::string& pk, int64_t ts, uint64_t seq, uint64_t lsn,
                        std::optional<int64_t> ttl, std::string etag, const std::string& payload) {
  auto item = NewItem();
  item->set_id(id);
  item->set_pk(pk);
  item->ts = ts;
  item->seq = seq;
  item->lsn = lsn;
  item->ttl = ttl;
  item->set_etag(etag);
  json::Parse("{\"id\":\"" + id + "\",\"v\":\"" + payload + "\"}", item->Draft());
  item->Seal();
  return item;
}

}  // namespace cosmos::store::testing
