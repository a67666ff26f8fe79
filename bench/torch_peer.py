"""PyTorch peer of eqflib's step benchmarks (make bench-peer; bench/peer drives both sides).

The same DiT as eqflib/dit.go (patchify by reshape + linear, fixed sinusoidal positions, per-frame
AdaLN-Zero blocks with full spatiotemporal attention and exact GELU, modulated head) and the same
presets. Rows, one per process so that its peak memory is the row's:

  train/PRESET    one EqF training step, batch 8 × 4 frames (AdamW, global-norm clipping 1.0, EMA)
  sample/PRESET   one sampling step, batch 1 × 4 frames: a no-grad evaluation and x ← x − δ v̂
  rollout/small   one closed-loop NAG step with the readout h_ω, batch 1 × 8 frames with actions
  guided/small    the same with classifier-free guidance w = 3 (conditioned and action-free as a batch of 2)
                  (paper App. H: x_look = x − μm; (v̂, z) = f(x_look); σ̂ = h_ω(z);
                  m ← μm + η(σ̂)/N v̂; x ← x − m, c-function η), written plainly
  matmul/1024     a 1024³ float32 matrix product

Usage: python3 bench/torch_peer.py ROW STEPS   prints "ms/step X" (matmul: "GFLOP/s X") after one
warm-up step. CPU, float32, PEER_THREADS threads (default 2). Debian's python3-torch.
"""
import math
import os
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

PRESETS = {
    "tiny": dict(C=3, H=16, W=16, patch=4, hidden=48, depth=2, heads=4, mlp=4.0, cond=3, freqs=64),
    "small": dict(C=3, H=32, W=32, patch=8, hidden=256, depth=4, heads=4, mlp=4.0, cond=3, freqs=128),
    "medium": dict(C=3, H=32, W=32, patch=4, hidden=256, depth=6, heads=4, mlp=4.0, cond=3, freqs=128),
    "paper": dict(C=4, H=32, W=32, patch=2, hidden=768, depth=10, heads=12, mlp=4.0, cond=3, freqs=256),
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
        z = []  # every block's activations mean-pooled over each frame's tokens, [B, T, D]
        for blk in self.blocks:
            h = blk(h, ce)
            z.append(h.mean(2))
        self.z = z
        shift, scale = [m[:, :, None] for m in self.final_adaln(ce).chunk(2, -1)]
        out = self.head(F.layer_norm(h, (c["hidden"],), eps=1e-6) * (1 + scale) + shift)
        out = out.reshape(B, T, hp, wp, c["C"], p, p).permute(0, 1, 4, 2, 5, 3, 6)
        return out.reshape(B, T, c["C"], c["H"], c["W"])


class Readout(nn.Module):
    """h_ω (eqflib/readout.go): a shared LayerNorm and projection of every block's pooled
    activations, mixed by softmax weights, then LayerNorm, SiLU MLP and one logit per frame."""

    def __init__(self, d, depth, proj=256):
        super().__init__()
        self.ln = nn.LayerNorm(d, eps=1e-5)
        self.proj = nn.Linear(d, proj)
        self.mix = nn.Parameter(torch.zeros(depth))
        self.ln2 = nn.LayerNorm(proj, eps=1e-5)
        self.fc1, self.fc2 = nn.Linear(proj, proj), nn.Linear(proj, 1)

    def forward(self, z):
        w = torch.softmax(self.mix, 0)
        h = sum(w[l] * self.proj(self.ln(zl)) for l, zl in enumerate(z))
        return torch.sigmoid(self.fc2(F.silu(self.fc1(self.ln2(h))))[..., 0])  # σ̂ [B, T]


def train_step(name, batch=8, frames=4):
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

    return step


def sample_step(name, frames=4):
    c = PRESETS[name]
    torch.manual_seed(1)
    m = DiT(c).eval()
    state = {"x": torch.randn(1, frames, c["C"], c["H"], c["W"])}
    lvl, cond = torch.zeros(1, frames), torch.zeros(1, frames, c["cond"])

    def step():
        with torch.no_grad():
            state["x"] = state["x"] - 0.01 * m(state["x"], lvl, cond)

    return step


def rollout_step(name, frames=8, mu=0.3, alpha=0.8, sigma_end=1e-3, depth=1 << 20):
    c = PRESETS[name]
    torch.manual_seed(1)
    m, ro = DiT(c).eval(), Readout(c["hidden"], c["depth"]).eval()
    A = alpha + (1 - alpha) * math.log((1 - alpha) / sigma_end)  # the c-function's normalisation
    x = torch.randn(1, frames, c["C"], c["H"], c["W"])
    state = {"x": x, "m": torch.zeros_like(x)}
    lvl, cond = torch.zeros(1, frames), torch.zeros(1, frames, c["cond"])

    def step():
        with torch.no_grad():
            x, mom = state["x"], state["m"]
            look = x - mu * mom
            v = m(look, lvl, cond)
            sigma = ro(m.z)  # σ̂ per frame, read at the look-ahead point
            eta = A * torch.clamp(sigma / (1 - alpha), max=1.0)
            mom = mu * mom + (eta / depth)[..., None, None, None] * v
            state["x"], state["m"] = x - mom, mom

    return step


def guided_step(name, frames=8, w=3.0, mu=0.3, alpha=0.8, sigma_end=1e-3, depth=1 << 20):
    """rollout_step with classifier-free guidance of weight w on the actions: the conditioned and
    the action-free evaluation as one batch of 2 (as eqflib's backend path does)."""
    c = PRESETS[name]
    torch.manual_seed(1)
    m, ro = DiT(c).eval(), Readout(c["hidden"], c["depth"]).eval()
    A = alpha + (1 - alpha) * math.log((1 - alpha) / sigma_end)
    x = torch.randn(1, frames, c["C"], c["H"], c["W"])
    state = {"x": x, "m": torch.zeros_like(x)}
    lvl = torch.zeros(2, frames)
    cond = torch.cat([torch.ones(1, frames, c["cond"]), torch.zeros(1, frames, c["cond"])])

    def step():
        with torch.no_grad():
            x, mom = state["x"], state["m"]
            look = x - mu * mom
            v2 = m(torch.cat([look, look]), lvl, cond)
            v = v2[1:] + w * (v2[:1] - v2[1:])
            sigma = ro([zl[:1] for zl in m.z])  # σ̂ from the conditioned half
            eta = A * torch.clamp(sigma / (1 - alpha), max=1.0)
            mom = mu * mom + (eta / depth)[..., None, None, None] * v
            state["x"], state["m"] = x - mom, mom

    return step


def main():
    torch.set_num_threads(int(os.environ.get("PEER_THREADS", "2")))
    if len(sys.argv) != 3:
        sys.exit("usage: torch_peer.py ROW STEPS (rows: train/PRESET, sample/PRESET, rollout/small, guided/small, matmul/1024)")
    row, steps = sys.argv[1], int(sys.argv[2])
    kind, arg = row.split("/")
    if kind == "matmul":
        n = int(arg)
        a, b = torch.randn(n, n), torch.randn(n, n)
        torch.mm(a, b)
        t = time.perf_counter()
        for _ in range(steps):
            torch.mm(a, b)
        print(f"GFLOP/s {2 * n ** 3 * steps / (time.perf_counter() - t) / 1e9:.3f}")
        return
    step = {"train": train_step, "sample": sample_step, "rollout": rollout_step, "guided": guided_step}[kind](arg)
    step()  # warm-up
    t = time.perf_counter()
    for _ in range(steps):
        step()
    print(f"ms/step {1000 * (time.perf_counter() - t) / steps:.4f}")


if __name__ == "__main__":
    main()
