#include "core/arch/dram_spec.h"

#include <unistd.h>

#include <cctype>
#include <filesystem>
#include <set>

#include "core/arch/config_node.h"
#include "core/arch/field_reader.h"

namespace strider {

namespace fs = std::filesystem;
using config::ConfigNode;
using config::Diagnostics;
using config::FieldReader;

const char* to_string(DramCmd c) {
  static const char* const kNames[] = {"ACT", "PRE", "PREA", "RD", "WR", "REF", "REFPB"};
  return kNames[static_cast<int>(c)];
}

std::string dram_command_stat(DramCmd c) {
  static const char* const kStats[] = {"dram.cmd_act", "dram.cmd_pre", "dram.cmd_prea",
                                       "dram.cmd_rd",  "dram.cmd_wr",  "dram.cmd_ref",
                                       "dram.cmd_refpb"};
  return kStats[static_cast<int>(c)];
}

const char* to_string(DramScope s) {
  static const char* const kNames[] = {"channel", "rank", "bankgroup", "bank"};
  return kNames[static_cast<int>(s)];
}

namespace {

constexpr uint32_t kMaxCycles = 1u << 24;  // no timing of a real part is near 16 M cycles

bool power_of_two(uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

bool parse_cmd(const std::string& s, DramCmd& out) {
  for (int c = 0; c < kDramCmdCount; ++c) {
    if (s == to_string(static_cast<DramCmd>(c))) {
      out = static_cast<DramCmd>(c);
      return true;
    }
  }
  return false;
}

bool parse_scope(const std::string& s, DramScope& out) {
  for (int c = 0; c < 4; ++c) {
    if (s == to_string(static_cast<DramScope>(c))) {
      out = static_cast<DramScope>(c);
      return true;
    }
  }
  return false;
}

// `nCL + nBL + 2 - nCWL`: integers and timing names joined by + and -. "" when valid.
std::string eval_expression(const std::string& text, const std::map<std::string, uint32_t>& timing,
                            int64_t& out) {
  int64_t sum = 0;
  int sign = 1;
  size_t i = 0;
  bool want_term = true;
  while (i < text.size()) {
    const char c = text[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
    } else if (!want_term && (c == '+' || c == '-')) {
      sign = c == '+' ? 1 : -1;
      want_term = true;
      ++i;
    } else if (want_term && std::isalnum(static_cast<unsigned char>(c))) {
      size_t j = i;
      while (j < text.size() &&
             (std::isalnum(static_cast<unsigned char>(text[j])) || text[j] == '_'))
        ++j;
      const std::string term = text.substr(i, j - i);
      int64_t v = 0;
      if (std::isdigit(static_cast<unsigned char>(term[0]))) {
        for (char d : term) {
          if (!std::isdigit(static_cast<unsigned char>(d)) || v > kMaxCycles)
            return "'" + term + "' is not a number";
          v = v * 10 + (d - '0');
        }
      } else {
        auto it = timing.find(term);
        if (it == timing.end()) return "names '" + term + "', which dram.timing does not define";
        v = it->second;
      }
      sum += sign * v;
      want_term = false;
      i = j;
    } else {
      return "expected a sum of timing names and integers (e.g. nCWL + nBL + nWTRS), got '" + text +
             "'";
    }
  }
  if (want_term) return "expected a sum of timing names and integers, got '" + text + "'";
  out = sum;
  return "";
}

// A cycle value: an unsigned integer or an expression; reports to `diags`.
bool read_cycles(const ConfigNode& v, const std::string& key, const DramSpec& spec,
                 Diagnostics& diags, uint32_t& out) {
  if (!v.is_scalar()) {
    diags.error(v.origin, key, "expected a cycle count or a sum of timings, got " + v.describe());
    return false;
  }
  int64_t value = 0;
  const std::string why = eval_expression(v.scalar, spec.timing, value);
  if (!why.empty()) {
    diags.error(v.origin, key, why);
    return false;
  }
  if (value < 0 || value > kMaxCycles) {
    diags.error(v.origin, key,
                "'" + v.scalar + "' = " + std::to_string(value) + " cycles; expected 0.." +
                    std::to_string(kMaxCycles));
    return false;
  }
  out = static_cast<uint32_t>(value);
  return true;
}

void read_constraints(const ConfigNode* list, const std::string& path, DramSpec& spec,
                      Diagnostics& diags) {
  if (list == nullptr) {
    return;
  }
  if (!list->is_list()) {
    diags.error(list->origin, path, "expected a list of [first, second, scope, cycles(, window)]");
    return;
  }
  for (size_t i = 0; i < list->children.size(); ++i) {
    const ConfigNode& e = list->children[i];
    const std::string key = path + "[" + std::to_string(i) + "]";
    if (!e.is_list() || e.children.size() < 4 || e.children.size() > 5) {
      diags.error(e.origin, key,
                  "expected [first, second, scope, cycles] or [first, second, scope, cycles, "
                  "window], got " +
                      e.describe());
      continue;
    }
    DramConstraint c;
    bool ok = true;
    for (int k = 0; k < 2; ++k) {
      const ConfigNode& n = e.children[k];
      if (!n.is_scalar() || !parse_cmd(n.scalar, k == 0 ? c.first : c.second)) {
        diags.error(n.origin, key,
                    "expected a command (ACT, PRE, PREA, RD, WR, REF, REFPB), got " +
                        n.describe());
        ok = false;
      }
    }
    const ConfigNode& s = e.children[2];
    if (!s.is_scalar() || !parse_scope(s.scalar, c.scope)) {
      diags.error(s.origin, key,
                  "expected a scope (channel, rank, bankgroup, bank), got " + s.describe());
      ok = false;
    }
    ok = read_cycles(e.children[3], key, spec, diags, c.cycles) && ok;
    if (e.children.size() == 5) {
      uint64_t w = 0;
      if (config::to_unsigned(e.children[4], key, 64, diags, w) && w >= 1) {
        c.window = static_cast<uint32_t>(w);
      } else {
        if (w == 0 && e.children[4].is_scalar() && e.children[4].scalar == "0")
          diags.error(e.children[4].origin, key, "window must be at least 1");
        ok = false;
      }
    }
    if (ok) spec.constraints.push_back(c);
  }
}

}  // namespace

std::string parse_dram_mapping(const std::string& name, const DramSpec& spec,
                               std::vector<DramField>& fields) {
  static const std::pair<const char*, DramField> kTokens[] = {
      {"Ch", DramField::kChannel}, {"Ra", DramField::kRank}, {"Bg", DramField::kBankGroup},
      {"Ba", DramField::kBank},    {"Ro", DramField::kRow},  {"Co", DramField::kColumn}};
  fields.clear();
  std::set<DramField> seen;
  for (size_t i = 0; i < name.size(); i += 2) {
    const std::string tok = name.substr(i, 2);
    bool found = false;
    for (const auto& [t, f] : kTokens) {
      if (tok == t) {
        if (!seen.insert(f).second) return "'" + name + "' names " + tok + " twice";
        fields.push_back(f);
        found = true;
      }
    }
    if (!found) return "'" + name + "': '" + tok + "' is not a field (Ch, Ra, Bg, Ba, Ro, Co)";
  }
  const std::pair<DramField, uint32_t> counts[] = {{DramField::kChannel, spec.channels},
                                                   {DramField::kRank, spec.ranks},
                                                   {DramField::kBankGroup, spec.bankgroups},
                                                   {DramField::kBank, spec.banks},
                                                   {DramField::kRow, spec.rows},
                                                   {DramField::kColumn, 2}};
  static const char* const kNames[] = {"Ch (channels)", "Ra (ranks)", "Bg (bankgroups)",
                                       "Ba (banks)",    "Ro (rows)",  "Co (columns)"};
  for (const auto& [f, n] : counts) {
    if (n > 1 && !seen.count(f))
      return "'" + name + "' does not place " + kNames[static_cast<int>(f)];
  }
  return "";
}

bool read_dram_spec(const std::string& path, Diagnostics& diags, DramSpec& spec) {
  const size_t errors_before = diags.messages().size();
  std::optional<ConfigNode> root = config::load_yaml_file(path, diags);
  if (!root) return false;
  config::OriginMap origins;
  config::Origin file_origin;
  file_origin.file = path;
  const ConfigNode* top = root->find("dram");
  if (top == nullptr) {
    diags.error(file_origin, "dram", "a DRAM preset file needs a top-level `dram:` map");
    return false;
  }
  for (size_t i = 0; root->is_map() && i < root->keys.size(); ++i) {
    if (root->keys[i] != "dram")
      diags.error(root->key_origins[i], root->keys[i], "unknown key, expected one of: dram");
  }
  spec = DramSpec{};
  spec.file = path;
  FieldReader r(top, "dram", diags, origins);
  r.read("name", spec.name);
  r.read("source", spec.source);
  if (spec.source.empty())
    diags.error(origins.locate("dram", file_origin), "dram.source",
                "every preset names its source (standard, speed bin)");
  std::set<std::string> org_given;
  {
    FieldReader o = r.section("organization");
    const std::pair<const char*, uint32_t*> fields[] = {{"channels", &spec.channels},
                                                        {"ranks", &spec.ranks},
                                                        {"bankgroups", &spec.bankgroups},
                                                        {"banks", &spec.banks},
                                                        {"rows", &spec.rows},
                                                        {"columns", &spec.columns},
                                                        {"dq_bits", &spec.dq_bits},
                                                        {"burst_length", &spec.burst_length}};
    for (const auto& [k, p] : fields) {
      if (o.node() && o.node()->find(k)) org_given.insert(k);
      o.read(k, *p);
      if (!power_of_two(*p)) {
        diags.error(origins.locate("dram.organization." + std::string(k), file_origin),
                    "dram.organization." + std::string(k),
                    std::to_string(*p) + " must be a power of two (at least 1)");
      }
    }
    o.finish();
    if (spec.dq_bits < 8) {
      diags.error(origins.locate("dram.organization.dq_bits", file_origin),
                  "dram.organization.dq_bits", "must be at least 8");
    }
    if (spec.columns < spec.burst_length) {
      diags.error(origins.locate("dram.organization.columns", file_origin),
                  "dram.organization.columns", "must be at least burst_length (one burst)");
    }
  }
  r.read("tck_ps", spec.tck_ps);
  if (spec.tck_ps == 0)
    diags.error(origins.locate("dram.tck_ps", file_origin), "dram.tck_ps",
                "the DRAM clock period must be greater than 0");
  r.read("mapping", spec.mapping);
  std::string refresh = "all_bank";
  r.read("refresh", refresh);
  if (refresh != "all_bank" && refresh != "per_bank")
    diags.error(origins.locate("dram.refresh", file_origin), "dram.refresh",
                "'" + refresh + "'; expected all_bank or per_bank");
  spec.per_bank_refresh = refresh == "per_bank";
  r.read("powerdown_idle_cycles", spec.powerdown_idle);
  {
    const ConfigNode* t = r.child("timing");
    if (t == nullptr || !t->is_map()) {
      diags.error(origins.locate("dram.timing", file_origin), "dram.timing",
                  "expected a map of named timings in DRAM cycles (nCL: 28, ...)");
    } else {
      for (size_t i = 0; i < t->keys.size(); ++i) {
        uint64_t v = 0;
        const std::string key = "dram.timing." + t->keys[i];
        origins.record(key, t->children[i].origin);
        if (config::to_unsigned(t->children[i], key, kMaxCycles, diags, v))
          spec.timing[t->keys[i]] = static_cast<uint32_t>(v);
        else
          origins.mark_invalid(key);
      }
    }
    // Periods and the constraints that must hold between named timings.
    std::vector<const char*> periods = {"nBL", "nREFI", "nRFC"};
    if (spec.per_bank_refresh) periods.insert(periods.end(), {"nREFIpb", "nRFCpb"});
    for (const char* k : periods) {
      auto it = spec.timing.find(k);
      const std::string key = std::string("dram.timing.") + k;
      if (origins.invalid(key)) continue;
      if (it == spec.timing.end())
        diags.error(origins.locate("dram.timing", file_origin), key,
                    spec.per_bank_refresh && k[4] == 'p' ? "is required by refresh: per_bank"
                                                         : "is required");
      else if (it->second == 0)
        diags.error(origins.locate(key, file_origin), key, "must be greater than 0 (a period)");
    }
    auto has = [&](const char* k) { return spec.timing.count(k) > 0; };
    if (has("nRAS") && has("nRC") && spec.timing["nRAS"] > spec.timing["nRC"]) {
      diags.error(origins.locate("dram.timing.nRAS", file_origin), "dram.timing.nRAS",
                  std::to_string(spec.timing["nRAS"]) +
                      " > nRC = " + std::to_string(spec.timing["nRC"]) + "; expected nRAS <= nRC");
    }
    if (has("nRFC") && has("nREFI") && spec.timing["nRFC"] >= spec.timing["nREFI"]) {
      diags.error(origins.locate("dram.timing.nRFC", file_origin), "dram.timing.nRFC",
                  "must be below nREFI (a refresh must end before the next is due)");
    }
    if (spec.per_bank_refresh && has("nRFCpb") && has("nREFIpb") &&
        spec.timing["nRFCpb"] >= spec.timing["nREFIpb"]) {
      diags.error(origins.locate("dram.timing.nRFCpb", file_origin), "dram.timing.nRFCpb",
                  "must be below nREFIpb (a refresh must end before the next is due)");
    }
  }
  if (const ConfigNode* v = r.child("read_latency"))
    read_cycles(*v, "dram.read_latency", spec, diags, spec.read_latency);
  else
    diags.error(origins.locate("dram", file_origin), "dram.read_latency", "is required");
  if (const ConfigNode* v = r.child("write_latency"))
    read_cycles(*v, "dram.write_latency", spec, diags, spec.write_latency);
  else
    diags.error(origins.locate("dram", file_origin), "dram.write_latency", "is required");
  {
    FieldReader c = r.section("command_cycles");
    for (int k = 0; k < kDramCmdCount; ++k) {
      c.read(to_string(static_cast<DramCmd>(k)), spec.command_cycles[k]);
      if (spec.command_cycles[k] == 0)
        diags.error(origins.locate("dram.command_cycles", file_origin),
                    std::string("dram.command_cycles.") + to_string(static_cast<DramCmd>(k)),
                    "must be at least 1");
    }
    c.finish();
  }
  read_constraints(r.child("constraints"), "dram.constraints", spec, diags);
  if (spec.constraints.empty())
    diags.error(origins.locate("dram", file_origin), "dram.constraints",
                "a preset needs its timing constraints");
  {
    FieldReader e = r.section("energy");
    e.read("pj_per_byte", spec.pj_per_byte);
    if (!(spec.pj_per_byte > 0))
      diags.error(origins.locate("dram.energy.pj_per_byte", file_origin), "dram.energy.pj_per_byte",
                  "must be greater than 0");
    for (const char* k : {"vdd", "vpp", "idd0", "idd2n", "idd3n", "idd4r", "idd4w", "idd5", "idd2p",
                          "idd3p", "devices", "io_mw", "odt_mw"}) {
      double v = -1;
      if (e.node() && e.node()->find(k)) {
        e.read(k, v);
        if (v < 0)
          diags.error(origins.locate(std::string("dram.energy.") + k, file_origin),
                      std::string("dram.energy.") + k, "must not be negative");
        spec.power[k] = v;
      }
    }
    e.finish();
  }
  r.finish();
  std::vector<DramField> fields;
  const std::string why = parse_dram_mapping(spec.mapping, spec, fields);
  if (!why.empty()) {
    diags.error(origins.locate("dram.mapping", file_origin), "dram.mapping", why);
  }
  for (const DramField f : fields) {
    static const char* const kKeys[] = {"channels", "ranks", "bankgroups",
                                        "banks",    "rows",  "columns"};
    const char* k = kKeys[static_cast<int>(f)];
    if (!org_given.count(k))
      diags.error(
          origins.locate("dram.mapping", file_origin), "dram.mapping",
          "'" + spec.mapping + "' places " + k + ", which dram.organization does not declare");
  }
  spec.mapping_fields = fields;
  const char* interval = spec.per_bank_refresh ? "nREFIpb" : "nREFI";
  const char* hold = spec.per_bank_refresh ? "nRFCpb" : "nRFC";
  if (spec.timing.count(interval)) spec.refresh_interval = spec.timing[interval];
  if (spec.timing.count(hold)) spec.refresh_cycles = spec.timing[hold];
  const std::string why_not = dram_powerdown_timings(spec);
  if (!why_not.empty())
    diags.error(origins.locate("dram.powerdown_idle_cycles", file_origin),
                "dram.powerdown_idle_cycles", why_not);
  return diags.messages().size() == errors_before;
}

std::string dram_powerdown_timings(DramSpec& spec) {
  spec.powerdown_exit = spec.powerdown_min = 0;
  if (spec.powerdown_idle == 0) return "";
  std::string missing;
  for (const char* k : {"nXP", "nCKE"}) {
    if (spec.timing.count(k) == 0) missing += std::string(missing.empty() ? "" : " and ") + k;
  }
  if (!missing.empty()) {
    return std::to_string(spec.powerdown_idle) + " needs dram.timing." + missing +
           " (power-down exit and minimum stay; 0 turns power-down off)";
  }
  if (spec.power.count("idd2n") && (!spec.power.count("idd2p") || !spec.power.count("idd3p")))
    return std::to_string(spec.powerdown_idle) +
           " needs dram.energy.idd2p and idd3p (the power-down currents; 0 turns power-down off)";
  spec.powerdown_exit = spec.timing.at("nXP");
  spec.powerdown_min = spec.timing.at("nCKE");
  return "";
}

std::string find_dram_preset(const std::string& preset, const std::string& base_dir,
                             std::vector<std::string>& tried) {
  auto exists = [&](const fs::path& p) {
    tried.push_back(p.string());
    std::error_code ec;
    return fs::is_regular_file(p, ec);
  };
  const bool is_path = preset.find('/') != std::string::npos ||
                       (preset.size() > 5 && preset.substr(preset.size() - 5) == ".yaml");
  if (is_path) {
    fs::path p(preset);
    if (p.is_relative() && !base_dir.empty()) p = fs::path(base_dir) / p;
    return exists(p) ? p.string() : "";
  }
  const std::string file = preset + ".yaml";
  std::vector<fs::path> dirs;
  if (!base_dir.empty()) {
    dirs.push_back(fs::path(base_dir) / "../dram");
    dirs.push_back(fs::path(base_dir) / "configs/dram");
  }
  std::error_code ec;
  dirs.push_back(fs::current_path(ec) / "configs/dram");
  char exe[4096];
  const ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  if (n > 0) {
    const fs::path bin = fs::path(std::string(exe, static_cast<size_t>(n))).parent_path();
    dirs.push_back(bin / "configs/dram");
    dirs.push_back(bin.parent_path() / "configs/dram");
    dirs.push_back(bin.parent_path() / "share/strider/configs/dram");
  }
#ifdef STRIDER_CONFIG_DIR
  dirs.push_back(fs::path(STRIDER_CONFIG_DIR) / "dram");
#endif
  for (const fs::path& d : dirs) {
    const fs::path p = (d / file).lexically_normal();
    if (exists(p)) return p.string();
  }
  return "";
}

}  // namespace strider
