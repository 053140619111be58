// LatencyFifo: the project's datapath channel. A bounded FIFO whose items become visible to the
// reader `delay` after they were written (a pipeline register chain of that depth), with
// occupancy statistics. write() blocks while the FIFO holds `capacity` items (back-pressure) and
// returns the cycles it was blocked; read() blocks until the oldest item is visible.
//
// Items are kept in write order; each carries its own visibility time, so a later item with a
// shorter delay still waits for the one before it (in-order delivery, as in hardware).
#pragma once

#include <systemc>

#include <cstdint>
#include <deque>
#include <string>
#include <utility>

namespace strider {

template <typename T>
class LatencyFifo : public sc_core::sc_prim_channel {
 public:
  LatencyFifo(const char* name, size_t capacity)
      : sc_core::sc_prim_channel(name), capacity_(capacity) {}

  // Blocks while full; returns the time spent blocked.
  sc_core::sc_time write(T item, const sc_core::sc_time& delay = sc_core::SC_ZERO_TIME) {
    sc_core::sc_time start = sc_core::sc_time_stamp();
    while (capacity_ != 0 && items_.size() >= capacity_) sc_core::wait(read_event_);
    sc_core::sc_time visible = sc_core::sc_time_stamp() + delay;
    if (!items_.empty() && items_.back().first > visible) visible = items_.back().first;
    items_.emplace_back(visible, std::move(item));
    ++writes_;
    if (items_.size() > peak_) peak_ = items_.size();
    write_event_.notify(visible - sc_core::sc_time_stamp());
    return sc_core::sc_time_stamp() - start;
  }

  T read() {
    while (items_.empty() || items_.front().first > sc_core::sc_time_stamp()) {
      if (items_.empty()) {
        sc_core::wait(write_event_);
      } else {
        sc_core::wait(items_.front().first - sc_core::sc_time_stamp());
      }
    }
    T item = std::move(items_.front().second);
    items_.pop_front();
    read_event_.notify(sc_core::SC_ZERO_TIME);
    return item;
  }

  bool nb_read(T* out) {
    if (items_.empty() || items_.front().first > sc_core::sc_time_stamp()) return false;
    *out = std::move(items_.front().second);
    items_.pop_front();
    read_event_.notify(sc_core::SC_ZERO_TIME);
    return true;
  }

  // Notified when an item becomes visible / when an item is read (room freed).
  const sc_core::sc_event& data_written_event() const { return write_event_; }
  const sc_core::sc_event& data_read_event() const { return read_event_; }
  // When the oldest item becomes visible to the reader (SC_ZERO_TIME when empty).
  sc_core::sc_time front_visible() const {
    return items_.empty() ? sc_core::SC_ZERO_TIME : items_.front().first;
  }
  bool full() const { return capacity_ != 0 && items_.size() >= capacity_; }
  size_t size() const { return items_.size(); }
  size_t peak() const { return peak_; }
  uint64_t writes() const { return writes_; }

 private:
  size_t capacity_;
  std::deque<std::pair<sc_core::sc_time, T>> items_;
  sc_core::sc_event write_event_, read_event_;
  size_t peak_ = 0;
  uint64_t writes_ = 0;
};

}  // namespace strider
