#!/usr/bin/python3
"""Moves a model's weights between DeepEx and PyTorch.

A DeepEx weights directory (written by `./model --save-weights DIR`, read by
`./model --init-from DIR`) holds one float32 NPY file per tensor, named as
`--print-model` names the layers and laid out as PyTorch lays them out, and
index.json listing them (docs/inference.md). This tool maps such a directory
to and from a PyTorch state_dict of the equivalent torch.nn.Module:

  dx_weights.py from-torch STATE.pt DIR --model ./model [--map MAP.json]
      STATE.pt: torch.save(module.state_dict()); ./model: the DeepEx
      executable (its --print-weights says which tensors DIR needs).
  dx_weights.py to-torch DIR OUT.pt [--like STATE.pt] [--map MAP.json]
      OUT.pt: a state_dict of DeepEx's names, or of the names of the
      state_dict --like gives (load it with module.load_state_dict).

Tensors are matched by position: DeepEx lists the parameters in the
model's order, then the buffers (batch-norm running statistics); a
state_dict lists each module's parameters and buffers in module order, so
its entries are split into parameters and buffers (`running_mean`,
`running_var`; `num_batches_tracked` has no DeepEx counterpart and is
dropped, or set to 0 by to-torch --like). Every pair must have the same
shape. MAP.json ({"torch name": "deepex name", ...}) names pairs explicitly
instead. Run it with Debian's python3-torch: /usr/bin/python3.
"""
import argparse
import json
import os
import subprocess
import sys

import numpy as np
import torch

BUFFER_SUFFIXES = ("running_mean", "running_var")
DROPPED_SUFFIXES = ("num_batches_tracked",)


def fail(msg):
    sys.exit(f"dx_weights.py: error: {msg}")


def deepex_index(model):
    """The tensors of a DeepEx model: from its executable (--print-weights) or an index.json."""
    if model.endswith(".json"):
        with open(model) as f:
            return json.load(f)
    try:
        out = subprocess.run([model, "--print-weights"], check=True, capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        fail(f"cannot ask '{model}' for its weights (--print-weights): {e}")
    return json.loads(out)


def split_state(state):
    params, buffers = [], []
    for name, t in state.items():
        if name.endswith(DROPPED_SUFFIXES):
            continue
        (buffers if name.endswith(BUFFER_SUFFIXES) else params).append((name, t))
    return params, buffers


def pair_up(state, index, mapping):
    """[(torch name, deepex entry)] for every DeepEx tensor."""
    entries = index["tensors"]
    if mapping:
        by_name = {e["name"]: e for e in entries}
        pairs = []
        for tname, dname in mapping.items():
            if tname not in state:
                fail(f"the map names '{tname}', which the state_dict does not have")
            if dname not in by_name:
                fail(f"the map names '{dname}', which the DeepEx model does not have")
            pairs.append((tname, by_name[dname]))
        missing = sorted(set(by_name) - {d for _, d in mapping.items()})
        if missing:
            fail(f"the map leaves out DeepEx tensors: {', '.join(missing)}")
        return pairs
    params, buffers = split_state(state)
    dparams = [e for e in entries if e["kind"] == "param"]
    dbuffers = [e for e in entries if e["kind"] == "buffer"]
    for what, t, d in (("parameters", params, dparams), ("buffers", buffers, dbuffers)):
        if len(t) != len(d):
            fail(f"the state_dict has {len(t)} {what} ({', '.join(n for n, _ in t) or 'none'}), the DeepEx model "
                 f"{len(d)} ({', '.join(e['name'] for e in d) or 'none'}); give --map to pair them by name")
    return [(n, e) for (n, _), e in zip(params, dparams)] + [(n, e) for (n, _), e in zip(buffers, dbuffers)]


def check_shape(tname, t, e):
    if list(t.shape) != list(e["shape"]):
        fail(f"'{tname}' is {list(t.shape)} in the state_dict but DeepEx's '{e['name']}' is {e['shape']}")


def from_torch(args):
    state = torch.load(args.state, map_location="cpu")
    index = deepex_index(args.model)
    mapping = json.load(open(args.map)) if args.map else None
    os.makedirs(args.dir, exist_ok=True)
    for tname, e in pair_up(state, index, mapping):
        t = state[tname]
        check_shape(tname, t, e)
        np.save(os.path.join(args.dir, e["file"]), t.detach().to(torch.float32).contiguous().numpy())
    with open(os.path.join(args.dir, "index.json"), "w") as f:
        json.dump(index, f, indent=2)
        f.write("\n")
    print(f"wrote {len(index['tensors'])} tensors of '{index.get('model', '?')}' to {args.dir}")


def to_torch(args):
    with open(os.path.join(args.dir, "index.json")) as f:
        index = json.load(f)
    arrays = {e["name"]: torch.from_numpy(np.load(os.path.join(args.dir, e["file"]))) for e in index["tensors"]}
    if not args.like:
        out = dict(arrays)
    else:
        like = torch.load(args.like, map_location="cpu")
        mapping = json.load(open(args.map)) if args.map else None
        out = {}
        for tname, e in pair_up(like, index, mapping):
            check_shape(tname, like[tname], e)
            out[tname] = arrays[e["name"]].to(like[tname].dtype)
        for name, t in like.items():
            if name.endswith(DROPPED_SUFFIXES):
                out[name] = torch.zeros_like(t)
        out = {k: out[k] for k in like if k in out}  # the module's own order
    torch.save(out, args.out)
    print(f"wrote {len(out)} tensors to {args.out}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    f = sub.add_parser("from-torch", help="a PyTorch state_dict -> a DeepEx weights directory")
    f.add_argument("state")
    f.add_argument("dir")
    f.add_argument("--model", required=True, help="the DeepEx executable (or an index.json)")
    f.add_argument("--map", help="JSON {torch name: deepex name}")
    t = sub.add_parser("to-torch", help="a DeepEx weights directory -> a PyTorch state_dict")
    t.add_argument("dir")
    t.add_argument("out")
    t.add_argument("--like", help="a state_dict whose names and order the output takes")
    t.add_argument("--map", help="JSON {torch name: deepex name}")
    args = ap.parse_args()
    (from_torch if args.cmd == "from-torch" else to_torch)(args)


if __name__ == "__main__":
    main()
