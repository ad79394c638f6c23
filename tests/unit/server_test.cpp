// The server's threads and limits: handlers run on the worker pool (the I/O threads keep answering
// probes and other connections while a handler waits), the cancellation flag a handler sees when
// its client goes away, and the cap on open connections. Loopback only, bounded in time.
#include "server/server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <sstream>
#include <string>
#include <thread>

namespace cosmos::server {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

Response ErrorAnswer(int status, const std::string& reason, unsigned version) {
  Response res{static_cast<beast_http::status>(status), version};
  res.body() = reason;
  res.prepare_payload();
  return res;
}

Response Text(const Request& req, const std::string& text) {
  Response res{beast_http::status::ok, req.version()};
  res.body() = text;
  res.prepare_payload();
  return res;
}

// Waits (at most `limit`) until `done()`; true when it came.
template <class F>
bool WaitFor(F done, milliseconds limit) {
  const auto until = Clock::now() + limit;
  while (!done()) {
    if (Clock::now() > until) return false;
    std::this_thread::sleep_for(milliseconds(5));
  }
  return true;
}

int Connect(uint16_t port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  return fd;
}

void Send(int fd, const std::string& text) { ASSERT_EQ(::send(fd, text.data(), text.size(), MSG_NOSIGNAL), ssize_t(text.size())); }

std::string Get(const std::string& path) { return "GET " + path + " HTTP/1.1\r\nHost: x\r\n\r\n"; }

// Reads one response (headers and a Content-Length body) within `limit`; "" when none came.
std::string ReadResponse(int fd, milliseconds limit) {
  timeval tv{static_cast<time_t>(limit.count() / 1000), static_cast<suseconds_t>(limit.count() % 1000 * 1000)};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  std::string text;
  char buf[4096];
  for (;;) {
    if (auto end = text.find("\r\n\r\n"); end != std::string::npos) {
      auto cl = text.find("Content-Length: ");
      size_t length = cl == std::string::npos ? 0 : std::stoul(text.substr(cl + 16));
      if (text.size() >= end + 4 + length) return text;
    }
    ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) return text;
    text.append(buf, static_cast<size_t>(n));
  }
}

// A server on an ephemeral loopback port, run on its own thread.
struct Running {
  explicit Running(Options options) : server(std::move(options), nullptr, ErrorAnswer) {}
  void Start() {
    thread = std::thread([this] { server.Run(false); });
  }
  ~Running() {
    server.Stop();
    if (thread.joinable()) thread.join();
  }
  Server server;
  std::thread thread;
};

// One I/O thread: a handler that waits no longer holds it, so probes (answered at once) and
// requests on other connections (another worker) answer while it waits.
TEST(Server, AWaitingHandlerHoldsAWorkerNotTheIoThread) {
  Options options;
  options.threads = 1;
  options.workers = 2;
  Running r(options);
  std::atomic<bool> release{false};
  std::atomic<int> waiting{0};
  r.server.Listen(
      "127.0.0.1", 0, Protocol::kHttp,
      [&](const Request& req, const Connection&) {
        if (req.target() == "/wait") {
          ++waiting;
          WaitFor([&] { return release.load(); }, milliseconds(10000));
        }
        return Text(req, std::string(req.target()));
      },
      [](const Request& req) { return req.target() == "/ready"; });
  r.Start();
  const uint16_t port = r.server.port();
  int slow = Connect(port);
  Send(slow, Get("/wait"));
  ASSERT_TRUE(WaitFor([&] { return waiting.load() == 1; }, milliseconds(2000)));

  int other = Connect(port);
  auto started = Clock::now();
  Send(other, Get("/ready"));
  EXPECT_NE(ReadResponse(other, milliseconds(1000)).find("\r\n\r\n/ready"), std::string::npos);
  Send(other, Get("/item"));  // the second worker
  EXPECT_NE(ReadResponse(other, milliseconds(1000)).find("\r\n\r\n/item"), std::string::npos);
  EXPECT_LT(Clock::now() - started, milliseconds(1000));

  release = true;
  EXPECT_NE(ReadResponse(slow, milliseconds(2000)).find("\r\n\r\n/wait"), std::string::npos);
  ::close(slow);
  ::close(other);
}

