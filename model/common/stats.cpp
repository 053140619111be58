#include "model/common/stats.h"

#include <stdexcept>

namespace strider {

uint64_t& StatRegistry::add(const std::string& name, const std::string& description) {
  if (index_.count(name)) throw std::logic_error("stat registered twice: " + name);
  index_[name] = stats_.size();
  stats_.push_back(Stat{name, description, 0});
  return stats_.back().value;
}

uint64_t StatRegistry::get(const std::string& name) const {
  auto it = index_.find(name);
  if (it == index_.end()) throw std::out_of_range("no stat named " + name);
  return stats_[it->second].value;
}

}  // namespace strider
