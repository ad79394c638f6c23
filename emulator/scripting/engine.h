// Server-side JavaScript: stored procedures, triggers and user-defined functions, run by
// SpiderMonkey. This header is the whole interface; nothing else includes the engine's headers.
//
// Each worker thread owns one JavaScript context (the engine allows one per thread), created on
// first use, with the server-side API installed (getContext(), the collection methods, __ and
// console). Compiled scripts are cached per thread and script version. Scripts reach the store
// only through a Host, which the caller implements over a transaction.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace cosmos::scripting {

// Starts the engine. Call once before any thread runs a script (main does; later calls do nothing).
void Initialize();

// What one execution may use.
struct Limits {
  std::chrono::milliseconds timeout{5000};  // wall clock; the service allows about 5 s
  size_t heap_bytes = 256u << 20;           // the thread's JavaScript heap
  size_t memory_bytes = 512u << 20;         // resident memory an execution may add (checked every few ms)
  size_t stack_bytes = 1u << 20;            // native stack the engine may use (recursion depth)
  // When it turns true (the request's client went away) the execution stops as at its time limit
  // (checked every few ms); may be null.
  const std::atomic<bool>* cancelled = nullptr;
  // An earlier end than `timeout` gives (a user-defined function stops at its query page's
  // deadline), reported as the time limit.
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
};

// The store as a script sees it. The prelude calls `Call` for every collection operation; the
// reply is JSON: {"result": ..., "options": {...}} on success, {"error": {"number": status,
// "substatus": n, "message": "..."}} on failure (the callback gets it), or {"throw": {...}} (same
// shape) for a bad argument the call throws at once. The engine itself answers {"accepted": false}
// once an execution has used 80% of its time (the callback then never runs).
class Host {
 public:
  virtual ~Host() = default;
  virtual std::string Call(std::string_view op, std::string_view args_json) = 0;
};

// One version of one script: `key` names it in the per-thread cache (it must change whenever the
// body does), `source` is the body as stored.
struct Script {
  std::string key;
  std::string_view source;
};

enum class Kind { kStoredProcedure, kPreTrigger, kPostTrigger };

struct Execution {
  Kind kind = Kind::kStoredProcedure;
  std::string self_link;             // getCollection().getSelfLink(): "dbs/<rid>/colls/<rid>/"
  std::string alt_link;              // getAltLink(): "dbs/<id>/colls/<id>"
  std::string params_json = "[]";    // stored procedures: the argument array
  std::string request_body;          // triggers: the request's item as JSON ("" when none)
  std::string response_body;         // post-triggers: the operation's result as JSON
  std::string operation_type;        // triggers: "Create", "Replace", "Upsert" or "Delete"
  bool logging = false;              // keep console.log output (x-ms-documentdb-script-enable-logging)
};

struct Outcome {
  enum class Status {
    kOk,
    kThrew,          // the script threw (or an operation failed without a callback)
    kTimedOut,       // it ran past Limits::timeout and was stopped
    kOutOfMemory,    // it used more memory than Limits allows and was stopped
    kInvalidScript,  // the body does not compile to a function
  };
  Status status = Status::kOk;
  std::optional<std::string> response_body;  // getResponse() body as JSON (stored procedures: always;
                                             // "" unless set; triggers: only when set)
  std::optional<std::string> request_body;   // pre-triggers: getRequest().setBody(...) as JSON
  std::string error;                         // what was thrown: "Error: message" and its stack
  std::optional<int> error_number;           // a rethrown operation error carries its status
  std::optional<int> error_substatus;
  std::string log;                           // console.log output, concatenated
};

// Runs a stored procedure or trigger to completion (its queued callbacks included).
Outcome Run(const Script& script, const Execution& execution, Host& host, const Limits& limits);

// Calls a user-defined function with `args_json` (a JSON array). `json` is its result as JSON,
// empty when it returned undefined (or a function, or anything JSON cannot hold).
struct UdfResult {
  Outcome::Status status = Outcome::Status::kOk;
  std::string json;
  std::string error;
  std::optional<int> error_number;
};
UdfResult CallUdf(const Script& script, std::string_view args_json, const Limits& limits);

// For tests and benchmarks: drops this thread's context and compiled scripts.
void ResetThread();

}  // namespace cosmos::scripting
