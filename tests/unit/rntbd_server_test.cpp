// The server's Direct-mode connections (server/rntbd_session.cpp) over real TLS on loopback: the
// context negotiation, answers matched by TransportRequestID and written as they are ready (out of
// order), and every way a connection is closed: a malformed frame, a first message that is not
// the context, plain TCP, a frame stalled midway, a handler's dropped connection.
#include "rntbd/constants.h"
#include "rntbd/message.h"
#include "server/server.h"
#include "server/tls.h"
#include "util/util.h"

#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <set>
#include <thread>

namespace cosmos::server {
namespace {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using std::chrono::milliseconds;

Response ErrorAnswer(int status, const std::string& reason, unsigned version) {
  Response res{static_cast<beast_http::status>(status), version};
  res.body() = reason;
  return res;
}

// A server with one Direct-mode listener on an ephemeral port, run on its own thread.
struct DirectServer {
  DirectServer(RntbdHandler handler, Options options = {}, RntbdAnswersAtOnce at_once = {})
      : server(std::move(options), MakeServerContext(MakeSelfSigned({"127.0.0.1"}, std::chrono::system_clock::now())),
               ErrorAnswer) {
    index = server.ListenRntbd("127.0.0.1", 0, std::move(handler), std::move(at_once));
    thread = std::thread([this] { server.Run(false); });
  }
  ~DirectServer() {
    server.Stop();
    thread.join();
  }
  uint16_t port() const { return server.port(index); }
  Server server;
  size_t index = 0;
  std::thread thread;
};

// A blocking TLS client (no certificate check: the framing is under test, not the trust).
struct Client {
  explicit Client(uint16_t port) : ctx(asio::ssl::context::tls_client), stream(io, ctx) {
    ctx.set_verify_mode(asio::ssl::verify_none);
    stream.next_layer().connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port));
    timeval tv{10, 0};  // no test waits longer for a byte
    ::setsockopt(stream.next_layer().native_handle(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    stream.handshake(asio::ssl::stream_base::client);
  }
  void Write(const std::string& bytes) { asio::write(stream, asio::buffer(bytes)); }
  // The next whole answer; nullopt when the connection ends (or breaks) first.
  std::optional<rntbd::Response> Read() {
    try {
      std::string head(4, '\0');
      asio::read(stream, asio::buffer(head));
      const uint32_t length = rntbd::HeadLength(head);
      head.resize(length);
      asio::read(stream, asio::buffer(head.data() + 4, length - 4));
      try {
        return rntbd::DecodeResponse(head);  // no body frame follows
      } catch (const rntbd::FrameError&) {  // its PayloadPresent token announced one
      }
      std::string size(4, '\0');
      asio::read(stream, asio::buffer(size));
      std::string body(rntbd::BodyLength(size, 1u << 30), '\0');
      asio::read(stream, asio::buffer(body));
      return rntbd::DecodeResponse(head + size + body);
    } catch (const std::exception&) {
      return std::nullopt;
    }
  }
  asio::io_context io;
  asio::ssl::context ctx;
  asio::ssl::stream<tcp::socket> stream;
};

rntbd::Request Context() {
  rntbd::Request r;
  r.activity_id[0] = 0xAA;
  r.tokens.list.push_back(rntbd::Token::ULong(rntbd::context_token::kProtocolVersion, 1));
  r.tokens.list.push_back(rntbd::Token::SmallString(rntbd::context_token::kClientVersion, "2020-07-15"));
  r.tokens.list.push_back(rntbd::Token::SmallString(rntbd::context_token::kUserAgent, "test"));
  return r;
}

rntbd::Request Numbered(uint32_t transport_id) {
  rntbd::Request r;
  r.resource_type = rntbd::resource::kDocument;
  r.operation_type = rntbd::operation::kRead;
  r.activity_id[15] = static_cast<uint8_t>(transport_id);
  r.tokens.list.push_back(rntbd::Token::ULong(rntbd::request_token::kTransportRequestID, transport_id));
  return r;
}

uint32_t TransportId(const rntbd::Response& r) {
  const auto* t = r.tokens.Find(rntbd::response_token::kTransportRequestID);
  return t ? static_cast<uint32_t>(t->integer) : 0;
}

// The handler's answer: 200 with the request's transport id as its body.
rntbd::Response Echo(const rntbd::Request& req) {
  rntbd::Response res;
  res.status = 200;
  res.body = std::to_string(req.tokens.Find(rntbd::request_token::kTransportRequestID)->integer);
  return res;
}

TEST(RntbdServer, ContextThenAnswersMatchedByTransportIdAsTheyAreReady) {
  std::mutex m;
  std::condition_variable cv;
  bool others_read = false;
  DirectServer direct([&](const rntbd::Request& req, const Connection& c) {
    EXPECT_TRUE(c.secure);
    if (req.tokens.Find(rntbd::request_token::kTransportRequestID)->integer == 1) {
      // The first waits until the client has the answers of the second and the third, whatever
      // order they came in (each is ready when its worker gets to it, on a busy machine too).
      std::unique_lock lock(m);
      cv.wait_for(lock, std::chrono::seconds(10), [&] { return others_read; });
    }
    return Echo(req);
  });
  Client client(direct.port());
  client.Write(rntbd::Encode(Context()));
  auto context = client.Read();
  ASSERT_TRUE(context);
  EXPECT_EQ(context->status, 200u);
  EXPECT_EQ(context->activity_id[0], 0xAA);
  EXPECT_EQ(context->tokens.Find(rntbd::context_token::kServerAgent)->bytes, "cosmos-emulator");
  EXPECT_EQ(context->tokens.Find(rntbd::context_token::kServerVersion)->type, rntbd::TokenType::kSmallString);
  // Token 0 of a context answer is ProtocolVersion (a ULong), not PayloadPresent: it has no body frame.
  EXPECT_EQ(context->tokens.Find(rntbd::context_token::kProtocolVersion)->type, rntbd::TokenType::kULong);
  EXPECT_FALSE(context->body);
  client.Write(rntbd::Encode(Numbered(1)) + rntbd::Encode(Numbered(2)) + rntbd::Encode(Numbered(3)));
  std::vector<uint32_t> order;
  for (int i = 0; i < 3; ++i) {
    auto answer = client.Read();
    ASSERT_TRUE(answer) << "answer " << i;
    const uint32_t id = TransportId(*answer);
    EXPECT_EQ(answer->tokens.Find(rntbd::response_token::kTransportRequestID)->type, rntbd::TokenType::kULong);
    EXPECT_EQ(*answer->body, std::to_string(id));
    EXPECT_EQ(answer->activity_id[15], id);
    order.push_back(id);
    if (order.size() == 2) {
      std::lock_guard lock(m);
      others_read = true;
      cv.notify_all();
    }
  }
  // The first request's answer came last, after the two it waited for, each matched by its id.
  EXPECT_EQ(order.back(), 1u);
  EXPECT_EQ(std::set<uint32_t>(order.begin(), order.begin() + 2), (std::set<uint32_t>{2, 3}));
}

// One port for both (the gateway's, reached through a port mapping): after the TLS handshake an
// RNTBD context frame goes to the Direct-mode session, an HTTP request to the HTTP handler, and
// plain HTTP (no TLS) still to the HTTP handler.
TEST(RntbdServer, TheGatewaysPortServesRntbdAndHttpTellingThemApartByTheirFirstBytes) {
  Server server({}, MakeServerContext(MakeSelfSigned({"127.0.0.1"}, std::chrono::system_clock::now())), ErrorAnswer);
  const size_t index = server.Listen(
      "127.0.0.1", 0, Protocol::kBoth,
      [](const Request& req, const Connection& c) {
        Response res{beast_http::status::ok, req.version()};
        res.body() = std::string(c.secure ? "https " : "http ") + std::string(req.target());
        res.prepare_payload();
        return res;
      },
      {}, [](const rntbd::Request& req, const Connection&) { return Echo(req); }, {});
  std::thread thread([&] { server.Run(false); });
  struct Stopper {
    Server& server;
    std::thread& thread;
    ~Stopper() {
      server.Stop();
      thread.join();
    }
  } stopper{server, thread};
  const uint16_t port = server.port(index);
  {
    Client client(port);
    client.Write(rntbd::Encode(Context()));
    auto context = client.Read();
    ASSERT_TRUE(context);
    EXPECT_EQ(context->status, 200u);
    client.Write(rntbd::Encode(Numbered(7)));
    auto answer = client.Read();
    ASSERT_TRUE(answer);
    EXPECT_EQ(*answer->body, "7");
  }
  auto http_over = [&](bool tls) {
    asio::io_context io;
    asio::ssl::context ctx(asio::ssl::context::tls_client);
    ctx.set_verify_mode(asio::ssl::verify_none);
    asio::ssl::stream<tcp::socket> stream(io, ctx);
    stream.next_layer().connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port));
    const std::string request = "GET /dbs HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
    std::string answer(512, '\0');
    boost::system::error_code ec;
    size_t n = 0;
    if (tls) {
      stream.handshake(asio::ssl::stream_base::client);
      asio::write(stream, asio::buffer(request));
      n = asio::read(stream, asio::buffer(answer), ec);
    } else {
      asio::write(stream.next_layer(), asio::buffer(request));
      n = asio::read(stream.next_layer(), asio::buffer(answer), ec);
    }
    answer.resize(n);
    const size_t body = answer.find("\r\n\r\n");
    return body == std::string::npos ? "no answer: " + ec.message() : answer.substr(body + 4);
  };
  EXPECT_EQ(http_over(true), "https /dbs");
  EXPECT_EQ(http_over(false), "http /dbs");
}

