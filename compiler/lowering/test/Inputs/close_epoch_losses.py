#!/usr/bin/env python3
"""close_epoch_losses.py A.jsonl B.jsonl [REL]: exit 1 unless both metrics logs
have the same epochs and each epoch's train_loss and val_loss agree to REL
(relative, default 1e-5). For runs whose sums are summed in another order."""
import json
import sys


def epochs(path):
    return {e["epoch"]: e for e in map(json.loads, open(path)) if e.get("event") == "epoch"}


a, b = epochs(sys.argv[1]), epochs(sys.argv[2])
rel = float(sys.argv[3]) if len(sys.argv) > 3 else 1e-5
ok = bool(a) and sorted(a) == sorted(b)
for ep in sorted(a):
    for k in ("train_loss", "val_loss"):
        x, y = a[ep][k], b.get(ep, {}).get(k, float("nan"))
        d = abs(x - y) / max(abs(x), 1e-30)
        ok &= d <= rel
        print(f"epoch {ep} {k}: {x!r} {y!r} rel {d:.1e}")
sys.exit(0 if ok else 1)
