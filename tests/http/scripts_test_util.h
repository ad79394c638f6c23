// The fixture and helpers of the server-side JavaScript tests (scripts_http_test.cpp,
// scripts_triggers_http_test.cpp): a container, sproc/trigger/UDF calls, and the charge model.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "http_test_util.h"
#include "scripting/engine.h"

namespace cosmos::testing {

inline const std::string kX = R"(["x"])";
inline const std::string kY = R"(["y"])";
inline const std::regex kEtag(R"re("[0-9a-f]{8}-0000-0100-0000-[0-9a-f]{8}0000")re");

// The first database and container of a fresh account.
inline constexpr const char* kDbRid = "AQBAAA==";
inline constexpr const char* kCollRid = "AQBAAIAAAAE=";
inline constexpr const char* kCollSelf = "dbs/AQBAAA==/colls/AQBAAIAAAAE=/";

inline constexpr const char* kOtherPartition =
    "Requests originating from scripts cannot reference partition keys other than the one for which client request "
    "was submitted.";
inline constexpr const char* kExecPrefix = "Encountered exception while executing function. Exception = ";

using json::Quote;

// The charge model of a script run: 5.2 + 0.35 * the standalone charges of what it did, rounded to
// two decimals, written as the x-ms-request-charge header writes numbers.
inline double Round2(double ru) { return std::round(ru * 100.0) / 100.0; }
inline std::string ScriptCharge(double inner) { return json::FormatNumber(Round2(5.2 + 0.35 * inner)); }
inline double Ru(const Reply& r) { return std::stod(r.Charge()); }

inline bool StartsWith(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }
inline bool Contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

class ScriptsTest : public EmulatorTest {
 protected:
  // Compiled scripts are cached per thread by a process-wide script version, so tests cannot see
  // each other's scripts; each still starts from a fresh engine, as the emulator's threads do.
  void SetUp() override {
    scripting::ResetThread();
    MakeDatabase("db");
    MakeContainer("db", "c");
  }
  void TearDown() override { scripting::ResetThread(); }

  static std::string Coll() { return "/dbs/db/colls/c"; }
  static std::string Docs() { return Coll() + "/docs"; }

  // ---- resources ----
  Reply CreateSproc(const std::string& id, const std::string& body) {
    return Post(Coll() + "/sprocs", "{\"id\":" + Quote(id) + ",\"body\":" + Quote(body) + "}");
  }
  Reply CreateTrigger(const std::string& id, const std::string& body, const std::string& type, const std::string& op) {
    return Post(Coll() + "/triggers", "{\"id\":" + Quote(id) + ",\"body\":" + Quote(body) +
                                          ",\"triggerType\":" + Quote(type) + ",\"triggerOperation\":" + Quote(op) +
                                          "}");
  }
  Reply CreateUdf(const std::string& id, const std::string& body) {
    return Post(Coll() + "/udfs", "{\"id\":" + Quote(id) + ",\"body\":" + Quote(body) + "}");
  }
  void Sproc(const std::string& id, const std::string& body) {
    auto r = CreateSproc(id, body);
    ASSERT_EQ(r.status(), 201) << r;
  }
  void Trigger(const std::string& id, const std::string& body, const std::string& type, const std::string& op) {
    auto r = CreateTrigger(id, body, type, op);
    ASSERT_EQ(r.status(), 201) << r;
  }
  void Udf(const std::string& id, const std::string& body) {
    auto r = CreateUdf(id, body);
    ASSERT_EQ(r.status(), 201) << r;
  }

