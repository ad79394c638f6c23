// The server-side API scripts see (getContext(), the collection methods, __, console), written
// in JavaScript over two natives the engine provides: host(op, argsJson) and log(text).
#pragma once

namespace cosmos::scripting {

// Evaluates to a function (host, log, global) -> {invoke, invokeUdf}.
extern const char* const kPrelude;

}  // namespace cosmos::scripting
