#include "tb/sweep_spec.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <stdexcept>

#include "core/arch/config_error.h"
#include "core/common/saturating.h"
#include "core/arch/strict_number.h"
#include "core/common/input_file.h"
#include "core/arch/yaml_limits.h"

namespace strider {
namespace {

namespace fs = std::filesystem;

// One factor of the expansion: its keys and, per step, one value text per key.
struct Dimension {
  std::vector<std::string> keys;
  std::vector<std::vector<std::string>> steps;
};

class Reader {
 public:
  explicit Reader(std::string file) : file_(std::move(file)) {}

  void error(const YAML::Node& at, const std::string& key, const std::string& msg) {
    std::string where = file_;
    if (at.IsDefined() && at.Mark().line >= 0) where += ":" + std::to_string(at.Mark().line + 1);
    errors_.push_back(where + ": " + key + ": " + msg);
  }
  void fail_if_errors() const {
    if (!errors_.empty()) throw ConfigError(errors_);
  }

  static std::string value_text(const YAML::Node& v) { return set_value_text(v); }

  // A key of grid/zip: a key path, or (grid only) a list of key paths moved together.
  std::vector<std::string> keys_of(const YAML::Node& k, const std::string& section,
                                   bool allow_list) {
    std::vector<std::string> keys;
    if (k.IsScalar() && !k.Scalar().empty()) {
      keys.push_back(k.Scalar());
    } else if (allow_list && k.IsSequence() && k.size() > 0) {
      for (const YAML::Node& e : k) {
        if (!e.IsScalar() || e.Scalar().empty()) {
          error(k, section, "a key list must hold key paths, got " + value_text(k));
          return {};
        }
        keys.push_back(e.Scalar());
      }
    } else {
      error(k, section,
            std::string("expected a run key path such as arch.l2.size_bytes") +
                (allow_list ? " or a list of key paths" : "") + ", got " + value_text(k));
    }
    return keys;
  }

  Dimension dimension(const YAML::Node& k, const YAML::Node& v, const std::string& section,
                      bool allow_list) {
    Dimension d;
    d.keys = keys_of(k, section, allow_list);
    if (d.keys.empty()) return d;
    std::string name = section + "." + d.keys[0];
    if (d.keys.size() > 1) name = section + ".[" + value_text(k).substr(1);
    if (!v.IsSequence() || v.size() == 0) {
      error(v.IsDefined() ? v : k, name, "expected a non-empty list of values");
      d.keys.clear();
      return d;
    }
    for (const YAML::Node& item : v) {
      if (d.keys.size() == 1) {
        d.steps.push_back({value_text(item)});
        continue;
      }
      if (!item.IsSequence() || item.size() != d.keys.size()) {
        error(item, name,
              "expected a list of " + std::to_string(d.keys.size()) +
                  " values (one per key), got " + value_text(item));
        continue;
      }
      std::vector<std::string> step;
      for (const YAML::Node& e : item) step.push_back(value_text(e));
      d.steps.push_back(step);
    }
    return d;
  }

  std::vector<Dimension> grid(const YAML::Node& n) {
    std::vector<Dimension> dims;
    if (!n.IsMap()) {
      error(n, "grid", "expected a map of key -> list of values");
      return dims;
    }
    for (const auto& kv : n) {
      Dimension d = dimension(kv.first, kv.second, "grid", true);
      if (!d.keys.empty() && !d.steps.empty()) dims.push_back(d);
    }
    return dims;
  }

