"""PyTorch peer for eqflib's BenchmarkTrainStep / BenchmarkSampleStep (make bench-peer).

The same DiT as eqflib/dit.go (patchify by reshape + linear, fixed sinusoidal positions, per-frame
AdaLN-Zero blocks with full spatiotemporal attention and exact GELU, modulated head), the same
presets, batch 8 × 4 frames for a training step (EqF loss, AdamW, global-norm clipping 1.0, EMA)
and batch 1 × 4 frames for one no-grad sampling evaluation. CPU, float32, 2 threads by default.

Usage: python3 bench/torch_peer.py [GO_BENCH_OUTPUT]   (Debian's /usr/bin/python3 with python3-torch)
With Go's benchmark output it also prints eqflib / PyTorch ratios measured in the same run.
"""
import math
import os
import re
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

PRESETS = {
    "tiny": dict(C=3, H=16, W=16, patch=4, hidden=48, depth=2, heads=4, mlp=4.0, cond=3, freqs=64),
    "small": dict(C=3, H=32, W=32, patch=8, hidden=256, depth=4, heads=4, mlp=4.0, cond=3, freqs=128),
}


def sinusoidal(v, dim, max_period):
    half = dim // 2
    f = torch.exp(-math.log(max_period) * torch.arange(half, dtype=torch.float32) / half)
    a = v[..., None] * f
    return torch.cat([torch.cos(a), torch.sin(a)], -1)


class Block(nn.Module):
    def __init__(self, d, heads, mlp):
        super().__init__()
        self.heads = heads
        self.adaln = nn.Linear(d, 6 * d)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.fc1 = nn.Linear(d, int(mlp * d))
        self.fc2 = nn.Linear(int(mlp * d), d)
        nn.init.zeros_(self.adaln.weight)
        nn.init.zeros_(self.adaln.bias)

    def forward(self, h, ce):  # h [B, T, N, D], ce [B, T, D]
        B, T, N, D = h.shape
        s1, c1, g1, s2, c2, g2 = [m[:, :, None] for m in self.adaln(ce).chunk(6, -1)]
        a = F.layer_norm(h, (D,), eps=1e-6) * (1 + c1) + s1
        q, k, v = self.qkv(a.reshape(B, T * N, D)).chunk(3, -1)
        hd = D // self.heads
        q, k, v = [t.reshape(B, T * N, self.heads, hd).transpose(1, 2) for t in (q, k, v)]
        att = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(hd), -1) @ v
        att = self.proj(att.transpose(1, 2).reshape(B, T * N, D)).reshape(B, T, N, D)
        h = h + g1 * att
        m = F.layer_norm(h, (D,), eps=1e-6) * (1 + c2) + s2
        return h + g2 * self.fc2(F.gelu(self.fc1(m)))


