// waves.vcd (sim.vcd: true): a valid VCD header ($timescale of one 1 ns cycle at the seed
// arch's 1000 MHz, a $var per busy flag and occupancy signal, $enddefinitions), value changes
// that agree with descriptors.csv, and a $date section that does not hold the wall-clock time.
#include <regex>

#include "tests/e2e/report_util.h"

namespace strider::report_test {
namespace {

TEST(ReportVcd, HeaderAndValueChanges) {
  Scratch dir("vcd");
  run_strider(dir.str(), {"sim.vcd=true"});
  const std::string vcd = slurp(dir.file("waves.vcd"));
  ASSERT_FALSE(vcd.empty());
  EXPECT_NE(vcd.find("$date\n     (not recorded)"), std::string::npos);
  EXPECT_NE(vcd.find("$timescale\n     1 ns\n$end"), std::string::npos);
  const size_t defs_end = vcd.find("$enddefinitions");
  ASSERT_NE(defs_end, std::string::npos);
  // $var wire <width> <id> <name> ...
  std::map<std::string, std::string> id_of;
  std::map<std::string, int> width_of;
  const std::regex var(R"(\$var wire\s+(\d+)\s+(\S+)\s+(\S+))");
  for (std::sregex_iterator it(vcd.begin(), vcd.begin() + defs_end, var), end; it != end; ++it) {
    id_of[(*it)[3]] = (*it)[2];
    width_of[(*it)[3]] = std::stoi((*it)[1]);
  }
  for (const char* name :
       {"dma_ch0_busy", "dma_ch1_busy", "load_busy", "neurons_busy", "store_busy"}) {
    ASSERT_TRUE(id_of.count(name)) << name;
    EXPECT_EQ(width_of[name], 1) << name;
  }
  EXPECT_EQ(width_of["load_fill_bytes"], 32);
  EXPECT_EQ(width_of["line_buffer_bytes"], 32);
  // Value changes after the definitions: "#<time>" then "<0|1><id>" / "b<bits> <id>" lines.
  std::istringstream body(vcd.substr(defs_end));
  std::string line;
  uint64_t now = 0, prev_time = 0;
  bool seen_time = false;
  std::vector<uint64_t> load_rises;
  std::map<std::string, char> last;  // id -> last value of a 1-bit signal
  size_t changes = 0;
  while (std::getline(body, line)) {
    if (line.size() > 1 && line[0] == '#') {
      now = std::stoull(line.substr(1));
      if (seen_time) {
        EXPECT_GT(now, prev_time);
      }
      prev_time = now;
      seen_time = true;
    } else if (seen_time && (line[0] == '0' || line[0] == '1' || line[0] == 'b')) {
      ++changes;
      if (line == "1" + id_of["load_busy"]) load_rises.push_back(now);
      if (line[0] != 'b') last[line.substr(1)] = line[0];
    }
  }
  EXPECT_GT(changes, 10u);
  // Every unit is idle again at the end, and that last change is in the file too.
  for (const char* name :
       {"dma_ch0_busy", "dma_ch1_busy", "load_busy", "neurons_busy", "store_busy"}) {
    EXPECT_EQ(last[id_of[name]], '0') << name;
  }
  // The load unit goes busy at the start of the first operation descriptor (1 ns = 1 cycle).
  const Csv descs = read_csv(dir.file("descriptors.csv"));
  uint64_t first_op = UINT64_MAX;
  for (size_t i = 0; i < descs.rows.size(); ++i) {
    if (descs.rows[i].at("kind") == "op") first_op = std::min(first_op, descs.u(i, "start"));
  }
  ASSERT_FALSE(load_rises.empty());
  EXPECT_EQ(load_rises.front(), first_op);
}

TEST(ReportVcd, NotWrittenByDefault) {
  Scratch dir("novcd");
  run_strider(dir.str());
  EXPECT_FALSE(fs::exists(dir.file("waves.vcd")));
}

}  // namespace
}  // namespace strider::report_test
