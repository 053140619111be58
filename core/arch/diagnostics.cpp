#include "core/arch/diagnostics.h"

#include <algorithm>

#include "core/arch/config_error.h"

namespace strider::config {

std::string Origin::describe() const {
  if (from_set()) return "--set " + set_key + "=" + set_value;
  if (line > 0) return file + ":" + std::to_string(line);
  return file;
}

void Diagnostics::add(const Origin& where, std::string text) {
  entries_.push_back(
      {where.from_set() ? where.describe() : where.file, where.line, std::move(text)});
}

void Diagnostics::error(const Origin& where, const std::string& key, const std::string& message) {
  if (key.empty() || (where.from_set() && key == where.set_key)) {
    error(where, message);
    return;
  }
  add(where, where.describe() + ": " + key + ": " + message);
}

void Diagnostics::error(const Origin& where, const std::string& message) {
  add(where, where.describe() + ": " + message);
}

std::vector<std::string> Diagnostics::messages() const {
  std::vector<std::string> sources;  // in order of first error
  for (const Entry& e : entries_) {
    if (std::find(sources.begin(), sources.end(), e.source) == sources.end()) {
      sources.push_back(e.source);
    }
  }
  std::vector<std::string> out;
  for (const std::string& source : sources) {
    std::vector<const Entry*> group;
    for (const Entry& e : entries_) {
      if (e.source == source) group.push_back(&e);
    }
    std::stable_sort(group.begin(), group.end(),
                     [](const Entry* a, const Entry* b) { return a->line < b->line; });
    for (const Entry* e : group) out.push_back(e->text);
  }
  return out;
}

void Diagnostics::throw_if_any() const {
  if (!entries_.empty()) throw ConfigError(messages());
}

}  // namespace strider::config
