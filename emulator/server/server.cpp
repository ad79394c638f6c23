#include "server/server.h"
#include "server/rntbd_session.h"
#include "util/util.h"

#include <poll.h>
#include <sys/resource.h>

#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/core/detect_ssl.hpp>
#include <boost/beast/ssl.hpp>

#include <algorithm>
#include <atomic>
#include <memory>
#include <optional>
#include <thread>
#include <tuple>
#include <vector>

namespace cosmos::server {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace ssl = asio::ssl;
using tcp = asio::ip::tcp;
using asio::awaitable;
constexpr auto kNoThrow = asio::as_tuple(asio::use_awaitable);

namespace {

constexpr const char* kUnparsable = "The request could not be parsed as HTTP/1.1.";

// How long accepting pauses when the process is out of file descriptors (or kernel memory); the
// connections waiting in the backlog are taken once one closes.
constexpr std::chrono::milliseconds kAcceptBackoff{100};
// How often a worker's request checks that its client is still there once the socket holds unread
// bytes (a pipelined request), which a wait for readability no longer tells apart from a hang-up.
constexpr std::chrono::milliseconds kHangupPoll{100};

// The answer a malformed request gets before its connection closes: 400 and why, or nothing when
// the read failed because the connection ended, timed out or broke (no request to answer).
std::optional<std::string> MalformedReason(const beast::error_code& ec) {
  using beast_http::error;
  if (ec.category() != beast_http::make_error_code(error::bad_method).category()) return std::nullopt;
  switch (static_cast<error>(ec.value())) {
    case error::end_of_stream:    // closed between requests
    case error::partial_message:  // closed mid-request
    case error::need_more:
    case error::need_buffer:
    case error::end_of_chunk:
    case error::stale_parser:
    case error::short_read:
      return std::nullopt;
    case error::multiple_content_length:
      return std::string("The request has more than one Content-Length.");
    case error::bad_content_length:
      return std::string("The request's Content-Length is not a single decimal number, or comes with "
                         "Transfer-Encoding.");
    case error::bad_transfer_encoding:
      return std::string("The request's Transfer-Encoding is not valid, or comes with Content-Length.");
    case error::bad_line_ending:
      return std::string("The request has a line that does not end in CRLF.");
    case error::bad_chunk:
    case error::bad_chunk_extension:
      return std::string("The request's chunked body is malformed.");
    default:  // bad method, target, version, field, value, obsolete line folding, header limit, ...
      return std::string(kUnparsable);
  }
}

// The peer has closed its side or reset the connection (unread bytes do not hide it).
bool PeerGone(int fd) {
  pollfd p{fd, POLLRDHUP, 0};
  return ::poll(&p, 1, 0) > 0 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR)) != 0;
}

bool OutOfResources(const beast::error_code& ec) {
  return ec == asio::error::no_descriptors || ec == asio::error::no_buffer_space || ec == asio::error::no_memory ||
         ec == beast::error_code(ENFILE, asio::error::get_system_category());
}

}  // namespace

size_t DefaultMaxConnections() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return 65536;
  const size_t soft = static_cast<size_t>(limit.rlim_cur);
  const size_t reserve = std::min<size_t>(64, soft / 4);
  return std::max<size_t>(1, soft - reserve);
}

unsigned DefaultWorkers() { return std::max(8u, 4 * std::max(1u, std::thread::hardware_concurrency())); }

struct Listener {
  tcp::acceptor acceptor;
  Protocol protocol;
  RequestHandler handler;
  AnswersAtOnce at_once;
  RntbdHandler rntbd;       // set: a Direct-mode listener (RNTBD over TLS)
  RntbdAnswersAtOnce rntbd_at_once;
  asio::steady_timer wake;  // a paused accept loop waits on it (on the control strand)
  bool waiting = false;
};

// What a worker's request and the watch on its connection share.
struct Watch {
  Watch(const asio::any_io_executor& ex, int socket_fd) : poll(ex), fd(socket_fd) {}
  std::atomic<bool> cancelled{false};
  bool done = false;  // the work finished; read and written on the connection's strand only
  asio::steady_timer poll;
  int fd;
};

