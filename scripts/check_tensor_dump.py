#!/usr/bin/env python3
# Recomputes every layer of a `strider run --dump-tensors DIR` dump independently with PyTorch
# (conv, pools, element-wise ops, activations, grouped / causal softmax, GELU) and the int8 requantisation rules of
# core/contract/quant.h; prints each layer that differs and exits 1 if any does.
# Every parameter comes from the dump JSON: rounding mode (must be half_away_from_zero), the
# requantisation multiplier and shift (per output channel when the JSON has channel_requant),
# clip bounds, and for the sigmoid family the dumped lookup
# table, itself checked against its formula at its calibrated input and output scales (a fused
# residual Add's own table under residual.quant.lut), then a fused max-pool (fused_max_pool) or a
# fused global average pool (fused_global_avg_pool: the layer's output when the conv's result is
# not stored, else its pooled file checked beside it); a squeeze-excitation Mul fused into a
# conv's input (input_scale) is applied to input 0 first.
# Usage: /usr/bin/python3 scripts/check_tensor_dump.py DIR
import json, numpy as np, sys, os, math
d = sys.argv[1]
def rq(acc, m, s):
    # m, s: scalars, or arrays broadcast against acc (one per output channel); shift >= 0.
    m = np.asarray(m, dtype=np.int64); s = np.asarray(s, dtype=np.int64)
    p = acc.astype(np.int64) * m
    if np.any(s < 0): return p << -s
    h = (np.int64(1) << s) >> 1
    return np.where(p >= 0, (p + h) >> s, -((-p + h) >> s))
def channel_rq(j, acc, axis_shape):
    # The layer's requantisation per output channel, shaped to broadcast over acc.
    if 'channel_requant' not in j: return rq(acc, j['requant']['multiplier'], j['requant']['shift'])
    c = j['channel_requant']
    return rq(acc, np.array(c['multiplier']).reshape(axis_shape), np.array(c['shift']).reshape(axis_shape))
def act(v, j, u8=False):
    # u8: the output is uint8 (its .npy is <u1): saturated to [0, 255] instead of [-128, 127].
    a = j['activation']; lo, hi = (0, 255) if u8 else (-128, 127)
    if a == 'none': return np.clip(v, lo, hi)
    if a == 'relu': return np.clip(np.maximum(v, 0), lo, hi)
    if a in ('relu6', 'clip'): return np.clip(np.clip(v, j['clip'][0], j['clip'][1]), lo, hi)
    v = np.clip(v, -128, 127)
    lut = j['quant']['lut']; x = np.arange(-128, 128) * lut['input_scale']
    ra = lambda y: np.where(y < 0, -np.floor(-y + 0.5), np.floor(y + 0.5))
    hs = np.clip(x / 6 + .5, 0, 1)
    sg = 1 / (1 + np.exp(-x))
    f = {'sigmoid': sg, 'hardsigmoid': hs, 'hardswish': x * hs, 'silu': x / (1 + np.exp(-x))}[a]
    table = np.clip(ra(f / lut['output_scale']), lo, hi).astype(np.int64)
    if not np.array_equal(table, np.array(lut['table'])): raise SystemExit(f"{j['layer']}: lookup table differs from its formula")
    return table[v.astype(np.int64) + 128]
