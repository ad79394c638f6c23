// The emulator's TLS certificate: made at start-up (self-signed, ECDSA P-256), kept in and
// reloaded from a directory, or supplied as PEM files or a PKCS#12 (PFX) file; and the server
// context that serves it (TLS 1.2 and 1.3 only). docs/https.md tells users how to trust it.
#pragma once

#include <chrono>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace boost::asio::ssl {
class context;
}

namespace cosmos::server {

// A certificate or key that cannot be used; what() is one line naming the file and the reason.
class TlsError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Certificate {
  std::string cert_pem;  // the certificate (what /_explorer/emulator.pem serves)
  std::string key_pem;   // its private key, PKCS#8
};

// A new root of the emulator's own and a server certificate it signs, both valid from a day
// before `now` for `days` days; the server certificate names each of `names` as a subject
// alternative name (IP literals as addresses, the rest as DNS names). `cert_pem` is the chain to
// serve: the server certificate, then the root.
Certificate MakeSelfSigned(const std::vector<std::string>& names, std::chrono::system_clock::time_point now,
                           int days = 365);

// What clients are given to trust (/_explorer/emulator.pem, --cert-export): the last certificate
// of the served chain, its root (one certificate, as every client and the Testcontainers modules'
// key stores read it); a single certificate as it is.
std::string TrustPem(const std::string& chain_pem);

// Reads a PEM certificate (the first of a chain) and its PEM key; throws TlsError.
Certificate LoadPemFiles(const std::string& cert_path, const std::string& key_path);
// Reads a PKCS#12 file (.pfx) with its password; throws TlsError.
Certificate LoadPfx(const std::string& path, const std::string& password);

// The certificate kept in `dir` (emulator-cert.pem, emulator-key.pem) when it is intact, valid
// for at least another day and names every one of `names`; otherwise a new one, written there
// (the key readable by its owner only). `made` tells which. Throws TlsError when the directory
// cannot be written.
Certificate LoadOrMakeInDirectory(const std::string& dir, const std::vector<std::string>& names,
                                  std::chrono::system_clock::time_point now, bool* made = nullptr);

// The subject alternative names of a PEM certificate ("DNS:localhost", "IP:127.0.0.1", ...).
std::vector<std::string> SubjectAltNames(const std::string& cert_pem);

// A server context serving `cert`: TLS 1.2 and 1.3 only, no renegotiation, no compression.
std::shared_ptr<boost::asio::ssl::context> MakeServerContext(const Certificate& cert);

}  // namespace cosmos::server
