// One Direct-mode connection (docs/direct-mode.md): RNTBD messages over TLS, read as they come,
// answered on the worker pool, several at once, each answer written whole as soon as it is ready
// (the client matches answers to requests by their TransportRequestID, not by their order).
// Internal to the server: server.cpp hands each accepted RNTBD connection here after its TLS
// handshake.
#pragma once

#include "server/server.h"

#include <boost/asio/awaitable.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>

namespace cosmos::server {

using TlsStream = boost::beast::ssl_stream<boost::beast::tcp_stream>;

struct RntbdSessionEnv {
  const Options& options;
  const RntbdHandler& handler;
  const RntbdAnswersAtOnce& at_once;  // may be empty
  boost::asio::thread_pool& pool;
  const std::atomic<bool>& stopping;
};

// Serves the connection until the client closes it, it breaks the protocol (a malformed frame
// closes it, as the service does), it stays idle past the idle timeout, or the server stops.
// Returns once every request it read has been answered or abandoned. `buffer` holds what was read
// past the handshake.
boost::asio::awaitable<void> ServeRntbd(TlsStream& stream, boost::beast::flat_buffer& buffer,
                                        const RntbdSessionEnv& env);

}  // namespace cosmos::server
