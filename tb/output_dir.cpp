#include "tb/output_dir.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "core/common/sha256.h"
#include "tb/version.h"

namespace strider {

namespace fs = std::filesystem;

namespace {

constexpr const char* kPartial = ".partial";

bool listed(const std::vector<std::string>& names, const std::string& n) {
  return std::find(names.begin(), names.end(), n) != names.end();
}

// The {name, bytes, sha256} entries of a manifest whose name is in `names`; nothing from a
// damaged or foreign file.
std::vector<std::pair<std::string, std::string>> manifest_entries(
    const std::string& path, const std::vector<std::string>& names) {
  std::vector<std::pair<std::string, std::string>> out;
  std::ifstream in(path);
  if (!in) return out;
  const nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
  if (!j.is_object() || !j.contains("files") || !j["files"].is_array()) return out;
  for (const nlohmann::json& f : j["files"]) {
    if (!f.is_object() || !f.contains("name") || !f["name"].is_string() || !f.contains("sha256") ||
        !f["sha256"].is_string()) {
      continue;
    }
    const std::string name = f["name"];
    if (listed(names, name)) out.emplace_back(name, f["sha256"].get<std::string>());
  }
  return out;
}

}  // namespace

void rename_into_place(const std::string& from, const std::string& to) {
  std::error_code ec;
  fs::rename(from, to, ec);
  if (ec) throw std::runtime_error(to + ": cannot move into place: " + ec.message());
}

const std::vector<std::string>& run_report_names() {
  static const std::vector<std::string> kNames = {
      "summary.json",     "layers.csv",    "energy_breakdown.csv", "ert.yaml",
      "art.yaml",         "descriptors.csv", "occupancy.csv",      "memory_plan.csv",
      "mapping.csv",      "effective_config.yaml", "trace.json",  "waves.vcd"};
  return kNames;
}

const std::vector<std::string>& plan_report_names() {
  static const std::vector<std::string> kNames = {"plan_memory.csv", "plan_lowering.csv"};
  return kNames;
}

std::vector<std::string> run_inputs(const RunConfig& c) {
  std::vector<std::string> in = {c.source, c.arch_file};
  for (const NetworkSpec& n : c.networks) in.push_back(n.path);
  return in;
}

void write_whole_file(const std::string& path, const std::string& what,
                      const std::function<void(std::ostream&)>& write) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) throw std::runtime_error(what + " " + path + ": is a directory");
  const fs::path p(path);
  const std::string tmp = (p.parent_path() / ("." + p.filename().string() + kPartial)).string();
  try {
    {
      std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
      if (!f) throw std::runtime_error(what + " " + path + ": cannot open for writing");
      write(f);
      if (!f.flush()) throw std::runtime_error(what + " " + path + ": cannot write");
    }
    rename_into_place(tmp, path);
  } catch (...) {
    fs::remove(tmp, ec);
    throw;
  }
}

void refuse_input_as_output(const std::string& output, const std::vector<std::string>& inputs,
                            const std::string& what) {
  std::error_code ec;
  if (fs::is_directory(output, ec))
    throw std::runtime_error(what + " " + output + ": is a directory");
  if (!fs::exists(output, ec)) return;
  for (const std::string& in : inputs) {
    if (!in.empty() && fs::equivalent(in, output, ec)) {
      throw std::runtime_error(what + " " + output + ": is an input of this command (" + in +
                               "); refusing to overwrite it");
    }
  }
}

OutputDir::OutputDir(std::string dir, const std::vector<std::string>& inputs, std::string manifest,
                     const std::vector<std::string>* names)
    : dir_(std::move(dir)),
      manifest_(std::move(manifest)),
      names_(names ? names : &run_report_names()) {
  std::error_code ec;
  if (dir_.empty()) {
    throw std::runtime_error(
        "output_dir is empty: name the results directory (--out DIR or --set output_dir=DIR)");
  }
  if (fs::exists(dir_, ec) && !fs::is_directory(dir_, ec))
    throw std::runtime_error(dir_ + ": the output directory is a file");
  fs::create_directories(dir_, ec);
  if (ec) throw std::runtime_error(dir_ + ": cannot create the output directory: " + ec.message());
  const std::string manifest_path = dir_ + "/" + manifest_;
  for (const std::string& m : {manifest_path, temp(manifest_)}) {
    for (const auto& [name, sha] : manifest_entries(m, *names_)) {
      const std::string p = dir_ + "/" + name;
      if (fs::is_regular_file(p, ec) && sha256_file_hex(p) == sha) proven_[name].insert(sha);
    }
  }
  for (const std::string& name : *names_) {
    const std::string p = dir_ + "/" + name;
    if (fs::is_directory(p, ec)) throw std::runtime_error(p + ": is a directory, not a report");
    refuse_input_as_output(p, inputs, "output file");
    if (!fs::exists(fs::symlink_status(p, ec)) || proven_.count(name)) continue;
    throw std::runtime_error(p + ": not written by strider (" + manifest_path +
                             " does not list it with this SHA-256); refusing to overwrite it: "
                             "move it away or choose another output directory");
  }
  refuse_input_as_output(manifest_path, inputs, "output file");
  // From here until the manifest is written the directory does not look complete; the
  // in-progress manifest keeps the proof of the files already there.
  write_progress();
  fs::remove(manifest_path, ec);
  if (ec) throw std::runtime_error(manifest_path + ": cannot remove: " + ec.message());
}

