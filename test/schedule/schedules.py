"""Compares a compiled model's generated learning-rate schedule
(`EXE --print-schedule`: "step epoch lr" lines) with PyTorch's schedulers,
stepped once per training step, for the schedule named on the command line.

  schedules.py OUT.txt --kind cosine --base 0.1 --steps-per-epoch 10 --epochs 10 [--warmup 1] [...]
"""
import argparse
import sys

import torch

p = argparse.ArgumentParser()
p.add_argument("out")
p.add_argument("--kind", required=True)
p.add_argument("--base", type=float, required=True)
p.add_argument("--steps-per-epoch", type=int, required=True)
p.add_argument("--epochs", type=int, required=True)
p.add_argument("--warmup", type=int, default=0)
p.add_argument("--gamma", type=float, default=0.1)
p.add_argument("--every", type=int, default=1)
p.add_argument("--milestones", default="")
p.add_argument("--min-lr", type=float, default=0.0)
p.add_argument("--rtol", type=float, default=1e-9)
a = p.parse_args()

got = []
for line in open(a.out):
    f = line.split()
    if len(f) == 3 and f[0].isdigit():
        got.append(float(f[2]))
S, E, W = a.steps_per_epoch, a.epochs, a.warmup * a.steps_per_epoch
if len(got) != S * E:
    sys.exit(f"{a.out}: {len(got)} steps, expected {S * E}")

param = torch.nn.Parameter(torch.zeros(1))
opt = torch.optim.SGD([param], lr=a.base)
sched = torch.optim.lr_scheduler
if a.kind == "constant":
    main = sched.LambdaLR(opt, lambda i: 1.0)
elif a.kind == "step":
    main = sched.StepLR(opt, step_size=a.every * S, gamma=a.gamma)
elif a.kind == "multistep":
    main = sched.MultiStepLR(opt, milestones=[int(m) * S for m in a.milestones.split(",")], gamma=a.gamma)
elif a.kind == "exponential":  # per epoch
    main = sched.StepLR(opt, step_size=S, gamma=a.gamma)
elif a.kind == "cosine":
    main = sched.CosineAnnealingLR(opt, T_max=E * S - W, eta_min=a.min_lr)
else:
    sys.exit(f"unknown kind {a.kind}")
if W:
    if a.kind != "cosine":
        sys.exit("warm-up is compared for cosine (PyTorch's SequentialLR restarts the epoch count of the others)")
    warm = sched.LinearLR(opt, start_factor=1.0 / W, end_factor=1.0, total_iters=W - 1)
    main = sched.SequentialLR(opt, [warm, main], milestones=[W])
    # SequentialLR needs the main scheduler's base state back at the switch.
want = []
for _ in range(S * E):
    want.append(opt.param_groups[0]["lr"])
    opt.step()
    main.step()

worst = 0.0
for i, (x, y) in enumerate(zip(got, want)):
    rel = abs(x - y) / max(abs(y), 1e-300)
    worst = max(worst, rel)
    if rel > a.rtol:
        sys.exit(f"step {i + 1}: generated lr {x!r}, PyTorch {y!r} (relative difference {rel:.3g} > {a.rtol:g})")
print(f"{a.kind}: {len(got)} steps agree with PyTorch (worst relative difference {worst:.3g})")
