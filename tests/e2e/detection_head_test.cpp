// An FPN-like detection head exported by PyTorch (scripts/make_detection_head.py,
// tests/e2e/data/tiny_fpn_det.onnx): a 3-conv backbone, lateral 1x1 convs, a nearest x2 Resize
// and a bilinear x2 Resize (pytorch_half_pixel) added to the finer levels, a ConvTranspose (k 4,
// s 2) branch concatenated, class and box conv heads on two levels. Planned and simulated on
// seed.yaml in timing and functional mode: every layer's output equals the C++ reference and
// functional mode takes the cycles of timing mode. Each simulation runs in a forked child
// (tests/e2e/child_run.h).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <string>

#include "tests/e2e/child_run.h"

namespace strider {
namespace {

struct Figures {
  uint64_t cycles = 0, checked = 0, mismatches = 0;
  int status = -1;
  char detail[160] = {};
};

Figures simulate(bool functional) {
  const std::string dir =
      ::testing::TempDir() + "strider_detection_head" + (functional ? "_f" : "_t");
  ::mkdir(dir.c_str(), 0755);
  const std::string run = dir + "/run.yaml";
  std::ofstream(run) << "arch: " << STRIDER_SOURCE_DIR << "/configs/arch/seed.yaml\n"
                     << "networks:\n  - {path: " << STRIDER_SOURCE_DIR
                     << "/tests/e2e/data/tiny_fpn_det.onnx}\nsim: {functional: "
                     << (functional ? "true" : "false") << ", trace: false}\noutput_dir: " << dir
                     << "/out\n";
  return simulate_in_child<Figures>(run, {}, [](const RunResult& r, Figures& f) {
    f.cycles = r.cycles;
    f.checked = r.checked_tensors;
    f.mismatches = r.mismatches;
  });
}

// Layers checked: the 14 compute layers c2, c3, c4, l4, l3, the Add of p3, the bilinear's
// interpolation conv with the Add of p2 fused into its store path (lowering.fuse; of the Add's
// two convs, l2 and it, the later in graph order takes it), the ConvTranspose's stacked
// sub-convolutions and its ReLU, the p3 heads, l2 and the f2 heads; the three gathers (the nearest Resize, the bilinear's
// nearest copy, the ConvTranspose's interleave) are moves, checked through the layers that read
// them (the Concat is written in place).
TEST(DetectionHead, FpnWithResizeMatchesReference) {
  const Figures timing = simulate(false), functional = simulate(true);
  ASSERT_EQ(timing.status, 0) << timing.detail;
  ASSERT_EQ(functional.status, 0) << functional.detail;
  EXPECT_EQ(functional.checked, 14u);
  EXPECT_EQ(functional.mismatches, 0u) << functional.detail;
  EXPECT_EQ(functional.cycles, timing.cycles);
}

}  // namespace
}  // namespace strider
