"""comm_wait_s in the epoch events of two logs: with overlap (first) it is
at most comm_time_s; without (second) it equals comm_time_s."""
import json
import sys


def epochs(path):
    with open(path) as f:
        return [e for e in map(json.loads, f) if e.get("event") == "epoch"]


on, off = epochs(sys.argv[1]), epochs(sys.argv[2])
assert on and off, "no epoch events"
for e in on:
    assert 0 <= e["comm_wait_s"] <= e["comm_time_s"] + 1e-6, e
    assert e["comm_time_s"] > 0, e
# Buckets started in the backward pass: part of the communication was hidden.
assert sum(e["comm_wait_s"] for e in on) < sum(e["comm_time_s"] for e in on), on
for e in off:
    assert abs(e["comm_wait_s"] - e["comm_time_s"]) <= 1e-6, e
print("comm_wait_s: with overlap", [e["comm_wait_s"] for e in on], "of", [e["comm_time_s"] for e in on],
      "; without", [e["comm_wait_s"] for e in off])
