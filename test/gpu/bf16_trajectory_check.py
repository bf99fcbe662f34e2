#!/usr/bin/env python3
"""test/gpu/run.sh step 7 (a): a --precision bf16 --target=cuda run's
50-step loss trajectory against the CPU bf16 build's, and its final loss
against the GPU fp32 run's.

  bf16_trajectory_check.py REF_BF16_CPU.jsonl|- GPU_BF16.jsonl NAME GATE LIMIT GPU_FP32.jsonl CPU_FP32.jsonl

REF '-': no CPU bf16 reference (pack.sh ran on a CPU without bf16
instructions); the GPU run is still checked. run.sh's comment at step 7
says why LIMIT is 3e-2 and the CNN's GATE 3. Prints PASS or FAIL: ...;
exit status 0 or 1. Tested on the H200's logs by trajectory-check.test.
"""
import json, math, os, sys
ref, gpu, m, gate, limit, fp32_gpu, fp32_cpu = sys.argv[1:8]
limit = float(limit)
gate = max(1, min(int(gate), 50))
def log(p):  # (start event, train losses), or (None, []) when there is no such file
    if p == "-" or not os.path.isfile(p):
        return None, []
    rows = [json.loads(l) for l in open(p) if l.strip()]
    return (next((r for r in rows if r.get("event") == "start"), {}),
            [r["train_loss"] for r in rows if r.get("event") == "epoch"])
def rel(x, y):
    return abs(x - y) / max(abs(x), 1e-12)
def diffs(a, b):
    return [rel(x, y) for x, y in zip(a, b)]
def first_over(d):
    return next((str(i + 1) for i, v in enumerate(d) if v >= limit), "-")
fails = []
gs, g = log(gpu)
# An fp32 build packed under the bf16 name would pass the CNN's window by far.
if (gs or {}).get("precision") != "bf16":
    fails.append(f"the GPU log's start event says precision {(gs or {}).get('precision')!r}, not 'bf16'")
if len(g) != 50:
    fails.append(f"{len(g)} GPU steps, not 50")
if not all(math.isfinite(v) for v in g):
    fails.append("a GPU loss is not finite")
cs, c = log(ref)
if ref != "-":
    if (cs or {}).get("precision") != "bf16":
        fails.append(f"the CPU reference's start event says precision {(cs or {}).get('precision')!r}, not 'bf16'")
    if len(c) != 50:
        fails.append(f"{len(c)} CPU steps, not 50")
    d = diffs(c, g)
    if d:
        worst = max(d[:gate])
        print(f"{m} bf16: CPU vs GPU train loss, relative difference steps 1-6: "
              + " ".join(f"{v:.1e}" for v in d[:6]) + f"; largest over steps 1-{gate} {worst:.2e} (limit {limit:g}), "
              f"over all {len(d)} {max(d):.2e}, first at or over the limit at step {first_over(d)}; "
              f"final loss CPU {c[-1]:.6f} GPU {g[-1]:.6f}")
        if worst >= limit:
            fails.append(f"steps 1-{gate}: CPU vs GPU {worst:.2e} >= {limit:g}")
    _, f32c = log(fp32_cpu)
    r = diffs(f32c, c)
    if r:
        print(f"{m} bf16: rounding alone (CPU bf16 vs CPU fp32, pack.sh's logs): largest over steps 1-{gate} "
              f"{max(r[:gate]):.2e}, over all {len(r)} {max(r):.2e}, first at or over the limit at step {first_over(r)}")
if gate < 50 and g:
    # Beyond the window: it learns.
    tail = sum(g[-10:]) / len(g[-10:])
    print(f"{m} bf16: GPU loss step 1 {g[0]:.4f}, mean of the last 10 steps {tail:.4f} (must be lower)")
    if not tail < g[0]:
        fails.append(f"the mean loss of the last 10 steps {tail:.4f} is not below step 1's {g[0]:.4f}")
_, f = log(fp32_gpu)
if len(f) == 50 and g:
    rf = rel(f[-1], g[-1])
    binding = gate >= 50
    print(f"{m} bf16: final loss GPU bf16 {g[-1]:.6f} vs GPU fp32 (step 3) {f[-1]:.6f}: relative {rf:.2e} "
          + (f"(limit {limit:g})" if binding else "(reported only: the CNN's trajectory beyond its first steps)"))
    if binding and rf >= limit:
        fails.append(f"final loss against GPU fp32 {rf:.2e} >= {limit:g}")
else:
    print(f"{m} bf16: no complete GPU fp32 log from step 3 ({fp32_gpu}): final loss not compared with fp32")
print(f"{m} bf16: " + ("PASS" if not fails else "FAIL: " + "; ".join(fails)))
sys.exit(0 if not fails else 1)
