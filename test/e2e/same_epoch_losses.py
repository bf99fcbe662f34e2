#!/usr/bin/env python3
"""same_epoch_losses.py A.jsonl B.jsonl: exit 1 unless the two metrics logs
have epoch events and the epochs they share have identical train_loss,
val_loss, val_accuracy and, where logged, val_iou, val_mae, val_rmse and
val_r2 (bitwise: the runs must train the same)."""
import json
import sys


def epochs(path):
    out = {}
    for line in open(path):
        e = json.loads(line)
        if e.get("event") == "epoch":
            out[e["epoch"]] = tuple(e.get(k) for k in ("train_loss", "val_loss", "val_accuracy", "val_iou", "val_mae", "val_rmse", "val_r2"))
    return out


a, b = epochs(sys.argv[1]), epochs(sys.argv[2])
shared = sorted(set(a) & set(b))
for ep in shared:
    print(f"epoch {ep}: {a[ep]} {b[ep]}")
sys.exit(0 if shared and all(a[ep] == b[ep] for ep in shared) else 1)
