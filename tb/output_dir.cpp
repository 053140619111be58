#include "tb/output_dir.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "core/common/sha256.h"
#include "tb/version.h"

namespace strider {

namespace fs = std::filesystem;

namespace {

constexpr const char* kManifest = "run.json";
constexpr const char* kPartial = ".partial";

}  // namespace

void rename_into_place(const std::string& from, const std::string& to) {
  std::error_code ec;
  fs::rename(from, to, ec);
  if (ec) throw std::runtime_error(to + ": cannot move into place: " + ec.message());
}

const std::vector<std::string>& run_report_names() {
  static const std::vector<std::string> kNames = {
      "summary.json",  "layers.csv",      "descriptors.csv",       "occupancy.csv",
      "memory_plan.csv", "effective_config.yaml", "trace.json", "waves.vcd"};
  return kNames;
}

OutputDir::OutputDir(std::string dir) : dir_(std::move(dir)) {
  std::error_code ec;
  fs::create_directories(dir_, ec);
  if (ec) throw std::runtime_error(dir_ + ": cannot create the output directory: " + ec.message());
  const std::string manifest = dir_ + "/" + kManifest;
  std::ifstream in(manifest);
  if (in) {
    // The earlier manifest only tells which files may be stale; a damaged one tells nothing.
    const nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
    if (j.is_object() && j.contains("files") && j["files"].is_array()) {
      for (const nlohmann::json& f : j["files"]) {
        if (f.is_object() && f.contains("name") && f["name"].is_string()) {
          const std::string name = f["name"];
          if (fs::path(name).filename() == name) earlier_.push_back(name);  // never outside dir
        }
      }
    }
  }
  fs::remove(manifest, ec);
  if (ec) throw std::runtime_error(manifest + ": cannot remove: " + ec.message());
}

std::string OutputDir::temp(const std::string& name) const {
  return dir_ + "/." + name + kPartial;
}

void OutputDir::commit(const std::string& name) {
  rename_into_place(temp(name), dir_ + "/" + name);
  written_.push_back(name);
}

void OutputDir::adopt(const std::string& name) {
  std::error_code ec;
  if (fs::is_regular_file(dir_ + "/" + name, ec)) written_.push_back(name);
}

std::vector<std::string> OutputDir::finish(const std::vector<std::string>& command_line) {
  std::vector<std::string> candidates = earlier_;
  candidates.insert(candidates.end(), run_report_names().begin(), run_report_names().end());
  std::vector<std::string> removed;
  std::error_code ec;
  for (const std::string& name : candidates) {
    if (std::count(written_.begin(), written_.end(), name) ||
        std::count(removed.begin(), removed.end(), name)) {
      continue;
    }
    if (fs::remove(dir_ + "/" + name, ec)) removed.push_back(name);
  }
  for (const fs::directory_entry& e : fs::directory_iterator(dir_, ec)) {
    const std::string n = e.path().filename().string();
    if (n.size() > 1 && n[0] == '.' && n.size() > std::string(kPartial).size() &&
        n.compare(n.size() - 8, 8, kPartial) == 0) {
      fs::remove(e.path(), ec);
    }
  }

  nlohmann::ordered_json j;
  j["version"] = strider_version();
  j["git_revision"] = strider_git_revision();
  j["command"] = command_line;
  j["files"] = nlohmann::ordered_json::array();
  for (const std::string& name : written_) {
    const std::string p = dir_ + "/" + name;
    nlohmann::ordered_json f;
    f["name"] = name;
    f["bytes"] = fs::file_size(p);
    f["sha256"] = sha256_file_hex(p);
    j["files"].push_back(f);
  }
  j["stale_removed"] = removed;
  {
    std::ofstream out(temp(kManifest), std::ios::binary | std::ios::trunc);
    out << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    if (!out.flush()) throw std::runtime_error(temp(kManifest) + ": cannot write");
  }
  rename_into_place(temp(kManifest), dir_ + "/" + kManifest);
  return removed;
}

}  // namespace strider
