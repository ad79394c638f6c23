// Fuzz target: whole requests through the pipeline, signed so they reach the handlers. The input
// is "VERB PATH\n" then "name: value" header lines, an empty line and the body.
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_env.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace cosmos;
  using fuzz::bh::verb;
  auto& env = fuzz::TheEnv();
  env.MaybeReset();
  std::string_view in(reinterpret_cast<const char*>(data), size);
  auto line_end = in.find('\n');
  std::string_view first = in.substr(0, line_end);
  in = line_end == std::string_view::npos ? std::string_view() : in.substr(line_end + 1);
  auto space = first.find(' ');
  const std::string_view verb_text = first.substr(0, space);
  std::string target = space == std::string_view::npos ? "/" : std::string(first.substr(space + 1));
  if (target.empty() || target[0] != '/') target = "/" + target;
  for (char c : target) {
    if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7f) return 0;  // not a request target on the wire
  }
  verb v = verb::get;
  for (verb candidate : {verb::get, verb::post, verb::put, verb::patch, verb::delete_, verb::head, verb::options}) {
    if (verb_text == fuzz::bh::to_string(candidate)) v = candidate;
  }
  fuzz::Headers headers;
  while (!in.empty()) {
    auto end = in.find('\n');
    std::string_view line = in.substr(0, end);
    in = end == std::string_view::npos ? std::string_view() : in.substr(end + 1);
    if (line.empty()) break;
    auto colon = line.find(':');
    if (colon == std::string_view::npos || colon == 0) continue;
    std::string name(line.substr(0, colon)), value(line.substr(colon + 1));
    while (!value.empty() && value[0] == ' ') value.erase(0, 1);
    bool ok = true;
    for (char c : name) ok = ok && c > 0x20 && c < 0x7f && c != ':';
    for (char c : value) ok = ok && c != '\r' && c != '\0';
    if (ok) headers.emplace_back(std::move(name), std::move(value));
  }
  env.Send(v, target, std::string(in), headers);
  return 0;
}
