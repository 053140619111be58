// Real-valued keys (issue 31, item 7): each must be finite and within +-1e12, else an error
// naming the file and line (or the --set) and the key. `--set arch.energy.mac_pj=1e308` ran
// with energy, power and EDP null and TOPS/W 0.0.
#include <gtest/gtest.h>

#include "core/arch/config_loader.h"
#include "tests/config/config_test_util.h"

namespace strider {
namespace {

const std::string kSeed = std::string(STRIDER_SOURCE_DIR) + "/configs/arch/seed.yaml";

TEST(RealRange, HugeEnergyOnTheCommandLineIsRefused) {
  EXPECT_EQ(testing::errors_of([] { load_arch(kSeed, {"energy.mac_pj=1e308"}); }).at(0),
            "--set arch.energy.mac_pj=1e308: must be a finite number between -1e12 and 1e12 "
            "(the range of every real-valued key), got 1e308");
  EXPECT_EQ(load_arch(kSeed, {"energy.mac_pj=1e12"}).energy.mac_pj, 1e12);
}

TEST(RealRange, HugeValueInAFileNamesFileLineAndKey) {
  testing::TempDir dir;
  const std::string arch =
      dir.write("a.yaml", "arch:\n  energy:\n    tech: 16nm\n    l2_read_pj_per_byte: -2e13\n");
  EXPECT_EQ(testing::errors_of([&] { load_arch(arch); }).at(0),
            arch +
                ":4: arch.energy.l2_read_pj_per_byte: must be a finite number between -1e12 "
                "and 1e12 (the range of every real-valued key), got -2e13");
}

}  // namespace
}  // namespace strider