// Reads until the connection ends; true when it ended (nothing more came).
bool Closed(Client& client) {
  for (;;) {
    auto r = client.Read();
    if (!r) return true;
  }
}

TEST(RntbdServer, AMalformedFrameClosesTheConnection) {
  DirectServer direct([](const rntbd::Request& req, const Connection&) { return Echo(req); });
  Client client(direct.port());
  client.Write(rntbd::Encode(Context()));
  ASSERT_TRUE(client.Read());
  client.Write(std::string("\x0a\x00\x00\x00", 4) + std::string(20, '\0'));  // a head shorter than 24 bytes
  EXPECT_TRUE(Closed(client));
}

TEST(RntbdServer, AFirstMessageThatIsNotTheContextClosesTheConnection) {
  DirectServer direct([](const rntbd::Request& req, const Connection&) { return Echo(req); });
  Client client(direct.port());
  client.Write(rntbd::Encode(Numbered(7)));
  EXPECT_TRUE(Closed(client));
}

TEST(RntbdServer, PlainTcpIsRefused) {
  DirectServer direct([](const rntbd::Request& req, const Connection&) { return Echo(req); });
  asio::io_context io;
  tcp::socket socket(io);
  socket.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), direct.port()));
  timeval tv{10, 0};
  ::setsockopt(socket.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  asio::write(socket, asio::buffer(rntbd::Encode(Context())));
  char byte;
  boost::system::error_code ec;
  EXPECT_EQ(socket.read_some(asio::buffer(&byte, 1), ec), 0u);
  EXPECT_TRUE(ec);  // closed without a byte
}

