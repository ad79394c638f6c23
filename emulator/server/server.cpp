#include "server/server.h"

#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/core/detect_ssl.hpp>
#include <boost/beast/ssl.hpp>

#include <atomic>
#include <memory>
#include <thread>
#include <vector>

namespace cosmos::server {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace ssl = asio::ssl;
using tcp = asio::ip::tcp;
using asio::awaitable;
constexpr auto kNoThrow = asio::as_tuple(asio::use_awaitable);

struct Listener {
  tcp::acceptor acceptor;
  Protocol protocol;
  RequestHandler handler;
};

struct Server::Impl {
  Options options;
  std::shared_ptr<ssl::context> tls;
  ErrorHandler on_error;
  asio::io_context ioc;
  std::vector<std::unique_ptr<Listener>> listeners;
  asio::signal_set signals{ioc};
  std::atomic<bool> stopping{false};

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
    co_await Serve(listener, secure, buffer, Connection{true});
  }

  void Refused(beast::tcp_stream& stream, const std::string& why) {
    if (!options.on_refused) return;
    beast::error_code ec;
    auto peer = stream.socket().remote_endpoint(ec);
    options.on_refused((ec ? std::string("?") : peer.address().to_string()) + " " + why);
  }

  template <class Stream>
  awaitable<void> Serve(const Listener& listener, Stream& stream, beast::flat_buffer& buffer, Connection connection) {
    auto& tcp_layer = beast::get_lowest_layer(stream);
    for (;;) {
      beast_http::request_parser<beast_http::string_body> parser;
      parser.body_limit(boost::none);  // checked below, once the header (and its Content-Length) is read
      parser.header_limit(64 * 1024);
      tcp_layer.expires_after(options.header_timeout);
      auto [ec_h, n_h] = co_await beast_http::async_read_header(stream, buffer, parser, kNoThrow);
      if (ec_h) {
        if (ec_h == beast_http::error::header_limit || ec_h == beast_http::error::bad_method ||
            ec_h == beast_http::error::bad_target || ec_h == beast_http::error::bad_version ||
            ec_h == beast_http::error::bad_field || ec_h == beast_http::error::bad_value) {
          co_await Refuse(stream, 400, "The request could not be parsed as HTTP/1.1.");
        }
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
        } else if (ec_b != beast_http::error::end_of_stream && ec_b != asio::error::eof &&
                   ec_b != beast::error::timeout && ec_b != asio::error::connection_reset &&
                   ec_b != ssl::error::stream_truncated) {
          co_await Refuse(stream, 400, "The request could not be parsed as HTTP/1.1.");
        }
        break;
      }
      Request req = parser.release();
      const bool keep_alive = req.keep_alive();
      Response res = listener.handler(req, connection);
      res.keep_alive(keep_alive && !stopping);
      tcp_layer.expires_after(options.body_timeout);
      auto [ec_w, n_w] = co_await beast_http::async_write(stream, res, kNoThrow);
      if (ec_w || !res.keep_alive()) break;
    }
    co_await Close(stream);
  }

  awaitable<void> Close(beast::tcp_stream& stream) {
    beast::error_code ignored;
    stream.socket().shutdown(tcp::socket::shutdown_send, ignored);
    co_return;
  }

  awaitable<void> Close(beast::ssl_stream<beast::tcp_stream>& stream) {
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
    co_await beast_http::async_write(stream, res, kNoThrow);
  }

  awaitable<void> Accept(Listener& listener) {
    for (;;) {
      auto [ec, socket] = co_await listener.acceptor.async_accept(asio::make_strand(ioc), kNoThrow);
      if (ec) {
        if (!listener.acceptor.is_open()) co_return;
        continue;  // e.g. too many open files: keep accepting
      }
      beast::error_code ignored;
      socket.set_option(tcp::no_delay(true), ignored);
      auto executor = socket.get_executor();
      asio::co_spawn(executor, Accepted(listener, beast::tcp_stream(std::move(socket))), asio::detached);
    }
  }
};

Server::Server(Options options, std::shared_ptr<ssl::context> tls, ErrorHandler on_error)
    : impl_(std::make_unique<Impl>()) {
  impl_->options = std::move(options);
  impl_->tls = std::move(tls);
  impl_->on_error = std::move(on_error);
}

Server::~Server() = default;

size_t Server::Listen(const std::string& host, uint16_t port, Protocol protocol, RequestHandler handler) {
  if (protocol != Protocol::kHttp && !impl_->tls)
    throw std::logic_error("a listener serving HTTPS needs a TLS context");
  auto listener = std::make_unique<Listener>(Listener{tcp::acceptor(impl_->ioc), protocol, std::move(handler)});
  tcp::endpoint endpoint(asio::ip::make_address(host), port);
  auto& acc = listener->acceptor;
  acc.open(endpoint.protocol());
  acc.set_option(asio::socket_base::reuse_address(true));
  acc.bind(endpoint);
  acc.listen(asio::socket_base::max_listen_connections);
  asio::co_spawn(impl_->ioc, impl_->Accept(*listener), asio::detached);
  impl_->listeners.push_back(std::move(listener));
  return impl_->listeners.size() - 1;
}

uint16_t Server::port(size_t index) const { return impl_->listeners.at(index)->acceptor.local_endpoint().port(); }

void Server::Stop() {
  asio::post(impl_->ioc, [this] {
    impl_->stopping = true;
    beast::error_code ec;
    for (auto& l : impl_->listeners) l->acceptor.close(ec);
    impl_->signals.cancel(ec);
    impl_->ioc.stop();
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
  unsigned n = impl_->options.threads ? impl_->options.threads : std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::thread> workers;
  for (unsigned i = 1; i < n; ++i) workers.emplace_back([this] { impl_->ioc.run(); });
  impl_->ioc.run();
  for (auto& t : workers) t.join();
}

}  // namespace cosmos::server
