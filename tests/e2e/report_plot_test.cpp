// scripts/plot_run.py on a run's output directory writes its PNGs (roofline, sorted layers,
// bandwidth, occupancy, memory map, overview; no occupancy.png with sim.detail=layers) (Debian's python3 with
// matplotlib, Agg backend), and fails with a message naming the file on a directory that is not
// a run's.
#include <cstdlib>

#include "tests/e2e/report_util.h"

namespace strider::report_test {
namespace {

const std::string kPlot =
    "/usr/bin/python3 " + std::string(STRIDER_SOURCE_DIR) + "/scripts/plot_run.py ";

TEST(ReportPlot, WritesThePngs) {
  if (std::system("/usr/bin/python3 -c 'import matplotlib' 2>/dev/null") != 0) {
    GTEST_SKIP() << "no /usr/bin/python3 with matplotlib";
  }
  Scratch dir("plot");
  run_strider(dir.str());
  ASSERT_EQ(std::system((kPlot + dir.str() + " --overview " + dir.file("overview.png") +
                         " > /dev/null")
                            .c_str()),
            0);
  for (const char* png : {"roofline.png", "layer_cycles.png", "bandwidth.png", "occupancy.png",
                          "memory_map.png", "overview.png"}) {
    const std::string bytes = slurp(dir.file(png));
    ASSERT_GT(bytes.size(), 1000u) << png;
    EXPECT_EQ(bytes.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8)) << png;
  }
  // Without occupancy.csv (sim.detail: layers) the rest is still drawn.
  // (The strider program: SystemC simulates once per process.)
  Scratch layers("plot_layers");
  ASSERT_EQ(std::system((std::string(STRIDER_BINARY_DIR) + "/strider run " + kDefaultRun +
                         " --out " + layers.str() + " --set sim.detail=layers > /dev/null")
                            .c_str()),
            0);
  ASSERT_EQ(std::system((kPlot + layers.str() + " > /dev/null").c_str()), 0);
  EXPECT_TRUE(fs::exists(layers.file("roofline.png")));
  EXPECT_FALSE(fs::exists(layers.file("occupancy.png")));
  EXPECT_FALSE(fs::exists(layers.file("overview.png")));  // only with --overview
}

TEST(ReportPlot, RefusesADirectoryWithoutARun) {
  if (std::system("/usr/bin/python3 -c 'import matplotlib' 2>/dev/null") != 0) {
    GTEST_SKIP() << "no /usr/bin/python3 with matplotlib";
  }
  Scratch dir("noplot");
  fs::create_directories(dir.str());
  const std::string err = dir.file("err.txt");
  EXPECT_NE(std::system((kPlot + dir.str() + " 2> " + err).c_str()), 0);
  EXPECT_EQ(slurp(err), "plot_run.py: " + dir.file("summary.json") +
                            ": not found (is this a `strider run` output directory?)\n");
}

}  // namespace
}  // namespace strider::report_test
