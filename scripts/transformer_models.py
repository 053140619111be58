"""Transformer graphs for Strider's zoo, built from torch.nn modules (no download).

bert_encoder: a BERT-base-shaped encoder, 12 post-LN layers, d = 768, 12 heads, FFN 3072, GELU
  (Erf form), on hidden states [1, seq, 768] (the embedding lookup is not part of the accelerator's
  work).
gpt2_decoder: a GPT-2-small-shaped decoder stack, 12 pre-LN blocks, d = 768, 12 heads, FFN 3072,
  causal self-attention (masked_fill with a constant upper-triangular mask), final LayerNorm.

Exported with ONNX opset 13, so LayerNorm appears decomposed (ReduceMean, Sub, Pow, ReduceMean,
Add, Sqrt, Div, Mul, Add) and GELU as Div, Erf, Add, Mul, Mul, as PyTorch 1.13 writes them. Like the
torchvision zoo the files hold the graph and parameter shapes only: every float initializer with more
than 16 elements (weights, biases, gamma, beta) loses its data; the causal mask (bool) keeps it
(Strider checks it is
causal).

vit: torchvision's VisionTransformer (vit_b_16 in the zoo, a small one as a test fixture),
exported with gradients enabled: in eval mode under no_grad PyTorch 1.13 runs
nn.MultiheadAttention's fast path (aten::_native_multi_head_attention), which has no ONNX
export; with parameters requiring grad the module takes its documented slow path (plain MatMul,
Softmax, Gemm).
"""
import math
import os

import onnx
import torch
from torch import nn

MAX_KEPT = 16


class Attention(nn.Module):
    def __init__(self, d, heads, causal, seq):
        super().__init__()
        self.heads, self.dh, self.causal = heads, d // heads, causal
        self.q, self.k, self.v, self.o = (nn.Linear(d, d) for _ in range(4))

    def split(self, x):  # [1, S, D] -> [1, H, S, D/H]
        b, s, _ = x.shape
        return x.view(b, s, self.heads, self.dh).transpose(1, 2)

    def forward(self, x, mask):
        q, k, v = self.split(self.q(x)), self.split(self.k(x)), self.split(self.v(x))
        scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(self.dh)
        if self.causal:
            scores = scores.masked_fill(mask, float("-inf"))
        ctx = torch.matmul(scores.softmax(-1), v)
        b, h, s, dh = ctx.shape
        return self.o(ctx.transpose(1, 2).reshape(b, s, h * dh))


class Block(nn.Module):
    def __init__(self, d, heads, ffn, causal, seq, pre_ln):
        super().__init__()
        self.attn = Attention(d, heads, causal, seq)
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.ff = nn.Sequential(nn.Linear(d, ffn), nn.GELU(), nn.Linear(ffn, d))
        self.pre_ln = pre_ln

    def forward(self, x, mask):
        if self.pre_ln:  # GPT-2
            x = x + self.attn(self.ln1(x), mask)
            return x + self.ff(self.ln2(x))
        x = self.ln1(x + self.attn(x, mask))  # BERT
        return self.ln2(x + self.ff(x))


class Stack(nn.Module):
    def __init__(self, layers, d, heads, ffn, causal, seq, pre_ln):
        super().__init__()
        self.blocks = nn.ModuleList(Block(d, heads, ffn, causal, seq, pre_ln) for _ in range(layers))
        self.final = nn.LayerNorm(d) if pre_ln else nn.Identity()

    def forward(self, x):
        s = x.shape[1]
        pos = torch.arange(s)
        mask = pos[None, :] > pos[:, None]  # key after query: one constant for every layer
        for block in self.blocks:
            x = block(x, mask)
        return self.final(x)


# name -> (layers, d, heads, ffn, causal, pre-LN)
TRANSFORMERS = {
    "bert_encoder": (12, 768, 12, 3072, False, False),
    "gpt2_decoder": (12, 768, 12, 3072, True, True),
}


def strip_weights(path):
    """Drops the data of float initializers above MAX_KEPT elements and merges identical
    Constant nodes (the causal mask is traced once per layer)."""
    model = onnx.load(path)
    for init in model.graph.initializer:
        if math.prod(init.dims) > MAX_KEPT and init.data_type != onnx.TensorProto.BOOL:
            name, dims = init.name, list(init.dims)
            init.Clear()
            init.name, init.data_type = name, onnx.TensorProto.FLOAT
            init.dims.extend(dims)
    first, rename, keep = {}, {}, []
    for node in model.graph.node:
        if node.op_type == "Constant":
            key = node.attribute[0].SerializeToString()
            if key in first:
                rename[node.output[0]] = first[key]
                continue
            first[key] = node.output[0]
        for i, name in enumerate(node.input):
            node.input[i] = rename.get(name, name)
        keep.append(node)
    del model.graph.node[:]
    model.graph.node.extend(keep)
    onnx.save(model, path)


def export_transformer(name, out_dir, seq=128, shape=None, file_name=None):
    """shape: (layers, d, heads, ffn) instead of the model's (small test fixtures)."""
    n_layers, d, heads, ffn, causal, pre_ln = TRANSFORMERS[name]
    if shape:
        n_layers, d, heads, ffn = shape
    torch.manual_seed(0)
    model = Stack(n_layers, d, heads, ffn, causal, seq, pre_ln).eval()
    dummy = torch.zeros(1, seq, d)
    suffix = "" if seq == 128 else f"_seq{seq}"
    if file_name:
        name, suffix = file_name, ""
    path = os.path.normpath(os.path.join(out_dir, f"{name}{suffix}.onnx"))
    with torch.no_grad():
        torch.onnx.export(model, dummy, path, export_params=True, opset_version=13,
                          input_names=["hidden"], output_names=["out"], do_constant_folding=True)
    strip_weights(path)
    print(f"{path}: {os.path.getsize(path)} bytes, input 1x{seq}x{d}")


def export_vit(path, model, size):
    """torchvision VisionTransformer `model` (already seeded) -> parameter-free ONNX at `path`.
    Gradients stay enabled so nn.MultiheadAttention is traced through its slow path."""
    model = model.eval()
    with torch.enable_grad():
        torch.onnx.export(model, torch.zeros(1, 3, size, size), path, export_params=False,
                          opset_version=13, input_names=["input"], output_names=["logits"],
                          do_constant_folding=True)
    print(f"{path}: {os.path.getsize(path)} bytes, input 1x3x{size}x{size}")


def export_tiny_vit(path):
    """The functional-test fixture tests/e2e/data/tiny_vit.onnx: torchvision's VisionTransformer
    with 64x64 images, 16x16 patches (16 patches + the class token = 17 tokens), 2 layers,
    d = 32, 4 heads, MLP 64, 10 classes."""
    from torchvision.models.vision_transformer import VisionTransformer
    torch.manual_seed(0)
    model = VisionTransformer(image_size=64, patch_size=16, num_layers=2, num_heads=4,
                              hidden_dim=32, mlp_dim=64, num_classes=10)
    export_vit(path, model, 64)
