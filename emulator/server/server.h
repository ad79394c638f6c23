// An HTTP/1.1 server on Boost.Beast: listeners, keep-alive sessions as coroutines, TLS (OpenSSL
// through Asio's ssl stream) and plain HTTP on one port told apart by the first byte a client
// sends, timeouts, body limit, worker threads and clean shutdown. It knows nothing of Cosmos DB.
#pragma once

#include <boost/beast/http.hpp>

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
  unsigned threads = 0;                              // 0: one per hardware thread
  uint64_t body_limit = 16ull * 1024 * 1024;         // bytes; larger bodies get 413
  std::chrono::milliseconds header_timeout{120000};  // idle keep-alive connection / headers
  std::chrono::milliseconds body_timeout{30000};     // reading a request body once headers arrived
  std::chrono::milliseconds handshake_timeout{10000};  // the first byte and the TLS handshake
  // Told why a connection was closed before its first request (no TLS where only TLS is
  // served, a failed handshake); may be empty.
  std::function<void(const std::string&)> on_refused;
};

// What the server knows of the connection a request came on.
struct Connection {
  bool secure = false;  // the request came over TLS
};

using RequestHandler = std::function<Response(const Request&, const Connection&)>;
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
  size_t Listen(const std::string& host, uint16_t port, Protocol protocol, RequestHandler handler);
  // Serves until Stop() or SIGINT/SIGTERM (when install_signal_handlers). Blocks.
  void Run(bool install_signal_handlers);
  void Stop();
  // The port listener `index` is bound to (useful with port 0).
  uint16_t port(size_t index = 0) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace cosmos::server
