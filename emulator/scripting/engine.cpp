// SpiderMonkey behind scripting/engine.h. One JSContext per thread; one realm (global) per cached
// script version, each with its own copy of the prelude, so scripts cannot see or break each
// other's globals. A watchdog thread interrupts running scripts every few milliseconds; the
// interrupt callback stops a script that ran past its deadline or grew past its memory budget.
// A context that was stopped or ran out of memory is thrown away and made anew on next use.
#include "scripting/engine.h"

#include <js/CharacterEncoding.h>
#include <js/CompilationAndEvaluation.h>
#include <js/Conversions.h>
#include <js/Exception.h>
#include <js/GCAPI.h>
#include <js/Initialization.h>
#include <js/PropertyAndElement.h>
#include <js/SourceText.h>
#include <jsapi.h>
#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <regex>
#include <set>
#include <thread>
#include <unordered_map>

#include "scripting/prelude.h"
#include "json/json.h"
#include "util/util.h"

namespace cosmos::scripting {
namespace {

using Clock = std::chrono::steady_clock;

// The process's resident memory. The engine's strings and array elements live outside its
// garbage-collected heap, so this is how an execution's growth is seen. A read costs a system
// call (the file stays open), so it is taken only on the watchdog's ticks.
size_t ResidentBytes() {
  static const int fd = ::open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
  static const long page = ::sysconf(_SC_PAGESIZE);
  char buf[128];
  const ssize_t n = fd < 0 ? -1 : ::pread(fd, buf, sizeof buf - 1, 0);
  if (n <= 0) return 0;
  buf[n] = '\0';
  unsigned long size = 0, resident = 0;
  if (std::sscanf(buf, "%lu %lu", &size, &resident) != 2) return 0;
  return static_cast<size_t>(resident) * static_cast<size_t>(page);
}

enum class Stop { kNone, kTime, kMemory };

// What the running execution on a context needs from natives and the interrupt callback.
struct Running {
  bool armed = false;   // limits apply (a script, a UDF or a compilation is running)
  int depth = 0;        // nested runs: a UDF called by a query a script runs
  Host* host = nullptr;  // stored procedures and triggers only
  std::string* log = nullptr;
  Clock::time_point started;
  Clock::time_point deadline;
  const std::atomic<bool>* cancelled = nullptr;  // the client went away
  Clock::duration accept_until{};  // operations after this much time are not accepted
  size_t memory_base = 0;  // resident bytes at the first watchdog tick (0: not taken yet)
  size_t memory_budget = 0;
  std::atomic<Stop> stop{Stop::kNone};
};

// Interrupts every running context every few milliseconds so its callback can check limits.
class Watchdog {
 public:
  static Watchdog& Get() {
    static Watchdog* w = new Watchdog();  // never destroyed: its thread runs for the process
    return *w;
  }
  void Add(JSContext* cx) {
    std::lock_guard lock(mu_);
    running_.insert(cx);
    cv_.notify_one();
  }
  void Remove(JSContext* cx) {
    std::lock_guard lock(mu_);
    running_.erase(cx);
  }

 private:
  Watchdog() {
    std::thread([this] {
      std::unique_lock lock(mu_);
      for (;;) {
        cv_.wait(lock, [this] { return !running_.empty(); });
        // A full tick before the first interrupt: short executions are never interrupted.
        cv_.wait_for(lock, std::chrono::milliseconds(5), [] { return false; });
        for (JSContext* cx : running_) JS_RequestInterruptCallback(cx);
      }
    }).detach();
  }
  std::mutex mu_;
  std::condition_variable cv_;
  std::set<JSContext*> running_;
};

constexpr const char* kPreludeFile = "prelude.js";

JSClass kGlobalClass = {"global", JSCLASS_GLOBAL_FLAGS, &JS::DefaultGlobalClassOps, nullptr, nullptr, nullptr};

// One script version's realm: its global, the compiled function and the prelude's entry points.
struct Realm {
  Realm(JSContext* cx) : global(cx), fn(cx), invoke(cx), invoke_udf(cx) {}
  JS::PersistentRootedObject global;
  JS::PersistentRootedObject fn;
  JS::PersistentRootedObject invoke;
  JS::PersistentRootedObject invoke_udf;
};

struct ThreadEngine {
  JSContext* cx = nullptr;
  Running run;
  std::unordered_map<std::string, std::unique_ptr<Realm>> realms;
  bool poisoned = false;  // stopped or out of memory: replaced before the next script