  // ---- execution and items ----
  Reply Exec(const std::string& id, const std::string& params = "[]", const std::string& pk = kX, Headers h = {}) {
    h.emplace_back("x-ms-documentdb-partitionkey", pk);
    return Post(Coll() + "/sprocs/" + id, params, h);
  }
  Reply Create(const std::string& body, const std::string& pk = kX, Headers h = {}) {
    return CreateDoc("db", "c", body, pk, std::move(h));
  }
  Reply Upsert(const std::string& body, const std::string& pk = kX, Headers h = {}) {
    h.emplace_back("x-ms-documentdb-is-upsert", "true");
    return CreateDoc("db", "c", body, pk, std::move(h));
  }
  Reply Replace(const std::string& id, const std::string& body, const std::string& pk = kX, Headers h = {}) {
    h.emplace_back("x-ms-documentdb-partitionkey", pk);
    return Put(Docs() + "/" + id, body, h);
  }
  Reply Remove(const std::string& id, const std::string& pk = kX, Headers h = {}) {
    h.emplace_back("x-ms-documentdb-partitionkey", pk);
    return Delete(Docs() + "/" + id, h);
  }
  Reply Read(const std::string& id, const std::string& pk = kX) {
    return Get(Docs() + "/" + id, {{"x-ms-documentdb-partitionkey", pk}});
  }
  Reply Query(const std::string& text) {
    return Post(Docs(), "{\"query\":" + Quote(text) + "}",
                {{"x-ms-documentdb-isquery", "true"},
                 {"content-type", "application/query+json"},
                 {"x-ms-documentdb-query-enablecrosspartition", "true"}});
  }
  // The Documents array of a query or feed page, as compact JSON.
  static std::string Documents(const Reply& r) {
    auto d = r.Json();
    if (!d.IsObject() || !d.HasMember("Documents")) return "<no Documents: " + r.body() + ">";
    return json::Write(d["Documents"]);
  }
  // The latest-version change feed from the beginning: "id@_lsn" per entry.
  std::string ChangeFeed() {
    auto r = Get(Docs(), {{"A-IM", "Incremental Feed"}});
    if (r.status() == 304) return "";
    auto d = r.Json();
    std::string out;
    for (auto& e : d["Documents"].GetArray()) {
      if (!out.empty()) out += " ";
      out += std::string(e["id"].GetString()) + "@" + std::to_string(e["_lsn"].GetUint64());
    }
    return out;
  }
  // The partition's LSN as a read of the (single) range reports it.
  std::string SessionToken() { return Exec("noop").Header("x-ms-session-token"); }
  static void ExpectBadRequest(const Reply& r, const std::string& substatus = "") {
    EXPECT_EQ(r.status(), 400) << r;
    EXPECT_EQ(r.Code(), "BadRequest") << r;
    if (substatus.empty()) {
      EXPECT_FALSE(r.Has("x-ms-substatus")) << r.Substatus();
    } else {
      EXPECT_EQ(r.Substatus(), substatus) << r;
    }
  }

  // A resource's expected JSON, in the service's key order, from what the server assigned.
  static std::string SprocJson(const std::string& kind, const std::string& body, const std::string& id,
                               const std::string& rid, int64_t ts, const std::string& etag) {
    return "{\"body\":" + Quote(body) + ",\"id\":" + Quote(id) + ",\"_rid\":" + Quote(rid) +
           ",\"_ts\":" + std::to_string(ts) + ",\"_self\":" + Quote(std::string(kCollSelf) + kind + "/" + rid + "/") +
           ",\"_etag\":" + Quote(etag) + "}";
  }
  static std::string TriggerJson(const std::string& body, const std::string& id, const std::string& op,
                                 const std::string& type, const std::string& rid, int64_t ts, const std::string& etag) {
    return "{\"body\":" + Quote(body) + ",\"id\":" + Quote(id) + ",\"triggerOperation\":" + Quote(op) +
           ",\"triggerType\":" + Quote(type) + ",\"_rid\":" + Quote(rid) + ",\"_ts\":" + std::to_string(ts) +
           ",\"_self\":" + Quote(std::string(kCollSelf) + "triggers/" + rid + "/") + ",\"_etag\":" + Quote(etag) +
           "}";
  }

  int64_t Now() const { return wall_.UnixSeconds(); }
};

// Sproc bodies used by several tests.
inline constexpr const char* kNoop = "function () {}";
inline constexpr const char* kEcho =
    "function (a, b, c) { var coll = getContext().getCollection();"
    " getContext().getResponse().setBody({a: a, b: b, c: c, alt: coll.getAltLink(), self: coll.getSelfLink()}); }";
// Creates params[0] (no callback: a failure is rethrown).
inline constexpr const char* kCreateOne =
    "function (doc) { var coll = getContext().getCollection(); coll.createDocument(coll.getSelfLink(), doc); }";

}  // namespace cosmos::testing
