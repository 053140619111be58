// PackJob (`strider pack`): reads a CSV problem, plans it, reports and writes the solution.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "planner/memory/pack_job.h"

namespace strider::memory {
namespace {

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("strider_pack_" + std::to_string(::getpid()) + "_" + name))
      .string();
}

std::string write_file(const std::string& name, const std::string& text) {
  const std::string path = temp_path(name);
  std::ofstream(path) << text;
  return path;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The holes example: x [0,2) 32, y [0,4) 16, z [0,2) 16, w [0,4) 16, v [2,4) 16; LB 80.
const char* kHoles = "id,lower,upper,size\nx,0,2,32\ny,0,4,16\nz,0,2,16\nw,0,4,16\nv,2,4,16\n";

TEST(MemoryPack, ReportAndSolution) {
  PackRequest req;
  req.input = write_file("holes.csv", kHoles);
  req.allocator = "best_fit";
  req.output = temp_path("holes_solution.csv");
  PackJob job(req);
  PackResult r = job.run();
  std::ostringstream out;
  job.report(r, out, false);
  EXPECT_EQ(out.str(), "pack: " + req.input +
                           "\n"
                           "  buffers      5\n"
                           "  lower bound  80\n"
                           "  height       80\n"
                           "  gap          0.0000 %\n"
                           "  capacity     unbounded\n"
                           "  allocator    best_fit\n"
                           "  optimal      yes (height = lower bound)\n"
                           "  solution     " +
                           req.output + "\n");
  // Best fit: x,y,z,w stacked at 0,32,48,64; v takes z's exact hole at 48.
  EXPECT_EQ(read_file(req.output),
            "id,lower,upper,size,offset\nx,0,2,32,0\ny,0,4,16,32\nz,0,2,16,48\nw,0,4,16,64\n"
            "v,2,4,16,48\n");
  std::remove(req.input.c_str());
  std::remove(req.output.c_str());
}

TEST(MemoryPack, GapAndCapacityFromFileName) {
  PackRequest req;
  req.input = write_file("holes.100.csv", kHoles);
  req.allocator = "naive";
  PackJob job(req);
  PackResult r = job.run();
  EXPECT_EQ(r.problem.capacity, 100);
  std::ostringstream out;
  job.report(r, out, false);
  // naive stacks all five: 32 + 4 * 16 = 96, gap (96 - 80) / 80 = 20 %.
  EXPECT_NE(out.str().find("  height       96\n  gap          20.0000 %\n  capacity     100\n"),
            std::string::npos)
      << out.str();
  EXPECT_NE(out.str().find("  optimal      not proven\n"), std::string::npos);
  std::remove(req.input.c_str());
}

TEST(MemoryPack, CapacityTooSmallIsAnError) {
  PackRequest req;
  req.input = write_file("holes_small.csv", kHoles);
  req.allocator = "greedy_by_size";
  req.capacity = 64;
  try {
    PackJob(req).run();
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(),
                 "allocator 'greedy_by_size': plan height 80 exceeds capacity 64 (lower bound 80; "
                 "largest live set: 4 buffers, 80 bytes at time 0)");
  }
  std::remove(req.input.c_str());
}

TEST(MemoryPack, MalformedRowNamesFileAndLine) {
  PackRequest req;
  req.input = write_file("bad.csv", "id,lower,upper,size\na,0,2,16\nb,1,x,16\n");
  try {
    PackJob(req).run();
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()),
              req.input + ":3: column 'upper': expected a non-negative integer, got 'x'");
  }
  std::remove(req.input.c_str());
}

TEST(MemoryPack, GapPercent) {
  EXPECT_DOUBLE_EQ(gap_percent(101, 100), 1.0);
  EXPECT_DOUBLE_EQ(gap_percent(0, 0), 0.0);
}

}  // namespace
}  // namespace strider::memory
