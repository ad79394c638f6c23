// Type checking functions: IS_ARRAY ... IS_STRING. Each takes any value (undefined included) and always
// returns a boolean, never undefined.
#include <cmath>

#include "query/functions/function.h"

namespace cosmos::query {

namespace {

Val IsArray(FunctionContext&, std::span<const Val> args) { return Arena::Bool(args[0].IsArray()); }
Val IsBool(FunctionContext&, std::span<const Val> args) { return Arena::Bool(args[0].IsBool()); }
Val IsDefined(FunctionContext&, std::span<const Val> args) { return Arena::Bool(args[0].IsDefined()); }
Val IsNull(FunctionContext&, std::span<const Val> args) { return Arena::Bool(args[0].IsNull()); }
Val IsNumber(FunctionContext&, std::span<const Val> args) { return Arena::Bool(args[0].IsNumber()); }
Val IsObject(FunctionContext&, std::span<const Val> args) { return Arena::Bool(args[0].IsObject()); }
Val IsString(FunctionContext&, std::span<const Val> args) { return Arena::Bool(args[0].IsString()); }

// A number that is neither infinite nor NaN; any other type is not a finite number.
Val IsFiniteNumber(FunctionContext&, std::span<const Val> args) {
  return Arena::Bool(args[0].IsNumber() && std::isfinite(args[0].AsNumber()));
}

// A number held as a 64-bit signed integer: 3.5 and integers beyond int64 (e.g. 2^64-1) are not.
Val IsInteger(FunctionContext&, std::span<const Val> args) {
  const Val& v = args[0];
  return Arena::Bool(v.IsNumber() && !v.json().IsDouble() && v.json().IsInt64());
}

// Null, boolean, number or string: a defined value that is neither an array nor an object.
Val IsPrimitive(FunctionContext&, std::span<const Val> args) {
  Type t = args[0].type();
  return Arena::Bool(t == Type::kNull || t == Type::kBoolean || t == Type::kNumber || t == Type::kString);
}

constexpr FunctionDef kTypeCheckingFunctions[] = {
    {"IS_ARRAY", 1, 1, IsArray},         {"IS_BOOL", 1, 1, IsBool},
    {"IS_DEFINED", 1, 1, IsDefined},     {"IS_FINITE_NUMBER", 1, 1, IsFiniteNumber},
    {"IS_INTEGER", 1, 1, IsInteger},     {"IS_NULL", 1, 1, IsNull},
    {"IS_NUMBER", 1, 1, IsNumber},       {"IS_OBJECT", 1, 1, IsObject},
    {"IS_PRIMITIVE", 1, 1, IsPrimitive}, {"IS_STRING", 1, 1, IsString},
};

}  // namespace

std::span<const FunctionDef> TypeCheckingFunctions() { return kTypeCheckingFunctions; }

}  // namespace cosmos::query
