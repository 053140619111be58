// CSV reading and writing of planning problems, and the errors for malformed rows.
#include <gtest/gtest.h>

#include <sstream>
#include <stdexcept>

#include "planner/memory/csv_io.h"

namespace strider::memory {
namespace {

Problem parse(const std::string& text) {
  std::istringstream in(text);
  return read_problem_csv(in, "t.csv");
}

std::string error_of(const std::string& text) {
  try {
    parse(text);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "no error";
}

TEST(MemoryCsv, ReadsBasicFile) {
  Problem p = parse("id,lower,upper,size\n0,0,3,16\nb,3,9,8\n");
  ASSERT_EQ(p.buffers.size(), 2u);
  EXPECT_EQ(p.buffers[1].id, "b");
  EXPECT_EQ(p.buffers[1].lower, 3);
  EXPECT_EQ(p.buffers[1].upper, 9);
  EXPECT_EQ(p.buffers[1].size, 8);
  EXPECT_EQ(p.buffers[1].alignment, 1);
  EXPECT_FALSE(p.buffers[1].fixed_offset.has_value());
}

TEST(MemoryCsv, ReadsAlignmentAndOffsetWithCrlfAndBlankLines) {
  Problem p = parse("id,lower,upper,size,alignment,offset\r\na,0,3,16,8,32\r\n\r\nb,1,2,4,4,\r\n");
  ASSERT_EQ(p.buffers.size(), 2u);
  EXPECT_EQ(p.buffers[0].alignment, 8);
  EXPECT_EQ(p.buffers[0].fixed_offset, 32);
  EXPECT_EQ(p.buffers[1].alignment, 4);
  EXPECT_FALSE(p.buffers[1].fixed_offset.has_value());
}

TEST(MemoryCsv, WritesSolution) {
  Problem p = parse("id,lower,upper,size\na,0,3,16\nb,1,4,8\n");
  Solution s;
  s.offsets = {0, 16};
  s.height = 24;
  std::ostringstream out;
  write_solution_csv(out, p, s);
  EXPECT_EQ(out.str(), "id,lower,upper,size,offset\na,0,3,16,0\nb,1,4,8,16\n");
  // Read back: the offsets become fixed offsets.
  Problem q = parse(out.str());
  EXPECT_EQ(q.buffers[1].fixed_offset, 16);
}

TEST(MemoryCsv, WritesAlignmentWhenUsed) {
  Problem p = parse("id,lower,upper,size,alignment\na,0,3,16,64\n");
  Solution s;
  s.offsets = {64};
  s.height = 80;
  std::ostringstream out;
  write_solution_csv(out, p, s);
  EXPECT_EQ(out.str(), "id,lower,upper,size,alignment,offset\na,0,3,16,64,64\n");
}

TEST(MemoryCsv, BadInteger) {
  EXPECT_EQ(error_of("id,lower,upper,size\na,0,3,1x6\n"),
            "t.csv:2: column 'size': expected a non-negative integer, got '1x6'");
}

TEST(MemoryCsv, NegativeValue) {
  EXPECT_EQ(error_of("id,lower,upper,size\na,0,3,16\nb,-1,3,16\n"),
            "t.csv:3: column 'lower': expected a non-negative integer, got '-1'");
}

TEST(MemoryCsv, EmptyCell) {
  EXPECT_EQ(error_of("id,lower,upper,size\na,0,,16\n"),
            "t.csv:2: column 'upper': expected a non-negative integer, got ''");
}

TEST(MemoryCsv, ZeroAlignment) {
  EXPECT_EQ(error_of("id,lower,upper,size,alignment\na,0,3,16,0\n"),
            "t.csv:2: column 'alignment': expected a positive integer, got '0'");
}

TEST(MemoryCsv, WrongColumnCount) {
  EXPECT_EQ(error_of("id,lower,upper,size\na,0,3\n"),
            "t.csv:2: expected 4 columns (id,lower,upper,size), got 3");
}

TEST(MemoryCsv, UpperNotAfterLower) {
  EXPECT_EQ(error_of("id,lower,upper,size\na,5,5,16\n"),
            "t.csv:2: column 'upper': expected a value greater than lower 5, got '5'");
}

TEST(MemoryCsv, DuplicateId) {
  EXPECT_EQ(error_of("id,lower,upper,size\na,0,3,16\na,1,3,16\n"),
            "t.csv:3: column 'id': duplicate id 'a'");
}

TEST(MemoryCsv, MisalignedFixedOffset) {
  EXPECT_EQ(error_of("id,lower,upper,size,alignment,offset\na,0,3,16,8,12\n"),
            "t.csv:2: column 'offset': 12 is not a multiple of alignment 8");
}

TEST(MemoryCsv, UnknownColumn) {
  EXPECT_EQ(error_of("id,lower,upper,bytes\n"),
            "t.csv:1: unknown column 'bytes', expected id,lower,upper,size[,alignment][,offset]");
}

TEST(MemoryCsv, ColumnsOutOfOrder) {
  EXPECT_EQ(error_of("id,upper,lower,size\n"),
            "t.csv:1: header 'id,upper,lower,size', expected "
            "id,lower,upper,size[,alignment][,offset]");
}

TEST(MemoryCsv, EmptyInput) { EXPECT_EQ(error_of(""), "t.csv:1: empty file, expected a header"); }

TEST(MemoryCsv, MissingFile) {
  EXPECT_THROW(read_problem_csv_file("/nonexistent/x.csv"), std::runtime_error);
}

TEST(MemoryCsv, CapacityFromFileName) {
  EXPECT_EQ(capacity_from_file_name("../shared/benchmarks/minimalloc/challenging/A.1048576.csv"),
            1048576);
  EXPECT_EQ(capacity_from_file_name("input.12.csv"), 12);
  EXPECT_EQ(capacity_from_file_name("resnet50.csv"), 0);
  EXPECT_EQ(capacity_from_file_name("pangu_2.6B.csv"), 0);
}

// Issue 31, item 10: a header with a UTF-8 byte-order mark (spreadsheets write one) read as
// "unknown column 'id'"; an upper bound of 2^63-1 got "expected a non-negative integer".
TEST(MemoryCsv, ByteOrderMarkIsSkippedAndHugeBoundsAreNamed) {
  std::istringstream bom("\xEF\xBB\xBFid,lower,upper,size\na,0,2,16\n");
  const Problem p = read_problem_csv(bom, "t.csv");
  ASSERT_EQ(p.buffers.size(), 1u);
  EXPECT_EQ(p.buffers[0].id, "a");
  EXPECT_EQ(p.buffers[0].size, 16);
  std::istringstream huge("id,lower,upper,size\na,0,9223372036854775807,16\n");
  try {
    read_problem_csv(huge, "t.csv");
    FAIL() << "accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()),
              "t.csv:2: column 'upper': 9223372036854775807 is out of range, expected at most "
              "999999999999999999 (18 digits)");
  }
}

}  // namespace
}  // namespace strider::memory