// Each I/O thread runs a context of its own and connections are given to them in turn: two
// connections are answered (at once, on their I/O threads) by two different threads, each
// connection always by the same one; an answer that waits on one thread does not hold the other.
TEST(Server, ConnectionsAreSpreadOverTheIoThreadsAndStayOnTheirs) {
  Options options;
  options.threads = 2;
  Running r(options);
  std::atomic<bool> second_answered{false};
  r.server.Listen(
      "127.0.0.1", 0, Protocol::kHttp,
      [&](const Request& req, const Connection&) {
        if (req.target() == "/hold") WaitFor([&] { return second_answered.load(); }, milliseconds(5000));
        std::ostringstream id;
        id << std::this_thread::get_id();
        return Text(req, id.str());
      },
      [](const Request&) { return true; });  // everything on the I/O threads
  r.Start();
  const uint16_t port = r.server.port();
  auto body = [](const std::string& answer) {
    const size_t at = answer.find("\r\n\r\n");
    return at == std::string::npos ? std::string() : answer.substr(at + 4);
  };
  int first = Connect(port);
  int second = Connect(port);
  Send(first, Get("/a"));
  const std::string first_thread = body(ReadResponse(first, milliseconds(2000)));
  Send(second, Get("/a"));
  const std::string second_thread = body(ReadResponse(second, milliseconds(2000)));
  ASSERT_FALSE(first_thread.empty());
  ASSERT_FALSE(second_thread.empty());
  EXPECT_NE(first_thread, second_thread);
  // The first connection's thread waits in its handler until the second's answers.
  Send(first, Get("/hold"));
  Send(second, Get("/b"));
  EXPECT_EQ(body(ReadResponse(second, milliseconds(2000))), second_thread);
  second_answered = true;
  EXPECT_EQ(body(ReadResponse(first, milliseconds(6000))), first_thread);
  ::close(first);
  ::close(second);
}