struct Server::Impl {
  Options options;
  std::shared_ptr<ssl::context> tls;
  ErrorHandler on_error;
  // One io_context per I/O thread, each run by its thread alone (the concurrency hint 1): a
  // connection stays on the context it was accepted into, so the threads share no scheduler
  // queue, epoll set or timer queue, and do not wake each other (one context run by every thread
  // cost a futex call per request in that sharing). The first holds the acceptors, the control
  // strand and the signals too.
  asio::io_context ioc{1};
  std::vector<std::unique_ptr<asio::io_context>> more_ioc;
  std::vector<asio::executor_work_guard<asio::io_context::executor_type>> keep_running;  // of more_ioc
  size_t next_ioc = 0;  // the context the next connection goes to (on the control strand)
  // The acceptors and the connection cap are handled here, one step at a time.
  asio::strand<asio::io_context::executor_type> control{asio::make_strand(ioc)};
  std::vector<std::unique_ptr<Listener>> listeners;
  asio::signal_set signals{ioc};
  std::atomic<bool> stopping{false};
  std::atomic<size_t> open{0};
  size_t max_connections = 0;
  std::chrono::steady_clock::time_point last_warning{};
  // Declared after the io_context: it is stopped and joined first.
  std::unique_ptr<asio::thread_pool> pool;

  // The first byte decides: a TLS record (0x16, a handshake) or plain HTTP. The wait for it and
  // the handshake are asynchronous and bounded by the handshake timeout, so a client that sends
  // nothing or stops mid-handshake holds no thread and goes when the timer fires.
  awaitable<void> Accepted(const Listener& listener, beast::tcp_stream stream) {
    beast::flat_buffer buffer;
    if (listener.protocol == Protocol::kHttp) {
      co_await Serve(listener, stream, buffer, Connection{false});
      co_return;
    }
    stream.expires_after(options.handshake_timeout);
    auto [ec_d, is_tls] = co_await beast::async_detect_ssl(stream, buffer, kNoThrow);
    if (ec_d) {
      Refused(stream, "closed before its first byte: " + ec_d.message());
      co_return;
    }
    if (!is_tls) {
      // A plain HTTP request to a TLS-only port: that connection is closed, nothing else.
      if (listener.rntbd && !listener.handler) {
        Refused(stream, "refused: no TLS on the Direct-mode (RNTBD) port");
        co_return;
      }
      if (listener.protocol == Protocol::kHttps) {
        Refused(stream, "refused: plain HTTP on a port that serves HTTPS only");
        co_return;
      }
      co_await Serve(listener, stream, buffer, Connection{false});
      co_return;
    }
    beast::ssl_stream<beast::tcp_stream> secure(std::move(stream), *tls);
    beast::get_lowest_layer(secure).expires_after(options.handshake_timeout);
    auto [ec_h, used] = co_await secure.async_handshake(ssl::stream_base::server, buffer.data(), kNoThrow);
    if (ec_h) {  // no common protocol version or cipher, a bad record, a timeout
      Refused(secure.next_layer(), "refused: TLS handshake failed: " + ec_h.message());
      co_return;
    }
    buffer.consume(used);
    if (listener.rntbd && listener.handler) {  // both on one port: the first bytes tell
      beast::get_lowest_layer(secure).expires_after(options.header_timeout);
      if (!co_await ReadAtLeast(secure, buffer, 4)) co_return;
      if (!StartsLikeRntbd(buffer)) {
        co_await Serve(listener, secure, buffer, Connection{true});
        co_return;
      }
    }
    if (listener.rntbd) {
      co_await ServeRntbd(secure, buffer,
                          RntbdSessionEnv{options, listener.rntbd, listener.rntbd_at_once, *pool, stopping});
      co_return;
    }
    co_await Serve(listener, secure, buffer, Connection{true});
  }

  // An RNTBD connection opens with a frame whose first four bytes are its length, little-endian,
  // far below 16 MB (the context request); an HTTP request opens with a method's letters.
  static bool StartsLikeRntbd(const beast::flat_buffer& buffer) {
    const auto* bytes = static_cast<const unsigned char*>(buffer.data().data());
    return buffer.size() >= 4 && bytes[3] == 0;
  }

  void Refused(beast::tcp_stream& stream, const std::string& why) {
    if (!options.on_refused) return;
    beast::error_code ec;
    auto peer = stream.socket().remote_endpoint(ec);
    options.on_refused((ec ? std::string("?") : peer.address().to_string()) + " " + why);
  }

