#include "core/arch/arch_reader.h"

#include <sstream>
#include <utility>

#include "core/arch/config_writer.h"
#include "core/arch/energy_presets.h"
#include "core/arch/energy_tables.h"

namespace strider::config {

// Loads arch.dram.preset into dram.spec (errors name the preset file and its keys, or the arch
// key that named a missing preset) and applies arch.dram.mapping over the preset's.
static void read_dram_preset(OriginMap& origins, Diagnostics& diags, DramConfig& dram) {
  Origin where;
  if (const Origin* o = origins.find("arch.dram.preset")) where = *o;
  else where = origins.locate("arch.dram", Origin{});
  std::vector<std::string> tried;
  const std::string file = find_dram_preset(dram.preset, where.base_dir, tried);
  if (file.empty()) {
    std::string list;
    for (const std::string& t : tried) list += (list.empty() ? "" : ", ") + t;
    diags.error(where, "arch.dram.preset",
                "no DRAM preset '" + dram.preset + "' (looked for " + list + ")");
    return;
  }
  if (!read_dram_spec(file, diags, dram.spec)) return;
  if (dram.powerdown_idle_cycles >= 0) {
    dram.spec.powerdown_idle = static_cast<uint32_t>(dram.powerdown_idle_cycles);
    const std::string why = dram_powerdown_timings(dram.spec);
    if (!why.empty())
      diags.error(origins.locate("arch.dram.powerdown_idle_cycles", where),
                  "arch.dram.powerdown_idle_cycles", why + " in " + file);
  }
  if (!dram.mapping.empty()) {
    const std::string why = parse_dram_mapping(dram.mapping, dram.spec, dram.spec.mapping_fields);
    if (!why.empty()) {
      diags.error(origins.locate("arch.dram.mapping", where), "arch.dram.mapping", why);
    } else {
      dram.spec.mapping = dram.mapping;
    }
  }
}

// Resolves arch.energy.ert / art against the file that named them and reads the tables (errors
// name the table file, line and key).
static void read_energy_tables(OriginMap& origins, Diagnostics& diags, EnergyConfig& e) {
  const auto resolve = [&](const char* key, std::string& path) {
    if (path.empty() || path[0] == '/') return;
    const Origin* o = origins.find(std::string("arch.energy.") + key);
    if (o != nullptr && !o->base_dir.empty()) path = o->base_dir + "/" + path;
  };
  resolve("ert", e.ert);
  resolve("art", e.art);
  if (!e.ert.empty()) read_ert(e.ert, diags, e.ert_table);
  if (!e.art.empty()) read_art(e.art, diags, e.art_table);
}

ArchConfig read_arch(const ConfigNode* arch, Diagnostics& diags, OriginMap& origins,
                     const std::vector<std::string>& extra_keys) {
  ArchConfig a;
  FieldReader r(arch, "arch", diags, origins);
  for (const std::string& k : extra_keys) r.child(k);
  r.read("name", a.name);
  {
    FieldReader s = r.section("clock");
    s.read("frequency_mhz", a.clock.frequency_mhz);
    s.finish();
  }
  {
    FieldReader s = r.section("controller");
    s.read("prefetch_depth", a.controller.prefetch_depth);
    s.read("descriptor_bytes", a.controller.descriptor_bytes);
    s.read("decode_cycles", a.controller.decode_cycles);
    s.read("dispatch_cycles", a.controller.dispatch_cycles);
    s.finish();
  }
  {
    FieldReader s = r.section("dma");
    s.read("channels", a.dma.channels);
    s.read("burst_bytes", a.dma.burst_bytes);
    s.read("setup_cycles", a.dma.setup_cycles);
    s.read("row_setup_cycles", a.dma.row_setup_cycles);
    s.read("background_priority", a.dma.background_priority);
    s.finish();
  }
  {
    FieldReader s = r.section("dram");
    s.read_choice("model", a.dram.model, {"jedec", "simple"});
    s.read("preset", a.dram.preset);
    s.read_choice("page_policy", a.dram.page_policy, {"open", "closed"});
    s.read_choice("scheduler", a.dram.scheduler, {"frfcfs", "fcfs"});
    s.read("queue_depth", a.dram.queue_depth);
    s.read("refresh_postpone", a.dram.refresh_postpone);
    s.read("row_hit_cap", a.dram.row_hit_cap);
    s.read("mapping", a.dram.mapping);
    if (s.node() && s.node()->find("powerdown_idle_cycles")) {
      uint32_t idle = 0;
      s.read("powerdown_idle_cycles", idle);
      a.dram.powerdown_idle_cycles = idle;
    }
    s.read("bytes_per_cycle", a.dram.bytes_per_cycle);
    s.read("latency_cycles", a.dram.latency_cycles);
    s.read("size_bytes", a.dram.size_bytes);
    s.read("row_buffer", a.dram.row_buffer);
    s.read("banks", a.dram.banks);
    s.read("row_bytes", a.dram.row_bytes);
    s.read("row_miss_cycles", a.dram.row_miss_cycles);
    s.finish();
    if (a.dram.model == "jedec") read_dram_preset(origins, diags, a.dram);
  }
  {
    FieldReader s = r.section("l2");
    s.read("size_bytes", a.l2.size_bytes);
    s.read("banks", a.l2.banks);
    s.read("bank_width_bytes", a.l2.bank_width_bytes);
    s.read("port_bytes_per_cycle", a.l2.port_bytes_per_cycle);
    s.read("latency_cycles", a.l2.latency_cycles);
    s.read("fast_region_bytes", a.l2.fast_region_bytes);
    s.read("fast_latency_cycles", a.l2.fast_latency_cycles);
    s.read("alignment_bytes", a.l2.alignment_bytes);
    s.finish();
  }
  {
    FieldReader s = r.section("l1");
    s.read("size_bytes", a.l1.size_bytes);
    s.read("lines", a.l1.lines);
    s.read("line_bytes", a.l1.line_bytes);
    s.read("kernel_bytes", a.l1.kernel_bytes);
    s.read("shift_stride", a.l1.shift_stride);
    s.read("pad_in_block", a.l1.pad_in_block);
    s.read("shared_pad", a.l1.shared_pad);
    s.read("pool_row_buffer_bytes", a.l1.pool_row_buffer_bytes);
    s.read("input_scale_cycles", a.l1.input_scale_cycles);
    s.finish();
  }
  {
    FieldReader s = r.section("neurons");
    s.read("count", a.neurons.count);
    s.read("macs_per_cycle", a.neurons.macs_per_cycle);
    s.read("accumulators", a.neurons.accumulators);
    s.read("postop_cycles", a.neurons.postop_cycles);
    s.finish();
  }
  {
    FieldReader s = r.section("vector");
    s.read("lanes", a.vector.lanes);
    s.read("softmax_cycles", a.vector.softmax_cycles);
    s.read("softmax_passes", a.vector.softmax_passes);
    s.read("layernorm_cycles", a.vector.layernorm_cycles);
    s.read("layernorm_passes", a.vector.layernorm_passes);
    s.read("gelu_cycles", a.vector.gelu_cycles);
    s.read("gelu_passes", a.vector.gelu_passes);
    s.finish();
  }
  {
    FieldReader s = r.section("lowering");
    s.read("mapping", a.lowering.mapping);
    s.read("objective", a.lowering.objective);
    s.read("weight_slot_bytes", a.lowering.weight_slot_bytes);
    s.read("fuse", a.lowering.fuse);
    s.read("skew_planes", a.lowering.skew_planes);
    s.read("shuffle_layout", a.lowering.shuffle_layout);
    s.finish();
  }
  {
    FieldReader s = r.section("energy");
    s.read_choice("tech", a.energy.tech, energy_techs());
    s.read_choice("dram_type", a.energy.dram_type, energy_dram_types());
    for (const auto& [key, field] : energy_override_fields(a.energy)) s.read(key, *field);
    s.read("clock_gating", a.energy.clock_gating);
    s.read("ert", a.energy.ert);
    s.read("art", a.energy.art);
    s.finish();
    read_energy_tables(origins, diags, a.energy);
  }
  r.finish();
  follow_linked_keys(origins, a);
  return a;
}

void follow_linked_keys(const OriginMap& origins, ArchConfig& a) {
  // 0: default, 1: written in a file, 2: --set.
  auto level = [&](const char* key) {
    const Origin* o = origins.find(key);
    return o == nullptr ? 0 : o->from_set() ? 2 : 1;
  };
  const int lines = level("arch.l1.lines"), neurons = level("arch.neurons.count");
  if (neurons > lines) a.l1.lines = a.neurons.count;
  if (lines > neurons) a.neurons.count = a.l1.lines;
}

namespace {

bool is_pow2(uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

// Reports errors at the first field involved in a check.
class Checker {
 public:
  Checker(const OriginMap& origins, const Origin& fallback, Diagnostics& diags)
      : origins_(origins), fallback_(fallback), diags_(diags) {}

  // Error about `key`; located where `key` was written, else where the first of `others` was,
  // else at `key`'s nearest written section.
  void fail(const std::string& key, const std::string& message,
            const std::vector<std::string>& others = {}) {
    if (origins_.invalid(key)) return;
    for (const std::string& k : others) {
      if (origins_.invalid(k)) return;
    }
    const Origin* where = origins_.find(key);
    for (size_t i = 0; where == nullptr && i < others.size(); ++i) where = origins_.find(others[i]);
    diags_.error(where != nullptr ? *where : origins_.locate(key, fallback_), key, message);
  }

  void at_least(const std::string& key, uint64_t value, uint64_t min) {
    if (value < min) {
      fail(key, "must be at least " + std::to_string(min) + ", got " + std::to_string(value));
    }
  }

  void at_most(const std::string& key, uint64_t value, uint64_t max) {
    if (value > max) {
      fail(key, "must be at most " + std::to_string(max) + ", got " + std::to_string(value));
    }
  }

  // True when it holds.
  bool power_of_two(const std::string& key, uint64_t value) {
    if (is_pow2(value)) return true;
    fail(key, "must be a power of two, got " + std::to_string(value));
    return false;
  }

 private:
  const OriginMap& origins_;
  const Origin& fallback_;
  Diagnostics& diags_;
};

std::string str(uint64_t v) { return std::to_string(v); }

}  // namespace

void check_arch(const ArchConfig& a, const OriginMap& origins, const Origin& fallback,
                Diagnostics& diags) {
  Checker c(origins, fallback, diags);
  if (a.name.empty()) c.fail("arch.name", "must not be empty");
  // 1 kHz .. 100 GHz: the clock period (in SystemC's 1 ps resolution) stays between 10 ps and
  // 1 ms, so no period rounds to 0 and a 2^32-cycle wait still fits SystemC's 64-bit time.
  if (!(a.clock.frequency_mhz >= kMinFrequencyMhz && a.clock.frequency_mhz <= kMaxFrequencyMhz)) {
    c.fail("arch.clock.frequency_mhz", "must be between 0.001 (1 kHz) and 100000 (100 GHz), got " +
                                           format_number(a.clock.frequency_mhz));
  }
  // Latencies: a million cycles is already absurd for one access, and keeps every sum of them
  // far from overflowing.
  for (const auto& [key, value] :
       {std::pair<const char*, uint32_t>{"arch.controller.decode_cycles",
                                         a.controller.decode_cycles},
        {"arch.controller.dispatch_cycles", a.controller.dispatch_cycles},
        {"arch.dma.setup_cycles", a.dma.setup_cycles},
        {"arch.dma.row_setup_cycles", a.dma.row_setup_cycles},
        {"arch.dram.latency_cycles", a.dram.latency_cycles},
        {"arch.dram.row_miss_cycles", a.dram.row_miss_cycles},
        {"arch.l2.latency_cycles", a.l2.latency_cycles},
        {"arch.l2.fast_latency_cycles", a.l2.fast_latency_cycles},
        {"arch.neurons.postop_cycles", a.neurons.postop_cycles},
        {"arch.l1.input_scale_cycles", a.l1.input_scale_cycles}}) {
    c.at_most(key, value, kMaxLatencyCycles);
  }

  c.at_least("arch.controller.prefetch_depth", a.controller.prefetch_depth, 1);
  c.at_least("arch.controller.descriptor_bytes", a.controller.descriptor_bytes, 1);

  c.at_least("arch.dma.channels", a.dma.channels, 1);
  c.power_of_two("arch.dma.burst_bytes", a.dma.burst_bytes);

  c.at_least("arch.dram.bytes_per_cycle", a.dram.bytes_per_cycle, 1);
  c.at_least("arch.dram.queue_depth", a.dram.queue_depth, 1);
  c.at_most("arch.dram.refresh_postpone", a.dram.refresh_postpone, 8);  // JEDEC: 8 REF postponed
  c.at_least("arch.dram.size_bytes", a.dram.size_bytes, 1);
  c.power_of_two("arch.dram.banks", a.dram.banks);
  c.power_of_two("arch.dram.row_bytes", a.dram.row_bytes);

  const L2Config& l2 = a.l2;
  c.at_least("arch.l2.size_bytes", l2.size_bytes, 1);
  const bool banks_ok = c.power_of_two("arch.l2.banks", l2.banks);
  const bool width_ok = c.power_of_two("arch.l2.bank_width_bytes", l2.bank_width_bytes);
  c.at_least("arch.l2.port_bytes_per_cycle", l2.port_bytes_per_cycle, 1);
  const bool align_ok = c.power_of_two("arch.l2.alignment_bytes", l2.alignment_bytes);
  if (banks_ok && width_ok) {
    // One interleave row: every bank delivers bank_width_bytes per cycle.
    const uint64_t row = uint64_t{l2.banks} * l2.bank_width_bytes;
    const std::string row_text = "arch.l2.banks x arch.l2.bank_width_bytes (" + str(l2.banks) +
                                 " x " + str(l2.bank_width_bytes) + " = " + str(row) + ")";
    if (l2.size_bytes > 0 && l2.size_bytes % row != 0) {
      c.fail("arch.l2.size_bytes",
             "must be a multiple of " + row_text + ", got " + str(l2.size_bytes),
             {"arch.l2.banks", "arch.l2.bank_width_bytes"});
    }
    if (l2.port_bytes_per_cycle > row) {
      c.fail("arch.l2.port_bytes_per_cycle",
             "must not exceed " + row_text + ", got " + str(l2.port_bytes_per_cycle),
             {"arch.l2.banks", "arch.l2.bank_width_bytes"});
    }
  }
  if (align_ok && l2.size_bytes > 0 && l2.size_bytes % l2.alignment_bytes != 0) {
    c.fail("arch.l2.size_bytes",
           "must be a multiple of arch.l2.alignment_bytes (" + str(l2.alignment_bytes) + "), got " +
               str(l2.size_bytes),
           {"arch.l2.alignment_bytes"});
  }
  if (l2.fast_region_bytes > l2.size_bytes) {
    c.fail("arch.l2.fast_region_bytes",
           "must not exceed arch.l2.size_bytes (" + str(l2.size_bytes) + "), got " +
               str(l2.fast_region_bytes),
           {"arch.l2.size_bytes"});
  } else if (align_ok && l2.fast_region_bytes % l2.alignment_bytes != 0) {
    c.fail("arch.l2.fast_region_bytes",
           "must be a multiple of arch.l2.alignment_bytes (" + str(l2.alignment_bytes) + "), got " +
               str(l2.fast_region_bytes),
           {"arch.l2.alignment_bytes"});
  }
  if (l2.fast_region_bytes > 0 && l2.fast_latency_cycles > l2.latency_cycles) {
    c.fail("arch.l2.fast_latency_cycles",
           "must not exceed arch.l2.latency_cycles (" + str(l2.latency_cycles) +
               ") when there is a fast region, got " + str(l2.fast_latency_cycles),
           {"arch.l2.latency_cycles", "arch.l2.fast_region_bytes"});
  }

  c.at_least("arch.l1.lines", a.l1.lines, 1);
  c.at_least("arch.l1.line_bytes", a.l1.line_bytes, 1);
  c.at_least("arch.l1.kernel_bytes", a.l1.kernel_bytes, 1);
  c.at_least("arch.neurons.count", a.neurons.count, 1);
  c.at_least("arch.neurons.macs_per_cycle", a.neurons.macs_per_cycle, 1);
  c.at_least("arch.vector.lanes", a.vector.lanes, 1);
  c.at_least("arch.vector.softmax_passes", a.vector.softmax_passes, 1);
  c.at_least("arch.vector.layernorm_passes", a.vector.layernorm_passes, 1);
  c.at_least("arch.vector.gelu_passes", a.vector.gelu_passes, 1);
  c.at_least("arch.neurons.accumulators", a.neurons.accumulators, 1);
  const std::string& m = a.lowering.mapping;
  if (m != "auto" && m != "positions" && m != "channels" && m != "im2col" && m != "search") {
    c.fail("arch.lowering.mapping",
           "must be auto, positions, channels, im2col or search, got '" + m + "'");
  }
  const std::string& obj = a.lowering.objective;
  if (obj != "cycles" && obj != "energy" && obj != "edp") {
    c.fail("arch.lowering.objective", "must be cycles, energy or edp, got '" + obj + "'");
  }
  // The kernel region double-buffers one fill's broadcast operand for every accumulator: the
  // weights of `accumulators` channels (positions mapping) or the inputs of `accumulators`
  // positions (channels mapping), line_bytes each.
  const uint64_t kernel_need = 2ull * a.neurons.accumulators * a.l1.line_bytes;
  if (a.l1.line_bytes > 0 && a.l1.kernel_bytes < kernel_need) {
    c.fail("arch.l1.kernel_bytes",
           "must hold two fills of the broadcast operand, 2 x arch.neurons.accumulators x "
           "arch.l1.line_bytes (2 x " + str(a.neurons.accumulators) + " x " + str(a.l1.line_bytes) +
               " = " + str(kernel_need) + " B), got " + str(a.l1.kernel_bytes),
           {"arch.neurons.accumulators", "arch.l1.line_bytes"});
  }
  const uint64_t l1_need = l1_required_bytes(a.l1, a.neurons);
  if (a.l1.size_bytes < l1_need) {
    c.fail("arch.l1.size_bytes",
           "must hold the line buffer's two fill buffers (2 x " + str(a.l1.lines) + " x " +
               str(a.l1.line_bytes) + " B), the kernel region (" + str(a.l1.kernel_bytes) +
               " B) and the accumulators (" + str(a.neurons.count) + " x " +
               str(a.neurons.accumulators) + " x 4 B): " + str(l1_need) + " B, got " +
               str(a.l1.size_bytes),
           {"arch.l1.kernel_bytes", "arch.neurons.accumulators"});
  }
  // An override that is written must be a real energy or area; absent, the preset applies.
  for (const auto& [key, value] : energy_override_values(a.energy)) {
    const std::string path = "arch.energy." + key;
    if (value < 0 && origins.find(path) != nullptr) {
      c.fail(path, "must be at least 0 (leave the key out to take the " + a.energy.tech +
                       " preset), got " + format_number(value));
    }
  }
  if (a.l1.lines != a.neurons.count) {
    c.fail("arch.l1.lines",
           "must equal arch.neurons.count (line i feeds neuron i), got " + str(a.l1.lines) +
               " lines and " + str(a.neurons.count) + " neurons",
           {"arch.neurons.count"});
  }
}

}  // namespace strider::config
