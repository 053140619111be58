// Stats: plain named counters, each registered once with a description by the unit that owns it
// (Ramulator/gem5 style). Derived figures are computed when the stats are dumped, not stored.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <string>

namespace strider {

struct Stat {
  std::string name;         // dotted: "dma.bytes_read"
  std::string description;
  uint64_t value = 0;
};

class StatRegistry {
 public:
  // Registers a counter; throws std::logic_error when the name is already taken. The returned
  // reference stays valid for the registry's lifetime.
  uint64_t& add(const std::string& name, const std::string& description);
  uint64_t get(const std::string& name) const;  // throws std::out_of_range naming the stat
  const std::deque<Stat>& all() const { return stats_; }

 private:
  std::deque<Stat> stats_;
  std::map<std::string, size_t> index_;
};

}  // namespace strider
