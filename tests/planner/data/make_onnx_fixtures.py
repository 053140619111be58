#!/usr/bin/python3
"""Writes the small ONNX models tests/planner/import_onnx_test.cpp reads (next to this file).

Run with Debian's python3-onnx: /usr/bin/python3 tests/planner/data/make_onnx_fixtures.py
Every model is built by hand with onnx.helper so each op and attribute the importer supports is
exercised with known values; the err_*.onnx models each trigger one importer error.
"""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
F = TensorProto.FLOAT


def vi(name, shape):
    return helper.make_tensor_value_info(name, F, shape)


def init(name, array):
    return numpy_helper.from_array(np.asarray(array), name)


def ints(name, values):
    return numpy_helper.from_array(np.asarray(values, dtype=np.int64), name)


def save(name, nodes, inputs, outputs, inits=(), opset=13):
    graph = helper.make_graph(nodes, name, inputs, outputs, initializer=list(inits))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                              producer_name="strider-fixtures")
    model.ir_version = 8
    onnx.save(model, os.path.join(HERE, name + ".onnx"))


def conv_ops():
    w1 = (np.arange(8 * 4 * 3 * 3) % 11 - 5).astype(np.float32).reshape(8, 4, 3, 3) * 0.1
    b1 = (np.arange(8) * 0.01).astype(np.float32)
    w2 = np.ones((8, 1, 3, 3), np.float32)
    w3 = np.ones((16, 4, 2, 2), np.float32)
    w4 = np.ones((4, 16, 3, 3), np.float32)
    nodes = [
        helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], name="asym", pads=[0, 1, 2, 3]),
        helper.make_node("Conv", ["c1", "w2"], ["c2"], name="depthwise", group=8,
                         dilations=[2, 2], strides=[2, 2], auto_pad="SAME_UPPER"),
        helper.make_node("Conv", ["c2", "w3"], ["c3"], name="grouped", group=2,
                         kernel_shape=[2, 2], auto_pad="SAME_LOWER"),
        helper.make_node("Conv", ["c3", "w4"], ["c4"], name="valid", auto_pad="VALID"),
    ]
    save("conv_ops", nodes, [vi("x", [1, 4, 16, 16])], [vi("c4", None)],
         [init("w1", w1), init("b1", b1), init("w2", w2), init("w3", w3), init("w4", w4)])


def batchnorm():
    nodes = [
        helper.make_node("Conv", ["x", "wc"], ["c"], name="conv"),
        helper.make_node("BatchNormalization", ["c", "s", "b", "m", "v"], ["bn"], name="bn",
                         epsilon=0.0),
        helper.make_node("Relu", ["bn"], ["r"], name="relu"),
        helper.make_node("Concat", ["r", "x"], ["cat"], name="cat", axis=1),
        helper.make_node("BatchNormalization", ["cat", "s2", "b2", "m2", "v2"], ["bn2"],
                         name="bn2", epsilon=0.0),
    ]
    inits = [init("wc", np.ones((4, 3, 1, 1), np.float32)),
             init("s", np.array([1, 2, 3, 4], np.float32)),
             init("b", np.array([0.5, 0, 0, -0.5], np.float32)),
             init("m", np.array([0, 1, 0, 0], np.float32)),
             init("v", np.array([1, 1, 4, 16], np.float32)),
             init("s2", np.ones(7, np.float32)), init("b2", np.full(7, 0.25, np.float32)),
             init("m2", np.zeros(7, np.float32)), init("v2", np.ones(7, np.float32))]
    save("batchnorm", nodes, [vi("x", [1, 3, 8, 8])], [vi("bn2", None)], inits)


