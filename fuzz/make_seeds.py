#!/usr/bin/python3
"""Writes the reader fuzzers' seeds into fuzz/corpus/<reader>/: small valid
files of every kind each reader takes (element types, layouts, compression,
colour types), a few hundred bytes each. The files are committed; run this
again only to change them (it needs numpy, h5py and PIL: Debian's
python3-numpy, python3-h5py, python3-pil):

    /usr/bin/python3 fuzz/make_seeds.py

The model metadata seeds are those of examples/, which build/compiler/dxc
compiles (--emit=llvm holds dx_model_metadata); without a dxc there they
are left as they are.

Seeds are named by what they hold. Inputs the fuzzers found (regressions)
are kept next to them under names starting with regress-; this script
leaves those alone. The output is the same each time except for the HDF5
files in the newest format (libver="latest"), whose groups record when they
were made.
"""
import gzip
import io
import json
import pathlib
import re
import struct
import subprocess
import sys

import h5py
import numpy as np
from PIL import Image

ROOT = pathlib.Path(__file__).resolve().parent / "corpus"
REPO = ROOT.parent.parent


def put(reader, name, data):
    d = ROOT / reader
    d.mkdir(parents=True, exist_ok=True)
    (d / name).write_bytes(data)


def npy_bytes(a, version=None):
    f = io.BytesIO()
    if version is None:
        np.save(f, a)
    else:  # numpy.lib.format picks 1.0 unless told
        np.lib.format.write_array(f, a, version=version)
    return f.getvalue()


def npy():
    put("npy", "f4-2x3.npy", npy_bytes(np.arange(6, dtype="<f4").reshape(2, 3) / 2))
    put("npy", "f8-3.npy", npy_bytes(np.array([1.5, -2, 3e10], dtype="<f8")))
    put("npy", "u1-2x1x2x2.npy", npy_bytes(np.arange(8, dtype="u1").reshape(2, 1, 2, 2)))
    put("npy", "i1-4.npy", npy_bytes(np.array([-1, 0, 1, 127], dtype="i1")))
    put("npy", "i2-2x2.npy", npy_bytes(np.array([[1, -2], [3, 4]], dtype="<i2")))
    put("npy", "u2-3.npy", npy_bytes(np.array([0, 1, 65535], dtype="<u2")))
    put("npy", "i4-labels.npy", npy_bytes(np.array([0, 2, 1], dtype="<i4")))
    put("npy", "u4-2.npy", npy_bytes(np.array([7, 4000000000], dtype="<u4")))
    put("npy", "i8-labels-3x1.npy", npy_bytes(np.array([[2], [0], [1]], dtype="<i8")))
    put("npy", "f4-empty-0x3.npy", npy_bytes(np.zeros((0, 3), dtype="<f4")))
    put("npy", "f4-v2.npy", npy_bytes(np.ones((2, 2), dtype="<f4"), version=(2, 0)))
    put("npy", "f4-v3.npy", npy_bytes(np.ones((1, 2), dtype="<f4"), version=(3, 0)))


def idx_bytes(type_byte, fmt, shape, values):
    head = bytes([0, 0, type_byte, len(shape)]) + b"".join(struct.pack(">I", d) for d in shape)
    return head + b"".join(struct.pack(">" + fmt, v) for v in values)


def idx():
    u8 = idx_bytes(0x08, "B", [2, 2, 2], range(8))
    put("idx", "u8-2x2x2.idx", u8)
    put("idx", "i8-4.idx", idx_bytes(0x09, "b", [4], [-1, 0, 1, 2]))
    put("idx", "i16-2x2.idx", idx_bytes(0x0B, "h", [2, 2], [1, -2, 3, 4]))
    put("idx", "i32-labels.idx", idx_bytes(0x0C, "i", [3], [0, 9, 4]))
    f32 = idx_bytes(0x0D, "f", [2, 3], [0.5, 1, 2, 3, 4, 5])
    put("idx", "f32-2x3.idx", f32)
    put("idx", "f64-2.idx", idx_bytes(0x0E, "d", [2], [1.25, -3]))
    # MNIST's files are gzipped (train-images-idx3-ubyte.gz); mtime 0 keeps them reproducible.
    put("idx", "u8-2x2x2.idx.gz", gzip.compress(u8, mtime=0))
    put("idx", "f32-2x3.idx.gz", gzip.compress(f32, mtime=0))


