// RetireChannel: completions reach the controller at their own times, none lost. The case that
// lost one: two ids due at the same time, taken in one loop, left a stale zero-delay notification
// from the first take that swallowed the later id's (sc_event keeps only its earliest), so the
// controller slept until the watchdog (convnext_tiny at a 64 KiB weight slot, a LayerNorm tile
// retired 10,000,000 cycles late).
#include "model/common/retire_channel.h"

#include <gtest/gtest.h>

#include <systemc>
#include <utility>
#include <vector>

namespace strider {
namespace {

using sc_core::SC_NS;
using sc_core::sc_time;

struct Bench : sc_core::sc_module {
  RetireChannel retire{"retire"};
  std::vector<std::pair<uint32_t, double>> seen;   // (id, ns) as the waiter takes them
  std::vector<std::pair<uint32_t, double>> posts;  // (id, delay ns), all posted at 0 ns
  size_t expected = 0;

  Bench(sc_core::sc_module_name n, std::vector<std::pair<uint32_t, double>> p)
      : sc_core::sc_module(n), posts(std::move(p)), expected(posts.size()) {
    SC_HAS_PROCESS(Bench);
    SC_THREAD(poster);
    SC_THREAD(waiter);
  }
  void poster() {
    for (const auto& [id, ns] : posts) retire.post(id, sc_time(ns, SC_NS));
  }
  // The controller's loop: take every id that is due, then wait for the channel's event.
  void waiter() {
    for (;;) {
      uint32_t id;
      while (retire.nb_take(&id))
        seen.emplace_back(id, sc_core::sc_time_stamp().to_seconds() * 1e9);
      if (seen.size() == expected) return;
      wait(retire.event());
    }
  }
};

TEST(RetireChannel, TiedCompletionsDoNotSwallowALaterOne) {
  // 1 and 2 due at 5 ns, taken in one loop; 3 due at 20 ns must still wake the waiter at 20 ns.
  Bench b("bench", {{1, 5}, {2, 5}, {3, 20}});
  sc_core::sc_start();
  const std::vector<std::pair<uint32_t, double>> want = {{1, 5}, {2, 5}, {3, 20}};
  EXPECT_EQ(b.seen, want);
  EXPECT_EQ(b.retire.pending(), 0u);
}

}  // namespace
}  // namespace strider
