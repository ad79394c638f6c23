// In-process HTTP test harness: builds signed Beast requests and runs them through
// cosmos::http::Handle (no sockets). Signing follows docs/protocol.md §2 with its own path split,
// so the tests do not reuse the pipeline's splitting code.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "faults/faults.h"
#include "http/auth.h"
#include "http/context.h"
#include "http/pipeline.h"
#include "json/json.h"
#include "store/store.h"
#include "util/util.h"

namespace cosmos::testing {

namespace bh = boost::beast::http;

// The well-known emulator key (docs/protocol.md §2).
inline constexpr const char* kEmulatorKey =
    "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw==";

using Headers = std::vector<std::pair<std::string, std::string>>;

// Splits a request target the way docs/protocol.md §2 says clients sign it: strip the query, drop empty
// segments (collapses "//" and the trailing "/"), percent-decode each segment ('+' stays '+').
inline std::vector<std::string> SplitForSigning(std::string_view target) {
  if (auto q = target.find('?'); q != std::string_view::npos) target = target.substr(0, q);
  std::vector<std::string> out;
  std::string cur;
  auto flush = [&] {
    if (!cur.empty()) {
      auto decoded = util::PercentDecode(cur);
      out.push_back(decoded ? *decoded : cur);
    }
    cur.clear();
  };
  for (char c : target) {
    if (c == '/') {
      flush();
    } else {
      cur.push_back(c);
    }
  }
  flush();
  return out;
}

struct Reply {
  http::Response raw;

  int status() const { return static_cast<int>(raw.result_int()); }
  const std::string& body() const { return raw.body(); }
  bool Has(std::string_view name) const {
    return raw.find(boost::beast::string_view(name.data(), name.size())) != raw.end();
  }
  std::string Header(std::string_view name) const {
    auto it = raw.find(boost::beast::string_view(name.data(), name.size()));
    return it == raw.end() ? std::string() : std::string(it->value());
  }
  // x-ms-request-charge exactly as sent.
  std::string Charge() const { return Header("x-ms-request-charge"); }
  std::string Substatus() const { return Header("x-ms-substatus"); }
  // The parsed body (null document when the body is empty or not JSON).
  json::Document Json() const {
    json::Document d;
    if (body().empty() || json::Parse(body(), d) != json::ParseStatus::kOk) d.SetNull();
    return d;
  }
  std::string Code() const {
    auto d = Json();
    if (!d.IsObject() || !d.HasMember("code") || !d["code"].IsString()) return "<no code>";
    return d["code"].GetString();
  }
  std::string Message() const {
    auto d = Json();
    if (!d.IsObject() || !d.HasMember("message") || !d["message"].IsString()) return "<no message>";
    return d["message"].GetString();
  }
  // A string property of the body object ("" when absent).
  std::string Str(const char* name) const {
    auto d = Json();
    if (!d.IsObject() || !d.HasMember(name) || !d[name].IsString()) return "";
    return d[name].GetString();
  }
};

inline std::ostream& operator<<(std::ostream& os, const Reply& r) { return os << r.status() << " " << r.body(); }

// The text inside the service-style message: Message: {"Errors":["<text>"]}\r\nActivityId: ...
inline std::string ErrorText(const Reply& r) {
  std::string m = r.Message();
  if (auto cut = m.find("\r\nActivityId: "); cut != std::string::npos) m.resize(cut);
  const std::string prefix = "Message: ";
  if (m.rfind(prefix, 0) != 0) return "<not wrapped: " + m + ">";
  json::Document d;
  if (json::Parse(m.substr(prefix.size()), d) != json::ParseStatus::kOk || !d.IsObject() || !d.HasMember("Errors") ||
      !d["Errors"].IsArray() || d["Errors"].Empty() || !d["Errors"][0].IsString())
    return "<unreadable: " + m + ">";
  return d["Errors"][0].GetString();
}

struct SignOptions {
  bool sign = true;                 // add an Authorization header
  bool url_encode = true;           // percent-encode the Authorization value
  std::optional<std::string> date = {};  // x-ms-date to send (default: now)
  std::optional<std::string> key = {};   // decoded key to sign with (default: the account key)
  bool send_date = true;            // send the x-ms-date header at all
};

// A request sent without an Authorization header, or signed with another key.
inline SignOptions NoSignature() {
  SignOptions o;
  o.sign = false;
  return o;
}
inline SignOptions SignedWith(std::string key) {
  SignOptions o;
  o.key = std::move(key);
  return o;
}

class EmulatorTest : public ::testing::Test {
 protected:
  EmulatorTest() {
    config_.master_key_b64 = kEmulatorKey;
    config_.master_key = *util::Base64Decode(kEmulatorKey);
    account_.set_clock(&wall_);  // as main does: one clock for every _ts
  }