def csv():
    put("csv", "features.csv", b"1,2,3\n4,5,6\n")
    put("csv", "header-label.csv", b"a,b,label\n0.5,1e3,0\n-2,3.25,9\n")
    put("csv", "quoted-crlf.csv", b'"1", 2 ,3\r\n\r\n4,\t5,"6"\r\n')
    put("csv", "labels.csv", b"2\n0\n1\n")
    put("csv", "exponents.csv", b"1e-5,-0.0,1E+2\n.5,5.,7e0\n")


def image_bytes(img, fmt, **kw):
    f = io.BytesIO()
    img.save(f, fmt, **kw)
    return f.getvalue()


def image():
    rng = np.random.default_rng(19)
    rgb = Image.fromarray(rng.integers(0, 256, (6, 8, 3), dtype=np.uint8), "RGB")
    grey = Image.fromarray(rng.integers(0, 256, (5, 4), dtype=np.uint8), "L")
    put("image", "rgb.png", image_bytes(rgb, "PNG"))
    put("image", "grey.png", image_bytes(grey, "PNG"))
    put("image", "rgba.png", image_bytes(rgb.convert("RGBA"), "PNG"))
    put("image", "grey-alpha.png", image_bytes(grey.convert("LA"), "PNG"))
    pal = rgb.convert("P", palette=Image.ADAPTIVE, colors=4)
    put("image", "palette-trns.png", image_bytes(pal, "PNG", transparency=0))  # with a tRNS chunk
    put("image", "bilevel.png", image_bytes(grey.convert("1"), "PNG"))
    put("image", "grey16.png", image_bytes(Image.fromarray(np.arange(12, dtype=np.uint16).reshape(3, 4) * 5000), "PNG"))
    put("image", "rgb.jpg", image_bytes(rgb, "JPEG", quality=50))
    put("image", "rgb-444.jpg", image_bytes(rgb, "JPEG", quality=50, subsampling=0))
    put("image", "rgb-progressive.jpg", image_bytes(rgb, "JPEG", quality=50, progressive=True))
    put("image", "grey.jpg", image_bytes(grey, "JPEG", quality=50))
    put("image", "cmyk.jpg", image_bytes(rgb.convert("CMYK"), "JPEG", quality=50))


def h5(name, build, **kw):
    f = io.BytesIO()
    with h5py.File(f, "w", **kw) as h:
        build(h)
    put("hdf5", name, f.getvalue())


def hdf5():
    # The harness reads the datasets /x and /g/y.
    h5("f4-contiguous.h5", lambda h: h.create_dataset("x", data=np.arange(12, dtype="<f4").reshape(4, 3)), libver="latest")
    h5("i8-labels-group.h5", lambda h: h.create_dataset("g/y", data=np.array([0, 2, 1, 1], dtype="<i8")), libver="latest")

    def chunked(h):
        h.create_dataset("x", data=np.arange(24, dtype="u1").reshape(6, 2, 2), chunks=(2, 2, 2), compression="gzip",
                         shuffle=True)
        h.create_dataset("g/y", data=np.arange(6, dtype=">i2"), chunks=(3,), fletcher32=True)
    h5("chunked-gzip-shuffle.h5", chunked, libver="latest")
    h5("f8-compact-earliest.h5", lambda h: h.create_dataset("x", data=np.array([[1.5], [2.5]], dtype="<f8"),
                                                           dcpl=compact()), libver="earliest")
    h5("u4-earliest.h5", lambda h: h.create_dataset("x", data=np.array([1, 2, 3], dtype="<u4")), libver="earliest")
    h5("strings.h5", lambda h: h.create_dataset("x", data=np.array([b"ab", b"cd"])), libver="latest")
    h5("scalar.h5", lambda h: h.create_dataset("x", data=np.float32(3)), libver="latest")
    # Never written (reads would give the fill value): refused.
    h5("unwritten-fill.h5", lambda h: h.create_dataset("x", shape=(3, 2), dtype="<i4", fillvalue=7), libver="latest")


def compact():
    # h5py has no keyword for the compact layout (data inside the object header).
    dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
    dcpl.set_layout(h5py.h5d.COMPACT)
    return dcpl


