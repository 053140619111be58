#include "tb/trace_writer.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace strider {
namespace {

using Json = nlohmann::ordered_json;

struct Slice {
  uint64_t start = 0, end = 0;
  uint32_t desc = 0;  // index into the descriptor records
};

// Streams the events one per line, so a large trace never sits in memory as one JSON value.
class EventStream {
 public:
  EventStream(std::ofstream& f, double mhz) : f_(f), mhz_(mhz) { f_ << "{\"traceEvents\":[\n"; }
  double us(uint64_t cycle) const { return double(cycle) / mhz_; }
  void add(const Json& e) {
    // Names come from user files: bytes that are not UTF-8 become U+FFFD instead of an exception.
    f_ << (first_ ? "" : ",\n") << e.dump(-1, ' ', false, Json::error_handler_t::replace);
    first_ = false;
  }
  void thread(int tid, const std::string& name) {
    add({{"name", "thread_name"},
         {"ph", "M"},
         {"pid", 1},
         {"tid", tid},
         {"args", {{"name", name}}}});
    add({{"name", "thread_sort_index"},
         {"ph", "M"},
         {"pid", 1},
         {"tid", tid},
         {"args", {{"sort_index", tid}}}});
  }
  void slice(int tid, const std::string& name, const char* cat, uint64_t start, uint64_t end,
             Json args) {
    add({{"name", name},
         {"cat", cat},
         {"ph", "X"},
         {"ts", us(start)},
         {"dur", us(end - start)},
         {"pid", 1},
         {"tid", tid},
         {"args", std::move(args)}});
  }
  void close(const Json& other) {
    f_ << "\n],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":" << other.dump(-1, ' ', false, Json::error_handler_t::replace) << "}\n";
  }

 private:
  std::ofstream& f_;
  double mhz_;
  bool first_ = true;
};

// The counter samples to emit: every change, or with `bucket` > 1 the maximum of each bucket of
// that many cycles, stamped at the bucket's start (a peak is never hidden by downsampling).
std::vector<std::pair<uint64_t, uint64_t>> downsample(
    const std::vector<std::pair<uint64_t, uint64_t>>& in, uint64_t bucket) {
  if (bucket <= 1) return in;
  std::vector<std::pair<uint64_t, uint64_t>> out;
  uint64_t value = 0;  // value in force at the start of the current bucket
  for (size_t i = 0; i < in.size();) {
    const uint64_t b = in[i].first / bucket * bucket;
    uint64_t peak = value;
    for (; i < in.size() && in[i].first / bucket * bucket == b; ++i) {
      peak = std::max(peak, in[i].second);
      value = in[i].second;
    }
    out.emplace_back(b, peak);
    if (value != peak) out.emplace_back(b + bucket, value);  // what the bucket ends with
  }
  return out;
}

void counter(EventStream& ev, const std::string& name, const char* key,
             const std::vector<std::pair<uint64_t, uint64_t>>& samples) {
  for (const auto& [cycle, value] : samples) {
    ev.add(
        {{"name", name}, {"ph", "C"}, {"ts", ev.us(cycle)}, {"pid", 1}, {"args", {{key, value}}}});
  }
}

}  // namespace

