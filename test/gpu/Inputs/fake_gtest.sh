#!/bin/sh
# A stand-in for dxrt_cuda_tests / dxrt_cuda_backend_tests in
# run-smoke.test: one suite, which passes.
case "$*" in
*--gtest_list_tests*) printf 'Running main() from a stand-in\nStandIn.\n  passes\n' ;;
*) echo "[  PASSED  ] 1 test." ;;
esac
