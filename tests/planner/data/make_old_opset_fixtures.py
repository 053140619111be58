#!/usr/bin/python3
"""Writes the older-opset fixtures, built with the onnx helper (Debian's python3-onnx) the way
other exporters write them, each with a symbolic batch dim 'N' on its input [N, 3, 32, 32]:

opset9_cnn.onnx   opset 9, as PyTorch 1.x and Paddle2ONNX wrote CNNs: Conv -> BatchNormalization
                  (opset-9 attributes) -> Relu -> MaxPool -> Conv -> Relu -> GlobalAveragePool ->
                  Flatten -> Gemm (10 classes).
opset10_cnn.onnx  opset 10, as tf2onnx writes x.view(N, -1): the Reshape's target shape computed
                  from the input by Shape -> Gather(0) -> Unsqueeze -> Concat([n, -1]) (shape
                  arithmetic on the symbolic batch), after Conv -> Relu -> MaxPool (no pads
                  attribute, as tf2onnx leaves it).

Weights are seeded floats (numpy default_rng(0)), so the files are reproducible byte for byte.
usage: make_old_opset_fixtures.py  (writes next to this script)
"""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(0)


def weight(name, shape, scale=0.2):
    return numpy_helper.from_array((rng.standard_normal(shape) * scale).astype(np.float32), name)


def save(graph, opset, name):
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                              producer_name="strider-fixture")
    model.ir_version = 4 if opset < 10 else 5
    onnx.checker.check_model(model)
    path = os.path.join(HERE, name)
    onnx.save(model, path)
    print(f"{path}: {os.path.getsize(path)} bytes, opset {opset}")


def opset9():
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3, 32, 32])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 10])
    inits = [weight("w1", (8, 3, 3, 3)), weight("b1", (8,)),
             numpy_helper.from_array(np.linspace(0.5, 1.5, 8).astype(np.float32), "bn_scale"),
             numpy_helper.from_array(np.linspace(-0.1, 0.1, 8).astype(np.float32), "bn_bias"),
             numpy_helper.from_array(np.linspace(-0.2, 0.2, 8).astype(np.float32), "bn_mean"),
             numpy_helper.from_array(np.linspace(0.8, 1.2, 8).astype(np.float32), "bn_var"),
             weight("w2", (16, 8, 3, 3)), weight("b2", (16,)),
             weight("fc_w", (10, 16)), weight("fc_b", (10,))]
    nodes = [
        helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], name="conv1", kernel_shape=[3, 3],
                         pads=[1, 1, 1, 1]),
        helper.make_node("BatchNormalization", ["c1", "bn_scale", "bn_bias", "bn_mean", "bn_var"],
                         ["bn1"], name="bn1", epsilon=1e-5, momentum=0.9),
        helper.make_node("Relu", ["bn1"], ["r1"], name="relu1"),
        helper.make_node("MaxPool", ["r1"], ["p1"], name="pool1", kernel_shape=[2, 2],
                         strides=[2, 2]),
        helper.make_node("Conv", ["p1", "w2", "b2"], ["c2"], name="conv2", kernel_shape=[3, 3],
                         pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c2"], ["r2"], name="relu2"),
        helper.make_node("GlobalAveragePool", ["r2"], ["gap"], name="gap"),
        helper.make_node("Flatten", ["gap"], ["flat"], name="flatten", axis=1),
        helper.make_node("Gemm", ["flat", "fc_w", "fc_b"], ["y"], name="fc", transB=1),
    ]
    save(helper.make_graph(nodes, "opset9_cnn", [x], [y], inits), 9, "opset9_cnn.onnx")


def opset10():
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3, 32, 32])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 10])
    inits = [weight("w1", (4, 3, 3, 3)), weight("b1", (4,)),
             weight("fc_w", (4 * 15 * 15, 10), 0.05), weight("fc_b", (10,)),
             numpy_helper.from_array(np.array(0, dtype=np.int64), "zero"),
             numpy_helper.from_array(np.array([-1], dtype=np.int64), "minus_one")]
    nodes = [
        helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], name="conv1", kernel_shape=[3, 3]),
        helper.make_node("Relu", ["c1"], ["r1"], name="relu1"),
        helper.make_node("MaxPool", ["r1"], ["p1"], name="pool1", kernel_shape=[2, 2],
                         strides=[2, 2]),
        helper.make_node("Shape", ["p1"], ["shape"], name="shape"),
        helper.make_node("Gather", ["shape", "zero"], ["n"], name="batch_of", axis=0),
        helper.make_node("Unsqueeze", ["n"], ["n1"], name="unsqueeze", axes=[0]),
        helper.make_node("Concat", ["n1", "minus_one"], ["target"], name="target", axis=0),
        helper.make_node("Reshape", ["p1", "target"], ["flat"], name="flatten"),
        helper.make_node("MatMul", ["flat", "fc_w"], ["mm"], name="fc"),
        helper.make_node("Add", ["mm", "fc_b"], ["y"], name="fc_bias"),
    ]
    save(helper.make_graph(nodes, "opset10_cnn", [x], [y], inits), 10, "opset10_cnn.onnx")


if __name__ == "__main__":
    opset9()
    opset10()
