// The independent plan verifier: see verifier.h. Deliberately shares no code with the allocators:
// a sweep over lifetime events keeping the live buffers in an ordered map keyed by offset.
#include "planner/memory/verifier.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <tuple>

namespace strider::memory {
namespace {

constexpr size_t kMaxMessages = 50;

struct Live {
  int64_t end;
  size_t index;
};

class Report {
 public:
  void add(std::string msg) {
    ++count_;
    if (messages_.size() < kMaxMessages) messages_.push_back(std::move(msg));
  }
  std::vector<std::string> take() {
    if (count_ > messages_.size()) {
      messages_.push_back("... and " + std::to_string(count_ - messages_.size()) +
                          " more violations");
    }
    return std::move(messages_);
  }

 private:
  std::vector<std::string> messages_;
  size_t count_ = 0;
};

std::string range(int64_t off, int64_t size) {
  return "[" + std::to_string(off) + ", " + std::to_string(off + size) + ")";
}

std::string life(const Buffer& b) {
  return "[" + std::to_string(b.lower) + ", " + std::to_string(b.upper) + ")";
}

}  // namespace

std::vector<std::string> verify(const Problem& p, const Solution& s) {
  Report r;
  const size_t n = p.buffers.size();
  if (s.offsets.size() != n) {
    r.add("solution has " + std::to_string(s.offsets.size()) + " offsets for " +
          std::to_string(n) + " buffers");
    return r.take();
  }

  int64_t height = 0;
  for (size_t i = 0; i < n; ++i) {
    const Buffer& b = p.buffers[i];
    const int64_t off = s.offsets[i];
    const std::string who = "buffer '" + b.id + "'";
    if (b.size < 0) r.add(who + " has negative size " + std::to_string(b.size));
    if (b.upper < b.lower) r.add(who + " has lifetime " + life(b) + " with upper < lower");
    if (off < 0) r.add(who + " has negative offset " + std::to_string(off));
    if (b.alignment > 1 && off % b.alignment != 0) {
      r.add(who + " at offset " + std::to_string(off) + " is not aligned to " +
            std::to_string(b.alignment));
    }
    if (b.fixed_offset && *b.fixed_offset != off) {
      r.add(who + " must be at fixed offset " + std::to_string(*b.fixed_offset) + " but is at " +
            std::to_string(off));
    }
    if (p.capacity > 0 && off + b.size > p.capacity) {
      r.add(who + " at " + range(off, b.size) + " exceeds capacity " +
            std::to_string(p.capacity));
    }
    height = std::max(height, off + b.size);
  }
  if (height != s.height) {
    r.add("solution height " + std::to_string(s.height) + " differs from max offset + size " +
          std::to_string(height));
  }

  // Events: (time, kind, index) with kind 0 = release before kind 1 = acquire at equal times.
  std::vector<std::tuple<int64_t, int, size_t>> events;
  events.reserve(2 * n);
  for (size_t i = 0; i < n; ++i) {
    const Buffer& b = p.buffers[i];
    if (b.size <= 0 || b.upper <= b.lower) continue;
    events.emplace_back(b.lower, 1, i);
    events.emplace_back(b.upper, 0, i);
  }
  std::sort(events.begin(), events.end());

  std::map<int64_t, Live> live;   // offset -> (end, buffer), pairwise disjoint
  std::vector<char> inserted(n, 0);
  for (const auto& [time, kind, i] : events) {
    const int64_t off = s.offsets[i];
    const int64_t end = off + p.buffers[i].size;
    if (kind == 0) {
      if (inserted[i]) live.erase(off);
      continue;
    }
    // Every live interval that overlaps [off, end) is adjacent in the map, starting at the last
    // one whose offset is below `off`.
    auto it = live.lower_bound(off);
    if (it != live.begin() && std::prev(it)->second.end > off) --it;
    bool clash = false;
    for (; it != live.end() && it->first < end; ++it) {
      clash = true;
      const Buffer& a = p.buffers[it->second.index];
      const Buffer& b = p.buffers[i];
      r.add("buffers '" + a.id + "' " + range(it->first, a.size) + " life " + life(a) + " and '" +
            b.id + "' " + range(off, b.size) + " life " + life(b) + " overlap at time " +
            std::to_string(time));
    }
    if (!clash) {
      live.emplace(off, Live{end, i});
      inserted[i] = 1;
    }
  }
  return r.take();
}

}  // namespace strider::memory
