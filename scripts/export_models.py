#!/usr/bin/python3
"""Regenerate Strider's zoo of parameter-free ONNX graphs from Debian's torchvision.

Each model is built with random initialisation (no download), put in eval mode and exported
with export_params=False, so the file holds the graph and the parameter shapes but no parameter
data (Strider fills weights with deterministic pseudo-random int8 values from a seed).
GoogLeNet and Inception v3 are exported without their auxiliary heads. vit_b_16 is exported with
gradients enabled (transformer_models.export_vit: no nn.MultiheadAttention fast path).
tiny_convnext is a reduced torchvision ConvNeXt (two stages of one block, 16 and 32 channels,
32x32 input, 10 classes) and tiny_swin a reduced Swin Transformer (stages of two and one blocks,
16 and 32 channels, 4x4 windows, 32x32 input, 10 classes) for the end-to-end functional tests
(tests/e2e/data); tiny_swin_params the same with its parameters, for the float reference's
check against PyTorch (tests/planner/data):

    /usr/bin/python3 scripts/export_models.py --out-dir tests/planner/data tiny_swin_params

tiny_qdq_cnn is a small CNN quantised by PyTorch's quantisation-aware training tools and
exported with its parameters as QuantizeLinear / DequantizeLinear pairs (scripts/qdq_models.py),
the QDQ import fixture:

    /usr/bin/python3 scripts/export_models.py --out-dir tests/e2e/data tiny_qdq_cnn

    /usr/bin/python3 scripts/export_models.py                  # the zoo into configs/networks
    /usr/bin/python3 scripts/export_models.py --out-dir /tmp/zoo shufflenet_v2_x1_0 vgg16
    /usr/bin/python3 scripts/export_models.py --out-dir configs/networks/zoo --more-zoo
"""
import argparse
import os
import sys

import torch
import torchvision

from qdq_models import export_tiny_qdq_cnn
from transformer_models import TRANSFORMERS, export_transformer, export_tiny_vit, export_vit

# name -> (constructor keyword arguments, input height and width)
ZOO = {
    "resnet50": ({}, 224),
    "mobilenet_v2": ({}, 224),
    "inception_v3": ({"aux_logits": False, "init_weights": True}, 299),
    "googlenet": ({"aux_logits": False, "init_weights": True}, 224),
    "densenet121": ({}, 224),
    "vit_b_16": ({}, 224),
}
# The rest of the torchvision zoo (configs/networks/zoo: --more-zoo), all at 224 x 224.
MORE_ZOO = ["alexnet", "efficientnet_b0", "mnasnet1_0", "mobilenet_v3_large", "mobilenet_v3_small",
            "regnet_x_400mf", "regnet_y_400mf", "resnet18", "resnext50_32x4d",
            "shufflenet_v2_x1_0", "squeezenet1_0"]


def tiny_convnext():
    from torchvision.models.convnext import CNBlockConfig, ConvNeXt
    return ConvNeXt([CNBlockConfig(16, 32, 1), CNBlockConfig(32, None, 1)], num_classes=10)


def tiny_swin():
    # Two stages: 8x8 tokens of 16 channels with 4x4 windows (block 0 plain, block 1 shifted by
    # 2: cyclic shift and masks), patch merging to 4x4 x 32, one block whose window covers the
    # whole map (no shift).
    from torchvision.models.swin_transformer import SwinTransformer
    return SwinTransformer(patch_size=[4, 4], embed_dim=16, depths=[2, 1], num_heads=[2, 4],
                           window_size=[4, 4], stochastic_depth_prob=0.0, num_classes=10)


# name -> (builder, input height and width): reduced models for tests
REDUCED = {"tiny_convnext": (tiny_convnext, 32), "tiny_swin": (tiny_swin, 32)}