OutputDir::~OutputDir() {
  if (finished_) return;
  std::error_code ec;
  for (const std::string& name : *names_) fs::remove(temp(name), ec);
  fs::remove(dir_ + "/." + manifest_ + ".new" + kPartial, ec);
  // A failed command keeps the in-progress manifest only while it proves files it committed.
  if (written_.empty() && proven_.empty()) fs::remove(temp(manifest_), ec);
}

std::string OutputDir::temp(const std::string& name) const { return dir_ + "/." + name + kPartial; }

void OutputDir::write_progress() {
  nlohmann::ordered_json j;
  j["in_progress"] = true;
  j["files"] = nlohmann::ordered_json::array();
  for (const auto& [name, shas] : proven_) {
    for (const std::string& sha : shas) j["files"].push_back({{"name", name}, {"sha256", sha}});
  }
  const std::string p = temp(manifest_);
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << j.dump(1) << "\n";
  if (!out.flush()) throw std::runtime_error(p + ": cannot write");
}

void OutputDir::remove_temporaries() {
  std::error_code ec;
  for (const std::string& name : *names_) fs::remove(temp(name), ec);
  fs::remove(temp(manifest_), ec);
  fs::remove(dir_ + "/." + manifest_ + ".new" + kPartial, ec);
}

void OutputDir::commit(const std::string& name) {
  if (!listed(*names_, name))
    throw std::logic_error(name + ": not in the output directory's report set");
  Written w{name, fs::file_size(temp(name)), sha256_file_hex(temp(name))};
  proven_[name].insert(w.sha256);
  write_progress();  // before the rename: a killed run's file stays provable
  rename_into_place(temp(name), dir_ + "/" + name);
  written_.push_back(w);
}

void OutputDir::adopt(const std::string& name) {
  std::error_code ec;
  const std::string p = dir_ + "/" + name;
  if (listed(*names_, name) && fs::is_regular_file(p, ec))
    written_.push_back({name, fs::file_size(p), sha256_file_hex(p)});
}

std::vector<std::string> OutputDir::finish(const std::vector<std::string>& command_line) {
  std::vector<std::string> removed;
  std::error_code ec;
  for (const std::string& name : *names_) {
    if (std::any_of(written_.begin(), written_.end(),
                    [&](const Written& w) { return w.name == name; })) {
      continue;
    }
    // Only a file proven Strider's when the directory was opened, still with that content.
    auto it = proven_.find(name);
    const std::string p = dir_ + "/" + name;
    if (it == proven_.end() || !fs::is_regular_file(p, ec) || !it->second.count(sha256_file_hex(p)))
      continue;
    if (fs::remove(p, ec)) removed.push_back(name);
  }

  nlohmann::ordered_json j;
  j["version"] = strider_version();
  j["git_revision"] = strider_git_revision();
  j["command"] = command_line;
  j["files"] = nlohmann::ordered_json::array();
  for (const Written& w : written_) {
    nlohmann::ordered_json f;
    f["name"] = w.name;
    f["bytes"] = w.bytes;
    f["sha256"] = w.sha256;
    j["files"].push_back(f);
  }
  j["stale_removed"] = removed;
  const std::string tmp = dir_ + "/." + manifest_ + ".new" + kPartial;
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    if (!out.flush()) {
      fs::remove(tmp, ec);
      throw std::runtime_error(tmp + ": cannot write");
    }
  }
  rename_into_place(tmp, dir_ + "/" + manifest_);
  remove_temporaries();
  finished_ = true;
  return removed;
}

}  // namespace strider
