// What every system-function test needs: JSON argument values that live as long as the test, and
// calls through the registry the way the engine makes them (argument count checked first).
#pragma once

#include <gtest/gtest.h>

#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include "json/json.h"
#include "query/functions/function.h"

namespace cosmos::query {

class FunctionTest : public ::testing::Test {
 protected:
  // A value parsed from JSON text, alive as long as the fixture.
  Val J(std::string_view text) {
    json::Document& d = docs_.emplace_back().doc;
    EXPECT_EQ(json::Parse(text, d), json::ParseStatus::kOk) << text;
    return Val(d);
  }

  // The context a function sees: this fixture's arena, `now_ms_` as the query's start time and
  // `geometry_` as the container's geospatial type (true: Geometry).
  FunctionContext Context() { return FunctionContext{arena_, now_ms_, nullptr, geometry_}; }

  // Calls a registered function as the engine does: unknown names fail the test, and the argument
  // count must be one the registry allows.
  Val Call(std::string_view name, std::vector<Val> args) {
    const FunctionDef* def = FindFunction(name);
    if (def == nullptr) {
      ADD_FAILURE() << "no function " << name;
      return Val();
    }
    int n = static_cast<int>(args.size());
    EXPECT_TRUE(n >= def->min_args && (def->max_args < 0 || n <= def->max_args)) << name << " arity";
    FunctionContext ctx = Context();
    return def->fn(ctx, args);
  }

  // A result as compact JSON text, or "undefined".
  static std::string Str(Val v) { return v.IsUndefined() ? "undefined" : json::Write(v.json()); }

  Arena arena_;
  int64_t now_ms_ = 0;
  bool geometry_ = false;
  // Each argument's document on a small pool, as the store keeps items: a default document's first
  // chunk is 64 KB, and the sampling tests parse tens of thousands of arguments (2.6 GB of address
  // space; under ThreadSanitizer, more mappings than the kernel allows a process).
  struct ArgDocument {
    json::Allocator pool{1024};
    json::Document doc{&pool};
  };
  std::deque<ArgDocument> docs_;
};

}  // namespace cosmos::query
