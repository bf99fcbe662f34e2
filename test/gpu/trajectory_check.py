#!/usr/bin/env python3
"""test/gpu/run.sh step 3: a --target=cuda run's 50-step loss trajectory
against the CPU build's (pack.sh's log, same flags and seed).

  trajectory_check.py REF_CPU.jsonl GPU.jsonl NAME GATE

Every step's train and eval loss and the task's metrics (val_mae, val_rmse,
val_iou) within 1e-3 relative over steps 1..GATE (50 binds all); beyond
GATE the GPU run must only learn (every loss finite, the mean of the last
10 steps below step 1's), and the differences are reported. run.sh's
comment at step 3 says why the CNN's GATE is 7. Prints PASS or FAIL: ...;
exit status 0 or 1. Tested on the H200's logs by trajectory-check.test.
"""
import json, math, sys
def epochs(p):
    return [r for r in map(json.loads, open(p)) if r.get("event") == "epoch"]
a, b, m = epochs(sys.argv[1]), epochs(sys.argv[2]), sys.argv[3]
gate = max(1, min(int(sys.argv[4]), 50))
def rel(x, y):
    return abs(x - y) / max(abs(x), 1e-12)
pairs = list(zip(a, b))
def worst(rows, key):
    return max((rel(x[key], y[key]) for x, y in rows if x.get(key) is not None and y.get(key) is not None),
               default=0.0)
# The task's metrics (regression, segmentation) agree as the losses do.
metrics = [k for k in ("val_mae", "val_rmse", "val_iou") if a and a[-1].get(k) is not None]
w_train, w_val = worst(pairs[:gate], "train_loss"), worst(pairs[:gate], "val_loss")
w_metric = max((worst(pairs[:gate], k) for k in metrics), default=0.0)
fails = []
if len(a) != 50 or len(b) != 50:
    fails.append(f"{len(a)} CPU / {len(b)} GPU steps, not 50")
if w_train >= 1e-3 or w_val >= 1e-3 or w_metric >= 1e-3:
    fails.append(f"steps 1-{gate} differ by 1e-3 or more")
print(f"{m}: steps 1-{gate}: largest relative difference train loss {w_train:.2e}, eval loss {w_val:.2e}, "
      f"metrics {metrics or '-'} {w_metric:.2e} (limit 1e-3)")
if gate < 50 and b:
    g = [y["train_loss"] for y in b]
    d = [rel(x["train_loss"], y["train_loss"]) for x, y in pairs]
    tail = sum(g[-10:]) / len(g[-10:])
    first = next((str(i + 1) for i, v in enumerate(d) if v >= 1e-3), "-")
    print(f"{m}: over all 50 steps: largest {max(d):.2e}, first at or over 1e-3 at step {first} (reported only); "
          f"GPU loss step 1 {g[0]:.4f}, mean of the last 10 steps {tail:.4f} (must be lower)")
    if not all(math.isfinite(v) for v in g) or not tail < g[0]:
        fails.append("the GPU run does not learn (a loss not finite, or the last 10 steps not below step 1)")
if a and b:
    print(f"{m}: final loss CPU {a[-1]['train_loss']:.6f} GPU {b[-1]['train_loss']:.6f}")
print(f"{m}: " + ("PASS" if not fails else "FAIL: " + "; ".join(fails)))
sys.exit(0 if not fails else 1)
