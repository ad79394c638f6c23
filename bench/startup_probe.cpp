// startup_probe: how long a server takes from fork/exec to its first answered request.
//
// For each run it records a steady-clock time just before fork(), execs the given command, and
// polls http://HOST:PORT/ in a tight loop (blocking connect on loopback, which fails at once
// while nothing listens, then a sleep of --poll-us, 100 us by default) with a Cosmos DB
// master-key signed `GET /` until one is answered 200. The elapsed time to that 200 is the
// run's figure; the child is then stopped (SIGTERM to its process group, SIGKILL after 3 s)
// and reaped before the next run. It prints every run and the median.
//
// Usage:
//   startup_probe --port N [--host 127.0.0.1] [--runs 10] [--key BASE64KEY]
//                 [--timeout-ms 30000] [--poll-us 100] [--child-log FILE] -- COMMAND [ARGS...]
//
// The last line is machine-readable: `median_ms <value>`. Exit status 0 only if every run got
// its 200 within the timeout.

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

constexpr std::string_view kDefaultKey =
    "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw==";

struct Options {
    std::string host = "127.0.0.1";
    int port = 0;
    int runs = 10;
    std::string key{kDefaultKey};
    long timeout_ms = 30000;
    long poll_us = 100;
    std::string child_log = "/dev/null";
    std::vector<std::string> command;
};

[[noreturn]] void usage(int code) {
    std::cerr << "usage: startup_probe --port N [--host 127.0.0.1] [--runs 10] [--key KEY]\n"
                 "                     [--timeout-ms 30000] [--poll-us 100] [--child-log FILE]\n"
                 "                     -- COMMAND [ARGS...]\n";
    std::exit(code);
}

std::string base64_encode(const unsigned char* data, std::size_t len) {
    std::string out(4 * ((len + 2) / 3), '\0');
    const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()), data,
                                  static_cast<int>(len));
    out.resize(static_cast<std::size_t>(n));
    return out;
}

std::optional<std::string> base64_decode(std::string_view in) {
    if (in.empty() || in.size() % 4 != 0) return std::nullopt;
    std::string out(3 * in.size() / 4, '\0');
    const int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                  reinterpret_cast<const unsigned char*>(in.data()),
                                  static_cast<int>(in.size()));
    if (n < 0) return std::nullopt;
    std::size_t len = static_cast<std::size_t>(n);
    // EVP_DecodeBlock counts the padding as zero bytes; drop them.
    if (in.back() == '=') --len;
    if (in.size() >= 2 && in[in.size() - 2] == '=') --len;
    out.resize(len);
    return out;
}

std::string url_encode(std::string_view s) {
    static const char* hex = "0123456789ABCDEF";
    std::string out;
    for (const unsigned char c : s) {
        if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
            out.push_back(static_cast<char>(c));
        } else {
            out.push_back('%');
            out.push_back(hex[c >> 4]);
            out.push_back(hex[c & 0xF]);
        }
    }
    return out;
}

