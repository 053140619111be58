// Energy, power and area (tb/energy_model.h): the totals of summary.json and layers.csv agree
// and match the units' own counters; shift stride off scales the line-buffer energy by the
// ratio of line-buffer write bytes (the model charges bytes written into lines); a larger L2
// raises the energy per L2 access; and one small convolution on tiny.yaml with every action
// count derived by hand.
#include <cmath>
#include <cstdlib>

#include "tests/e2e/report_util.h"

namespace strider::report_test {
namespace {

const std::string kSrc = STRIDER_SOURCE_DIR;

// A run file for `network` on the tiny arch.
std::string tiny_run(const Scratch& dir, const std::string& network) {
  fs::create_directories(dir.str());
  std::ofstream f(dir.file("run.yaml"));
  f << "arch: " << kSrc << "/configs/arch/tiny.yaml\n"
    << "networks:\n  - {path: " << network << "}\n"
    << "sim: {trace: false}\n";
  return dir.file("run.yaml");
}

// A second simulation cannot elaborate in this process (SystemC): the runs that are compared
// each run in a `strider` process of their own.
void run_process(const std::string& out, const std::vector<std::string>& sets) {
  std::string cmd = std::string(STRIDER_BINARY_DIR) + "/strider run " + kDefaultRun + " --out " +
                    out + " --set sim.trace=false";
  for (const std::string& s : sets) cmd += " --set " + s;
  ASSERT_EQ(std::system((cmd + " > /dev/null").c_str()), 0) << cmd;
}

uint64_t stat(const nlohmann::json& s, const std::string& name) {
  return s["stats"][name]["value"].get<uint64_t>();
}
uint64_t count(const nlohmann::json& s, const std::string& action) {
  return s["energy"]["by_action"][action]["count"].get<uint64_t>();
}
double pj(const nlohmann::json& s, const std::string& action) {
  return s["energy"]["by_action"][action]["pj"].get<double>();
}

TEST(Energy, TotalsAgreeAcrossFilesAndWithTheUnitsCounters) {
  Scratch dir("energy_totals");
  run_strider(dir.str(), {"sim.trace=false"});
  const nlohmann::json s = read_json(dir.file("summary.json"));
  const nlohmann::json& e = s["energy"];
  // Counts are the units' own counters.
  EXPECT_EQ(count(s, "mac"), stat(s, "neurons.macs"));
  EXPECT_EQ(count(s, "acc_update"), stat(s, "neurons.acc_updates"));
  EXPECT_EQ(count(s, "lb_write"), stat(s, "line_buffer.write_bytes"));
  EXPECT_EQ(count(s, "lb_write_cycle"), stat(s, "line_buffer.write_cycles"));
  EXPECT_EQ(count(s, "kernel_write"), stat(s, "kernel.load_bytes"));
  EXPECT_EQ(count(s, "kernel_read"), stat(s, "neurons.busy_cycles") * 4);  // x macs_per_cycle
  EXPECT_EQ(count(s, "l2_read") + count(s, "l2_write"),
            stat(s, "l2.dma_bytes") + stat(s, "l2.load_bytes") + stat(s, "l2.store_bytes"));
  // DRAM (LPDDR4-3200, JEDEC model): DRAMPower's terms count the DRAM's own commands and
  // residency; the ranks' standby and power-down cycles cover the run (2 channels x the run's
  // DRAM cycles: 6,282 ns / 0.625 ns = 10,051.2, the partial last cycle counted: 10,052).
  EXPECT_FALSE(s["energy"]["by_action"].contains("dram"));
  EXPECT_EQ(count(s, "dram_rd") + count(s, "dram_wr"), stat(s, "dram.bursts"));
  EXPECT_EQ(count(s, "dram_rd_io"), count(s, "dram_rd"));
  EXPECT_EQ(count(s, "dram_act"), stat(s, "dram.cmd_act"));
  EXPECT_EQ(count(s, "dram_pre"), stat(s, "dram.cmd_pre") + stat(s, "dram.cmd_prea"));
  EXPECT_EQ(count(s, "dram_ref"), stat(s, "dram.cmd_ref"));
  EXPECT_EQ(count(s, "dram_refpb"), stat(s, "dram.cmd_refpb"));
  EXPECT_EQ(count(s, "dram_act_standby"), stat(s, "dram.rank_active_cycles"));
  EXPECT_EQ(count(s, "dram_pre_standby"), stat(s, "dram.rank_precharged_cycles"));
  EXPECT_EQ(count(s, "dram_act_powerdown"), stat(s, "dram.rank_active_powerdown_cycles"));
  EXPECT_EQ(count(s, "dram_pre_powerdown"), stat(s, "dram.rank_precharged_powerdown_cycles"));
  ASSERT_EQ(s["cycles"], 6282);
  EXPECT_EQ(count(s, "dram_act_standby") + count(s, "dram_pre_standby") +
                count(s, "dram_act_powerdown") + count(s, "dram_pre_powerdown"),
            2u * 10052);
  EXPECT_GT(count(s, "dram_act_powerdown") + count(s, "dram_pre_powerdown"), 0u);
  EXPECT_EQ(count(s, "descriptor"), stat(s, "controller.descriptors"));
  EXPECT_EQ(count(s, "vector_mac") + count(s, "vector_exp"), 0u);  // tiny_cnn: no vector op
  // Gated clocks: the neurons are clocked on their busy cycles, 64 x 4 lanes x 32 + 64 x 32 =
  // 10,240 flip-flops; the controller every cycle (20,000 gates / 25 = 800 flip-flops).
  EXPECT_EQ(count(s, "neurons_clock"), 10240 * stat(s, "neurons.busy_cycles"));
  EXPECT_EQ(count(s, "controller_clock"), 800 * s["cycles"].get<uint64_t>());
  // by_action and by_unit both add up to the total; dynamic + clock + leakage = total.
  double actions = 0, units = 0;
  for (const auto& a : e["by_action"]) actions += a["pj"].get<double>();
  for (const auto& u : e["by_unit"]) units += u.get<double>();
  const double total = e["total_pj"].get<double>();
  EXPECT_NEAR(actions, total, total * 1e-12);
  EXPECT_NEAR(units, total, total * 1e-12);
  EXPECT_NEAR(e["dynamic_pj"].get<double>() + e["clock_pj"].get<double>() +
                  e["leakage_pj"].get<double>() + e["dram_background_pj"].get<double>(),
              total, total * 1e-12);
  EXPECT_NEAR(e["dram_background_pj"].get<double>(),
              pj(s, "dram_ref") + pj(s, "dram_refpb") + pj(s, "dram_act_standby") +
                  pj(s, "dram_pre_standby") + pj(s, "dram_act_powerdown") +
                  pj(s, "dram_pre_powerdown"),
              total * 1e-12);
  // On-chip + DRAM = total; DRAM is unit dram.
  EXPECT_NEAR(e["onchip_pj"].get<double>() + e["dram_pj"].get<double>(), total, total * 1e-12);
  EXPECT_DOUBLE_EQ(e["dram_pj"].get<double>(), e["by_unit"]["dram"].get<double>());
  // layers.csv: the layers' energy (3 decimals each) adds up to the dynamic energy but for the
  // DRAM command energy no layer is charged.
  const Csv layers = read_csv(dir.file("layers.csv"));
  // then sqnr_db, saturated_fraction, the evaluation set's two and dram_row_hit_rate
  ASSERT_EQ(layers.header[layers.header.size() - 6], "energy_pj");
  double sum = 0;
  for (const auto& row : layers.rows) sum += std::stod(row.at("energy_pj"));
  EXPECT_NEAR(sum + e["dram_unattributed_pj"].get<double>(), e["dynamic_pj"].get<double>(),
              0.0005 * layers.rows.size());
  // Power, efficiency, EDP from the same total.
  const double seconds = s["seconds_at_clock"].get<double>();
  EXPECT_NEAR(s["power_mw"].get<double>(), total * 1e-12 / seconds * 1e3, 1e-9);
  EXPECT_NEAR(s["tops_per_watt"].get<double>(), 2.0 * s["macs"].get<double>() / total, 1e-12);
  const double onchip = e["onchip_pj"].get<double>();
  EXPECT_NEAR(s["tops_per_watt_onchip"].get<double>(), 2.0 * s["macs"].get<double>() / onchip,
              1e-12);
  EXPECT_NEAR(s["power_onchip_mw"].get<double>() + s["power_dram_mw"].get<double>(),
              s["power_mw"].get<double>(), 1e-9);
  EXPECT_NEAR(s["edp"].get<double>(), total * 1e-12 * seconds, 1e-20);
  double area = 0;
  for (const auto& [unit, mm2] : s["area_mm2"].items()) {
    if (unit != "total") area += mm2.get<double>();
  }
  EXPECT_NEAR(area, s["area_mm2"]["total"].get<double>(), 1e-12);
}

// A run writes its action energies and areas as Accelergy ERT / ART tables (ert.yaml, art.yaml);
// a second run importing the ERT (arch.energy.ert) reproduces every action's energy to the bit.
// (The ART's um2 re-import to rounding: tests/config/energy_tables_test.cpp.)
TEST(Energy, ExportedTablesReimportToTheSameEnergy) {
  Scratch a("energy_ert_a"), b("energy_ert_b");
  run_process(a.str(), {});
  run_process(b.str(), {"arch.energy.ert=" + a.file("ert.yaml")});
  ASSERT_TRUE(fs::exists(a.file("art.yaml")));
  const nlohmann::json x = read_json(a.file("summary.json"));
  const nlohmann::json y = read_json(b.file("summary.json"));
  EXPECT_EQ(x["energy"]["by_action"], y["energy"]["by_action"]);
  EXPECT_EQ(x["energy"]["total_pj"].get<double>(), y["energy"]["total_pj"].get<double>());
}

TEST(Energy, ShiftStrideOffRaisesLineBufferEnergyByTheWriteCyclesRatio) {
  Scratch on("energy_shift_on"), off("energy_shift_off");
  run_process(on.str(), {});
  run_process(off.str(), {"arch.l1.shift_stride=false"});
  const nlohmann::json a = read_json(on.file("summary.json"));
  const nlohmann::json b = read_json(off.file("summary.json"));
  // The default run (tiny_cnn on seed.yaml, add1 fused into conv2b: its 8,192 line bytes and 128
  // write cycles gone; pool1 fused into conv1's store: its 28,672 bytes in 256 write cycles as a
  // strided stream gone, 8,192 write cycles without shift stride): with shift stride the lines
  // receive 177,312 bytes (a shifted write stores a segment in every active line; conv1 and conv2a
  // walk their output rows back to back, a segment one write per output row a run spans and no
  // discarded position's line written; dw3 runs as a strided stream, its discarded positions'
  // lines written too) in 3,226 write cycles (3,152 shifted + 74 single-line); without, auto runs
  // the 3x3 convs in im2col (their lines take their channels' weights) and the lines receive
  // 167,232 bytes in 8,906 single-line write cycles.
  ASSERT_EQ(stat(a, "line_buffer.write_bytes"), 177312u);
  ASSERT_EQ(stat(b, "line_buffer.write_bytes"), 167232u);
  ASSERT_EQ(stat(a, "line_buffer.write_cycles"), 3226u);
  ASSERT_EQ(stat(b, "line_buffer.write_cycles"), 8906u);
  // The write port's per-cycle energy rises by the ratio of write cycles, 8906 / 3226 = 2.8x;
  // the cells' energy by the ratio of bytes.
  EXPECT_DOUBLE_EQ(pj(b, "lb_write_cycle") / pj(a, "lb_write_cycle"), 8906.0 / 3226.0);
  EXPECT_DOUBLE_EQ(pj(b, "lb_write") / pj(a, "lb_write"), 167232.0 / 177312.0);
  // Line-buffer energy in all: a write cycle costs 8 bytes' worth (one 64-bit access), so
  // (167232 + 8 x 8906) / (177312 + 8 x 3226) = 238480 / 203120 = 1.17x.
  const auto lb = [](const nlohmann::json& s) {
    return pj(s, "lb_write") + pj(s, "lb_write_cycle");
  };
  EXPECT_NEAR(lb(b) / lb(a), 238480.0 / 203120.0, 1e-12);
  // Without shift stride each line reads its own block from L2: more L2 read energy.
  EXPECT_GT(pj(b, "l2_read"), pj(a, "l2_read"));
  EXPECT_GT(stat(b, "line_buffer.write_cycles"), stat(a, "line_buffer.write_cycles"));
}

// energy.clock_gating: false clocks every unit every cycle; true only on its busy cycles. The
// clock and the leakage grow with simulated time (shift stride off: slower, more of both).
TEST(Energy, ClockGatingAndTimeProportionalTerms) {
  Scratch gated("energy_gated"), ungated("energy_ungated"), slow("energy_slow");
  run_process(gated.str(), {});
  run_process(ungated.str(), {"arch.energy.clock_gating=false"});
  run_process(slow.str(), {"arch.l1.shift_stride=false"});
  const nlohmann::json a = read_json(gated.file("summary.json"));
  const nlohmann::json b = read_json(ungated.file("summary.json"));
  const nlohmann::json c = read_json(slow.file("summary.json"));
  const uint64_t cycles = a["cycles"].get<uint64_t>();
  ASSERT_EQ(b["cycles"].get<uint64_t>(), cycles);  // gating changes energy, not time
  // seed.yaml at 16 nm: 10,240 neuron flip-flops, 3 fJ x 0.3 = 0.0009 pJ per flop-cycle.
  EXPECT_EQ(count(b, "neurons_clock"), 10240 * cycles);
  EXPECT_EQ(count(a, "neurons_clock"), 10240 * stat(a, "neurons.busy_cycles"));
  EXPECT_NEAR(pj(b, "neurons_clock"), 10240 * double(cycles) * 0.0009, 1e-6);
  EXPECT_GT(b["energy"]["clock_pj"].get<double>(), a["energy"]["clock_pj"].get<double>());
  EXPECT_DOUBLE_EQ(b["energy"]["dynamic_pj"].get<double>(),
                   a["energy"]["dynamic_pj"].get<double>());
  // Logic leakage is area x cycles: the neurons' 16 nm logic area x 5 mW/mm2 = 5 pJ per mm2
  // per cycle at 1 GHz.
  const double neurons_mm2 = (256 * 318.0 + 64 * 137.0 + 10240 * 4.522) * (3.3 / 28.9) * 1e-6;
  EXPECT_NEAR(pj(a, "neurons_logic_leakage"), neurons_mm2 * 5 * double(cycles), 1e-9);
  // Shift stride off: more cycles, so more leakage and more ungated (controller) clock.
  ASSERT_GT(c["cycles"].get<uint64_t>(), cycles);
  EXPECT_GT(c["energy"]["leakage_pj"].get<double>(), a["energy"]["leakage_pj"].get<double>());
  EXPECT_GT(pj(c, "controller_clock"), pj(a, "controller_clock"));
}

TEST(Energy, LargerL2RaisesEnergyPerL2Access) {
  Scratch small("energy_l2_small"), big("energy_l2_big");
  run_process(small.str(), {"arch.l2.size_bytes=524288"});
  run_process(big.str(), {"arch.l2.size_bytes=2097152"});
  const nlohmann::json a = read_json(small.file("summary.json"));
  const nlohmann::json b = read_json(big.file("summary.json"));
  // 16 nm: 0.3 x 1.25 x {5, 10} (tests/config/energy_presets_test.cpp): 1.875 and 3.75 pJ/B.
  EXPECT_DOUBLE_EQ(a["energy"]["by_action"]["l2_read"]["pj_each"].get<double>(), 1.875);
  EXPECT_DOUBLE_EQ(b["energy"]["by_action"]["l2_read"]["pj_each"].get<double>(), 3.75);
  EXPECT_GT(b["energy"]["by_unit"]["l2"].get<double>(), a["energy"]["by_unit"]["l2"].get<double>());
  EXPECT_GT(b["area_mm2"]["l2"].get<double>(), a["area_mm2"]["l2"].get<double>());
}

bool have_matplotlib() {
  return std::system("/usr/bin/python3 -c 'import matplotlib' 2>/dev/null") == 0;
}

TEST(Energy, PlotRunDrawsTheEnergyBreakdown) {
  if (!have_matplotlib()) GTEST_SKIP() << "no /usr/bin/python3 with matplotlib";
  Scratch dir("energy_plot");
  run_strider(dir.str(), {"sim.trace=false"});
  const std::string cmd =
      "/usr/bin/python3 " + kSrc + "/scripts/plot_run.py " + dir.str() + " > /dev/null";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  const std::string bytes = slurp(dir.file("energy.png"));
  ASSERT_GT(bytes.size(), 1000u);
  EXPECT_EQ(bytes.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
}

// scripts/energy_table.py prints docs/model.md's table row from a summary.json: a made-up one
// of 2 mJ (2e9 pJ) whose units are 1.2e9 DRAM, 5e8 L2, 1e8 L1, 1.8e8 neurons (of which 1e8 MACs),
// 2e7 vector: shares 60.0, 25.0, 5.0, 9.0 (5.0), 1.00 %; clock 8e7 = 4.0 %, leakage 4e6 = 0.20 %.
TEST(Energy, EnergyTableRowsAreTheSummarysShares) {
  Scratch dir("energy_table");
  const fs::path run = fs::path(dir.str()) / "net_a";
  fs::create_directories(run);
  {
    std::ofstream f(run / "summary.json");
    f << R"({"cycles": 1234567, "energy": {"total_pj": 2e9, "clock_pj": 8e7, "leakage_pj": 4e6,
          "by_unit": {"dram": 1.2e9, "l2": 5e8, "l1": 1e8, "neurons": 1.8e8, "vector": 2e7},
          "by_action": {"mac": {"pj": 1e8}}},
        "power_onchip_mw": 101.4, "power_dram_mw": 193.6, "tops_per_watt": 1.234,
        "tops_per_watt_onchip": 3.8349, "area_mm2": {"total": 0.87654}})";
  }
  const std::string cmd = "/usr/bin/python3 " + kSrc + "/scripts/energy_table.py " + run.string() +
                          " > " + dir.file("out.txt") + " 2> " + dir.file("err.txt");
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  EXPECT_EQ(slurp(dir.file("out.txt")),
            "| network | cycles | energy / inference | DRAM | L2 | L1 (line buffer + kernel region)"
            " | neurons (MACs) | vector | clock | leakage | power on-chip + DRAM"
            " | TOPS/W (on-chip) | area |\n"
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n"
            "| net_a | 1,234,567 | 2.00 mJ | 60.0 % | 25.0 % | 5.0 % | 9.0 % (5.0 %) | 1.00 % | 4.0 %"
            " | 0.20 % | 101 + 194 mW | 1.23 (3.83) | 0.877 mm2 |\n");
  // A directory without a summary: an error naming the file, and nothing printed.
  const std::string missing = "/usr/bin/python3 " + kSrc + "/scripts/energy_table.py " +
                              run.string() + " " + dir.file("none") + " > " + dir.file("out2.txt") +
                              " 2> " + dir.file("err2.txt");
  EXPECT_NE(std::system(missing.c_str()), 0);
  EXPECT_EQ(slurp(dir.file("out2.txt")), "");
  EXPECT_EQ(slurp(dir.file("err2.txt")),
            "energy_table.py: " + dir.file("none") + "/summary.json: [Errno 2] No such file or "
            "directory: '" + dir.file("none") + "/summary.json'\n");
}

