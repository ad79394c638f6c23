#include "common/errors.h"

#include "json/json.h"

namespace cosmos::errors {

std::string Wrap(const std::string& text) {
  std::string out = "Message: {\"Errors\":[";
  json::WriteString(out, text);
  out += "]}";
  return out;
}

CosmosError BadRequest(const std::string& text, int substatus) {
  return CosmosError(400, substatus, "BadRequest", Wrap(text));
}

CosmosError InvalidInput() { return BadRequest("One of the specified inputs is invalid"); }

CosmosError InvalidUrl() { return CosmosError(400, 0, "BadRequest", "Request url is invalid."); }

CosmosError MalformedPayload() {
  return BadRequest("The request payload is invalid. Ensure to provide a valid request payload.");
}

CosmosError NestingTooDeep() {
  return BadRequest("The request payload is invalid: the JSON nesting depth exceeds the maximum of " +
                    std::to_string(json::kMaxDepth) + ".");
}

CosmosError MissingId() {
  return BadRequest("The input content is invalid because the required properties - 'id; ' - are missing.");
}

CosmosError InvalidId(const std::string& id) {
  return BadRequest("The input name '" + id +
                    "' is invalid. Ensure to provide a unique non-empty string less than '255' characters and "
                    "containing no '/', '\\\\', '?' or '#'.");
}

CosmosError IdTooLong(int limit, const char* unit) {
  return BadRequest("The input name is invalid: it exceeds the maximum length of " + std::to_string(limit) + " " +
                    unit + ".");
}

CosmosError PartitionKeyMismatch() {
  return BadRequest("PartitionKey extracted from document doesn't match the one specified in the header.", 1001);
}

CosmosError PartitionKeyComponents() {
  return BadRequest(
      "The partition key supplied in x-ms-partitionkey header has fewer components than defined in the the "
      "collection.",
      1001);
}

CosmosError PartitionKeyMalformed(const std::string& header) {
  return BadRequest("The partition key value '" + header +
                        "' in the x-ms-documentdb-partitionkey header is not a JSON array of valid partition key "
                        "values.",
                    1001);
}

CosmosError Unauthorized(const std::string& text) { return CosmosError(401, 0, "Unauthorized", text); }
CosmosError Forbidden(const std::string& text) { return CosmosError(403, 0, "Forbidden", text); }

CosmosError QueryMemoryExceeded(size_t budget_bytes) {
  // The service's wording (its Mongo API words the same limit this way; the NoSQL gateway's own
  // text is not recorded): 400 without a substatus.
  return BadRequest("Query exceeded the maximum allowed memory usage of " + std::to_string(budget_bytes >> 20) +
                    " MB. Please consider adding more filters to reduce the query response size.");
}

CosmosError NotFound() { return CosmosError(404, 0, "NotFound", Wrap("Resource Not Found.")); }

CosmosError MethodNotAllowed() {
  return CosmosError(405, 0, "MethodNotAllowed", Wrap("The requested verb is not supported on this resource."));
}

CosmosError Conflict() {
  return CosmosError(409, 0, "Conflict", Wrap("Resource with specified id, name, or unique index already exists."));
}

CosmosError ItemConflict() {
  return CosmosError(409, 0, "Conflict", "Entity with the specified id already exists in the system.");
}

CosmosError PreconditionFailed() {
  return CosmosError(412, 0, "PreconditionFailed",
                     Wrap("Operation cannot be performed because one of the specified precondition is not met."));
}

CosmosError RequestTooLarge() {
  return CosmosError(413, 0, "RequestEntityTooLarge", Wrap("Request size is too large."));
}

CosmosError NotImplemented(const std::string& what) {
  return CosmosError(501, 0, "NotImplemented", Wrap(what + " is not supported by this emulator yet."));
}

CosmosError Internal(const std::string& what) { return CosmosError(500, 0, "InternalServerError", Wrap(what)); }

CosmosError QueryError(const std::string& code, size_t start, size_t end, const std::string& message) {
  std::string body = "Message: {\"errors\":[{\"severity\":\"Error\",\"location\":{\"start\":" +
                     std::to_string(start) + ",\"end\":" + std::to_string(end) + "},\"code\":";
  json::WriteString(body, code);
  body += ",\"message\":";
  json::WriteString(body, message);
  body += "}]}";
  return CosmosError(400, 0, "BadRequest", body);
}

CosmosError QueryError(const std::string& code, const std::string& message) {
  std::string body = "Message: {\"errors\":[{\"severity\":\"Error\",\"code\":";
  json::WriteString(body, code);
  body += ",\"message\":";
  json::WriteString(body, message);
  body += "}]}";
  return CosmosError(400, 0, "BadRequest", body);
}

CosmosError NonFiniteNumber() {
  return CosmosError(400, 4001, "BadRequest",
                     "Message: {\"errors\":[{\"severity\":\"Error\",\"code\":4001,\"message\":\"The response "
                     "content contains a numeric value that cannot be represented in JSON (e.g. Infinity and "
                     "NaN).\"}]}");
}

CosmosError TooManyRequests(int64_t retry_after_ms) {
  CosmosError e(429, 3200, "TooManyRequests",
                Wrap("Request rate is large. More Request Units may be needed, so no changes were made. Please "
                     "retry this request later. Learn more: http://aka.ms/cosmosdb-error-429"));
  e.retry_after_ms = static_cast<int>(retry_after_ms);
  return e;
}

}  // namespace cosmos::errors
