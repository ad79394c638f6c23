// POST /dbs/{db}/colls/{coll}/operations/partitionkeydelete: deletes every item of the logical
// partition named by x-ms-documentdb-partitionkey (the SDKs' deleteAllItemsForPartitionKey /
// DeleteAllItemsByPartitionKeyStreamAsync / delete_all_items_by_partition_key).
//
// The service runs the deletion in the background but hides the items at once; the emulator
// deletes them before it answers, under the partition lock, so no other write interleaves and
// every later read, query and feed sees them gone. Each item is deleted as a single delete is
// (its own LSN, unique-key and TTL indexes maintained): the latest-version change feed shows
// nothing for them, the all-versions-and-deletes feed one delete per item. Items written after
// the request are not affected. A hierarchical key must be given in full (the service refuses
// prefixes). Answers 200 with an empty body.
#include "charge/charge.h"
#include "handlers/common.h"
#include "handlers/handlers.h"

namespace cosmos::handlers {

Result DeleteAllItemsForPartitionKey(Services& s, RequestContext& ctx) {
  auto c = ResolveContainer(s, ctx);
  // 400/1001 without the header or with a prefix of a hierarchical key.
  const store::PartitionKeyValue key = HeaderKey(ctx, *c);
  store::PhysicalPartition& part = c->PartitionFor(key);
  Admit(s, ctx, c, {&part});
  auto done = part.DeleteLogicalPartition(key.Canonical(), s.clock.Now(), c->settings()->items());
  Result r;
  r.status = 200;
  ItemHeaders(r, ctx, *c, part, done.lsn);
  // The service's documentation gives no charge for the request itself (the background deletion
  // spends up to a tenth of the container's RU/s): charged as a metadata write.
  r.charge = charge::MetadataWrite();
  return r;
}

}  // namespace cosmos::handlers
