// ConfigNode: a YAML tree in which every value and every map key remembers its Origin (file and
// line, or the `--set` override that produced it). The loader parses YAML files into this tree,
// merges inline overrides and `--set key.path=value` assignments into it, and only then reads and
// validates it, so that every error can still name where the offending value was written.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/arch/diagnostics.h"

namespace strider::config {

struct ConfigNode {
  enum class Kind { kNull, kScalar, kList, kMap };

  Kind kind = Kind::kNull;
  Origin origin;                     // where the value starts
  std::string scalar;                // kScalar: the text as written (quotes removed)
  std::vector<ConfigNode> children;  // kList: the items; kMap: the values, parallel to `keys`
  std::vector<std::string> keys;     // kMap only, in file order
  std::vector<Origin> key_origins;   // kMap only: where each key was written

  bool is_map() const { return kind == Kind::kMap; }
  bool is_list() const { return kind == Kind::kList; }
  bool is_scalar() const { return kind == Kind::kScalar; }
  bool is_null() const { return kind == Kind::kNull; }

  // Map lookup; nullptr when this is not a map or the key is absent.
  const ConfigNode* find(const std::string& key) const;
  ConfigNode* find(const std::string& key);
  const Origin* key_origin(const std::string& key) const;
  // Replaces the value of `key` (keeping its position) or appends it. Turns a non-map into a map.
  ConfigNode& put(const std::string& key, const Origin& key_origin, ConfigNode value);
  void erase(const std::string& key);

  // How the value reads in an error message: `"abc"`, `a map`, `a list of 3 items` or
  // `an empty value`.
  std::string describe() const;

  static ConfigNode make_map(const Origin& origin);
  static ConfigNode make_scalar(const std::string& text, const Origin& origin);
};

// Reads and parses a YAML file. Unreadable files, syntax errors and duplicate keys are reported
// to `diags` (naming the file and line) and give std::nullopt.
std::optional<ConfigNode> load_yaml_file(const std::string& path, Diagnostics& diags);

// Deep merge: every key of `over` replaces the same key of `base`, except that a map over a map
// is merged key by key. Origins of `over` are kept, so errors name where the override was written.
void merge_into(ConfigNode& base, const ConfigNode& over);

// Applies one `key.path=value` assignment (a `--set`) to `root`. `value` is parsed as YAML (so
// `[32, 32]` is a list); a key path may index a list (`networks[0].input`). Missing maps on the
// way are created; a map value is merged into an existing map. Malformed assignments are
// reported to `diags`. `cwd` is the base directory for relative paths in the value.
void apply_set(ConfigNode& root, const std::string& assignment, const std::string& cwd,
               Diagnostics& diags);

}  // namespace strider::config