  // HTTP/2 with prior knowledge (h2c, or h2 over TLS without ALPN: the Rust SDK reads the account
  // that way first): the emulator speaks HTTP/1.1 only, and says so in HTTP/2's own terms, the way
  // RFC 9113 provides: its SETTINGS, then each stream the client opens is reset with
  // HTTP_1_1_REQUIRED (0xd), the connection staying open so the client reads the reason (a client
  // that sees only a closed connection does not know to fall back). True when the connection was
  // HTTP/2 and is done.
  // Reads until `buffer` holds at least `n` bytes; false when the connection ends first.
  template <class Stream>
  static awaitable<bool> ReadAtLeast(Stream& stream, beast::flat_buffer& buffer, size_t n) {
    while (buffer.size() < n) {
      auto [ec, got] = co_await stream.async_read_some(buffer.prepare(16 * 1024), kNoThrow);
      if (ec) co_return false;
      buffer.commit(got);
    }
    co_return true;
  }

  template <class Stream>
  awaitable<bool> AnsweredHttp2(Stream& stream, beast::flat_buffer& buffer) {
    static constexpr std::string_view kPreface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
    auto& tcp_layer = beast::get_lowest_layer(stream);
    auto buffered = [&] {
      return std::string_view(static_cast<const char*>(buffer.data().data()), buffer.size());
    };
    // Read only while what came could still be the preface: an HTTP/1.1 request parts at its first byte.
    tcp_layer.expires_after(options.header_timeout);
    while (buffer.size() < kPreface.size() && kPreface.starts_with(buffered())) {
      auto [ec, n] = co_await stream.async_read_some(buffer.prepare(kPreface.size() - buffer.size()), kNoThrow);
      if (ec) co_return false;  // the HTTP/1.1 reader sees the same end
      buffer.commit(n);
    }
    if (!buffered().starts_with(kPreface)) co_return false;
    buffer.consume(kPreface.size());
    auto frame = [](uint8_t type, uint8_t flags, uint32_t stream_id, std::string_view payload) {
      std::string f;
      const size_t n = payload.size();
      f += {static_cast<char>(n >> 16), static_cast<char>(n >> 8), static_cast<char>(n), static_cast<char>(type),
            static_cast<char>(flags), static_cast<char>((stream_id >> 24) & 0x7f), static_cast<char>(stream_id >> 16),
            static_cast<char>(stream_id >> 8), static_cast<char>(stream_id)};
      f += payload;
      return f;
    };
    const std::string kHttp11Required("\0\0\0\x0d", 4);
    std::string out = frame(0x4, 0, 0, {});  // the server's preface: SETTINGS, none changed
    uint32_t last_stream = 0;
    // Bounded: a client that keeps the connection busy is closed after these frames or the idle timeout.
    for (int frames = 0; frames < 1000; ++frames) {
      if (!out.empty()) {
        tcp_layer.expires_after(options.body_timeout);
        auto [ec_w, n_w] = co_await asio::async_write(stream, asio::buffer(out), kNoThrow);
        if (ec_w) co_return true;
        out.clear();
      }
      tcp_layer.expires_after(options.body_timeout);
      if (!co_await ReadAtLeast(stream, buffer, 9)) co_return true;
      const auto* h = static_cast<const unsigned char*>(buffer.data().data());
      const size_t length = (size_t{h[0]} << 16) | (size_t{h[1]} << 8) | h[2];
      const uint8_t type = h[3], flags = h[4];
      const uint32_t id = ((uint32_t{h[5]} & 0x7f) << 24) | (uint32_t{h[6]} << 16) | (uint32_t{h[7]} << 8) | h[8];
      if (length > 16384) break;  // past the default maximum frame size: FRAME_SIZE_ERROR, closed
      if (!co_await ReadAtLeast(stream, buffer, 9 + length)) co_return true;
      const std::string payload(static_cast<const char*>(buffer.data().data()) + 9, length);
      buffer.consume(9 + length);
      if (type == 0x4 && !(flags & 0x1)) out += frame(0x4, 0x1, 0, {});         // SETTINGS: acknowledged
      if (type == 0x6 && !(flags & 0x1)) out += frame(0x6, 0x1, 0, payload);    // PING: answered
      if (type == 0x1 && id != 0) {                                               // HEADERS: a request
        last_stream = std::max(last_stream, id);
        out += frame(0x3, 0, id, kHttp11Required);                               // RST_STREAM
      }
      if (type == 0x7) break;  // GOAWAY: the client is done
    }
    std::string last(4, '\0');
    for (int i = 0; i < 4; ++i) last[static_cast<size_t>(i)] = static_cast<char>(last_stream >> (24 - 8 * i));
    out += frame(0x7, 0, 0, last + kHttp11Required);
    tcp_layer.expires_after(options.body_timeout);
    co_await asio::async_write(stream, asio::buffer(out), kNoThrow);
    co_return true;
  }

