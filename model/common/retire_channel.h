// RetireChannel: completion messages from the DMA channels and the store unit to the controller.
// Unlike a pipeline FIFO it delivers out of order: each id becomes visible at its own completion
// time (ties in posting order), as several DMA channels finish independently.
#pragma once

#include <systemc>

#include <cstdint>
#include <map>

namespace strider {

class RetireChannel : public sc_core::sc_prim_channel {
 public:
  explicit RetireChannel(const char* name) : sc_core::sc_prim_channel(name) {}

  void post(uint32_t id, const sc_core::sc_time& delay) {
    pending_.emplace(sc_core::sc_time_stamp() + delay, id);
    event_.notify(delay);
  }
  // Takes one id whose completion time has come; false when none has.
  bool nb_take(uint32_t* id) {
    auto it = pending_.begin();
    if (it == pending_.end() || it->first > sc_core::sc_time_stamp()) return false;
    *id = it->second;
    pending_.erase(it);
    // sc_event keeps only its earliest pending notification: re-arm for the next completion.
    if (!pending_.empty()) event_.notify(pending_.begin()->first - sc_core::sc_time_stamp());
    return true;
  }
  const sc_core::sc_event& event() const { return event_; }
  size_t pending() const { return pending_.size(); }

 private:
  std::multimap<sc_core::sc_time, uint32_t> pending_;
  sc_core::sc_event event_;
};

}  // namespace strider
