// The JavaScript engine alone, with a recording host: the server-side API's shape, callbacks,
// errors, and each limit.
#include "scripting/engine.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

namespace cosmos::scripting {
namespace {

// Answers every operation with a canned reply and records what it was asked.
class FakeHost : public Host {
 public:
  std::string Call(std::string_view op, std::string_view args) override {
    calls.push_back(std::string(op) + " " + std::string(args));
    if (op == "read") return R"({"result":{"id":"a","n":1},"options":{}})";
    if (op == "create") return R"({"error":{"number":409,"code":"Conflict","message":"Entity with the specified id already exists in the system."}})";
    if (op == "query" || op == "readFeed") return R"({"result":[{"id":"a","n":3},{"id":"b","n":1},{"id":"c","n":2}],"options":{"continuation":"next"}})";
    return R"({"result":{},"options":{}})";
  }
  std::vector<std::string> calls;
};

Execution Sproc(std::string params = "[]") {
  Execution e;
  e.self_link = "dbs/AAAA==/colls/AAAAAA==/";
  e.alt_link = "dbs/db/colls/c";
  e.params_json = std::move(params);
  e.logging = true;
  return e;
}

int counter = 0;
Script S(std::string_view body) { return Script{"test-" + std::to_string(++counter), body}; }

TEST(ScriptingTest, ModernSyntaxAndResponseBody) {
  FakeHost host;
  auto out = scripting::Run(S(R"(function hello(name) {
      const greet = (n) => `hello ${n}`;
      let parts = [1, 2, 3].map((x) => x * 2);
      getContext().getResponse().setBody({ greeting: greet(name), parts, alt: getContext().getCollection().getAltLink() });
    })"),
                 Sproc(R"(["world"])"), host, Limits{});
  ASSERT_EQ(out.status, Outcome::Status::kOk) << out.error;
  EXPECT_EQ(*out.response_body, R"({"greeting":"hello world","parts":[2,4,6],"alt":"dbs/db/colls/c"})");
}

TEST(ScriptingTest, NoBodyMeansAnEmptyString) {
  FakeHost host;
  auto out = scripting::Run(S("function () {}"), Sproc(), host, Limits{});
  ASSERT_EQ(out.status, Outcome::Status::kOk) << out.error;
  EXPECT_EQ(*out.response_body, "\"\"");
}

TEST(ScriptingTest, CallbacksRunAfterTheCallerReturns) {
  FakeHost host;
  auto out = scripting::Run(S(R"(function () {
      const order = [];
      const coll = getContext().getCollection();
      const accepted = coll.readDocument(`${coll.getAltLink()}/docs/a`, (err, doc, opts) => {
        order.push('callback:' + doc.n + ':' + (err === undefined));
        getContext().getResponse().setBody(order);
      });
      order.push('after:' + accepted);
    })"),
                 Sproc(), host, Limits{});
  ASSERT_EQ(out.status, Outcome::Status::kOk) << out.error;
  EXPECT_EQ(*out.response_body, R"(["after:true","callback:1:true"])");
  ASSERT_EQ(host.calls.size(), 1u);
  EXPECT_EQ(host.calls[0], R"(read {"link":"dbs/db/colls/c/docs/a","options":{}})");
}

TEST(ScriptingTest, OperationErrorReachesTheCallbackAndARethrowCarriesItsNumber) {
  FakeHost host;
  auto out = scripting::Run(S(R"(function () {
      getContext().getCollection().createDocument(getContext().getCollection().getSelfLink(), { id: 'a' }, (err) => {
        if (err) throw err;
      });
    })"),
                 Sproc(), host, Limits{});
  ASSERT_EQ(out.status, Outcome::Status::kThrew);
  EXPECT_EQ(out.error_number, 409);
  EXPECT_EQ(out.error.rfind("Error: Entity with the specified id already exists in the system.", 0), 0u) << out.error;
}

TEST(ScriptingTest, FailedOperationWithoutCallbackFailsTheScript) {
  FakeHost host;
  auto out = scripting::Run(S("function () { getContext().getCollection().createDocument('dbs/db/colls/c', { id: 'a' }); }"), Sproc(),
                 host, Limits{});
  ASSERT_EQ(out.status, Outcome::Status::kThrew);
  EXPECT_EQ(out.error_number, 409);
}