def pools():
    nodes = [
        helper.make_node("MaxPool", ["x"], ["mp"], name="mp", kernel_shape=[3, 3],
                         strides=[2, 2], ceil_mode=1),
        helper.make_node("AveragePool", ["x"], ["ap"], name="ap", kernel_shape=[2, 2],
                         strides=[2, 2], pads=[1, 1, 1, 1], count_include_pad=1),
        helper.make_node("GlobalAveragePool", ["mp"], ["gap"], name="gap"),
        helper.make_node("ReduceMean", ["ap"], ["rm"], name="rm", axes=[-1, -2], keepdims=0),
    ]
    save("pools", nodes, [vi("x", [1, 2, 10, 10])], [vi("gap", None), vi("rm", None)])


def activations():
    nodes = [
        helper.make_node("Relu", ["x"], ["a1"], name="relu"),
        helper.make_node("Clip", ["a1", "zero", "six"], ["a2"], name="relu6"),
        helper.make_node("Clip", ["a2", "minus_one", "one"], ["a3"], name="clip"),
        helper.make_node("Clip", ["a3", "zero"], ["a4"], name="clip_min_only"),
        helper.make_node("Sigmoid", ["a4"], ["a5"], name="sigmoid"),
        helper.make_node("HardSigmoid", ["a5"], ["a6"], name="hardsigmoid", alpha=1.0 / 6),
        helper.make_node("HardSwish", ["a6"], ["a7"], name="hardswish"),
        helper.make_node("GlobalAveragePool", ["a7"], ["g"], name="gap"),
        helper.make_node("Flatten", ["g"], ["f"], name="flatten"),
        helper.make_node("Softmax", ["f"], ["sm"], name="softmax"),
    ]
    inits = [init("zero", np.float32(0)), init("six", np.float32(6)),
             init("minus_one", np.float32(-1)), init("one", np.float32(1))]
    save("activations", nodes, [vi("x", [1, 4, 5, 5])], [vi("sm", None)], inits)


def tensor_ops():
    nodes = [
        helper.make_node("Add", ["x", "x"], ["a"], name="add"),
        helper.make_node("Mul", ["y", "a"], ["m"], name="mul"),
        helper.make_node("Concat", ["a", "m"], ["c"], name="concat", axis=1),
        helper.make_node("Split", ["c", "sizes"], ["s0", "s1"], name="split", axis=1),
        helper.make_node("Slice", ["s1", "st", "en", "ax"], ["sl"], name="slice"),
        helper.make_node("Slice", ["sl", "st0", "big", "ax2"], ["slf"], name="slice_full"),
        helper.make_node("Pad", ["slf", "pads"], ["p"], name="pad", mode="constant"),
        helper.make_node("Identity", ["p"], ["id"], name="identity"),
        helper.make_node("Dropout", ["id"], ["d"], name="dropout"),
        helper.make_node("Reshape", ["d", "shape5"], ["r5"], name="shuffle_reshape"),
        helper.make_node("Transpose", ["r5"], ["t"], name="shuffle_transpose",
                         perm=[0, 2, 1, 3, 4]),
        helper.make_node("Reshape", ["t", "shape4"], ["r4"], name="shuffle"),
    ]
    inits = [ints("sizes", [4, 12]), ints("st", [2]), ints("en", [-2]), ints("ax", [1]),
             ints("st0", [0]), ints("big", [2**62]), ints("ax2", [2]),
             ints("pads", [0, 0, 1, 2, 0, 0, 3, 4]), ints("shape5", [1, 2, 4, 10, 12]),
             ints("shape4", [1, 8, 10, 12])]
    save("tensor_ops", nodes, [vi("x", [1, 8, 6, 6]), vi("y", [1, 8, 1, 1])],
         [vi("s0", None), vi("r4", None)], inits)


