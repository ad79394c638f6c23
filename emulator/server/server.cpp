#include "server/server.h"

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>

#include <atomic>
#include <iostream>
#include <memory>
#include <thread>
#include <vector>

namespace cosmos::server {

namespace asio = boost::asio;
namespace beast = boost::beast;
using tcp = asio::ip::tcp;
using asio::awaitable;
using asio::use_awaitable;
constexpr auto kNoThrow = asio::as_tuple(asio::use_awaitable);

struct Server::Impl {
  Options options;
  RequestHandler handler;
  ErrorHandler on_error;
  asio::io_context ioc;
  tcp::acceptor acceptor{ioc};
  asio::signal_set signals{ioc};
  std::atomic<bool> stopping{false};

  awaitable<void> Session(beast::tcp_stream stream) {
    beast::flat_buffer buffer;
    for (;;) {
      beast_http::request_parser<beast_http::string_body> parser;
      parser.body_limit(boost::none);  // checked below, once the header (and its Content-Length) is read
      parser.header_limit(64 * 1024);
      stream.expires_after(options.header_timeout);
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
      stream.expires_after(options.body_timeout);
      auto [ec_b, n_b] = co_await beast_http::async_read(stream, buffer, parser, kNoThrow);
      if (ec_b) {
        if (ec_b == beast_http::error::body_limit) {
          co_await Refuse(stream, 413, "Request size is too large.");
        } else if (ec_b != beast_http::error::end_of_stream && ec_b != asio::error::eof &&
                   ec_b != beast::error::timeout && ec_b != asio::error::connection_reset) {
          co_await Refuse(stream, 400, "The request could not be parsed as HTTP/1.1.");
        }
        break;
      }
      Request req = parser.release();
      const bool keep_alive = req.keep_alive();
      Response res = handler(req);
      res.keep_alive(keep_alive && !stopping);
      stream.expires_after(options.body_timeout);
      auto [ec_w, n_w] = co_await beast_http::async_write(stream, res, kNoThrow);
      if (ec_w || !res.keep_alive()) break;
    }
    beast::error_code ignored;
    stream.socket().shutdown(tcp::socket::shutdown_send, ignored);
  }

  // Discards up to `length` bytes of a refused body (at most kMaxDrain, within the body timeout).
  awaitable<void> Drain(beast::tcp_stream& stream, beast::flat_buffer& buffer, uint64_t length) {
    constexpr uint64_t kMaxDrain = 1ull << 30;
    if (length > kMaxDrain) co_return;
    uint64_t remaining = length;
    uint64_t buffered = std::min<uint64_t>(remaining, buffer.size());
    buffer.consume(static_cast<size_t>(buffered));
    remaining -= buffered;
    std::vector<char> scratch(64 * 1024);
    stream.expires_after(options.body_timeout);
    while (remaining > 0) {
      size_t want = static_cast<size_t>(std::min<uint64_t>(remaining, scratch.size()));
      auto [ec, n] = co_await stream.async_read_some(asio::buffer(scratch.data(), want), kNoThrow);
      if (ec) co_return;
      remaining -= n;
    }
  }

  awaitable<void> Refuse(beast::tcp_stream& stream, int status, const std::string& reason) {
    Response res = on_error(status, reason, 11);
    res.keep_alive(false);
    res.prepare_payload();
    co_await beast_http::async_write(stream, res, kNoThrow);
  }

  awaitable<void> Listen() {
    for (;;) {
      auto [ec, socket] = co_await acceptor.async_accept(asio::make_strand(ioc), kNoThrow);
      if (ec) {
        if (!acceptor.is_open()) co_return;
        continue;  // e.g. too many open files: keep accepting
      }
      socket.set_option(tcp::no_delay(true));
      auto executor = socket.get_executor();
      asio::co_spawn(executor, Session(beast::tcp_stream(std::move(socket))), asio::detached);
    }
  }
};

Server::Server(Options options, RequestHandler handler, ErrorHandler on_error) : impl_(new Impl) {
  impl_->options = std::move(options);
  impl_->handler = std::move(handler);
  impl_->on_error = std::move(on_error);
}

Server::~Server() { delete impl_; }

void Server::Start() {
  auto address = asio::ip::make_address(impl_->options.host);
  tcp::endpoint endpoint(address, impl_->options.port);
  auto& acc = impl_->acceptor;
  acc.open(endpoint.protocol());
  acc.set_option(asio::socket_base::reuse_address(true));
  acc.bind(endpoint);
  acc.listen(asio::socket_base::max_listen_connections);
  asio::co_spawn(impl_->ioc, impl_->Listen(), asio::detached);
}

uint16_t Server::port() const { return impl_->acceptor.local_endpoint().port(); }

void Server::Stop() {
  asio::post(impl_->ioc, [this] {
    impl_->stopping = true;
    beast::error_code ec;
    impl_->acceptor.close(ec);
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