// HEAD answers the GET's headers without its body: on a kept-alive connection the next answer
// starts right after the blank line, not after a stray body.
TEST(Server, HeadAnswersHeadersOnlyAndTheNextAnswerFollows) {
  Options options;
  Running r(options);
  r.server.Listen(
      "127.0.0.1", 0, Protocol::kHttp, [&](const Request& req, const Connection&) { return Text(req, "0123456789"); },
      [](const Request&) { return true; });
  r.Start();
  int fd = Connect(r.server.port());
  Send(fd, "HEAD /_health HTTP/1.1\r\nHost: x\r\n\r\n");
  Send(fd, Get("/_health"));
  std::string both;
  timeval tv{2, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  char buf[4096];
  // Reads until the second answer's body has come (or the time is up).
  while (both.find("\r\n\r\n0123456789") == std::string::npos) {
    ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    both.append(buf, static_cast<size_t>(n));
  }
  const auto first_end = both.find("\r\n\r\n");
  ASSERT_NE(first_end, std::string::npos) << both;
  const std::string head = both.substr(0, first_end + 4);
  EXPECT_EQ(head.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << head;
  EXPECT_NE(head.find("Content-Length: 10\r\n"), std::string::npos) << head;
  const std::string rest = both.substr(first_end + 4);
  EXPECT_EQ(rest.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << rest;
  EXPECT_EQ(rest.substr(rest.size() - 14), "\r\n\r\n0123456789") << rest;
  ::close(fd);
}

// HTTP/2 with prior knowledge: the server's SETTINGS, the client's SETTINGS acknowledged, each
// request stream reset with HTTP_1_1_REQUIRED, and after the client's GOAWAY a GOAWAY naming the
// last stream, so an HTTP/2 client (the Rust SDK's account probe) falls back to HTTP/1.1. A plain
// HTTP/1.1 request that starts like the preface ("PUT") is served as ever.
TEST(Server, Http2PriorKnowledgeIsAnsweredWithHttp11Required) {
  Options options;
  Running r(options);
  r.server.Listen(
      "127.0.0.1", 0, Protocol::kHttp, [&](const Request& req, const Connection&) { return Text(req, "ok"); },
      [](const Request&) { return true; });
  r.Start();
  auto frame = [](uint8_t type, uint8_t flags, uint32_t id, const std::string& payload) {
    std::string f = {static_cast<char>(payload.size() >> 16), static_cast<char>(payload.size() >> 8),
                     static_cast<char>(payload.size()), static_cast<char>(type), static_cast<char>(flags),
                     static_cast<char>(id >> 24), static_cast<char>(id >> 16), static_cast<char>(id >> 8),
                     static_cast<char>(id)};
    return f + payload;
  };
  int fd = Connect(r.server.port());
  // The preface, the client's SETTINGS, a HEADERS frame on stream 1 (an HPACK-indexed GET /), PING.
  Send(fd, std::string("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n") + frame(0x4, 0, 0, "") +
               frame(0x1, 0x5, 1, std::string("\x82\x84\x86", 3)) + frame(0x6, 0, 0, "12345678"));
  timeval tv{2, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  std::string got;
  char buf[4096];
  const std::string reset = frame(0x3, 0, 1, std::string("\0\0\0\x0d", 4));
  const std::string expected = frame(0x4, 0, 0, "") + frame(0x4, 0x1, 0, "") + reset + frame(0x6, 0x1, 0, "12345678");
  while (got.size() < expected.size()) {
    ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    got.append(buf, static_cast<size_t>(n));
  }
  EXPECT_EQ(got, expected);
  Send(fd, frame(0x7, 0, 0, std::string(8, '\0')));  // the client's GOAWAY
  std::string rest;
  for (;;) {
    ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    rest.append(buf, static_cast<size_t>(n));
  }
  EXPECT_EQ(rest, frame(0x7, 0, 0, std::string("\0\0\0\x01\0\0\0\x0d", 8)));  // last stream 1, then closed
  ::close(fd);

  int plain = Connect(r.server.port());
  Send(plain, "PUT /x HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n");
  EXPECT_NE(ReadResponse(plain, milliseconds(2000)).find("\r\n\r\nok"), std::string::npos);
  ::close(plain);
}

// A client that closes its connection while a worker runs its request: the handler's flag turns
// true, whether the socket holds nothing more or a pipelined next request.
TEST(Server, AClientThatGoesAwayCancelsItsRequest) {
  Options options;
  options.threads = 1;
  options.workers = 2;
  Running r(options);
  std::atomic<int> started{0}, saw_cancel{0}, ran_out{0};
  r.server.Listen("127.0.0.1", 0, Protocol::kHttp, [&](const Request& req, const Connection& c) {
    EXPECT_NE(c.cancelled, nullptr);
    ++started;
    if (WaitFor([&] { return c.cancelled && c.cancelled->load(); }, milliseconds(5000)))
      ++saw_cancel;
    else
      ++ran_out;
    return Text(req, "late");
  });
  r.Start();
  // Second round: a next request arrives while the first runs, so the socket holds unread bytes
  // when the client closes (the watch then polls for the hang-up).
  for (const std::string& then : {std::string(), Get("/next")}) {
    const int before = started.load();
    int fd = Connect(r.server.port());
    Send(fd, Get("/q"));
    ASSERT_TRUE(WaitFor([&] { return started.load() == before + 1; }, milliseconds(2000)));
    if (!then.empty()) {
      Send(fd, then);
      std::this_thread::sleep_for(milliseconds(250));
      EXPECT_EQ(saw_cancel.load(), before);  // bytes to read are no hang-up
    }
    const auto closed = Clock::now();
    ::close(fd);
    // (A pipelined next request then runs too, and is cancelled as well.)
    ASSERT_TRUE(WaitFor([&] { return saw_cancel.load() >= before + 1; }, milliseconds(2000))) << then;
    EXPECT_LT(Clock::now() - closed, milliseconds(1000));
  }
  EXPECT_EQ(ran_out.load(), 0);
}

// A request whose client stays gets the flag unset, and probes answered at once get none.
TEST(Server, AClientThatStaysIsNotCancelled) {
  Options options;
  options.threads = 1;
  Running r(options);
  std::atomic<bool> flag_seen{false}, null_for_probe{false};
  r.server.Listen(
      "127.0.0.1", 0, Protocol::kHttp,
      [&](const Request& req, const Connection& c) {
        if (req.target() == "/ready") {
          null_for_probe = c.cancelled == nullptr;
        } else {
          std::this_thread::sleep_for(milliseconds(300));
          flag_seen = c.cancelled && c.cancelled->load();
        }
        return Text(req, "ok");
      },
      [](const Request& req) { return req.target() == "/ready"; });
  r.Start();
  int fd = Connect(r.server.port());
  Send(fd, Get("/q"));
  EXPECT_NE(ReadResponse(fd, milliseconds(2000)).find("\r\n\r\nok"), std::string::npos);
  EXPECT_FALSE(flag_seen.load());
  Send(fd, Get("/ready"));
  EXPECT_NE(ReadResponse(fd, milliseconds(2000)).find("\r\n\r\nok"), std::string::npos);
  EXPECT_TRUE(null_for_probe.load());
  ::close(fd);
}

// At the cap, a further client waits in the backlog (its connect succeeds, nothing answers it)
// while the open connections are served; it is served once one of them closes.
TEST(Server, AtTheConnectionCapNewClientsWaitForOneToClose) {
  Options options;
  options.threads = 1;
  options.max_connections = 2;
  Running r(options);
  r.server.Listen("127.0.0.1", 0, Protocol::kHttp, [](const Request& req, const Connection&) { return Text(req, "ok"); });
  r.Start();
  EXPECT_EQ(r.server.max_connections(), 2u);
  const uint16_t port = r.server.port();
  int a = Connect(port), b = Connect(port);
  ASSERT_TRUE(WaitFor([&] { return r.server.open_connections() == 2; }, milliseconds(2000)));
  int c = Connect(port);
  Send(c, Get("/c"));
  EXPECT_EQ(ReadResponse(c, milliseconds(300)), "");
  for (int fd : {a, b}) {
    Send(fd, Get("/x"));
    EXPECT_NE(ReadResponse(fd, milliseconds(1000)).find("\r\n\r\nok"), std::string::npos);
  }
  EXPECT_EQ(r.server.open_connections(), 2u);
  ::close(a);
  EXPECT_NE(ReadResponse(c, milliseconds(2000)).find("\r\n\r\nok"), std::string::npos);
  ::close(b);
  ::close(c);
}

TEST(Server, DefaultCapStaysBelowTheOpenFileLimit) {
  rlimit limit{};
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &limit), 0);
  if (limit.rlim_cur == RLIM_INFINITY) GTEST_SKIP() << "no open-file limit";
  const size_t soft = limit.rlim_cur;
  EXPECT_LT(DefaultMaxConnections(), soft);
  EXPECT_GE(DefaultMaxConnections(), soft - 64);
  EXPECT_GE(DefaultWorkers(), 8u);
}

}  // namespace
}  // namespace cosmos::server
