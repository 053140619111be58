#!/usr/bin/python3
"""What per-channel activation scales would buy, measured in PyTorch before building them.

Fake-quantises a torchvision model (torchvision's initialisation under torch.manual_seed(SEED),
as scripts/compare_pytorch.py builds it) the way Strider's int8 datapath does to first order:
weights int8 per output channel; every activation tensor a layer writes (a conv with its batch
norm folded, an activation, a squeeze-excitation product, a residual sum, a pool, the
classifier) rounded to int8, or uint8 when it cannot be negative, at a minmax scale over the
calibration photographs, times a headroom. Per-channel mode gives each channel of the tensors a
conv reads its own scale (the others keep one). Prints the output SQNR against the float model
on compare_pytorch.py's held-out photographs and its out-of-distribution charts, with the same
images and preprocessing. An estimate, not Strider's arithmetic (its tables, rounding and scale
rules differ in detail): the committed figures come from compare_pytorch.py.

    /usr/bin/python3 scripts/quant_channel_study.py mobilenet_v3_small --seed 1
"""
import argparse
import math
import operator
import os
import sys

import numpy as np
import torch
import torchvision

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare_pytorch as cp  # noqa: E402

def fold_batch_norms(model):
    """Each Conv2d's BatchNorm2d folded into it (Strider's importer does the same)."""
    mods = dict(model.named_modules())
    with torch.no_grad():
        for name, m in mods.items():
            if type(m).__name__ != "Conv2dNormActivation" or len(m) < 2:
                continue
            conv, bn = m[0], m[1]
            if not isinstance(bn, torch.nn.BatchNorm2d):
                continue
            k = bn.weight / torch.sqrt(bn.running_var + bn.eps)
            conv.weight.mul_(k.view(-1, 1, 1, 1))
            bias = bn.bias - bn.running_mean * k
            conv.bias = torch.nn.Parameter(bias if conv.bias is None else conv.bias * k + bias)
            m[1] = torch.nn.Identity()


def fold_weights(model):
    """int8 per-output-channel weights (symmetric, round half away from zero)."""
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, (torch.nn.Conv2d, torch.nn.Linear)):
                w = m.weight
                s = w.abs().flatten(1).amax(1).clamp_min(1e-12) / 127
                s = s.view(-1, *([1] * (w.dim() - 1)))
                m.weight.copy_(torch.sign(w / s) * torch.floor(torch.abs(w / s) + 0.5) * s)


class Quantise(torch.nn.Module):
    """Records a tensor's per-channel range (mode "record") or rounds it to int8 / uint8."""

    def __init__(self, conv_fed):
        super().__init__()
        self.conv_fed, self.lo, self.hi, self.scale, self.rounding = conv_fed, None, None, None, False

    def forward(self, x):
        if not self.rounding:
            per = x.detach().transpose(0, 1).flatten(1)
            lo, hi = per.amin(1), per.amax(1)
            self.lo = lo if self.lo is None else torch.minimum(self.lo, lo)
            self.hi = hi if self.hi is None else torch.maximum(self.hi, hi)
            return x
        s = self.scale.view([1, -1] + [1] * (x.dim() - 2))
        q = torch.sign(x / s) * torch.floor(torch.abs(x / s) + 0.5)
        return (q.clamp(0, 255) if self.unsigned else q.clamp(-128, 127)) * s

    def freeze(self, headroom, per_channel):
        self.unsigned = bool((self.lo >= 0).all())
        amax = torch.maximum(self.hi.abs(), self.lo.abs()) * headroom
        if not (per_channel and self.conv_fed):
            amax = amax.max().expand_as(amax).clone()
        self.scale = amax.clamp_min(1e-12) / (255 if self.unsigned else 127)
        self.rounding = True


def instrument(model):
    """The model traced (torch.fx) with a Quantise after every value a layer writes: modules
    (conv, activations, pools, the classifier) and the Adds and Muls between them. A tensor
    every reader of which is a Conv2d may take per-channel scales. A conv and the activation after
it round twice here (Strider rounds once, the activation fused): a first-order model."""
    gm = torch.fx.symbolic_trace(model)
    mods = dict(gm.named_modules())
    quants = []
    for node in list(gm.graph.nodes):
        writes = (node.op == "call_module" and not isinstance(
            mods[node.target], (torch.nn.Identity, torch.nn.Dropout))) or (
            node.op == "call_function" and node.target in (operator.add, operator.mul, torch.add,
                                                            torch.mul))
        if not writes:
            continue
        users = list(node.users)
        conv_fed = bool(users) and all(
            u.op == "call_module" and isinstance(mods[u.target], torch.nn.Conv2d) for u in users)
        q = Quantise(conv_fed)
        name = "quant_%d" % len(quants)
        gm.add_submodule(name, q)
        quants.append(q)
        with gm.graph.inserting_after(node):
            new = gm.graph.call_module(name, (node,))
        node.replace_all_uses_with(new, delete_user_cb=lambda u: u is not new)
    gm.graph.lint()
    gm.recompile()
    return gm, quants


def sqnr(ref, out):
    signal = float((ref.double() ** 2).sum())
    noise = float(((ref.double() - out.double()) ** 2).sum())
    return 10 * math.log10(signal / noise) if noise > 0 else float("inf"), signal, noise


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("model")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--headroom", type=float, nargs="+", default=[1.0, 1.25, 1.5])
    args = ap.parse_args()
    torch.manual_seed(args.seed)
    model = getattr(torchvision.models, args.model)(weights=None).eval()
    load = lambda files: torch.from_numpy(np.stack([cp.preprocess(cp.SKIMAGE + f) for f in files]))
    cal, photos, charts = load(cp.CALIBRATION), load(cp.PHOTOGRAPHS), load(cp.CHARTS)
    with torch.no_grad():
        ref = {k: model(x) for k, x in (("photographs", photos), ("charts", charts))}
    fold_batch_norms(model)
    fold_weights(model)
    gm, quants = instrument(model)
    with torch.no_grad():
        gm(cal)
        print("%s seed %d: %d tensors rounded, %d read only by convs (per-channel candidates)" % (
            args.model, args.seed, len(quants), sum(q.conv_fed for q in quants)))
        for per_channel in (False, True):
            for h in args.headroom:
                for q in quants:
                    q.freeze(h, per_channel)
                row = []
                for k, x in (("photographs", photos), ("charts", charts)):
                    out = gm(x)
                    db = sqnr(ref[k], out)[0]
                    per = [sqnr(ref[k][i], out[i])[0] for i in range(len(x))]
                    row.append("%s %.1f dB (lowest %.1f, median %.1f)" % (
                        k, db, min(per), float(np.median(per))))
                print("  %-11s headroom %.2f: %s" % (
                    "per-channel" if per_channel else "per-tensor", h, "; ".join(row)))


if __name__ == "__main__":
    main()
