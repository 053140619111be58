// trace.json: valid Chrome trace-event JSON (the fields Perfetto needs), a track per unit, one
// slice per descriptor on the unit that ran it at ts = cycle / MHz, no overlapping slices on a
// track, counter tracks for occupancy; aggregated beyond the detail limit; absent when
// sim.trace is false. Also checks the UnitMonitor's per-unit intervals against the model.
#include <sysc/kernel/sc_simcontext.h>

#include <set>

#include "core/arch/config_loader.h"
#include "tb/report_writer.h"
#include "tb/run_observers.h"
#include "tb/run_summary.h"
#include "tb/trace_writer.h"
#include "tests/e2e/report_util.h"

namespace strider::report_test {
namespace {

using Json = nlohmann::json;

// Every event has name, ph, pid; timed events ts; slices dur >= 0 and a tid; counters numeric
// args; metadata args.name or args.sort_index.
void expect_valid_events(const Json& t) {
  ASSERT_TRUE(t.is_object());
  ASSERT_TRUE(t["traceEvents"].is_array());
  for (const Json& e : t["traceEvents"]) {
    ASSERT_TRUE(e["name"].is_string()) << e;
    ASSERT_TRUE(e["ph"].is_string()) << e;
    ASSERT_TRUE(e["pid"].is_number_integer()) << e;
    const std::string ph = e["ph"];
    ASSERT_TRUE(ph == "X" || ph == "C" || ph == "M" || ph == "i" || ph == "b" || ph == "e") << e;
    if (ph != "M") {
      ASSERT_TRUE(e["ts"].is_number()) << e;
    }
    if (ph == "X") {
      ASSERT_TRUE(e["dur"].is_number()) << e;
      EXPECT_GE(e["dur"].get<double>(), 0.0) << e;
      ASSERT_TRUE(e["tid"].is_number_integer()) << e;
    }
    if (ph == "C") {
      ASSERT_TRUE(e["args"].is_object()) << e;
      for (const auto& [k, v] : e["args"].items()) EXPECT_TRUE(v.is_number()) << e;
    }
  }
}

TEST(ReportTrace, OneSlicePerDescriptorOnItsUnitAtTheClock) {
  Scratch dir("trace");
  run_strider(dir.str());
  const Json t = read_json(dir.file("trace.json"));
  expect_valid_events(t);
  const Csv descs = read_csv(dir.file("descriptors.csv"));
  std::map<int, std::string> threads;
  for (const Json& e : t["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "thread_name") threads[e["tid"]] = e["args"]["name"];
  }
  // Seed arch: 2 DMA channels.
  EXPECT_EQ(threads, (std::map<int, std::string>{{1, "controller"},
                                                 {2, "dma ch0"},
                                                 {3, "dma ch1"},
                                                 {4, "load unit"},
                                                 {5, "neurons"},
                                                 {6, "store unit"}}));
  // Per descriptor id, the tids of its slices; per tid the (ts, end) of each slice.
  std::map<uint64_t, std::multiset<int>> tids_of;
  std::map<int, std::vector<std::pair<double, double>>> on_track;
  std::set<std::string> counters;
  for (const Json& e : t["traceEvents"]) {
    if (e["ph"] == "C") counters.insert(e["name"].get<std::string>());
    if (e["ph"] != "X") continue;
    const uint64_t id = e["args"]["id"];
    tids_of[id].insert(e["tid"].get<int>());
    on_track[e["tid"]].emplace_back(e["ts"].get<double>(),
                                    e["ts"].get<double>() + e["dur"].get<double>());
    // The first unit's slice starts where descriptors.csv says, at 1000 MHz: cycle / 1000 us.
    const int tid = e["tid"];
    if (tid <= 4) {
      EXPECT_DOUBLE_EQ(e["ts"].get<double>(), double(descs.u(id, "start")) / 1000.0) << e;
    }
    if (tid <= 3 || tid == 6) {  // DMA channels and the store unit end no later than retirement
      EXPECT_LE(e["ts"].get<double>() + e["dur"].get<double>(),
                double(descs.u(id, "end")) / 1000.0 + 1e-9)
          << e;
    }
    const std::string kind = descs.rows[id].at("kind");
    EXPECT_EQ(e["name"].get<std::string>().rfind(
                  descs.rows[id].at("layer") + " " + (kind == "move" ? "move " : "tile "), 0),
              0u)
        << e;
  }
  ASSERT_EQ(tids_of.size(), descs.rows.size());
  for (size_t i = 0; i < descs.rows.size(); ++i) {
    if (descs.rows[i].at("kind") == "move") {
      EXPECT_EQ(tids_of[i], std::multiset<int>{2 + int(descs.u(i, "channel"))}) << i;
    } else {
      EXPECT_EQ(tids_of[i], (std::multiset<int>{4, 5, 6})) << i;
    }
  }
  for (auto& [tid, slices] : on_track) {
    std::sort(slices.begin(), slices.end());
    for (size_t k = 1; k < slices.size(); ++k) {
      EXPECT_LE(slices[k - 1].second, slices[k].first + 1e-9) << "track " << tid;
    }
  }
  EXPECT_EQ(counters, (std::set<std::string>{"L2 occupancy", "line-buffer occupancy"}));
  EXPECT_EQ(t["otherData"]["aggregated"], false);
  EXPECT_EQ(t["otherData"]["units_observed"], true);
}

TEST(ReportTrace, NotWrittenWhenTracingIsOff) {
  Scratch dir("notrace");
  run_strider(dir.str(), {"sim.trace=false"});
  EXPECT_TRUE(fs::exists(dir.file("summary.json")));
  EXPECT_FALSE(fs::exists(dir.file("trace.json")));
}

// In-process: the observers' unit intervals against the model's own records, and an aggregated
// trace of the same run.
TEST(ReportTrace, UnitIntervalsMatchTheModelAndLargeRunsAggregate) {
  Scratch dir("aggregate");
  RunResult r;
  // A 12 KiB L2 splits the early layers into row bands (211 tiles): back-to-back tiles on every
  // unit. (16 KiB no longer bands anything: pool1 is fused into conv1's store, so conv1's 16 KiB
  // result is never stored.)
  r.config = load_run(kDefaultRun, {"output_dir=" + dir.str(), "arch.l2.size_bytes=12288"});
  RunObservers observers("observers", r, nullptr);
  simulate_run(r);
  ASSERT_TRUE(observers.found_top());
  const UnitTimeline& tl = observers.timeline();
  std::vector<const DescriptorRecord*> ops;
  for (const DescriptorRecord& d : r.record.descriptors) {
    if (!d.is_move) ops.push_back(&d);
  }
  ASSERT_GE(ops.size(), 32u);
  ASSERT_EQ(tl.load.size(), ops.size());
  ASSERT_EQ(tl.neurons.size(), ops.size());
  ASSERT_EQ(tl.store.size(), ops.size());
  for (size_t k = 0; k < ops.size(); ++k) {
    EXPECT_EQ(tl.load[k].start, ops[k]->start) << k;  // the record's start is the load start
    // NeuronArray: end - start = compute + line-buffer stall + post-op cycles.
    EXPECT_EQ(
        tl.neurons[k].end - tl.neurons[k].start,
        ops[k]->compute_cycles + ops[k]->stall_line_buffer + r.config.arch.neurons.postop_cycles)
        << k;
    EXPECT_GE(tl.neurons[k].start, tl.load[k].start) << k;
    EXPECT_LE(tl.store[k].end, ops[k]->end) << k;
    EXPECT_EQ(tl.neurons[k].line_buffer_bytes, tl.load[k].line_buffer_bytes) << k;
  }
  const RunSummary s = summarise(r, &tl);
  fs::create_directories(dir.str());
  write_trace(r, s, &tl, dir.file("small_limit.json"), /*detail_limit=*/5);
  const Json t = read_json(dir.file("small_limit.json"));
  expect_valid_events(t);
  EXPECT_EQ(t["otherData"]["aggregated"], true);
  // Each merged slice covers the consecutive tiles of one layer on one unit: the load unit's
  // slices' tile counts ("<layer> x<n>", n = 1 when unmerged) add up to every tile.
  size_t load_tiles = 0, load_slices = 0;
  for (const Json& e : t["traceEvents"]) {
    if (e["ph"] != "X" || e["tid"] != 4) continue;
    const std::string name = e["name"];
    const size_t x = name.rfind(" x");
    load_tiles += x == std::string::npos ? 1 : std::stoul(name.substr(x + 2));
    ++load_slices;
    EXPECT_EQ(
        e["args"]["layer"].get<std::string>() + (x == std::string::npos ? "" : name.substr(x)),
        x == std::string::npos ? e["args"]["layer"].get<std::string>() : name);
  }
  EXPECT_EQ(load_tiles, ops.size());
  EXPECT_LT(load_slices, ops.size());
}

}  // namespace
}  // namespace strider::report_test