def checkpoint():
    # CheckpointFuzzer.cpp's fixture: kMeta, 4 parameters, 2 buffer values,
    # 4 optimizer state values, batch 8, seed 4, one rank; what
    # Checkpointer::write makes for it (nlohmann sorts keys), less the CRC.
    meta = '{"model":"fuzz","param_floats":4,"buffer_floats":2,"state_slots":1}'
    h = 1469598103934665603
    for c in meta.encode():
        h = ((h ^ c) * 1099511628211) % 2**64
    progress = {"comm_time_s": 0.0, "elapsed_s": 1.5, "epoch": 1, "epoch_time_s": 0.25, "last_finite_loss": None,
                "last_finite_step": 0, "loss_sum": 0.0, "lr": 0.1, "samples": 0.0, "step": 3, "step_in_epoch": 3,
                "target_epoch": 0, "target_met": False, "target_time_s": 0.0, "train_time_s": 0.75}

    def rank_file(progress):
        head = {"epochs": 1, "metadata_hash": "%016x" % h, "model": "fuzz", "per_rank_batch": 8,
                "progress": progress, "rank": 0, "ranks": 1, "seed": 4, "sync": "allreduce"}
        text = json.dumps(head, sort_keys=True, separators=(",", ":")).encode()
        arenas = b""
        for values in ([0.5, -1, 2, 0], [0, 1], [0.25] * 4):
            arenas += struct.pack("<Q", len(values)) + struct.pack("<%df" % len(values), *values)
        return b"DXCKPT01" + struct.pack("<Q", len(text)) + text + arenas

    put("checkpoint", "rank-0000.ckpt-less-crc", rank_file(progress))
    put("checkpoint", "rank-0000-target-met.ckpt-less-crc",
        rank_file(dict(progress, last_finite_loss=0.693, last_finite_step=3, target_met=True, target_epoch=1)))
    done = {"epoch": 1, "model": "fuzz", "ranks": 1, "step": 3, "step_in_epoch": 3}
    put("checkpoint", "DONE", (json.dumps(done, sort_keys=True, separators=(",", ":")) + "\n").encode())


def weights():
    # WeightsFuzzer.cpp's fixture: what save_weights writes for it (index.json
    # as nlohmann's dump(2), and the NPY file of its first tensor, which the
    # inputs not starting with '{' replace), and the same tensor in the other
    # forms to_floats takes.
    tensors = [("dense_1.weight", "param", [2, 3]), ("dense_1.bias", "param", [2]),
               ("bn.running_mean", "buffer", [2]), ("bn.running_var", "buffer", [2])]
    index = {"format": "deepex-weights", "version": 1, "model": "fuzz",
             "tensors": [{"name": n, "kind": k, "shape": s, "dtype": "float32", "file": n + ".npy"}
                         for n, k, s in tensors]}
    put("weights", "index.json", (json.dumps(index, indent=2) + "\n").encode())
    # tools/weights/dx_weights.py writes the tensors in another order, compactly.
    index["tensors"].reverse()
    put("weights", "index-reordered-compact.json", json.dumps(index, separators=(",", ":")).encode())
    w = np.array([[0.5, -0.25, 1], [2, -3, 0.125]], dtype="<f4")
    put("weights", "dense_1.weight.npy", npy_bytes(w))
    put("weights", "dense_1.weight-f8.npy", npy_bytes(w.astype("<f8")))
    put("weights", "dense_1.weight-i2.npy", npy_bytes(np.array([[1, -2, 3], [4, 5, -6]], dtype="<i2")))
    put("weights", "dense_1.weight-v2.npy", npy_bytes(w, version=(2, 0)))


# The metadata of these examples (the datasets' kinds, labels per pixel,
# continuous targets, several outputs, batch norm's buffers, the optimizers
# and schedules); make_metadata_variants() adds what they leave out.
METADATA_EXAMPLES = {
    "fashion-mnist-mlp": "examples/fashion-mnist/mlp.dx",
    "fashion-mnist-cnn": "examples/fashion-mnist/cnn.dx",
    "protein-folding-cvae": "examples/protein-folding/cvae.dx",
    "cosmoflow": "examples/cosmoflow/cosmoflow.dx",
    "microscopy-atomfind": "examples/microscopy/atomfind.dx",
}


def compiled_metadata(dxc, source):
    """dx_model_metadata of a compiled .dx file: the string constant of --emit=llvm."""
    ll = subprocess.run([str(dxc), "compile", source, "--emit=llvm", "-o", "-"], cwd=REPO, check=True,
                        stdout=subprocess.PIPE).stdout.decode()
    m = re.search(r'@dx_model_metadata = .*?constant \[\d+ x i8\] c"([^"]*)"', ll)
    if not m:
        sys.exit(f"make_seeds: no dx_model_metadata in dxc's --emit=llvm of {source}")
    text = re.sub(rb"\\([0-9A-Fa-f]{2})", lambda g: bytes([int(g.group(1), 16)]), m.group(1).encode())
    return text.rstrip(b"\0")


