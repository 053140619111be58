// An already-quantised model end to end: tests/e2e/data/tiny_qdq_cnn.onnx (PyTorch
// quantisation-aware export in QDQ form, scripts/qdq_models.py) planned and simulated on the seed
// architecture in timing and in functional mode, with the model's own int8 weights and scales
// (planner/import/onnx_ops_quant.cpp, planner/quant/calibrator.h step 0). Every compute layer's
// output equals the C++ reference, the cycles are those of the timing-only run, and the int8
// network's output tracks the float network. Each simulation runs in a forked child (SystemC
// elaborates once per process).
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "tests/e2e/child_run.h"

namespace strider {
namespace {

struct Figures {
  uint64_t cycles = 0, checked = 0, mismatches = 0;
  double output_sqnr_db = 0;
  int status = -1;  // 0: simulated without deadlock
  char detail[200] = {};
};

Figures simulate(bool functional) {
  const std::string src = STRIDER_SOURCE_DIR;
  return simulate_in_child<Figures>(
      src + "/configs/runs/default.yaml",
      {"networks[0].path=" + src + "/tests/e2e/data/tiny_qdq_cnn.onnx",
       std::string("sim.functional=") + (functional ? "true" : "false"),
       "output_dir=" + ::testing::TempDir() + "strider_qdq"},
      [](const RunResult& r, Figures& f) {
        f.cycles = r.cycles;
        f.checked = r.checked_tensors;
        f.mismatches = r.mismatches;
        f.output_sqnr_db = r.output_fidelity.sqnr_db();
      });
}

TEST(Qdq, TinyQdqCnnMatchesReferenceWithTimingCycles) {
  const Figures timing = simulate(false), functional = simulate(true);
  ASSERT_EQ(timing.status, 0) << timing.detail;
  ASSERT_EQ(functional.status, 0) << functional.detail;
  EXPECT_EQ(functional.mismatches, 0u) << functional.detail;
  EXPECT_EQ(functional.cycles, timing.cycles);
  // Compute layers: 3 convs (ReLU fused; the Add fused into the later one's store path),
  // MaxPool, Pad, AveragePool, the fc: 7 (the Flatten is a view).
  EXPECT_EQ(functional.checked, 7u);
  // Output SQNR against the float network on calibration image 0 (seed 1), as measured: 39.51 dB
  // (README; summary.json quant.output_sqnr_db); 37.66 dB when the Add's operands had to share
  // the larger of their imported scales.
  std::printf("tiny_qdq_cnn: output SQNR %.2f dB against the float network\n",
              functional.output_sqnr_db);
  EXPECT_NEAR(functional.output_sqnr_db, 39.51, 0.01);
}

}  // namespace
}  // namespace strider
