// ONNX InstanceNormalization (opset 6+): y = scale[c] (x - mean) / sqrt(var + epsilon) + B[c],
// mean and (population) variance over the H x W positions of each channel of each image. Imports
// as one IR kInstanceNorm node (gamma = scale as its int8 weights, beta = B as its bias), run by
// the vector unit (model/vector) with the LayerNorm arithmetic of core/contract/vector_math.h
// over positions instead of channels.
//
// Refused naming the node: an input other than NCHW (rank 4), scale / B without one value per
// channel or with a value that is not finite, an epsilon that is not finite and > 0, and more
// than kMaxInstanceNormPositions positions per channel (the bound of the integer sums).
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "core/contract/vector_math.h"
#include "planner/import/onnx_import_context.h"

namespace strider {
namespace onnx_import {

void import_instance_norm(Importer& im) {
  const ValuePtr xv = im.input(0);
  if (xv->dims.size() != 4) {
    im.fail("InstanceNormalization of a rank " + std::to_string(xv->dims.size()) +
            " tensor is not supported (only NCHW, rank 4)");
  }
  const int x = im.activation(0);
  const int64_t channels = xv->dims[1], positions = xv->dims[2] * xv->dims[3];
  const ValuePtr scale = im.constant(1), bias = im.constant(2);
  for (const ValuePtr& p : {scale, bias}) {
    if (p->elements() != channels) {
      im.fail("parameter '" + p->name + "' has " + std::to_string(p->elements()) +
              " values, expected " + std::to_string(channels) + " (one per channel)");
    }
    for (double v : p->data) {
      if (!std::isfinite(v)) {
        std::ostringstream os;
        os << v;
        im.fail("parameter '" + p->name + "' holds " + os.str() + ", expected finite values");
      }
    }
  }
  const double eps = im.attr_float("epsilon", 1e-5);
  if (!std::isfinite(eps) || !(eps > 0)) {
    std::ostringstream os;
    os << eps;
    im.fail("epsilon " + os.str() + ", expected a finite value > 0");
  }
  if (uint64_t(positions) > kMaxInstanceNormPositions) {
    im.fail("H x W = " + std::to_string(positions) + " positions per channel, at most " +
            std::to_string(kMaxInstanceNormPositions) +
            " (the vector unit's integer sums of squares)");
  }
  Node n = im.new_node(OpType::kInstanceNorm);
  n.inputs = {x};
  n.epsilon = eps;
  n.weights = im.add_weights(".gamma", TensorShape{channels, 1, 1, 1},
                             scale->has_data ? &scale->data : nullptr);
  n.bias = im.add_bias(channels, bias->has_data ? &bias->data : nullptr);
  im.emit(n);
}

}  // namespace onnx_import
}  // namespace strider