TEST(ScriptingTest, ErrorWithANumber) {
  FakeHost host;
  auto out = scripting::Run(S("function () { const e = new Error(1234, 'custom'); if (!(e instanceof Error)) throw 'no'; throw e; }"),
                            Sproc(), host, Limits{});
  ASSERT_EQ(out.status, Outcome::Status::kThrew);
  EXPECT_EQ(out.error_number, 1234);
  EXPECT_EQ(out.error.rfind("Error: custom\r\n", 0), 0u) << out.error;
  auto sub = scripting::Run(S("function () { class Mine extends Error {}; const m = new Mine('x'); if (!(m instanceof Mine)) throw 'bad'; }"),
                            Sproc(), host, Limits{});
  EXPECT_EQ(sub.status, Outcome::Status::kOk) << sub.error;
}

TEST(ScriptingTest, ThrowStringAndError) {
  FakeHost host;
  auto a = scripting::Run(S("function () { throw new Error('boom'); }"), Sproc(), host, Limits{});
  ASSERT_EQ(a.status, Outcome::Status::kThrew);
  EXPECT_EQ(a.error.rfind("Error: boom\r\nStack trace: ", 0), 0u) << a.error;
  EXPECT_FALSE(a.error_number.has_value());
  auto b = scripting::Run(S("function () { throw 'plain'; }"), Sproc(), host, Limits{});
  ASSERT_EQ(b.status, Outcome::Status::kThrew);
  EXPECT_EQ(b.error, "plain");
}

TEST(ScriptingTest, UnderscoreQueryApi) {
  FakeHost host;
  auto out = scripting::Run(S(R"(function () {
      const r = __.chain().filter((d) => d.n > 1).sortBy('n').pluck('id').value((err, ids, opts) => {
        getContext().getResponse().setBody({ ids, continuation: opts.continuation });
      });
      if (!r.isAccepted) throw new Error('not accepted');
    })"),
                 Sproc(), host, Limits{});
  ASSERT_EQ(out.status, Outcome::Status::kOk) << out.error;
  EXPECT_EQ(*out.response_body, R"({"ids":["c","a"],"continuation":"next"})");
}

TEST(ScriptingTest, ConsoleLog) {
  FakeHost host;
  auto out = scripting::Run(S("function () { console.log('a', 1, {x: true}); console.log(`b %s=%s %% %s`, 'x', 2); }"),
                            Sproc(), host, Limits{});
  ASSERT_EQ(out.status, Outcome::Status::kOk) << out.error;
  EXPECT_EQ(out.log, "a 1 {\"x\":true}b x=2 % %s");
  Execution quiet = Sproc();
  quiet.logging = false;
  auto none = scripting::Run(S("function () { console.log('a'); }"), quiet, host, Limits{});
  EXPECT_EQ(none.log, "");
}

TEST(ScriptingTest, GlobalsDoNotLeakBetweenScripts) {
  FakeHost host;
  auto a = scripting::Run(S("function () { globalThis.leak = 1; }"), Sproc(), host, Limits{});
  ASSERT_EQ(a.status, Outcome::Status::kOk) << a.error;
  auto b = scripting::Run(S("function () { getContext().getResponse().setBody(typeof leak); }"), Sproc(), host, Limits{});
  EXPECT_EQ(*b.response_body, "\"undefined\"");
  auto c = scripting::Run(S("function () { getContext = null; }"), Sproc(), host, Limits{});
  EXPECT_EQ(c.status, Outcome::Status::kOk);  // sloppy mode: the assignment is ignored
}

TEST(ScriptingTest, SeveralFunctionsRunTheFirst) {
  FakeHost host;
  auto out = scripting::Run(S("function main(x) { getContext().getResponse().setBody(helper(x)); }\nfunction helper(x) { return x + 1; }"),
                 Sproc("[41]"), host, Limits{});
  ASSERT_EQ(out.status, Outcome::Status::kOk) << out.error;
  EXPECT_EQ(*out.response_body, "42");
}

TEST(ScriptingTest, InvalidBody) {
  FakeHost host;
  auto out = scripting::Run(S("this is not javascript"), Sproc(), host, Limits{});
  EXPECT_EQ(out.status, Outcome::Status::kInvalidScript);
  EXPECT_NE(out.error.find("SyntaxError"), std::string::npos) << out.error;
}

TEST(ScriptingTest, InfiniteLoopIsStoppedAndTheThreadRecovers) {
  FakeHost host;
  Limits limits;
  limits.timeout = std::chrono::milliseconds(200);
  const auto start = std::chrono::steady_clock::now();
  auto out = scripting::Run(S("function () { while (true) {} }"), Sproc(), host, limits);
  const auto took = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(out.status, Outcome::Status::kTimedOut);
  EXPECT_LT(took, std::chrono::seconds(2));
  auto after = scripting::Run(S("function () { getContext().getResponse().setBody(1); }"), Sproc(), host, Limits{});
  ASSERT_EQ(after.status, Outcome::Status::kOk) << after.error;
  EXPECT_EQ(*after.response_body, "1");
}

