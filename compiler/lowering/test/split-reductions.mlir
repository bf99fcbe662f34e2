// RUN: dx-opt --dx-split-reductions=min-extent=1024 --split-input-file %s | FileCheck %s
// RUN: dx-opt --dx-split-reductions='min-extent=1024 dynamic-extent=4096' --split-input-file %s | FileCheck %s --check-prefix=BIG
// RUN: dx-opt --dx-split-reductions --split-input-file %s | FileCheck %s --check-prefix=DEF

// dx-split-reductions (--target=cuda, linalg on tensors, before
// bufferization): a large reduction with few, static outputs becomes
//   stage 1: [outputs x K] parallel, partial k combines the elements
//            r = k, k+K, ... of the reduction space (linearised, dynamic
//            extents too; no divisibility needed) from the neutral element;
//   stage 2: the K partials of each output combined into the original init.
// K: the largest power of two <= min(65536 / outputs, max(sqrt(R), R / 32));
// split only when R (dynamic extents estimated) >= min-extent: 1024 in the
// CHECK and BIG runs; the default, 64, in the DEF run. See docs/cuda.md.

// A static sum to a scalar, R = 4096 elements, one output: K = 128 partials
// (max(sqrt(R), R/32) = 128), each summing x[k], x[k+128], ... in one thread,
// then one generic that adds the 128 partials to the init.
// CHECK-DAG: #[[ID1:.*]] = affine_map<(d0) -> (d0)>
// CHECK-DAG: #[[SCALAR:.*]] = affine_map<(d0) -> ()>
// CHECK-LABEL: func.func @sum_static(
// CHECK-SAME: %[[X:[^:]*]]: tensor<4096xf32>, %[[INIT:[^:]*]]: tensor<f32>)
// CHECK-DAG: %[[R:.*]] = arith.constant 4096 : index
// CHECK-DAG: %[[K:.*]] = arith.constant 128 : index
// CHECK: %[[E:.*]] = tensor.empty() : tensor<128xf32>
// CHECK: %[[P:.*]] = linalg.generic {indexing_maps = [#[[ID1]]], iterator_types = ["parallel"]} outs(%[[E]] : tensor<128xf32>)
// CHECK-NEXT: ^bb0(%{{.*}}: f32):
// CHECK-NEXT: %[[KI:.*]] = linalg.index 0 : index
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[S:.*]] = scf.for %[[I:.*]] = %[[KI]] to %[[R]] step %[[K]] iter_args(%[[ACC:.*]] = %[[ZERO]]) -> (f32) {
// CHECK-NEXT: %[[V:.*]] = tensor.extract %[[X]][%[[I]]] : tensor<4096xf32>
// CHECK-NEXT: %[[A:.*]] = arith.addf %[[ACC]], %[[V]] fastmath<reassoc> : f32
// CHECK-NEXT: scf.yield %[[A]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: linalg.yield %[[S]] : f32
// CHECK: %[[OUT:.*]] = linalg.generic {indexing_maps = [#[[ID1]], #[[SCALAR]]], iterator_types = ["reduction"]} ins(%[[P]] : tensor<128xf32>) outs(%[[INIT]] : tensor<f32>)
// CHECK-NEXT: ^bb0(%[[IN:.*]]: f32, %[[O:.*]]: f32):
// CHECK-NEXT: %[[C:.*]] = arith.addf %[[O]], %[[IN]] fastmath<reassoc> : f32
// CHECK-NEXT: linalg.yield %[[C]] : f32
// CHECK: return %[[OUT]]
func.func @sum_static(%x: tensor<4096xf32>, %init: tensor<f32>) -> tensor<f32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]}
      ins(%x : tensor<4096xf32>) outs(%init : tensor<f32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %out, %in fastmath<reassoc> : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %r : tensor<f32>
}

// -----

