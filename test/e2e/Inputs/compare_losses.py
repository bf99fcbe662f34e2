"""Compares the step losses of training runs with a reference run.

usage: compare_losses.py REFERENCE.jsonl RUN.jsonl... [--first N TOL] [--all TOL]

Reads each metrics log's "step" events (--log-steps) and prints, for each
RUN, one line: its step count, whether its first N losses lie within TOL of
the reference's (relative difference) and whether all of them lie within
the --all TOL. The largest difference goes to standard error, for the
test's log. A run with another step count than the reference fails.
"""
import argparse
import json
import os
import sys


def losses(path):
    with open(path) as f:
        return [r["loss"] for r in map(json.loads, f) if r.get("event") == "step"]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("reference")
    p.add_argument("runs", nargs="+")
    p.add_argument("--first", nargs=2, metavar=("N", "TOL"))
    p.add_argument("--all", metavar="TOL")
    a = p.parse_args()
    ref = losses(a.reference)
    ok = True
    for run in a.runs:
        got = losses(run)
        if len(got) != len(ref) or not ref:
            print(f"{os.path.basename(run)}: {len(got)} steps, reference {len(ref)}")
            ok = False
            continue
        d = [abs(x - y) / max(abs(y), 1e-30) for x, y in zip(got, ref)]
        parts = [f"{os.path.basename(run)}: {len(got)} steps"]
        if a.first:
            n, tol = int(a.first[0]), a.first[1]
            parts.append(f"first {n} within {tol}: {max(d[:n]) <= float(tol)}")
        if a.all:
            parts.append(f"all within {a.all}: {max(d) <= float(a.all)}")
        print(", ".join(parts))
        print(f"{run}: largest relative difference {max(d):.3g} (step {d.index(max(d)) + 1})", file=sys.stderr)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
