// See stage_progress.h.
#include "tb/stage_progress.h"

#include <algorithm>
#include <cstdio>

namespace strider {

StageProgress::StageProgress(std::ostream& out, bool tty, std::chrono::milliseconds first_draw)
    : out_(out), tty_(tty), first_draw_(first_draw) {}

ProgressFn StageProgress::stage(const std::string& name) {
  finish();
  name_ = name;
  display_ = std::make_unique<ProgressDisplay>(out_, first_draw_, std::chrono::milliseconds(200));
  return [this](uint64_t done, uint64_t total) {
    if (tty_ && display_ && display_->due()) {
      display_->draw(render(name_, done, total, display_->elapsed_seconds()), true);
    }
  };
}

void StageProgress::finish() {
  if (!display_) return;
  times_.emplace_back(name_, display_->elapsed_seconds());
  display_->close();
  display_.reset();
}

std::string StageProgress::render(const std::string& name, uint64_t done, uint64_t total,
                                  double seconds) {
  char line[160];
  std::snprintf(line, sizeof line, "  %-12s layer %llu of %llu  %.1f s", name.c_str(),
                static_cast<unsigned long long>(done), static_cast<unsigned long long>(total),
                seconds);
  return line;
}

std::string StageProgress::summary(const std::vector<std::pair<std::string, double>>& times) {
  // A stage met again (one import per network of the run) adds to its first entry.
  std::vector<std::pair<std::string, double>> merged;
  for (const auto& [name, seconds] : times) {
    auto it =
        std::find_if(merged.begin(), merged.end(), [&](const auto& m) { return m.first == name; });
    if (it == merged.end()) {
      merged.emplace_back(name, seconds);
    } else {
      it->second += seconds;
    }
  }
  std::string s;
  for (const auto& [name, seconds] : merged) {
    char part[96];
    std::snprintf(part, sizeof part, "%s%s %.3f s", s.empty() ? "" : ", ", name.c_str(), seconds);
    s += part;
  }
  return s;
}

}  // namespace strider
