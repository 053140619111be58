// Diagnostics: collects configuration errors so the loader can report every problem at once, and
// Origin, which records where a configuration value came from (a file and line, or a `--set`
// override) so that each error can name it. Errors are formatted `SOURCE: key.path: message`
// (see config_error.h); when the source is a `--set key=value` whose own key is the one at fault,
// the key is not repeated (`--set arch.l2.bankz=4: unknown key, ...`).
#pragma once

#include <string>
#include <vector>

namespace strider::config {

struct Origin {
  std::string file;     // file the value was read from (as given to the loader)
  int line = 0;         // 1-based line in `file`; 0 when not known
  std::string set_key;  // non-empty when the value came from `--set set_key=set_value`
  std::string set_value;
  std::string base_dir;  // absolute directory against which relative paths in the value resolve

  bool from_set() const { return !set_key.empty(); }
  // `FILE:LINE`, `FILE`, or `--set key=value`.
  std::string describe() const;
};

class Diagnostics {
 public:
  void error(const Origin& where, const std::string& key, const std::string& message);
  // An error with no key (e.g. a file that cannot be read).
  void error(const Origin& where, const std::string& message);

  bool empty() const { return entries_.empty(); }
  // Every message, in reading order: grouped by source (files and --sets in the order they first
  // had an error), by line within a source, and in the order found within a line.
  std::vector<std::string> messages() const;
  // Throws ConfigError with messages(), if there is any.
  void throw_if_any() const;

 private:
  struct Entry {
    std::string source;  // file name or the --set text
    int line;
    std::string text;
  };
  void add(const Origin& where, std::string text);

  std::vector<Entry> entries_;
};

}  // namespace strider::config
