// dx-split-reductions computes what the unsplit reductions compute: the
// statistics of a [3 (dynamic), 5, 29, 31] tensor of small integers (sums
// exact in f32, so any order gives the same bits) over n, h, w, run on the
// CPU unsplit and split in several ways: K dividing nothing (R = 2697),
// K > R (dynamic-extent=1000: 8192 partials, most of them empty), few
// threads (target-threads=7), chains of stages (min-extent=2).
// RUN: dx-opt --pass-pipeline='builtin.module(one-shot-bufferize{bufferize-function-boundaries=1 function-boundary-type-conversion=identity-layout-map}, canonicalize, cse, buffer-deallocation-pipeline, convert-bufferization-to-memref, convert-linalg-to-loops, lower-affine, convert-scf-to-cf, expand-strided-metadata, lower-affine, finalize-memref-to-llvm, convert-arith-to-llvm, convert-index-to-llvm, convert-func-to-llvm, convert-cf-to-llvm, reconcile-unrealized-casts)' %s | mlir-cpu-runner -e main -entry-point-result=void -shared-libs=/usr/lib/llvm-19/lib/libmlir_runner_utils.so,/usr/lib/llvm-19/lib/libmlir_c_runner_utils.so | FileCheck %s
// RUN: dx-opt --pass-pipeline='builtin.module(dx-split-reductions{min-extent=2}, one-shot-bufferize{bufferize-function-boundaries=1 function-boundary-type-conversion=identity-layout-map}, canonicalize, cse, buffer-deallocation-pipeline, convert-bufferization-to-memref, convert-linalg-to-loops, lower-affine, convert-scf-to-cf, expand-strided-metadata, lower-affine, finalize-memref-to-llvm, convert-arith-to-llvm, convert-index-to-llvm, convert-func-to-llvm, convert-cf-to-llvm, reconcile-unrealized-casts)' %s | mlir-cpu-runner -e main -entry-point-result=void -shared-libs=/usr/lib/llvm-19/lib/libmlir_runner_utils.so,/usr/lib/llvm-19/lib/libmlir_c_runner_utils.so | FileCheck %s
// RUN: dx-opt --pass-pipeline='builtin.module(dx-split-reductions{min-extent=2 dynamic-extent=1000}, one-shot-bufferize{bufferize-function-boundaries=1 function-boundary-type-conversion=identity-layout-map}, canonicalize, cse, buffer-deallocation-pipeline, convert-bufferization-to-memref, convert-linalg-to-loops, lower-affine, convert-scf-to-cf, expand-strided-metadata, lower-affine, finalize-memref-to-llvm, convert-arith-to-llvm, convert-index-to-llvm, convert-func-to-llvm, convert-cf-to-llvm, reconcile-unrealized-casts)' %s | mlir-cpu-runner -e main -entry-point-result=void -shared-libs=/usr/lib/llvm-19/lib/libmlir_runner_utils.so,/usr/lib/llvm-19/lib/libmlir_c_runner_utils.so | FileCheck %s
// RUN: dx-opt --pass-pipeline='builtin.module(dx-split-reductions{min-extent=2 target-threads=7}, one-shot-bufferize{bufferize-function-boundaries=1 function-boundary-type-conversion=identity-layout-map}, canonicalize, cse, buffer-deallocation-pipeline, convert-bufferization-to-memref, convert-linalg-to-loops, lower-affine, convert-scf-to-cf, expand-strided-metadata, lower-affine, finalize-memref-to-llvm, convert-arith-to-llvm, convert-index-to-llvm, convert-func-to-llvm, convert-cf-to-llvm, reconcile-unrealized-casts)' %s | mlir-cpu-runner -e main -entry-point-result=void -shared-libs=/usr/lib/llvm-19/lib/libmlir_runner_utils.so,/usr/lib/llvm-19/lib/libmlir_c_runner_utils.so | FileCheck %s
// RUN: dx-opt --pass-pipeline='builtin.module(dx-split-reductions{min-extent=100 dynamic-extent=3}, one-shot-bufferize{bufferize-function-boundaries=1 function-boundary-type-conversion=identity-layout-map}, canonicalize, cse, buffer-deallocation-pipeline, convert-bufferization-to-memref, convert-linalg-to-loops, lower-affine, convert-scf-to-cf, expand-strided-metadata, lower-affine, finalize-memref-to-llvm, convert-arith-to-llvm, convert-index-to-llvm, convert-func-to-llvm, convert-cf-to-llvm, reconcile-unrealized-casts)' %s | mlir-cpu-runner -e main -entry-point-result=void -shared-libs=/usr/lib/llvm-19/lib/libmlir_runner_utils.so,/usr/lib/llvm-19/lib/libmlir_c_runner_utils.so | FileCheck %s
// RUN: dx-opt --dx-split-reductions='min-extent=2 dynamic-extent=1000' %s | FileCheck %s --check-prefix=SPLIT