std::string lower(std::string s) {
    for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

std::string rfc1123_now() {
    const std::time_t t = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&t, &tm);
    static const char* days[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
    static const char* months[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                   "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    char buf[64];
    std::snprintf(buf, sizeof buf, "%s, %02d %s %04d %02d:%02d:%02d GMT", days[tm.tm_wday],
                  tm.tm_mday, months[tm.tm_mon], tm.tm_year + 1900, tm.tm_hour, tm.tm_min,
                  tm.tm_sec);
    return buf;
}

// Cosmos DB master-key authorization for (verb, resourceType, resourceLink, date).
std::string authorization(const std::string& key_raw, std::string_view verb,
                          std::string_view type, std::string_view link, const std::string& date) {
    const std::string text = lower(std::string(verb)) + "\n" + lower(std::string(type)) + "\n" +
                             std::string(link) + "\n" + lower(date) + "\n" + "" + "\n";
    unsigned char mac[EVP_MAX_MD_SIZE];
    unsigned int mac_len = 0;
    if (!HMAC(EVP_sha256(), key_raw.data(), static_cast<int>(key_raw.size()),
              reinterpret_cast<const unsigned char*>(text.data()), text.size(), mac, &mac_len)) {
        std::cerr << "startup_probe: HMAC failed\n";
        std::exit(2);
    }
    return url_encode("type=master&ver=1.0&sig=" + base64_encode(mac, mac_len));
}

std::string build_request(const Options& o, const std::string& key_raw) {
    const std::string date = rfc1123_now();
    std::string req = "GET / HTTP/1.1\r\n";
    req += "Host: " + o.host + ":" + std::to_string(o.port) + "\r\n";
    req += "authorization: " + authorization(key_raw, "GET", "", "", date) + "\r\n";
    req += "x-ms-date: " + date + "\r\n";
    req += "x-ms-version: 2020-07-15\r\n";
    req += "Accept: application/json\r\n";
    req += "Connection: close\r\n\r\n";
    return req;
}

enum class Attempt { refused, answered_200, answered_other, io_error };

// One attempt: connect, send, read the status line. `status` receives the HTTP status if any.
Attempt try_once(const sockaddr_in& addr, const std::string& request, int& status) {
    status = 0;
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return Attempt::io_error;
    const int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    // A server that accepts but never answers must not hang the probe.
    timeval tv{2, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);

    if (::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) {
        ::close(fd);
        return Attempt::refused;
    }
    std::size_t sent = 0;
    while (sent < request.size()) {
        const ssize_t n = ::send(fd, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
        if (n <= 0) {
            ::close(fd);
            return Attempt::io_error;
        }
        sent += static_cast<std::size_t>(n);
    }
    std::string head;
    char buf[4096];
    while (head.find("\r\n") == std::string::npos && head.size() < 65536) {
        const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
        if (n <= 0) {
            ::close(fd);
            return Attempt::io_error;
        }
        head.append(buf, static_cast<std::size_t>(n));
    }
    ::close(fd);
    // "HTTP/1.1 200 OK"
    if (head.rfind("HTTP/", 0) != 0) return Attempt::io_error;
    const auto sp = head.find(' ');
    if (sp == std::string::npos) return Attempt::io_error;
    status = std::atoi(head.c_str() + sp + 1);
    return status == 200 ? Attempt::answered_200 : Attempt::answered_other;
}

bool port_answers(const sockaddr_in& addr) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return false;
    const bool ok = ::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0;
    ::close(fd);
    return ok;
}

pid_t spawn(const Options& o) {
    std::vector<char*> argv;
    for (const auto& a : o.command) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);

    const pid_t pid = ::fork();
    if (pid == 0) {
        ::setpgid(0, 0);  // own process group, so a wrapper and its children stop together
        const int log = ::open(o.child_log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
        if (log >= 0) {
            ::dup2(log, STDOUT_FILENO);
            ::dup2(log, STDERR_FILENO);
        }
        const int null_in = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
        if (null_in >= 0) ::dup2(null_in, STDIN_FILENO);
        ::execvp(argv[0], argv.data());
        std::fprintf(stderr, "startup_probe: exec %s: %s\n", argv[0], std::strerror(errno));
        ::_exit(127);
    }
    if (pid > 0) ::setpgid(pid, pid);  // also from the parent, to avoid the race
    return pid;
}

// Returns the wait status of the reaped child.
int stop_child(pid_t pid) {
    int wstatus = 0;
    ::kill(-pid, SIGTERM);
    const auto deadline = Clock::now() + std::chrono::seconds(3);
    while (Clock::now() < deadline) {
        const pid_t r = ::waitpid(pid, &wstatus, WNOHANG);
        if (r == pid || r < 0) {
            ::kill(-pid, SIGKILL);  // any leftovers in the group
            return wstatus;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    std::cerr << "startup_probe: child " << pid << " ignored SIGTERM for 3 s; sending SIGKILL\n";
    ::kill(-pid, SIGKILL);
    ::waitpid(pid, &wstatus, 0);
    return wstatus;
}

std::string describe_exit(int wstatus) {
    if (WIFEXITED(wstatus)) return "exited with status " + std::to_string(WEXITSTATUS(wstatus));
    if (WIFSIGNALED(wstatus)) return "killed by signal " + std::to_string(WTERMSIG(wstatus));
    return "ended";
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

Options parse(int argc, char** argv) {
    Options o;
    int i = 1;
    for (; i < argc; ++i) {
        const std::string_view arg = argv[i];
        if (arg == "--") {
            ++i;
            break;
        }
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) usage(2);
            return argv[++i];
        };
        try {
            if (arg == "--port") o.port = std::stoi(value());
            else if (arg == "--host") o.host = value();
            else if (arg == "--runs") o.runs = std::stoi(value());
            else if (arg == "--key") o.key = value();
            else if (arg == "--timeout-ms") o.timeout_ms = std::stol(value());
            else if (arg == "--poll-us") o.poll_us = std::stol(value());
            else if (arg == "--child-log") o.child_log = value();
            else if (arg == "-h" || arg == "--help") usage(0);
            else usage(2);
        } catch (const std::exception&) {
            usage(2);
        }
    }
    for (; i < argc; ++i) o.command.emplace_back(argv[i]);
    if (o.port <= 0 || o.port > 65535 || o.runs < 1 || o.command.empty() || o.poll_us < 0 ||
        o.poll_us > 200)
        usage(2);
    return o;
}

}  // namespace

int main(int argc, char** argv) {
    const Options o = parse(argc, argv);
    const auto key_raw = base64_decode(o.key);
    if (!key_raw) {
        std::cerr << "startup_probe: --key is not valid base64\n";
        return 2;
    }
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<std::uint16_t>(o.port));
    if (::inet_pton(AF_INET, o.host.c_str(), &addr.sin_addr) != 1) {
        std::cerr << "startup_probe: --host must be an IPv4 address\n";
        return 2;
    }
    ::signal(SIGPIPE, SIG_IGN);

    std::string cmdline;
    for (const auto& a : o.command) cmdline += (cmdline.empty() ? "" : " ") + a;
    std::cout << "startup_probe: " << o.runs << " runs of `" << cmdline << "`, polling "
              << o.host << ':' << o.port << " every " << o.poll_us << " us\n";

    std::vector<double> times;
    bool failed = false;
    for (int run = 1; run <= o.runs; ++run) {
        // Something already answering would make the figure meaningless.
        const auto free_deadline = Clock::now() + std::chrono::seconds(5);
        while (port_answers(addr)) {
            if (Clock::now() > free_deadline) {
                std::cerr << "startup_probe: something already listens on " << o.host << ':'
                          << o.port << "\n";
                return 1;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
        const std::string request = build_request(o, *key_raw);

        const auto t0 = Clock::now();
        const pid_t pid = spawn(o);
        if (pid < 0) {
            std::perror("startup_probe: fork");
            return 1;
        }
        const auto deadline = t0 + std::chrono::milliseconds(o.timeout_ms);
        long attempts = 0;
        int last_status = 0;
        std::optional<double> elapsed_ms;
        std::string why;
        for (;;) {
            ++attempts;
            int status = 0;
            const Attempt a = try_once(addr, request, status);
            if (a == Attempt::answered_200) {
                elapsed_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
                break;
            }
            if (a == Attempt::answered_other) last_status = status;
            int wstatus = 0;
            if (::waitpid(pid, &wstatus, WNOHANG) == pid) {
                why = "child " + describe_exit(wstatus) + " before answering 200";
                break;
            }
            if (Clock::now() > deadline) {
                why = "no 200 within " + std::to_string(o.timeout_ms) + " ms";
                break;
            }
            if (o.poll_us > 0) std::this_thread::sleep_for(std::chrono::microseconds(o.poll_us));
        }
        if (why.empty()) stop_child(pid);
        else if (why.rfind("child", 0) != 0) stop_child(pid);

        if (elapsed_ms) {
            times.push_back(*elapsed_ms);
            std::printf("run %d/%d: %.3f ms (%ld attempts)\n", run, o.runs, *elapsed_ms, attempts);
        } else {
            failed = true;
            std::printf("run %d/%d: FAILED: %s (%ld attempts%s)\n", run, o.runs, why.c_str(),
                        attempts,
                        last_status ? (", last status " + std::to_string(last_status)).c_str()
                                    : "");
        }
        std::fflush(stdout);
    }
    if (times.empty()) {
        std::printf("median_ms NaN\n");
        return 1;
    }
    const auto [mn, mx] = std::minmax_element(times.begin(), times.end());
    std::printf("min_ms %.3f\nmax_ms %.3f\nmedian_ms %.3f\n", *mn, *mx, median(times));
    return failed ? 1 : 0;
}