  // An answer's bytes on the wire (HTTP/1.1, not chunked): "HTTP/1.1 <status> <reason>", each field
  // as "name: value" in order, an empty line, the body.
  static void Serialize(const Response& res, std::string& out) {
    out.clear();
    out.reserve(256 + res.body().size());
    out += "HTTP/";
    out += static_cast<char>('0' + res.version() / 10);
    out += '.';
    out += static_cast<char>('0' + res.version() % 10);
    out += ' ';
    out += std::to_string(res.result_int());
    out += ' ';
    const auto reason = res.reason();
    out.append(reason.data(), reason.size());
    out += "\r\n";
    for (const auto& field : res) {
      const auto name = field.name_string();
      const auto value = field.value();
      out.append(name.data(), name.size());
      out += ": ";
      out.append(value.data(), value.size());
      out += "\r\n";
    }
    out += "\r\n";
    out += res.body();
  }
  // A connection keeps its output buffer between answers up to this size.
  static constexpr size_t kKeptOutputBytes = 64 * 1024;

  template <class Stream>
  awaitable<void> Serve(const Listener& listener, Stream& stream, beast::flat_buffer& buffer, Connection connection) {
    auto& tcp_layer = beast::get_lowest_layer(stream);
    bool refused = false;  // answered an error and closes: unread input is drained first
    std::string out;       // the answer being written
    if (co_await AnsweredHttp2(stream, buffer)) {
      co_await Close(stream, false);
      co_return;
    }
    for (;;) {
      beast_http::request_parser<beast_http::string_body> parser;
      parser.body_limit(boost::none);  // checked below, once the header (and its Content-Length) is read
      parser.header_limit(64 * 1024);
      tcp_layer.expires_after(options.header_timeout);
      auto [ec_h, n_h] = co_await beast_http::async_read_header(stream, buffer, parser, kNoThrow);
      if (ec_h) {
        if (auto why = MalformedReason(ec_h)) {
          co_await Refuse(stream, 400, *why);
          refused = true;
        }
        break;
      }
      // A request whose last transfer coding is not chunked has no knowable length (RFC 9112 6.3).
      if (parser.get().count(beast_http::field::transfer_encoding) && !parser.chunked()) {
        co_await Refuse(stream, 400, "The request's Transfer-Encoding does not end in chunked.");
        refused = true;
        break;
      }
      if (auto length = parser.content_length(); length && *length > options.body_limit) {
        // Read and discard the announced body first, so a client still sending sees the 413
        // instead of a reset connection.
        co_await Drain(stream, buffer, *length);
        co_await Refuse(stream, 413, "Request size is too large.");
        break;
      }
      parser.body_limit(options.body_limit);  // also bounds chunked bodies
      tcp_layer.expires_after(options.body_timeout);
      auto [ec_b, n_b] = co_await beast_http::async_read(stream, buffer, parser, kNoThrow);
      if (ec_b) {
        if (ec_b == beast_http::error::body_limit) {
          co_await Refuse(stream, 413, "Request size is too large.");
        } else if (auto why = MalformedReason(ec_b)) {
          co_await Refuse(stream, 400, *why);
          refused = true;
        }
        break;
      }
      Request req = parser.release();
      const bool keep_alive = req.keep_alive();
      Response res;
      bool on_worker = true;
      if (listener.at_once && listener.at_once(req)) {
        // Answered here unless it would wait: then it has changed nothing, and goes to a worker.
        try {
          util::NoWaitScope no_wait;
          res = listener.handler(req, connection);
          on_worker = false;
        } catch (const util::WouldBlock&) {
        }
      }
      if (on_worker) res = co_await OnWorker(listener, stream, req, connection);
      if (res.find(kDropHeader) != res.end()) {
        // Closed without an answer: a reset, as a connection lost on the way looks to the client.
        beast::error_code ignored;
        tcp_layer.socket().set_option(asio::socket_base::linger(true, 0), ignored);
        tcp_layer.socket().close(ignored);
        co_return;
      }
      if (auto delay = res.find(kDelayMsHeader); delay != res.end()) {
        const auto ms = util::ParseInteger<int64_t>(std::string_view(delay->value().data(), delay->value().size()));
        res.erase(kDelayMsHeader);
        if (ms && *ms > 0) {
          asio::steady_timer wait(co_await asio::this_coro::executor);
          wait.expires_after(std::chrono::milliseconds(std::min<int64_t>(*ms, 60000)));
          co_await wait.async_wait(kNoThrow);
        }
      }
      res.keep_alive(keep_alive && !stopping);
      tcp_layer.expires_after(options.body_timeout);
      beast::error_code ec_w;
      if (req.method() == beast_http::verb::head) {
        // A HEAD answer is the GET answer's status and headers, Content-Length included, without
        // its body (RFC 9110 9.3.2): a body would be read as the start of the next answer.
        beast_http::response_serializer<beast_http::string_body> header_only{res};
        std::tie(ec_w, std::ignore) = co_await beast_http::async_write_header(stream, header_only, kNoThrow);
      } else if (res.chunked()) {
        std::tie(ec_w, std::ignore) = co_await beast_http::async_write(stream, res, kNoThrow);
      } else {
        // The answer in one buffer, written at once: what Beast's serializer writes (the status
        // line, the fields in order, the body), without walking a buffer sequence of every field
        // (a fifth of a point read's time went there) and as one TLS record over HTTPS.
        Serialize(res, out);
        std::tie(ec_w, std::ignore) = co_await asio::async_write(stream, asio::buffer(out), kNoThrow);
        if (out.capacity() > kKeptOutputBytes) std::string().swap(out);
      }
      if (ec_w || !res.keep_alive()) break;
    }
    co_await Close(stream, refused);
  }

