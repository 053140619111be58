// A bound on the size of a parsed YAML tree. yaml-cpp shares an aliased node between its uses,
// but any walk over the tree (conversion, emitting a value as text) visits it once per use, so a
// kilobyte of nested aliases is billions of values. yaml_values_over() walks the tree, counting a
// node at every use as such a walk would, and stops as soon as the count passes the limit.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstddef>

namespace strider {

constexpr size_t kMaxYamlValues = 100000;  // more than any configuration or network file holds

// True when `node` holds more than `limit` values (scalars, lists, maps, keys) with aliases
// expanded.
inline bool yaml_values_over(const YAML::Node& node, size_t limit, size_t* seen = nullptr) {
  size_t local = 0;
  size_t& n = seen != nullptr ? *seen : local;
  if (++n > limit) return true;
  if (node.IsSequence()) {
    for (const YAML::Node& item : node) {
      if (yaml_values_over(item, limit, &n)) return true;
    }
  } else if (node.IsMap()) {
    for (const auto& kv : node) {
      if (yaml_values_over(kv.first, limit, &n) || yaml_values_over(kv.second, limit, &n)) {
        return true;
      }
    }
  }
  return false;
}

}  // namespace strider