TEST(RntbdServer, AFrameStalledMidwayIsClosedAfterTheBodyTimeout) {
  Options options;
  options.body_timeout = milliseconds(200);
  DirectServer direct([](const rntbd::Request& req, const Connection&) { return Echo(req); }, options);
  Client client(direct.port());
  client.Write(rntbd::Encode(Context()));
  ASSERT_TRUE(client.Read());
  client.Write(rntbd::Encode(Numbered(1)).substr(0, 10));
  EXPECT_TRUE(Closed(client));  // within the watchdog's second plus the timeout, before the client's 10 s
}

TEST(RntbdServer, AHandlersDroppedConnectionClosesItWithoutAnAnswer) {
  DirectServer direct([](const rntbd::Request&, const Connection&) {
    rntbd::Response res;
    res.drop_connection = true;
    return res;
  });
  Client client(direct.port());
  client.Write(rntbd::Encode(Context()));
  ASSERT_TRUE(client.Read());
  client.Write(rntbd::Encode(Numbered(1)));
  EXPECT_TRUE(Closed(client));
}

// The requests `at_once` picks are answered on the I/O thread (where nothing may wait); one whose
// handler would wait there throws util::WouldBlock and is answered again on a worker.
TEST(RntbdServer, PointRequestsAreAnsweredOnTheIoThreadUnlessTheyWouldWait) {
  std::mutex m;
  std::vector<std::pair<uint32_t, bool>> calls;  // transport id, on a thread that may wait
  DirectServer direct(
      [&](const rntbd::Request& req, const Connection&) {
        const auto id = static_cast<uint32_t>(req.tokens.Find(rntbd::request_token::kTransportRequestID)->integer);
        {
          std::lock_guard lock(m);
          calls.emplace_back(id, util::MayBlock());
        }
        if (id == 2 && !util::MayBlock()) throw util::WouldBlock{};
        return Echo(req);
      },
      {}, [](const rntbd::Request&) { return true; });
  Client client(direct.port());
  client.Write(rntbd::Encode(Context()));
  ASSERT_TRUE(client.Read());
  for (uint32_t id : {1u, 2u}) {
    client.Write(rntbd::Encode(Numbered(id)));
    auto answer = client.Read();
    ASSERT_TRUE(answer);
    EXPECT_EQ(*answer->body, std::to_string(id));
  }
  std::lock_guard lock(m);
  const std::vector<std::pair<uint32_t, bool>> expected{{1, false}, {2, false}, {2, true}};
  EXPECT_EQ(calls, expected);
}

}  // namespace
}  // namespace cosmos::server