  static std::string Now() { return util::FormatRfc1123(std::chrono::system_clock::now()); }

  static std::string AuthHeader(const std::string& key, bh::verb verb, std::string_view target, const std::string& date,
                                bool url_encode = true) {
    const std::string verb_text(bh::to_string(verb));
    auto addr = http::AddressFor(verb_text, SplitForSigning(target));
    std::string value = "type=master&ver=1.0&sig=" + http::Sign(key, verb_text, addr, date);
    return url_encode ? util::PercentEncode(value) : value;
  }

  http::Request Build(bh::verb verb, std::string_view target, std::string body = "", const Headers& headers = {},
                      const SignOptions& opt = {}) const {
    http::Request req{verb, boost::beast::string_view(target.data(), target.size()), 11};
    req.set(bh::field::host, "localhost:8081");
    req.set("x-ms-version", "2020-07-15");
    const std::string date = opt.date ? *opt.date : Now();
    if (opt.send_date) req.set("x-ms-date", date);
    if (opt.sign)
      req.set(bh::field::authorization,
              AuthHeader(opt.key ? *opt.key : config_.master_key, verb, target, date, opt.url_encode));
    if (!body.empty() || verb == bh::verb::post || verb == bh::verb::put) {
      req.set(bh::field::content_type, "application/json");
    }
    for (auto& [k, v] : headers) req.set(k, v);
    req.body() = std::move(body);
    req.prepare_payload();
    return req;
  }

  Reply Send(const http::Request& req) { return Reply{http::Handle(services_, req, false, nullptr, compute_endpoint_)}; }

  Reply Call(bh::verb verb, std::string_view target, std::string body = "", const Headers& headers = {},
             const SignOptions& opt = {}) {
    return Send(Build(verb, target, std::move(body), headers, opt));
  }
  Reply Get(std::string_view target, const Headers& headers = {}) { return Call(bh::verb::get, target, "", headers); }
  Reply Post(std::string_view target, std::string body, const Headers& headers = {}) {
    return Call(bh::verb::post, target, std::move(body), headers);
  }
  Reply Put(std::string_view target, std::string body, const Headers& headers = {}) {
    return Call(bh::verb::put, target, std::move(body), headers);
  }
  Reply Patch(std::string_view target, std::string body, const Headers& headers = {}) {
    return Call(bh::verb::patch, target, std::move(body), headers);
  }
  Reply Delete(std::string_view target, const Headers& headers = {}) {
    return Call(bh::verb::delete_, target, "", headers);
  }

  // Setup helpers that must succeed.
  void MakeDatabase(const std::string& db, const Headers& headers = {}) {
    auto r = Post("/dbs", "{\"id\":\"" + db + "\"}", headers);
    ASSERT_EQ(r.status(), 201) << r;
  }
  void MakeContainer(const std::string& db, const std::string& coll, const std::string& extra = "",
                     const std::string& pk_json = R"({"paths":["/pk"]})") {
    std::string body = "{\"id\":\"" + coll + "\"";
    if (!pk_json.empty()) body += ",\"partitionKey\":" + pk_json;
    if (!extra.empty()) body += "," + extra;
    body += "}";
    auto r = Post("/dbs/" + db + "/colls", body);
    ASSERT_EQ(r.status(), 201) << r;
  }
  Reply CreateDoc(const std::string& db, const std::string& coll, const std::string& body, const std::string& pk,
                  Headers headers = {}) {
    headers.emplace_back("x-ms-documentdb-partitionkey", pk);
    return Post("/dbs/" + db + "/colls/" + coll + "/docs", body, headers);
  }

  store::Account account_;
  http::Config config_;
  throughput::ManualClock clock_{1'000'000};
  throughput::RateLimiter limiter_{clock_};
  std::vector<std::string> warnings_;
  stats::Report stats_{[this](const std::string& line) { warnings_.push_back(line); }};
  // Stands still at the instant the test started: TTL tests move it with wall_.Advance().
  util::WallClock wall_{util::UnixMillis()};
  faults::Injector faults_;
  http::Services services_{account_, config_, limiter_, stats_, wall_, &faults_};
  bool compute_endpoint_ = false;  // requests go to the SQL compute endpoint (--compute-port)
};

}  // namespace cosmos::testing
