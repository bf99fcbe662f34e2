#!/usr/bin/env bash
# Runs the whole test suite: the lit suite (parser, AST, shapes, diagnostics,
# MLIRGen, autodiff, lowering, gradient checks, examples, end to end), the
# runtime's unit tests, and a bounded fuzzing run of the front end and of the
# readers of untrusted files (fuzz/README.md).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh build
# Debian's python3 runs lit: its psutil (python3-psutil) lets lit end a test
# that hangs (lit.cfg.py: 1200 s per test).
/usr/bin/python3 /usr/lib/llvm-19/build/utils/lit/lit.py -sv -Dbuild_dir=build compiler test tools
ctest --test-dir build --output-on-failure
bash fuzz/run.sh "${DX_FUZZ_SECONDS:-60}"