  // Runs the handler on the worker pool while the connection's strand goes on (its I/O thread
  // serves other connections), watching the socket: a client that closes or resets the
  // connection meanwhile sets `cancelled`.
  template <class Stream>
  awaitable<Response> OnWorker(const Listener& listener, Stream& stream, const Request& req, Connection connection) {
    auto& socket = beast::get_lowest_layer(stream).socket();
    auto watch = std::make_shared<Watch>(socket.get_executor(), static_cast<int>(socket.native_handle()));
    connection.cancelled = &watch->cancelled;
    AwaitHangup(socket, watch);
    Response res;
    try {
      res = co_await asio::co_spawn(pool->get_executor(), Work(&listener.handler, &req, connection),
                                    asio::use_awaitable);
    } catch (const std::exception& e) {
      res = on_error(500, std::string("The request failed: ") + e.what(), req.version());
    }
    watch->done = true;
    beast::error_code ignored;
    socket.cancel(ignored);
    watch->poll.cancel();
    co_return res;
  }

  static awaitable<Response> Work(const RequestHandler* handler, const Request* req, Connection connection) {
    co_return (*handler)(*req, connection);
  }

  // Waits for the socket to become readable: a hang-up cancels the work; bytes of a next request
  // leave the socket readable, so from then on the socket is polled.
  static void AwaitHangup(tcp::socket& socket, std::shared_ptr<Watch> watch) {
    socket.async_wait(tcp::socket::wait_read, [watch](const beast::error_code& ec) {
      if (watch->done) return;
      if (ec || PeerGone(watch->fd)) {
        if (ec != asio::error::operation_aborted) watch->cancelled = true;
        return;
      }
      PollHangup(std::move(watch));
    });
  }

  static void PollHangup(std::shared_ptr<Watch> watch) {
    watch->poll.expires_after(kHangupPoll);
    watch->poll.async_wait([watch](const beast::error_code& ec) {
      if (ec || watch->done) return;
      if (PeerGone(watch->fd)) {
        watch->cancelled = true;
        return;
      }
      PollHangup(watch);
    });
  }

