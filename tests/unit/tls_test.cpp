// The emulator's certificate: made, kept in and reloaded from a directory, supplied as PEM or
// PKCS#12, and refused with one line when it cannot be used.
#include "server/tls.h"

#include <gtest/gtest.h>
#include <openssl/pem.h>
#include <openssl/pkcs12.h>
#include <openssl/x509.h>

#include <boost/asio/ssl/context.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>

namespace cosmos::server {
namespace {

namespace fs = std::filesystem;
const auto kNow = std::chrono::system_clock::from_time_t(1790000000);  // 2026-09-21

std::string TempDir(const std::string& name) {
  std::string dir = ::testing::TempDir() + "/tls_test_" + name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

void Write(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

std::string ErrorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const TlsError& e) {
    return e.what();
  }
  return "";
}

TEST(Tls, MadeCertificateNamesEveryHostAndAddress) {
  Certificate c = MakeSelfSigned({"localhost", "127.0.0.1", "::1", "cosmos", "10.0.0.7", "LOCALHOST"}, kNow);
  EXPECT_EQ(SubjectAltNames(c.cert_pem), (std::vector<std::string>{"DNS:localhost", "IP:127.0.0.1", "IP:::1",
                                                                   "DNS:cosmos", "IP:10.0.0.7"}));
  EXPECT_NE(c.cert_pem.find("-----BEGIN CERTIFICATE-----"), std::string::npos);
  EXPECT_NE(c.key_pem.find("-----BEGIN PRIVATE KEY-----"), std::string::npos);
  EXPECT_EQ(c.cert_pem.find("PRIVATE"), std::string::npos);
  EXPECT_NO_THROW(MakeServerContext(c));
}

// The made chain: a server certificate that is not a CA (rustls refuses a CA as an end entity:
// "CaUsedAsEndEntity", the Rust SDK's default TLS), signed by a root of the emulator's own; the
// file clients trust holds the root alone. A store holding only that certificate verifies
// the served chain for the names given, as OpenSSL clients do.
TEST(Tls, MadeCertificateIsSignedByItsOwnRootValidForAYear) {
  Certificate c = MakeSelfSigned({"localhost", "127.0.0.1"}, kNow);
  auto read_all = [](const std::string& pem) {
    std::vector<X509*> out;
    BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
    while (X509* x = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr)) out.push_back(x);
    BIO_free(bio);
    return out;
  };
  std::vector<X509*> chain = read_all(c.cert_pem);
  ASSERT_EQ(chain.size(), 2u);
  X509* x = chain[0];
  X509* root = chain[1];
  EXPECT_EQ(X509_check_ca(x), 0);
  EXPECT_EQ(X509_check_ca(root), 1);
  EXPECT_EQ(X509_check_issued(root, x), X509_V_OK);
  EXPECT_EQ(X509_check_issued(root, root), X509_V_OK);
  EXPECT_EQ(X509_get_extended_key_usage(x) & XKU_SSL_SERVER, XKU_SSL_SERVER);
  std::vector<X509*> trusted = read_all(TrustPem(c.cert_pem));
  ASSERT_EQ(trusted.size(), 1u);
  EXPECT_EQ(X509_cmp(trusted[0], root), 0);  // the root alone
  X509_STORE* store = X509_STORE_new();
  X509_STORE_add_cert(store, trusted[0]);
  X509_STORE_CTX* verify = X509_STORE_CTX_new();
  X509_STORE_CTX_init(verify, store, x, nullptr);
  X509_STORE_CTX_set_time(verify, 0, 1790000000);
  X509_VERIFY_PARAM_set1_host(X509_STORE_CTX_get0_param(verify), "localhost", 0);
  EXPECT_EQ(X509_verify_cert(verify), 1) << X509_verify_cert_error_string(X509_STORE_CTX_get_error(verify));
  X509_STORE_CTX_free(verify);
  X509_STORE_free(store);
  for (X509* t : trusted) X509_free(t);
  X509_free(root);
  // From a day before `now` to 365 days after it, to the second.
  const time_t now = 1790000000, day = 24 * 3600;
  time_t t = now - day - 1;
  EXPECT_EQ(X509_cmp_time(X509_get0_notBefore(x), &t), 1);
  t = now - day + 1;
  EXPECT_EQ(X509_cmp_time(X509_get0_notBefore(x), &t), -1);
  t = now + 365 * day - 1;
  EXPECT_EQ(X509_cmp_time(X509_get0_notAfter(x), &t), 1);
  t = now + 365 * day + 1;
  EXPECT_EQ(X509_cmp_time(X509_get0_notAfter(x), &t), -1);
  X509_free(x);
}

TEST(Tls, NamesThatAreNeitherHostNorAddressAreRefused) {
  EXPECT_EQ(ErrorOf([] { MakeSelfSigned({"bad name,DNS:evil"}, kNow); }),
            "'bad name,DNS:evil' is neither a host name nor an IP address");
}

TEST(Tls, DirectoryKeepsTheCertificateAndReusesIt) {
  const std::string dir = TempDir("keep");
  bool made = false;
  Certificate first = LoadOrMakeInDirectory(dir, {"localhost", "127.0.0.1"}, kNow, &made);
  EXPECT_TRUE(made);
  EXPECT_EQ(fs::status(dir + "/emulator-key.pem").permissions() & fs::perms::all, fs::perms::owner_read | fs::perms::owner_write);
  Certificate second = LoadOrMakeInDirectory(dir, {"localhost"}, kNow, &made);
  EXPECT_FALSE(made);
  EXPECT_EQ(second.cert_pem, first.cert_pem);
  // A new name, an expiring certificate or a damaged file: made again.
  LoadOrMakeInDirectory(dir, {"localhost", "cosmos"}, kNow, &made);
  EXPECT_TRUE(made);
  LoadOrMakeInDirectory(dir, {"localhost"}, kNow + std::chrono::hours(24 * 365), &made);
  EXPECT_TRUE(made);
  Write(dir + "/emulator-cert.pem", "garbage");
  LoadOrMakeInDirectory(dir, {"localhost"}, kNow, &made);
  EXPECT_TRUE(made);
}

TEST(Tls, SuppliedPemPairLoadsAndMismatchesAreRefused) {
  const std::string dir = TempDir("pem");
  Certificate a = MakeSelfSigned({"localhost"}, kNow), b = MakeSelfSigned({"localhost"}, kNow);
  Write(dir + "/a.pem", a.cert_pem);
  Write(dir + "/a.key", a.key_pem);
  Write(dir + "/b.key", b.key_pem);
  Write(dir + "/both.pem", a.cert_pem + a.key_pem);
  EXPECT_EQ(LoadPemFiles(dir + "/a.pem", dir + "/a.key").cert_pem, a.cert_pem);
  EXPECT_EQ(LoadPemFiles(dir + "/both.pem", dir + "/both.pem").key_pem, a.key_pem);
  EXPECT_EQ(ErrorOf([&] { LoadPemFiles(dir + "/a.pem", dir + "/b.key"); }),
            dir + "/b.key: the private key does not belong to the certificate");
  EXPECT_EQ(ErrorOf([&] { LoadPemFiles(dir + "/missing.pem", dir + "/a.key"); }),
            "cannot read the certificate " + dir + "/missing.pem: No such file or directory");
  EXPECT_EQ(ErrorOf([&] { LoadPemFiles(dir + "/a.key", dir + "/a.key"); }).rfind(dir + "/a.key: not a PEM certificate", 0),
            0u);
  EXPECT_EQ(ErrorOf([&] { LoadPemFiles(dir + "/a.pem", dir + "/a.pem"); }).rfind(dir + "/a.pem: not an unencrypted PEM private key", 0),
            0u);
}

TEST(Tls, SuppliedPfxLoadsWithItsPassword) {
  const std::string dir = TempDir("pfx");
  Certificate a = MakeSelfSigned({"localhost"}, kNow);
  BIO* cb = BIO_new_mem_buf(a.cert_pem.data(), -1);
  X509* x = PEM_read_bio_X509(cb, nullptr, nullptr, nullptr);
  BIO* kb = BIO_new_mem_buf(a.key_pem.data(), -1);
  EVP_PKEY* k = PEM_read_bio_PrivateKey(kb, nullptr, nullptr, nullptr);
  PKCS12* p12 = PKCS12_create("secret", "emulator", k, x, nullptr, 0, 0, 0, 0, 0);
  ASSERT_NE(p12, nullptr);
  BIO* out = BIO_new_file((dir + "/domain.pfx").c_str(), "wb");
  i2d_PKCS12_bio(out, p12);
  BIO_free(out);
  PKCS12_free(p12);
  EVP_PKEY_free(k);
  X509_free(x);
  BIO_free(cb);
  BIO_free(kb);
  Certificate loaded = LoadPfx(dir + "/domain.pfx", "secret");
  EXPECT_EQ(a.cert_pem.rfind(loaded.cert_pem, 0), 0u);  // the server certificate, without the root it did not hold
  EXPECT_EQ(ErrorOf([&] { LoadPfx(dir + "/domain.pfx", "wrong"); }).rfind(dir + "/domain.pfx: cannot open the PFX file (", 0),
            0u);
  Write(dir + "/junk.pfx", "junk");
  EXPECT_EQ(ErrorOf([&] { LoadPfx(dir + "/junk.pfx", "secret"); }).rfind(dir + "/junk.pfx: not a PKCS#12 (PFX) file (", 0),
            0u);
}

TEST(Tls, ServerContextRefusesProtocolsOlderThanTls12) {
  auto ctx = MakeServerContext(MakeSelfSigned({"localhost"}, kNow));
  EXPECT_EQ(SSL_CTX_get_min_proto_version(ctx->native_handle()), TLS1_2_VERSION);
}

}  // namespace
}  // namespace cosmos::server
