// RUN: dx-opt --dx-fuse-pool-input --cse --split-input-file %s | FileCheck %s

// A batch norm's normalisation and relu that only a pooling and its
// gradient read: both calls go to the _pre kernels on x, with the scale and
// shift from a generic over the channels (the body's own ops) and relu = 1;
// the full-size map is gone.
#map = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
#map1 = affine_map<(d0, d1, d2, d3, d4) -> (d1, d4)>
func.func private @dxrt_pool_forward_blocked(memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>, memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>, i64, i64, i64, i64, i64, i64, i64, i64, i64) attributes {llvm.emit_c_interface}
func.func private @dxrt_pool_grad_blocked(memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>, memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>, memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>, i64, i64, i64, i64, i64, i64, i64, i64, i64) attributes {llvm.emit_c_interface}
// CHECK-LABEL: func.func @bn_relu_pool
// CHECK-SAME: (%[[X:.*]]: tensor<2x2x4x4x16xf32>, %[[VAR:.*]]: tensor<2x16xf32>, %[[G:.*]]: tensor<2x16xf32>, %[[MEAN:.*]]: tensor<2x16xf32>, %[[B:.*]]: tensor<2x16xf32>, %[[DY:.*]]: memref
// CHECK: %[[ST:.*]]:2 = linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]} ins(%[[VAR]], %[[G]], %[[MEAN]], %[[B]] : {{.*}}) outs({{.*}}) {
// CHECK: math.sqrt
// CHECK: linalg.yield %[[S:.*]], %[[T:.*]] : f32, f32
// CHECK: } -> (tensor<2x16xf32>, tensor<2x16xf32>)
// CHECK-NOT: linalg.generic
// CHECK: %[[XM:.*]] = bufferization.to_memref %[[X]] read_only
// CHECK: %[[XC:.*]] = memref.cast %[[XM]]
// CHECK: %[[SM:.*]] = bufferization.to_memref %[[ST]]#0 read_only
// CHECK: %[[SC:.*]] = memref.cast %[[SM]] : {{.*}} to memref<?x?xf32, strided<[?, ?], offset: ?>>
// CHECK: %[[TM:.*]] = bufferization.to_memref %[[ST]]#1 read_only
// CHECK: %[[TC:.*]] = memref.cast %[[TM]]
// CHECK: call @dxrt_pool_forward_blocked_pre(%[[XC]], %[[SC]], %[[TC]], %{{.*}}, %c0_i64, %c2_i64, %c2_i64, %c2_i64, %c2_i64, %c0_i64, %c0_i64, %c0_i64, %c0_i64, %c1_i64)
// CHECK: call @dxrt_pool_grad_blocked_pre(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %c0_i64, {{.*}}, %c1_i64)
// CHECK-NOT: call @dxrt_pool_forward_blocked(
// CHECK-NOT: call @dxrt_pool_grad_blocked(
// CHECK: func.func private @dxrt_pool_forward_blocked_pre(memref<?x?x?x?x?xf32, {{.*}}>, memref<?x?xf32, {{.*}}>, memref<?x?xf32, {{.*}}>, memref<?x?x?x?x?xf32, {{.*}}>, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64)
func.func @bn_relu_pool(%x: tensor<2x2x4x4x16xf32>, %var: tensor<2x16xf32>, %gamma: tensor<2x16xf32>, %mean: tensor<2x16xf32>, %beta: tensor<2x16xf32>, %dy: memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>, %y: memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>, %dx: memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>) {
  %eps = arith.constant 1.0e-05 : f32
  %one = arith.constant 1.0 : f32
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : i64
  %c2 = arith.constant 2 : i64
  %e = tensor.empty() : tensor<2x2x4x4x16xf32>
  %r = linalg.generic {indexing_maps = [#map, #map1, #map1, #map1, #map1, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%x, %var, %gamma, %mean, %beta : tensor<2x2x4x4x16xf32>, tensor<2x16xf32>, tensor<2x16xf32>, tensor<2x16xf32>, tensor<2x16xf32>) outs(%e : tensor<2x2x4x4x16xf32>) {
  ^bb0(%in: f32, %v: f32, %g: f32, %m: f32, %b: f32, %out: f32):
    %0 = arith.addf %v, %eps : f32
    %1 = math.sqrt %0 : f32
    %2 = arith.divf %one, %1 : f32
    %3 = arith.mulf %2, %g : f32
    %4 = arith.mulf %m, %3 : f32
    %5 = arith.subf %b, %4 : f32
    %6 = arith.mulf %in, %3 : f32
    %7 = arith.addf %6, %5 : f32
    %8 = arith.maximumf %7, %zero : f32
    linalg.yield %8 : f32
  } -> tensor<2x2x4x4x16xf32>
  %m0 = bufferization.to_memref %r read_only {dx.kernel_arg = 1 : i64} : memref<2x2x4x4x16xf32, strided<[?, ?, ?, ?, ?], offset: ?>>
  %a0 = memref.cast %m0 : memref<2x2x4x4x16xf32, strided<[?, ?, ?, ?, ?], offset: ?>> to memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>
  call @dxrt_pool_forward_blocked(%a0, %y, %c0, %c2, %c2, %c2, %c2, %c0, %c0, %c0, %c0) : (memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>, memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>, i64, i64, i64, i64, i64, i64, i64, i64, i64) -> ()
  %m1 = bufferization.to_memref %r read_only {dx.kernel_arg = 2 : i64} : memref<2x2x4x4x16xf32, strided<[?, ?, ?, ?, ?], offset: ?>>
  %a1 = memref.cast %m1 : memref<2x2x4x4x16xf32, strided<[?, ?, ?, ?, ?], offset: ?>> to memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>
  call @dxrt_pool_grad_blocked(%dy, %a1, %dx, %c0, %c2, %c2, %c2, %c2, %c0, %c0, %c0, %c0) : (memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>, memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>, memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>, i64, i64, i64, i64, i64, i64, i64, i64, i64) -> ()
  return
}

// -----

// A relu alone (bias folded away): scale 1 and shift -0, so x * 1 + -0 is x
// bit for bit; relu = 1. An average pooling's call is rewritten the same way.
#map = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
func.func private @dxrt_pool_forward_blocked(memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>, memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>, i64, i64, i64, i64, i64, i64, i64, i64, i64) attributes {llvm.emit_c_interface}
// CHECK-LABEL: func.func @relu_pool
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]} outs({{.*}} : tensor<1x8xf32>, tensor<1x8xf32>)
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-DAG: %[[NZ:.*]] = arith.constant -0.000000e+00 : f32
// CHECK: linalg.yield %[[ONE]], %[[NZ]] : f32, f32
// CHECK: call @dxrt_pool_forward_blocked_pre({{.*}}, %c1_i64, %c3_i64, %c3_i64, %c2_i64, %c2_i64, %c1_i64, %c1_i64, %c1_i64, %c1_i64, %c1_i64)
func.func @relu_pool(%x: tensor<2x1x6x6x8xf32>, %y: memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>) {
  %zero = arith.constant 0.0 : f32
  %c1 = arith.constant 1 : i64
  %c2 = arith.constant 2 : i64
  %c3 = arith.constant 3 : i64
  %e = tensor.empty() : tensor<2x1x6x6x8xf32>
  %r = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%x : tensor<2x1x6x6x8xf32>) outs(%e : tensor<2x1x6x6x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.maximumf %zero, %in : f32
    linalg.yield %0 : f32
  } -> tensor<2x1x6x6x8xf32>
  %m0 = bufferization.to_memref %r read_only {dx.kernel_arg = 1 : i64} : memref<2x1x6x6x8xf32, strided<[?, ?, ?, ?, ?], offset: ?>>
  %a0 = memref.cast %m0 : memref<2x1x6x6x8xf32, strided<[?, ?, ?, ?, ?], offset: ?>> to memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>
  call @dxrt_pool_forward_blocked(%a0, %y, %c1, %c3, %c3, %c2, %c2, %c1, %c1, %c1, %c1) : (memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>, memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>, i64, i64, i64, i64, i64, i64, i64, i64, i64) -> ()
  return
}

