#include "server/tls.h"
#include "util/files.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/pkcs12.h>
#include <openssl/rand.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <boost/asio/ssl/context.hpp>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace cosmos::server {
namespace {

// Owners of OpenSSL objects.
struct Free {
  void operator()(X509* p) const { X509_free(p); }
  void operator()(EVP_PKEY* p) const { EVP_PKEY_free(p); }
  void operator()(BIO* p) const { BIO_free(p); }
  void operator()(PKCS12* p) const { PKCS12_free(p); }
  void operator()(X509_EXTENSION* p) const { X509_EXTENSION_free(p); }
  void operator()(BIGNUM* p) const { BN_free(p); }
  void operator()(GENERAL_NAMES* p) const { GENERAL_NAMES_free(p); }
  void operator()(STACK_OF(X509) * p) const { sk_X509_pop_free(p, X509_free); }
};
template <class T>
using Owned = std::unique_ptr<T, Free>;

// The last OpenSSL error as text (and the queue emptied), or `fallback`.
std::string OpenSslReason(const std::string& fallback) {
  unsigned long code = 0, last = 0;
  while ((code = ERR_get_error()) != 0) last = code;
  if (last == 0) return fallback;
  const char* reason = ERR_reason_error_string(last);
  return reason ? std::string(reason) : fallback;
}

std::string ReadFile(const std::string& path, const std::string& what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw TlsError(what + " " + path + ": " + std::strerror(errno));
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void WriteFile(const std::string& path, const std::string& text, mode_t mode) {
  if (auto err = util::WriteFile(path, text, mode, false); !err.empty()) throw TlsError(err);
}

Owned<BIO> MemoryBio(const std::string& text) {
  return Owned<BIO>(BIO_new_mem_buf(text.data(), static_cast<int>(text.size())));
}

std::string BioText(BIO* bio) {
  char* data = nullptr;
  long n = BIO_get_mem_data(bio, &data);
  return std::string(data, static_cast<size_t>(n));
}

std::string CertPem(X509* cert) {
  Owned<BIO> bio(BIO_new(BIO_s_mem()));
  PEM_write_bio_X509(bio.get(), cert);
  return BioText(bio.get());
}

std::string KeyPem(EVP_PKEY* key) {
  Owned<BIO> bio(BIO_new(BIO_s_mem()));
  PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr);
  return BioText(bio.get());
}

Owned<X509> ParseCert(const std::string& pem) {
  auto bio = MemoryBio(pem);
  return Owned<X509>(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr));
}

// An IP literal in its canonical text ("::1", "10.0.0.2"), or empty when `name` is not one.
std::string CanonicalIp(const std::string& name) {
  unsigned char raw[16];
  char text[INET6_ADDRSTRLEN];
  if (inet_pton(AF_INET, name.c_str(), raw) == 1) return inet_ntop(AF_INET, raw, text, sizeof text);
  if (inet_pton(AF_INET6, name.c_str(), raw) == 1) return inet_ntop(AF_INET6, raw, text, sizeof text);
  return {};
}

// "DNS:name" or "IP:address" for a subject alternative name; throws for what is neither.
std::string SanEntry(const std::string& name) {
  if (auto ip = CanonicalIp(name); !ip.empty()) return "IP:" + ip;
  bool ok = !name.empty() && name.size() <= 253;
  for (char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '.' && c != '_' && c != '*') ok = false;
  }
  if (!ok) throw TlsError("'" + name + "' is neither a host name nor an IP address");
  std::string lower = name;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  return "DNS:" + lower;
}

void AddExtension(X509* cert, X509V3_CTX* ctx, int nid, const std::string& value) {
  Owned<X509_EXTENSION> ext(X509V3_EXT_conf_nid(nullptr, ctx, nid, value.c_str()));
  if (!ext || !X509_add_ext(cert, ext.get(), -1))
    throw TlsError("cannot make the certificate: " + OpenSslReason("bad extension " + value));
}

Certificate Checked(Owned<X509> cert, Owned<EVP_PKEY> key, const std::string& source) {
  if (!X509_check_private_key(cert.get(), key.get()))
    throw TlsError(source + ": the private key does not belong to the certificate");
  return Certificate{CertPem(cert.get()), KeyPem(key.get())};
}

}  // namespace