  ~ThreadEngine() {
    realms.clear();  // persistent roots go before their context
    if (cx) JS_DestroyContext(cx);
  }
};

thread_local std::unique_ptr<ThreadEngine> t_engine;

constexpr size_t kMaxRealmsPerThread = 256;

std::string ToUtf8(JSContext* cx, JS::HandleValue v) {
  JS::RootedString s(cx, JS::ToString(cx, v));
  if (!s) {
    JS_ClearPendingException(cx);
    return "(a value that cannot be shown)";
  }
  JS::UniqueChars chars = JS_EncodeStringToUTF8(cx, s);
  return chars ? std::string(chars.get()) : std::string();
}

JSString* NewString(JSContext* cx, std::string_view text) {
  return JS_NewStringCopyUTF8N(cx, JS::UTF8Chars(text.data(), text.size()));
}

bool OnInterrupt(JSContext* cx) {
  auto* run = static_cast<Running*>(JS_GetContextPrivate(cx));
  if (!run || !run->armed) return true;
  if (Clock::now() >= run->deadline || (run->cancelled && run->cancelled->load(std::memory_order_relaxed))) {
    run->stop = Stop::kTime;
    return false;
  }
  const size_t resident = ResidentBytes();
  if (run->memory_base == 0) {
    run->memory_base = resident;  // scripts that finish within one tick never pay for a read
  } else if (resident > run->memory_base + run->memory_budget) {
    run->stop = Stop::kMemory;
    return false;
  }
  return true;
}

// host(op, argsJson) -> replyJson
bool HostNative(JSContext* cx, unsigned argc, JS::Value* vp) {
  JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
  auto* run = static_cast<Running*>(JS_GetContextPrivate(cx));
  std::string op = ToUtf8(cx, args.get(0));
  std::string payload = ToUtf8(cx, args.get(1));
  std::string reply;
  if (!run || !run->host) {
    JS_ReportErrorUTF8(cx, "The server-side API is not available here.");
    return false;
  }
  if (Clock::now() - run->started > run->accept_until) {
    reply = R"({"accepted":false})";
  } else {
    // What the store keeps for the script's writes is not the script's memory: growth during
    // the call moves the baseline (once the watchdog has taken one).
    const size_t before = run->memory_base ? ResidentBytes() : 0;
    try {
      reply = run->host->Call(op, payload);
    } catch (const std::exception& e) {
      JS_ReportErrorUTF8(cx, "%s", e.what());
      return false;
    }
    if (before) {
      const size_t after = ResidentBytes();
      if (after > before) run->memory_base += after - before;
    }
  }
  JS::RootedString s(cx, NewString(cx, reply));
  if (!s) return false;
  args.rval().setString(s);
  return true;
}

// log(text)
bool LogNative(JSContext* cx, unsigned argc, JS::Value* vp) {
  JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
  auto* run = static_cast<Running*>(JS_GetContextPrivate(cx));
  if (run && run->log) *run->log += ToUtf8(cx, args.get(0));
  args.rval().setUndefined();
  return true;
}

ThreadEngine& Engine(const Limits& limits) {
  if (t_engine) return *t_engine;
  Initialize();
  auto engine = std::make_unique<ThreadEngine>();
  engine->cx = JS_NewContext(limits.heap_bytes);
  if (!engine->cx) throw std::runtime_error("cannot create a JavaScript context");
  JSContext* cx = engine->cx;
  if (!JS::InitSelfHostedCode(cx)) throw std::runtime_error("cannot initialise the JavaScript engine");
  JS_SetGCParameter(cx, JSGC_MAX_BYTES, static_cast<uint32_t>(std::min<size_t>(limits.heap_bytes, 0xFFFFFFFFu)));
  JS_SetNativeStackQuota(cx, limits.stack_bytes);
  JS_AddInterruptCallback(cx, OnInterrupt);
  JS_SetContextPrivate(cx, &engine->run);
  t_engine = std::move(engine);
  return *t_engine;
}

// The pending exception as text, plus what a rethrown operation error carries.
void TakeException(JSContext* cx, Outcome& out) {
  JS::RootedValue exc(cx);
  if (!JS_GetPendingException(cx, &exc)) {
    JS_ClearPendingException(cx);
    out.error = "(unknown error)";
    return;
  }
  JS_ClearPendingException(cx);
  out.error = ToUtf8(cx, exc);
  if (!exc.isObject()) return;
  JS::RootedObject obj(cx, &exc.toObject());
  JS::RootedValue v(cx);
  if (JS_GetProperty(cx, obj, "number", &v) && v.isNumber()) out.error_number = static_cast<int>(v.toNumber());
  if (JS_GetProperty(cx, obj, "substatus", &v) && v.isNumber()) out.error_substatus = static_cast<int>(v.toNumber());
  if (JS_GetProperty(cx, obj, "stack", &v) && v.isString()) {
    // The script's own frames: the server-side API's are not the user's to read.
    std::string stack;
    const std::string text = ToUtf8(cx, v);
    for (std::string_view line : util::Split(text, '\n')) {
      if (line.empty() || line.find(kPreludeFile) != std::string_view::npos) continue;
      stack += line;
      stack += '\n';
    }
    if (!stack.empty()) out.error += "\r\nStack trace: " + out.error.substr(0, out.error.find('\r')) + "\n" + stack;
  }
  JS_ClearPendingException(cx);
}

// Runs `f` with the limits armed; classifies a failure into `out`. Returns whether `f` succeeded.
// The outcome of a failed run: what was thrown, or why the engine stopped it.
void Classify(ThreadEngine& engine, Outcome& out) {
  JSContext* cx = engine.cx;
  Running& run = engine.run;
  // Classify while still armed: showing the thrown value may run its toString().
  const bool pending = run.stop.load() == Stop::kNone && JS_IsExceptionPending(cx);
  if (pending) TakeException(cx, out);
  const Stop stop = run.stop.load();
  if (stop == Stop::kTime) {
    out.status = Outcome::Status::kTimedOut;
  } else if (stop == Stop::kMemory) {
    out.status = Outcome::Status::kOutOfMemory;
  } else if (pending && out.error.rfind("out of memory", 0) != 0) {
    out.status = Outcome::Status::kThrew;
  } else {
    out.status = Outcome::Status::kOutOfMemory;  // the engine's own out-of-memory stop
  }
  if (out.status != Outcome::Status::kThrew) {
    out.error.clear();
    engine.poisoned = true;  // replaced once no frame uses it
  }
}

// Runs `f` with the limits armed; classifies a failure into `out`. Returns whether `f` succeeded.
// A nested run (a UDF a script's query calls) shares the outer run's deadline, host and log.
template <typename F>
bool Guarded(ThreadEngine& engine, Host* host, std::string* log, const Limits& limits, Outcome& out, F&& f) {
  JSContext* cx = engine.cx;
  Running& run = engine.run;
  if (run.depth > 0) {
    ++run.depth;
    const bool ok = f();
    --run.depth;
    if (!ok) Classify(engine, out);
    if (!ok) JS_ClearPendingException(cx);
    return ok;
  }
  run.depth = 1;
  run.armed = true;
  run.host = host;
  run.log = log;
  run.started = Clock::now();
  run.deadline = std::min(run.started + limits.timeout, limits.deadline);
  run.cancelled = limits.cancelled;
  run.accept_until = limits.timeout * 4 / 5;
  run.memory_base = 0;
  run.memory_budget = limits.memory_bytes;
  run.stop = Stop::kNone;
  Watchdog::Get().Add(cx);
  const bool ok = f();
  if (!ok) Classify(engine, out);
  Watchdog::Get().Remove(cx);
  run.host = nullptr;
  run.log = nullptr;
  run.cancelled = nullptr;
  run.armed = false;
  run.depth = 0;
  JS_ClearPendingException(cx);
  return ok;
}

bool Evaluate(JSContext* cx, std::string_view code, int line, JS::MutableHandleValue rval,
              const char* file = "script.js") {
  JS::CompileOptions opts(cx);
  opts.setFileAndLine(file, line);
  JS::SourceText<mozilla::Utf8Unit> src;
  if (!src.init(cx, code.data(), code.size(), JS::SourceOwnership::Borrowed)) return false;
  return JS::Evaluate(cx, opts, src, rval);
}

// The name of the first function the body declares ("function name(").
std::optional<std::string> FirstFunctionName(std::string_view source) {
  static const std::regex kDecl(R"(function\s*\*?\s*([A-Za-z_$][A-Za-z0-9_$]*)\s*\()");
  std::match_results<std::string_view::const_iterator> m;
  if (std::regex_search(source.begin(), source.end(), m, kDecl)) return m[1].str();
  return std::nullopt;
}

// The realm holding `script`, compiled on first use. Null (with `out` filled) when it does not compile.
Realm* RealmFor(ThreadEngine& engine, const Script& script, const Limits& limits, Outcome& out) {
  if (auto it = engine.realms.find(script.key); it != engine.realms.end()) return it->second.get();
  if (engine.realms.size() >= kMaxRealmsPerThread && engine.run.depth == 0) engine.realms.clear();
  JSContext* cx = engine.cx;
  auto realm = std::make_unique<Realm>(cx);
  JS::RealmOptions options;
  realm->global = JS_NewGlobalObject(cx, &kGlobalClass, nullptr, JS::FireOnNewGlobalHook, options);
  if (!realm->global) throw std::runtime_error("cannot create a JavaScript global");
  JSAutoRealm ar(cx, realm->global);
  if (!JS::InitRealmStandardClasses(cx)) throw std::runtime_error("cannot initialise a JavaScript global");
  JS::RootedObject global(cx, realm->global);
  JS::RootedFunction host(cx, JS_NewFunction(cx, HostNative, 2, 0, "host"));
  JS::RootedFunction log(cx, JS_NewFunction(cx, LogNative, 1, 0, "log"));
  JS::RootedValue factory(cx);
  if (!host || !log || !Evaluate(cx, kPrelude, 1, &factory, kPreludeFile) || !factory.isObject()) {
    throw std::runtime_error("the JavaScript prelude does not compile");
  }
  JS::RootedValueArray<3> args(cx);
  args[0].setObject(*JS_GetFunctionObject(host));
  args[1].setObject(*JS_GetFunctionObject(log));
  args[2].setObject(*global);
  JS::RootedValue api(cx);
  if (!JS_CallFunctionValue(cx, global, factory, args, &api) || !api.isObject()) {
    throw std::runtime_error("the JavaScript prelude failed");
  }
  JS::RootedObject api_obj(cx, &api.toObject());
  JS::RootedValue v(cx);
  if (!JS_GetProperty(cx, api_obj, "invoke", &v) || !v.isObject()) throw std::runtime_error("prelude: no invoke");
  realm->invoke = &v.toObject();
  if (!JS_GetProperty(cx, api_obj, "invokeUdf", &v) || !v.isObject()) throw std::runtime_error("prelude: no invokeUdf");
  realm->invoke_udf = &v.toObject();

  // The body is a function expression or declaration: "(body)" gives it. A body that declares
  // several functions is run as a block that hands back the first one.
  JS::RootedValue fn(cx);
  bool ok = Guarded(engine, nullptr, nullptr, limits, out, [&] {
    std::string wrapped = "(\n" + std::string(script.source) + "\n)";
    if (Evaluate(cx, wrapped, 0, &fn) && fn.isObject() && JS_ObjectIsFunction(&fn.toObject())) return true;
    JS_ClearPendingException(cx);
    auto name = FirstFunctionName(script.source);
    if (!name) {  // report what is wrong with the body as written
      if (!Evaluate(cx, wrapped, 0, &fn)) return false;
      JS_ReportErrorUTF8(cx, "The script body must be a JavaScript function.");
      return false;
    }
    std::string block = "(function () {\n" + std::string(script.source) + "\n;return " + *name + ";\n})()";
    if (!Evaluate(cx, block, 0, &fn)) return false;
    if (!fn.isObject() || !JS_ObjectIsFunction(&fn.toObject())) {
      JS_ReportErrorUTF8(cx, "The script body must be a JavaScript function.");
      return false;
    }
    return true;
  });
  if (!ok) {
    if (out.status == Outcome::Status::kThrew) out.status = Outcome::Status::kInvalidScript;
    return nullptr;
  }
  realm->fn = &fn.toObject();
  Realm* raw = realm.get();
  engine.realms.emplace(script.key, std::move(realm));
  return raw;
}

// Reads the optional string property `name` of `obj`.
std::optional<std::string> StringProperty(JSContext* cx, JS::HandleObject obj, const char* name) {
  JS::RootedValue v(cx);
  if (!JS_GetProperty(cx, obj, name, &v) || !v.isString()) return std::nullopt;
  return ToUtf8(cx, v);
}

}  // namespace

void Initialize() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (!JS_Init()) throw std::runtime_error("cannot initialise the JavaScript engine");
    // Runs after the main thread's context is gone (thread-local objects die before atexit
    // handlers run); other threads have ended theirs by then.
    std::atexit([] { JS_ShutDown(); });
  });
}

