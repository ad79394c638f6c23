// A plain HTTP/1.1 server on Boost.Beast: listener, keep-alive sessions as coroutines, timeouts,
// body limit, worker threads and clean shutdown. It knows nothing of Cosmos DB.
#pragma once

#include <boost/beast/http.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

namespace cosmos::server {

namespace beast_http = boost::beast::http;
using Request = beast_http::request<beast_http::string_body>;
using Response = beast_http::response<beast_http::string_body>;

struct Options {
  std::string host = "127.0.0.1";
  uint16_t port = 8081;
  unsigned threads = 0;                              // 0: one per hardware thread
  uint64_t body_limit = 16ull * 1024 * 1024;         // bytes; larger bodies get 413
  std::chrono::milliseconds header_timeout{120000};  // idle keep-alive connection / headers
  std::chrono::milliseconds body_timeout{30000};     // reading a request body once headers arrived
};

using RequestHandler = std::function<Response(const Request&)>;
// Builds a response for requests the server refuses itself (status, reason text).
using ErrorHandler = std::function<Response(int status, const std::string& reason, unsigned version)>;

class Server {
 public:
  Server(Options options, RequestHandler handler, ErrorHandler on_error);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Binds and listens; throws std::system_error when the address is unavailable.
  void Start();
  // Serves until Stop() or SIGINT/SIGTERM (when install_signal_handlers). Blocks.
  void Run(bool install_signal_handlers);
  void Stop();
  uint16_t port() const;

 private:
  struct Impl;
  Impl* impl_;
};

}  // namespace cosmos::server
