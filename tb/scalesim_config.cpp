// ScaleSimConfig (see scalesim_config.h).
#include "tb/scalesim_config.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

#include "core/arch/strict_number.h"
#include "core/common/input_file.h"

namespace strider {
namespace {

std::string lower(std::string s) {
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string trim(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t\r");
  if (a == std::string::npos) return "";
  return s.substr(a, s.find_last_not_of(" \t\r") - a + 1);
}

// Every key SCALE-Sim v2 reads, by section (lower case).
const std::map<std::string, std::set<std::string>>& known_keys() {
  static const std::map<std::string, std::set<std::string>> k = {
      {"general", {"run_name"}},
      {"architecture_presets",
       {"arrayheight",
        "arraywidth",
        "ifmapsramszkb",
        "filtersramszkb",
        "ofmapsramszkb",
        "ifmapoffset",
        "filteroffset",
        "ofmapoffset",
        "dataflow",
        "bandwidth",
        "memorybanks",
        "onchipmemorybanks",
        "onchipmemorybankports",
        "ifmapcustomlayout",
        "filtercustomlayout",
        "ifmapsrambankbandwidth",
        "ifmapsrambanknum",
        "filtersrambankbandwidth",
        "filtersrambanknum",
        "ifmapsrambankport",
        "filtersrambankport"}},
      {"run_presets",
       {"interfacebandwidth", "sram_row_size", "sram_bank_size", "dram_row_size",
        "dram_bank_size"}},
      {"sparsity",
       {"sparsitysupport", "sparserep", "optimizedmapping", "blocksize",
        "randomnumbergeneratorseed"}},
      {"network_presets", {"topologycsvloc"}}};
  return k;
}

[[noreturn]] void fail(const std::string& path, int line, const std::string& key,
                       const std::string& what) {
  throw std::runtime_error(path + ":" + std::to_string(line) + ": " + key + ": " + what);
}

uint64_t positive(const ScaleSimConfig& cfg, const ScaleSimKey& k, uint64_t max) {
  uint64_t v = 0;
  try {
    v = parse_u64(k.value, k.key);
  } catch (const std::exception&) {
    fail(cfg.path, k.line, k.key, "expected a whole number, got '" + k.value + "'");
  }
  if (v == 0 || v > max) {
    fail(cfg.path, k.line, k.key,
         "expected a whole number from 1 to " + std::to_string(max) + ", got " + k.value);
  }
  return v;
}

const ScaleSimKey& required(const ScaleSimConfig& cfg, const std::string& key,
                            const std::string& section) {
  const ScaleSimKey* k = cfg.find(key);
  if (!k) throw std::runtime_error(cfg.path + ": [" + section + "] " + key + ": missing");
  return *k;
}

}  // namespace

const ScaleSimKey* ScaleSimConfig::find(const std::string& key) const {
  for (const ScaleSimKey& k : keys) {
    if (lower(k.key) == lower(key)) return &k;
  }
  return nullptr;
}

ScaleSimConfig read_scalesim_config(const std::string& path) {
  ScaleSimConfig cfg;
  cfg.path = path;
  std::istringstream in(read_input_file(path, kMaxYamlFileBytes));
  std::string raw, section;
  int line = 0;
  std::set<std::string> seen;
  while (std::getline(in, raw)) {
    ++line;
    const std::string s = trim(raw);
    if (s.empty() || s[0] == '#' || s[0] == ';') continue;
    if (s.front() == '[') {
      if (s.back() != ']') fail(path, line, s, "expected a section header [name]");
      section = trim(s.substr(1, s.size() - 2));
      if (!known_keys().count(lower(section))) {
        fail(path, line, "[" + section + "]",
             "not a SCALE-Sim section (general, architecture_presets, run_presets, sparsity, "
             "network_presets)");
      }
      continue;
    }
    const size_t sep = s.find_first_of(":=");
    if (sep == std::string::npos || sep == 0) {
      fail(path, line, s, "expected 'key: value' or 'key = value'");
    }
    ScaleSimKey k{section, trim(s.substr(0, sep)), trim(s.substr(sep + 1)), line};
    if (section.empty()) fail(path, line, k.key, "key outside a [section]");
    if (!known_keys().at(lower(section)).count(lower(k.key))) {
      fail(path, line, k.key, "not a key of SCALE-Sim's [" + section + "] section");
    }
    if (!seen.insert(lower(k.key)).second) fail(path, line, k.key, "given twice");
    if (k.value.size() >= 2 && k.value.front() == '"' && k.value.back() == '"') {
      k.value = k.value.substr(1, k.value.size() - 2);
    }
    cfg.keys.push_back(k);
  }
  if (cfg.keys.empty()) throw std::runtime_error(path + ": no SCALE-Sim keys (an empty .cfg?)");
  return cfg;
}

ScaleSimMapping map_scalesim_config(const ScaleSimConfig& cfg) {
  ScaleSimMapping m;
  const std::string& p = cfg.path;
  const ScaleSimKey& h = required(cfg, "ArrayHeight", "architecture_presets");
  const ScaleSimKey& w = required(cfg, "ArrayWidth", "architecture_presets");
  m.array_height = positive(cfg, h, 4096);
  m.array_width = positive(cfg, w, 4096);
  uint64_t sram = 0;
  for (const char* key : {"IfmapSramSzkB", "FilterSramSzkB", "OfmapSramSzkB"}) {
    sram += positive(cfg, required(cfg, key, "architecture_presets"), uint64_t{1} << 22) * 1024;
  }
  const ScaleSimKey& df = required(cfg, "Dataflow", "architecture_presets");
  const std::string dataflow = lower(df.value);
  if (dataflow != "os" && dataflow != "ws" && dataflow != "is") {
    fail(p, df.line, df.key, "expected os, ws or is, got '" + df.value + "'");
  }
  const ScaleSimKey* mode = cfg.find("InterfaceBandwidth");
  const std::string bw_mode = mode ? lower(mode->value) : "calc";
  if (bw_mode != "user" && bw_mode != "calc") {
    fail(p, mode->line, mode->key, "expected USER or CALC, got '" + mode->value + "'");
  }
  const ScaleSimKey* run_name = cfg.find("run_name");
  m.run_name = run_name && !run_name->value.empty() ? run_name->value : "scalesim";

  // The neurons and the L1 that feeds them: line_bytes covers one pass of the lanes (at least the
  // seed's 32 B), the kernel region two fills of 8 accumulators' operands, L1 exactly enough.
  const uint64_t count = m.array_height, lanes = m.array_width;
  const uint64_t line_bytes = std::max<uint64_t>(32, lanes);
  const uint64_t kernel = std::max<uint64_t>(2048, 2 * 8 * line_bytes);
  const uint64_t l1 = 2 * count * line_bytes + kernel + 4 * count * 8;
  const uint64_t l2 = (sram + 127) / 128 * 128;  // whole rows of 16 banks x 8 B
  const std::string s_count = std::to_string(count), s_lanes = std::to_string(lanes);
  m.arch_sets = {"arch.neurons.count=" + s_count,
                 "arch.l1.lines=" + s_count,
                 "arch.neurons.macs_per_cycle=" + s_lanes,
                 "arch.l1.line_bytes=" + std::to_string(line_bytes),
                 "arch.l1.kernel_bytes=" + std::to_string(kernel),
                 "arch.l1.size_bytes=" + std::to_string(l1),
                 "arch.l2.size_bytes=" + std::to_string(l2)};
  const std::string mapping = dataflow == "os"   ? "positions"
                              : dataflow == "ws" ? "channels"
                                                 : "auto";
  m.arch_sets.push_back("arch.lowering.mapping=" + mapping);

  for (const ScaleSimKey& k : cfg.keys) {
    const std::string key = lower(k.key);
    ScaleSimMappingRow r{k.key, k.value, "ignored", "", ""};
    if (key == "arrayheight") {
      r = {k.key, k.value, "approximated", "neurons.count = l1.lines = " + s_count,
           "one neuron per PE row; a SIMD array fed by a line buffer, not a systolic one"};
    } else if (key == "arraywidth") {
      r = {
          k.key, k.value, "approximated",
          "neurons.macs_per_cycle = " + s_lanes + ", l1.line_bytes = " +
              std::to_string(line_bytes) + ", l1.size_bytes = " + std::to_string(l1),
          "PE columns as MAC lanes: the same " + std::to_string(count * lanes) + " MACs per cycle"};
    } else if (key == "ifmapsramszkb" || key == "filtersramszkb" || key == "ofmapsramszkb") {
      r = {k.key, k.value, "approximated", "l2.size_bytes = " + std::to_string(l2),
           "the three operand SRAMs summed into one shared L2 (whole 128 B rows)"};
    } else if (key == "dataflow") {
      r = {k.key, k.value, dataflow == "is" ? "approximated" : "mapped",
           "lowering.mapping = " + mapping,
           dataflow == "os"   ? "outputs stay in the accumulators, inputs stream through lines"
           : dataflow == "ws" ? "each neuron's line holds its output channel's weights"
                              : "no input-stationary mapping: the cheaper of the two per layer"};
    } else if (key == "bandwidth" && bw_mode == "user") {
      uint64_t total = 0, n = 0;
      std::stringstream list(k.value);
      std::string item;
      while (std::getline(list, item, ',')) {
        total += positive(cfg, ScaleSimKey{k.section, k.key, trim(item), k.line}, 1u << 20);
        ++n;
      }
      // SCALE-Sim's USER interface is an ideal pipe of that bandwidth, Strider's simple DRAM
      // model (the seed's JEDEC model would ignore bytes_per_cycle).
      r = {k.key, k.value, n > 1 ? "approximated" : "mapped",
           "dram.bytes_per_cycle = " + std::to_string(total) + ", dram.model = simple",
           n > 1 ? "the banks' bandwidths summed: one DRAM interface" : "a word is one int8 byte"};
      m.arch_sets.push_back("arch.dram.bytes_per_cycle=" + std::to_string(total));
      m.arch_sets.push_back("arch.dram.model=simple");
    } else if (key == "bandwidth") {
      r.note = "InterfaceBandwidth CALC: SCALE-Sim computes the bandwidth; Strider models its DRAM";
    } else if (key == "interfacebandwidth") {
      r = {k.key, k.value, "mapped", bw_mode == "user" ? "dram.bytes_per_cycle from Bandwidth" : "",
           bw_mode == "user" ? "the DRAM interface runs at the given bandwidth"
                             : "the seed's DRAM (LPDDR4-3200, JEDEC timing) stays"};
    } else if (key == "run_name") {
      r = {k.key, k.value, "mapped", "output folder results/scalesim/" + m.run_name, ""};
    } else if (key == "ifmapoffset" || key == "filteroffset" || key == "ofmapoffset") {
      r.note = "Strider's planner places every tensor";
    } else if (key == "topologycsvloc") {
      r.note = "the topology is the command's second argument";
    } else {
      r.note = "not modelled (banks, layouts, sparsity, trace sizes)";
    }
    m.rows.push_back(r);
  }
  return m;
}

}  // namespace strider
