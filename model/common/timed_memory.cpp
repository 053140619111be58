#include "model/common/timed_memory.h"

#include <algorithm>

namespace strider {

void BackingStore::read(uint64_t addr, int8_t* dst, uint64_t n) const {
  while (n > 0) {
    uint64_t page = addr / kPage, off = addr % kPage, len = std::min(n, kPage - off);
    auto it = pages_.find(page);
    if (it == pages_.end()) {
      std::fill(dst, dst + len, int8_t{0});
    } else {
      std::copy(it->second.begin() + off, it->second.begin() + off + len, dst);
    }
    addr += len, dst += len, n -= len;
  }
}

void BackingStore::write(uint64_t addr, const int8_t* src, uint64_t n) {
  while (n > 0) {
    uint64_t page = addr / kPage, off = addr % kPage, len = std::min(n, kPage - off);
    std::vector<int8_t>& p = pages_[page];
    if (p.empty()) p.assign(kPage, 0);
    std::copy(src, src + len, p.begin() + off);
    addr += len, src += len, n -= len;
  }
}

}  // namespace strider
