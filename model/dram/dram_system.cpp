#include "model/dram/dram_system.h"

#include <algorithm>

namespace strider {

namespace {
uint32_t log2u(uint64_t v) {
  uint32_t b = 0;
  while ((uint64_t(1) << b) < v) ++b;
  return b;
}
}  // namespace

DramPolicy dram_policy(const std::string& page_policy, const std::string& scheduler,
                       uint32_t queue_depth, uint32_t refresh_postpone, uint64_t refresh_idle,
                       uint32_t row_hit_cap) {
  DramPolicy p;
  p.closed_page = page_policy == "closed";
  p.fcfs = scheduler == "fcfs";
  p.queue_depth = queue_depth;
  p.refresh_postpone = refresh_postpone;
  p.refresh_idle = refresh_idle;
  p.row_hit_cap = row_hit_cap;
  return p;
}

DramSystem::DramSystem(const DramSpec& spec, const DramPolicy& policy)
    : spec_(spec), shift_(6, 0), bits_(6, 0), offset_bits_(log2u(spec.burst_bytes())) {
  channels_.reserve(spec.channels);
  for (uint32_t c = 0; c < spec.channels; ++c) channels_.emplace_back(spec, policy, c);
  const uint32_t counts[6] = {spec.channels, spec.ranks, spec.bankgroups,
                              spec.banks,    spec.rows,  spec.columns / spec.burst_length};
  uint32_t pos = 0;  // fields from the least significant (the end of the name) upwards
  for (auto it = spec.mapping_fields.rbegin(); it != spec.mapping_fields.rend(); ++it) {
    const int f = static_cast<int>(*it);
    shift_[f] = pos;
    bits_[f] = log2u(counts[f]);
    pos += bits_[f];
  }
}

DramLocation DramSystem::map(uint64_t burst_index) const {
  auto field = [&](DramField f) {
    const int i = static_cast<int>(f);
    return static_cast<uint32_t>((burst_index >> shift_[i]) & ((uint64_t(1) << bits_[i]) - 1));
  };
  DramLocation l;
  l.channel = field(DramField::kChannel);
  l.rank = field(DramField::kRank);
  const uint32_t g = field(DramField::kBankGroup);
  l.bankgroup = l.rank * spec_.bankgroups + g;
  l.bank = l.bankgroup * spec_.banks + field(DramField::kBank);
  l.row = field(DramField::kRow);
  l.column = field(DramField::kColumn);
  return l;
}

DramRequestState* DramSystem::submit(uint64_t arrival, uint64_t addr, uint64_t bytes, bool write,
                                     bool background) {
  requests_.emplace_back();
  DramRequestState& r = requests_.back();
  r.arrival = arrival;
  r.write = write;
  r.background = background;
  r.channel_bursts.assign(channels_.size(), 0);
  if (bytes == 0) {
    r.end = arrival;
    return &r;
  }
  const uint64_t first = addr >> offset_bits_, last = (addr + bytes - 1) >> offset_bits_;
  r.bursts = r.bursts_left = last - first + 1;
  // The open segment of each channel while walking the bursts in address order.
  std::vector<DramSegment> open(channels_.size());
  for (uint64_t b = first; b <= last; ++b) {
    const DramLocation l = map(b);
    DramSegment& s = open[l.channel];
    if (s.bursts > 0 && (s.bank != l.bank || s.row != l.row)) {
      channels_[l.channel].enqueue(s);
      s.bursts = 0;
    }
    if (s.bursts == 0)
      s = {&r, arrival, l.rank, l.bankgroup, l.bank, l.row, 0, write, false, background};
    ++s.bursts;
    ++r.channel_bursts[l.channel];
  }
  for (size_t c = 0; c < open.size(); ++c) {
    if (open[c].bursts > 0) channels_[c].enqueue(open[c]);
  }
  return &r;
}

void DramSystem::advance(uint64_t horizon) {
  if (speculating_) {
    speculating_ = false;
    bool kept = true;
    for (const DramChannel& c : channels_) kept = kept && c.last_command() < horizon;
    if (kept) {
      // The queues are empty and every command is before the horizon: only idle refreshes remain.
      free_released();
    } else {
      std::swap(channels_, saved_channels_);
      for (size_t i = 0; i < saved_count_; ++i) {
        DramRequestState* req = saved_requests_[i].first;
        const bool released = req->released;  // (its owner may have released it meanwhile)
        *req = saved_requests_[i].second;
        req->released = released;
      }
      free_released();
    }
  }
  for (DramChannel& c : channels_) c.run_until(horizon);
}

void DramSystem::speculate() {
  speculating_ = true;
  // Copy-assigned into the previous save's storage (one speculation per arrival: allocating
  // fresh queues, windows and request states each time was most of the DRAM model's cost).
  saved_channels_ = channels_;  // (element-wise DramChannel::operator=)
  saved_count_ = 0;
  for (DramRequestState& r : requests_) {
    if (r.bursts_left == 0) continue;
    if (saved_count_ == saved_requests_.size()) saved_requests_.emplace_back();
    saved_requests_[saved_count_].first = &r;
    saved_requests_[saved_count_++].second = r;
  }
  drain();
}

uint64_t DramSystem::complete(DramRequestState* req) {
  for (size_t c = 0; c < channels_.size(); ++c) {
    if (req->channel_bursts[c] > 0) channels_[c].run(req);
  }
  return req->end;
}

void DramSystem::drain() {
  for (DramChannel& c : channels_) c.run(nullptr);
}

void DramSystem::release(DramRequestState* req) {
  req->released = true;
  if (!speculating_) free_released();
}

void DramSystem::free_released() {
  while (!requests_.empty() && requests_.front().released && requests_.front().bursts_left == 0)
    requests_.pop_front();
}

DramResidency dram_residency(const DramTotals& t, uint64_t rank_cycles) {
  DramResidency r;
  const uint64_t open = std::min(rank_cycles, t.active_cycles);  // power-down included
  r.active_powerdown = std::min(open, t.powerdown_active_cycles);
  r.active_standby = open - r.active_powerdown;
  r.precharged_powerdown = std::min(rank_cycles - open, t.powerdown_precharged_cycles);
  r.precharged_standby = rank_cycles - open - r.precharged_powerdown;
  return r;
}

DramTotals DramSystem::totals() const {
  DramTotals t;
  for (const DramChannel& c : channels_) {
    const DramChannelStats& s = c.stats();
    for (int k = 0; k < kDramCmdCount; ++k) t.commands[k] += s.commands[k];
    t.read_bursts += s.read_bursts;
    t.write_bursts += s.write_bursts;
    t.row_hits += s.row_hits;
    t.refresh_cycles += s.refresh_cycles;
    t.active_cycles += s.active_cycles;
    t.powerdown_entries += s.powerdown_entries;
    t.powerdown_active_cycles += s.powerdown_active_cycles;
    t.powerdown_precharged_cycles += s.powerdown_precharged_cycles;
    t.last_data = std::max(t.last_data, s.last_data);
  }
  return t;
}

}  // namespace strider