def export_tiny_swin_params(path):
    """tiny_swin with its (random, seed 0) parameters and, printed, its logits for the input
    x[c][y][x] = sin(0.37 (1024 c + 32 y + x)): the float reference of the imported graph must
    give them (tests/planner/import_swin_test.cpp)."""
    torch.manual_seed(0)
    model = tiny_swin().eval()
    # Parameters of unit-scale effect (not the tiny initial ones, under which attention is
    # nearly uniform and the logits barely depend on windows, shift, bias or mask).
    with torch.no_grad():
        for name, p in model.named_parameters():
            if "relative_position_bias_table" in name:
                p.normal_(0.0, 1.0)
            elif p.dim() > 1:
                p.normal_(0.0, 1.0 / p[0].numel() ** 0.5 * 2.0)
            elif name.endswith("weight"):
                p.normal_(1.0, 0.2)
            else:
                p.normal_(0.0, 0.2)
    i = torch.arange(3 * 32 * 32, dtype=torch.float64)
    x = torch.sin(0.37 * i).reshape(1, 3, 32, 32).float()
    with torch.no_grad():
        torch.onnx.export(model, x, path, export_params=True, opset_version=13,
                          input_names=["input"], output_names=["logits"],
                          do_constant_folding=True)
        logits = model(x)[0].tolist()
    print(f"{path}: {os.path.getsize(path)} bytes; logits " +
          ", ".join(f"{v:.9f}" for v in logits))


def export(name, out_dir, opset, seq=128):
    if name in TRANSFORMERS:
        export_transformer(name, out_dir, seq=seq)
        return
    if name == "tiny_vit":
        export_tiny_vit(os.path.normpath(os.path.join(out_dir, "tiny_vit.onnx")))
        return
    if name == "tiny_swin_params":
        export_tiny_swin_params(os.path.normpath(os.path.join(out_dir, "tiny_swin_params.onnx")))
        return
    if name == "tiny_qdq_cnn":
        export_tiny_qdq_cnn(os.path.normpath(os.path.join(out_dir, "tiny_qdq_cnn.onnx")))
        return
    torch.manual_seed(0)
    if name in REDUCED:
        build, size = REDUCED[name]
        model = build().eval()
    else:
        kwargs, size = ZOO.get(name, ({}, 224))
        builder = getattr(torchvision.models, name, None)
        if builder is None:
            raise SystemExit(f"torchvision.models has no model '{name}'")
        model = builder(weights=None, **kwargs).eval()
    dummy = torch.zeros(1, 3, size, size)
    path = os.path.normpath(os.path.join(out_dir, f"{name}.onnx"))
    if isinstance(model, torchvision.models.VisionTransformer):
        export_vit(path, model, size)
        return
    with torch.no_grad():
        torch.onnx.export(model, dummy, path, export_params=False, opset_version=opset,
                          input_names=["input"], output_names=["logits"],
                          do_constant_folding=True)
    print(f"{path}: {os.path.getsize(path)} bytes, input 1x3x{size}x{size}")


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="*", default=list(ZOO) + list(TRANSFORMERS),
                        help="torchvision model names, tiny_vit or tiny_qdq_cnn (test fixtures), or one of "
                        + ", ".join(list(TRANSFORMERS) + list(REDUCED)))
    parser.add_argument("--out-dir", default=os.path.join(here, "..", "configs", "networks"))
    parser.add_argument("--more-zoo", action="store_true",
                        help="export MORE_ZOO (configs/networks/zoo) instead of the default list")
    parser.add_argument("--opset", type=int, default=13, help="ONNX opset (11 to 17)")
    parser.add_argument("--seq", type=int, nargs="+", default=[128],
                        help="sequence lengths of the transformers (not 128: FILE_seqN.onnx)")
    args = parser.parse_args()
    os.makedirs(args.out_dir, exist_ok=True)
    for name in MORE_ZOO if args.more_zoo else args.models:
        for seq in (args.seq if name in TRANSFORMERS else [128]):
            export(name, args.out_dir, args.opset, seq)
    return 0


if __name__ == "__main__":
    sys.exit(main())