// The sum, a sum of squares reading the sum and the w index, a maximum
// reading the h index: per channel.
// CHECK: [1,  -7,  7,  -1,  2]
// CHECK: [849278,  849938,  849518,  849338,  849585]
// CHECK: [33,  33,  33,  33,  33]
// SPLIT-LABEL: func.func @stats(
// SPLIT: tensor.empty() : tensor<5x8192xf32>
// SPLIT: tensor.empty() : tensor<5x8192xf32>
// SPLIT: tensor.empty() : tensor<5x8192xf32>

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d1)>
func.func private @printMemrefF32(tensor<*xf32>)
func.func @stats(%x: tensor<?x5x29x31xf32>) -> (tensor<5xf32>, tensor<5xf32>, tensor<5xf32>) {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<5xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<5xf32>) -> tensor<5xf32>
  %ni = linalg.fill ins(%ninf : f32) outs(%e : tensor<5xf32>) -> tensor<5xf32>
  %sum = linalg.generic {indexing_maps = [#id, #ch], iterator_types = ["reduction", "parallel", "reduction", "reduction"]}
      ins(%x : tensor<?x5x29x31xf32>) outs(%z : tensor<5xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %out, %in : f32
    linalg.yield %s : f32
  } -> tensor<5xf32>
  // sum of (x - sum)^2 * (w index + 1): a kept input and a linalg.index of a reduction dim
  %sq = linalg.generic {indexing_maps = [#id, #ch, #ch], iterator_types = ["reduction", "parallel", "reduction", "reduction"]}
      ins(%x, %sum : tensor<?x5x29x31xf32>, tensor<5xf32>) outs(%z : tensor<5xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %w = linalg.index 3 : index
    %wi = arith.index_cast %w : index to i32
    %wf = arith.sitofp %wi : i32 to f32
    %d = arith.subf %in, %wf : f32
    %q = arith.mulf %d, %d : f32
    %s = arith.addf %out, %q : f32
    linalg.yield %s : f32
  } -> tensor<5xf32>
  %mx = linalg.generic {indexing_maps = [#id, #ch], iterator_types = ["reduction", "parallel", "reduction", "reduction"]}
      ins(%x : tensor<?x5x29x31xf32>) outs(%ni : tensor<5xf32>) {
  ^bb0(%in: f32, %out: f32):
    %h = linalg.index 2 : index
    %hi = arith.index_cast %h : index to i32
    %hf = arith.sitofp %hi : i32 to f32
    %v = arith.addf %in, %hf : f32
    %s = arith.maximumf %out, %v : f32
    linalg.yield %s : f32
  } -> tensor<5xf32>
  return %sum, %sq, %mx : tensor<5xf32>, tensor<5xf32>, tensor<5xf32>
}
func.func @main() {
  %e = tensor.empty() : tensor<3x5x29x31xf32>
  %x = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%e : tensor<3x5x29x31xf32>) {
  ^bb0(%out: f32):
    %n = linalg.index 0 : index
    %c = linalg.index 1 : index
    %h = linalg.index 2 : index
    %w = linalg.index 3 : index
    %c31 = arith.constant 31 : index
    %c7 = arith.constant 7 : index
    %c3 = arith.constant 3 : index
    %c11 = arith.constant 11 : index
    %a = arith.muli %n, %c31 : index
    %b = arith.muli %c, %c7 : index
    %d = arith.muli %h, %c3 : index
    %s1 = arith.addi %a, %b : index
    %s2 = arith.addi %s1, %d : index
    %s3 = arith.addi %s2, %w : index
    %r = arith.remui %s3, %c11 : index
    %ri = arith.index_cast %r : index to i32
    %f = arith.sitofp %ri : i32 to f32
    %c5 = arith.constant 5.0 : f32
    %v = arith.subf %f, %c5 : f32
    linalg.yield %v : f32
  } -> tensor<3x5x29x31xf32>
  %xd = tensor.cast %x : tensor<3x5x29x31xf32> to tensor<?x5x29x31xf32>
  %r:3 = call @stats(%xd) : (tensor<?x5x29x31xf32>) -> (tensor<5xf32>, tensor<5xf32>, tensor<5xf32>)
  %u0 = tensor.cast %r#0 : tensor<5xf32> to tensor<*xf32>
  %u1 = tensor.cast %r#1 : tensor<5xf32> to tensor<*xf32>
  %u2 = tensor.cast %r#2 : tensor<5xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  call @printMemrefF32(%u1) : (tensor<*xf32>) -> ()
  call @printMemrefF32(%u2) : (tensor<*xf32>) -> ()
  return
}
