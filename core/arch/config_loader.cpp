#include "core/arch/config_loader.h"

#include <filesystem>

#include "core/arch/arch_reader.h"
#include "core/arch/config_node.h"
#include "core/arch/diagnostics.h"
#include "core/arch/field_reader.h"
#include "core/arch/run_reader.h"

namespace strider {

namespace fs = std::filesystem;
using config::ConfigNode;
using config::Diagnostics;
using config::FieldReader;
using config::Origin;
using config::OriginMap;

namespace {

// The `arch` value of an arch file's tree (nullptr when absent, reported).
const ConfigNode* arch_section(const ConfigNode& root, const Origin& file, Diagnostics& diags,
                               OriginMap& origins) {
  // An empty file is only missing its `arch:` key.
  FieldReader top(root.is_null() ? nullptr : &root, "", diags, origins);
  const ConfigNode* arch = top.child("arch");
  top.finish();
  if (arch == nullptr && (root.is_map() || root.is_null())) {
    diags.error(file, "arch", "required key is missing (an arch file is a map under `arch:`)");
  }
  return arch;
}

// The arch tree of a run: the arch file's `arch` map with the run's inline overrides (`arch` minus
// `file`) merged on top. Sets run.arch_file and `fallback` (the arch file) and returns false when
// the arch file could not be used, so that checks on an unknown arch are skipped.
bool run_arch_tree(const ConfigNode* arch, RunConfig& run, Origin& fallback, ConfigNode& tree,
                   Diagnostics& diags, OriginMap& origins) {
  if (arch == nullptr || arch->is_null()) return true;  // no arch: the built-in defaults
  if (!arch->is_map()) {
    diags.error(
        arch->origin, "arch",
        "expected an arch file path or a map {file: PATH, ...overrides}, got " + arch->describe());
    return true;
  }
  bool known = true;
  if (const ConfigNode* f = arch->find("file")) {
    known = false;
    std::string written;
    if (config::to_string(*f, "arch.file", diags, written)) {
      run.arch_file = config::resolve_path(f->origin.base_dir, written);
      const std::string problem = config::file_problem(run.arch_file);
      if (!problem.empty()) {
        diags.error(f->origin, "arch.file", problem);
      } else if (std::optional<ConfigNode> root = config::load_yaml_file(run.arch_file, diags)) {
        fallback.file = run.arch_file;
        fallback.line = 0;
        if (const ConfigNode* a = arch_section(*root, fallback, diags, origins)) {
          if (a->is_map() || a->is_null()) {
            tree = *a;  // null: `arch:` with nothing under it, all defaults
            known = true;
          } else {
            diags.error(a->origin, "arch", "expected a map of settings, got " + a->describe());
          }
        }
      }
    }
  }
  ConfigNode overrides = *arch;
  overrides.erase("file");
  config::merge_into(tree, overrides);
  return known;
}

}  // namespace

ArchConfig load_arch(const std::string& path, const std::vector<std::string>& overrides) {
  Diagnostics diags;
  std::optional<ConfigNode> root = config::load_yaml_file(path, diags);
  if (!root) diags.throw_if_any();
  const std::string cwd = fs::current_path().string();
  for (const std::string& o : overrides) {
    config::apply_set(*root, o.rfind("arch.", 0) == 0 ? o : "arch." + o, cwd, diags);
  }
  Origin file;
  file.file = path;
  OriginMap origins;
  const ConfigNode* arch = arch_section(*root, file, diags, origins);
  const ArchConfig result = config::read_arch(arch, diags, origins);
  config::check_arch(result, origins, file, diags);
  diags.throw_if_any();
  return result;
}

ArchConfig default_arch(const std::vector<std::string>& overrides) {
  Diagnostics diags;
  ConfigNode root = ConfigNode::make_map(Origin{});
  const std::string cwd = fs::current_path().string();
  for (const std::string& o : overrides) {
    config::apply_set(root, o.rfind("arch.", 0) == 0 ? o : "arch." + o, cwd, diags);
  }
  OriginMap origins;
  const ArchConfig result = config::read_arch(root.find("arch"), diags, origins);
  config::check_arch(result, origins, Origin{}, diags);
  diags.throw_if_any();
  return result;
}

RunConfig load_run(const std::string& path, const std::vector<std::string>& sets) {
  Diagnostics diags;
  std::optional<ConfigNode> root = config::load_yaml_file(path, diags);
  if (!root) diags.throw_if_any();
  config::normalize_run_tree(*root);
  const std::string cwd = fs::current_path().string();
  for (const std::string& s : sets) {
    config::apply_set(*root, s, cwd, diags);
    config::normalize_run_tree(*root);  // `--set arch=FILE` then `--set arch.x=v` keeps FILE
  }

  Origin file;
  file.file = path;
  RunConfig run;
  run.source = path;
  OriginMap origins;
  FieldReader top(root->is_null() ? nullptr : &*root, "", diags, origins);

  Origin arch_fallback = file;
  ConfigNode arch_tree;
  const ConfigNode* arch = top.child("arch");
  const bool arch_known = run_arch_tree(arch, run, arch_fallback, arch_tree, diags, origins);
  run.arch = config::read_arch(arch_tree.is_null() ? nullptr : &arch_tree, diags, origins);
  config::read_run_fields(top, file, run, diags);
  top.finish();

  if (arch_known) config::check_arch(run.arch, origins, arch_fallback, diags);
  diags.throw_if_any();
  return run;
}

}  // namespace strider
