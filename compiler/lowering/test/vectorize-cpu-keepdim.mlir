// RUN: dx-opt --dx-vectorize-cpu --split-input-file %s | FileCheck %s

// dx-vectorize-cpu step 0 (VectorizeCpu.h): operands indexed by a constant
// 0 in a unit dim (keepdim statistics) are read through a collapse_shape
// without that dim, so the op vectorizes like any other instead of keeping
// scalar loops.

// A softmax over the channels of [B, 16, 16, 16]: the max over axis 1 with
// keepdim, written at (n, 0, h, w), becomes a [B, 256] accumulator; the
// channel loop carries 16-float vectors.
// CHECK-LABEL: func.func @channel_max(
// CHECK-SAME: %[[X:[^:]*]]: memref<?x16x16x16xf32>, %[[M:[^:]*]]: memref<?x1x16x16xf32>
// CHECK: %[[MC:.*]] = memref.collapse_shape %[[M]] {{\[}}[0], [1, 2, 3]] : memref<?x1x16x16xf32> into memref<?x256xf32>
// CHECK: scf.for
// CHECK: %[[MS:.*]] = memref.subview %[[MC]]
// CHECK: vector.load %[[MS]]{{.*}} vector<16xf32>
// CHECK: scf.for {{.*}} iter_args({{.*}}) -> (vector<16xf32>)
// CHECK: arith.maximumf {{.*}} : vector<16xf32>
// CHECK: vector.store {{.*}}, %[[MS]]
// CHECK-NOT: linalg.generic
#x = affine_map<(n, c, h, w) -> (n, c, h, w)>
#k = affine_map<(n, c, h, w) -> (n, 0, h, w)>
func.func @channel_max(%x: memref<?x16x16x16xf32>, %m: memref<?x1x16x16xf32>) {
  linalg.generic {indexing_maps = [#x, #k], iterator_types = ["parallel", "reduction", "parallel", "parallel"]}
      ins(%x : memref<?x16x16x16xf32>) outs(%m : memref<?x1x16x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.maximumf %o, %a : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// Its consumer reads the statistic broadcast along the channels: exp(x - max)
// as vector code (the polynomial exp), no scalar loops.
// CHECK-LABEL: func.func @exp_minus_channel_max(
// CHECK: memref.collapse_shape %{{.*}} {{\[}}[0], [1, 2, 3]] : memref<?x1x16x16xf32> into memref<?x256xf32>
// CHECK: arith.subf {{.*}} : vector<16xf32>
// CHECK-NOT: math.exp
// CHECK-NOT: linalg.generic
#x = affine_map<(n, c, h, w) -> (n, c, h, w)>
#k = affine_map<(n, c, h, w) -> (n, 0, h, w)>
func.func @exp_minus_channel_max(%x: memref<?x16x16x16xf32>, %m: memref<?x1x16x16xf32>, %y: memref<?x16x16x16xf32>) {
  linalg.generic {indexing_maps = [#x, #k, #x], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %m : memref<?x16x16x16xf32>, memref<?x1x16x16xf32>) outs(%y : memref<?x16x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %d = arith.subf %a, %b : f32
    %e = math.exp %d : f32
    linalg.yield %e : f32
  }
  return
}

// -----

// A unit dim in the middle and one at the end, both read at 0: each joins a
// neighbour's group ([N, 1, H, 1] at (n, 0, h, 0) -> [N, H]).
// CHECK-LABEL: func.func @two_unit_dims(
// CHECK: memref.collapse_shape %{{.*}} {{\[}}[0], [1, 2, 3]] : memref<?x1x32x1xf32> into memref<?x32xf32>
// CHECK: vector<16xf32>
#x = affine_map<(n, c, h, w) -> (n, c, h, w)>
#k = affine_map<(n, c, h, w) -> (n, 0, h, 0)>
func.func @two_unit_dims(%x: memref<?x4x32x32xf32>, %s: memref<?x1x32x1xf32>) {
  linalg.generic {indexing_maps = [#k, #x], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%s : memref<?x1x32x1xf32>) outs(%x : memref<?x4x32x32xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %o, %a : f32
    linalg.yield %r : f32
  }
  return
}
