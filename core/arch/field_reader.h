// FieldReader: reads the typed fields of one map section of a ConfigNode tree into a config
// struct. It knows the section's full key path (`arch.l2`), turns type errors into messages such
// as `expected an unsigned integer, got "abc"` at the value's file and line, records where every
// field was written (OriginMap, used later by cross-field checks), and reports the keys nobody
// asked for as `unknown key, expected one of: ...`. Absent keys keep the struct's default.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/arch/config_node.h"
#include "core/arch/diagnostics.h"

namespace strider::config {

// Full key path -> where that key's value was written (fields and sections that were present).
class OriginMap {
 public:
  void record(const std::string& key_path, const Origin& where) { map_[key_path] = where; }
  // nullptr when the key was not written (it took its default).
  const Origin* find(const std::string& key_path) const;
  // The origin of the key, else of its nearest written parent section, else `fallback`.
  Origin locate(const std::string& key_path, const Origin& fallback) const;
  // Keys whose value was written but could not be read (they keep their default); checks that
  // involve them are skipped so one typo does not produce a cascade of errors.
  void mark_invalid(const std::string& key_path) { invalid_.insert(key_path); }
  bool invalid(const std::string& key_path) const { return invalid_.count(key_path) > 0; }

 private:
  std::map<std::string, Origin> map_;
  std::set<std::string> invalid_;
};

// Conversions of one value, reporting to `diags` under `key_path`; false (and `out` untouched)
// on error.
bool to_unsigned(const ConfigNode& value, const std::string& key_path, uint64_t max,
                 Diagnostics& diags, uint64_t& out);
bool to_double(const ConfigNode& value, const std::string& key_path, Diagnostics& diags,
               double& out);
bool to_bool(const ConfigNode& value, const std::string& key_path, Diagnostics& diags, bool& out);
bool to_string(const ConfigNode& value, const std::string& key_path, Diagnostics& diags,
               std::string& out);

class FieldReader {
 public:
  // `node` may be null (the section is absent: every field keeps its default); an empty value
  // (`section:` alone) is the same, and any other non-map is reported and treated as absent.
  FieldReader(const ConfigNode* node, std::string path, Diagnostics& diags, OriginMap& origins);

  void read(const std::string& key, uint32_t& out);
  void read(const std::string& key, uint64_t& out);
  void read(const std::string& key, double& out);
  void read(const std::string& key, bool& out);
  void read(const std::string& key, std::string& out);
  // A string that must be one of `choices`.
  void read_choice(const std::string& key, std::string& out,
                   const std::vector<std::string>& choices);

  // Marks `key` as known and returns its value (nullptr when absent), recording its origin.
  const ConfigNode* child(const std::string& key);
  // A reader for the nested map `key`.
  FieldReader section(const std::string& key);
  // Reports every key of the section that no read/child/section call named.
  void finish();

  std::string path_of(const std::string& key) const;
  const ConfigNode* node() const { return node_; }
  OriginMap& origins() { return origins_; }

 private:
  const ConfigNode* node_;
  std::string path_;
  Diagnostics& diags_;
  OriginMap& origins_;
  std::vector<std::string> known_;
};

}  // namespace strider::config