  Dimension zip(const YAML::Node& n) {
    Dimension z;
    if (!n.IsMap() || n.size() == 0) {
      error(n, "zip", "expected a non-empty map of key -> list of values (all of one length)");
      return z;
    }
    size_t first_len = 0;
    std::string first_key;
    for (const auto& kv : n) {
      Dimension d = dimension(kv.first, kv.second, "zip", false);
      if (d.keys.empty()) continue;
      if (z.keys.empty()) {
        first_len = d.steps.size();
        first_key = d.keys[0];
        z.steps.resize(first_len);
      } else if (d.steps.size() != first_len) {
        error(kv.second, "zip." + d.keys[0],
              "has " + std::to_string(d.steps.size()) + " values but zip." + first_key + " has " +
                  std::to_string(first_len) + "; zip lists step together and need one length");
        continue;
      }
      z.keys.push_back(d.keys[0]);
      for (size_t i = 0; i < first_len; ++i) z.steps[i].push_back(d.steps[i][0]);
    }
    return z;
  }

  // `points`: one dimension over the union of the points' keys ("" where a point omits one).
  Dimension points(const YAML::Node& n) {
    Dimension d;
    if (!n.IsSequence() || n.size() == 0) {
      error(n, "points", "expected a non-empty list of maps key -> value");
      return d;
    }
    for (const YAML::Node& p : n) {
      if (!p.IsMap() || p.size() == 0) error(p, "points", "expected a map key -> value per point");
      if (!p.IsMap()) continue;
      for (const auto& kv : p) {
        std::vector<std::string> k = keys_of(kv.first, "points", false);
        if (!k.empty() && std::find(d.keys.begin(), d.keys.end(), k[0]) == d.keys.end())
          d.keys.push_back(k[0]);
      }
    }
    for (const YAML::Node& p : n) {
      if (!p.IsMap()) continue;
      std::vector<std::string> step(d.keys.size());
      for (const auto& kv : p) {
        if (!kv.first.IsScalar()) continue;
        auto it = std::find(d.keys.begin(), d.keys.end(), kv.first.Scalar());
        if (it != d.keys.end()) step[it - d.keys.begin()] = value_text(kv.second);
      }
      d.steps.push_back(step);
    }
    return d;
  }

  std::vector<std::string> fixed_sets(const YAML::Node& n) {
    std::vector<std::string> sets;
    if (!n.IsMap()) {
      error(n, "set", "expected a map of key -> value applied to every point");
      return sets;
    }
    for (const auto& kv : n) {
      std::vector<std::string> k = keys_of(kv.first, "set", false);
      if (!k.empty()) sets.push_back(k[0] + "=" + value_text(kv.second));
    }
    return sets;
  }