  // After an error answer the client may still be sending: its unread bytes would make the close
  // a reset that can destroy the answer before it is read. So the sending side is shut, and what
  // arrives is read and dropped until the client closes too (at most a second, a megabyte).
  awaitable<void> Close(beast::tcp_stream& stream, bool linger) {
    beast::error_code ignored;
    stream.socket().shutdown(tcp::socket::shutdown_send, ignored);
    if (!linger) co_return;
    std::vector<char> scratch(16 * 1024);
    stream.expires_after(std::chrono::seconds(1));
    for (size_t total = 0; total < (1u << 20);) {
      auto [ec, n] = co_await stream.async_read_some(asio::buffer(scratch), kNoThrow);
      if (ec) break;
      total += n;
    }
  }

  awaitable<void> Close(beast::ssl_stream<beast::tcp_stream>& stream, bool) {
    // close_notify, bounded: a peer that never answers it does not keep the connection.
    beast::get_lowest_layer(stream).expires_after(std::chrono::seconds(2));
    co_await stream.async_shutdown(kNoThrow);
  }

  // Discards up to `length` bytes of a refused body (at most kMaxDrain, within the body timeout).
  template <class Stream>
  awaitable<void> Drain(Stream& stream, beast::flat_buffer& buffer, uint64_t length) {
    constexpr uint64_t kMaxDrain = 1ull << 30;
    if (length > kMaxDrain) co_return;
    uint64_t remaining = length;
    uint64_t buffered = std::min<uint64_t>(remaining, buffer.size());
    buffer.consume(static_cast<size_t>(buffered));
    remaining -= buffered;
    std::vector<char> scratch(64 * 1024);
    beast::get_lowest_layer(stream).expires_after(options.body_timeout);
    while (remaining > 0) {
      size_t want = static_cast<size_t>(std::min<uint64_t>(remaining, scratch.size()));
      auto [ec, n] = co_await stream.async_read_some(asio::buffer(scratch.data(), want), kNoThrow);
      if (ec) co_return;
      remaining -= n;
    }
  }

  template <class Stream>
  awaitable<void> Refuse(Stream& stream, int status, const std::string& reason) {
    Response res = on_error(status, reason, 11);
    res.keep_alive(false);
    res.prepare_payload();
    beast::get_lowest_layer(stream).expires_after(options.body_timeout);
    co_await beast_http::async_write(stream, res, kNoThrow);
  }

  // Runs on the control strand. Below the cap it accepts; at the cap it waits until a connection
  // closes (the backlog holds the clients meanwhile); out of descriptors it pauses briefly instead
  // of retrying at once, which would spin a core while the backlog stays readable.
  awaitable<void> Accept(Listener& listener) {
    asio::steady_timer backoff(control);
    for (;;) {
      while (open.load() >= max_connections) {
        listener.waiting = true;
        listener.wake.expires_after(std::chrono::seconds(1));
        co_await listener.wake.async_wait(kNoThrow);
        listener.waiting = false;
        if (!listener.acceptor.is_open()) co_return;
      }
      auto [ec, socket] = co_await listener.acceptor.async_accept(asio::make_strand(NextContext()), kNoThrow);
      if (ec) {
        if (!listener.acceptor.is_open()) co_return;
        if (OutOfResources(ec)) {
          Warn("accepting paused: " + ec.message() + " (" + std::to_string(open.load()) +
               " connections open); open connections are still served");
          backoff.expires_after(kAcceptBackoff);
          co_await backoff.async_wait(kNoThrow);
          if (!listener.acceptor.is_open()) co_return;
        }
        continue;  // e.g. a connection reset while it waited in the backlog
      }
      ++next_ioc;  // (a failed accept leaves the turn where it was)
      beast::error_code ignored;
      socket.set_option(tcp::no_delay(true), ignored);
      auto executor = socket.get_executor();
      ++open;
      asio::co_spawn(executor, Accepted(listener, beast::tcp_stream(std::move(socket))),
                     [this](std::exception_ptr) { Released(); });
    }
  }

  // The I/O thread whose turn it is to take a connection (on the control strand).
  asio::io_context& NextContext() {
    const size_t turn = next_ioc % (more_ioc.size() + 1);
    return turn == 0 ? ioc : *more_ioc[turn - 1];
  }

  void Released() {
    if (open.fetch_sub(1) < max_connections) return;
    asio::post(control, [this] {
      for (auto& l : listeners) {
        if (l->waiting) l->wake.cancel();
      }
    });
  }

