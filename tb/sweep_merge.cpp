#include "tb/sweep_merge.h"

#include <filesystem>
#include <set>
#include <stdexcept>

namespace strider {
namespace {

namespace fs = std::filesystem;

bool has_error(const std::vector<std::string>& row) { return !row.empty() && !row.back().empty(); }

}  // namespace

MergeOutcome merge_results(const std::vector<std::string>& inputs) {
  MergeOutcome m;
  std::string header_from;
  std::set<size_t> listed;
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
