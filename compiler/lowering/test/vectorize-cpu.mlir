// RUN: dx-opt --dx-vectorize-cpu --split-input-file %s | FileCheck %s
// RUN: dx-opt --dx-vectorize-cpu=vector-bits=512 --split-input-file %s | FileCheck %s --check-prefix=AVX512

// dx-vectorize-cpu (VectorizeCpu.h) on planned memrefs: tiles of two vector
// registers along the innermost dim (16 f32 at 256 bits, 32 at 512),
// accumulators carried in registers through reduction loops, polynomial
// math. What it cannot vectorize keeps a linalg.generic (scalar loops).

// A dense layer's bias + ReLU over [B, 100]: 6 full tiles of 16, then the
// remainder as one more full tile ending at 100 (at 84, overlapping the
// sixth: an elementwise op writes those 12 elements twice, the same values).
// CHECK-LABEL: func.func @bias_relu(
// CHECK: scf.for %{{.*}} = %c0 to %{{.*}} step %c1 {
// CHECK:   scf.for %{{.*}} = %c0 to %c96 step %c16 {
// CHECK:     vector.load {{.*}} vector<16xf32>
// CHECK:     vector.load {{.*}} vector<16xf32>
// CHECK:     arith.addf {{.*}} : vector<16xf32>
// CHECK:     arith.maximumf {{.*}} : vector<16xf32>
// CHECK:     vector.store {{.*}} vector<16xf32>
// CHECK:   }
// CHECK:   memref.subview %{{.*}}[%{{.*}}, 84] [1, 16]
// CHECK:   arith.maximumf {{.*}} : vector<16xf32>
// CHECK:   vector.store {{.*}} vector<16xf32>
// CHECK-NOT: linalg.generic
// AVX512-LABEL: func.func @bias_relu(
// AVX512: scf.for %{{.*}} = %c0 to %c96 step %c32 {
// AVX512: arith.maximumf {{.*}} : vector<32xf32>
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @bias_relu(%x: memref<?x100xf32>, %b: memref<100xf32>, %y: memref<?x100xf32>) {
  linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %b : memref<?x100xf32>, memref<100xf32>) outs(%y : memref<?x100xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    %z = arith.constant 0.0 : f32
    %r = arith.maximumf %s, %z : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// An elementwise op over [B, C, H, W] collapses to one dim (B*C*H*W).
// CHECK-LABEL: func.func @elementwise_4d(
// CHECK: memref.collapse_shape %{{.*}} {{\[}}[0, 1, 2, 3]] : memref<?x8x7x7xf32> into memref<?xf32>
// CHECK: scf.for
// CHECK: arith.mulf {{.*}} : vector<16xf32>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @elementwise_4d(%x: memref<?x8x7x7xf32>, %y: memref<?x8x7x7xf32>) {
  linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x : memref<?x8x7x7xf32>) outs(%y : memref<?x8x7x7xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.mulf %a, %a : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// Batch-norm statistics: a sum over N, H, W of [N, C, H, W] per channel.
// H and W collapse (784 contiguous floats). A reduction dim (N) comes before
// the parallel one (C), so the loops keep the tensor's order, N, C, H*W,
// and read it front to back. The loop over H*W carries 16 partial sums, one
// per lane, from -0 (a sum's neutral element): one vector add per tile and
// one vector.reduction per row, into the channel's sum, loaded before the row
// and stored after it (no memory traffic per element, no horizontal sum per
// tile).
// CHECK-LABEL: func.func @batchnorm_sum(
// CHECK: %[[ZERO:.*]] = arith.constant dense<-0.000000e+00> : vector<16xf32>
// CHECK: memref.collapse_shape %{{.*}} {{\[}}[0], [1], [2, 3]] : memref<?x32x28x28xf32> into memref<?x32x784xf32>
// CHECK: scf.for %[[N:.*]] = %c0 to %{{.*}} step %c1 {
// CHECK:   scf.for %[[C:.*]] = %c0 to %c32 step %c1 {
// CHECK:     %[[OUT:.*]] = memref.subview %{{.*}}[%[[C]]] [1] [1]
// CHECK:     %[[PREV:.*]] = memref.load %[[OUT]]
// CHECK:     %[[ROW:.*]] = scf.for %{{.*}} = %c0 to %c784 step %c16 iter_args(%[[PART:.*]] = %[[ZERO]]) -> (vector<16xf32>)
// CHECK-NOT:   memref.store
// CHECK-NOT:   vector.reduction
// CHECK:       %[[V:.*]] = vector.load {{.*}} vector<16xf32>
// CHECK:       %[[NEXT:.*]] = arith.addf %[[V]], %[[PART]] : vector<16xf32>
// CHECK:       scf.yield %[[NEXT]]
// CHECK:     %[[SUM:.*]] = vector.reduction <add>, %[[ROW]], %[[PREV]] : vector<16xf32> into f32
// CHECK:     memref.store %[[SUM]], %[[OUT]]
// CHECK-NOT: linalg.generic
#x4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#c4 = affine_map<(d0, d1, d2, d3) -> (d1)>
func.func @batchnorm_sum(%x: memref<?x32x28x28xf32>, %s: memref<32xf32>) {
  linalg.generic {indexing_maps = [#x4, #c4], iterator_types = ["reduction", "parallel", "reduction", "reduction"]}
      ins(%x : memref<?x32x28x28xf32>) outs(%s : memref<32xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %a, %acc fastmath<reassoc> : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// The same sums in a channel-blocked layout, [N, C/16, H*W, 16] over N and
// H*W: the vector dim (16 channels) is parallel, but a reduction dim (N)
// still comes before a parallel one (the block), so the loops keep the
// tensor's order, N, block, H*W, and read it front to back; the block's 16
// sums stay in a register across the loop over H*W right outside the vector
// dim, loaded before it and stored after it.
// CHECK-LABEL: func.func @blocked_batchnorm_sum(
// CHECK: scf.for %[[N:.*]] = %c0 to %{{.*}} step %c1 {
// CHECK:   scf.for %[[B:.*]] = %c0 to %c2 step %c1 {
// CHECK:     %[[OUT:.*]] = memref.subview %{{.*}}[%[[B]], 0] [1, 16] [1, 1]
// CHECK:     %[[PREV:.*]] = vector.load %[[OUT]]
// CHECK:     %[[SUM:.*]] = scf.for %{{.*}} = %c0 to %c784 step %c1 iter_args(%[[ACC:.*]] = %[[PREV]]) -> (vector<16xf32>)
// CHECK-NOT:   vector.store
// CHECK:       %[[V:.*]] = vector.load {{.*}} vector<16xf32>
// CHECK:       %[[NEXT:.*]] = arith.addf %[[ACC]], %[[V]] : vector<16xf32>
// CHECK:       scf.yield %[[NEXT]]
// CHECK:     vector.store %[[SUM]], %[[OUT]]
#xb = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#cb = affine_map<(d0, d1, d2, d3) -> (d1, d3)>
func.func @blocked_batchnorm_sum(%x: memref<?x2x784x16xf32>, %s: memref<2x16xf32>) {
  linalg.generic {indexing_maps = [#xb, #cb], iterator_types = ["reduction", "parallel", "reduction", "parallel"]}
      ins(%x : memref<?x2x784x16xf32>) outs(%s : memref<2x16xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %a, %acc fastmath<reassoc> : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// A row's maximum and sum of squares over [B, 100] (two results of one
// op): the loop over the row's 6 full tiles carries 16 partial maxima from
// -inf and 16 partial sums from -0, reduced once after it into the values
// loaded before; the remainder of 4 stays scalar, after the stores.
// CHECK-LABEL: func.func @row_max_and_sum(
// CHECK-DAG: %[[ZERO:.*]] = arith.constant dense<-0.000000e+00> : vector<16xf32>
// CHECK-DAG: %[[NEGINF:.*]] = arith.constant dense<0xFF800000> : vector<16xf32>
// CHECK: %[[M0:.*]] = memref.load
// CHECK: %[[S0:.*]] = memref.load
// CHECK: %[[P:.*]]:2 = scf.for %{{.*}} = %c0 to %c96 step %c16 iter_args(%[[PM:.*]] = %[[NEGINF]], %[[PS:.*]] = %[[ZERO]])
// CHECK-DAG: arith.maximumf %{{.*}}, %[[PM]] : vector<16xf32>
// CHECK-DAG: arith.addf %{{.*}}, %[[PS]] : vector<16xf32>
// CHECK: scf.yield
// CHECK-DAG: vector.reduction <add>, %[[P]]#1, %[[S0]] : vector<16xf32> into f32
// CHECK-DAG: vector.reduction <maximumf>, %[[P]]#0, %[[M0]] : vector<16xf32> into f32
// CHECK: scf.for %{{.*}} = %c96 to %c100 step %c1 {
// CHECK:   linalg.generic
#rm2 = affine_map<(d0, d1) -> (d0, d1)>
#rm1 = affine_map<(d0, d1) -> (d0)>
func.func @row_max_and_sum(%x: memref<?x100xf32>, %m: memref<?xf32>, %s: memref<?xf32>) {
  linalg.generic {indexing_maps = [#rm2, #rm1, #rm1], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<?x100xf32>) outs(%m, %s : memref<?xf32>, memref<?xf32>) {
  ^bb0(%a: f32, %mo: f32, %so: f32):
    %mx = arith.maximumf %a, %mo : f32
    %sq = arith.mulf %a, %a : f32
    %sm = arith.addf %sq, %so fastmath<reassoc> : f32
    linalg.yield %mx, %sm : f32, f32
  }
  return
}

// -----

// A bias gradient: [N, K] summed over N. The vector dim K is parallel; its
// 16-wide tile of the sum stays in a register across the loop over N.
// CHECK-LABEL: func.func @bias_grad(
// CHECK: scf.for %{{.*}} = %c0 to %c64 step %c16 {
// CHECK:   %[[INIT:.*]] = vector.load {{.*}} vector<16xf32>
// CHECK:   %[[SUM:.*]] = scf.for %{{.*}} = %c0 to %{{.*}} step %c1 iter_args(%[[ACC:.*]] = %[[INIT]]) -> (vector<16xf32>)
// CHECK:     %[[ROW:.*]] = vector.load {{.*}} vector<16xf32>
// CHECK:     %[[NEXT:.*]] = arith.addf %[[ACC]], %[[ROW]]{{.*}} : vector<16xf32>
// CHECK:     scf.yield %[[NEXT]]
// CHECK:   vector.store %[[SUM]]
#nk = affine_map<(d0, d1) -> (d0, d1)>
#k = affine_map<(d0, d1) -> (d1)>
func.func @bias_grad(%dy: memref<?x64xf32>, %db: memref<64xf32>) {
  linalg.generic {indexing_maps = [#nk, #k], iterator_types = ["reduction", "parallel"]}
      ins(%dy : memref<?x64xf32>) outs(%db : memref<64xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %a, %acc fastmath<reassoc> : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// exp and tanh on f32 become polynomials (vector code, no libm call);
// sqrt stays math.sqrt (an instruction once lowered to LLVM). [B, 10]
// is contiguous: one dim of B*10, in tiles of 16.
// CHECK-LABEL: func.func @math(
// CHECK-NOT: math.exp
// CHECK-NOT: math.tanh
// CHECK: math.fma {{.*}} : vector<16xf32>
// CHECK: math.sqrt {{.*}} : vector<16xf32>
// CHECK-NOT: math.exp
// CHECK-NOT: math.tanh
#r = affine_map<(d0, d1) -> (d0, d1)>
func.func @math(%x: memref<?x10xf32>, %y: memref<?x10xf32>) {
  linalg.generic {indexing_maps = [#r, #r], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<?x10xf32>) outs(%y : memref<?x10xf32>) {
  ^bb0(%a: f32, %o: f32):
    %e = math.exp %a : f32
    %t = math.tanh %e : f32
    %s = math.sqrt %t : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A transposed operand (the innermost dim strided in %x) is not vectorized:
// the op keeps its scalar loops.
// CHECK-LABEL: func.func @transposed(
// CHECK-NOT: vector.
// CHECK: linalg.generic
// CHECK-NOT: vector.
#t = affine_map<(d0, d1) -> (d1, d0)>
#i = affine_map<(d0, d1) -> (d0, d1)>
func.func @transposed(%x: memref<64x64xf32>, %y: memref<64x64xf32>) {
  linalg.generic {indexing_maps = [#t, #i], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<64x64xf32>) outs(%y : memref<64x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  }
  return
}

// -----

// An op that reads and writes one buffer (in place) keeps its output in
// memory: nothing is hoisted when another access to the buffer is in the loop.
// CHECK-LABEL: func.func @in_place_sum(
// CHECK: scf.for %{{.*}} = %c0 to %c4 step %c1 {
// CHECK-NOT: iter_args
// CHECK: vector.load
// CHECK: vector.load
// CHECK: vector.store
#a = affine_map<(d0, d1) -> (d0, d1)>
#b = affine_map<(d0, d1) -> (d1)>
func.func @in_place_sum(%buf: memref<4x16xf32>) {
  %row = memref.subview %buf[0, 0] [1, 16] [1, 1] : memref<4x16xf32> to memref<16xf32, strided<[1]>>
  linalg.generic {indexing_maps = [#a, #b], iterator_types = ["reduction", "parallel"]}
      ins(%buf : memref<4x16xf32>) outs(%row : memref<16xf32, strided<[1]>>) {
  ^bb0(%v: f32, %acc: f32):
    %r = arith.addf %v, %acc : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// Batch-norm's normalisation: the channel's mean and variance are read, and
// 1/sqrt(var + eps) computed, once per channel outside the loop over H*W
// (LLVM could not hoist them: the loop's stores might alias the loads).
// CHECK-LABEL: func.func @normalize(
// CHECK: scf.for %{{.*}} = %c0 to %{{.*}} step %c1 {
// CHECK:   scf.for %[[CH:.*]] = %c0 to %c8 step %c1 {
// CHECK:     memref.load
// CHECK:     memref.load
// CHECK:     math.sqrt {{.*}} : vector<16xf32>
// CHECK:     scf.for %{{.*}} = %c0 to %c96 step %c16 {
// CHECK-NOT:   math.sqrt
// CHECK-NOT:   memref.load
// CHECK:       vector.load
// CHECK:       arith.divf {{.*}} : vector<16xf32>
// CHECK:       vector.store
// CHECK:     }
#nchw = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d1)>
func.func @normalize(%x: memref<?x8x10x10xf32>, %m: memref<8xf32>, %v: memref<8xf32>, %y: memref<?x8x10x10xf32>) {
  linalg.generic {indexing_maps = [#nchw, #ch, #ch, #nchw], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %m, %v : memref<?x8x10x10xf32>, memref<8xf32>, memref<8xf32>) outs(%y : memref<?x8x10x10xf32>) {
  ^bb0(%a: f32, %mean: f32, %var: f32, %o: f32):
    %eps = arith.constant 1.0e-5 : f32
    %c = arith.subf %a, %mean : f32
    %ve = arith.addf %var, %eps : f32
    %s = math.sqrt %ve : f32
    %r = arith.divf %c, %s : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// The remainder of an elementwise row is one more full tile that ends at
// the row's end: rows of 196 (14x14) are 12 tiles of 16, then the tile at
// 180 (4 elements written twice, with the same values), not 4 scalar
// iterations.
// CHECK-LABEL: func.func @overlapping_tail(
// CHECK: scf.for %{{.*}} = %c0 to %c64 step %c1 {
// CHECK:   scf.for %{{.*}} = %c0 to %c192 step %c16 {
// CHECK:     vector.store {{.*}} vector<16xf32>
// CHECK:   }
// CHECK:   memref.subview %{{.*}}[%{{.*}}, %{{.*}}, 180] [1, 1, 16]
// CHECK:   arith.maximumf {{.*}} : vector<16xf32>
// CHECK:   vector.store {{.*}} vector<16xf32>
// CHECK-NOT: linalg.generic
#nr = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#nrc = affine_map<(d0, d1, d2, d3) -> (d1)>
func.func @overlapping_tail(%x: memref<?x64x14x14xf32>, %s: memref<64xf32>, %b: memref<64xf32>, %y: memref<?x64x14x14xf32>) {
  linalg.generic {indexing_maps = [#nr, #nrc, #nrc, #nr], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %s, %b : memref<?x64x14x14xf32>, memref<64xf32>, memref<64xf32>) outs(%y : memref<?x64x14x14xf32>) {
  ^bb0(%a: f32, %sc: f32, %sh: f32, %o: f32):
    %m = arith.mulf %a, %sc : f32
    %r = arith.addf %m, %sh : f32
    %z = arith.constant 0.0 : f32
    %q = arith.maximumf %r, %z : f32
    linalg.yield %q : f32
  }
  return
}

// -----

// In place (the output is the input's buffer), the overlapped elements would
// be computed again from what the first tile wrote: the remainder stays
// scalar.
// CHECK-LABEL: func.func @in_place_tail(
// CHECK: scf.for %{{.*}} = %c0 to %c96 step %c16 {
// CHECK:   arith.addf {{.*}} : vector<16xf32>
// CHECK: scf.for %{{.*}} = %c96 to %c100 step %c1 {
// CHECK:   linalg.generic
func.func @in_place_tail(%x: memref<100xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%x : memref<100xf32>) outs(%x : memref<100xf32>) {
  ^bb0(%a: f32, %o: f32):
    %one = arith.constant 1.0 : f32
    %r = arith.addf %a, %one : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// A max pooling's generated gradient reads dy and the winners at
// (h floordiv 2, w floordiv 2): the dims read through an expression are
// loops of one element, whose slices the tiling places; inside the tile
// the map reads element 0, and the 16 channels are one vector.
// CHECK-LABEL: func.func @pool_gradient(
// CHECK: scf.for
// CHECK: %[[H:.*]] = affine.apply #{{.*}}(%[[IH:.*]])
// CHECK: scf.for %[[IW:.*]] =
// CHECK: %[[W:.*]] = affine.apply #{{.*}}(%[[IW]])
// CHECK: memref.subview %{{.*}}[%{{.*}}, %{{.*}}, %[[H]], %[[W]], 0] [1, 1, 1, 1, 16]
// CHECK: vector.load {{.*}} vector<16xf32>
// CHECK: vector.load {{.*}} vector<16xi8>
// CHECK: arith.cmpi eq, {{.*}} : vector<16xi8>
// CHECK: arith.select {{.*}} : vector<16xi1>, vector<16xf32>
// CHECK: vector.store
#q = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2 floordiv 2, d3 floordiv 2, d4)>
#id5 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
func.func @pool_gradient(%dy: memref<?x2x4x4x16xf32>, %win: memref<?x2x4x4x16xi8>, %dx: memref<?x2x8x8x16xf32>) {
  %c2 = arith.constant 2 : index
  %zero = arith.constant 0.0 : f32
  linalg.generic {indexing_maps = [#q, #q, #id5], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%dy, %win : memref<?x2x4x4x16xf32>, memref<?x2x4x4x16xi8>) outs(%dx : memref<?x2x8x8x16xf32>) {
  ^bb0(%g: f32, %w: i8, %o: f32):
    %h = linalg.index 2 : index
    %x = linalg.index 3 : index
    %hm = arith.remui %h, %c2 : index
    %row = arith.muli %hm, %c2 : index
    %xm = arith.remui %x, %c2 : index
    %pos = arith.addi %row, %xm : index
    %p8 = arith.index_cast %pos : index to i8
    %won = arith.cmpi eq, %p8, %w : i8
    %r = arith.select %won, %g, %zero : f32
    linalg.yield %r : f32
  }
  return
}
