#!/usr/bin/python3
"""Recomputes a run's last-epoch test metrics from its --export outputs and
compares them with the metrics log (the runtime's own evaluation).

  check_task_metrics.py regression LOG EXPORTED_Y TARGETS_NPY
  check_task_metrics.py segmentation LOG EXPORTED_SCORES MASKS_NPY

regression: val_mae, val_rmse, val_r2 and val_output_r2 (R^2 per output,
sklearn's r2_score per column, averaged uniformly); segmentation: val_accuracy
(per pixel), val_iou and val_class_iou. Prints one line per metric; exits 1
on a mismatch beyond 1e-5 relative (the exported outputs are the same
float32 numbers evaluation saw).
"""
import json
import sys

import numpy as np


def last_epoch(path):
    epochs = [e for e in map(json.loads, open(path)) if e["event"] == "epoch"]
    start = next(e for e in map(json.loads, open(path)) if e["event"] == "start")
    return start, epochs[-1]


def close(name, got, want):
    ok = abs(got - want) <= 1e-5 * max(abs(want), 1e-3)
    print(f"{name}: log {got:.6g} recomputed {want:.6g} {'ok' if ok else 'MISMATCH'}")
    return ok


def main():
    kind, log, out, ref = sys.argv[1:5]
    start, ep = last_epoch(log)
    print(f"task {start['task']}")
    pred, y = np.load(out).astype(np.float64), np.load(ref)
    ok = True
    if kind == "regression":
        y = y.astype(np.float32).astype(np.float64)  # the loader's conversion
        e = pred - y
        ok &= close("val_mae", ep["val_mae"], np.abs(e).mean())
        ok &= close("val_rmse", ep["val_rmse"], np.sqrt((e ** 2).mean()))
        r2 = 1 - (e ** 2).sum(0) / ((y - y.mean(0)) ** 2).sum(0)
        for j, (g, w) in enumerate(zip(ep["val_output_r2"], r2)):
            ok &= close(f"val_output_r2[{j}]", g, w)
        ok &= close("val_r2", ep["val_r2"], r2.mean())
    else:
        p = pred.argmax(1)
        y = y.astype(np.int64)
        ok &= close("val_accuracy", ep["val_accuracy"], (p == y).mean())
        ious = []
        for c in range(pred.shape[1]):
            inter, union = ((p == c) & (y == c)).sum(), ((p == c) | (y == c)).sum()
            ious.append(inter / union)
            ok &= close(f"val_class_iou[{c}]", ep["val_class_iou"][c], ious[-1])
        ok &= close("val_iou", ep["val_iou"], np.mean(ious))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