// Points (cycles, energy): a (10, 50), b (20, 30), c (15, 60) dominated by a, d (30, 30)
// dominated by b, e (40, 10): the front is a, b, e in order of cycles.
TEST(Energy, PlotSweepMarksTheParetoFront) {
  if (!have_matplotlib()) GTEST_SKIP() << "no /usr/bin/python3 with matplotlib";
  Scratch dir("energy_pareto");
  fs::create_directories(dir.str());
  {
    std::ofstream f(dir.file("results.csv"));
    f << "point,arch.l2.size_bytes,cycles,energy.total_pj,error\n"
      << "0,a,10,50,\n1,b,20,30,\n2,c,15,60,\n3,d,30,30,\n4,e,40,10,\n";
  }
  const std::string cmd = "/usr/bin/python3 " + kSrc + "/scripts/plot_sweep.py " +
                          dir.file("results.csv") + " --pareto --x cycles --y energy.total_pj > " +
                          dir.file("out.txt");
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  EXPECT_EQ(slurp(dir.file("out.txt")), dir.file("pareto_energy.total_pj_vs_cycles.png") +
                                            "\npoint,arch.l2.size_bytes,cycles,energy.total_pj\n"
                                            "0,a,10,50\n1,b,20,30\n4,e,40,10\n");
  EXPECT_GT(slurp(dir.file("pareto_energy.total_pj_vs_cycles.png")).size(), 1000u);
}

