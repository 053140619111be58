#!/usr/bin/python3
"""Writes the SiLU and hard-swish fixtures, built with the onnx helper (Debian's python3-onnx): one small CNN
twice, input [1, 4, 8, 8], opset 13:

silu_cnn.onnx       SiLU written as torchvision's efficientnet_b0 exports it, Mul(x, Sigmoid(x)):
                    on the graph input (x first), then conv1 (3x3, 8 channels) -> SiLU (x first),
                    conv2 (1x1) -> SiLU (Sigmoid first), then a squeeze-excitation gate that is not
                    a SiLU: GlobalAveragePool -> Sigmoid -> Mul with conv2's SiLU.
silu_cnn_relu.onnx  the same weights with Relu in place of each of the three SiLUs.

and the hard-swish-as-Mul fixtures, the same conv1 / conv2 weights, input [1, 4, 8, 8]:

hswish_cnn.onnx          hard-swish written as torchvision's mobilenet_v3 exports it at opset 13,
                         Mul(x, HardSigmoid(x; alpha 1/6, beta 0.5)): conv1 -> hard-swish (x
                         first), conv2 -> hard-swish (HardSigmoid first), then a squeeze-excitation
                         gate that is not a hard-swish: GlobalAveragePool -> HardSigmoid -> Mul
                         with conv2's hard-swish.
hswish_cnn_fused.onnx    the same weights with the HardSwish op (opset 14) in place of each pair.
hswish_cnn_alpha02.onnx  hswish_cnn.onnx with conv1's HardSigmoid at alpha 0.2 (ONNX's default).
hswish_shared.onnx       conv1 -> HardSigmoid h; Mul(c, h) + h: the HardSigmoid is read twice, so
                         it is not folded.

Weights are seeded floats (numpy default_rng(0)), so the files are reproducible byte for byte.
usage: make_silu_fixtures.py  (writes next to this script)
"""

import numpy as np
from onnx import TensorProto, helper, numpy_helper

from fixture_io import save_model


def weights():
    rng = np.random.default_rng(0)

    def weight(name, shape, scale=0.3):
        return numpy_helper.from_array((rng.standard_normal(shape) * scale).astype(np.float32),
                                       name)

    return [weight("w1", (8, 4, 3, 3)), weight("b1", (8,)), weight("w2", (8, 8, 1, 1)),
            weight("b2", (8,))]


def save(name, graph_name, nodes, inits, out_dims, opset=13):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 8, 8])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, out_dims)
    graph = helper.make_graph(nodes, graph_name, [x], [y], initializer=inits)
    save_model(graph, name, opset)


def conv(x, y, name, weight, bias, k):
    pads = {"pads": [k // 2] * 4} if k > 1 else {}
    return helper.make_node("Conv", [x, weight, bias], [y], name=name, kernel_shape=[k, k], **pads)


def model(relu):
    def silu(x, y, name, x_first=True):
        if relu:
            return [helper.make_node("Relu", [x], [y], name=name)]
        operands = [x, name + "_s"] if x_first else [name + "_s", x]
        return [helper.make_node("Sigmoid", [x], [name + "_s"], name=name + "_sigmoid"),
                helper.make_node("Mul", operands, [y], name=name)]

    nodes = silu("x", "a0", "act0")
    nodes += [conv("a0", "c1", "conv1", "w1", "b1", 3)]
    nodes += silu("c1", "a1", "act1")
    nodes += [conv("a1", "c2", "conv2", "w2", "b2", 1)]
    nodes += silu("c2", "a2", "act2", x_first=False)
    nodes += [helper.make_node("GlobalAveragePool", ["a2"], ["p"], name="gap"),
              helper.make_node("Sigmoid", ["p"], ["g"], name="gate_sigmoid"),
              helper.make_node("Mul", ["a2", "g"], ["y"], name="gate")]
    save("silu_cnn" + ("_relu" if relu else ""), "silu_cnn", nodes, weights(), [1, 8, 8, 8])


def hard_sigmoid(x, y, name, alpha=1.0 / 6):
    return helper.make_node("HardSigmoid", [x], [y], name=name, alpha=alpha, beta=0.5)


def hswish_cnn(name, fused=False, alpha1=1.0 / 6):
    def hswish(x, y, node, x_first=True, alpha=1.0 / 6):
        if fused:
            return [helper.make_node("HardSwish", [x], [y], name=node)]
        operands = [x, node + "_hs"] if x_first else [node + "_hs", x]
        return [hard_sigmoid(x, node + "_hs", node + "_hardsigmoid", alpha),
                helper.make_node("Mul", operands, [y], name=node)]

    nodes = [conv("x", "c1", "conv1", "w1", "b1", 3)]
    nodes += hswish("c1", "a1", "act1", alpha=alpha1)
    nodes += [conv("a1", "c2", "conv2", "w2", "b2", 1)]
    nodes += hswish("c2", "a2", "act2", x_first=False)
    nodes += [helper.make_node("GlobalAveragePool", ["a2"], ["p"], name="gap"),
              hard_sigmoid("p", "g", "gate_hardsigmoid"),
              helper.make_node("Mul", ["a2", "g"], ["y"], name="gate")]
    save(name, name, nodes, weights(), [1, 8, 8, 8], 14 if fused else 13)


def hswish_shared():
    nodes = [conv("x", "c", "conv", "w1", "b1", 3), hard_sigmoid("c", "h", "hs"),
             helper.make_node("Mul", ["c", "h"], ["m"], name="mul"),
             helper.make_node("Add", ["m", "h"], ["y"], name="add")]
    save("hswish_shared", "hswish_shared", nodes, weights()[:2], [1, 8, 8, 8])


if __name__ == "__main__":
    model(False)
    model(True)
    hswish_cnn("hswish_cnn")
    hswish_cnn("hswish_cnn_fused", fused=True)
    hswish_cnn("hswish_cnn_alpha02", alpha1=0.2)
    hswish_shared()
