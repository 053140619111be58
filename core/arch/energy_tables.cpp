#include "core/arch/energy_tables.h"

#include <cstdio>
#include <set>
#include <sstream>

#include "core/arch/config_node.h"
#include "core/arch/field_reader.h"

namespace strider {

namespace {
const char kPrefix[] = "system.strider.";
}  // namespace

const std::vector<ErtField>& ert_fields() {
  static const std::vector<ErtField> kFields = {
      {"neurons", "mac", &ActionEnergy::mac},
      {"neurons", "acc_update", &ActionEnergy::acc_update},
      {"line_buffer", "write_byte", &ActionEnergy::lb_write_per_byte},
      {"line_buffer", "write_cycle", &ActionEnergy::lb_write_cycle},
      {"kernel_region", "read_byte", &ActionEnergy::kernel_read_per_byte},
      {"kernel_region", "write_byte", &ActionEnergy::kernel_write_per_byte},
      {"l2", "read_byte", &ActionEnergy::l2_read_per_byte},
      {"l2", "write_byte", &ActionEnergy::l2_write_per_byte},
      {"dram", "access_byte", &ActionEnergy::dram_per_byte},
      {"dram", "act", &ActionEnergy::dram_act},
      {"dram", "pre", &ActionEnergy::dram_pre},
      {"dram", "rd_burst", &ActionEnergy::dram_rd},
      {"dram", "wr_burst", &ActionEnergy::dram_wr},
      {"dram", "rd_io_burst", &ActionEnergy::dram_rd_io},
      {"dram", "wr_odt_burst", &ActionEnergy::dram_wr_odt},
      {"dram", "ref", &ActionEnergy::dram_ref},
      {"dram", "refpb", &ActionEnergy::dram_refpb},
      {"dram", "act_standby_cycle", &ActionEnergy::dram_act_standby},
      {"dram", "pre_standby_cycle", &ActionEnergy::dram_pre_standby},
      {"dram", "act_powerdown_cycle", &ActionEnergy::dram_act_powerdown},
      {"dram", "pre_powerdown_cycle", &ActionEnergy::dram_pre_powerdown},
      {"controller", "descriptor", &ActionEnergy::descriptor},
      {"vector", "mac", &ActionEnergy::vector_op},
      {"vector", "exp", &ActionEnergy::vector_exp},
      {"vector", "reduce", &ActionEnergy::vector_reduce},
      {"vector", "divide", &ActionEnergy::vector_divide},
      {"clock", "flop_cycle", &ActionEnergy::clock_per_flop_cycle},
      {"logic", "leak_mm2_cycle", &ActionEnergy::logic_leak_per_mm2_cycle},
      {"sram", "leak_kib_cycle", &ActionEnergy::sram_leak_per_kib_cycle},
  };
  return kFields;
}

namespace {

std::string exact(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

const std::set<std::string>& area_units() {
  static const std::set<std::string> kUnits = {"neurons", "l1",   "l2",    "controller",
                                               "dma",     "load", "store", "vector"};
  return kUnits;
}

// Walks `TOP: {version, tables: [...]}` and calls `table(node, path, component)` for every table
// whose name is `system.strider.<component>` with a component `known` accepts.
template <typename Known, typename Table>
bool read_tables(const std::string& path, const char* top, config::Diagnostics& diags,
                 const Known& known, const Table& table) {
  using config::ConfigNode;
  const size_t before = diags.messages().size();
  std::optional<ConfigNode> root = config::load_yaml_file(path, diags);
  if (!root) return false;
  config::Origin file;
  file.file = path;
  const ConfigNode* t = root->find(top);
  if (t == nullptr || !t->is_map()) {
    diags.error(file, top,
                std::string("an Accelergy table file needs a top-level `") + top + ":` map");
    return false;
  }
  for (size_t i = 0; root->is_map() && i < root->keys.size(); ++i) {
    if (root->keys[i] != top)
      diags.error(root->key_origins[i], root->keys[i], std::string("unknown key, expected ") + top);
  }
  for (size_t i = 0; i < t->keys.size(); ++i) {
    if (t->keys[i] != "version" && t->keys[i] != "tables")
      diags.error(t->key_origins[i], std::string(top) + "." + t->keys[i],
                  "unknown key, expected one of: version, tables");
  }
  const ConfigNode* tables = t->find("tables");
  const std::string tables_path = std::string(top) + ".tables";
  if (tables == nullptr || !tables->is_list() || tables->children.empty()) {
    diags.error(tables ? tables->origin : t->origin, tables_path,
                "expected a list of tables, got " + (tables ? tables->describe() : "nothing"));
    return false;
  }
  for (size_t i = 0; i < tables->children.size(); ++i) {
    const ConfigNode& n = tables->children[i];
    const std::string p = tables_path + "[" + std::to_string(i) + "]";
    const ConfigNode* name = n.find("name");
    if (!n.is_map() || name == nullptr || !name->is_scalar()) {
      diags.error(n.origin, p + ".name", "every table needs a name");
      continue;
    }
    const std::string& s = name->scalar;
    const std::string component =
        s.rfind(kPrefix, 0) == 0 ? s.substr(sizeof(kPrefix) - 1) : std::string();
    if (!known(component)) {
      diags.error(name->origin, p + ".name",
                  "expected system.strider.<component> of a Strider component, got \"" + s + "\"");
      continue;
    }
    table(n, p, component);
  }
  return diags.messages().size() == before;
}

// A non-negative energy or area.
bool read_value(const config::ConfigNode* v, const config::ConfigNode& owner,
                const std::string& key_path, config::Diagnostics& diags, double& out) {
  if (v == nullptr) {
    diags.error(owner.origin, key_path, "missing");
    return false;
  }
  if (!config::to_double(*v, key_path, diags, out)) return false;
  if (out < 0) {
    diags.error(v->origin, key_path, "must be at least 0, got " + v->scalar);
    return false;
  }
  return true;
}

}  // namespace

std::string write_ert(const ActionEnergy& e) {
  std::ostringstream o;
  o << "# Strider's energy reference table (Accelergy ERT form), pJ per action\n"
    << "ERT:\n  version: '0.4'\n  tables:\n";
  std::string last;
  for (const ErtField& f : ert_fields()) {
    if (f.component != last) {
      o << "    - name: " << kPrefix << f.component << "\n      actions:\n";
      last = f.component;
    }
    o << "        - name: " << f.action
      << "\n          arguments: null\n          energy: " << exact(e.*f.field) << "\n";
  }
  return o.str();
}

std::string write_art(const std::map<std::string, double>& area_mm2) {
  std::ostringstream o;
  o << "# Strider's area reference table (Accelergy ART form), um^2 per component\n"
    << "ART:\n  version: '0.4'\n  tables:\n";
  for (const auto& [unit, mm2] : area_mm2) {
    o << "    - name: " << kPrefix << unit << "\n      area: " << exact(mm2 * 1e6) << "\n";
  }
  return o.str();
}

bool read_ert(const std::string& path, config::Diagnostics& diags,
              std::map<std::string, double>& out) {
  std::set<std::string> components;
  for (const ErtField& f : ert_fields()) components.insert(f.component);
  return read_tables(
      path, "ERT", diags, [&](const std::string& c) { return components.count(c) > 0; },
      [&](const config::ConfigNode& n, const std::string& p, const std::string& component) {
        const config::ConfigNode* actions = n.find("actions");
        if (actions == nullptr || !actions->is_list()) {
          diags.error(n.origin, p + ".actions", "expected a list of actions");
          return;
        }
        for (size_t k = 0; k < actions->children.size(); ++k) {
          const config::ConfigNode& a = actions->children[k];
          const std::string ap = p + ".actions[" + std::to_string(k) + "]";
          const config::ConfigNode* name = a.find("name");
          std::string known;
          for (const ErtField& f : ert_fields()) {
            if (f.component == component)
              known += std::string(known.empty() ? "" : ", ") + f.action;
          }
          const bool ok =
              name != nullptr && name->is_scalar() &&
              (", " + known + ", ").find(", " + name->scalar + ", ") != std::string::npos;
          if (!ok) {
            diags.error(name ? name->origin : a.origin, ap + ".name",
                        "expected one of " + known + " (component " + component + "), got " +
                            (name ? name->describe() : "nothing"));
            continue;
          }
          double v = 0;
          if (read_value(a.find("energy"), a, ap + ".energy", diags, v))
            out[component + "." + name->scalar] = v;
        }
      });
}

bool read_art(const std::string& path, config::Diagnostics& diags,
              std::map<std::string, double>& out) {
  return read_tables(
      path, "ART", diags, [](const std::string& c) { return area_units().count(c) > 0; },
      [&](const config::ConfigNode& n, const std::string& p, const std::string& component) {
        double v = 0;
        if (read_value(n.find("area"), n, p + ".area", diags, v)) out[component] = v * 1e-6;
      });
}

}  // namespace strider
