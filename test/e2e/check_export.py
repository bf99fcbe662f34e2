"""Checks the files of --export against the run: shapes, the second output
being exactly twice the first (outputs land in their own blocks), and the
accuracy of the exported test logits equal to the log's last val_accuracy.
Usage: check_export.py EXPORT_DIR LOG TRAIN_N TEST_N"""
import json, sys
import numpy as np

out, log, n_train, n_test = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
labels = np.load(sys.argv[5]) if len(sys.argv) > 5 else None
for split, n in (("train", n_train), ("test", n_test)):
    logits = np.load("%s/%s_logits.npy" % (out, split))
    doubled = np.load("%s/%s_doubled.npy" % (out, split))
    assert logits.dtype == np.float32 and logits.shape == (n, 3), (split, logits.dtype, logits.shape)
    assert doubled.shape == (n, 3), doubled.shape
    assert np.isfinite(logits).all()
    assert np.array_equal(doubled, 2 * logits), "doubled != 2 * logits in %s" % split
    print("%s: %d x 3, doubled == 2 * logits" % (split, n))
epochs = [json.loads(l) for l in open(log) if '"event": "epoch"' in l or '"event":"epoch"' in l]
val = epochs[-1]["val_accuracy"]
if labels is not None:
    acc = float((np.load("%s/test_logits.npy" % out).argmax(1) == labels).mean())
    assert abs(acc - val) < 1e-9, (acc, val)
    print("test accuracy from the exported logits %.6f == log %.6f" % (acc, val))
