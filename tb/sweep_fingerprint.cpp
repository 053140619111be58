#include "tb/sweep_fingerprint.h"

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "core/common/sha256.h"
#include "tb/version.h"

namespace strider {
namespace {

std::string hex_of(const std::string& text, size_t digits) {
  return to_hex(sha256(text.data(), text.size())).substr(0, digits);
}

std::string lines(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& x : v) s += x + "\n";
  return s;
}

std::string list_text(const std::vector<std::string>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + v[i];
  return s + "]";
}

}  // namespace

SweepIdentity SweepIdentity::of(const SweepSpec& spec) {
  SweepIdentity id;
  id.version = strider_version() + " " + strider_git_revision();
  id.base = spec.base();
  id.base_sha256 = sha256_file_hex(spec.base());
  id.set = spec.fixed();
  id.columns = spec.columns();
  id.points = spec.points().size();
  Sha256 h;
  for (const SweepPoint& p : spec.points()) {
    const std::string t = lines(p.sets) + "\n";
    h.update(t.data(), t.size());
  }
  id.points_sha256 = to_hex(h.finish());
  id.key = hex_of(id.version + "\n" + id.base_sha256 + "\n" + lines(id.set), 12);
  return id;
}

SweepIdentity SweepIdentity::read(const std::string& path) {
  std::ifstream in(path);
  const nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
  SweepIdentity id;
  try {
    id.version = j.at("version");
    id.base = j.at("base");
    id.base_sha256 = j.at("base_sha256");
    id.set = j.at("set").get<std::vector<std::string>>();
    id.columns = j.at("columns").get<std::vector<std::string>>();
    id.points = j.at("points");
    id.points_sha256 = j.at("points_sha256");
    id.key = j.at("key");
  } catch (const nlohmann::json::exception&) {
    throw std::runtime_error(path + ": not a sweep.json written by strider sweep");
  }
  return id;
}

std::string SweepIdentity::json() const {
  nlohmann::ordered_json j;
  j["version"] = version;
  j["base"] = base;
  j["base_sha256"] = base_sha256;
  j["set"] = set;
  j["columns"] = columns;
  j["points"] = points;
  j["points_sha256"] = points_sha256;
  j["key"] = key;
  return j.dump(2) + "\n";
}

std::string SweepIdentity::fingerprint(const SweepPoint& p) const {
  return key + "-" + hex_of(key + "\n" + lines(p.sets), 12);
}

std::string SweepIdentity::difference(const SweepIdentity& o) const {
  if (base_sha256 != o.base_sha256) {
    return "the base run differs (" + base + " sha256 " + base_sha256.substr(0, 12) + " vs " +
           o.base + " sha256 " + o.base_sha256.substr(0, 12) + ")";
  }
  if (set != o.set) return "set: differs (" + list_text(set) + " vs " + list_text(o.set) + ")";
  if (columns != o.columns) {
    return "the varied keys differ (" + list_text(columns) + " vs " + list_text(o.columns) + ")";
  }
  if (points != o.points || points_sha256 != o.points_sha256) {
    return "the points differ (" + std::to_string(points) + " points, sha256 " +
           points_sha256.substr(0, 12) + " vs " + std::to_string(o.points) + " points, sha256 " +
           o.points_sha256.substr(0, 12) + ")";
  }
  if (version != o.version)
    return "the program version differs (" + version + " vs " + o.version + ")";
  return "";
}

std::string fingerprint_key(const std::string& fingerprint) {
  const size_t dash = fingerprint.find('-');
  return dash == std::string::npos ? "" : fingerprint.substr(0, dash);
}

}  // namespace strider
