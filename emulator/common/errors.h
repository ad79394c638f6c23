// Every error the emulator answers with, from one factory: status, substatus, code and message.
// Thrown by any layer below HTTP; the pipeline turns it into the {"code","message"} body.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace cosmos {

struct CosmosError : std::runtime_error {
  CosmosError(int status, int substatus, std::string code, std::string message)
      : std::runtime_error(message), status(status), substatus(substatus), code(std::move(code)) {}
  int status;
  int substatus;  // 0 = none
  std::string code;
  // Charged request units when the failure happened after the request reached the store.
  double charge = 0;
  // Milliseconds the client should wait (429 only).
  int retry_after_ms = 0;
  // Further response headers (a failed script's log).
  std::vector<std::pair<std::string, std::string>> headers;
  // The body's "additionalErrorInfo" string (the query plan of a 400/1004), empty for none.
  std::string additional_error_info;
};

// The service wraps most messages as Message: {"Errors":["..."]}; we do the same so SDK error text matches.
namespace errors {

std::string Wrap(const std::string& text);

CosmosError BadRequest(const std::string& text, int substatus = 0);
// The service's answer to a value of the wrong type or shape in a resource body (a policy, a
// computed property, a permission's expiry): 400 "One of the specified inputs is invalid".
CosmosError InvalidInput();
CosmosError InvalidUrl();
CosmosError MalformedPayload();
CosmosError NestingTooDeep();
CosmosError MissingId();
CosmosError InvalidId(const std::string& id);
CosmosError IdTooLong(int limit, const char* unit);
CosmosError PartitionKeyMismatch();
CosmosError PartitionKeyComponents();
CosmosError PartitionKeyMalformed(const std::string& header);
CosmosError Unauthorized(const std::string& text);
CosmosError Forbidden(const std::string& text);
// A query that holds more rows (ORDER BY, DISTINCT, GROUP BY, aggregates) than its memory budget.
CosmosError QueryMemoryExceeded(size_t budget_bytes);
CosmosError NotFound();
CosmosError MethodNotAllowed();
CosmosError Conflict();
// An item whose id, or one of whose unique-key values, its logical partition already holds (the
// service words both the same way, without the usual wrapper).
CosmosError ItemConflict();
CosmosError PreconditionFailed();
CosmosError RequestTooLarge();
CosmosError NotImplemented(const std::string& what);
// 429/3200: the request units of the moment are spent (the rate limiter, fault injection).
CosmosError TooManyRequests(int64_t retry_after_ms);
CosmosError Internal(const std::string& what);

// Query errors in the service's form: {"errors":[{"severity":"Error","location":{start,end},"code","message"}]}.
// `code` is the service's SCxxxx code; start/end are character offsets in the query text.
CosmosError QueryError(const std::string& code, size_t start, size_t end, const std::string& message);
// A query error without a location (runtime and semantic errors the service reports so).
CosmosError QueryError(const std::string& code, const std::string& message);
// A result holds NaN or an infinity, which JSON cannot carry (substatus 4001).
CosmosError NonFiniteNumber();

}  // namespace errors
}  // namespace cosmos
