#include "http/inject.h"

#include "faults/faults.h"

namespace cosmos::http {

std::string_view FaultOperationType(const RequestContext& ctx) {
  faults::RequestKind kind;
  kind.verb = std::string_view(beast_http::to_string(ctx.verb()).data(), beast_http::to_string(ctx.verb()).size());
  const Operation op = ctx.operation();
  kind.query = op == Operation::kQuery;
  kind.plan = op == Operation::kQueryPlan;
  kind.upsert = op == Operation::kUpsert;
  kind.batch = op == Operation::kBatch;
  kind.change_feed = op == Operation::kChangeFeed;
  return faults::OperationTypeOf(kind, ctx.segments());
}

void InjectFault(Services& services, RequestContext& ctx, const std::vector<store::PhysicalPartition*>& partitions) {
  if (!services.faults || !services.faults->any()) return;
  std::vector<std::string_view> ranges;
  for (const auto* p : partitions) ranges.push_back(p->range_id());
  std::string path;
  for (const auto& s : ctx.segments()) path += "/" + s;
  if (path.empty()) path = "/";
  faults::Target target{FaultOperationType(ctx), path, ranges};
  auto fault = services.faults->Match(target);
  if (!fault) return;
  switch (fault->kind) {
    case faults::Fault::Kind::kDelay:
      ctx.response_delay_ms = fault->delay_ms;
      return;
    case faults::Fault::Kind::kDrop:
      throw DropConnection{};
    case faults::Fault::Kind::kError: {
      ctx.usage.injected = true;
      CosmosError e(fault->status, fault->substatus, fault->code, fault->message);
      e.retry_after_ms = static_cast<int>(fault->retry_after_ms);
      throw e;
    }
  }
}

}  // namespace cosmos::http
