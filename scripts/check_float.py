#!/usr/bin/python3
"""Checks Strider's float network (the calibrator's C++ float reference) layer by layer with
PyTorch, independently of the C++ code: for every layer of a `strider run --dump-tensors DIR`
dump of a calibrated run (functional mode), recomputes the layer (conv, fc, pools, add, mul,
activations, grouped / causal softmax, MatMul of two activations, LayerNorm, GELU) in float64
from the dumped float inputs, weights and biases and compares with the dumped float output
(relative error of the layer, max |torch - strider| / max |torch|, must be under --tol). Also prints the int8 network's
SQNR against the float one per layer (from the dumped int8 output and the output scale).
Usage: /usr/bin/python3 scripts/check_float.py DIR [--tol 1e-4]
Exit status 1 when a layer differs."""
import argparse, json, math, os, sys
import numpy as np
import torch
import torch.nn.functional as F


def act(x, j):
    a = j['activation']
    if a == 'none': return x
    if a == 'relu': return torch.relu(x)
    if a == 'relu6': return torch.clamp(x, 0, 6)
    if a == 'sigmoid': return torch.sigmoid(x)
    if a == 'hardsigmoid': return torch.clamp(x / 6 + 0.5, 0, 1)
    if a == 'hardswish': return x * torch.clamp(x / 6 + 0.5, 0, 1)
    if a == 'silu': return x * torch.sigmoid(x)
    return None  # clip: its real bounds are not in the dump


def layer(d, j):
    load = lambda f: torch.tensor(np.load(os.path.join(d, f)).astype(np.float64))
    ins = [load(i['float_file']) for i in j['inputs']]
    op, p = j['op'], j['padding']
    if op == 'conv':
        x = F.pad(ins[0], (p['left'], p['right'], p['top'], p['bottom']))
        y = F.conv2d(x, load(j['weights']['float_file']), load(j['weights']['bias_float_file']),
                     stride=j['stride'], dilation=j['dilation'], groups=j['groups'])
    elif op == 'fc':
        y = load(j['weights']['float_file']) @ ins[0].reshape(-1) + load(j['weights']['bias_float_file'])
    elif op == 'maxpool':
        x = F.pad(ins[0], (p['left'], p['right'], p['top'], p['bottom']), value=-math.inf)
        y = F.max_pool2d(x, j['kernel'], j['stride'], ceil_mode=j['ceil_mode'])
    elif op == 'avgpool':
        x = F.pad(ins[0], (p['left'], p['right'], p['top'], p['bottom']))
        s = F.avg_pool2d(x, j['kernel'], j['stride'], ceil_mode=j['ceil_mode'], divisor_override=1)
        ones = torch.ones_like(ins[0]) if not j['count_include_pad'] else None
        if ones is None:  # positions inside the padded input
            cnt = F.avg_pool2d(torch.ones_like(x), j['kernel'], j['stride'], ceil_mode=j['ceil_mode'], divisor_override=1)
        else:
            cnt = F.avg_pool2d(F.pad(ones, (p['left'], p['right'], p['top'], p['bottom'])), j['kernel'],
                               j['stride'], ceil_mode=j['ceil_mode'], divisor_override=1)
        y = s / cnt
    elif op == 'globalavgpool':
        y = ins[0].mean(dim=(2, 3), keepdim=True)
    elif op == 'add':
        y = ins[0] + ins[1]
    elif op == 'mul':
        y = ins[0] * ins[1]
    elif op == 'activation':
        y = ins[0]
    elif op == 'softmax':  # over each group of C / groups channels; causal: row y sees y + 1
        x = ins[0]; c, h, w = x.shape[1], x.shape[2], x.shape[3]; per = c // j['groups']
        x = x.reshape(j['groups'], per, h, w).clone()
        if j.get('causal'):
            hide = torch.arange(per).reshape(per, 1, 1) > torch.arange(h).reshape(1, h, 1)
            x = x.masked_fill(hide.expand(per, h, w).unsqueeze(0), -math.inf)
        return torch.softmax(x, dim=1).reshape(ins[0].shape)
    elif op == 'matmul':  # out[g N + n][m] = sum_k A[g K + k][m] B(g, k, n), m over positions
        g = j['groups']; a, b = ins[0], ins[1]
        k_len = a.shape[1] // g; m = a.shape[2] * a.shape[3]
        A = a.reshape(g, k_len, m)
        # B(g, k, n) = input2[g N + n][k], or input2[g K + k][n] with transpose_b
        B = b.reshape(g, k_len, -1) if j['transpose_b'] else b.reshape(g, -1, k_len).transpose(1, 2)
        y = torch.einsum('gkm,gkn->gnm', A, B).reshape(1, -1, a.shape[2], a.shape[3])
    elif op == 'layernorm':  # over the channels of each position, ONNX's epsilon, x gamma + beta
        x = ins[0]; mu = x.mean(dim=1, keepdim=True); var = ((x - mu) ** 2).mean(dim=1, keepdim=True)
        sd = torch.sqrt(var + j.get('epsilon', 0.0)); z = torch.where(sd > 0, (x - mu) / torch.where(sd > 0, sd, 1.0), 0.0)
        gamma = load(j['weights']['float_file']).reshape(1, -1, 1, 1)
        y = z * gamma + load(j['weights']['bias_float_file']).reshape(1, -1, 1, 1)
    elif op == 'gelu':
        x = ins[0]; y = x * 0.5 * (1 + torch.erf(x / math.sqrt(2)))
    else:
        return None
    return act(y * j.get('output_factor', 1.0), j)  # a scalar the importer folded in


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('dir')
    ap.add_argument('--tol', type=float, default=1e-4)
    a = ap.parse_args()
    bad = checked = 0
    for e in json.load(open(os.path.join(a.dir, 'index.json'))):
        j = json.load(open(os.path.join(a.dir, e['stem'] + '.json')))
        if 'float_file' not in j['output'] or any('float_file' not in i for i in j['inputs']):
            continue
        want = layer(a.dir, j)
        if want is None:
            print('skip', j['layer'], j['op'], j['activation']); continue
        got = np.load(os.path.join(a.dir, j['output']['float_file'])).astype(np.float64)
        want = want.numpy().reshape(got.shape)
        err = np.abs(want - got).max() / max(np.abs(want).max(), 1e-30)
        q = np.load(os.path.join(a.dir, j['output']['file'])).astype(np.float64) * j['quant']['output_scale']
        noise = ((got - q) ** 2).sum()
        sqnr = 10 * math.log10((got ** 2).sum() / noise) if noise > 0 else float('inf')
        checked += 1
        status = 'ok' if err <= a.tol else 'DIFFERS'
        bad += status != 'ok'
        print(f"{status} {j['layer']} {j['op']} rel_err {err:.2e} int8_sqnr_db {sqnr:.1f}")
    print(f'{checked} layers checked in float, {bad} differ')
    return 1 if bad or not checked else 0


if __name__ == '__main__':
    sys.exit(main())