void ResetThread() { t_engine.reset(); }

static Outcome RunIn(const Script& script, const Execution& e, Host& host, const Limits& limits) {
  Outcome out;
  ThreadEngine& engine = Engine(limits);
  Realm* realm = RealmFor(engine, script, limits, out);
  if (!realm) return out;
  JSContext* cx = engine.cx;
  JSAutoRealm ar(cx, realm->global);

  const char* kind = e.kind == Kind::kStoredProcedure ? "sproc" : e.kind == Kind::kPreTrigger ? "pre" : "post";
  std::string state = "{\"kind\":\"" + std::string(kind) + "\",\"logging\":" + (e.logging ? "true" : "false");
  state += ",\"selfLink\":";
  json::WriteString(state, e.self_link);
  state += ",\"altLink\":";
  json::WriteString(state, e.alt_link);
  state += ",\"operationType\":";
  json::WriteString(state, e.operation_type);
  if (!e.request_body.empty()) state += ",\"request\":" + e.request_body;
  if (!e.response_body.empty()) state += ",\"response\":" + e.response_body;
  state += "}";

  JS::RootedValue result(cx);
  const bool ok = Guarded(engine, &host, &out.log, limits, out, [&] {
    JS::RootedString st(cx, NewString(cx, state));
    JS::RootedString params(cx, NewString(cx, e.params_json));
    if (!st || !params) return false;
    JS::RootedValueArray<3> args(cx);
    args[0].setObject(*realm->fn);
    args[1].setString(st);
    args[2].setString(params);
    JS::RootedValue invoke(cx, JS::ObjectValue(*realm->invoke));
    JS::RootedObject global(cx, realm->global);
    return JS_CallFunctionValue(cx, global, invoke, args, &result);
  });
  if (!ok) return out;
  if (result.isObject()) {  // {response?: <JSON text>, request?: <JSON text>}
    JS::RootedObject obj(cx, &result.toObject());
    out.response_body = StringProperty(cx, obj, "response");
    out.request_body = StringProperty(cx, obj, "request");
    JS_ClearPendingException(cx);
  }
  return out;
}