  void Warn(const std::string& text) {  // on the control strand
    if (!options.on_warning) return;
    const auto now = std::chrono::steady_clock::now();
    if (last_warning != std::chrono::steady_clock::time_point{} && now - last_warning < std::chrono::seconds(5))
      return;
    last_warning = now;
    options.on_warning(text);
  }
};

Server::Server(Options options, std::shared_ptr<ssl::context> tls, ErrorHandler on_error)
    : impl_(std::make_unique<Impl>()) {
  impl_->options = std::move(options);
  impl_->tls = std::move(tls);
  impl_->on_error = std::move(on_error);
  impl_->max_connections = impl_->options.max_connections ? impl_->options.max_connections : DefaultMaxConnections();
  const unsigned workers = impl_->options.workers ? impl_->options.workers : DefaultWorkers();
  impl_->pool = std::make_unique<asio::thread_pool>(workers);
  const unsigned io_threads =
      impl_->options.threads ? impl_->options.threads : std::max(1u, std::thread::hardware_concurrency());
  for (unsigned i = 1; i < io_threads; ++i) {
    impl_->more_ioc.push_back(std::make_unique<asio::io_context>(1));
    impl_->keep_running.push_back(asio::make_work_guard(*impl_->more_ioc.back()));
  }
}

Server::~Server() {
  impl_->pool->stop();
  impl_->pool->join();
}

size_t Server::ListenRntbd(const std::string& host, uint16_t port, RntbdHandler handler, RntbdAnswersAtOnce at_once) {
  if (!impl_->tls) throw std::logic_error("a Direct-mode listener needs a TLS context");
  return Listen(host, port, Protocol::kHttps, {}, {}, std::move(handler), std::move(at_once));
}

size_t Server::Listen(const std::string& host, uint16_t port, Protocol protocol, RequestHandler handler,
                      AnswersAtOnce at_once) {
  return Listen(host, port, protocol, std::move(handler), std::move(at_once), {}, {});
}

size_t Server::Listen(const std::string& host, uint16_t port, Protocol protocol, RequestHandler handler,
                      AnswersAtOnce at_once, RntbdHandler rntbd, RntbdAnswersAtOnce rntbd_at_once) {
  if (protocol != Protocol::kHttp && !impl_->tls)
    throw std::logic_error("a listener serving HTTPS needs a TLS context");
  auto listener = std::make_unique<Listener>(Listener{tcp::acceptor(impl_->control), protocol, std::move(handler),
                                                      std::move(at_once), std::move(rntbd),
                                                      std::move(rntbd_at_once), asio::steady_timer(impl_->control)});
  tcp::endpoint endpoint(asio::ip::make_address(host), port);
  auto& acc = listener->acceptor;
  acc.open(endpoint.protocol());
  acc.set_option(asio::socket_base::reuse_address(true));
  acc.bind(endpoint);
  acc.listen(asio::socket_base::max_listen_connections);
  asio::co_spawn(impl_->control, impl_->Accept(*listener), asio::detached);
  impl_->listeners.push_back(std::move(listener));
  return impl_->listeners.size() - 1;
}

uint16_t Server::port(size_t index) const { return impl_->listeners.at(index)->acceptor.local_endpoint().port(); }

size_t Server::open_connections() const { return impl_->open.load(); }

size_t Server::max_connections() const { return impl_->max_connections; }

void Server::Stop() {
  asio::post(impl_->control, [this] {
    impl_->stopping = true;
    beast::error_code ec;
    for (auto& l : impl_->listeners) {
      l->acceptor.close(ec);
      l->wake.cancel();
    }
    impl_->signals.cancel(ec);
    impl_->ioc.stop();
    for (auto& guard : impl_->keep_running) guard.reset();
    for (auto& c : impl_->more_ioc) c->stop();
  });
}

void Server::Run(bool install_signal_handlers) {
  if (install_signal_handlers) {
    impl_->signals.add(SIGINT);
    impl_->signals.add(SIGTERM);
    impl_->signals.async_wait([this](const beast::error_code& ec, int) {
      if (!ec) Stop();
    });
  }
  std::vector<std::thread> threads;
  for (auto& c : impl_->more_ioc) threads.emplace_back([&c] { c->run(); });
  impl_->ioc.run();
  for (auto& t : threads) t.join();
  // Requests still running on workers finish (their answers are not written).
  impl_->pool->stop();
  impl_->pool->join();
}

}  // namespace cosmos::server
