// A bound on what aliases add to a parsed YAML tree. yaml-cpp shares an aliased node between its
// uses, but any walk over the tree (conversion, emitting a value as text) visits it once per use,
// so a kilobyte of nested aliases is billions of values. yaml_alias_values_over() walks the tree
// as such a walk would and counts only the values met again through an alias (a node seen before
// at the same source position), stopping as soon as that count passes the limit. Values written
// out in the document are not counted: plain large documents are bounded by the file size limit
// (kMaxYamlFileBytes, core/common/input_file.h).
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <string>
#include <unordered_set>

namespace strider {

// Values aliases may add, more than any configuration or network file needs.
constexpr size_t kMaxYamlAliasValues = 100000;

namespace yaml_limits_detail {

inline bool walk(const YAML::Node& node, size_t limit, bool aliased, size_t& added,
                 std::unordered_set<size_t>& seen) {
  const YAML::Mark m = node.Mark();
  if (!aliased && !m.is_null()) {
    // One key per source position and node type: an alias use repeats its anchor's.
    const size_t key = size_t(m.pos) * 8 + size_t(node.Type());
    if (!seen.insert(key).second) aliased = true;
  }
  if (aliased && ++added > limit) return true;
  if (node.IsSequence()) {
    for (const YAML::Node& item : node) {
      if (walk(item, limit, aliased, added, seen)) return true;
    }
  } else if (node.IsMap()) {
    for (const auto& kv : node) {
      if (walk(kv.first, limit, aliased, added, seen) ||
          walk(kv.second, limit, aliased, added, seen)) {
        return true;
      }
    }
  }
  return false;
}

}  // namespace yaml_limits_detail

// True when the aliases of `node` add more than `limit` values (scalars, lists, maps, keys) to a
// walk over it.
inline bool yaml_alias_values_over(const YAML::Node& node, size_t limit = kMaxYamlAliasValues) {
  size_t added = 0;
  std::unordered_set<size_t> seen;
  return yaml_limits_detail::walk(node, limit, false, added, seen);
}

// The refusal of such a file, naming the limit and how to raise it.
inline std::string yaml_alias_limit_message(const std::string& path) {
  return path + ": its aliases expand to more than " + std::to_string(kMaxYamlAliasValues) +
         " further values (an alias bomb?); the limit on values added by aliases is "
         "kMaxYamlAliasValues in core/arch/yaml_limits.h: write the values out or raise it and "
         "rebuild";
}

}  // namespace strider
