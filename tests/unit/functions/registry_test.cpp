#include <gtest/gtest.h>

#include "query/functions/function.h"

namespace cosmos::query {
namespace {

TEST(FunctionRegistry, UnknownNameIsNull) { EXPECT_EQ(FindFunction("NO_SUCH_FUNCTION"), nullptr); }

}  // namespace
}  // namespace cosmos::query
