#include "tb/sweep_merge.h"

#include <algorithm>
#include <filesystem>
#include <optional>
#include <set>
#include <stdexcept>

#include "tb/sweep_fingerprint.h"

namespace strider {
namespace {

namespace fs = std::filesystem;

bool has_error(const std::vector<std::string>& row) { return !row.empty() && !row.back().empty(); }

}  // namespace

MergeOutcome merge_results(const std::vector<std::string>& inputs) {
  MergeOutcome m;
  std::string header_from;
  std::set<size_t> listed;
  // The sweep the first input belongs to: its sweep.json, and its rows' fingerprint key.
  std::optional<SweepIdentity> identity;
  std::string identity_from, key, key_from;
  for (const std::string& in : inputs) {
    std::error_code ec;
    const bool is_dir = fs::is_directory(in, ec);
    const std::string path = is_dir ? (fs::path(in) / "results.csv").string() : in;
    if (!fs::is_regular_file(path, ec)) {
      m.problems.push_back(path + ": missing");
      continue;
    }
    ResultsTable t;
    try {
      t = read_results(path);
    } catch (const std::exception& e) {
      m.problems.push_back(e.what());
      continue;
    }
    if (t.header.empty()) {
      m.problems.push_back(path + ": empty (no header)");
      continue;
    }
    if (m.table.header.empty()) {
      m.table.header = t.header;
      header_from = path;
    } else if (t.header != m.table.header) {
      throw std::runtime_error(path + ": header differs from " + header_from + " (" +
                               csv::join(t.header) + " vs " + csv::join(m.table.header) + ")");
    }
    const fs::path sweep_json = fs::path(path).parent_path() / "sweep.json";
    if (fs::is_regular_file(sweep_json, ec)) {
      const SweepIdentity id = SweepIdentity::read(sweep_json.string());
      if (!identity) {
        identity = id;
        identity_from = sweep_json.string();
      } else if (const std::string d = identity->difference(id); !d.empty()) {
        throw std::runtime_error(in + ": a shard of a different sweep than " + identity_from +
                                 ": " + d);
      }
    }
    const auto fp = std::find(t.header.begin(), t.header.end(), "fingerprint");
    for (const auto& kv : t.rows) {
      if (fp == t.header.end()) break;
      const std::string k = fingerprint_key(kv.second[size_t(fp - t.header.begin())]);
      if (key_from.empty()) {
        key = k;
        key_from = path + " (point " + std::to_string(kv.first) + ")";
      } else if (k != key) {
        throw std::runtime_error(path + ": point " + std::to_string(kv.first) +
                                 " was run from another base run, set: or program version than " +
                                 key_from + " (fingerprint " + k + " vs " + key + ")");
      }
    }
    for (auto& kv : t.rows) {
      auto it = m.table.rows.find(kv.first);
      if (it == m.table.rows.end()) {
        m.table.rows.emplace(kv.first, kv.second);
        continue;
      }
      ++m.duplicates;
      if (has_error(it->second) && !has_error(kv.second)) it->second = kv.second;
    }
    const fs::path points = fs::path(path).parent_path() / "points.csv";
    if (fs::is_regular_file(points, ec)) {
      const ResultsTable p = read_results(points.string());
      for (const auto& kv : p.rows) listed.insert(kv.first);
    }
  }
  if (m.table.header.empty())
    throw std::runtime_error("no results to merge: " + std::to_string(m.problems.size()) +
                             " input(s) unreadable" +
                             (m.problems.empty() ? "" : " (" + m.problems[0] + ")"));
  m.expected = listed.size();
  for (size_t id : listed) {
    if (!m.table.rows.count(id)) m.missing.push_back(id);
  }
  return m;
}

std::string results_text(const ResultsTable& t) {
  std::string text = csv::join(t.header) + "\n";
  for (const auto& kv : t.rows) text += csv::join(kv.second) + "\n";
  return text;
}

}  // namespace strider
