// direct_load: closed-loop point reads of one item against a running emulator, over the gateway
// (HTTPS/1.1, keep-alive) or over Direct mode (RNTBD over TLS), the way wrk loads a server: C
// connections, each with ONE request outstanding (the next is written when the answer is read),
// for D seconds after W seconds of untimed warm-up, on T client threads.
//
//   gateway  GET /dbs/DB/colls/COLL/docs/DOC with x-ms-date, x-ms-version 2020-07-15,
//            x-ms-documentdb-partitionkey and the master-key signature (bench/sign.py's).
//   direct   RNTBD as the Java SDK sends it (notes: rntbd-spec.md §3-5, 7, 8): on each connection
//            the context request (ProtocolVersion 1, ClientVersion, UserAgent), then Read (3) of a
//            Document (3) with AuthorizationToken (the same signature as the GET's), PayloadPresent
//            0, Date, ConsistencyLevel Session, ReplicaPath (from the address feed, as the SDK
//            takes it: the physcialUri's path without its trailing slash), DatabaseName,
//            CollectionName, DocumentName, PartitionKey, CollectionRid (the container's _rid) and
//            a TransportRequestID unique to each request; the answer must echo it.
//
// Before the load it reads (over HTTPS, signed) the container for its _rid and the item, which
// must exist (bench/run.sh creates them), and in direct mode the address feed
// (GET /addresses/?$resolveFor=dbs/{dbRid}/colls/{collRid}/docs&$filter=protocol eq rntbd
// &$partitionKeyRangeIds=0), which also gives the Direct port. The connections are opened, their
// TLS handshakes (and contexts) done, before the clock starts.
//
// Every answer must be 200: anything else, or a broken connection, counts as an error, and the
// exit status is then 1. TLS: with --cafile (the emulator's --cert-export file) the certificate and
// the host are verified; without it verification is skipped (a benchmark on loopback).
//
// Usage:
//   direct_load --mode gateway|direct [--host 127.0.0.1] [--port 8081] [--direct-port N]
//               [--connections 32] [--threads 2] [--duration 5] [--warmup 1] [--cafile PEM]
//               [--key BASE64] [--db bench] [--coll c] [--doc item1] [--pk '["p1"]']
//
// Output: a readable summary, then one machine-readable line:
//   BENCH mode=direct rps=... p50_us=... p90_us=... p99_us=... requests=... errors=... bytes=...
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <iostream>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

#include "rntbd/constants.h"
#include "rntbd/message.h"

namespace {

namespace asio = boost::asio;
namespace rntbd = cosmos::rntbd;
namespace beast = boost::beast;
namespace http = beast::http;
namespace ssl = asio::ssl;
using tcp = asio::ip::tcp;
using Clock = std::chrono::steady_clock;
using Stream = beast::ssl_stream<beast::tcp_stream>;

constexpr const char* kDefaultKey =
    "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw==";
constexpr const char* kVersion = "2020-07-15";
constexpr const char* kUserAgent = "cosmos-emulator-bench/direct_load";

struct Options {
  std::string mode;
  std::string host = "127.0.0.1";
  uint16_t port = 8081;
  uint16_t direct_port = 0;  // 0: the address feed's
  int connections = 32;
  int threads = 2;
  double duration = 5;
  double warmup = 1;
  std::string cafile;
  std::string key = kDefaultKey;
  std::string db = "bench", coll = "c", doc = "item1", pk = R"(["p1"])";
};

[[noreturn]] void Die(const std::string& why) {
  std::cerr << "direct_load: " << why << "\n";
  std::exit(2);
}

// --- signing (bench/sign.py) ---------------------------------------------------------------------

std::string Base64(const unsigned char* data, size_t n) {
  std::string out(4 * ((n + 2) / 3) + 1, '\0');
  const int m = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()), data, static_cast<int>(n));
  out.resize(static_cast<size_t>(m));
  return out;
}

std::string Unbase64(const std::string& text) {
  std::string out(3 * text.size() / 4 + 3, '\0');
  const int m = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(text.data()), static_cast<int>(text.size()));
  if (m < 0) Die("the key is not base64");
  size_t pad = 0;
  for (auto it = text.rbegin(); it != text.rend() && *it == '='; ++it) ++pad;
  out.resize(static_cast<size_t>(m) - pad);
  return out;
}

