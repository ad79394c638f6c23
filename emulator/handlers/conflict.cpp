// /dbs/{db}/colls/{coll}/conflicts[/{id}]: the feed of write conflicts a multi-region account with
// several write regions records. The emulator is one region with one write region, so no write
// ever conflicts: the feed is empty, every conflict id names nothing (404) and queries over the
// feed return no rows. Conflicts are metadata: flat metadata charges, no session tokens.
#include "charge/charge.h"
#include "handlers/common.h"
#include "handlers/handlers.h"
#include "http/headers.h"

namespace cosmos::handlers {

Result ListConflicts(Services& s, RequestContext& ctx) {
  auto c = ResolveContainer(s, ctx);
  Result r;
  r.body = FeedJson(c->rid(), "Conflicts", Page(ctx, {}, r));
  r.charge = charge::MetadataRead();
  return r;
}

Result QueryConflicts(Services& s, RequestContext& ctx) {
  auto c = ResolveContainer(s, ctx);
  // Conflicts are kept in the container's partitions: a query that names none of them is a cross
  // partition query (the Python SDK's test_partition_key expects the 400).
  const bool scoped = ctx.scope().partition_key || ctx.scope().range_id;
  if (!scoped) CheckCrossPartitionAllowed(ctx, *c);
  return QueryResources(s, ctx, "Conflicts", c->rid(), {});
}

// A read or delete of one conflict: the container must exist (404 otherwise, as for any missing
// parent), and then the conflict does not.
Result ReadConflict(Services& s, RequestContext& ctx) {
  ResolveContainer(s, ctx);
  throw MetadataNotFound();
}

Result DeleteConflict(Services& s, RequestContext& ctx) {
  ResolveContainer(s, ctx);
  throw MetadataNotFound();
}

}  // namespace cosmos::handlers