TEST(ScriptingTest, HugeAllocationIsStopped) {
  FakeHost host;
  Limits limits;
  limits.memory_bytes = 64u << 20;
  auto out = scripting::Run(S("function () { const a = []; for (;;) a.push(new Array(1 << 20).fill(a.length)); }"), Sproc(), host, limits);
  EXPECT_EQ(out.status, Outcome::Status::kOutOfMemory);
  auto after = scripting::Run(S("function () { getContext().getResponse().setBody(2); }"), Sproc(), host, Limits{});
  EXPECT_EQ(*after.response_body, "2");
}

TEST(ScriptingTest, DeepRecursionThrows) {
  FakeHost host;
  auto out = scripting::Run(S("function () { const f = (n) => f(n + 1) + 1; f(0); }"), Sproc(), host, Limits{});
  ASSERT_EQ(out.status, Outcome::Status::kThrew);
  EXPECT_NE(out.error.find("too much recursion"), std::string::npos) << out.error;
}

TEST(ScriptingTest, OperationsNearTheDeadlineAreNotAccepted) {
  FakeHost host;
  Limits limits;
  limits.timeout = std::chrono::milliseconds(300);
  auto out = scripting::Run(S(R"(function () {
      const coll = getContext().getCollection();
      let n = 0;
      const start = Date.now();
      while (coll.readDocument('dbs/db/colls/c/docs/a', () => {})) { n++; }
      getContext().getResponse().setBody({ n, ms: Date.now() - start });
    })"),
                 Sproc(), host, limits);
  ASSERT_EQ(out.status, Outcome::Status::kOk) << out.error;
  EXPECT_NE(out.response_body->find("\"n\":"), std::string::npos);
}

TEST(ScriptingTest, Udf) {
  auto ok = CallUdf(S("function tax(income) { return income * 0.1; }"), "[1000]", Limits{});
  ASSERT_EQ(ok.status, Outcome::Status::kOk) << ok.error;
  EXPECT_EQ(ok.json, "100");
  auto undef = CallUdf(S("function () { return undefined; }"), "[]", Limits{});
  EXPECT_EQ(undef.json, "");
  auto err = CallUdf(S("function (x) { throw new Error('bad ' + x); }"), "[1]", Limits{});
  EXPECT_EQ(err.status, Outcome::Status::kThrew);
  EXPECT_EQ(err.error.rfind("Error: bad 1", 0), 0u);
  auto ctx = CallUdf(S("function () { return getContext().getCollection(); }"), "[]", Limits{});
  EXPECT_EQ(ctx.status, Outcome::Status::kThrew);
}

// A user-defined function ends at Limits::deadline (its query page's) long before its own time
// limit, and when the cancel flag turns; either is reported as the time limit, and the thread's
// next call runs.
TEST(ScriptingTest, UdfEndsAtTheDeadlineOrTheCancel) {
  Limits limits;
  limits.timeout = std::chrono::seconds(60);
  limits.deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(100);
  auto t0 = std::chrono::steady_clock::now();
  auto out = CallUdf(S("function () { while (true) {} }"), "[]", limits);
  EXPECT_EQ(out.status, Outcome::Status::kTimedOut);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(2));

  std::atomic<bool> cancelled{false};
  Limits cancellable;
  cancellable.timeout = std::chrono::seconds(60);
  cancellable.cancelled = &cancelled;
  std::thread canceller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    cancelled = true;
  });
  t0 = std::chrono::steady_clock::now();
  out = CallUdf(S("function () { while (true) {} }"), "[]", cancellable);
  canceller.join();
  EXPECT_EQ(out.status, Outcome::Status::kTimedOut);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(2));

  auto ok = CallUdf(S("function (x) { return x + 1; }"), "[1]", Limits{});
  ASSERT_EQ(ok.status, Outcome::Status::kOk) << ok.error;
  EXPECT_EQ(ok.json, "2");
}

TEST(ScriptingTest, EachThreadHasItsOwnContext) {
  std::vector<std::thread> threads;
  std::vector<std::string> bodies(4);
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([&, i] {
      FakeHost host;
      for (int k = 0; k < 50; ++k) {
        auto out = scripting::Run(Script{"shared-sum", "function (a, b) { getContext().getResponse().setBody(a + b); }"},
                       Sproc("[" + std::to_string(i) + "," + std::to_string(k) + "]"), host, Limits{});
        if (k == 49) bodies[i] = out.response_body.value_or("");
      }
      ResetThread();
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(bodies, (std::vector<std::string>{"49", "50", "51", "52"}));
}

}  // namespace
}  // namespace cosmos::scripting
