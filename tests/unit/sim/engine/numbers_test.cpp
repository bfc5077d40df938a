// The checked number parser every user-written number goes through (issue 17).
#include "sim/engine/numbers.hpp"

#include <gtest/gtest.h>

#include <cstdint>

namespace eksim::engine {
namespace {

TEST(ParseInteger, AcceptsWholeDecimalNumbersOnly) {
  EXPECT_EQ(parse_integer<int>("42").value, 42);
  EXPECT_EQ(parse_integer<int>("-7").value, -7);
  EXPECT_EQ(parse_integer<int>("+7").value, 7);
  EXPECT_TRUE(parse_integer<std::int64_t>("9223372036854775807").ok());
  for (const char* bad : {"", "+", "-", "+-1", "1.0", "1e3", "0x10", " 1", "1 ", "12abc", "abc"})
    EXPECT_EQ(parse_integer<int>(bad).status, NumberStatus::NotANumber) << bad;
}

TEST(ParseInteger, RangeErrorsAreNotWrappedOrClamped) {
  EXPECT_EQ(parse_integer<std::int32_t>("4294967295").status, NumberStatus::OutOfRange);
  EXPECT_EQ(parse_integer<std::int32_t>("2147483648").status, NumberStatus::OutOfRange);
  EXPECT_TRUE(parse_integer<std::int32_t>("2147483647").ok());
  EXPECT_EQ(parse_integer<std::int64_t>("99999999999999999999").status, NumberStatus::OutOfRange);
  EXPECT_EQ(parse_integer<std::int64_t>("99999999999999999999x").status, NumberStatus::NotANumber);
  // An unsigned target refuses a sign rather than wrapping "-1" to 2^64-1.
  EXPECT_EQ(parse_integer<std::uint64_t>("-1").status, NumberStatus::NotANumber);
  EXPECT_EQ(parse_integer<std::uint64_t>("18446744073709551616").status, NumberStatus::OutOfRange);
  EXPECT_EQ(parse_integer<int>("99999999999").value, 0);  // never a partial value
}

TEST(ParseReal, FiniteNumbersOnly) {
  EXPECT_DOUBLE_EQ(parse_real("0.5").value, 0.5);
  EXPECT_DOUBLE_EQ(parse_real("1e3").value, 1000);
  EXPECT_DOUBLE_EQ(parse_real("+2").value, 2);
  EXPECT_DOUBLE_EQ(parse_real("-.5").value, -0.5);
  EXPECT_DOUBLE_EQ(parse_real("1e300").value, 1e300);
  for (const char* bad : {"", "inf", "nan", "infinity", "0x1p3", "1e", "1.5x", " 1", "1,5"})
    EXPECT_EQ(parse_real(bad).status, NumberStatus::NotANumber) << bad;
  EXPECT_EQ(parse_real("1e400").status, NumberStatus::OutOfRange);
  EXPECT_EQ(parse_real("1e-400").status, NumberStatus::OutOfRange);
}

}  // namespace
}  // namespace eksim::engine
