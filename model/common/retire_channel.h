// RetireChannel: completion messages from the DMA channels and the store unit to the controller.
// Unlike a pipeline FIFO it delivers out of order: each id becomes visible at its own completion
// time (ties in posting order), as several DMA channels finish independently.
#pragma once

#include <cstdint>
#include <map>
#include <systemc>

namespace strider {

class RetireChannel : public sc_core::sc_prim_channel {
 public:
  explicit RetireChannel(const char* name) : sc_core::sc_prim_channel(name) {}

  void post(uint32_t id, const sc_core::sc_time& delay) {
    pending_.emplace(sc_core::sc_time_stamp() + delay, id);
    rearm();
  }
  // Takes one id whose completion time has come; false when none has.
  bool nb_take(uint32_t* id) {
    auto it = pending_.begin();
    if (it == pending_.end() || it->first > sc_core::sc_time_stamp()) return false;
    *id = it->second;
    pending_.erase(it);
    rearm();
    return true;
  }
  const sc_core::sc_event& event() const { return event_; }
  size_t pending() const { return pending_.size(); }

 private:
  // The event fires at the earliest pending completion, and only then. sc_event keeps only its
  // earliest notification and ignores a later one, so a notification left over from an id already
  // taken (the controller woke for another reason at that cycle and took it) would swallow the
  // next id's: the controller then slept until the watchdog's deadline (convnext_tiny at a 64 KiB
  // weight slot: a LayerNorm tile retired 10,000,000 cycles late). Cancel and notify again.
  void rearm() {
    event_.cancel();
    if (pending_.empty()) return;
    const sc_core::sc_time now = sc_core::sc_time_stamp(), at = pending_.begin()->first;
    event_.notify(at > now ? at - now : sc_core::SC_ZERO_TIME);
  }

  std::multimap<sc_core::sc_time, uint32_t> pending_;
  sc_core::sc_event event_;
};

}  // namespace strider
