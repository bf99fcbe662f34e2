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