def shape_fc():
    nodes = [
        helper.make_node("Shape", ["x"], ["shp"], name="shape"),
        helper.make_node("Gather", ["shp", "i0"], ["g0"], name="gather0", axis=0),
        helper.make_node("Unsqueeze", ["g0", "axes0"], ["u"], name="unsq_const"),
        helper.make_node("Concat", ["u", "minus1"], ["target"], name="concat_shape", axis=0),
        helper.make_node("Reshape", ["x", "target"], ["r"], name="reshape"),
        helper.make_node("Gemm", ["r", "B", "C"], ["gm"], name="gemm", transB=1, alpha=0.5,
                         beta=2.0),
        helper.make_node("MatMul", ["gm", "M"], ["mm"], name="matmul"),
        helper.make_node("Unsqueeze", ["mm", "axes23"], ["uq"], name="unsqueeze"),
        helper.make_node("Squeeze", ["uq", "axes3"], ["sq"], name="squeeze"),
        helper.make_node("Flatten", ["x"], ["f"], name="flatten", axis=1),
        # [1, (16 * 4 / 2), -1] through folded arithmetic, a cast and ConstantOfShape.
        helper.make_node("Gather", ["shp", "i1"], ["g1"], name="gather1", axis=0),
        helper.make_node("Mul", ["g1", "four"], ["g1x"], name="mul_const"),
        helper.make_node("Div", ["g1x", "two"], ["g1d"], name="div_const"),
        helper.make_node("Cast", ["g1d"], ["g1c"], name="cast", to=TensorProto.INT64),
        helper.make_node("Constant", [], ["one_shape"], name="const_shape",
                         value=helper.make_tensor("v", TensorProto.INT64, [1], [1])),
        helper.make_node("ConstantOfShape", ["one_shape"], ["ones"], name="cos",
                         value=helper.make_tensor("v", TensorProto.INT64, [1], [1])),
        helper.make_node("Concat", ["ones", "g1c", "minus1"], ["target3"], name="concat3", axis=0),
        helper.make_node("Reshape", ["x", "target3"], ["r3"], name="reshape3"),
    ]
    b = (np.arange(10 * 64) % 7 - 3).astype(np.float32).reshape(10, 64)
    c = np.arange(10).astype(np.float32)
    m = (np.arange(10 * 5) % 5 - 2).astype(np.float32).reshape(10, 5)
    inits = [ints("i0", 0), ints("i1", [1]), ints("axes0", [0]), ints("minus1", [-1]),
             init("B", b), init("C", c), init("M", m), ints("axes23", [2, 3]),
             ints("axes3", [3]), ints("four", [4]), ints("two", [2])]
    save("shape_fc", nodes, [vi("x", [1, 16, 2, 2])],
         [vi("sq", None), vi("f", None), vi("r3", None)], inits)


def opset11():
    nodes = [
        helper.make_node("Split", ["x"], ["s0", "s1"], name="split", axis=1, split=[2, 4]),
        helper.make_node("GlobalAveragePool", ["s1"], ["g"], name="gap"),
        helper.make_node("Squeeze", ["g"], ["sq"], name="squeeze", axes=[2, 3]),
        helper.make_node("Softmax", ["sq"], ["sm"], name="softmax"),
        helper.make_node("Clip", ["s0", "lo", "hi"], ["cl"], name="clip"),
        helper.make_node("Unsqueeze", ["sm"], ["us"], name="unsqueeze", axes=[2]),
    ]
    inits = [init("lo", np.float32(-0.5)), init("hi", np.float32(20))]
    save("opset11", nodes, [vi("x", [1, 6, 4, 4])], [vi("us", None), vi("cl", None)], inits,
         opset=11)


