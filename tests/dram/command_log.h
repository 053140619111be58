// A DRAM command log as text, for exact assertions on command traces (tests/dram): per command
// "CMD@cycle", then "bBANK" and "rROW" where asked, each command followed by `sep`.
#pragma once

#include <string>
#include <vector>

#include "model/dram/dram_system.h"

namespace strider::test {

inline std::string command_text(const std::vector<DramCommandRecord>& log, bool bank, bool row,
                                char sep = ' ') {
  std::string s;
  for (const DramCommandRecord& c : log) {
    s += std::string(to_string(c.cmd)) + "@" + std::to_string(c.cycle);
    if (bank) s += "b" + std::to_string(c.bank);
    if (row) s += "r" + std::to_string(c.row);
    s += sep;
  }
  return s;
}

}  // namespace strider::test