def metadata():
    dxc = REPO / "build" / "compiler" / "dxc"
    if not dxc.exists():
        print(f"make_seeds: {dxc} not built: the metadata seeds are left as they are", file=sys.stderr)
        return
    for name, source in METADATA_EXAMPLES.items():
        text = compiled_metadata(dxc, source)
        json.loads(text)
        put("metadata", name + ".json", text)
    mlp = json.loads((ROOT / "metadata" / "fashion-mnist-mlp.json").read_bytes())
    compact = lambda j: json.dumps(j, separators=(",", ":")).encode()
    # bf16, a csv dataset (header, label column), average sync, a step schedule.
    v = json.loads(json.dumps(mlp))
    v["train"].update(precision="bf16", sync="average", average_every=4)
    v["dataset"].update(format="csv", train=["train.csv"], test=["test.csv"], header=True, label_column=0,
                        mean=0.5, std=0.25, transform="log1p")
    v["schedule"] = {"kind": "step", "every": 2, "gamma": 0.5, "warmup_epochs": 0.5}
    v["optimizer"] = {"kind": "lars", "lr": 0.1, "momentum": 0.9, "weight_decay": 0.0001, "trust": 0.001}
    put("metadata", "variant-bf16-csv-average.json", compact(v))
    # A folder of images (per-channel mean and std, augmentations), exponential schedule.
    v = json.loads(json.dumps(mlp))
    v["input"] = {"floats": 2352, "name": "x", "shape": [3, 28, 28]}
    v["layers"][0]["output"] = [2352]
    v["dataset"].update(format="folder", train=["images/train"], test=["images/val"], sample=[3, 28, 28],
                        mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225],
                        augment=["random_resized_crop", "flip"])
    v["schedule"] = {"kind": "exponential", "gamma": 0.9}
    put("metadata", "variant-folder-augment.json", compact(v))
    # The least a model object's metadata holds: no train block, no dataset.
    put("metadata", "minimal.json", compact({
        "format": 2, "model": "m", "input": {"name": "x", "shape": [2]}, "outputs": [{"name": "y", "shape": [1]}],
        "param_floats": 3, "params": [{"name": "w", "shape": [1, 2], "offset": 0, "size": 2, "init": "zeros"},
                                      {"name": "b", "shape": [1], "offset": 2, "size": 1, "init": "ones"}]}))


def log():
    # compiler/report/test/Inputs/**/*.jsonl are added by run.sh; these add
    # the fields those leave out.
    lines = [
        {"event": "start", "model": "seg", "ranks": 2, "per_rank_batch": 4, "epochs": 2, "target": "cpu",
         "params": 10, "train_samples": 64, "test_samples": 8, "seed": 3, "lr": 0.01, "optimizer": "adamw",
         "schedule": "cosine", "dataset": "d", "synthetic": True, "source": "s.dx", "sync": "average",
         "average_every": 4, "grad_bytes": 40, "lr_scaling": "linear", "max_steps": 0, "time": "2024-01-01T00:00:00Z",
         "goal": {"metric": "iou", "op": ">=", "value": 0.5}},
        {"event": "step", "step": 1, "loss": 0.9, "lr": 0.01},
        {"event": "epoch", "epoch": 1, "steps": 8, "epoch_time_s": 2.0, "comm_time_s": 0.5, "train_loss": 0.8,
         "val_iou": 0.4, "val_mae": 0.1, "val_rmse": 0.2, "val_r2": 0.3, "val_loss": None},
        {"event": "stop", "reason": "signal"},
        {"event": "resume", "epoch": 1},
        {"event": "epoch", "epoch": 2, "steps": 8, "epoch_time_s": 2.5, "samples_per_s": 25.6, "val_iou": 0.55},
        {"event": "target", "epoch": 2, "metric": "iou", "value": 0.55},
        {"event": "error", "error": "non_finite_loss"},
        {"event": "end"},
    ]
    put("log", "average-resume-target.jsonl", "".join(json.dumps(l) + "\n" for l in lines).encode())
    put("log", "global-batch-only.jsonl",
        b'{"event":"start","model":"m","ranks":3,"global_batch":10,"lr_scaling":true}\n'
        b'{"event":"epoch","epoch":1,"steps":2,"epoch_time_s":1e-9,"train_time_s":0}\r\n')


# The largest seed of each reader (the -max_len run.sh gives its harness).
MAX_SEED = {"metadata": 16384}


def main():
    makers = (npy, idx, csv, image, hdf5, checkpoint, metadata, weights, log)
    for make in makers:
        make()
    big = [p for m in makers for p in (ROOT / m.__name__).iterdir()
           if p.stat().st_size > MAX_SEED.get(m.__name__, 4096)]
    if big:
        sys.exit("seeds over their limit (4 KB, metadata 16 KB): " + ", ".join(str(p) for p in big))


if __name__ == "__main__":
    main()
