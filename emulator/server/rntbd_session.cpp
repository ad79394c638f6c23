#include "server/rntbd_session.h"

#include "rntbd/constants.h"
#include "util/util.h"

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>

#include <deque>
#include <memory>
#include <string>

namespace cosmos::server {

namespace asio = boost::asio;
namespace beast = boost::beast;
using asio::awaitable;

namespace {

constexpr auto kNoThrow = asio::as_tuple(asio::use_awaitable);

// Requests one connection may have in flight; past it the connection is not read until one is
// answered (the Java client sends at most 30 by default).
constexpr size_t kMaxInFlight = 256;
// What the context answer names (the client shows them in its diagnostics; it requires both).
constexpr const char* kAgentName = "cosmos-emulator";
constexpr const char* kVersionName = "2.14.0.0";

using Clock = std::chrono::steady_clock;

// What the reader, the answering coroutines and the watchdog of one connection share; all of them
// run on the connection's strand.
struct Session {
  explicit Session(TlsStream& s) : stream(s), wake(s.get_executor()), watchdog(s.get_executor()) {}
  TlsStream& stream;
  asio::steady_timer wake;      // the reader waits on it for in-flight requests to end
  asio::steady_timer watchdog;  // idle and stalled-frame checks
  std::deque<std::string> out;  // answers waiting to be written, each whole
  bool writing = false;
  bool closed = false;
  size_t in_flight = 0;
  Clock::time_point last_read = Clock::now();
  bool partial = false;  // part of a message has been read
  std::atomic<bool> cancelled{false};

