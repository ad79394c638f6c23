// Where fault injection (faults/faults.h) meets a request: the metadata requests in the pipeline,
// the data-plane ones where a handler admits them to their partitions (handlers::Admit), so that
// rules can name partition key ranges.
#pragma once

#include <string_view>
#include <vector>

#include "http/context.h"

namespace cosmos::http {

// Thrown to close the connection without an answer (a ConnectionClose rule).
struct DropConnection {};

// Applies the fault a rule gives for this request (its operation type is its route's, ctx.facts()), if any: throws the error (the request is
// counted as injected in the RU report), sets ctx.response_delay_ms, or throws DropConnection.
// `partitions`: the physical partitions the request reaches (none for metadata). Costs nothing
// while no rule is kept.
void InjectFault(Services& services, RequestContext& ctx, const std::vector<store::PhysicalPartition*>& partitions);

}  // namespace cosmos::http
