#include "tb/list_run.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <sstream>
#include <stdexcept>

#include "core/arch/config_loader.h"
#include "core/arch/strict_number.h"
#include "core/common/input_file.h"
#include "tb/resource_limits.h"

namespace strider {

namespace {

// What an emitted list says about L2 without a memory plan: every L2 block a descriptor reads or
// writes (a tensor of the table when its address and size match one, else a scratch block:
// weight staging, bands, partial sums) is live from the first to the last layer that touches it;
// the list's layers stand for the schedule steps. The planned peak is the highest L2 byte used.
void derive_l2_plan(Lowered& l) {
  std::map<std::pair<uint64_t, uint64_t>, PlannedBuffer> blocks;
  uint64_t high = 0;
  const auto touch = [&](uint64_t addr, uint64_t bytes, uint32_t layer) {
    high = std::max(high, addr + bytes);
    auto [it, fresh] = blocks.try_emplace({addr, bytes});
    PlannedBuffer& b = it->second;
    if (fresh) {
      b.kind = "scratch";
      b.offset = addr, b.size = bytes, b.first = b.last = layer;
    }
    b.first = std::min<int64_t>(b.first, layer);
    b.last = std::max<int64_t>(b.last, layer);
  };
  for (const Descriptor& d : l.list.descriptors) {
    if (d.kind == DescKind::kMove) {
      const MoveDesc& m = d.move;
      const uint64_t rows = m.rows - 1;
      if (m.src_space == MemSpace::kL2) touch(m.src_addr, rows * m.src_stride + m.row_bytes, d.layer);
      if (m.dst_space == MemSpace::kL2)
        touch(m.dst_addr, rows * m.dst_stride + m.dst_row_span(), d.layer);
      continue;
    }
    const OpDesc& o = d.op;
    for (const TensorRef* t : {&o.input, &o.input2, &o.weights, &o.bias, &o.output, &o.psum}) {
      if (t->present() && t->space == MemSpace::kL2) touch(t->addr, t->held_bytes(), d.layer);
    }
  }
  for (const TensorEntry& t : l.list.tensors) {
    if (t.space != MemSpace::kL2) continue;
    l.arena_bytes = std::max(l.arena_bytes, t.addr + t.bytes);
    auto it = blocks.find({t.addr, t.bytes});
    if (it != blocks.end()) it->second.tensor = t.name, it->second.kind = "activation";
  }
  for (auto& [key, b] : blocks) {
    if (b.tensor.empty()) b.tensor = "l2_" + std::to_string(b.offset) + "_" + std::to_string(b.size);
    l.plan.push_back(b);
  }
  // Everything above the activations (staging, bands) counts as staging.
  l.staging_bytes = high > l.arena_bytes ? high - l.arena_bytes : 0;
  l.allocator = "from the descriptor list";
  l.step_layer.resize(l.list.layers.size());
  for (size_t i = 0; i < l.step_layer.size(); ++i) l.step_layer[i] = int(i);
}

}  // namespace

bool is_list_path(const std::string& path) {
  return std::filesystem::path(path).extension() == ".strd";
}

void load_list_run(const std::string& list_path, const std::string& arch_path,
                   const std::vector<std::string>& sets, RunResult& r) {
  std::istringstream f(read_input_file(list_path, kMaxDescriptorFileBytes));
  if (f.str().empty()) {
    throw std::runtime_error(list_path + ": empty file, expected a Strider descriptor list");
  }
  r.lowered.list = read_binary(f, list_path);
  if (r.lowered.list.descriptors.empty()) {
    throw std::runtime_error(list_path + ": the descriptor list has no descriptors, nothing to run");
  }
  std::vector<std::string> arch_sets;
  for (const std::string& s : sets) {
    if (s.rfind("arch.", 0) == 0) {
      arch_sets.push_back(s);
    } else if (s.rfind("output_dir=", 0) == 0) {
      r.config.output_dir = s.substr(11);
    } else if (s.rfind("sim.watchdog_cycles=", 0) == 0) {
      r.config.sim.watchdog_cycles = parse_u64(s.substr(20), "--set sim.watchdog_cycles");
      if (r.config.sim.watchdog_cycles == 0) {
        throw std::runtime_error("--set sim.watchdog_cycles: must be at least 1, got 0");
      }
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
  check_config_limits(r.config);
  derive_l2_plan(r.lowered);
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
