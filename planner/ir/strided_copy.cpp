#include "planner/ir/strided_copy.h"

#include <algorithm>

namespace strider {

std::vector<GatherBlock> copy_blocks(std::vector<CopyAxis> axes, int64_t src_base,
                                     int64_t dst_base) {
  axes.erase(std::remove_if(axes.begin(), axes.end(), [](const CopyAxis& a) { return a.size == 1; }),
             axes.end());
  // Merge an outer axis into an inner one when it continues it on both sides.
  for (bool merged = true; merged;) {
    merged = false;
    for (size_t o = 0; o < axes.size() && !merged; ++o) {
      for (size_t i = 0; i < axes.size() && !merged; ++i) {
        if (i == o) continue;
        const CopyAxis& in = axes[i];
        if (axes[o].src == in.src * in.size && axes[o].dst == in.dst * in.size) {
          axes[i].size *= axes[o].size;
          axes.erase(axes.begin() + static_cast<long>(o));
          merged = true;
        }
      }
    }
  }
  GatherBlock proto;
  proto.src = src_base, proto.dst = dst_base;
  proto.row_len = 1;
  auto row = std::find_if(axes.begin(), axes.end(),
                          [](const CopyAxis& a) { return a.src == 1 && a.dst == 1; });
  if (row != axes.end()) {
    proto.row_len = row->size;
    axes.erase(row);
  }
  size_t rows = axes.size();
  for (size_t k = 0; k < axes.size(); ++k) {
    const bool clears = axes[k].src >= proto.row_len && axes[k].dst >= proto.row_len;
    if (clears && (rows == axes.size() || axes[k].size > axes[rows].size)) rows = k;
  }
  if (rows < axes.size()) {
    proto.rows = axes[rows].size;
    proto.src_stride = axes[rows].src;
    proto.dst_stride = axes[rows].dst;
    axes.erase(axes.begin() + static_cast<long>(rows));
  }
  // One block per index of the remaining axes, the outermost destination axis slowest.
  std::stable_sort(axes.begin(), axes.end(),
                   [](const CopyAxis& a, const CopyAxis& b) { return a.dst > b.dst; });
  std::vector<GatherBlock> out;
  std::vector<int64_t> idx(axes.size(), 0);
  for (;;) {
    GatherBlock b = proto;
    for (size_t k = 0; k < axes.size(); ++k) b.src += idx[k] * axes[k].src, b.dst += idx[k] * axes[k].dst;
    out.push_back(b);
    size_t k = axes.size();
    while (k > 0 && ++idx[k - 1] == axes[k - 1].size) idx[--k] = 0;
    if (k == 0) break;
  }
  return out;
}

}  // namespace strider