def noparams():
    """Like torch.onnx.export(export_params=False): parameters are graph inputs without data."""
    nodes = [
        helper.make_node("Identity", ["conv.weight"], ["w_alias"], name="alias"),
        helper.make_node("Conv", ["input", "w_alias", "conv.bias"], ["c"], name="conv",
                         pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c"], ["r"], name="relu"),
        helper.make_node("GlobalAveragePool", ["r"], ["g"], name="gap"),
        helper.make_node("Flatten", ["g"], ["f"], name="flatten"),
        helper.make_node("Gemm", ["f", "fc.weight"], ["logits"], name="fc", transB=1),
    ]
    inputs = [vi("input", [1, 3, 8, 8]), vi("conv.weight", [4, 3, 3, 3]), vi("conv.bias", [4]),
              vi("fc.weight", [10, 4])]
    save("noparams", nodes, inputs, [vi("logits", None)])


def nhwc_block():
    """A ConvNeXt block's channels-last part: NCHW -> NHWC, LayerNorm, Linear, back to NCHW,
    layer scale, residual Add (onnx_ops_channels_last.cpp)."""
    w = (np.arange(16, dtype=np.float32).reshape(4, 4) - 6) * 0.25  # [in][out]
    nodes = [
        helper.make_node("Transpose", ["x"], ["t"], name="to_nhwc", perm=[0, 2, 3, 1]),
        helper.make_node("LayerNormalization", ["t", "g", "be"], ["ln"], name="ln", axis=-1),
        helper.make_node("MatMul", ["ln", "w"], ["mm"], name="fc"),
        helper.make_node("Add", ["mm", "b"], ["fcb"], name="fc_bias"),
        helper.make_node("Transpose", ["fcb"], ["back"], name="to_nchw", perm=[0, 3, 1, 2]),
        helper.make_node("Mul", ["ls", "back"], ["scaled"], name="layer_scale"),
        helper.make_node("Add", ["scaled", "x"], ["o"], name="residual"),
    ]
    inits = [init("g", np.ones(4, np.float32)), init("be", np.zeros(4, np.float32)),
             init("w", w), init("b", np.array([1, 2, 3, 4], np.float32)),
             init("ls", np.array([1, 0.5, 2, -1], np.float32).reshape(4, 1, 1))]
    save("nhwc_block", nodes, [vi("x", [1, 4, 3, 5])], [vi("o", None)], inits, opset=17)


def mod_fold():
    """Mod of constants folded with both sign conventions (Swin's padding arithmetic): fmod = 0
    [-4, 13, 164, 11] % [5, 9, 100, 10] = [1, 4, 64, 1]; fmod = 1 [-11, 4, 64, 1] % [10, 9, 100, 7]
    = [-1, 4, 64, 1]."""
    nodes = [
        helper.make_node("Mod", ["a", "b"], ["m0"], name="mod_python"),
        helper.make_node("Reshape", ["x", "m0"], ["r0"], name="r0"),
        helper.make_node("Mod", ["c", "d"], ["m1"], name="mod_c", fmod=1),
        helper.make_node("Reshape", ["r0", "m1"], ["r1"], name="r1"),
    ]
    inits = [ints("a", [-4, 13, 164, 11]), ints("b", [5, 9, 100, 10]),
             ints("c", [-11, 4, 64, 1]), ints("d", [10, 9, 100, 7])]
    save("mod_fold", nodes, [vi("x", [1, 4, 8, 8])], [vi("r1", None)], inits)


def slice_fold():
    """Slice of a 2-D constant with a negative step (F.pad's reversed pads): row 0 of
    [[64, 4, 1, 1], [7, 8, 9, 9]] read backwards is [[1, 1, 4, 64]], flattened the shape
    [1, 1, 4, 64]."""
    big = -2**63 + 1
    nodes = [
        helper.make_node("Slice", ["c", "st", "en", "ax", "sp"], ["s"], name="reverse"),
        helper.make_node("Reshape", ["s", "flat"], ["shape"], name="flatten_shape"),
        helper.make_node("Reshape", ["x", "shape"], ["r"], name="r"),
    ]
    inits = [ints("c", [[64, 4, 1, 1], [7, 8, 9, 9]]), ints("st", [0, -1]), ints("en", [1, big]),
             ints("ax", [0, 1]), ints("sp", [1, -1]), ints("flat", [-1])]
    save("slice_fold", nodes, [vi("x", [1, 4, 8, 8])], [vi("r", None)], inits)


def errors():
    x = [vi("x", [1, 4, 8, 8])]
    y = [vi("x", [1, 4, 8, 8]), vi("y", [1, 4, 8, 8])]
    out = [vi("o", None)]
    save("err_unsupported", [helper.make_node("Erf", ["x"], ["o"], name="my_erf")], x, out)
    save("err_domain", [helper.make_node("FusedConv", ["x"], ["o"], name="fused",
                                         domain="com.microsoft")], x, out)
    save("err_opset18", [helper.make_node("Relu", ["x"], ["o"], name="r")], x, out, opset=18)
    save("err_div", [helper.make_node("Div", ["x", "y"], ["o"], name="div")], y, out)
    save("err_add_const", [helper.make_node("Add", ["x", "k"], ["o"], name="add_k")], x, out,
         [init("k", np.float32(1))])
    save("err_hard_swish", [helper.make_node("Add", ["x", "k"], ["a"], name="add3"),
                            helper.make_node("Relu", ["a"], ["o"], name="r")], x, out,
         [init("k", np.float32(3))])
    save("err_concat_axis", [helper.make_node("Concat", ["x", "y"], ["o"], name="cat", axis=2)],
         y, out)
    save("err_slice_h", [helper.make_node("Slice", ["x", "s", "e", "a"], ["o"], name="sl")], x,
         out, [ints("s", [1]), ints("e", [4]), ints("a", [2])])
    save("err_transpose", [helper.make_node("Transpose", ["x"], ["o"], name="hw",
                                            perm=[0, 1, 3, 2])], x, out)
    save("window_partition",
         [helper.make_node("Transpose", ["x"], ["t0"], name="nhwc", perm=[0, 2, 3, 1]),
          helper.make_node("Pad", ["t0", "zeros"], ["t"], name="pad_to_windows"),
          helper.make_node("Reshape", ["t", "s6"], ["r6"], name="windows"),
          helper.make_node("Transpose", ["r6"], ["t6"], name="gather", perm=[0, 1, 3, 2, 4, 5]),
          helper.make_node("Reshape", ["t6", "s3"], ["o"], name="partition")], x, out,
         [ints("zeros", [0] * 8), ints("s6", [1, 2, 4, 2, 4, 4]), ints("s3", [4, 16, 4])])
    save("err_layer_scale", [helper.make_node("Mul", ["x", "ls"], ["o"], name="ls")], x, out,
         [init("ls", np.ones((4, 1, 1), np.float32))])
    save("err_pad_mode", [helper.make_node("Pad", ["x", "p"], ["o"], name="pad",
                                           mode="reflect")], x, out,
         [ints("p", [0, 0, 1, 1, 0, 0, 1, 1])])
    save("err_matmul", [helper.make_node("Flatten", ["x"], ["f"], name="f"),
                        helper.make_node("MatMul", ["f", "f"], ["o"], name="mm")], x, out)
    save("err_softmax", [helper.make_node("Softmax", ["x"], ["o"], name="sm", axis=1)], x, out)
    save("err_reducemean", [helper.make_node("ReduceMean", ["x"], ["o"], name="rm", axes=[1])],
         x, out)
    save("err_gemm_transa", [helper.make_node("Flatten", ["x"], ["f"], name="f"),
                             helper.make_node("Gemm", ["f", "w"], ["o"], name="g", transA=1)],
         x, out, [init("w", np.ones((256, 2), np.float32))])
    save("err_undefined", [helper.make_node("Relu", ["nowhere"], ["o"], name="r")], x, out)
    save("err_output_constant", [helper.make_node("Shape", ["x"], ["o"], name="shape")], x, out)
    save("err_conv1d", [helper.make_node("Conv", ["x3", "w"], ["o"], name="c1d")],
         [vi("x3", [1, 4, 8])], out, [init("w", np.ones((2, 4, 3), np.float32))])
    save("err_hardsigmoid", [helper.make_node("HardSigmoid", ["x"], ["o"], name="hs")], x, out)
    save("err_shape_mismatch", [helper.make_node("Conv", ["x", "w"], ["o"], name="c")], x, out,
         [init("w", np.ones((2, 3, 3, 3), np.float32))])
    save("err_reshape5", [helper.make_node("Reshape", ["x", "s"], ["o"], name="r5")], x, out,
         [ints("s", [1, 2, 2, 4, 8])])
    save("err_strides", [helper.make_node("Conv", ["x", "w"], ["o"], name="c", strides=[0, 1])],
         x, out, [init("w", np.ones((2, 4, 3, 3), np.float32))])
    save("err_reshape_huge", [helper.make_node("Reshape", ["x", "s"], ["o"], name="r")], x, out,
         [ints("s", [2**40, 2**40])])
    save("err_perm", [helper.make_node("Transpose", ["x"], ["o"], name="t", perm=[0, 1, 1, 3])],
         x, out)
    # Constant folding (Swin's mask arithmetic) and pieces (its cyclic shift).
    save("err_scatternd", [helper.make_node("ScatterND", ["d", "i", "u"], ["m"], name="sc"),
                           helper.make_node("Add", ["x", "m"], ["o"], name="a")], x, out,
         [init("d", np.zeros(4, np.float32)), ints("i", [[5]]), init("u", np.ones(1, np.float32))])
    save("err_range", [helper.make_node("Range", ["s0", "s4", "s0"], ["r"], name="range"),
                       helper.make_node("Add", ["x", "r"], ["o"], name="a")], x, out,
         [ints("s0", 0), ints("s4", 4)])
    save("err_pieces",
         [helper.make_node("Relu", ["x"], ["y"], name="relu"),
          helper.make_node("Transpose", ["x"], ["tx"], name="tx", perm=[0, 2, 3, 1]),
          helper.make_node("Transpose", ["y"], ["ty"], name="ty", perm=[0, 2, 3, 1]),
          helper.make_node("Slice", ["tx", "s0", "s4", "s1"], ["a"], name="top"),
          helper.make_node("Slice", ["ty", "s4", "s8", "s1"], ["b"], name="bottom"),
          helper.make_node("Concat", ["a", "b"], ["c"], name="cat", axis=1),
          helper.make_node("Transpose", ["c"], ["o"], name="back", perm=[0, 3, 1, 2])], x, out,
         [ints("s0", [0]), ints("s4", [4]), ints("s8", [8]), ints("s1", [1])])
    short = TensorProto(name="w", data_type=F, dims=[2, 4, 1, 1], raw_data=b"\0" * 12)
    save("err_raw_size", [helper.make_node("Conv", ["x", "w"], ["o"], name="c")], x, out,
         [short])


def qdq():
    """QDQ form by hand (tests/planner/import_qdq_test.cpp): weights as DequantizeLinear of int8
    initializers (conv per output channel on axis 0, Gemm transB = 0 per channel on axis 1, its
    output axis), a conv bias as DequantizeLinear of int32 at s_x x s_w, activations as
    QuantizeLinear -> DequantizeLinear pairs; then one model per QDQ import error."""
    i8, i32 = np.int8, np.int32
    wq = (np.arange(2 * 3 * 1 * 1) - 3).astype(i8).reshape(2, 3, 1, 1)  # [[-3, -2, -1], [0, 1, 2]]
    fq = np.array([[1, -1], [2, -2], [127, -128], [0, 5]], i8)  # [K = 4][N = 2]
    nodes = [
        helper.make_node("QuantizeLinear", ["x", "sx", "z"], ["xq"], name="qx"),
        helper.make_node("DequantizeLinear", ["xq", "sx", "z"], ["xd"], name="dqx"),
        helper.make_node("DequantizeLinear", ["wq", "sw", "zw"], ["w"], name="dqw", axis=0),
        helper.make_node("DequantizeLinear", ["bq", "sb"], ["b"], name="dqb"),
        helper.make_node("Conv", ["xd", "w", "b"], ["c"], name="conv"),
        helper.make_node("Relu", ["c"], ["r"], name="relu"),
        helper.make_node("QuantizeLinear", ["r", "sr", "z"], ["rq"], name="qr"),
        helper.make_node("DequantizeLinear", ["rq", "sr", "z"], ["rd"], name="dqr"),
        helper.make_node("Flatten", ["rd"], ["f"], name="flat"),
        helper.make_node("DequantizeLinear", ["fq", "sf"], ["fw"], name="dqf", axis=1),
        helper.make_node("Gemm", ["f", "fw"], ["o"], name="fc"),
    ]
    inits = [init("sx", np.float32(0.05)), init("z", i8(0)), init("wq", wq),
             init("sw", np.array([0.5, 0.25], np.float32)), init("zw", np.zeros(2, i8)),
             init("bq", np.array([40, -8], i32)),
             init("sb", np.float32(0.0125)), init("sr", np.float32(0.1)), init("fq", fq),
             init("sf", np.array([0.125, 0.0625], np.float32))]
    save("qdq_int8", nodes, [vi("x", [1, 3, 1, 2])], [vi("o", None)], inits)
    # Float weights through QuantizeLinear with one scale (per tensor): ONNX rounds x / 0.5 half
    # to even and saturates.
    wf = np.array([0.25, 0.75, -1.25, 100.0, -100.0, 1.0], np.float32).reshape(2, 3, 1, 1)
    save("qdq_per_tensor",
         [helper.make_node("QuantizeLinear", ["x", "sx", "z"], ["xq"], name="qx"),
          helper.make_node("DequantizeLinear", ["xq", "sx", "z"], ["xd"], name="dqx"),
          helper.make_node("QuantizeLinear", ["wf", "sw", "z"], ["wq"], name="qw"),
          helper.make_node("DequantizeLinear", ["wq", "sw", "z"], ["w"], name="dqw"),
          helper.make_node("Conv", ["xd", "w"], ["o"], name="conv")],
         [vi("x", [1, 3, 2, 2])], [vi("o", None)],
         [init("sx", np.float32(0.05)), init("z", i8(0)), init("wf", wf),
          init("sw", np.float32(0.5))])

    x = [vi("x", [1, 4, 8, 8])]
    out = [vi("o", None)]
    scale, zero = init("s", np.float32(0.1)), init("z", i8(0))

    def pair(q_extra=(), dq_extra=(), scale_name="s", zero_name="z", dq_scale=None):
        q_in = ["x", scale_name] + ([zero_name] if zero_name else [])
        dq_in = ["q", dq_scale or scale_name] + ([zero_name] if zero_name else [])
        return [helper.make_node("QuantizeLinear", q_in, ["q"], name="quant", **dict(q_extra)),
                helper.make_node("DequantizeLinear", dq_in, ["o"], name="dequant",
                                 **dict(dq_extra))]

    save("err_qdq_zero_point", pair(), x, out, [scale, init("z", i8(3))])
    save("err_qdq_uint8", pair(), x, out, [scale, init("z", np.uint8(128))])
    save("err_qdq_no_zero_point", pair(zero_name=None), x, out, [scale])
    save("err_qdq_activation_channels", pair(), x, out,
         [init("s", np.full(4, 0.1, np.float32)), init("z", np.zeros(4, i8))])
    save("err_qdq_scale_mismatch", pair(dq_scale="s2"), x, out,
         [scale, zero, init("s2", np.float32(0.2))])
    save("err_qdq_orphan",
         [helper.make_node("QuantizeLinear", ["x", "s", "z"], ["q"], name="quant"),
          helper.make_node("Relu", ["q"], ["o"], name="relu")], x, out, [scale, zero])
    save("err_qdq_float_activation",
         [helper.make_node("DequantizeLinear", ["x", "s", "z"], ["o"], name="dequant")], x, out,
         [scale, zero])
    w = np.ones((2, 4, 3, 3), np.float32)
    save("err_qdq_weight_axis",
         [helper.make_node("QuantizeLinear", ["w", "sw", "zw"], ["wq"], name="qw", axis=1),
          helper.make_node("DequantizeLinear", ["wq", "sw", "zw"], ["wd"], name="dqw", axis=1),
          helper.make_node("Conv", ["x", "wd"], ["o"], name="conv")], x, out,
         [init("w", w), init("sw", np.full(4, 0.01, np.float32)), init("zw", np.zeros(4, i8))])
    save("err_qdq_weight_zero_point",
         [helper.make_node("DequantizeLinear", ["wq", "sw", "zw"], ["wd"], name="dqw", axis=0),
          helper.make_node("Conv", ["x", "wd"], ["o"], name="conv")], x, out,
         [init("wq", np.ones((2, 4, 3, 3), i8)), init("sw", np.full(2, 0.01, np.float32)),
          init("zw", np.array([0, 1], i8))])
    save("err_convinteger",
         [helper.make_node("ConvInteger", ["xq", "wq"], ["o"], name="iconv")], x, out,
         [init("xq", np.ones((1, 4, 3, 3), i8)), init("wq", np.ones((2, 4, 3, 3), i8))])
    qoperator()


def qoperator():
    """The operator form of qdq_int8 without its ReLU (tests/planner/import_qdq_test.cpp):
    QuantizeLinear, QLinearConv (the same int8 weights, per-channel scales and int32 bias),
    DequantizeLinear, Flatten, QuantizeLinear, QLinearMatMul (the same [K = 4][N = 2] weights,
    per-column scales), DequantizeLinear."""
    i8, i32 = np.int8, np.int32
    wq = (np.arange(2 * 3 * 1 * 1) - 3).astype(i8).reshape(2, 3, 1, 1)
    fq = np.array([[1, -1], [2, -2], [127, -128], [0, 5]], i8)
    nodes = [
        helper.make_node("QuantizeLinear", ["x", "sx", "z"], ["xq"], name="qx"),
        helper.make_node("QLinearConv", ["xq", "sx", "z", "wq", "sw", "zw", "sr", "z", "bq"],
                         ["rq"], name="conv", kernel_shape=[1, 1]),
        helper.make_node("DequantizeLinear", ["rq", "sr", "z"], ["rd"], name="dqr"),
        helper.make_node("Flatten", ["rd"], ["f"], name="flat"),
        helper.make_node("QuantizeLinear", ["f", "sr", "z"], ["fq8"], name="qf"),
        helper.make_node("QLinearMatMul", ["fq8", "sr", "z", "fq", "sf", "zf", "so", "z"],
                         ["oq"], name="fc"),
        helper.make_node("DequantizeLinear", ["oq", "so", "z"], ["o"], name="dqo"),
    ]
    inits = [init("sx", np.float32(0.05)), init("z", i8(0)), init("wq", wq),
             init("sw", np.array([0.5, 0.25], np.float32)), init("zw", np.zeros(2, i8)),
             init("bq", np.array([40, -8], i32)), init("sr", np.float32(0.1)), init("fq", fq),
             init("sf", np.array([0.125, 0.0625], np.float32)), init("zf", np.zeros(2, i8)),
             init("so", np.float32(0.5))]
    save("qoperator_int8", nodes, [vi("x", [1, 3, 1, 2])], [vi("o", None)], inits)


def vit_errors():
    """Token-sequence ops of a ViT that the importer refuses (tests/planner/import_transformer_test)."""
    t = [vi("t", [1, 17, 32])]
    out = [vi("o", None)]
    save("err_gather_token", [helper.make_node("Gather", ["t", "i"], ["o"], name="g", axis=1)], t,
         out, [ints("i", 1)])
    save("err_expand_param", [helper.make_node("Expand", ["cls", "s"], ["o"], name="e")],
         [vi("cls", [1, 1, 32])], out, [ints("s", [2, 1, 32])])
    save("err_concat_tokens", [helper.make_node("Concat", ["t", "u"], ["o"], name="cat", axis=1)],
         t + [vi("u", [1, 17, 32])], out)
    save("err_token_batch", [helper.make_node("Softmax", ["b"], ["o"], name="sm")],
         [vi("b", [2, 17, 32])], out)


if __name__ == "__main__":
    conv_ops()
    batchnorm()
    pools()
    activations()
    tensor_ops()
    shape_fc()
    opset11()
    noparams()
    nhwc_block()
    mod_fold()
    slice_fold()
    errors()
    qdq()
    vit_errors()
