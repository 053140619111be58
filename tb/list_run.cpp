#include "tb/list_run.h"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "arch/config_loader.h"

namespace strider {

bool is_list_path(const std::string& path) {
  return std::filesystem::path(path).extension() == ".strd";
}

void load_list_run(const std::string& list_path, const std::string& arch_path,
                   const std::vector<std::string>& sets, RunResult& r) {
  std::ifstream f(list_path, std::ios::binary);
  if (!f) throw std::runtime_error(list_path + ": cannot open");
  r.lowered.list = read_binary(f, list_path);
  std::vector<std::string> arch_sets;
  for (const std::string& s : sets) {
    if (s.rfind("arch.", 0) == 0) {
      arch_sets.push_back(s);
    } else if (s.rfind("output_dir=", 0) == 0) {
      r.config.output_dir = s.substr(11);
    } else if (s.rfind("sim.watchdog_cycles=", 0) == 0) {
      r.config.sim.watchdog_cycles = std::stoull(s.substr(20));
    } else {
      throw std::runtime_error("--set " + s + ": a descriptor list run takes only arch.*, "
                               "output_dir and sim.watchdog_cycles");
    }
  }
  r.config.source = list_path;
  r.config.arch_file = arch_path;
  r.config.arch = load_arch(arch_path, arch_sets);
  if (r.config.arch.fingerprint() != r.lowered.list.arch_fingerprint) {
    std::ostringstream os;
    os << list_path << ": planned for an arch with fingerprint 0x" << std::hex
       << r.lowered.list.arch_fingerprint << ", but " << arch_path << " has 0x"
       << r.config.arch.fingerprint() << " (plan it again for this arch)";
    throw std::runtime_error(os.str());
  }
  if (r.config.output_dir == RunConfig().output_dir) {
    r.config.output_dir = "results/" + std::filesystem::path(list_path).stem().string();
  }
  r.graph.name = std::filesystem::path(list_path).stem().string();
  for (size_t i = 0; i < r.lowered.list.layers.size(); ++i) {
    LayerReport rep;
    rep.name = r.lowered.list.layers[i];
    rep.op = "move";
    for (const Descriptor& d : r.lowered.list.descriptors) {
      if (d.layer == i && d.kind == DescKind::kOp) {
        rep.op = to_string(d.op.op);
        break;
      }
    }
    r.lowered.layers.push_back(rep);
    r.lowered.layer_node.push_back(-1);
  }
}

}  // namespace strider
