"""Compares the epoch events of two DeepEx metrics logs.

  compare_logs.py A.jsonl B.jsonl --fields train_loss --rtol 1e-4
  compare_logs.py A.jsonl B.jsonl --fields train_loss,val_loss,val_accuracy --exact

Fails (exit 1) naming the epoch and field when the logs differ, or when they
do not hold the same epochs. A resumed log (with a "resume" event) counts
each epoch once: the last event for it wins.
"""
import argparse
import json
import sys


def epochs(path):
    out = {}
    for n, line in enumerate(open(path), 1):
        e = json.loads(line)
        if e.get("event") == "epoch":
            out[e["epoch"]] = e
    if not out:
        sys.exit(f"{path}: no epoch events")
    return out


p = argparse.ArgumentParser()
p.add_argument("a")
p.add_argument("b")
p.add_argument("--fields", required=True)
p.add_argument("--rtol", type=float, default=0.0)
p.add_argument("--exact", action="store_true")
p.add_argument("--min-epochs", type=int, default=1)
args = p.parse_args()

A, B = epochs(args.a), epochs(args.b)
if sorted(A) != sorted(B):
    sys.exit(f"the logs hold different epochs: {sorted(A)} vs {sorted(B)}")
if len(A) < args.min_epochs:
    sys.exit(f"only {len(A)} epochs, expected at least {args.min_epochs}")
worst = 0.0
for ep in sorted(A):
    for f in args.fields.split(","):
        x, y = A[ep][f], B[ep][f]
        if args.exact:
            if x != y:
                sys.exit(f"epoch {ep}: {f} differs: {x!r} vs {y!r}")
            continue
        rel = abs(x - y) / max(abs(x), abs(y), 1e-300)
        worst = max(worst, rel)
        if rel > args.rtol:
            sys.exit(f"epoch {ep}: {f} {x!r} vs {y!r}: relative difference {rel:.3g} > {args.rtol:g}")
print(f"{len(A)} epochs agree on {args.fields}" + ("" if args.exact else f" (worst relative difference {worst:.3g})"))
