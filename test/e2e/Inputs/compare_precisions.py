"""Compares an fp32 and a bf16 run of the same model, seed and steps (their
--log-steps metrics logs): the start events' precision, the first step's
loss (must differ, by no more than bf16's rounding of the products' inputs
explains), the mean training loss of the last --tail steps (bf16 at most
--max-loss-gap above fp32, relative), and the final test accuracy (within
--max-accuracy-gap). The loss of the last steps is the tighter check: the test
accuracy of a run stopped mid-epoch moves by about a point from rounding
alone (the Fashion CNN after 300 steps: 0.8362 with direct fp32
convolutions, 0.8415 with Winograd ones, whose mean loss of steps 201-300
differ by 0.06%)."""
import argparse
import json
import sys

p = argparse.ArgumentParser()
p.add_argument("fp32")
p.add_argument("bf16")
p.add_argument("--max-accuracy-gap", type=float, required=True)
p.add_argument("--max-loss-gap", type=float, required=True, help="relative, mean loss of the last --tail steps")
p.add_argument("--tail", type=int, default=100)
p.add_argument("--max-first-loss-diff", type=float, default=0.02,
               help="relative; bf16 keeps 8 bits of mantissa (2^-9 relative rounding per input)")
a = p.parse_args()


def load(path):
    return [json.loads(line) for line in open(path)]


f, b = load(a.fp32), load(a.bf16)
pf, pb = f[0].get("precision", "fp32"), b[0].get("precision", "fp32")
print(f"start events: precision {pf} / {pb}")
if (pf, pb) != ("fp32", "bf16"):
    sys.exit("expected an fp32 and a bf16 run")

lf = [e["loss"] for e in f if e["event"] == "step"]
lb = [e["loss"] for e in b if e["event"] == "step"]
if not lf or len(lf) != len(lb):
    sys.exit(f"step losses: {len(lf)} fp32, {len(lb)} bf16 (run both with --log-steps and the same --max-steps)")
rel = abs(lf[0] - lb[0]) / abs(lf[0])
print(f"first loss: fp32 {lf[0]:.7f}, bf16 {lb[0]:.7f}, relative difference {rel:.2e}",
      "ok" if 0 < rel <= a.max_first_loss_diff else "FAILED")
if rel == 0:
    sys.exit("the bf16 run's first loss equals the fp32 run's bit for bit: its products did not round their inputs")
if rel > a.max_first_loss_diff:
    sys.exit(f"first losses differ by {rel:.2e} relative, more than {a.max_first_loss_diff}")

tail = min(a.tail, len(lf))
mf, mb = sum(lf[-tail:]) / tail, sum(lb[-tail:]) / tail
lgap = (mb - mf) / mf
print(f"mean loss of the last {tail} steps: fp32 {mf:.4f}, bf16 {mb:.4f}; gap {lgap:+.2%}",
      "ok" if lgap <= a.max_loss_gap else "FAILED")
if lgap > a.max_loss_gap:
    sys.exit(f"bf16's loss is {lgap:.2%} above fp32's, more than {a.max_loss_gap:.0%}")

af = [e["val_accuracy"] for e in f if e["event"] == "epoch"][-1]
ab = [e["val_accuracy"] for e in b if e["event"] == "epoch"][-1]
gap = af - ab
print(f"test accuracy: fp32 {af:.4f}, bf16 {ab:.4f}; accuracy gap {gap:+.4f}",
      "ok" if gap <= a.max_accuracy_gap else "FAILED")
if gap > a.max_accuracy_gap:
    sys.exit(f"bf16 is {gap:.4f} below fp32, more than {a.max_accuracy_gap}")
