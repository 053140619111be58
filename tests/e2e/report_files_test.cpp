// The files of a run (DESIGN section 5): each file's columns, and totals that agree across files
// and with the model's own counters. Each test runs `strider run` in-process (its own process
// under ctest, as SystemC elaborates once per process) on the default run (tiny CNN, seed arch).
#include <cstdint>

#include "tests/e2e/report_util.h"

namespace strider::report_test {
namespace {

using Strings = std::vector<std::string>;

TEST(ReportFiles, EveryFileIsWrittenWithItsColumns) {
  Scratch dir("columns");
  run_strider(dir.str());
  for (const char* f : {"summary.json", "layers.csv", "descriptors.csv", "occupancy.csv",
                        "memory_plan.csv", "trace.json", "effective_config.yaml"}) {
    EXPECT_TRUE(fs::exists(dir.file(f))) << f;
  }
  EXPECT_FALSE(fs::exists(dir.file("waves.vcd")));  // sim.vcd is false in the default run
  EXPECT_EQ(read_csv(dir.file("layers.csv")).header,
            (Strings{"layer", "op", "tiles", "start", "end", "cycles", "macs", "utilization",
                     "dram_bytes", "l2_bytes", "lb_write_cycles", "shifted_writes",
                     "discarded_outputs", "compute_cycles", "stall_l2_conflict",
                     "l2_bank_conflict_cycles", "stall_dram", "stall_line_buffer",
                     "stall_backpressure", "bound_cycles", "bottleneck",
                     "mapping", "batch_order", "class", "energy_pj", "sqnr_db", "saturated_fraction",
                     "eval_sqnr_db", "eval_saturated_fraction", "dram_row_hit_rate"}));
  EXPECT_EQ(
      read_csv(dir.file("descriptors.csv")).header,
      (Strings{"id", "kind", "layer", "unit", "channel", "fetched", "ready", "start", "end", "mapping"}));
  EXPECT_EQ(read_csv(dir.file("occupancy.csv")).header,
            (Strings{"cycle", "l2_bytes", "line_buffer_bytes"}));
  EXPECT_EQ(read_csv(dir.file("memory_plan.csv")).header,
            (Strings{"tensor", "kind", "offset", "size", "first", "last"}));
  const nlohmann::json j = read_json(dir.file("summary.json"));
  for (const char* key : {"/cycles",
                          "/seconds_at_clock",
                          "/macs",
                          "/utilization",
                          "/dram/read_bytes",
                          "/dram/write_bytes",
                          "/dram/descriptor_fetch_bytes",
                          "/l2/capacity_bytes",
                          "/l2/peak_planned_bytes",
                          "/l2/peak_observed_bytes",
                          "/line_buffer/write_cycles",
                          "/line_buffer/shifted_writes",
                          "/line_buffer/discarded_outputs",
                          "/line_buffer/peak_observed_bytes",
                          "/planner/allocator",
                          "/planner/peak_bytes",
                          "/planner/lower_bound_bytes",
                          "/planner/seconds",
                          "/functional/enabled",
                          "/functional/checked_tensors",
                          "/functional/mismatches",
                          "/wall_seconds",
                          "/simulated_cycles_per_second",
                          "/totals/dram_bytes",
                          "/totals/compute_cycles"}) {
    EXPECT_TRUE(j.contains(nlohmann::json::json_pointer(key))) << key;
  }
}

// Without shift-stride writes every active line is written on its own, and auto runs tiny_cnn's
// 3x3 convs in im2col (regression case tiny_cnn_seed_shift_off): its 8,906 line writes (conv1
// 2,048, conv2a 2,560, conv2b 512, conv3 640, dw3 3,072, gap 64, fc 10; pool1, fused into conv1's
// store, wrote 8,192 more as its own layer) bound the run more than its MACs (1,254,720 / 256 =
// 4,902 cycles), its DRAM bytes (9,344 / 16 = 584) or its L2 bytes, so the network's bound is the
// line-buffer write port's 8,906 cycles; every layer's bound is at least its own write cycles and
// the write-bound layers (dw3, gap) name line_buffer.
TEST(ReportFiles, BoundIncludesTheLineBufferWritePort) {
  Scratch dir("bound_lb");
  run_strider(dir.str(), {"arch.l1.shift_stride=false"});
  const nlohmann::json j = read_json(dir.file("summary.json"));
  const Csv layers = read_csv(dir.file("layers.csv"));
  EXPECT_EQ(j["bound_cycles"].get<uint64_t>(), 8906u);
  EXPECT_EQ(j["line_buffer"]["write_cycles"].get<uint64_t>(), 8906u);
  size_t write_bound = 0;
  for (size_t i = 0; i < layers.rows.size(); ++i) {
    EXPECT_GE(layers.u(i, "bound_cycles"), layers.u(i, "lb_write_cycles"))
        << layers.rows[i].at("layer");
    write_bound += layers.rows[i].at("bottleneck") == "line_buffer";
  }
  EXPECT_GT(write_bound, 0u);
}

TEST(ReportFiles, LayerColumnsSumToTheSummaryAndTheModelCounters) {
  Scratch dir("totals");
  // In list order (dma.background_priority false) the default run prefetches conv3's weights
  // under earlier layers: a prefetch row (at background priority conv3's ordinary lead covers its
  // fills and there is none).
  run_strider(dir.str(), {"arch.dma.background_priority=false"});
  const nlohmann::json j = read_json(dir.file("summary.json"));
  const Csv layers = read_csv(dir.file("layers.csv"));
  ASSERT_FALSE(layers.rows.empty());
  for (const char* col : {"dram_bytes", "l2_bytes", "lb_write_cycles", "shifted_writes",
                          "discarded_outputs", "compute_cycles", "stall_l2_conflict", "stall_dram",
                          "stall_line_buffer", "stall_backpressure"}) {
    EXPECT_EQ(layers.sum(col), j["totals"][col].get<uint64_t>()) << col;
  }
  // Every layer's bound: at most its cycles (no layer beats its own limit), and the layers' add up
  // to the summary's (a deep prefetch's row, whose moves run under other layers, apart: the
  // default run prefetches conv3's weights); the network's bound is at most the run's cycles.
  uint64_t layer_bounds = 0, prefetch_rows = 0;
  for (size_t i = 0; i < layers.rows.size(); ++i) {
    EXPECT_LE(layers.u(i, "bound_cycles"), layers.u(i, "cycles")) << layers.rows[i].at("layer");
    EXPECT_FALSE(layers.rows[i].at("bottleneck").empty()) << layers.rows[i].at("layer");
    const bool prefetch = layers.rows[i].at("op") == "prefetch";
    prefetch_rows += prefetch;
    if (!prefetch) layer_bounds += layers.u(i, "bound_cycles");
  }
  EXPECT_EQ(prefetch_rows, 1u);
  EXPECT_EQ(layer_bounds, j["layer_bound_cycles"].get<uint64_t>());
  EXPECT_LE(j["bound_cycles"].get<uint64_t>(), j["cycles"].get<uint64_t>());
  auto stat = [&](const char* name) { return j["stats"][name]["value"].get<uint64_t>(); };
  // DRAM: every byte the model moved is a descriptor's (bursts included) or a descriptor fetch.
  EXPECT_EQ(layers.sum("dram_bytes") + j["dram"]["descriptor_fetch_bytes"].get<uint64_t>(),
            j["dram"]["read_bytes"].get<uint64_t>() + j["dram"]["write_bytes"].get<uint64_t>());
  // 23 descriptors of 64 B each (controller.descriptor_bytes of the seed arch).
  EXPECT_EQ(j["dram"]["descriptor_fetch_bytes"].get<uint64_t>(),
            j["descriptors"].get<uint64_t>() * 64);
  // L2: the three ports' bytes.
  EXPECT_EQ(layers.sum("l2_bytes"),
            stat("l2.dma_bytes") + stat("l2.load_bytes") + stat("l2.store_bytes"));
  EXPECT_EQ(layers.sum("macs"), j["macs"].get<uint64_t>());
  EXPECT_EQ(layers.sum("macs"), stat("neurons.macs"));
  EXPECT_EQ(layers.sum("compute_cycles"), stat("neurons.busy_cycles"));
  EXPECT_EQ(layers.sum("stall_line_buffer"), stat("neurons.stall_cycles"));
  EXPECT_EQ(layers.sum("lb_write_cycles"), j["line_buffer"]["write_cycles"].get<uint64_t>());
  EXPECT_EQ(layers.sum("shifted_writes"), j["line_buffer"]["shifted_writes"].get<uint64_t>());
  EXPECT_EQ(layers.sum("discarded_outputs"), j["line_buffer"]["discarded_outputs"].get<uint64_t>());
  EXPECT_EQ(layers.sum("tiles"), stat("neurons.tiles"));
  // Cycles: layers overlap (DMA prefetch), so their spans do not add up; the run ends when the
  // last layer's last descriptor retires, and each layer's span is end - start.
  uint64_t last_end = 0;
  for (size_t i = 0; i < layers.rows.size(); ++i) {
    EXPECT_EQ(layers.u(i, "cycles"), layers.u(i, "end") - layers.u(i, "start"));
    last_end = std::max(last_end, layers.u(i, "end"));
  }
  EXPECT_EQ(last_end, j["cycles"].get<uint64_t>());
}

TEST(ReportFiles, DescriptorsAgreeWithLayersAndOccupancyWithTheSummary) {
  Scratch dir("cross");
  run_strider(dir.str());
  const nlohmann::json j = read_json(dir.file("summary.json"));
  const Csv layers = read_csv(dir.file("layers.csv"));
  const Csv descs = read_csv(dir.file("descriptors.csv"));
  ASSERT_EQ(descs.rows.size(), j["descriptors"].get<size_t>());
  // layer -> (first start, last end): a layer with operation tiles starts at its first tile (its
  // weight moves prefetch earlier), a layer of moves at its first move.
  std::map<std::string, std::pair<uint64_t, uint64_t>> span;
  std::map<std::string, uint64_t> ops;
  for (size_t i = 0; i < descs.rows.size(); ++i) {
    ops[descs.rows[i].at("layer")] += descs.rows[i].at("kind") == "op" ? 1 : 0;
  }
  for (size_t i = 0; i < descs.rows.size(); ++i) {
    EXPECT_EQ(descs.u(i, "id"), i);
    const std::string& l = descs.rows[i].at("layer");
    const bool counts = descs.rows[i].at("kind") == "op" || ops[l] == 0;
    auto it = span.emplace(l, std::make_pair(UINT64_MAX, uint64_t{0})).first;
    if (counts) it->second.first = std::min(it->second.first, descs.u(i, "start"));
    it->second.second = std::max(it->second.second, descs.u(i, "end"));
    EXPECT_LE(descs.u(i, "fetched"), descs.u(i, "ready"));
    EXPECT_LE(descs.u(i, "ready"), descs.u(i, "start"));
    EXPECT_LT(descs.u(i, "start"), descs.u(i, "end"));
  }
  for (size_t i = 0; i < layers.rows.size(); ++i) {
    const std::string& l = layers.rows[i].at("layer");
    if (!span.count(l)) continue;  // in-place layers have no descriptor
    EXPECT_EQ(layers.u(i, "start"), span[l].first) << l;
    EXPECT_EQ(layers.u(i, "end"), span[l].second) << l;
    EXPECT_EQ(layers.u(i, "tiles"), ops[l]) << l;
  }
  const Csv occ = read_csv(dir.file("occupancy.csv"));
  ASSERT_FALSE(occ.rows.empty());
  uint64_t l2_peak = 0, lb_peak = 0, prev = 0;
  for (size_t i = 0; i < occ.rows.size(); ++i) {
    if (i > 0) {
      EXPECT_GT(occ.u(i, "cycle"), prev);  // one row per change, in time order
    }
    prev = occ.u(i, "cycle");
    l2_peak = std::max(l2_peak, occ.u(i, "l2_bytes"));
    lb_peak = std::max(lb_peak, occ.u(i, "line_buffer_bytes"));
  }
  EXPECT_EQ(l2_peak, j["l2"]["peak_observed_bytes"].get<uint64_t>());
  EXPECT_EQ(lb_peak, j["line_buffer"]["peak_observed_bytes"].get<uint64_t>());
  // Two fill slots (one written, one read) of at most 64 lines x 32 B each (seed arch).
  EXPECT_GT(lb_peak, 0u);
  EXPECT_LE(lb_peak, 2u * 64 * 32);
  EXPECT_EQ(occ.u(occ.rows.size() - 1, "line_buffer_bytes"), 0u);  // empty at the end
  // The memory plan's buffers fit the planned peak.
  const Csv plan = read_csv(dir.file("memory_plan.csv"));
  ASSERT_FALSE(plan.rows.empty());
  for (size_t i = 0; i < plan.rows.size(); ++i) {
    EXPECT_LE(plan.u(i, "offset") + plan.u(i, "size"), j["l2"]["capacity_bytes"].get<uint64_t>());
    EXPECT_LE(plan.u(i, "first"), plan.u(i, "last"));
  }
}

}  // namespace
}  // namespace strider::report_test
