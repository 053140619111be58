// libFuzzer target for the config readers (core/arch/config_loader.h): every input is loaded
// both as an arch file (load_arch) and as a run file (load_run). Lines starting with "#set " (YAML
// comments, so the parse is unchanged) are also passed as `--set` overrides, which fuzzes the
// override parser. The run file sits next to arch.yaml (configs/arch/tiny.yaml's content) and
// net.yaml so that seeds can name them. Errors must be exceptions derived from std::exception;
// with STRIDER_FUZZ_STRICT=1 their message must also name the file or the override.
//
// Inputs on which yaml-cpp 0.7's YAML::LoadAll never returns (a stray top-level ',' makes it
// produce null documents forever: jbeder/yaml-cpp#1040, fixed upstream after 0.8) are skipped:
// the hang is pinned by tests/config/fuzz_regression_config_test.cpp, and skipping lets the
// fuzzer go on to other bugs.
#include <cstdlib>
#include <exception>
#include <sstream>
#include <string>
#include <vector>

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include "fuzz/fuzz_input.h"
#include "core/arch/config_loader.h"

namespace {

const char* kArchYaml =
    "arch:\n  l2: {size_bytes: 65536, banks: 4, port_bytes_per_cycle: 32}\n  neurons: {count: 8}\n"
    "  l1: {lines: 8}\n";
const char* kNetYaml =
    "network:\n  name: n\n  input: {name: x, shape: [1, 3, 8, 8]}\n  layers:\n"
    "    - {name: c, op: conv, out_channels: 4, kernel: 3, pad: 1}\n";

// Ignores every event; only document boundaries matter.
class NullHandler : public YAML::EventHandler {
 public:
  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t,
                const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}
};

// True when the YAML stream yields more documents than it could possibly hold (one per two
// bytes at least): yaml-cpp's endless-null-document loop.
bool yaml_cpp_would_loop(const uint8_t* data, size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  try {
    YAML::Parser parser(in);
    NullHandler handler;
    for (size_t docs = 0; docs <= size / 2 + 2; ++docs) {
      if (!parser.HandleNextDocument(handler)) return false;
    }
    return true;
  } catch (const YAML::Exception&) {
    return false;
  }
}

// The message must name a file of the input's directory (the input or the arch / network file
// it refers to) or an override.
void check_message(const std::exception& e, const std::string& dir,
                   const std::vector<std::string>& sets) {
  static const bool strict = std::getenv("STRIDER_FUZZ_STRICT") != nullptr;
  if (!strict) return;
  const std::string what = e.what();
  if (what.find(dir) != std::string::npos || what.find("--set") != std::string::npos) return;
  for (const std::string& s : sets) {
    if (what.find(s) != std::string::npos) return;
  }
  std::fprintf(stderr, "error message names neither the file nor the override: %s\n", e.what());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > strider::fuzz::kMaxInputBytes) return -1;
  if (strider::fuzz::names_special_file(data, size)) return -1;
  if (yaml_cpp_would_loop(data, size)) return -1;
  const auto& dir = strider::fuzz::TempDir::get();
  static const bool companions = [&dir] {
    dir.write("arch.yaml", kArchYaml);
    dir.write("net.yaml", kNetYaml);
    return true;
  }();
  (void)companions;
  const std::string path = dir.write("input.yaml", data, size);

  std::vector<std::string> sets;
  std::istringstream lines(std::string(reinterpret_cast<const char*>(data), size));
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("#set ", 0) == 0) sets.push_back(line.substr(5));
  }
  try {
    strider::load_arch(path, sets);
  } catch (const std::exception& e) {
    check_message(e, dir.path().string(), sets);
  }
  try {
    strider::load_run(path, sets);
  } catch (const std::exception& e) {
    check_message(e, dir.path().string(), sets);
  }
  return 0;
}