import torch, torch.nn.functional as F
bad = 0; n = 0
for e in json.load(open(os.path.join(d, 'index.json'))):
    j = json.load(open(os.path.join(d, e['stem'] + '.json')))
    ins = [np.load(os.path.join(d, i['file'])).astype(np.int64) for i in j['inputs']]
    out_raw = np.load(os.path.join(d, j['output']['file'])); out = out_raw.astype(np.int64)
    op = j['op']; m = j['requant']['multiplier']; s = j['requant']['shift']
    u8 = out_raw.dtype == np.uint8 and op != 'softmax'  # uint8 activations (zero point 0)
    gap = j.get('fused_global_avg_pool')
    if gap and not gap['result_stored']: gu8, u8 = u8, gap['result_unsigned']  # output: pooled
    if j['quant']['rounding'] != 'half_away_from_zero': raise SystemExit(f"{j['layer']}: unknown rounding {j['quant']['rounding']}")
    p = j['padding']
    if op == 'conv':
        w = np.load(os.path.join(d, j['weights']['file'])).astype(np.int64)
        b = np.load(os.path.join(d, j['bias']['file'])).astype(np.int64)
        x0 = ins[0]
        if 'input_scale' in j:  # the Mul's product of input 0 and the per-channel scale
            q = j['input_scale']
            x0 = act(rq(x0 * ins[q['input']], q['multiplier'], q['shift']), dict(q, layer=j['layer']),
                     q['product_unsigned'])
        x = torch.tensor(x0, dtype=torch.float64)
        x = F.pad(x, (p['left'], p['right'], p['top'], p['bottom']))
        acc = F.conv2d(x, torch.tensor(w, dtype=torch.float64), torch.tensor(b, dtype=torch.float64),
                       stride=j['stride'], dilation=j['dilation'], groups=j['groups']).numpy().round().astype(np.int64)
        ref = act(channel_rq(j, acc, (1, -1, 1, 1)), j, u8 and 'residual' not in j)
        if 'residual' in j:  # a fused residual Add on the conv's int8 result (JSON residual)
            r = j['residual']
            v = ref * r['multiplier'] + ins[1] * r['operand_multiplier']
            ref = act(rq(v, 1, r['shift']), dict(r, layer=j['layer']), u8)
        if 'fused_max_pool' in j:  # a max-pool on the conv's result (JSON fused_max_pool)
            q = j['fused_max_pool']; qp = q['padding']
            y = F.pad(torch.tensor(ref, dtype=torch.float64), (qp['left'], qp['right'], qp['top'], qp['bottom']), value=-1e9)
            ref = F.max_pool2d(y, q['kernel'], q['stride'], ceil_mode=True).numpy()
            ref = ref[:, :, :out.shape[2], :out.shape[3]].astype(np.int64)
        if gap:  # the sum of each channel of the conv's result, requantised and activated
            pooled_u8 = gu8 if not gap['result_stored'] else \
                np.load(os.path.join(d, gap['output']['file'])).dtype == np.uint8
            g = act(rq(ref.sum(axis=(2, 3), keepdims=True), gap['requant']['multiplier'],
                       gap['requant']['shift']), dict(gap, layer=j['layer']), pooled_u8)
            if not gap['result_stored']:
                ref = g
            elif not np.array_equal(g, np.load(os.path.join(d, gap['output']['file'])).astype(np.int64)):
                print(f"{j['layer']}: fused global pool output differs"); bad += 1
    elif op == 'fc':
        w = np.load(os.path.join(d, j['weights']['file'])).astype(np.int64)
        b = np.load(os.path.join(d, j['bias']['file'])).astype(np.int64)
        acc = w @ ins[0].reshape(-1) + b
        ref = act(channel_rq(j, acc, (-1,)), j, u8).reshape(out.shape)
    elif op in ('maxpool', 'avgpool', 'globalavgpool'):
        x = torch.tensor(ins[0], dtype=torch.float64)
        if op == 'globalavgpool':
            # The sum requantised to the pool's own output scale.
            ref = rq(x.sum(dim=(2, 3), keepdim=True).numpy().astype(np.int64), m, s)
        elif op == 'maxpool':
            xp = F.pad(x, (p['left'], p['right'], p['top'], p['bottom']), value=-1e9)
            ref = F.max_pool2d(xp, j['kernel'], j['stride'], ceil_mode=j['ceil_mode']).numpy()
            ref = ref[:, :, :out.shape[2], :out.shape[3]].astype(np.int64)
        else:
            ones = torch.ones_like(x)
            xp = F.pad(x, (p['left'], p['right'], p['top'], p['bottom'])); op_ = F.pad(ones, (p['left'], p['right'], p['top'], p['bottom']))
            sm = F.avg_pool2d(xp, j['kernel'], j['stride'], ceil_mode=j['ceil_mode'], divisor_override=1).numpy().round().astype(np.int64)
            if j['count_include_pad']:
                cnt = F.avg_pool2d(torch.ones_like(xp), j['kernel'], j['stride'], ceil_mode=j['ceil_mode'], divisor_override=1).numpy().round().astype(np.int64)
            else:
                cnt = F.avg_pool2d(op_, j['kernel'], j['stride'], ceil_mode=j['ceil_mode'], divisor_override=1).numpy().round().astype(np.int64)
            q = np.abs(sm) * 2 + cnt; ref = np.sign(sm) * (q // (2 * cnt))
        ref = act(ref, j, u8)
    elif op in ('add', 'mul', 'activation'):
        a = ins[0]
        if op != 'activation':
            bb = ins[1]
            v = a * m + bb * j['quant']['input2_multiplier'] if op == 'add' else a * bb
        else: v = a
        ref = act(rq(v, 1 if op == 'add' else m, s), j, u8)
        if op == 'activation' and 'negative_requant' in j:  # LeakyRelu / PRelu: by the sign
            nq = j['negative_requant']; shp = (1, -1, 1, 1)
            neg = rq(v, np.array(nq['multiplier']).reshape(shp), np.array(nq['shift']).reshape(shp))
            ref = act(np.where(v < 0, neg, rq(v, m, s)), j, u8)
    elif op == 'softmax':
        # The integer exp and rounding the JSON's quant.softmax spells out.
        # Over each group of C / groups channels; a causal row y sees channels 0 .. y of a group.
        x0 = ins[0]; g = j['groups']; c, h, w = x0.shape[1], x0.shape[2], x0.shape[3]
        x = x0.reshape(g, c // g, h, w)
        hide = np.zeros((1, c // g, h, w), dtype=bool)
        if j.get('causal'): hide |= (np.arange(c // g).reshape(1, -1, 1, 1) > np.arange(h).reshape(1, 1, -1, 1))
        mx = np.maximum(np.where(hide, -128, x).max(axis=1, keepdims=True), -128); dd = np.minimum(x - mx, 0)
        t = dd * j['quant']['input_multiplier']; i = t >> 24; f = (t - i * (1 << 24)) >> 8
        q = ((((((5206 * f) >> 16) + 14712) * f) >> 16) + 45617) * f >> 16
        pq = (65536 + q) >> 1
        ex = np.where(-i > 16, 0, pq >> np.minimum(-i, 62))
        ex = np.where(hide, 0, ex); sm = ex.sum(axis=1, keepdims=True)
        top = 255 if out_raw.dtype == np.uint8 else 127  # uint8 probabilities: base 1/255
        ref = np.minimum(top, ((2 * top * ex * m) // sm + (np.int64(1) << s)) >> (s + 1)).reshape(x0.shape)
    elif op == 'gelu':
        x = ins[0]; z = np.minimum((np.abs(x) * j['quant']['input_multiplier']) >> 8, 4 << 16)
        a = (((((((5119 * z) >> 16) + 64) * z) >> 16) + 15099) * z >> 16) + 18245
        b = ((a * z) >> 16) + 65536; q2 = (b * b) >> 16; q4 = (q2 * q2) >> 16
        erf = 65536 - (np.int64(1) << 32) // q4
        ref = np.clip(rq(x * (65536 + np.sign(x) * erf), m, s + 17), -128, 127)
    else:
        print('skip', op); continue
    n += 1
    diff = int((ref.reshape(out.shape) != out).sum())
    if diff:
        bad += 1; print('MISMATCH', j['layer'], op, diff, 'of', out.size)
print(f'{n} layers recomputed, {bad} differ')
sys.exit(1 if bad else 0)