// Batch-norm variance over n (dynamic), h, w of [?, 32, 28, 28]: 32 outputs,
// R = B*784 (B estimated as 64: 50,176): K = 1024 (32K threads); r is
// linearised in loop order (w fastest) and split back into n, h, w. The
// mean, indexed by the channel only, stays an operand. The 1024 partials per
// channel qualify again: K = 32, then 32 per channel into the fill.
// CHECK-DAG: #[[CH:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-DAG: #[[ID2:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @batchnorm_var(
// CHECK-SAME: %[[X:[^:]*]]: tensor<?x32x28x28xf32>, %[[MEAN:[^:]*]]: tensor<32xf32>)
// CHECK: %[[FILL:.*]] = linalg.fill
// CHECK: %[[B:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x32x28x28xf32>
// CHECK: %[[BH:.*]] = arith.muli %[[B]], %[[H:.*]] : index
// CHECK: %[[R:.*]] = arith.muli %[[BH]], %[[W:.*]] : index
// CHECK: %[[K:.*]] = arith.constant 1024 : index
// CHECK: %[[E:.*]] = tensor.empty() : tensor<32x1024xf32>
// CHECK: %[[P:.*]] = linalg.generic {indexing_maps = [#[[CH]], #[[ID2]]], iterator_types = ["parallel", "parallel"]} ins(%[[MEAN]] : tensor<32xf32>) outs(%[[E]] : tensor<32x1024xf32>)
// CHECK-NEXT: ^bb0(%[[M:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[C:.*]] = linalg.index 0 : index
// CHECK-NEXT: %[[KI:.*]] = linalg.index 1 : index
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: scf.for %[[I:.*]] = %[[KI]] to %[[R]] step %[[K]] iter_args(%[[ACC:.*]] = %[[ZERO]]) -> (f32) {
// CHECK-NEXT: %[[WI:.*]] = arith.remui %[[I]], %[[W]] : index
// CHECK-NEXT: %[[NH:.*]] = arith.divui %[[I]], %[[W]] : index
// CHECK-NEXT: %[[HI:.*]] = arith.remui %[[NH]], %[[H]] : index
// CHECK-NEXT: %[[NI:.*]] = arith.divui %[[NH]], %[[H]] : index
// CHECK-NEXT: %[[V:.*]] = tensor.extract %[[X]][%[[NI]], %[[C]], %[[HI]], %[[WI]]] : tensor<?x32x28x28xf32>
// CHECK-NEXT: %[[D:.*]] = arith.subf %[[V]], %[[M]] : f32
// CHECK-NEXT: %[[SQ:.*]] = arith.mulf %[[D]], %[[D]] : f32
// CHECK-NEXT: arith.addf %[[ACC]], %[[SQ]] fastmath<reassoc> : f32
// CHECK: %[[E2:.*]] = tensor.empty() : tensor<32x32xf32>
// CHECK: %[[P2:.*]] = linalg.generic {indexing_maps = [#[[ID2]]], iterator_types = ["parallel", "parallel"]} outs(%[[E2]] : tensor<32x32xf32>)
// CHECK: scf.for
// CHECK-NEXT: tensor.extract %[[P]][%{{.*}}, %{{.*}}] : tensor<32x1024xf32>
// CHECK: %[[OUT:.*]] = linalg.generic {indexing_maps = [#[[ID2]], #[[CH]]], iterator_types = ["parallel", "reduction"]} ins(%[[P2]] : tensor<32x32xf32>) outs(%[[FILL]] : tensor<32xf32>)
// CHECK: return %[[OUT]]
func.func @batchnorm_var(%x: tensor<?x32x28x28xf32>, %mean: tensor<32xf32>) -> tensor<32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<32xf32>) -> tensor<32xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d1)>, affine_map<(d0, d1, d2, d3) -> (d1)>], iterator_types = ["reduction", "parallel", "reduction", "reduction"]}
      ins(%x, %mean : tensor<?x32x28x28xf32>, tensor<32xf32>) outs(%init : tensor<32xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    %sq = arith.mulf %d, %d : f32
    %s = arith.addf %out, %sq fastmath<reassoc> : f32
    linalg.yield %s : f32
  } -> tensor<32xf32>
  return %r : tensor<32xf32>
}

// -----

