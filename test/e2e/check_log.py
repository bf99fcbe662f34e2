"""Checks a DeepEx metrics log: event order, required fields, accuracy."""
import argparse
import json
import math
import sys

p = argparse.ArgumentParser()
p.add_argument("log")
p.add_argument("--min-accuracy", type=float, default=None)
p.add_argument("--epochs", type=int, required=True)
a = p.parse_args()

events = [json.loads(line) for line in open(a.log)]
kinds = [e["event"] for e in events]
assert kinds[0] == "start", kinds
assert kinds[-1] == "end", kinds
epochs = [e for e in events if e["event"] == "epoch"]
assert len(epochs) == a.epochs, (len(epochs), a.epochs)
for e in epochs:
    for k in ("epoch", "steps", "train_time_s", "elapsed_s", "epoch_time_s", "samples_per_s", "train_loss",
              "val_loss", "val_accuracy", "lr"):
        assert k in e, (k, e)
    assert math.isfinite(e["train_loss"]) and e["train_loss"] > 0, e
for k in ("model", "ranks", "per_rank_batch", "global_batch", "params", "train_samples", "test_samples", "seed"):
    assert k in events[0], (k, events[0])
if a.min_accuracy is not None:
    acc = epochs[-1]["val_accuracy"]
    assert acc >= a.min_accuracy, f"val_accuracy {acc} < {a.min_accuracy}"
print("log ok:", a.log, "final val_accuracy", epochs[-1]["val_accuracy"])
