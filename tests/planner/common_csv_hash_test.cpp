// common/: the one CSV reader and writer (RFC 4180) and the one hash header.
#include <gtest/gtest.h>

#include <sstream>

#include "core/common/csv.h"
#include "core/common/hash.h"

namespace strider {
namespace {

using Fields = std::vector<std::string>;

TEST(CommonCsv, QuotesOnlyWhenNeededAndSplitsBack) {
  EXPECT_EQ(csv::quote("conv1"), "conv1");
  EXPECT_EQ(csv::quote("conv,1"), "\"conv,1\"");
  EXPECT_EQ(csv::quote("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(csv::quote("two\nlines"), "\"two\nlines\"");
  const Fields f = {"a", "b,c", "", "d\"e"};
  EXPECT_EQ(csv::join(f), "a,\"b,c\",,\"d\"\"e\"");
  EXPECT_EQ(csv::split(csv::join(f)), f);
}

TEST(CommonCsv, ReaderHandlesQuotedLineBreaksCrlfAndTrimming) {
  std::istringstream in("id, size\r\n\"x,\ny\",  4 \r\n\n z , \"  padded \" \n");
  csv::Reader r(in, /*trim_fields=*/true);
  Fields f;
  ASSERT_TRUE(r.next(f));
  EXPECT_EQ(f, (Fields{"id", "size"}));
  EXPECT_EQ(r.line(), 1u);
  ASSERT_TRUE(r.next(f));
  EXPECT_EQ(f, (Fields{"x,\ny", "4"}));  // one record over lines 2-3
  EXPECT_EQ(r.line(), 2u);
  ASSERT_TRUE(r.next(f));
  EXPECT_EQ(f, (Fields{""}));  // the blank line 4
  EXPECT_EQ(r.line(), 4u);
  ASSERT_TRUE(r.next(f));
  EXPECT_EQ(f, (Fields{"z", "  padded "}));  // quoted spaces are kept
  EXPECT_EQ(r.line(), 5u);
  EXPECT_FALSE(r.next(f));
}

TEST(CommonCsv, WriterQuotesTextAndFormatsNumbers) {
  std::ostringstream out;
  csv::Writer w(out);
  w << "conv,1" << uint64_t{42} << -7;
  w.fixed(0.25, 6) << std::string("op");
  w.end_row();
  w.row({"a", "b\"c"});
  EXPECT_EQ(out.str(), "\"conv,1\",42,-7,0.250000,op\na,\"b\"\"c\"\n");
}

TEST(CommonHash, Fnv1aAndSplitMix64KnownValues) {
  EXPECT_EQ(fnv1a64(""), 14695981039346656037ull);  // the offset basis
  EXPECT_EQ(fnv1a64("a"), 0xaf63dc4c8601ec8cull);    // the FNV reference test vector
  const char bytes[] = {'a'};
  EXPECT_EQ(fnv1a64_bytes(bytes, 1), fnv1a64("a"));
  // Continuing a hash equals hashing the concatenation.
  EXPECT_EQ(fnv1a64("b", fnv1a64("a")), fnv1a64("ab"));
  SplitMix64 rng(0);
  EXPECT_EQ(rng.next(), 0xe220a8397b1dcdafull);  // the reference first output for seed 0
  SplitMix64 dice(7);
  for (int i = 0; i < 1000; ++i) {
    const int64_t v = dice.uniform(-2, 3);
    ASSERT_GE(v, -2);
    ASSERT_LE(v, 3);
  }
}

}  // namespace
}  // namespace strider
