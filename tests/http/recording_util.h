// Loads the real service's recorded exchanges (tests/data/real-service-recordings, format and
// provenance in tests/data/README.md) and replays their requests against Handle(), re-signed with a
// fresh date.
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>

#include "http_test_util.h"

#ifndef COSMOS_TEST_DATA
#error "COSMOS_TEST_DATA must name the tests/data folder (tests/CMakeLists.txt defines it)"
#endif

namespace cosmos::testing {

struct Recording {
  std::string file;
  std::string method;
  std::string path;
  Headers headers;  // request headers (first value of each), without Authorization
  bool signed_request = false;
  std::optional<std::string> body;
  int status = 0;
  Headers response_headers;
  std::string response_body;

  std::optional<std::string> ResponseHeader(std::string_view name) const {
    for (auto& [k, v] : response_headers) {
      if (util::EqualsIgnoreCase(k, name)) return v;
    }
    return std::nullopt;
  }
  std::optional<std::string> RequestHeader(std::string_view name) const {
    for (auto& [k, v] : headers) {
      if (util::EqualsIgnoreCase(k, name)) return v;
    }
    return std::nullopt;
  }
  // The recorded error code ("" when the body has none).
  std::string Code() const {
    json::Document d;
    if (json::Parse(response_body, d) != json::ParseStatus::kOk || !d.IsObject() || !d.HasMember("code")) return "";
    return d["code"].GetString();
  }
  json::Document ResponseJson() const {
    json::Document d;
    if (json::Parse(response_body, d) != json::ParseStatus::kOk) d.SetNull();
    return d;
  }
};

inline std::filesystem::path RecordingsDir() {
  return std::filesystem::path(COSMOS_TEST_DATA) / "real-service-recordings";
}

inline Headers ReadHeaderMap(const json::Value& v) {
  Headers out;
  if (!v.IsObject()) return out;
  for (auto& m : v.GetObject()) {
    if (m.value.IsArray() && !m.value.Empty() && m.value[0].IsString())
      out.emplace_back(m.name.GetString(), m.value[0].GetString());
  }
  return out;
}

// Loads cosmos-NNN-*.json; fails the calling test when it is missing or unreadable.
inline std::optional<Recording> LoadRecording(int number) {
  char prefix[32];
  std::snprintf(prefix, sizeof prefix, "cosmos-%03d-", number);
  std::filesystem::path found;
  for (auto& entry : std::filesystem::directory_iterator(RecordingsDir())) {
    auto name = entry.path().filename().string();
    if (name.rfind(prefix, 0) == 0 && entry.path().extension() == ".json") found = entry.path();
  }
  if (found.empty()) {
    ADD_FAILURE() << "no recording " << prefix << "*.json in " << RecordingsDir();
    return std::nullopt;
  }
  std::ifstream in(found, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  if (text.rfind("\xEF\xBB\xBF", 0) == 0) text.erase(0, 3);
  json::Document d;
  if (json::Parse(text, d) != json::ParseStatus::kOk || !d.IsObject()) {
    ADD_FAILURE() << "unreadable recording " << found;
    return std::nullopt;
  }
  Recording r;
  r.file = found.filename().string();
  const auto& req = d["request"];
  const auto& res = d["response"];
  r.method = req["method"].GetString();
  r.path = req["path"].GetString();
  for (auto& [k, v] : ReadHeaderMap(req["header"])) {
    if (util::EqualsIgnoreCase(k, "authorization")) {
      r.signed_request = true;
      continue;
    }
    r.headers.emplace_back(k, v);
  }
  if (req.HasMember("body") && req["body"].IsString()) r.body = req["body"].GetString();
  r.status = res["status"].GetInt();
  r.response_headers = ReadHeaderMap(res["header"]);
  if (res.HasMember("body") && res["body"].IsString()) r.response_body = res["body"].GetString();
  return r;
}

class RecordingTest : public EmulatorTest {
 protected:
  // The recordings are part of the repository: without them the replay checks fail, never skip.
  void SetUp() override {
    ASSERT_TRUE(std::filesystem::is_directory(RecordingsDir()))
        << "real-service recordings not found at " << RecordingsDir() << " (COSMOS_TEST_DATA, tests/data/README.md)";
  }

  // Replays the recorded request: same method, path, headers and body; a fresh x-ms-date and a
  // real signature when the recording was signed. `overrides` replace recorded headers.
  Reply Replay(const Recording& rec, const Headers& overrides = {}) {
    const bh::verb verb = bh::string_to_verb(rec.method);
    EXPECT_NE(verb, bh::verb::unknown) << rec.method;
    const std::string date = util::ToLower(Now());  // the recordings send lower-case dates
    http::Request req{verb, boost::beast::string_view(rec.path.data(), rec.path.size()), 11};
    req.set(bh::field::host, "localhost:8081");  // every HTTP/1.1 request names its host
    for (auto& [k, v] : rec.headers) {
      if (util::EqualsIgnoreCase(k, "x-ms-date") || util::EqualsIgnoreCase(k, "content-length")) continue;
      req.set(k, v);
    }
    for (auto& [k, v] : overrides) req.set(k, v);
    if (rec.RequestHeader("x-ms-date")) req.set("x-ms-date", date);
    if (rec.signed_request) req.set(bh::field::authorization, AuthHeader(config_.master_key, verb, rec.path, date));
    if (rec.body) req.body() = *rec.body;
    req.prepare_payload();
    return Send(req);
  }

  // Status, substatus and error code as the service answered.
  void ExpectSameOutcome(const Recording& rec, const Reply& r) {
    SCOPED_TRACE(rec.file);
    EXPECT_EQ(r.status(), rec.status) << r;
    auto sub = rec.ResponseHeader("x-ms-substatus");
    EXPECT_EQ(r.Has("x-ms-substatus"), sub.has_value()) << r.Substatus();
    if (sub) {
      EXPECT_EQ(r.Substatus(), *sub);
    }
    const std::string code = rec.Code();
    if (!code.empty()) {
      EXPECT_EQ(r.Code(), code) << r;
    }
    if (rec.status == 204 || rec.status == 304) {
      EXPECT_EQ(r.body(), "");
    }
    // Content-Location: the URL the request addressed (here http://localhost:8081), where the
    // service sent one (every verb but POST).
    auto location = rec.ResponseHeader("content-location");
    EXPECT_EQ(r.Has("content-location"), location.has_value()) << r;
    if (location) {
      const size_t host = location->find("://");
      const size_t path = location->find('/', host == std::string::npos ? 0 : host + 3);
      EXPECT_EQ(r.Header("content-location"), "http://localhost:8081" + location->substr(path));
    }
  }

  // Also the request charge, for the flat charges the emulator takes from the service.
  void ExpectSameCharge(const Recording& rec, const Reply& r) {
    SCOPED_TRACE(rec.file);
    auto charge = rec.ResponseHeader("x-ms-request-charge");
    ASSERT_TRUE(charge.has_value()) << "recording has no charge";
    EXPECT_EQ(r.Charge(), *charge);
  }

  // Replays recording `number` and checks the outcome (and the charge when asked); returns the reply.
  Reply Check(int number, bool charge = false, const Headers& overrides = {}) {
    auto rec = LoadRecording(number);
    if (!rec) return Reply{};
    auto r = Replay(*rec, overrides);
    ExpectSameOutcome(*rec, r);
    if (charge) ExpectSameCharge(*rec, r);
    return r;
  }
};

}  // namespace cosmos::testing
