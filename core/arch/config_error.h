// ConfigError: the one exception the configuration loader throws. It carries every problem found
// in a configuration (the loader collects them all before failing), each formatted as
// `SOURCE: full.key.path: message`, where SOURCE is `FILE:LINE` (1-based line), a bare `FILE`
// when no line applies, or `--set key=value` for a command-line override. what() is all the
// errors joined by newlines.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace strider {

class ConfigError : public std::runtime_error {
 public:
  explicit ConfigError(std::vector<std::string> errors)
      : std::runtime_error(join(errors)), errors_(std::move(errors)) {}

  const std::vector<std::string>& errors() const { return errors_; }

 private:
  static std::string join(const std::vector<std::string>& errors) {
    std::string out;
    for (size_t i = 0; i < errors.size(); ++i) {
      if (i > 0) out += '\n';
      out += errors[i];
    }
    return out;
  }

  std::vector<std::string> errors_;
};

}  // namespace strider