  void Close() {
    if (closed) return;
    closed = true;
    cancelled = true;
    beast::error_code ignored;
    auto& socket = beast::get_lowest_layer(stream).socket();
    socket.shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
    socket.close(ignored);
    watchdog.cancel();
    wake.cancel();
  }
};

// Reads until `buffer` holds `n` bytes; false when the connection ends first.
awaitable<bool> Fill(Session& session, beast::flat_buffer& buffer, size_t n) {
  while (buffer.size() < n) {
    auto [ec, got] = co_await session.stream.async_read_some(buffer.prepare(std::max<size_t>(n - buffer.size(), 4096)),
                                                             kNoThrow);
    if (ec) co_return false;
    buffer.commit(got);
    session.last_read = Clock::now();
  }
  co_return true;
}

std::string_view Front(const beast::flat_buffer& buffer, size_t n) {
  return {static_cast<const char*>(buffer.data().data()), n};
}

// The next request, whole; nullopt when the connection ended. Throws rntbd::FrameError.
awaitable<std::optional<rntbd::Request>> ReadMessage(Session& session, beast::flat_buffer& buffer,
                                                     uint64_t body_limit) {
  session.partial = buffer.size() > 0;
  if (!co_await Fill(session, buffer, 4)) co_return std::nullopt;
  session.partial = true;
  const uint32_t head = rntbd::HeadLength(Front(buffer, 4));
  if (!co_await Fill(session, buffer, head)) co_return std::nullopt;
  rntbd::Request request = rntbd::DecodeRequestHead(Front(buffer, head));
  buffer.consume(head);
  if (rntbd::HasPayload(request)) {
    if (!co_await Fill(session, buffer, 4)) co_return std::nullopt;
    const uint32_t length =
        rntbd::BodyLength(Front(buffer, 4), static_cast<uint32_t>(std::min<uint64_t>(body_limit, UINT32_MAX)));
    if (!co_await Fill(session, buffer, 4 + size_t{length})) co_return std::nullopt;
    request.body = std::string(Front(buffer, 4 + size_t{length}).substr(4));
    buffer.consume(4 + size_t{length});
  }
  session.partial = buffer.size() > 0;
  co_return request;
}

// Writes the queued answers in order, one at a time (an SSL stream takes one write at once).
awaitable<void> Flush(std::shared_ptr<Session> session) {
  if (session->writing) co_return;
  session->writing = true;
  while (!session->out.empty() && !session->closed) {
    auto [ec, n] = co_await asio::async_write(session->stream, asio::buffer(session->out.front()), kNoThrow);
    session->out.pop_front();
    if (ec) session->Close();
  }
  session->writing = false;
}

rntbd::Response Failed(const std::string& why) {
  rntbd::Response res;
  res.status = 500;
  res.tokens.list.push_back(rntbd::Token::ULong(rntbd::response_token::kSubStatus, 0));
  std::string text;
  for (char c : why) {
    if (c == '"' || c == '\\') text += '\\';
    if (static_cast<unsigned char>(c) >= 0x20) text += c;
  }
  res.body = R"({"code":"InternalServerError","message":"The request failed: )" + text + R"("})";
  return res;
}

// Runs one request on the worker pool and queues its answer, echoing what the client matches
// answers by (TransportRequestID) and the activity id.
awaitable<void> Answer(std::shared_ptr<Session> session, rntbd::Request request, RntbdSessionEnv env) {
  rntbd::Response res;
  Connection connection{true, &session->cancelled};
  bool answered = false;
  if (env.at_once && env.at_once(request)) {
    // A point operation: answered here unless it would wait (then it has changed nothing and goes
    // to a worker), as the gateway's point operations are (the hop costs more than the request).
    try {
      util::NoWaitScope no_wait;
      res = env.handler(request, Connection{true, nullptr});
      answered = true;
    } catch (const util::WouldBlock&) {
    } catch (const std::exception& e) {
      res = Failed(e.what());
      answered = true;
    }
  }
  if (!answered) {
    try {
      res = co_await asio::co_spawn(
          env.pool.get_executor(),
          [&]() -> awaitable<rntbd::Response> { co_return env.handler(request, connection); }, asio::use_awaitable);
    } catch (const std::exception& e) {
      res = Failed(e.what());
    }
  }
  if (res.drop_connection) {
    session->Close();
  } else {
    if (res.delay_ms > 0) {
      asio::steady_timer wait(session->stream.get_executor());
      wait.expires_after(std::chrono::milliseconds(std::min<uint32_t>(res.delay_ms, 60000)));
      co_await wait.async_wait(kNoThrow);
    }
    res.activity_id = request.activity_id;
    res.context = false;
    if (const auto* id = request.tokens.Find(rntbd::request_token::kTransportRequestID))
      res.tokens.list.push_back(rntbd::Token::ULong(rntbd::response_token::kTransportRequestID,
                                                    static_cast<uint32_t>(id->integer)));
    std::string bytes;
    try {
      bytes = rntbd::Encode(res);
    } catch (const std::exception& e) {  // a header too long for its token
      bytes = rntbd::Encode(Failed(e.what()));
    }
    if (!session->closed) {
      session->out.push_back(std::move(bytes));
      co_await Flush(session);
    }
  }
  --session->in_flight;
  session->wake.cancel();
}

// Closes a connection idle past the idle timeout, or stalled inside a message past the body
// timeout, or whose server is stopping.
awaitable<void> Watch(std::shared_ptr<Session> session, RntbdSessionEnv env) {
  while (!session->closed) {
    session->watchdog.expires_after(std::chrono::seconds(1));
    co_await session->watchdog.async_wait(kNoThrow);
    if (session->closed) break;
    const auto quiet = Clock::now() - session->last_read;
    const bool idle = session->in_flight == 0 && !session->partial && quiet > env.options.header_timeout;
    const bool stalled = session->partial && quiet > env.options.body_timeout;
    if (idle || stalled || env.stopping) session->Close();
  }
}

rntbd::Response ContextAnswer(const rntbd::Request& request) {
  using namespace rntbd::context_token;
  rntbd::Response res;
  res.context = true;
  res.status = 200;
  res.activity_id = request.activity_id;
  res.tokens.list.push_back(rntbd::Token::ULong(kProtocolVersion, 1));
  std::string client_version = "2020-07-15";
  if (const auto* v = request.tokens.Find(kClientVersion); v && v->type == rntbd::TokenType::kSmallString)
    client_version = v->bytes;
  res.tokens.list.push_back(rntbd::Token::SmallString(kClientVersion, client_version));
  res.tokens.list.push_back(rntbd::Token::SmallString(kServerAgent, kAgentName));
  res.tokens.list.push_back(rntbd::Token::SmallString(kServerVersion, kVersionName));
  return res;
}

}  // namespace

awaitable<void> ServeRntbd(TlsStream& stream, beast::flat_buffer& buffer, const RntbdSessionEnv& env) {
  beast::get_lowest_layer(stream).expires_never();  // the watchdog bounds idle and stalled reads
  auto session = std::make_shared<Session>(stream);
  asio::co_spawn(stream.get_executor(), Watch(session, env), asio::detached);
  try {
    // The first message negotiates the connection; anything else first breaks the protocol.
    auto first = co_await ReadMessage(*session, buffer, 0);
    if (first && first->resource_type == rntbd::kConnectionType && first->operation_type == rntbd::kConnectionType) {
      session->out.push_back(rntbd::Encode(ContextAnswer(*first)));
      co_await Flush(session);
      while (!session->closed && !env.stopping) {
        while (session->in_flight >= kMaxInFlight && !session->closed) {
          session->wake.expires_after(std::chrono::seconds(1));
          co_await session->wake.async_wait(kNoThrow);
        }
        auto request = co_await ReadMessage(*session, buffer, env.options.body_limit);
        if (!request || request->resource_type == rntbd::kConnectionType) break;
        ++session->in_flight;
        asio::co_spawn(stream.get_executor(), Answer(session, std::move(*request), env), asio::detached);
      }
    }
  } catch (const std::exception&) {
    // A malformed frame (rntbd::FrameError), or no memory for one: the connection closes (its
    // requests in flight are abandoned; the client retries them on a new connection).
  }
  session->Close();
  while (session->in_flight > 0 || session->writing) {  // they refer to the stream
    session->wake.expires_after(std::chrono::milliseconds(100));
    co_await session->wake.async_wait(kNoThrow);
  }
}

}  // namespace cosmos::server