// A bias gradient, [4096, 64] summed over the rows: the rows are contiguous
// along the features, so the partials' index k is the OUTER thread index
// (partials [K, 64]: neighbouring threads read neighbouring features).
// K = min(65536 / 64, 4096 / 32) = 128.
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[T:.*]] = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-DAG: #[[F:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @bias_grad(
// CHECK-SAME: %[[X:[^:]*]]: tensor<4096x64xf32>, %[[INIT:[^:]*]]: tensor<64xf32>)
// CHECK: %[[E:.*]] = tensor.empty() : tensor<128x64xf32>
// CHECK: %[[P:.*]] = linalg.generic {indexing_maps = [#[[ID]]], iterator_types = ["parallel", "parallel"]} outs(%[[E]] : tensor<128x64xf32>)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: %[[FI:.*]] = linalg.index 1 : index
// CHECK-NEXT: %[[KI:.*]] = linalg.index 0 : index
// CHECK: scf.for %[[I:.*]] = %[[KI]] to %{{.*}} step %{{.*}} iter_args
// CHECK-NEXT: tensor.extract %[[X]][%[[I]], %[[FI]]] : tensor<4096x64xf32>
// CHECK: linalg.generic {indexing_maps = [#[[T]], #[[F]]], iterator_types = ["parallel", "reduction"]} ins(%[[P]] : tensor<128x64xf32>) outs(%[[INIT]] : tensor<64xf32>)
func.func @bias_grad(%x: tensor<4096x64xf32>, %init: tensor<64xf32>) -> tensor<64xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]}
      ins(%x : tensor<4096x64xf32>) outs(%init : tensor<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %out, %in : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  return %r : tensor<64xf32>
}

// -----

// A maximum: the partials start at -inf (maximumf's neutral element), and
// the partials are combined with maximumf.
// CHECK-LABEL: func.func @row_max(
// CHECK: tensor.empty() : tensor<8x64xf32>
// CHECK: %[[NEG:.*]] = arith.constant 0xFF800000 : f32
// CHECK-NEXT: scf.for %{{.*}} iter_args(%[[ACC:.*]] = %[[NEG]])
// CHECK-NEXT: %[[V:.*]] = tensor.extract
// CHECK-NEXT: arith.maximumf %[[V]], %[[ACC]] : f32
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%{{.*}} : tensor<8x64xf32>)
// CHECK-NEXT: ^bb0(%[[IN:.*]]: f32, %[[O:.*]]: f32):
// CHECK-NEXT: arith.maximumf %[[IN]], %[[O]] : f32
func.func @row_max(%x: tensor<8x2048xf32>, %init: tensor<8xf32>) -> tensor<8xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<8x2048xf32>) outs(%init : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.maximumf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

// Two outputs (a sum and a minimum, +inf neutral) split together; a
// linalg.index of the reduction dimension becomes the loop's element index.
// CHECK-LABEL: func.func @index_and_two_outputs(
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel"]} outs(%{{.*}}, %{{.*}} : tensor<256xf32>, tensor<256xf32>)
// CHECK-DAG: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG: %[[INF:.*]] = arith.constant 0x7F800000 : f32
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[S:.*]] = %[[Z]], %[[M:.*]] = %[[INF]]) -> (f32, f32)
// CHECK-NEXT: %[[V:.*]] = tensor.extract %{{.*}}[%[[I]]]
// CHECK-NEXT: arith.index_cast %[[I]] : index to i64
// CHECK: arith.addf %[[S]],
// CHECK-NEXT: arith.minimumf %[[M]], %[[V]]
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction"]} ins(%{{.*}}, %{{.*}} : tensor<256xf32>, tensor<256xf32>) outs(%{{.*}}, %{{.*}} : tensor<f32>, tensor<f32>)
// CHECK-NEXT: ^bb0(%[[I0:.*]]: f32, %[[I1:.*]]: f32, %[[O0:.*]]: f32, %[[O1:.*]]: f32):
// CHECK-NEXT: arith.addf %[[O0]], %[[I0]]
// CHECK-NEXT: arith.minimumf %[[O1]], %[[I1]]
func.func @index_and_two_outputs(%x: tensor<8192xf32>, %s0: tensor<f32>, %m0: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  %r:2 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]}
      ins(%x : tensor<8192xf32>) outs(%s0, %m0 : tensor<f32>, tensor<f32>) {
  ^bb0(%in: f32, %s: f32, %m: f32):
    %i = linalg.index 0 : index
    %ii = arith.index_cast %i : index to i64
    %f = arith.uitofp %ii : i64 to f32
    %p = arith.mulf %in, %f : f32
    %ns = arith.addf %s, %p : f32
    %nm = arith.minimumf %m, %in : f32
    linalg.yield %ns, %nm : f32, f32
  } -> (tensor<f32>, tensor<f32>)
  return %r#0, %r#1 : tensor<f32>, tensor<f32>
}

// -----