std::string UrlEncode(std::string_view s) {  // everything but unreserved characters
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

std::string Rfc1123Now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  static constexpr const char* kDays[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
  static constexpr const char* kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                            "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  char buf[64];
  std::snprintf(buf, sizeof buf, "%s, %02d %s %04d %02d:%02d:%02d GMT", kDays[tm.tm_wday], tm.tm_mday,
                kMonths[tm.tm_mon], tm.tm_year + 1900, tm.tm_hour, tm.tm_min, tm.tm_sec);
  return buf;
}

std::string Lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// The URL-encoded `type=master&ver=1.0&sig=...` for "verb\ntype\nlink\n<lower-case date>\n\n".
std::string Sign(const std::string& key_raw, const std::string& verb, const std::string& type,
                 const std::string& link, const std::string& date) {
  const std::string text = Lower(verb) + "\n" + Lower(type) + "\n" + link + "\n" + Lower(date) + "\n\n";
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int mac_len = 0;
  if (!HMAC(EVP_sha256(), key_raw.data(), static_cast<int>(key_raw.size()),
            reinterpret_cast<const unsigned char*>(text.data()), text.size(), mac, &mac_len))
    Die("HMAC failed");
  return UrlEncode("type=master&ver=1.0&sig=" + Base64(mac, mac_len));
}

// --- a little JSON: the string value of the first "key" at or after `from` ------------------------

std::optional<std::string> JsonString(std::string_view json, std::string_view key, size_t from = 0) {
  const std::string quoted = "\"" + std::string(key) + "\"";
  size_t at = json.find(quoted, from);
  if (at == std::string_view::npos) return std::nullopt;
  at += quoted.size();
  while (at < json.size() && (json[at] == ' ' || json[at] == ':')) ++at;
  if (at >= json.size() || json[at] != '"') return std::nullopt;
  std::string out;
  for (++at; at < json.size() && json[at] != '"'; ++at) {
    if (json[at] == '\\' && at + 1 < json.size()) ++at;  // \/ and \" (rids and URIs need no more)
    out += json[at];
  }
  return out;
}

// --- TLS ------------------------------------------------------------------------------------------

std::shared_ptr<ssl::context> MakeTls(const Options& o) {
  auto tls = std::make_shared<ssl::context>(ssl::context::tls_client);
  if (o.cafile.empty()) {
    tls->set_verify_mode(ssl::verify_none);  // loopback benchmark: no verification
  } else {
    tls->load_verify_file(o.cafile);
    tls->set_verify_mode(ssl::verify_peer);
  }
  return tls;
}

void PrepareTls(Stream& stream, const Options& o) {
  if (o.cafile.empty()) return;
  stream.set_verify_callback(ssl::host_name_verification(o.host));
  beast::error_code ec;
  asio::ip::make_address(o.host, ec);
  if (ec) SSL_set_tlsext_host_name(stream.native_handle(), o.host.c_str());  // SNI for a name, not an address
}

// --- setup over HTTPS (one connection a request) ----------------------------------------------------

struct Reply {
  int status = 0;
  std::string body;
};

Reply Fetch(asio::io_context& ioc, ssl::context& tls, const Options& o, const std::string& target,
            const std::string& type, const std::string& link) {
  Stream stream(ioc, tls);
  PrepareTls(stream, o);
  tcp::resolver resolver(ioc);
  beast::get_lowest_layer(stream).expires_after(std::chrono::seconds(10));
  beast::get_lowest_layer(stream).connect(resolver.resolve(o.host, std::to_string(o.port)));
  stream.handshake(ssl::stream_base::client);
  const std::string date = Rfc1123Now();
  http::request<http::empty_body> req{http::verb::get, target, 11};
  req.set(http::field::host, o.host + ":" + std::to_string(o.port));
  req.set("x-ms-date", date);
  req.set("x-ms-version", kVersion);
  req.set(http::field::authorization, Sign(Unbase64(o.key), "get", type, link, date));
  req.set("x-ms-documentdb-partitionkey", o.pk);
  req.set(http::field::accept, "application/json");
  req.keep_alive(false);
  http::write(stream, req);
  beast::flat_buffer buffer;
  http::response<http::string_body> res;
  http::read(stream, buffer, res);
  beast::error_code ignored;
  stream.shutdown(ignored);
  return {static_cast<int>(res.result_int()), std::move(res.body())};
}

// What the load needs: the container's rid and, for Direct mode, the replica's port and path.
struct Target {
  std::string coll_rid;
  uint16_t direct_port = 0;
  std::string replica_path;
  size_t item_bytes = 0;
};

Target Setup(const Options& o) {
  asio::io_context ioc;
  auto tls = MakeTls(o);
  Target t;
  const std::string coll_link = "dbs/" + o.db + "/colls/" + o.coll;
  Reply coll = Fetch(ioc, *tls, o, "/" + coll_link, "colls", coll_link);
  if (coll.status != 200) Die("GET /" + coll_link + ": HTTP " + std::to_string(coll.status) + " " + coll.body);
  t.coll_rid = JsonString(coll.body, "_rid").value_or("");
  const std::string self = JsonString(coll.body, "_self").value_or("");  // dbs/<dbRid>/colls/<collRid>/
  if (t.coll_rid.empty() || self.rfind("dbs/", 0) != 0) Die("the container has no _rid or _self: " + coll.body);
  const std::string db_rid = self.substr(4, self.find('/', 4) - 4);
  const std::string doc_link = coll_link + "/docs/" + o.doc;
  Reply item = Fetch(ioc, *tls, o, "/" + doc_link, "docs", doc_link);
  if (item.status != 200) Die("GET /" + doc_link + ": HTTP " + std::to_string(item.status) + " " + item.body);
  t.item_bytes = item.body.size();
  std::cout << "container " << coll_link << ": _rid " << t.coll_rid << " (database _rid " << db_rid << "); item "
            << o.doc << ": " << t.item_bytes << " bytes\n";
  if (o.mode != "direct") return t;

  const std::string resolve_for = "dbs/" + db_rid + "/colls/" + t.coll_rid + "/docs";
  const std::string target = "/addresses/?$resolveFor=" + UrlEncode(resolve_for) +
                             "&$filter=protocol%20eq%20rntbd&$partitionKeyRangeIds=0";
  Reply feed = Fetch(ioc, *tls, o, target, "docs", Lower(t.coll_rid));
  if (feed.status != 200) Die("GET " + target + ": HTTP " + std::to_string(feed.status) + " " + feed.body);
  const size_t list = feed.body.find("\"Addresss\"");
  auto uri = list == std::string::npos ? std::nullopt : JsonString(feed.body, "physcialUri", list);
  if (!uri) Die("the address feed has no Addresss[0].physcialUri: " + feed.body);
  // rntbd://host:port/path/ -> port, /path
  const size_t scheme = uri->find("://");
  const size_t path = uri->find('/', scheme == std::string::npos ? 0 : scheme + 3);
  if (scheme == std::string::npos || path == std::string::npos) Die("physcialUri without a path: " + *uri);
  const std::string authority = uri->substr(scheme + 3, path - scheme - 3);
  const size_t colon = authority.rfind(':');
  t.direct_port = o.direct_port ? o.direct_port
                                : static_cast<uint16_t>(colon == std::string::npos ? 0 : std::stoi(authority.substr(colon + 1)));
  t.replica_path = uri->substr(path);
  while (t.replica_path.size() > 1 && t.replica_path.back() == '/') t.replica_path.pop_back();
  if (!t.direct_port) Die("no Direct port in " + *uri);
  std::cout << "address feed: " << *uri << " -> port " << t.direct_port << ", ReplicaPath " << t.replica_path << "\n";
  return t;
}

// --- the load -------------------------------------------------------------------------------------

// Shared by the connections: when to measure and stop, and what went wrong.
struct Run {
  Clock::time_point measure_from;  // requests started before it are warm-up, not counted
  Clock::time_point stop_at;       // no request starts after it
  std::atomic<uint32_t> next_transport_id{1};
  std::atomic<uint64_t> errors{0};
  std::mutex mutex;
  std::string first_error;

  void Error(const std::string& why) {
    if (errors.fetch_add(1) == 0) {
      std::lock_guard lock(mutex);
      first_error = why;
    }
  }
};

struct Conn {
  Conn(asio::io_context& ioc, ssl::context& tls) : stream(asio::make_strand(ioc), tls) {}
  Stream stream;
  beast::flat_buffer buffer;
  std::vector<uint32_t> latencies_us;  // of the measured requests
  uint64_t bytes = 0;                  // answer bytes of the measured requests
  Clock::time_point last_done{};
  bool ok = false;  // connected (and the context negotiated)
};

constexpr auto kNoThrow = asio::as_tuple(asio::use_awaitable);
using asio::awaitable;

// Reads until the buffer holds n bytes.
awaitable<beast::error_code> Fill(Conn& c, size_t n) {
  while (c.buffer.size() < n) {
    auto [ec, got] = co_await c.stream.async_read_some(c.buffer.prepare(std::max<size_t>(n - c.buffer.size(), 16384)),
                                                       kNoThrow);
    if (ec) co_return ec;
    c.buffer.commit(got);
  }
  co_return beast::error_code{};
}

std::string_view Front(const beast::flat_buffer& b, size_t n) { return {static_cast<const char*>(b.data().data()), n}; }

uint32_t Le32(std::string_view s) {
  return static_cast<uint32_t>(static_cast<uint8_t>(s[0])) | static_cast<uint32_t>(static_cast<uint8_t>(s[1])) << 8 |
         static_cast<uint32_t>(static_cast<uint8_t>(s[2])) << 16 | static_cast<uint32_t>(static_cast<uint8_t>(s[3])) << 24;
}

// Whether a response head says a body frame follows: its PayloadPresent (token 0, a Byte), or, in a
// context answer (no such token), an error status.
bool HeadHasBody(std::string_view head) {
  const uint32_t status = Le32(head.substr(4));
  size_t at = rntbd::kHeadFrameSize;
  auto need = [&](size_t n) {
    if (at + n > head.size()) throw rntbd::FrameError("token runs past the head frame");
  };
  while (at < head.size()) {
    need(3);
    const uint16_t id = static_cast<uint16_t>(static_cast<uint8_t>(head[at]) | static_cast<uint8_t>(head[at + 1]) << 8);
    const auto type = static_cast<rntbd::TokenType>(head[at + 2]);
    at += 3;
    size_t len = 0;
    switch (type) {
      case rntbd::TokenType::kByte: len = 1; break;
      case rntbd::TokenType::kUShort: len = 2; break;
      case rntbd::TokenType::kULong: case rntbd::TokenType::kLong: case rntbd::TokenType::kFloat: len = 4; break;
      case rntbd::TokenType::kULongLong: case rntbd::TokenType::kLongLong: case rntbd::TokenType::kDouble: len = 8; break;
      case rntbd::TokenType::kGuid: len = 16; break;
      case rntbd::TokenType::kSmallString: case rntbd::TokenType::kSmallBytes:
        need(1); len = 1 + static_cast<uint8_t>(head[at]); break;
      case rntbd::TokenType::kString: case rntbd::TokenType::kBytes:
        need(2); len = 2 + (static_cast<uint8_t>(head[at]) | static_cast<uint8_t>(head[at + 1]) << 8); break;
      case rntbd::TokenType::kULongString: case rntbd::TokenType::kULongBytes:
        need(4); len = 4 + size_t{Le32(head.substr(at))}; break;
      case rntbd::TokenType::kInvalid: len = 0; break;
      default: throw rntbd::FrameError("unknown token type");
    }
    need(len);
    if (id == rntbd::response_token::kPayloadPresent && type == rntbd::TokenType::kByte) return head[at] != 0;
    at += len;
  }
  return status < 200 || status >= 400;  // a context answer: a body only when it refuses
}

// One whole RNTBD response, decoded; consumes it from the buffer.
awaitable<std::optional<rntbd::Response>> ReadResponse(Conn& c, Run& run, size_t& size) {
  if (auto ec = co_await Fill(c, 4)) { run.Error("read: " + ec.message()); co_return std::nullopt; }
  const uint32_t head = rntbd::HeadLength(Front(c.buffer, 4));
  if (auto ec = co_await Fill(c, head)) { run.Error("read: " + ec.message()); co_return std::nullopt; }
  size = head;
  if (HeadHasBody(Front(c.buffer, head))) {
    if (auto ec = co_await Fill(c, head + 4)) { run.Error("read: " + ec.message()); co_return std::nullopt; }
    size = head + 4 + size_t{Le32(Front(c.buffer, head + 4).substr(head))};
    if (auto ec = co_await Fill(c, size)) { run.Error("read: " + ec.message()); co_return std::nullopt; }
  }
  rntbd::Response res = rntbd::DecodeResponse(Front(c.buffer, size));
  c.buffer.consume(size);
  co_return res;
}

awaitable<void> Open(Conn& c, Run& run, const Options& o, uint16_t port, bool direct) {
  try {
    tcp::resolver resolver(c.stream.get_executor());
    auto [ec_r, endpoints] = co_await resolver.async_resolve(o.host, std::to_string(port), kNoThrow);
    if (ec_r) { run.Error("resolve: " + ec_r.message()); co_return; }
    auto& tcp_layer = beast::get_lowest_layer(c.stream);
    tcp_layer.expires_after(std::chrono::seconds(10));
    auto [ec_c, ep] = co_await tcp_layer.async_connect(endpoints, kNoThrow);
    if (ec_c) { run.Error("connect: " + ec_c.message()); co_return; }
    tcp_layer.socket().set_option(tcp::no_delay(true));  // as wrk does
    PrepareTls(c.stream, o);
    auto [ec_h] = co_await c.stream.async_handshake(ssl::stream_base::client, kNoThrow);
    if (ec_h) { run.Error("TLS handshake: " + ec_h.message()); co_return; }
    if (direct) {
      rntbd::Request context;
      context.resource_type = rntbd::resource::kConnection;
      context.operation_type = rntbd::operation::kConnection;
      context.activity_id[0] = 1;
      context.tokens.list = {rntbd::Token::ULong(rntbd::context_token::kProtocolVersion, 1),
                             rntbd::Token::SmallString(rntbd::context_token::kClientVersion, kVersion),
                             rntbd::Token::SmallString(rntbd::context_token::kUserAgent, kUserAgent)};
      const std::string bytes = rntbd::Encode(context);
      auto [ec_w, n_w] = co_await asio::async_write(c.stream, asio::buffer(bytes), kNoThrow);
      if (ec_w) { run.Error("context write: " + ec_w.message()); co_return; }
      size_t size = 0;
      auto res = co_await ReadResponse(c, run, size);
      if (!res) co_return;
      if (res->status != 200) {
        run.Error("context answer " + std::to_string(res->status) + " " + res->body.value_or(""));
        co_return;
      }
    }
    tcp_layer.expires_never();
    c.ok = true;
  } catch (const std::exception& e) {
    run.Error(std::string("open: ") + e.what());
  }
}

void Record(Conn& c, Run& run, Clock::time_point started, size_t bytes) {
  const auto done = Clock::now();
  if (started < run.measure_from) return;
  c.latencies_us.push_back(static_cast<uint32_t>(std::chrono::duration_cast<std::chrono::microseconds>(done - started).count()));
  c.bytes += bytes;
  c.last_done = done;
}

awaitable<void> LoadGateway(Conn& c, Run& run, const Options& o, const std::string& date, const std::string& auth) {
  http::request<http::empty_body> req{http::verb::get, "/dbs/" + o.db + "/colls/" + o.coll + "/docs/" + o.doc, 11};
  req.set(http::field::host, o.host + ":" + std::to_string(o.port));
  req.set("x-ms-date", date);
  req.set(http::field::authorization, auth);
  req.set("x-ms-version", kVersion);
  req.set("x-ms-documentdb-partitionkey", o.pk);
  req.set(http::field::accept, "application/json");
  req.keep_alive(true);
  while (Clock::now() < run.stop_at) {
    const auto started = Clock::now();
    auto [ec_w, n_w] = co_await http::async_write(c.stream, req, kNoThrow);
    if (ec_w) { run.Error("write: " + ec_w.message()); co_return; }
    http::response<http::string_body> res;
    auto [ec_r, n_r] = co_await http::async_read(c.stream, c.buffer, res, kNoThrow);
    if (ec_r) { run.Error("read: " + ec_r.message()); co_return; }
    if (res.result_int() != 200) run.Error("HTTP " + std::to_string(res.result_int()) + " " + res.body().substr(0, 300));
    Record(c, run, started, n_r);
    if (!res.keep_alive()) { run.Error("the gateway closed a keep-alive connection"); co_return; }
  }
}

awaitable<void> LoadDirect(Conn& c, Run& run, const Options& o, const Target& t, const std::string& date,
                           const std::string& auth) {
  namespace rt = rntbd::request_token;
  rntbd::Request req;
  req.resource_type = rntbd::resource::kDocument;
  req.operation_type = rntbd::operation::kRead;
  req.tokens.list = {
      rntbd::Token::String(rt::kAuthorizationToken, auth),
      rntbd::Token::Byte(rt::kPayloadPresent, 0),
      rntbd::Token::SmallString(rt::kDate, date),
      rntbd::Token::Byte(rt::kConsistencyLevel, 2),  // Session
      rntbd::Token::String(rt::kReplicaPath, t.replica_path),
      rntbd::Token::String(rt::kDatabaseName, o.db),
      rntbd::Token::String(rt::kCollectionName, o.coll),
      rntbd::Token::String(rt::kDocumentName, o.doc),
      rntbd::Token::String(rt::kPartitionKey, o.pk),
      rntbd::Token::String(rt::kCollectionRid, t.coll_rid),
      rntbd::Token::ULong(rt::kTransportRequestID, 0),
  };
  rntbd::Token& transport_id = req.tokens.list.back();
  while (Clock::now() < run.stop_at) {
    const auto started = Clock::now();
    const uint32_t id = run.next_transport_id.fetch_add(1);
    transport_id.integer = id;
    std::memcpy(req.activity_id.data(), &id, sizeof id);  // a fresh activity id, as the SDK's
    const std::string bytes = rntbd::Encode(req);
    auto [ec_w, n_w] = co_await asio::async_write(c.stream, asio::buffer(bytes), kNoThrow);
    if (ec_w) { run.Error("write: " + ec_w.message()); co_return; }
    size_t size = 0;
    std::optional<rntbd::Response> res;
    try {
      res = co_await ReadResponse(c, run, size);
    } catch (const std::exception& e) {
      run.Error(std::string("a malformed answer: ") + e.what());
      co_return;
    }
    if (!res) co_return;
    const rntbd::Token* echo = res->tokens.Find(rntbd::response_token::kTransportRequestID);
    if (!echo || static_cast<uint32_t>(echo->integer) != id) {
      run.Error("an answer without the request's TransportRequestID " + std::to_string(id));
      co_return;  // the connection is out of step
    }
    if (res->status != 200) run.Error("RNTBD status " + std::to_string(res->status) + " " + res->body.value_or("").substr(0, 300));
    Record(c, run, started, size);
  }
}

void RunThreads(asio::io_context& ioc, int n) {
  std::vector<std::thread> threads;
  for (int i = 1; i < n; ++i) threads.emplace_back([&ioc] { ioc.run(); });
  ioc.run();
  for (auto& t : threads) t.join();
}

Options Parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) Die("missing value for " + a);
      return argv[++i];
    };
    auto number = [&](double lo, double hi) {
      const std::string v = value();
      char* end = nullptr;
      const double d = std::strtod(v.c_str(), &end);
      if (v.empty() || *end || !(d >= lo && d <= hi)) Die("bad value for " + a + ": " + v);
      return d;
    };
    if (a == "--mode") o.mode = value();
    else if (a == "--host") o.host = value();
    else if (a == "--port") o.port = static_cast<uint16_t>(number(1, 65535));
    else if (a == "--direct-port") o.direct_port = static_cast<uint16_t>(number(1, 65535));
    else if (a == "--connections" || a == "-c") o.connections = static_cast<int>(number(1, 10000));
    else if (a == "--threads" || a == "-t") o.threads = static_cast<int>(number(1, 256));
    else if (a == "--duration" || a == "-d") o.duration = number(0.1, 86400);
    else if (a == "--warmup") o.warmup = number(0, 3600);
    else if (a == "--cafile") o.cafile = value();
    else if (a == "--key") o.key = value();
    else if (a == "--db") o.db = value();
    else if (a == "--coll") o.coll = value();
    else if (a == "--doc") o.doc = value();
    else if (a == "--pk") o.pk = value();
    else if (a == "-h" || a == "--help") {
      std::cout << "usage: direct_load --mode gateway|direct [--host H] [--port N] [--direct-port N] [--connections C]\n"
                   "                   [--threads T] [--duration S] [--warmup S] [--cafile PEM] [--key K]\n"
                   "                   [--db bench] [--coll c] [--doc item1] [--pk '[\"p1\"]']\n";
      std::exit(0);
    } else {
      Die("unknown argument " + a + " (--help)");
    }
  }
  if (o.mode != "gateway" && o.mode != "direct") Die("--mode gateway or --mode direct");
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = Parse(argc, argv);
  Target target;
  try {
    target = Setup(o);
  } catch (const std::exception& e) {
    Die(std::string("setup: ") + e.what());
  }
  const bool direct = o.mode == "direct";
  const uint16_t port = direct ? target.direct_port : o.port;

  // The signature is good for 15 minutes; one per run, as wrk's headers (bench/run.sh).
  const std::string date = Rfc1123Now();
  const std::string doc_link = "dbs/" + o.db + "/colls/" + o.coll + "/docs/" + o.doc;
  const std::string auth = Sign(Unbase64(o.key), "get", "docs", doc_link, date);

  asio::io_context ioc;
  auto tls = MakeTls(o);
  Run run;
  std::vector<std::unique_ptr<Conn>> conns;
  for (int i = 0; i < o.connections; ++i) conns.push_back(std::make_unique<Conn>(ioc, *tls));
  for (auto& c : conns) asio::co_spawn(c->stream.get_executor(), Open(*c, run, o, port, direct), asio::detached);
  RunThreads(ioc, o.threads);
  if (run.errors > 0) {
    std::cerr << "direct_load: " << run.errors << " connection(s) failed to open; first: " << run.first_error << "\n";
    return 1;
  }

  ioc.restart();
  const auto start = Clock::now();
  run.measure_from = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(o.warmup));
  run.stop_at = run.measure_from + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(o.duration));
  for (auto& c : conns) {
    auto work = direct ? LoadDirect(*c, run, o, target, date, auth) : LoadGateway(*c, run, o, date, auth);
    asio::co_spawn(c->stream.get_executor(), std::move(work), asio::detached);
  }
  RunThreads(ioc, o.threads);

  std::vector<uint32_t> all;
  uint64_t bytes = 0;
  Clock::time_point last = run.measure_from;
  for (auto& c : conns) {
    all.insert(all.end(), c->latencies_us.begin(), c->latencies_us.end());
    bytes += c->bytes;
    last = std::max(last, c->last_done);
  }
  std::sort(all.begin(), all.end());
  auto pct = [&](double p) -> uint32_t {
    if (all.empty()) return 0;
    const size_t rank = static_cast<size_t>(std::ceil(p * static_cast<double>(all.size())));
    return all[std::min(all.size() - 1, rank == 0 ? 0 : rank - 1)];
  };
  const double secs = std::chrono::duration<double>(last - run.measure_from).count();
  const double rps = secs > 0 ? static_cast<double>(all.size()) / secs : 0;
  const uint64_t errors = run.errors.load();
  const uint64_t answer_bytes = all.empty() ? 0 : bytes / all.size();
  std::printf("%s: %d connections, %d threads, %.1f s (+%.1f s warm-up): %zu reads, %.0f req/s, "
              "latency p50 %u us, p90 %u us, p99 %u us, max %u us, %llu B an answer, %llu errors\n",
              o.mode.c_str(), o.connections, o.threads, o.duration, o.warmup, all.size(), rps, pct(0.5), pct(0.9),
              pct(0.99), all.empty() ? 0 : all.back(), static_cast<unsigned long long>(answer_bytes),
              static_cast<unsigned long long>(errors));
  if (errors) std::printf("first error: %s\n", run.first_error.c_str());
  std::printf("BENCH mode=%s rps=%.0f p50_us=%u p90_us=%u p99_us=%u requests=%zu errors=%llu bytes=%llu\n",
              o.mode.c_str(), rps, pct(0.5), pct(0.9), pct(0.99), all.size(), static_cast<unsigned long long>(errors),
              static_cast<unsigned long long>(bytes));
  std::fflush(stdout);
  return errors == 0 && !all.empty() ? 0 : 1;
}
