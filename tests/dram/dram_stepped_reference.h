// DramSteppedReference: a deliberately simple, cycle-by-cycle DRAM controller that applies the
// rules DramChannel documents (model/dram/dram_channel.h) in the most direct way, to check the
// event-driven scheduler on random request streams. Every cycle it lists the commands the first
// `queue_depth` segments need, checks each one's legality by scanning the whole history of
// issued commands against every constraint of the spec, and issues at most one (refresh first,
// then row hits, then the oldest). Quadratic; for short streams only. One channel.
// Power-down (spec.powerdown_idle = N > 0), as a state per rank updated at the start of every
// cycle t: an awake rank enters when t >= its last command + N and t >= the end of its last data /
// refresh and nothing wants it (no queued segment of the rank has arrived, its refresh is not
// due); a rank in power-down leaves when something wants it and it has stayed nCKE, and takes no
// command until t + nXP.
// Refresh postponement (policy.refresh_postpone = P > 0): a rank's owed refresh, due at D, may
// issue at t only when t >= D + P x nREFI (forced; from then the rank's requests wait) or when no
// queued segment of the rank has arrived by t and t >= the rank's last request command +
// policy.refresh_idle; it wants a rank in power-down from the later of D and that idle cycle.
// Row-hit cap (policy.row_hit_cap = N > 0): per bank, each row hit issued while an older segment
// of the window, arrived, waits for another row of the bank counts (the count restarts when the
// bank closes); at N such a younger hit is not a candidate and an older waiting segment's PRE is
// held only by an arrived row hit older than it.
// Request classes (FR-FCFS): among the commands ready at t a demand segment's goes before a
// background segment's (then a row hit, then the oldest); a background segment's row hit does
// not hold a demand segment's PRE. FCFS ignores the classes.
#pragma once

#include <cstdint>
#include <vector>

#include "core/arch/dram_spec.h"
#include "model/dram/dram_channel.h"

namespace strider::test {

struct RefRequest {
  uint64_t arrival = 0, addr = 0, bytes = 0;
  bool write = false;
  bool background = false;
  uint64_t end = 0;  // filled by run()
};

class DramSteppedReference {
 public:
  DramSteppedReference(const DramSpec& spec, const DramPolicy& policy)
      : spec_(spec), policy_(policy) {}
  // Serves every request; fills each one's `end` and returns the issued commands.
  std::vector<DramCommandRecord> run(std::vector<RefRequest>& requests);
  // The power-down stays of the last run() (each ended by a wake-up before the queue emptied).
  const std::vector<DramPowerDownRecord>& powerdowns() const { return pd_log_; }

 private:
  struct Seg {
    size_t req;
    uint64_t arrival;
    uint32_t rank, bg, bank, row, bursts;
    bool write;
    bool background;
  };
  struct Issued {
    uint64_t t;
    DramCmd cmd;
    uint32_t rank, bg, bank;
  };
  bool legal(DramCmd cmd, uint32_t rank, uint32_t bg, uint32_t bank, uint64_t t) const;
  void record(DramCmd cmd, uint32_t rank, uint32_t bg, uint32_t bank, uint32_t row, uint64_t t,
              bool refresh = false);

  const DramSpec& spec_;
  DramPolicy policy_;
  std::vector<Issued> history_;
  std::vector<DramCommandRecord> log_;
  std::vector<DramPowerDownRecord> pd_log_;
  std::vector<int64_t> open_;
  std::vector<uint64_t> last_, quiet_;  // per rank: latest command, end of its data / refresh
  std::vector<uint64_t> work_;          // per rank: latest command of a request
  std::vector<uint32_t> bypass_;        // per bank: row hits counted by the row-hit cap
};

}  // namespace strider::test
