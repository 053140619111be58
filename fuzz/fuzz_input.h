// Shared helpers of the libFuzzer targets: readers that take a path get the fuzz bytes through a
// file in a per-process temporary directory (removed at exit), and every target bounds its input
// size so that the fuzzer explores structure rather than sheer length. Not part of the build
// unless -DSTRIDER_FUZZ=ON.
#pragma once

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

namespace strider::fuzz {

// Inputs above this many bytes are skipped (every seed is far smaller).
constexpr size_t kMaxInputBytes = 64 * 1024;

// A directory /tmp/strider_fuzz_<pid>, created on first use and removed when the process exits.
class TempDir {
 public:
  static TempDir& get() {
    static TempDir dir;
    return dir;
  }
  const std::filesystem::path& path() const { return path_; }

  // Writes `data` to `<dir>/<name>` and returns its path.
  std::string write(const std::string& name, const uint8_t* data, size_t size) const {
    const std::filesystem::path p = path_ / name;
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    return p.string();
  }
  std::string write(const std::string& name, const std::string& text) const {
    return write(name, reinterpret_cast<const uint8_t*>(text.data()), text.size());
  }

 private:
  TempDir()
      : path_(std::filesystem::temp_directory_path() /
              ("strider_fuzz_" + std::to_string(::getpid()))) {
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::filesystem::path path_;
};

// True when the bytes mention a device or kernel file system path: a config that names
// /dev/zero as its arch file would make the reader block or read forever, which is the
// operating system's behaviour, not a reader bug, so such inputs are skipped.
inline bool names_special_file(const uint8_t* data, size_t size) {
  const std::string s(reinterpret_cast<const char*>(data), size);
  return s.find("/dev") != std::string::npos || s.find("/proc") != std::string::npos ||
         s.find("/sys") != std::string::npos;
}

}  // namespace strider::fuzz