// A loss summed over the batch (dynamic) into a scalar: by default the batch
// is estimated as 64 (no train block here), under min-extent: left alone.
// With dynamic-extent=4096: K = 128, the loop runs to the batch. At the
// default min-extent (64) it is split, K = max(sqrt(64), 64 / 32) = 8.
// DEF-LABEL: func.func @loss_dynamic(
// DEF: %[[K:.*]] = arith.constant 8 : index
// DEF: tensor.empty() : tensor<8xf32>
// DEF: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %[[K]]
// DEF: linalg.generic {{.*}} iterator_types = ["reduction"]} ins(%{{.*}} : tensor<8xf32>)
// CHECK-LABEL: func.func @loss_dynamic(
// CHECK-NOT: scf.for
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction"]} ins(%{{.*}} : tensor<?xf32>)
// CHECK-NOT: scf.for
// BIG-LABEL: func.func @loss_dynamic(
// BIG-SAME: %[[X:[^:]*]]: tensor<?xf32>
// BIG: %[[B:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?xf32>
// BIG: %[[K:.*]] = arith.constant 128 : index
// BIG: tensor.empty() : tensor<128xf32>
// BIG: scf.for %[[I:.*]] = %{{.*}} to %[[B]] step %[[K]]
// BIG-NEXT: %[[V:.*]] = tensor.extract %[[X]][%[[I]]] : tensor<?xf32>
// BIG-NEXT: math.log %[[V]]
// BIG: linalg.generic {{.*}} iterator_types = ["reduction"]} ins(%{{.*}} : tensor<128xf32>)
func.func @loss_dynamic(%x: tensor<?xf32>, %init: tensor<f32>) -> tensor<f32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]}
      ins(%x : tensor<?xf32>) outs(%init : tensor<f32>) {
  ^bb0(%in: f32, %out: f32):
    %l = math.log %in : f32
    %s = arith.addf %out, %l : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %r : tensor<f32>
}

// -----

// The dynamic extent defaults to the train block's batch per rank
// (dx.metadata): 2048 here, so a bias gradient over the batch qualifies:
// K = min(65536 / 10, 2048 / 32) = 64.
// CHECK-LABEL: func.func @bias_grad_batch(
// CHECK: tensor.empty() : tensor<64x10xf32>
// CHECK: scf.for
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%{{.*}} : tensor<64x10xf32>)
module attributes {dx.metadata = "{\22train\22:{\22batch_per_rank\22:2048}}"} {
  func.func @bias_grad_batch(%x: tensor<?x10xf32>, %init: tensor<10xf32>) -> tensor<10xf32> {
    %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]}
        ins(%x : tensor<?x10xf32>) outs(%init : tensor<10xf32>) {
    ^bb0(%in: f32, %out: f32):
      %s = arith.addf %out, %in : f32
      linalg.yield %s : f32
    } -> tensor<10xf32>
    return %r : tensor<10xf32>
  }
}

// -----

// Left alone: a small reduction (10 per output), one with dynamic outputs
// (rows of a batch: as many threads as rows), and one whose output is not
// only combined (out * 0.9 + x: not a reduction with a neutral element).
// CHECK-LABEL: func.func @left_alone(
// CHECK-NOT: scf.for
// CHECK-NOT: tensor.empty
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%{{.*}} : tensor<16x10xf32>)
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%{{.*}} : tensor<?x4096xf32>)
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction"]} ins(%{{.*}} : tensor<8192xf32>)
// CHECK-NOT: linalg.generic
func.func @left_alone(%a: tensor<16x10xf32>, %ia: tensor<16xf32>, %b: tensor<?x4096xf32>, %ib: tensor<?xf32>,
                      %c: tensor<8192xf32>, %ic: tensor<f32>) -> (tensor<16xf32>, tensor<?xf32>, tensor<f32>) {
  %ra = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%a : tensor<16x10xf32>) outs(%ia : tensor<16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %out, %in : f32
    linalg.yield %s : f32
  } -> tensor<16xf32>
  %rb = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%b : tensor<?x4096xf32>) outs(%ib : tensor<?xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %out, %in : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  %rc = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]}
      ins(%c : tensor<8192xf32>) outs(%ic : tensor<f32>) {
  ^bb0(%in: f32, %out: f32):
    %k = arith.constant 0.9 : f32
    %d = arith.mulf %out, %k : f32
    %s = arith.addf %d, %in : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %ra, %rb, %rc : tensor<16xf32>, tensor<?xf32>, tensor<f32>
}
