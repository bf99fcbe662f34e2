"""Checks that a metrics log has a target event within --max-epoch epochs,
whose value agrees with that epoch's event."""
import argparse
import json
import sys

p = argparse.ArgumentParser()
p.add_argument("log")
p.add_argument("--max-epoch", type=int, required=True)
a = p.parse_args()
events = [json.loads(line) for line in open(a.log)]
start = events[0]
targets = [e for e in events if e["event"] == "target"]
if not targets:
    sys.exit(f"{a.log}: the target {start.get('goal')} was not reached")
t = targets[0]
ep = [e for e in events if e["event"] == "epoch" and e["epoch"] == t["epoch"]][-1]
goal = start["goal"]
metric = {"accuracy": "val_accuracy", "val_loss": "val_loss", "loss": "train_loss"}[goal["metric"]]
assert ep[metric] == t["value"], (ep, t)
ok = t["value"] >= goal["value"] if goal["op"] == ">=" else t["value"] <= goal["value"]
assert ok, (t, goal)
if t["epoch"] > a.max_epoch:
    sys.exit(f"{a.log}: target reached only at epoch {t['epoch']} > {a.max_epoch}")
print(f"{a.log}: {goal['metric']} {t['value']} at epoch {t['epoch']} ({start['ranks']} ranks)")