// -----

// Bias and scale without relu, the bias first in the sum: relu = 0.
#map = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
#map1 = affine_map<(d0, d1, d2, d3, d4) -> (d1, d4)>
func.func private @dxrt_pool_forward_blocked(memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>, memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>, i64, i64, i64, i64, i64, i64, i64, i64, i64) attributes {llvm.emit_c_interface}
// CHECK-LABEL: func.func @scale_bias_pool
// CHECK-SAME: %[[S:[a-z0-9]*]]: tensor<1x16xf32>, %[[B:[a-z0-9]*]]: tensor<1x16xf32>
// CHECK: linalg.generic {{.*}} ins(%[[S]], %[[B]] : tensor<1x16xf32>, tensor<1x16xf32>)
// CHECK-NEXT: ^bb0(%[[IS:.*]]: f32, %[[IB:.*]]: f32, %{{.*}}: f32, %{{.*}}: f32):
// CHECK-NEXT: linalg.yield %[[IS]], %[[IB]] : f32, f32
// CHECK: call @dxrt_pool_forward_blocked_pre({{.*}}, %c0_i64{{.*}}, %c0_i64)
func.func @scale_bias_pool(%x: tensor<?x1x4x4x16xf32>, %s: tensor<1x16xf32>, %b: tensor<1x16xf32>, %y: memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>) {
  %c0 = arith.constant 0 : i64
  %c2 = arith.constant 2 : i64
  %i0 = arith.constant 0 : index
  %n = tensor.dim %x, %i0 : tensor<?x1x4x4x16xf32>
  %e = tensor.empty(%n) : tensor<?x1x4x4x16xf32>
  %r = linalg.generic {indexing_maps = [#map, #map1, #map1, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%x, %s, %b : tensor<?x1x4x4x16xf32>, tensor<1x16xf32>, tensor<1x16xf32>) outs(%e : tensor<?x1x4x4x16xf32>) {
  ^bb0(%in: f32, %sc: f32, %bi: f32, %out: f32):
    %0 = arith.mulf %sc, %in : f32
    %1 = arith.addf %bi, %0 : f32
    linalg.yield %1 : f32
  } -> tensor<?x1x4x4x16xf32>
  %m0 = bufferization.to_memref %r read_only {dx.kernel_arg = 1 : i64} : memref<?x1x4x4x16xf32, strided<[?, ?, ?, ?, ?], offset: ?>>
  %a0 = memref.cast %m0 : memref<?x1x4x4x16xf32, strided<[?, ?, ?, ?, ?], offset: ?>> to memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>
  call @dxrt_pool_forward_blocked(%a0, %y, %c0, %c2, %c2, %c2, %c2, %c0, %c0, %c0, %c0) : (memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>, memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>, i64, i64, i64, i64, i64, i64, i64, i64, i64) -> ()
  return
}

// -----

// Not rewritten: the map's result is also read by other code (it is
// written anyway); a second full-size input; a scale that depends on x
// (x * x is no per-channel map); a map of a loop index; a sum with a
// contract flag (LLVM may fuse it with the product: one rounding).
#map = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
#map1 = affine_map<(d0, d1, d2, d3, d4) -> (d1, d4)>
func.func private @dxrt_pool_forward_blocked(memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>, memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>, i64, i64, i64, i64, i64, i64, i64, i64, i64) attributes {llvm.emit_c_interface}
// CHECK-LABEL: func.func @not_fused
// CHECK-NOT: _pre
// CHECK-COUNT-5: call @dxrt_pool_forward_blocked(
// CHECK-NOT: _pre
func.func @not_fused(%x: tensor<1x1x2x2x16xf32>, %x2: tensor<1x1x2x2x16xf32>, %b: tensor<1x16xf32>, %y: memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>) -> tensor<1x1x2x2x16xf32> {
  %c0 = arith.constant 0 : i64
  %c2 = arith.constant 2 : i64
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x1x2x2x16xf32>
  %shared = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%x, %b : tensor<1x1x2x2x16xf32>, tensor<1x16xf32>) outs(%e : tensor<1x1x2x2x16xf32>) {
  ^bb0(%in: f32, %bi: f32, %out: f32):
    %0 = arith.addf %in, %bi : f32
    %1 = arith.maximumf %0, %zero : f32
    linalg.yield %1 : f32
  } -> tensor<1x1x2x2x16xf32>
  %m0 = bufferization.to_memref %shared read_only {dx.kernel_arg = 1 : i64} : memref<1x1x2x2x16xf32, strided<[?, ?, ?, ?, ?], offset: ?>>
  %a0 = memref.cast %m0 : memref<1x1x2x2x16xf32, strided<[?, ?, ?, ?, ?], offset: ?>> to memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>
  call @dxrt_pool_forward_blocked(%a0, %y, %c0, %c2, %c2, %c2, %c2, %c0, %c0, %c0, %c0) : (memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>, memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>, i64, i64, i64, i64, i64, i64, i64, i64, i64) -> ()
  %two = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%x, %x2 : tensor<1x1x2x2x16xf32>, tensor<1x1x2x2x16xf32>) outs(%e : tensor<1x1x2x2x16xf32>) {
  ^bb0(%in: f32, %in2: f32, %out: f32):
    %0 = arith.addf %in, %in2 : f32
    linalg.yield %0 : f32
  } -> tensor<1x1x2x2x16xf32>
  %m1 = bufferization.to_memref %two read_only {dx.kernel_arg = 2 : i64} : memref<1x1x2x2x16xf32, strided<[?, ?, ?, ?, ?], offset: ?>>
  %a1 = memref.cast %m1 : memref<1x1x2x2x16xf32, strided<[?, ?, ?, ?, ?], offset: ?>> to memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>
  call @dxrt_pool_forward_blocked(%a1, %y, %c0, %c2, %c2, %c2, %c2, %c0, %c0, %c0, %c0) : (memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>, memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>, i64, i64, i64, i64, i64, i64, i64, i64, i64) -> ()
  %sq = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%x, %b : tensor<1x1x2x2x16xf32>, tensor<1x16xf32>) outs(%e : tensor<1x1x2x2x16xf32>) {
  ^bb0(%in: f32, %bi: f32, %out: f32):
    %0 = arith.mulf %in, %in : f32
    %1 = arith.addf %0, %bi : f32
    linalg.yield %1 : f32
  } -> tensor<1x1x2x2x16xf32>
  %m2 = bufferization.to_memref %sq read_only {dx.kernel_arg = 3 : i64} : memref<1x1x2x2x16xf32, strided<[?, ?, ?, ?, ?], offset: ?>>
  %a2 = memref.cast %m2 : memref<1x1x2x2x16xf32, strided<[?, ?, ?, ?, ?], offset: ?>> to memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>
  call @dxrt_pool_forward_blocked(%a2, %y, %c0, %c2, %c2, %c2, %c2, %c0, %c0, %c0, %c0) : (memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>, memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>, i64, i64, i64, i64, i64, i64, i64, i64, i64) -> ()
  %idx = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%x : tensor<1x1x2x2x16xf32>) outs(%e : tensor<1x1x2x2x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %i = linalg.index 4 : index
    %ii = arith.index_cast %i : index to i32
    %f = arith.sitofp %ii : i32 to f32
    %0 = arith.mulf %in, %f : f32
    linalg.yield %0 : f32
  } -> tensor<1x1x2x2x16xf32>
  %m3 = bufferization.to_memref %idx read_only {dx.kernel_arg = 4 : i64} : memref<1x1x2x2x16xf32, strided<[?, ?, ?, ?, ?], offset: ?>>
  %a3 = memref.cast %m3 : memref<1x1x2x2x16xf32, strided<[?, ?, ?, ?, ?], offset: ?>> to memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>
  call @dxrt_pool_forward_blocked(%a3, %y, %c0, %c2, %c2, %c2, %c2, %c0, %c0, %c0, %c0) : (memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>, memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>, i64, i64, i64, i64, i64, i64, i64, i64, i64) -> ()
  %fma = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%x, %b : tensor<1x1x2x2x16xf32>, tensor<1x16xf32>) outs(%e : tensor<1x1x2x2x16xf32>) {
  ^bb0(%in: f32, %bi: f32, %out: f32):
    %0 = arith.mulf %in, %bi : f32
    %1 = arith.addf %0, %bi fastmath<contract> : f32
    linalg.yield %1 : f32
  } -> tensor<1x1x2x2x16xf32>
  %m4 = bufferization.to_memref %fma read_only {dx.kernel_arg = 5 : i64} : memref<1x1x2x2x16xf32, strided<[?, ?, ?, ?, ?], offset: ?>>
  %a4 = memref.cast %m4 : memref<1x1x2x2x16xf32, strided<[?, ?, ?, ?, ?], offset: ?>> to memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>
  call @dxrt_pool_forward_blocked(%a4, %y, %c0, %c2, %c2, %c2, %c2, %c0, %c0, %c0, %c0) : (memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>, memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>, i64, i64, i64, i64, i64, i64, i64, i64, i64) -> ()
  return %shared : tensor<1x1x2x2x16xf32>
}