void write_trace(const RunResult& r, const RunSummary& s, const UnitTimeline* timeline,
                 const std::string& path, uint64_t detail_limit) {
  std::ofstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error(path + ": cannot open for writing");
  const std::vector<DescriptorRecord>& recs = r.record.descriptors;
  const std::vector<std::string>& layer_names = r.lowered.list.layers;
  const bool detail = recs.size() <= detail_limit;
  EventStream ev(f, r.config.arch.clock.frequency_mhz);

  // Tracks.
  const int channels = int(r.config.arch.dma.channels);
  const int kController = 1, kDma0 = 2, kLoad = kDma0 + channels, kNeurons = kLoad + 1,
            kStore = kNeurons + 1, kCompute = kStore + 1;
  ev.add({{"name", "process_name"},
          {"ph", "M"},
          {"pid", 1},
          {"args", {{"name", "strider: " + r.graph.name + " on " + r.config.arch.name}}}});
  ev.thread(kController, "controller");
  for (int ch = 0; ch < channels; ++ch) ev.thread(kDma0 + ch, "dma ch" + std::to_string(ch));
  ev.thread(kLoad, "load unit");
  ev.thread(kNeurons, "neurons");
  ev.thread(kStore, "store unit");

  // Names: "<layer> move <k>" / "<layer> tile <k>", k counting within the layer, in id order.
  std::vector<std::string> names(recs.size());
  std::vector<uint32_t> ops;  // operation descriptors in issue (= id) order
  {
    std::map<std::pair<uint32_t, bool>, uint32_t> count;
    for (size_t i = 0; i < recs.size(); ++i) {
      const DescriptorRecord& d = recs[i];
      const uint32_t k = count[{d.layer, d.is_move}]++;
      names[i] = layer_names[d.layer] + (d.is_move ? " move " : " tile ") + std::to_string(k);
      if (!d.is_move) ops.push_back(uint32_t(i));
    }
  }

  // Slices per track.
  std::map<int, std::vector<Slice>> tracks;
  for (size_t i = 0; i < recs.size(); ++i) {
    const DescriptorRecord& d = recs[i];
    if (d.is_move && d.end > 0) tracks[kDma0 + d.channel].push_back({d.start, d.end, uint32_t(i)});
  }
  const bool observed = timeline != nullptr && timeline->attached &&
                        timeline->load.size() <= ops.size() &&
                        timeline->neurons.size() <= timeline->load.size() &&
                        timeline->store.size() <= timeline->neurons.size();
  if (observed) {
    const std::pair<int, const std::vector<BusyInterval>*> units[] = {
        {kLoad, &timeline->load}, {kNeurons, &timeline->neurons}, {kStore, &timeline->store}};
    for (const auto& [tid, intervals] : units) {
      for (size_t k = 0; k < intervals->size(); ++k) {
        tracks[tid].push_back({(*intervals)[k].start, (*intervals)[k].end, ops[k]});
      }
    }
  } else {
    ev.thread(kCompute, "compute (load to retire)");
  }

  for (auto& [tid, slices] : tracks) {
    std::stable_sort(slices.begin(), slices.end(),
                     [](const Slice& a, const Slice& b) { return a.start < b.start; });
    for (size_t i = 0; i < slices.size();) {
      const DescriptorRecord& d = recs[slices[i].desc];
      size_t j = i + 1;
      if (!detail) {  // merge the run of this layer's descriptors on this track
        while (j < slices.size() && recs[slices[j].desc].layer == d.layer) ++j;
      }
      const char* cat = d.is_move ? "move" : "op";
      if (j == i + 1) {
        ev.slice(tid, names[slices[i].desc], cat, slices[i].start, slices[i].end,
                 {{"id", d.id}, {"layer", layer_names[d.layer]}});
      } else {
        ev.slice(tid, layer_names[d.layer] + " x" + std::to_string(j - i), cat, slices[i].start,
                 slices[j - 1].end,
                 {{"first_id", d.id},
                  {"last_id", recs[slices[j - 1].desc].id},
                  {"layer", layer_names[d.layer]}});
      }
      i = j;
    }
  }
  if (!observed) {  // async slices may overlap: one per operation, load start to retirement
    for (uint32_t i : ops) {
      const DescriptorRecord& d = recs[i];
      if (d.end == 0) continue;
      Json common = {{"cat", "op"}, {"id", d.id}, {"pid", 1}, {"tid", kCompute}};
      Json b = {{"name", names[i]}, {"ph", "b"}, {"ts", ev.us(d.start)}};
      Json e = {{"name", names[i]}, {"ph", "e"}, {"ts", ev.us(d.end)}};
      b.update(common);
      e.update(common);
      ev.add(b);
      ev.add(e);
    }
  }

  // Controller: one instant per descriptor-list fetch (descriptors decoded together).
  std::map<uint64_t, uint64_t> batches;
  for (const DescriptorRecord& d : recs) {
    if (d.fetched != 0) ++batches[d.fetched];
  }
  if (detail) {  // a large run's fetches would be noise
    for (const auto& [cycle, n] : batches) {
      ev.add({{"name", "fetch"},
              {"ph", "i"},
              {"s", "t"},
              {"ts", ev.us(cycle)},
              {"pid", 1},
              {"tid", kController},
              {"args", {{"descriptors", n}}}});
    }
  }

  const uint64_t bucket =
      detail ? 1 : std::max<uint64_t>(1, (s.cycles + detail_limit - 1) / detail_limit);
  counter(ev, "L2 occupancy", "bytes", downsample(s.l2_occupancy, bucket));
  counter(ev, "line-buffer occupancy", "bytes", downsample(s.line_buffer_occupancy, bucket));
  ev.close({{"cycles", s.cycles},
            {"clock_mhz", r.config.arch.clock.frequency_mhz},
            {"descriptors", recs.size()},
            {"aggregated", !detail},
            {"units_observed", observed}});
  if (!f) throw std::runtime_error(path + ": write failed");
}

}  // namespace strider
