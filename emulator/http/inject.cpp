#include "http/inject.h"

#include "faults/faults.h"

namespace cosmos::http {

void InjectFault(Services& services, RequestContext& ctx, const std::vector<store::PhysicalPartition*>& partitions) {
  if (!services.faults || !services.faults->any()) return;
  std::vector<std::string_view> ranges;
  for (const auto* p : partitions) ranges.push_back(p->range_id());
  std::string path;
  for (const auto& s : ctx.segments()) path += "/" + s;
  if (path.empty()) path = "/";
  faults::Target target{ctx.facts().fault_type, path, ranges};
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
