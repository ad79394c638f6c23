#include "http/auth.h"

#include <chrono>
#include <cstdlib>

#include "common/errors.h"
#include "util/util.h"

namespace cosmos::http {

ResourceAddress AddressFor(std::string_view verb, const std::vector<std::string>& segments) {
  ResourceAddress a;
  if (segments.empty()) return a;
  auto join = [&](size_t n) {
    std::string s;
    for (size_t i = 0; i < n; ++i) {
      if (i) s.push_back('/');
      s += segments[i];
    }
    return s;
  };
  if (segments.size() % 2 == 0) {
    a.type = segments[segments.size() - 2];
    a.link = join(segments.size());
  } else {
    a.type = segments.back();
    a.link = join(segments.size() - 1);
  }
  // Offers are signed with the lower-cased offer id as the link.
  if (segments[0] == "offers" && segments.size() == 2 && !util::EqualsIgnoreCase(verb, "post")) {
    a.link = util::ToLower(segments[1]);
  }
  return a;
}

std::string StringToSign(std::string_view verb, const ResourceAddress& addr, std::string_view date) {
  return util::ToLower(verb) + "\n" + util::ToLower(addr.type) + "\n" + addr.link + "\n" + util::ToLower(date) +
         "\n\n";
}

std::string Sign(std::string_view key, std::string_view verb, const ResourceAddress& addr, std::string_view date) {
  return util::Base64Encode(util::HmacSha256(key, StringToSign(verb, addr, date)));
}

void Authenticate(const RequestContext& ctx, const Config& config) {
  auto header = ctx.Header("authorization");
  if (!header || header->empty())
    throw errors::Unauthorized(
        "Required Header authorization is missing. Ensure a valid Authorization token is passed.");
  auto decoded = util::PercentDecode(*header);
  if (!decoded) throw errors::Unauthorized("The authorization header is not correctly URL-encoded.");
  std::string type, version, sig;
  size_t pos = 0;
  const std::string& h = *decoded;
  while (pos <= h.size()) {
    size_t amp = h.find('&', pos);
    if (amp == std::string::npos) amp = h.size();
    std::string part = h.substr(pos, amp - pos);
    size_t eq = part.find('=');
    if (eq != std::string::npos) {
      std::string k = util::ToLower(part.substr(0, eq));
      std::string v = part.substr(eq + 1);
      if (k == "type") type = v;
      else if (k == "ver") version = v;
      else if (k == "sig") sig = v;
    }
    pos = amp + 1;
  }
  if (util::EqualsIgnoreCase(type, "resource"))
    throw errors::Unauthorized("Resource tokens are not supported by this emulator yet; use the master key.");
  if (!util::EqualsIgnoreCase(type, "master") || version != "1.0" || sig.empty())
    throw errors::Unauthorized(
        "The input authorization token can't serve the request. The authorization header must be of the form "
        "type=master&ver=1.0&sig=<signature>.");
  auto date = ctx.Header("x-ms-date");
  if (!date || date->empty()) date = ctx.Header("date");
  if (!date || date->empty())
    throw errors::Unauthorized("The request must carry an x-ms-date header (RFC 1123 date).");
  auto when = util::ParseRfc1123(*date);
  if (!when) throw errors::Unauthorized("The x-ms-date header '" + std::string(*date) + "' is not an RFC 1123 date.");
  auto skew = std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now() - *when).count();
  if (std::llabs(skew) > config.clock_skew_seconds)
    throw errors::Forbidden("The authorization token is not valid at the current time. Please create another token "
                            "and retry (token start time: " + std::string(*date) +
                            ", current server time: " + util::FormatRfc1123(std::chrono::system_clock::now()) + ").");
  auto verb = std::string(beast_http::to_string(ctx.verb()));
  ResourceAddress addr = AddressFor(verb, ctx.segments());
  std::string expected = Sign(config.master_key, verb, addr, *date);
  if (!util::ConstantTimeEqual(expected, sig)) {
    std::string shown;
    for (char c : StringToSign(verb, addr, *date)) shown += (c == '\n') ? std::string("\\n") : std::string(1, c);
    throw errors::Unauthorized(
        "The input authorization token can't serve the request. The wrong key is being used or the expected "
        "payload is not built as per the protocol. Server used the following payload to sign: '" +
        shown + "'");
  }
}

}  // namespace cosmos::http
