"""comm_wait_s in the epoch events of two logs: with overlap (first) it is
at most comm_time_s; without (second) it equals comm_time_s. overlap_window_s
(the backward pass's time after the first bucket started) is in every epoch:
with overlap above 0 and at most epoch_time_s, without it 0. The start events
give grad_buckets (an optional third argument: the count expected)."""
import json
import sys


def events(path, kind):
    with open(path) as f:
        return [e for e in map(json.loads, f) if e.get("event") == kind]


def epochs(path):
    return events(path, "epoch")


on, off = epochs(sys.argv[1]), epochs(sys.argv[2])
assert on and off, "no epoch events"
for e in on:
    assert 0 <= e["comm_wait_s"] <= e["comm_time_s"] + 1e-6, e
    assert e["comm_time_s"] > 0, e
# Buckets started in the backward pass: part of the communication was hidden.
assert sum(e["comm_wait_s"] for e in on) < sum(e["comm_time_s"] for e in on), on
for e in off:
    assert abs(e["comm_wait_s"] - e["comm_time_s"]) <= 1e-6, e
for e in on:
    assert 0 < e["overlap_window_s"] <= e["epoch_time_s"] + 1e-6, e
for e in off:
    assert e["overlap_window_s"] == 0, e
for path in sys.argv[1:3]:
    (start,) = events(path, "start")
    assert start["grad_buckets"] >= 1, start
    if len(sys.argv) > 3:
        assert start["grad_buckets"] == int(sys.argv[3]), start
print("comm_wait_s: with overlap", [e["comm_wait_s"] for e in on], "of", [e["comm_time_s"] for e in on],
      "; without", [e["comm_wait_s"] for e in off], "; overlap_window_s", [e["overlap_window_s"] for e in on],
      "of epoch_time_s", [e["epoch_time_s"] for e in on])
