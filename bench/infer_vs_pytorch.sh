#!/usr/bin/env bash
# The inference library (dxc compile --emit=lib) against PyTorch's
# torch.inference_mode() on the Fashion-MNIST MLP and CNN, one thread, the
# same weights (PyTorch's init, converted with tools/weights/dx_weights.py)
# and inputs: the median latency of a one-sample call and the throughput of
# 256-sample calls, interleaved rounds (DeepEx, PyTorch, DeepEx, ...). Also
# the largest difference of the two sides' outputs. A benchmark: it reports.
#   bench/infer_vs_pytorch.sh [--repeat R]
set -euo pipefail
cd "$(dirname "$0")/.."
repeat=2
[ "${1:-}" = "--repeat" ] && repeat=$2
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
py=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "machine load: $(cut -d' ' -f1-3 /proc/loadavg)"
for m in mlp cnn; do
  src=examples/fashion-mnist/$m.dx
  build/compiler/dxc compile "$src" -o "$tmp/$m.exe"
  build/compiler/dxc compile "$src" --emit=lib -o "$tmp/lib/lib$m.a"
  $py bench/infer_torch.py init $m "$tmp/$m.pt"
  $py tools/weights/dx_weights.py from-torch "$tmp/$m.pt" "$tmp/$m.w" --model "$tmp/$m.exe" > /dev/null
  cc -O2 -o "$tmp/timer_$m" bench/infer_timer.c -DMODEL_HEADER="\"$m.h\"" $(pkg-config --cflags --libs "$tmp/lib/$m.pc")
done
# Raw test images (uint8 as float32, normalised by each side as the dataset block says).
$py - "$tmp/x.f32" <<'PY'
import gzip, sys
import numpy as np
with gzip.open("/usr/share/datasets/fashion-mnist/t10k-images-idx3-ubyte.gz") as f:
    x = np.frombuffer(f.read(), np.uint8, offset=16)[:1024 * 784]
x.astype(np.float32).tofile(sys.argv[1])
PY
scale=$($py -c "print(1/255)"); mean=0.2860; std=0.3530
printf "| model | round | DeepEx 1-sample latency (us) | PyTorch (us) | ratio | DeepEx 256-batch samples/s | PyTorch | ratio (time) |\n|---|---|---|---|---|---|---|---|\n" > "$tmp/table"
for m in mlp cnn; do
  for r in $(seq 1 "$repeat"); do
    d=$("$tmp/timer_$m" "$tmp/$m.w" "$tmp/x.f32" 1024 "$tmp/d_$m.f32")
    t=$($py bench/infer_torch.py time $m "$tmp/$m.pt" "$tmp/x.f32" 1024 "$tmp/t_$m.f32" "$scale" "$mean" "$std")
    $py - "$m" "$r" "$d" "$t" >> "$tmp/table" <<'PY'
import json, sys
m, r, d, t = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), json.loads(sys.argv[4])
print(f"| {m} | {r} | {d['latency_us']:.1f} | {t['latency_us']:.1f} | {d['latency_us'] / t['latency_us']:.2f} "
      f"| {d['throughput']:,.0f} | {t['throughput']:,.0f} | {t['throughput'] / d['throughput']:.2f} |")
PY
  done
  $py -c "
import numpy as np, sys
a, b = np.fromfile('$tmp/d_$m.f32', np.float32), np.fromfile('$tmp/t_$m.f32', np.float32)
print(f'$m: outputs of the two sides: largest relative difference {np.abs(a - b).max() / np.abs(b).max():.1e}')"
done
cat "$tmp/table"
echo "ratio: DeepEx time / PyTorch time (target <= 0.5); machine load: $(cut -d' ' -f1-3 /proc/loadavg)"
