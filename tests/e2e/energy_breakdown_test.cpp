// The per-level x per-data-space breakdown (tb/energy_breakdown.h) of the default run (tiny_cnn
// on seed.yaml, LPDDR4-3200): each level's cells add up to the actions the energy model charges
// and to the units' own counters, exactly for counts; energy_breakdown.csv's rows add up to
// summary.json's cells.
#include <map>

#include "tests/e2e/report_util.h"

namespace strider::report_test {
namespace {

uint64_t stat(const nlohmann::json& s, const std::string& name) {
  return s["stats"][name]["value"].get<uint64_t>();
}

TEST(EnergyBreakdown, LevelsTimesDataSpacesAddUpToTheUnitTotals) {
  Scratch dir("energy_breakdown");
  run_strider(dir.str(), {"sim.trace=false"});
  const nlohmann::json s = read_json(dir.file("summary.json"));
  const nlohmann::json& e = s["energy"];
  const nlohmann::json& b = e["breakdown"];
  const nlohmann::json& a = e["by_action"];
  struct Sum {
    uint64_t reads = 0, writes = 0, bytes = 0;
    double pj = 0;
  };
  std::map<std::string, Sum> level;
  for (auto l = b.begin(); l != b.end(); ++l) {
    for (auto c = l->begin(); c != l->end(); ++c) {
      Sum& x = level[l.key()];
      x.reads += (*c)["reads"].get<uint64_t>(), x.writes += (*c)["writes"].get<uint64_t>();
      x.bytes += (*c)["bytes"].get<uint64_t>(), x.pj += (*c)["pj"].get<double>();
    }
  }
  const auto count = [&](const char* action) { return a[action]["count"].get<uint64_t>(); };
  const auto pj = [&](const char* action) { return a[action]["pj"].get<double>(); };
  const double tol = e["total_pj"].get<double>() * 1e-12;
  // L2: every byte read or written by the load / store ports and the DMA.
  EXPECT_EQ(level["l2"].reads, count("l2_read"));
  EXPECT_EQ(level["l2"].writes, count("l2_write"));
  EXPECT_EQ(level["l2"].reads + level["l2"].writes,
            stat(s, "l2.dma_bytes") + stat(s, "l2.load_bytes") + stat(s, "l2.store_bytes"));
  EXPECT_NEAR(level["l2"].pj, pj("l2_read") + pj("l2_write"), tol);
  // Kernel region, line buffer, accumulators.
  EXPECT_EQ(level["kernel_region"].writes, stat(s, "kernel.load_bytes"));
  EXPECT_EQ(level["kernel_region"].reads, count("kernel_read"));
  EXPECT_NEAR(level["kernel_region"].pj, pj("kernel_read") + pj("kernel_write"), tol);
  EXPECT_EQ(level["line_buffer"].writes, stat(s, "line_buffer.write_bytes"));
  EXPECT_NEAR(level["line_buffer"].pj, pj("lb_write") + pj("lb_write_cycle"), tol);
  EXPECT_EQ(level["accumulators"].reads, stat(s, "neurons.acc_updates"));
  EXPECT_EQ(level["accumulators"].writes, stat(s, "neurons.acc_updates"));
  EXPECT_NEAR(level["accumulators"].pj, pj("acc_update"), tol);
  // DRAM: every byte (moves and the descriptor fetch); its energy is the unit's, the background
  // cell holding refresh, standby and what no descriptor was charged.
  EXPECT_EQ(level["dram"].reads, stat(s, "dram.read_bytes"));
  EXPECT_EQ(level["dram"].writes, stat(s, "dram.write_bytes"));
  EXPECT_NEAR(level["dram"].pj, e["by_unit"]["dram"].get<double>(), tol);
  EXPECT_GT(b["dram"]["weights"]["reads"].get<uint64_t>(), 0u);
  EXPECT_EQ(b["dram"]["descriptors"]["reads"].get<uint64_t>(),
            64 * stat(s, "controller.descriptors"));
  // energy_breakdown.csv: the layers' rows (and the run's background row) add up to the cells.
  const Csv csv = read_csv(dir.file("energy_breakdown.csv"));
  std::map<std::string, Sum> cells;
  for (const auto& row : csv.rows) {
    Sum& x = cells[row.at("level") + "/" + row.at("data_space")];
    x.reads += std::stoull(row.at("reads")), x.writes += std::stoull(row.at("writes"));
    x.bytes += std::stoull(row.at("bytes")), x.pj += std::stod(row.at("energy_pj"));
  }
  for (auto l = b.begin(); l != b.end(); ++l) {
    for (auto c = l->begin(); c != l->end(); ++c) {
      const std::string lv = l.key(), sp = c.key();
      const Sum& x = cells[lv + "/" + sp];
      EXPECT_EQ(x.reads, (*c)["reads"].get<uint64_t>()) << lv << "/" << sp;
      EXPECT_EQ(x.writes, (*c)["writes"].get<uint64_t>()) << lv << "/" << sp;
      EXPECT_EQ(x.bytes, (*c)["bytes"].get<uint64_t>()) << lv << "/" << sp;
      EXPECT_NEAR(x.pj, (*c)["pj"].get<double>(), 0.0005 * csv.rows.size()) << lv << "/" << sp;
    }
  }
}

}  // namespace
}  // namespace strider::report_test
