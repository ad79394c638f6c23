// An HTTP/1.1 server on Boost.Beast (and Direct mode's RNTBD, server/rntbd_session.h): listeners, keep-alive sessions as coroutines, TLS (OpenSSL
// through Asio's ssl stream) and plain HTTP on one port told apart by the first byte a client
// sends, timeouts, body limit, a cap on open connections, I/O threads and a pool of worker threads
// that run the handlers, and clean shutdown. It knows nothing of Cosmos DB.
#pragma once

#include "rntbd/message.h"

#include <boost/beast/http.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace boost::asio::ssl {
class context;
}

namespace cosmos::server {

namespace beast_http = boost::beast::http;
using Request = beast_http::request<beast_http::string_body>;
using Response = beast_http::response<beast_http::string_body>;

// What a listener serves. kBoth looks at each connection's first byte: 0x16 opens a TLS
// handshake, anything else is read as plain HTTP.
enum class Protocol { kBoth, kHttps, kHttp };

struct Options {
  unsigned threads = 0;  // I/O threads (sockets, TLS, parsing); 0: one per hardware thread
  // Threads that run the handlers, so a request that waits (a lock, a script, a long query) never
  // holds an I/O thread; 0: four per hardware thread, at least 8.
  unsigned workers = 0;
  // Connections open at once over all listeners; further clients wait in the listen backlog until
  // one closes. 0: the process's open-file limit less a reserve (DefaultMaxConnections()).
  size_t max_connections = 0;
  uint64_t body_limit = 16ull * 1024 * 1024;         // bytes; larger bodies get 413
  std::chrono::milliseconds header_timeout{120000};  // idle keep-alive connection / headers
  std::chrono::milliseconds body_timeout{30000};     // reading a request body once headers arrived
  std::chrono::milliseconds handshake_timeout{10000};  // the first byte and the TLS handshake
  // Told why a connection was closed before its first request (no TLS where only TLS is
  // served, a failed handshake); may be empty.
  std::function<void(const std::string&)> on_refused;
  // Told when accepting pauses because the process ran out of file descriptors (at most every
  // few seconds); may be empty.
  std::function<void(const std::string&)> on_warning;
};

// What the server knows of the connection a request came on.
struct Connection {
  bool secure = false;  // the request came over TLS
  // Becomes true when the client goes away (closes or resets the connection) while a worker runs
  // its request, so long work can stop early; null for requests answered on the I/O thread.
  const std::atomic<bool>* cancelled = nullptr;
};

// Response headers a handler may set for the server to act on; the server removes them before
// writing. kDelayMsHeader: wait that many milliseconds (at most a minute) before writing, without
// holding a thread. kDropHeader: close the connection without writing anything (a reset).
inline constexpr const char* kDelayMsHeader = "x-server-delay-ms";
inline constexpr const char* kDropHeader = "x-server-drop-connection";

using RequestHandler = std::function<Response(const Request&, const Connection&)>;
// True for requests the handler answers at once without waiting on anything (health probes):
// those are answered on the I/O thread; every other request goes to the worker pool.
using AnswersAtOnce = std::function<bool(const Request&)>;
// Answers one Direct-mode (RNTBD) request; the server answers the connection's context negotiation
// itself and echoes each request's TransportRequestID and activity id into its answer.
using RntbdHandler = std::function<rntbd::Response(const rntbd::Request&, const Connection&)>;
// True for Direct-mode requests answered on the connection's I/O thread (as AnswersAtOnce).
using RntbdAnswersAtOnce = std::function<bool(const rntbd::Request&)>;
// Builds a response for requests the server refuses itself (status, reason text).
using ErrorHandler = std::function<Response(int status, const std::string& reason, unsigned version)>;

class Server {
 public:
  // `tls` is the server context (certificate and key loaded); it may be null when no listener
  // serves HTTPS.
  Server(Options options, std::shared_ptr<boost::asio::ssl::context> tls, ErrorHandler on_error);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Binds and listens; throws std::system_error when the address is unavailable. Returns the
  // listener's index for port(). Call before Run().
  // `at_once` (may be empty: none) picks the requests answered on the I/O thread; one whose handler
  // throws util::WouldBlock there (before changing anything) is run again on a worker.
  size_t Listen(const std::string& host, uint16_t port, Protocol protocol, RequestHandler handler,
                AnswersAtOnce at_once = {});
  // A listener for Direct mode: RNTBD over TLS only (docs/direct-mode.md); needs the TLS context.
  // Its connections close after `header_timeout` without a request, or `body_timeout` inside one.
  // `at_once` (may be empty) picks the requests answered on the I/O thread, as for Listen.
  size_t ListenRntbd(const std::string& host, uint16_t port, RntbdHandler handler, RntbdAnswersAtOnce at_once = {});
  // A listener for HTTP (as Listen) that also serves Direct mode (as ListenRntbd) on the same port:
  // after the TLS handshake, the connection's first bytes tell an RNTBD frame (its length, four
  // bytes little-endian, the last zero) from an HTTP request line. So Direct mode works through a
  // port mapping that publishes the gateway's port alone (docs/direct-mode.md).
  size_t Listen(const std::string& host, uint16_t port, Protocol protocol, RequestHandler handler,
                AnswersAtOnce at_once, RntbdHandler rntbd, RntbdAnswersAtOnce rntbd_at_once);
  // Serves until Stop() or SIGINT/SIGTERM (when install_signal_handlers). Blocks.
  void Run(bool install_signal_handlers);
  void Stop();
  // The port listener `index` is bound to (useful with port 0).
  uint16_t port(size_t index = 0) const;
  // Connections open now, over all listeners.
  size_t open_connections() const;
  // The cap in force (Options::max_connections, or the default computed from the fd limit).
  size_t max_connections() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The default cap on open connections: the soft RLIMIT_NOFILE less a reserve for the listeners,
// the event loop and files (a quarter of the limit, at most 64).
size_t DefaultMaxConnections();
// Four worker threads per hardware thread, at least 8.
unsigned DefaultWorkers();

}  // namespace cosmos::server
