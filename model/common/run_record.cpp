#include "model/common/run_record.h"

namespace strider {

const char* to_string(Unit u) {
  switch (u) {
    case Unit::kController: return "controller";
    case Unit::kDma: return "dma";
    case Unit::kLoad: return "load";
    case Unit::kNeurons: return "neurons";
    case Unit::kStore: return "store";
    case Unit::kVector: return "vector";
  }
  return "?";
}

}  // namespace strider