namespace {

// A new certificate for `key` from `now` less a day for `days` days, named `cn`, with its extensions
// (`issuer` null: self-issued), signed with `signer`.
Owned<X509> NewCertificate(EVP_PKEY* key, const char* cn, X509* issuer, EVP_PKEY* signer,
                           std::chrono::system_clock::time_point now, int days,
                           const std::vector<std::pair<int, std::string>>& extensions) {
  Owned<X509> cert(X509_new());
  X509_set_version(cert.get(), 2);  // v3
  unsigned char serial[16];
  RAND_bytes(serial, sizeof serial);
  serial[0] &= 0x7f;  // a positive serial number
  Owned<BIGNUM> bn(BN_bin2bn(serial, sizeof serial, nullptr));
  BN_to_ASN1_INTEGER(bn.get(), X509_get_serialNumber(cert.get()));
  const time_t t = std::chrono::system_clock::to_time_t(now);
  ASN1_TIME_set(X509_getm_notBefore(cert.get()), t - 24 * 3600);
  ASN1_TIME_set(X509_getm_notAfter(cert.get()), t + static_cast<time_t>(days) * 24 * 3600);
  X509_NAME* subject = X509_get_subject_name(cert.get());
  X509_NAME_add_entry_by_txt(subject, "O", MBSTRING_ASC, reinterpret_cast<const unsigned char*>("cosmos-emulator"),
                             -1, -1, 0);
  X509_NAME_add_entry_by_txt(subject, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>(cn), -1, -1, 0);
  X509_set_issuer_name(cert.get(), issuer ? X509_get_subject_name(issuer) : subject);
  X509_set_pubkey(cert.get(), key);
  X509V3_CTX ctx;
  X509V3_set_ctx(&ctx, issuer ? issuer : cert.get(), cert.get(), nullptr, nullptr, 0);
  for (const auto& [nid, value] : extensions) AddExtension(cert.get(), &ctx, nid, value);
  if (!X509_sign(cert.get(), signer, EVP_sha256()))
    throw TlsError("cannot sign the certificate: " + OpenSslReason("signing failed"));
  return cert;
}

Owned<EVP_PKEY> NewKey() {
  Owned<EVP_PKEY> key(EVP_EC_gen("P-256"));
  if (!key) throw TlsError("cannot make a key: " + OpenSslReason("EC key generation failed"));
  return key;
}

// The PEM certificates of `pem`, each with its own BEGIN/END lines, in order.
std::vector<std::string> PemBlocks(const std::string& pem) {
  static const std::string kBegin = "-----BEGIN CERTIFICATE-----", kEnd = "-----END CERTIFICATE-----";
  std::vector<std::string> out;
  for (size_t at = pem.find(kBegin); at != std::string::npos; at = pem.find(kBegin, at)) {
    const size_t end = pem.find(kEnd, at);
    if (end == std::string::npos) break;
    out.push_back(pem.substr(at, end + kEnd.size() - at) + "\n");
    at = end;
  }
  return out;
}

}  // namespace

Certificate MakeSelfSigned(const std::vector<std::string>& names, std::chrono::system_clock::time_point now, int days) {
  std::string san;
  std::vector<std::string> seen;
  for (const auto& name : names) {
    std::string entry = SanEntry(name);
    if (std::find(seen.begin(), seen.end(), entry) != seen.end()) continue;
    seen.push_back(entry);
    san += (san.empty() ? "" : ",") + entry;
  }
  if (san.empty()) throw TlsError("the certificate needs at least one name");

  // A root of its own and the server certificate it signs, served as a chain: clients trust the
  // root (docs/https.md). A server certificate that is itself a CA is refused by rustls and webpki
  // ("CaUsedAsEndEntity": the Rust SDK's default TLS), so the two are kept apart.
  Owned<EVP_PKEY> root_key = NewKey();
  Owned<X509> root = NewCertificate(root_key.get(), "cosmos-emulator local root", nullptr, root_key.get(), now, days,
                                    {{NID_basic_constraints, "critical,CA:TRUE,pathlen:0"},
                                     {NID_key_usage, "critical,keyCertSign,cRLSign"},
                                     {NID_subject_key_identifier, "hash"}});
  Owned<EVP_PKEY> key = NewKey();
  Owned<X509> leaf = NewCertificate(key.get(), "localhost", root.get(), root_key.get(), now, days,
                                    {{NID_basic_constraints, "critical,CA:FALSE"},
                                     {NID_key_usage, "critical,digitalSignature"},
                                     {NID_ext_key_usage, "serverAuth"},
                                     {NID_subject_key_identifier, "hash"},
                                     {NID_authority_key_identifier, "keyid:always"},
                                     {NID_subject_alt_name, san}});
  return Certificate{CertPem(leaf.get()) + CertPem(root.get()), KeyPem(key.get())};
}

std::string TrustPem(const std::string& chain_pem) {
  std::vector<std::string> blocks = PemBlocks(chain_pem);
  return blocks.empty() ? chain_pem : blocks.back();
}

Certificate LoadPemFiles(const std::string& cert_path, const std::string& key_path) {
  std::string cert_text = ReadFile(cert_path, "cannot read the certificate");
  std::string key_text = ReadFile(key_path, "cannot read the certificate key");
  Owned<X509> cert = ParseCert(cert_text);
  if (!cert) throw TlsError(cert_path + ": not a PEM certificate (" + OpenSslReason("no certificate found") + ")");
  auto bio = MemoryBio(key_text);
  Owned<EVP_PKEY> key(PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr));
  if (!key) throw TlsError(key_path + ": not an unencrypted PEM private key (" + OpenSslReason("no key found") + ")");
  Certificate result = Checked(std::move(cert), std::move(key), key_path);
  // Serve the whole chain the file holds.
  result.cert_pem = cert_text;
  return result;
}