static UdfResult CallUdfIn(const Script& script, std::string_view args_json, const Limits& limits) {
  UdfResult r;
  Outcome out;
  ThreadEngine& engine = Engine(limits);
  Realm* realm = RealmFor(engine, script, limits, out);
  if (!realm) {
    r.status = out.status;
    r.error = out.error;
    return r;
  }
  JSContext* cx = engine.cx;
  JSAutoRealm ar(cx, realm->global);
  JS::RootedValue result(cx);
  const bool ok = Guarded(engine, nullptr, nullptr, limits, out, [&] {
    JS::RootedString a(cx, NewString(cx, args_json));
    if (!a) return false;
    JS::RootedValueArray<2> args(cx);
    args[0].setObject(*realm->fn);
    args[1].setString(a);
    JS::RootedValue invoke(cx, JS::ObjectValue(*realm->invoke_udf));
    JS::RootedObject global(cx, realm->global);
    return JS_CallFunctionValue(cx, global, invoke, args, &result);
  });
  if (!ok) {
    r.status = out.status;
    r.error = out.error;
    r.error_number = out.error_number;
    return r;
  }
  if (result.isString()) r.json = ToUtf8(cx, result);
  return r;
}

// The engine is replaced only here, once no frame uses it any more.
void ReplaceIfPoisoned() {
  if (t_engine && t_engine->poisoned && t_engine->run.depth == 0) t_engine.reset();
}

Outcome Run(const Script& script, const Execution& e, Host& host, const Limits& limits) {
  Outcome out = RunIn(script, e, host, limits);
  ReplaceIfPoisoned();
  return out;
}

UdfResult CallUdf(const Script& script, std::string_view args_json, const Limits& limits) {
  UdfResult r = CallUdfIn(script, args_json, limits);
  ReplaceIfPoisoned();
  return r;
}

}  // namespace cosmos::scripting
