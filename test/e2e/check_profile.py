"""Checks the "profile" event of a metrics log written with --profile:
check_profile.py LOG STEPS. Prints one line per property that holds; exits 1
with a message when one does not."""
import json, sys

log, steps = sys.argv[1], int(sys.argv[2])
events = [json.loads(l) for l in open(log)]
prof = [e for e in events if e["event"] == "profile"]
if len(prof) != 1:
    sys.exit(f"{log}: {len(prof)} profile events, expected 1")
p = prof[0]
if p["steps"] != steps:
    sys.exit(f"profile steps {p['steps']}, expected {steps}")
functions = sorted({r["function"] for r in p["regions"]})
print(f"profile event: {p['steps']} steps, regions of {', '.join(functions)}")
train = [r for r in p["regions"] if r["function"] == "train"]
bad = [r for r in train if r["calls"] % steps != 0 or r["calls"] == 0]
if bad:
    sys.exit(f"train regions whose calls are not a multiple of {steps}: {bad}")
print(f"every train region ran {steps} times")
total = sum(r["seconds"] for r in p["regions"] if r["function"] != "eval")
total += p["data_s"] + p["allreduce_s"] + p["other_s"]
step_total = p["step_s"] * steps
if abs(total - step_total) > 0.02 * step_total + 1e-4:
    sys.exit(f"regions add up to {total} s, steps took {step_total} s")
if not 0 < p["generated_share"] < 1:
    sys.exit(f"generated_share {p['generated_share']}")
print("the regions and the trainer's phases add up to the step time")
# Each generated op is a region of its own with its shape ("op") and the
# bytes it read and wrote over its calls: at batch 16 the relu's pass over
# [16, 8, 16, 16] reads the batch norm's input and writes the relu's output
# (two 128 KiB tensors) and a few per-channel vectors.
generated = [r for r in train if r["kind"] == "generated"]
if not generated or any("op" not in r or "bytes" not in r for r in generated):
    sys.exit(f"generated train regions without op or bytes: {[r for r in generated if 'op' not in r or 'bytes' not in r]}")
relu = [r for r in generated if r["layer"] == "relu_1" and r["phase"] == "forward"]
if len(relu) != 1 or relu[0]["op"] != "map Bx8x16x16":
    sys.exit(f"relu_1 forward regions: {relu}")
per_call = relu[0]["bytes"] / relu[0]["calls"]
if not 2 * 16 * 8 * 16 * 16 * 4 <= per_call < 2 * 16 * 8 * 16 * 16 * 4 + 1024:
    sys.exit(f"relu_1 forward moved {per_call} bytes per call")
print(f"relu_1 forward: {relu[0]['op']}, {int(per_call)} bytes per call")
