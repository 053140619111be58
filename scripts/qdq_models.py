"""An already-quantised ONNX model, quantised by PyTorch's own tools (torch.ao.quantization).

tiny_qdq_cnn (tests/e2e/data/tiny_qdq_cnn.onnx, about 18 kB): conv 3->8 + ReLU, conv 8->8 +
ReLU, a residual Add of the two, MaxPool 2, conv 8->16 + ReLU, AvgPool 4, Flatten, Linear 64->10
on a 1x3x16x16 input. Eager-mode quantisation-aware training setup (fuse_modules_qat,
prepare_qat) with a QConfig Strider's symmetric int8 datapath can run: activations qint8
per_tensor_symmetric, weights qint8 per_channel_symmetric on axis 0 (both -128..127, zero point
0). The observers see 8 seeded batches of 4 random images, are frozen, and the model is exported
at opset 13, where every FakeQuantize becomes a QuantizeLinear -> DequantizeLinear pair: on
activations with one scale and an int8 zero point 0, on weights (float initializers) with one
scale per output channel (axis 0). The residual Add's operands (the two ReLU outputs) carry
different scales, as PyTorch's quantised add allows.

Compare a functional run with PyTorch's own fake-quantised model on the same input:

    strider run configs/runs/default.yaml --set networks[0].path=tests/e2e/data/tiny_qdq_cnn.onnx \
        --set sim.functional=true --out /tmp/qdq_run --dump-tensors /tmp/qdq_dump
    /usr/bin/python3 scripts/qdq_models.py /tmp/qdq_dump
"""
import os

import onnx
from onnx import numpy_helper
import torch
import torch.ao.quantization as tq
from torch import nn


class TinyQdqCnn(nn.Module):
    def __init__(self):
        super().__init__()
        self.quant, self.dequant = tq.QuantStub(), tq.DeQuantStub()
        self.conv1, self.relu1 = nn.Conv2d(3, 8, 3, padding=1), nn.ReLU()
        self.conv2, self.relu2 = nn.Conv2d(8, 8, 3, padding=1), nn.ReLU()
        self.add = nn.quantized.FloatFunctional()
        self.maxpool = nn.MaxPool2d(2)
        self.conv3, self.relu3 = nn.Conv2d(8, 16, 3, padding=1), nn.ReLU()
        self.avgpool = nn.AvgPool2d(4)
        self.fc = nn.Linear(16 * 2 * 2, 10)

    def forward(self, x):
        x = self.quant(x)
        a = self.relu1(self.conv1(x))
        x = self.add.add(a, self.relu2(self.conv2(a)))
        x = self.avgpool(self.relu3(self.conv3(self.maxpool(x))))
        return self.dequant(self.fc(torch.flatten(x, 1)))


def symmetric_qconfig():
    act = tq.FakeQuantize.with_args(observer=tq.MovingAverageMinMaxObserver, quant_min=-128,
                                    quant_max=127, dtype=torch.qint8,
                                    qscheme=torch.per_tensor_symmetric)
    weight = tq.FakeQuantize.with_args(observer=tq.MovingAveragePerChannelMinMaxObserver,
                                       quant_min=-128, quant_max=127, dtype=torch.qint8,
                                       qscheme=torch.per_channel_symmetric, ch_axis=0)
    return tq.QConfig(activation=act, weight=weight)


def build_tiny_qdq_cnn():
    """The fake-quantised model, observers calibrated and frozen, in eval mode."""
    torch.manual_seed(0)
    model = TinyQdqCnn()
    model.qconfig = symmetric_qconfig()
    model.train()
    model = tq.fuse_modules_qat(model, [["conv1", "relu1"], ["conv2", "relu2"],
                                        ["conv3", "relu3"]])
    tq.prepare_qat(model, inplace=True)
    gen = torch.Generator().manual_seed(1)
    with torch.no_grad():
        for _ in range(8):
            model(torch.randn(4, 3, 16, 16, generator=gen))
    model.apply(tq.disable_observer)
    return model.eval()


def export_tiny_qdq_cnn(path):
    model = build_tiny_qdq_cnn()
    torch.onnx.export(model, torch.zeros(1, 3, 16, 16), path, opset_version=13,
                      input_names=["input"], output_names=["logits"], do_constant_folding=True)
    describe(path)


def describe(path):
    """Prints what the exported graph really holds: op counts and the Q/DQ scales and axes."""
    m = onnx.load(path)
    ops = {}
    for n in m.graph.node:
        ops[n.op_type] = ops.get(n.op_type, 0) + 1
    print(f"{path}: {os.path.getsize(path)} bytes, opset "
          f"{m.opset_import[0].version}, ops {dict(sorted(ops.items()))}")
    inits = {i.name: numpy_helper.to_array(i) for i in m.graph.initializer}
    for n in m.graph.node:  # the exporter shares zero points through Identity nodes
        if n.op_type == "Identity" and n.input[0] in inits:
            inits[n.output[0]] = inits[n.input[0]]
    for n in m.graph.node:
        if n.op_type != "QuantizeLinear":
            continue
        axis = [a.i for a in n.attribute if a.name == "axis"]
        scale = inits[n.input[1]].ravel()
        zp = inits.get(n.input[2]) if len(n.input) > 2 else None
        zp_type = "absent" if zp is None else str(zp.dtype)
        print(f"  {n.name}: input {n.input[0]}, {scale.size} scale(s) "
              f"{[float(s) for s in scale[:4]]}{' ...' if scale.size > 4 else ''}, axis "
              f"{axis[0] if axis else 1}, zero point {zp_type}")


def compare(dump_dir):
    """Strider's int8 output of tiny_qdq_cnn (a functional run's --dump-tensors DIR) against
    PyTorch's own fake-quantised model on the same input (the run's calibration image): SQNR in
    dB and the largest difference in output int8 steps."""
    import json

    import numpy as np
    x = np.load(os.path.join(dump_dir, "_conv1_Conv.input0.float.npy")).astype(np.float32)
    with open(os.path.join(dump_dir, "_fc_Gemm.json")) as f:
        scale = json.load(f)["quant"]["output_scale"]
    got = np.load(os.path.join(dump_dir, "_fc_Gemm.output.npy")).astype(np.float64).ravel()
    with torch.no_grad():
        want = build_tiny_qdq_cnn()(torch.from_numpy(x.reshape(1, 3, 16, 16))).numpy().ravel()
    noise = ((want - got * scale) ** 2).sum()
    sqnr = 10 * np.log10((want ** 2).sum() / noise) if noise > 0 else float("inf")
    steps = int(np.abs(np.round(want / scale) - got).max())
    print(f"tiny_qdq_cnn output: SQNR {sqnr:.1f} dB against PyTorch's fake-quantised model, "
          f"at most {steps} int8 step(s) apart")


if __name__ == "__main__":
    import argparse
    parser = argparse.ArgumentParser(description="Compare a functional run of tiny_qdq_cnn "
                                     "with PyTorch's fake-quantised model")
    parser.add_argument("dump_dir", help="the run's --dump-tensors directory")
    compare(parser.parse_args().dump_dir)
