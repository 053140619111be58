#include "core/arch/field_reader.h"

#include <cmath>
#include <limits>
#include <stdexcept>

#include "core/arch/strict_number.h"

namespace strider::config {

const Origin* OriginMap::find(const std::string& key_path) const {
  auto it = map_.find(key_path);
  return it == map_.end() ? nullptr : &it->second;
}

Origin OriginMap::locate(const std::string& key_path, const Origin& fallback) const {
  std::string path = key_path;
  while (!path.empty()) {
    if (const Origin* o = find(path)) return *o;
    const size_t dot = path.find_last_of(".[");
    if (dot == std::string::npos) break;
    path.resize(dot);
  }
  return fallback;
}

namespace {

// The strict parser, as a yes/no answer (FieldReader words its own errors with file and line).
bool parse_u64(const std::string& text, uint64_t& out) {
  try {
    out = strider::parse_u64(text, "");
    return true;
  } catch (const std::invalid_argument&) {
    return false;
  }
}

bool all_digits(const std::string& text) {
  if (text.empty()) return false;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

}  // namespace

bool to_unsigned(const ConfigNode& value, const std::string& key_path, uint64_t max,
                 Diagnostics& diags, uint64_t& out) {
  uint64_t v = 0;
  if (value.is_scalar() && parse_u64(value.scalar, v) && v <= max) {
    out = v;
    return true;
  }
  if (value.is_scalar() && (all_digits(value.scalar) || v > max)) {
    diags.error(value.origin, key_path,
                "expected an unsigned integer of at most " + std::to_string(max) + ", got " +
                    value.describe());
  } else {
    diags.error(value.origin, key_path, "expected an unsigned integer, got " + value.describe());
  }
  return false;
}

constexpr double kMaxRealValue = 1e12;

bool to_double(const ConfigNode& value, const std::string& key_path, Diagnostics& diags,
               double& out) {
  if (value.is_scalar()) {
    try {
      const double v = strider::parse_double(value.scalar, key_path);
      // Every real-valued key: finite and of a size no figure it enters can overflow.
      if (!std::isfinite(v) || std::fabs(v) > kMaxRealValue) {
        diags.error(value.origin, key_path,
                    "must be a finite number between -1e12 and 1e12 (the range of every "
                    "real-valued key), got " + value.scalar);
        return false;
      }
      out = v;
      return true;
    } catch (const std::invalid_argument&) {
    }
  }
  diags.error(value.origin, key_path, "expected a number, got " + value.describe());
  return false;
}

bool to_bool(const ConfigNode& value, const std::string& key_path, Diagnostics& diags, bool& out) {
  if (value.is_scalar()) {
    const std::string& s = value.scalar;
    if (s == "true" || s == "True" || s == "TRUE") {
      out = true;
      return true;
    }
    if (s == "false" || s == "False" || s == "FALSE") {
      out = false;
      return true;
    }
  }
  diags.error(value.origin, key_path, "expected true or false, got " + value.describe());
  return false;
}

bool to_string(const ConfigNode& value, const std::string& key_path, Diagnostics& diags,
               std::string& out) {
  if (value.is_scalar()) {
    out = value.scalar;
    return true;
  }
  diags.error(value.origin, key_path, "expected a string, got " + value.describe());
  return false;
}

FieldReader::FieldReader(const ConfigNode* node, std::string path, Diagnostics& diags,
                         OriginMap& origins)
    : node_(node), path_(std::move(path)), diags_(diags), origins_(origins) {
  if (node_ != nullptr && node_->is_null()) {
    node_ = nullptr;  // `section:` with nothing under it: all defaults
  } else if (node_ != nullptr && !node_->is_map()) {
    diags_.error(node_->origin, path_, "expected a map of settings, got " + node_->describe());
    node_ = nullptr;
  }
}

std::string FieldReader::path_of(const std::string& key) const {
  return path_.empty() ? key : path_ + "." + key;
}

const ConfigNode* FieldReader::child(const std::string& key) {
  known_.push_back(key);
  if (node_ == nullptr) return nullptr;
  const ConfigNode* value = node_->find(key);
  if (value != nullptr) origins_.record(path_of(key), value->origin);
  return value;
}

FieldReader FieldReader::section(const std::string& key) {
  const ConfigNode* value = child(key);
  if (value != nullptr) {
    // A section is located at its key (its value starts on the next line).
    origins_.record(path_of(key), *node_->key_origin(key));
  }
  return FieldReader(value, path_of(key), diags_, origins_);
}

void FieldReader::read(const std::string& key, uint32_t& out) {
  if (const ConfigNode* v = child(key)) {
    uint64_t wide = 0;
    if (to_unsigned(*v, path_of(key), std::numeric_limits<uint32_t>::max(), diags_, wide)) {
      out = static_cast<uint32_t>(wide);
    } else {
      origins_.mark_invalid(path_of(key));
    }
  }
}

void FieldReader::read(const std::string& key, uint64_t& out) {
  if (const ConfigNode* v = child(key)) {
    if (!to_unsigned(*v, path_of(key), std::numeric_limits<uint64_t>::max(), diags_, out)) {
      origins_.mark_invalid(path_of(key));
    }
  }
}

void FieldReader::read(const std::string& key, double& out) {
  const ConfigNode* v = child(key);
  if (v != nullptr && !to_double(*v, path_of(key), diags_, out))
    origins_.mark_invalid(path_of(key));
}

void FieldReader::read(const std::string& key, bool& out) {
  const ConfigNode* v = child(key);
  if (v != nullptr && !to_bool(*v, path_of(key), diags_, out)) origins_.mark_invalid(path_of(key));
}

void FieldReader::read(const std::string& key, std::string& out) {
  const ConfigNode* v = child(key);
  if (v != nullptr && !to_string(*v, path_of(key), diags_, out))
    origins_.mark_invalid(path_of(key));
}

void FieldReader::read_choice(const std::string& key, std::string& out,
                              const std::vector<std::string>& choices) {
  const ConfigNode* v = child(key);
  if (v == nullptr) return;
  std::string s;
  if (!to_string(*v, path_of(key), diags_, s)) {
    origins_.mark_invalid(path_of(key));
    return;
  }
  for (const std::string& c : choices) {
    if (c == s) {
      out = s;
      return;
    }
  }
  std::string list;
  for (size_t i = 0; i < choices.size(); ++i) list += (i > 0 ? ", " : "") + choices[i];
  diags_.error(v->origin, path_of(key), "expected one of " + list + ", got " + v->describe());
  origins_.mark_invalid(path_of(key));
}

void FieldReader::finish() {
  if (node_ == nullptr) return;
  std::string expected;
  for (size_t i = 0; i < known_.size(); ++i) expected += (i > 0 ? ", " : "") + known_[i];
  for (size_t i = 0; i < node_->keys.size(); ++i) {
    bool known = false;
    for (const std::string& k : known_) known = known || k == node_->keys[i];
    if (!known) {
      diags_.error(node_->key_origins[i], path_of(node_->keys[i]),
                   "unknown key, expected one of: " + expected);
    }
  }
}

}  // namespace strider::config
