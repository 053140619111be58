// The one strict number parser: whole-text, no sign on unsigned, no overflow, no nan/inf, and the
// exact error text every caller relies on.
#include "core/arch/strict_number.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace strider {
namespace {

std::string error_of(void (*f)(const std::string&), const std::string& text) {
  try {
    f(text);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(no error)";
}
void u64(const std::string& t) { parse_u64(t, "--jobs"); }
void i64(const std::string& t) { parse_i64(t, "x"); }
void dbl(const std::string& t) { parse_double(t, "arch.clock.frequency_mhz"); }

TEST(StrictNumber, UnsignedAcceptsDecimalAndHexUpToTheMaximum) {
  EXPECT_EQ(parse_u64("0", "n"), 0u);
  EXPECT_EQ(parse_u64("4096", "n"), 4096u);
  EXPECT_EQ(parse_u64("0x1000", "n"), 4096u);
  EXPECT_EQ(parse_u64("18446744073709551615", "n"), 18446744073709551615ull);
}

TEST(StrictNumber, UnsignedRefusesJunkSignsAndOverflow) {
  const std::string kind = "expected an unsigned integer (at most 18446744073709551615)";
  EXPECT_EQ(error_of(u64, "abc"), "--jobs: " + kind + ", got 'abc'");
  EXPECT_EQ(error_of(u64, "-1"), "--jobs: " + kind + ", got '-1'");
  EXPECT_EQ(error_of(u64, "+1"), "--jobs: " + kind + ", got '+1'");
  EXPECT_EQ(error_of(u64, "5 junk"), "--jobs: " + kind + ", got '5 junk'");
  EXPECT_EQ(error_of(u64, " 5"), "--jobs: " + kind + ", got ' 5'");
  EXPECT_EQ(error_of(u64, ""), "--jobs: " + kind + ", got ''");
  EXPECT_EQ(error_of(u64, "0x"), "--jobs: " + kind + ", got '0x'");
  EXPECT_EQ(error_of(u64, "18446744073709551616"),
            "--jobs: " + kind + ", got '18446744073709551616'");
}

TEST(StrictNumber, SignedCoversTheWholeRange) {
  EXPECT_EQ(parse_i64("-9223372036854775808", "x"), INT64_MIN);
  EXPECT_EQ(parse_i64("9223372036854775807", "x"), INT64_MAX);
  EXPECT_EQ(parse_i64("+7", "x"), 7);
  EXPECT_EQ(parse_i64("-0x10", "x"), -16);
  const std::string kind = "expected an integer (-9223372036854775808..9223372036854775807)";
  EXPECT_EQ(error_of(i64, "9223372036854775808"), "x: " + kind + ", got '9223372036854775808'");
  EXPECT_EQ(error_of(i64, "-"), "x: " + kind + ", got '-'");
  EXPECT_EQ(error_of(i64, "1.5"), "x: " + kind + ", got '1.5'");
}

TEST(StrictNumber, DoubleRefusesNanInfHexAndOverflow) {
  EXPECT_EQ(parse_double("1e9", "f"), 1e9);
  EXPECT_EQ(parse_double("-0.5", "f"), -0.5);
  EXPECT_EQ(parse_double("1e-300", "f"), 1e-300);
  const std::string head = "arch.clock.frequency_mhz: expected a finite number, got '";
  for (const char* bad : {"nan", "inf", "-Infinity", "0x10", "1e400", "", " 1", "1 ", "1,5"}) {
    EXPECT_EQ(error_of(dbl, bad), head + bad + "'");
  }
}

}  // namespace
}  // namespace strider