class DiT(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.c = c
        d, p = c["hidden"], c["patch"]
        pp = c["C"] * p * p
        self.patch_embed = nn.Linear(pp, d)
        self.fc1, self.fc2 = nn.Linear(c["freqs"], d), nn.Linear(d, d)
        self.cond_embed = nn.Linear(c["cond"], d)
        self.blocks = nn.ModuleList([Block(d, c["heads"], c["mlp"]) for _ in range(c["depth"])])
        self.final_adaln = nn.Linear(d, 2 * d)
        self.head = nn.Linear(d, pp)
        for m in (self.final_adaln, self.head):
            nn.init.zeros_(m.weight)
            nn.init.zeros_(m.bias)

    def positions(self, T):
        c = self.c
        hp, wp, d = c["H"] // c["patch"], c["W"] // c["patch"], c["hidden"]
        n = hp * wp
        idx = torch.arange(n, dtype=torch.float32)
        te = sinusoidal(torch.arange(T, dtype=torch.float32), d // 2, 10000)
        se = torch.cat([sinusoidal(torch.div(idx, wp, rounding_mode="floor"), d // 4, 100),
                        sinusoidal(idx % wp, d // 4, 100)], -1)
        return torch.cat([te[:, None].expand(T, n, d // 2), se[None].expand(T, n, d // 2)], -1)

    def forward(self, x, level, cond):  # x [B, T, C, H, W]
        c = self.c
        B, T = x.shape[:2]
        p, hp, wp = c["patch"], c["H"] // c["patch"], c["W"] // c["patch"]
        h = x.reshape(B, T, c["C"], hp, p, wp, p).permute(0, 1, 3, 5, 2, 4, 6).reshape(B, T, hp * wp, -1)
        h = self.patch_embed(h) + self.positions(T)
        e = self.fc2(F.silu(self.fc1(sinusoidal(level * 1000, c["freqs"], 10000)))) + self.cond_embed(cond)
        ce = F.silu(e)
        for blk in self.blocks:
            h = blk(h, ce)
        shift, scale = [m[:, :, None] for m in self.final_adaln(ce).chunk(2, -1)]
        out = self.head(F.layer_norm(h, (c["hidden"],), eps=1e-6) * (1 + scale) + shift)
        out = out.reshape(B, T, hp, wp, c["C"], p, p).permute(0, 1, 4, 2, 5, 3, 6)
        return out.reshape(B, T, c["C"], c["H"], c["W"])


def bench_train(name, steps=20, batch=8, frames=4):
    c = PRESETS[name]
    torch.manual_seed(1)
    m = DiT(c)
    ema = [p.detach().clone() for p in m.parameters()]
    opt = torch.optim.AdamW(m.parameters(), lr=1e-4, betas=(0.9, 0.99), weight_decay=0.0)
    x0 = torch.randn(batch, frames, c["C"], c["H"], c["W"])
    cond = torch.zeros(batch, frames, c["cond"])

    def step():
        sigma = torch.rand(batch, frames)
        eps = torch.randn_like(x0)
        s = sigma[..., None, None, None]
        xs = (1 - s) * x0 + s * eps
        v = m(xs, torch.zeros_like(sigma), cond)  # EqF: the noise-level input is zero
        loss = ((v - (eps - x0)) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(m.parameters(), 1.0)
        opt.step()
        with torch.no_grad():
            for e, p in zip(ema, m.parameters()):
                e.mul_(0.999).add_(p.detach(), alpha=0.001)

    step()
    t = time.perf_counter()
    for _ in range(steps):
        step()
    return steps / (time.perf_counter() - t)


def bench_sample(name, steps=20, frames=4):
    c = PRESETS[name]
    torch.manual_seed(1)
    m = DiT(c).eval()
    x = torch.randn(1, frames, c["C"], c["H"], c["W"])
    lvl, cond = torch.zeros(1, frames), torch.zeros(1, frames, c["cond"])
    with torch.no_grad():
        m(x, lvl, cond)
        t = time.perf_counter()
        for _ in range(steps):
            x = x - 0.01 * m(x, lvl, cond)
    return 1000 * (time.perf_counter() - t) / steps


def go_metric(text, bench, unit):
    m = re.search(r"^%s(?:-\d+)?\s+\d+\s+.*?([\d.]+) %s" % (re.escape(bench), re.escape(unit)), text, re.M)
    return float(m.group(1)) if m else None


def main():
    threads = int(os.environ.get("PEER_THREADS", "2"))
    torch.set_num_threads(threads)
    go = open(sys.argv[1]).read() if len(sys.argv) > 1 else ""
    print(f"PyTorch {torch.__version__}, CPU, {threads} threads, float32")
    print(f"{'benchmark':<26}{'PyTorch':>12}{'eqflib':>12}{'eqflib/PyTorch':>16}")
    for name in PRESETS:
        peer = bench_train(name)
        ours = go_metric(go, f"BenchmarkTrainStep/{name}", "steps/s")
        ratio = f"{ours / peer:.2f}× speed" if ours else "-"
        print(f"{'TrainStep/' + name + ' steps/s':<26}{peer:>12.2f}{ours or float('nan'):>12.2f}{ratio:>16}")
    for name in PRESETS:
        peer = bench_sample(name)
        ours = go_metric(go, f"BenchmarkSampleStep/{name}", "ms/step")
        ratio = f"{ours / peer:.2f}× time" if ours else "-"
        print(f"{'SampleStep/' + name + ' ms':<26}{peer:>12.2f}{ours or float('nan'):>12.2f}{ratio:>16}")
    # eqflib's own ratio: one closed-loop NAG step (readout, momentum, update) against one plain
    # network call on the "small" DiT, interleaved in the same run (BenchmarkSampleStepNAG).
    for unit, what in (("backend/network", "state on the backend"), ("host/network", "state on the host")):
        r = go_metric(go, "BenchmarkSampleStepNAG", unit)
        if r is not None:
            print(f"NAG step / network call, {what}: {r:.3f}×")


if __name__ == "__main__":
    main()