Certificate LoadPfx(const std::string& path, const std::string& password) {
  std::string data = ReadFile(path, "cannot read the certificate");
  auto bio = MemoryBio(data);
  Owned<PKCS12> p12(d2i_PKCS12_bio(bio.get(), nullptr));
  if (!p12) throw TlsError(path + ": not a PKCS#12 (PFX) file (" + OpenSslReason("unreadable") + ")");
  EVP_PKEY* raw_key = nullptr;
  X509* raw_cert = nullptr;
  STACK_OF(X509)* raw_ca = nullptr;
  if (!PKCS12_parse(p12.get(), password.c_str(), &raw_key, &raw_cert, &raw_ca))
    throw TlsError(path + ": cannot open the PFX file (" + OpenSslReason("wrong password?") + ")");
  Owned<EVP_PKEY> key(raw_key);
  Owned<X509> cert(raw_cert);
  Owned<STACK_OF(X509)> ca(raw_ca);
  if (!cert || !key) throw TlsError(path + ": the PFX file holds no certificate with its private key");
  Certificate result = Checked(std::move(cert), std::move(key), path);
  for (int i = 0; ca && i < sk_X509_num(ca.get()); ++i) result.cert_pem += CertPem(sk_X509_value(ca.get(), i));
  return result;
}

std::vector<std::string> SubjectAltNames(const std::string& cert_pem) {
  std::vector<std::string> out;
  Owned<X509> cert = ParseCert(cert_pem);
  if (!cert) return out;
  Owned<GENERAL_NAMES> names(
      static_cast<GENERAL_NAMES*>(X509_get_ext_d2i(cert.get(), NID_subject_alt_name, nullptr, nullptr)));
  for (int i = 0; names && i < sk_GENERAL_NAME_num(names.get()); ++i) {
    const GENERAL_NAME* n = sk_GENERAL_NAME_value(names.get(), i);
    if (n->type == GEN_DNS) {
      const ASN1_STRING* s = n->d.dNSName;
      out.push_back("DNS:" + std::string(reinterpret_cast<const char*>(ASN1_STRING_get0_data(s)),
                                         static_cast<size_t>(ASN1_STRING_length(s))));
    } else if (n->type == GEN_IPADD) {
      const ASN1_OCTET_STRING* s = n->d.iPAddress;
      char text[INET6_ADDRSTRLEN] = "";
      int len = ASN1_STRING_length(s);
      if (len == 4 || len == 16)
        inet_ntop(len == 4 ? AF_INET : AF_INET6, ASN1_STRING_get0_data(s), text, sizeof text);
      out.push_back(std::string("IP:") + text);
    }
  }
  return out;
}

Certificate LoadOrMakeInDirectory(const std::string& dir, const std::vector<std::string>& names,
                                  std::chrono::system_clock::time_point now, bool* made) {
  const std::string cert_path = dir + "/emulator-cert.pem";
  const std::string key_path = dir + "/emulator-key.pem";
  if (made) *made = false;
  if (::access(cert_path.c_str(), F_OK) == 0 && ::access(key_path.c_str(), F_OK) == 0) {
    // A kept certificate that was damaged is replaced, not an error: the emulator made it.
    try {
      Certificate kept = LoadPemFiles(cert_path, key_path);
      Owned<X509> cert = ParseCert(kept.cert_pem);
      time_t tomorrow = std::chrono::system_clock::to_time_t(now) + 24 * 3600;
      bool fresh = X509_cmp_time(X509_get0_notAfter(cert.get()), &tomorrow) > 0;
      auto have = SubjectAltNames(kept.cert_pem);
      bool covers = std::all_of(names.begin(), names.end(), [&](const std::string& n) {
        return std::find(have.begin(), have.end(), SanEntry(n)) != have.end();
      });
      if (fresh && covers) return kept;
    } catch (const TlsError&) {
    }
  }
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST)
    throw TlsError("cannot create the data directory " + dir + ": " + std::strerror(errno));
  Certificate fresh = MakeSelfSigned(names, now);
  WriteFile(key_path, fresh.key_pem, 0600);
  WriteFile(cert_path, fresh.cert_pem, 0644);
  if (made) *made = true;
  return fresh;
}

std::shared_ptr<boost::asio::ssl::context> MakeServerContext(const Certificate& cert) {
  namespace ssl = boost::asio::ssl;
  auto ctx = std::make_shared<ssl::context>(ssl::context::tls_server);
  ctx->set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 | ssl::context::no_sslv3 |
                   ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1 | ssl::context::no_compression |
                   ssl::context::single_dh_use);
  SSL_CTX* native = ctx->native_handle();
  SSL_CTX_set_min_proto_version(native, TLS1_2_VERSION);
  SSL_CTX_set_options(native, SSL_OP_NO_RENEGOTIATION | SSL_OP_CIPHER_SERVER_PREFERENCE);
  boost::system::error_code ec;
  ctx->use_certificate_chain(boost::asio::buffer(cert.cert_pem), ec);
  if (ec) throw TlsError("the certificate cannot be served: " + ec.message());
  ctx->use_private_key(boost::asio::buffer(cert.key_pem), ssl::context::pem, ec);
  if (ec) throw TlsError("the certificate key cannot be served: " + ec.message());
  return ctx;
}

}  // namespace cosmos::server