// tests/e2e/data/energy_conv.yaml on tiny.yaml (45 nm, LPDDR4): a 3x3 pad-1 conv, 1 input
// channel of 4 x 8, 4 output channels. Tiny: 8 neurons, 16 B lines, 4 MACs/cycle, 4
// accumulators, 512 B kernel region, 16 B DMA bursts, 64 B descriptors, 64 KiB L2 in 4 banks.
TEST(Energy, HandComputedSmallConvOnTiny) {
  Scratch dir("energy_hand");
  run_strider(dir.str(), {}, tiny_run(dir, kSrc + "/tests/e2e/data/energy_conv.yaml"));
  const nlohmann::json s = read_json(dir.file("summary.json"));
  // Counts (core/timing/tile_work.h, positions mapping, one tile of 4 channels = one group of 4):
  //   segments = 1 channel x 3 kernel rows = 3 of width 3; a fill holds 16 / 3 = 5: one fill.
  //   Stride 1, its 4 output rows walked back to back (the padded stream, virtual rows of Wp = 8
  //   + 2 = 10, would be 3 x 10 + 8 = 38 positions in 5 runs): 32 positions in 4 runs of 8, one
  //   output row each. Per run: compute = 4 channels x ceil(3 x 3 / 4) = 12 cycles.
  //   mac         = 4 channels x 4 x 8 outputs x 9 = 1152
  //   acc_update  = 32 positions x 12 cycles = 384
  //   lb_write    = 3 segments x 3 B x 32 active lines = 288 B
  //   lb_write_cycle = 4 runs x 3 segments, each one shifted write (the run's one row) = 12
  //   kernel_read = 4 runs x 12 cycles x 4 B = 192 B
  //   kernel_write= 4 x 9 = 36 B (the whole kernel fits: loaded once)
  //   l2_read     = tile: the stored row pieces of the 4 runs' blocks (model/l1/row_pieces.h):
  //                 per run (output row r) and kernel row kh the stored row r + kh - 1, its 8 B
  //                 (the pad columns made in the block), rows -1 and 4 padding: 4 x 3 - 2 = 10
  //                 pieces, 80 B, + 36 kernel = 116; the output move reads 4 x 4 x 8 = 128: 244 B
  //   l2_write    = moves in: input 32 + weights 36 + bias 4 x 4 = 16; tile stores 128: 212 B
  //   dram        = moves: input 32 + weights 48 (36 rounded up to 16 B bursts) + bias 16 +
  //                 output 128 = 224; 5 descriptors x 64 B fetched = 320: 544 B
  //   descriptor  = 5 (input, weights, bias, the conv tile, output)
  EXPECT_EQ(count(s, "mac"), 1152u);
  EXPECT_EQ(count(s, "acc_update"), 384u);
  EXPECT_EQ(count(s, "lb_write"), 288u);
  EXPECT_EQ(count(s, "lb_write_cycle"), 12u);
  EXPECT_EQ(count(s, "kernel_read"), 192u);
  EXPECT_EQ(count(s, "kernel_write"), 36u);
  EXPECT_EQ(count(s, "l2_read"), 244u);
  EXPECT_EQ(count(s, "l2_write"), 212u);
  EXPECT_EQ(count(s, "dram"), 544u);
  EXPECT_EQ(count(s, "descriptor"), 5u);
  EXPECT_EQ(count(s, "vector_mac"), 0u);
  ASSERT_EQ(s["cycles"].get<uint64_t>(), 208u);
  // Busy cycles: neurons 4 runs x 12 = 48; the load unit and the one DMA channel as counted.
  ASSERT_EQ(stat(s, "neurons.busy_cycles"), 48u);
  const uint64_t load_busy = stat(s, "load.busy_cycles"), dma_busy = stat(s, "dma.busy_cycles");
  ASSERT_EQ(load_busy, 30u);
  ASSERT_EQ(dma_busy, 118u);
  // Energy per action at 45 nm (core/arch/energy_presets.cpp; SRAM: E8K = 10 pJ / 8 B = 1.25 pJ/B
  // scaled by 0.5 sqrt(bank / 8 KiB) + 0.5 sqrt(total / 8 KiB)):
  const double lb = 1.25 * (0.5 * std::sqrt(128.0 / 8192) + 0.5 * std::sqrt(256.0 / 8192));
  const double kr = 1.25 * std::sqrt(512.0 / 8192);  // 0.3125
  const double l2 = 1.25 * (0.5 * std::sqrt(16384.0 / 8192) + 0.5 * std::sqrt(65536.0 / 8192));
  const double desc = 64 * 1.25 * std::sqrt(256.0 / 8192);  // 64 B of a 4 x 64 B prefetch buffer
  const std::vector<std::pair<const char*, double>> expected = {
      {"mac", 1152 * 0.23},             // 264.96
      {"acc_update", 384 * 0.1},        // 38.4
      {"lb_write", 288 * lb},           // 54.320
      {"lb_write_cycle", 12 * 8 * lb},  // 18.107 (a write cycle = one 64-bit access)
      {"kernel_read", 192 * kr},        // 60
      {"kernel_write", 36 * kr},        // 11.25
      {"l2_read", 244 * l2},            // 647.003
      {"l2_write", 212 * l2},           // 562.150
      {"dram", 544 * 64.0},             // 34816 (LPDDR4 8 pJ/bit)
      {"descriptor", 5 * desc},         // 70.711
      {"vector_mac", 0.0},
      // Clock, 3 fJ = 0.003 pJ per flip-flop-cycle, gated: neurons 32 lanes x 32 + 8 x 32 =
      // 1280 flops x 48 busy cycles; load 1200 x its busy cycles; dma 600 x channel-cycles;
      // vector 4 lanes x 96 = 384 x 0; controller 800 and store 400 every one of 208 cycles.
      {"neurons_clock", 1280 * 48 * 0.003},        // 184.32
      {"load_clock", 1200.0 * load_busy * 0.003},  // 108
      {"dma_clock", 600.0 * dma_busy * 0.003},     // 212.4
      {"vector_clock", 0.0},
      {"controller_clock", 800 * 208 * 0.003},  // 499.2
      {"store_clock", 400 * 208 * 0.003},       // 249.6
      // Logic leakage, 10 mW/mm2 at 1 GHz = 10 pJ per mm2-cycle, 208 cycles; areas (um2):
      // neurons 32 x (282 + 36) + 8 x 137 + 1280 flops x 4.522 = 17060.16; controller 20000 x 0.798
      // = 15960; dma 15000 x 0.798 = 11970; load 30000 x 0.798 = 23940; store 10000 x 0.798 = 7980;
      // vector 4 x (3495 + 137) + 3495 = 18023.
      {"neurons_logic_leakage", 17060.16e-6 * 10 * 208},  // 35.485133
      {"controller_logic_leakage", 15960e-6 * 10 * 208},  // 33.1968
      {"dma_logic_leakage", 11970e-6 * 10 * 208},         // 24.8976
      {"load_logic_leakage", 23940e-6 * 10 * 208},        // 49.7952
      {"store_logic_leakage", 7980e-6 * 10 * 208},        // 16.5984
      {"vector_logic_leakage", 18023e-6 * 10 * 208},      // 37.48784
      // Leakage 0.41 uW/KiB at 1 GHz = 0.00041 pJ per KiB-cycle, over 208 cycles:
      {"l2_leakage", 64 * 208 * 0.00041},  // 5.45792
      {"l1_leakage", 1 * 208 * 0.00041},   // 0.08528
  };
  double total = 0;
  for (const auto& [action, value] : expected) {
    EXPECT_NEAR(pj(s, action), value, 1e-9) << action;
    total += value;
  }
  // Dynamic 36,542.900 + clock 1,253.52 + logic leakage 197.460973 + SRAM leakage 5.54320.
  EXPECT_NEAR(total, 37999.423854, 1e-6);
  EXPECT_NEAR(s["energy"]["total_pj"].get<double>(), total, 1e-9);
  EXPECT_NEAR(s["energy"]["leakage_pj"].get<double>(), 5.45792 + 0.08528 + 94933.16e-6 * 10 * 208,
              1e-9);
  // Per layer (layers.csv): input:x = its move (32 B DRAM + 64 B fetch, 32 B L2 write, one
  // descriptor) = 96 x 64 + 32 x l2 + desc = 6242.995 pJ.
  const Csv layers = read_csv(dir.file("layers.csv"));
  ASSERT_EQ(layers.rows.size(), 3u);
  EXPECT_EQ(layers.rows[0].at("energy_pj"), "6242.995");
  EXPECT_NEAR(96 * 64.0 + 32 * l2 + desc, 6242.995, 0.0005);
  // Power at 1 GHz over 208 ns; TOPS/W = 2 x 1152 / total pJ.
  EXPECT_NEAR(s["power_mw"].get<double>(), total * 1e-12 / 208e-9 * 1e3, 1e-9);
  EXPECT_NEAR(s["tops_per_watt"].get<double>(), 2304 / total, 1e-15);
}

}  // namespace
}  // namespace strider::report_test