 private:
  std::string file_;
  std::vector<std::string> errors_;
};

}  // namespace

std::string set_value_text(const YAML::Node& v) {
  if (v.IsScalar() && v.Tag() != "!") return v.Scalar();
  YAML::Emitter e;
  e << YAML::Flow;
  if (v.IsScalar()) {
    e << YAML::DoubleQuoted << v.Scalar();
  } else {
    e << v;
  }
  return e.c_str();
}

SweepSpec SweepSpec::load(const std::string& path) {
  SweepSpec s;
  std::error_code ec;
  s.file_ = fs::absolute(path, ec).lexically_normal().string();
  s.dir_ = fs::path(s.file_).parent_path().string();
  YAML::Node root;
  try {
    root = YAML::Load(read_input_file(path, kMaxYamlFileBytes));
  } catch (const InputFileError& e) {
    throw ConfigError({e.what()});
  } catch (const YAML::Exception& e) {
    throw ConfigError({path + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg});
  }
  if (yaml_alias_values_over(root)) throw ConfigError({yaml_alias_limit_message(path)});
  Reader r(path);
  if (!root.IsMap()) {
    r.error(root, "(top level)", "expected a map with base and grid, zip or points");
    r.fail_if_errors();
  }
  static const std::set<std::string> kKnown = {"base", "set", "grid", "zip", "points",
                                               "max_points"};
  for (const auto& kv : root) {
    if (!kv.first.IsScalar() || !kKnown.count(kv.first.Scalar()))
      r.error(kv.first, Reader::value_text(kv.first),
              "unknown key (expected base, set, grid, zip, points or max_points)");
  }
  const YAML::Node base = root["base"];
  if (!base || !base.IsScalar() || base.Scalar().empty()) {
    r.error(base ? base : root, "base", "expected the path of the base run file");
  } else {
    fs::path b = base.Scalar();
    if (b.is_relative()) b = fs::path(s.dir_) / b;
    s.base_ = b.lexically_normal().string();
    if (!fs::is_regular_file(s.base_, ec)) r.error(base, "base", "file not found: " + s.base_);
  }
  std::vector<std::string> fixed;
  std::vector<Dimension> dims;
  if (root["set"]) fixed = r.fixed_sets(root["set"]);
  s.fixed_ = fixed;
  if (root["points"]) dims.push_back(r.points(root["points"]));
  if (root["zip"]) dims.push_back(r.zip(root["zip"]));
  if (root["grid"]) {
    for (const Dimension& d : r.grid(root["grid"])) dims.push_back(d);
  }
  std::set<std::string> seen;
  for (const Dimension& d : dims) {
    for (const std::string& k : d.keys) {
      if (!seen.insert(k).second)
        r.error(root, k, "is varied twice (in more than one of points, zip and grid)");
      s.columns_.push_back(k);
    }
  }
  uint64_t max_points = kDefaultMaxSweepPoints;
  if (const YAML::Node m = root["max_points"]) {
    try {
      if (!m.IsScalar()) throw std::invalid_argument("");
      max_points = parse_u64(m.Scalar(), "max_points");
      if (max_points == 0) throw std::invalid_argument("");
    } catch (const std::invalid_argument&) {
      r.error(m, "max_points", "expected a positive integer, got " + Reader::value_text(m));
    }
  }
  r.fail_if_errors();

  // Counted (saturating) and bounded before a single point is allocated.
  uint64_t count = 1;
  std::string product;
  for (const Dimension& d : dims) {
    count = saturating_mul(count, d.steps.size());
    product += (product.empty() ? "" : " x ") + std::to_string(d.steps.size());
  }
  if (count > max_points) {
    throw ConfigError({path + ": the sweep has " +
                       (count == kSaturated ? std::string("more than 2^64")
                                            : std::to_string(count)) +
                       " points (" + product + "), over the limit of " +
                       std::to_string(max_points) +
                       " (set max_points: in the sweep file to allow more)"});
  }
  s.points_.reserve(count);
  for (size_t id = 0; id < count; ++id) {
    SweepPoint p;
    p.id = id;
    p.sets = fixed;
    // Odometer: the last dimension varies fastest.
    std::vector<size_t> step(dims.size());
    size_t rest = id;
    for (size_t i = dims.size(); i-- > 0;) {
      step[i] = rest % dims[i].steps.size();
      rest /= dims[i].steps.size();
    }
    for (size_t i = 0; i < dims.size(); ++i) {
      for (size_t k = 0; k < dims[i].keys.size(); ++k) {
        const std::string& v = dims[i].steps[step[i]][k];
        p.values.push_back(v);
        if (!v.empty()) p.sets.push_back(dims[i].keys[k] + "=" + v);
      }
    }
    s.points_.push_back(p);
  }
  return s;
}

std::vector<size_t> shard_ids(size_t count, size_t k, size_t n) {
  std::vector<size_t> ids;
  for (size_t i = k - 1; i < count; i += n) ids.push_back(i);
  return ids;
}

void parse_shard(const std::string& text, size_t& k, size_t& n) {
  const size_t slash = text.find('/');
  auto number = [&](const std::string& s) -> size_t {
    if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos || s.size() > 9)
      throw std::invalid_argument("--shard " + text + ": expected K/N with 1 <= K <= N");
    return std::stoul(s);
  };
  if (slash == std::string::npos)
    throw std::invalid_argument("--shard " + text + ": expected K/N with 1 <= K <= N");
  k = number(text.substr(0, slash));
  n = number(text.substr(slash + 1));
  if (k < 1 || k > n)
    throw std::invalid_argument("--shard " + text + ": expected K/N with 1 <= K <= N");
}

}  // namespace strider
