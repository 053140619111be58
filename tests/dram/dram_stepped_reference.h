// DramSteppedReference: a deliberately simple, cycle-by-cycle DRAM controller that applies the
// rules DramChannel documents (model/dram/dram_channel.h) in the most direct way, to check the
// event-driven scheduler on random request streams. Every cycle it lists the commands the first
// `queue_depth` segments need, checks each one's legality by scanning the whole history of
// issued commands against every constraint of the spec, and issues at most one (refresh first,
// then row hits, then the oldest). Quadratic; for short streams only. One channel.
#pragma once

#include <cstdint>
#include <vector>

#include "core/arch/dram_spec.h"
#include "model/dram/dram_channel.h"

namespace strider::test {

struct RefRequest {
  uint64_t arrival = 0, addr = 0, bytes = 0;
  bool write = false;
  uint64_t end = 0;  // filled by run()
};

class DramSteppedReference {
 public:
  DramSteppedReference(const DramSpec& spec, const DramPolicy& policy)
      : spec_(spec), policy_(policy) {}
  // Serves every request; fills each one's `end` and returns the issued commands.
  std::vector<DramCommandRecord> run(std::vector<RefRequest>& requests);

 private:
  struct Seg {
    size_t req;
    uint64_t arrival;
    uint32_t rank, bg, bank, row, bursts;
    bool write;
  };
  struct Issued {
    uint64_t t;
    DramCmd cmd;
    uint32_t rank, bg, bank;
  };
  bool legal(DramCmd cmd, uint32_t rank, uint32_t bg, uint32_t bank, uint64_t t) const;
  void record(DramCmd cmd, uint32_t rank, uint32_t bg, uint32_t bank, uint32_t row, uint64_t t);

  const DramSpec& spec_;
  DramPolicy policy_;
  std::vector<Issued> history_;
  std::vector<DramCommandRecord> log_;
  std::vector<int64_t> open_;
};

}  // namespace strider::test
