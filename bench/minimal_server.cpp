// minimal_server: the throughput baseline for bench/run.sh.
//
// A deliberately minimal Boost.Beast HTTP/1.1 keep-alive server with the threading model of a
// typical asynchronous Beast server (one io_context run by N threads, one strand per
// connection, a 30 s idle timeout per operation). Every request, whatever its method, target or
// headers, is answered 200 with the same ~1 KB JSON body (content-type application/json), so
// the difference between it and the emulator is the cost of the emulator's own work: routing,
// auth, storage, serialisation.
//
// Usage: minimal_server [--host 127.0.0.1] [--port 8082] [--threads 2] [--body-bytes 1024]

#include <boost/asio/bind_executor.hpp>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/version.hpp>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;
using tcp = net::ip::tcp;

namespace {

// A plausible Cosmos DB item of exactly `size` bytes (when size is large enough).
std::string make_body(std::size_t size) {
    const std::string head =
        R"({"id":"item1","pk":"p1","kind":"bench","n":42,"ok":true,"payload":")";
    const std::string tail =
        R"(","_rid":"AAAAAAAAAAABAAAAAAAAAA==","_self":"dbs/AAAAAA==/colls/AAAAAAAAAAA=/docs/AAAAAAAAAAABAAAAAAAAAA==/","_etag":"\"00000000-0000-0000-0000-000000000000\"","_attachments":"attachments/","_ts":1700000000})";
    std::string body = head;
    const std::size_t fixed = head.size() + tail.size();
    const std::size_t fill = size > fixed ? size - fixed : 0;
    for (std::size_t i = 0; i < fill; ++i) body.push_back(static_cast<char>('a' + (i % 26)));
    body += tail;
    return body;
}

class Session : public std::enable_shared_from_this<Session> {
public:
    Session(tcp::socket&& socket, std::shared_ptr<const std::string> body)
        : stream_(std::move(socket)), body_(std::move(body)) {}

    void run() {
        net::dispatch(stream_.get_executor(),
                      beast::bind_front_handler(&Session::do_read, shared_from_this()));
    }

private:
    void do_read() {
        parser_.emplace();
        parser_->body_limit(1024 * 1024);
        stream_.expires_after(std::chrono::seconds(30));
        http::async_read(stream_, buffer_, *parser_,
                         beast::bind_front_handler(&Session::on_read, shared_from_this()));
    }

    void on_read(beast::error_code ec, std::size_t /*bytes*/) {
        if (ec == http::error::end_of_stream) return do_close();
        if (ec) return;  // timeout, reset, parse error: drop the connection

        const auto& req = parser_->get();
        res_ = {};
        res_.version(req.version());
        res_.result(http::status::ok);
        res_.set(http::field::server, "minimal_server");
        res_.set(http::field::content_type, "application/json");
        res_.keep_alive(req.keep_alive());
        if (req.method() != http::verb::head) res_.body() = *body_;
        res_.prepare_payload();
        if (req.method() == http::verb::head) res_.content_length(body_->size());

        http::async_write(stream_, res_,
                          beast::bind_front_handler(&Session::on_write, shared_from_this()));
    }

    void on_write(beast::error_code ec, std::size_t /*bytes*/) {
        if (ec) return;
        if (!res_.keep_alive()) return do_close();
        do_read();
    }

    void do_close() {
        beast::error_code ec;
        stream_.socket().shutdown(tcp::socket::shutdown_send, ec);
    }

    beast::tcp_stream stream_;
    beast::flat_buffer buffer_;
    std::optional<http::request_parser<http::string_body>> parser_;
    http::response<http::string_body> res_;
    std::shared_ptr<const std::string> body_;
};

class Listener : public std::enable_shared_from_this<Listener> {
public:
    Listener(net::io_context& ioc, const tcp::endpoint& endpoint,
             std::shared_ptr<const std::string> body)
        : ioc_(ioc), acceptor_(net::make_strand(ioc)), body_(std::move(body)) {
        acceptor_.open(endpoint.protocol());
        acceptor_.set_option(net::socket_base::reuse_address(true));
        acceptor_.bind(endpoint);
        acceptor_.listen(net::socket_base::max_listen_connections);
    }

    void run() { do_accept(); }

private:
    void do_accept() {
        acceptor_.async_accept(net::make_strand(ioc_),
                               beast::bind_front_handler(&Listener::on_accept, shared_from_this()));
    }

    void on_accept(beast::error_code ec, tcp::socket socket) {
        if (!ec) {
            socket.set_option(tcp::no_delay(true), ec);
            std::make_shared<Session>(std::move(socket), body_)->run();
        }
        if (acceptor_.is_open()) do_accept();
    }

    net::io_context& ioc_;
    tcp::acceptor acceptor_;
    std::shared_ptr<const std::string> body_;
};

[[noreturn]] void usage(int code) {
    std::cerr << "usage: minimal_server [--host H] [--port N] [--threads N] [--body-bytes N]\n";
    std::exit(code);
}

}  // namespace

int main(int argc, char** argv) {
    std::string host = "127.0.0.1";
    unsigned short port = 8082;
    int threads = 2;
    std::size_t body_bytes = 1024;

    for (int i = 1; i < argc; ++i) {
        const std::string_view arg = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) usage(2);
            return argv[++i];
        };
        try {
            if (arg == "--host") host = value();
            else if (arg == "--port") port = static_cast<unsigned short>(std::stoul(value()));
            else if (arg == "--threads") threads = std::max(1, std::stoi(value()));
            else if (arg == "--body-bytes") body_bytes = std::stoul(value());
            else if (arg == "-h" || arg == "--help") usage(0);
            else usage(2);
        } catch (const std::exception&) {
            usage(2);
        }
    }

    try {
        auto body = std::make_shared<const std::string>(make_body(body_bytes));
        net::io_context ioc{threads};
        const tcp::endpoint endpoint{net::ip::make_address(host), port};
        std::make_shared<Listener>(ioc, endpoint, body)->run();

        net::signal_set signals(ioc, SIGINT, SIGTERM);
        signals.async_wait([&](beast::error_code, int) { ioc.stop(); });

        std::cout << "minimal_server Started on " << host << ':' << port << " threads=" << threads
                  << " body_bytes=" << body->size() << std::endl;

        std::vector<std::thread> pool;
        pool.reserve(static_cast<std::size_t>(threads - 1));
        for (int t = 1; t < threads; ++t) pool.emplace_back([&ioc] { ioc.run(); });
        ioc.run();
        for (auto& t : pool) t.join();
    } catch (const std::exception& e) {
        std::cerr << "minimal_server: " << e.what() << '\n';
        return 1;
    }
    return 0;
}
