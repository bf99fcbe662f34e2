// RUN: dx-opt --dx-fuse-reduction-loops --canonicalize --cse --split-input-file %s | FileCheck %s

// dx-fuse-reduction-loops (FuseReductionLoops.h): a reduction whose result
// an elementwise consumer reads broadcast is computed in the consumer's
// loop over the dims the result keeps, one tile at a time.

// A batch norm's forward pass on [N, 8, 32, 32]: per-channel sum and sum of
// squares, the variance from them (a small op between), then the
// normalisation. One loop over the 8 channels holds all three; the channel
// sums leave it as well, for the running statistics after it.
// CHECK-LABEL: func.func @batchnorm_forward(
// CHECK-SAME: %[[X:[^:]*]]: tensor<?x8x32x32xf32>
// CHECK: %[[LOOP:.*]]:{{[0-9]+}} = scf.for %[[C:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(
// CHECK: %[[XS:.*]] = tensor.extract_slice %[[X]][0, %[[C]], 0, 0] [%{{.*}}, 1, 32, 32]
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction", "parallel", "reduction", "reduction"]} ins(%[[XS]] :
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel"]}
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%[[XS]],
// CHECK: scf.yield
// CHECK-NOT: iterator_types = ["reduction", "parallel", "reduction", "reduction"]
// CHECK: %[[RS:.*]] = linalg.generic {{.*}} ins(%[[LOOP]]#{{[0-9]+}} : tensor<8xf32>)
// CHECK: return %[[LOOP]]#0, %[[RS]]
#x = affine_map<(n, c, h, w) -> (n, c, h, w)>
#ch = affine_map<(n, c, h, w) -> (c)>
#v = affine_map<(c) -> (c)>
func.func @batchnorm_forward(%x: tensor<?x8x32x32xf32>) -> (tensor<?x8x32x32xf32>, tensor<8xf32>) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x8x32x32xf32>
  %e8 = tensor.empty() : tensor<8xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e8 : tensor<8xf32>) -> tensor<8xf32>
  %sums:2 = linalg.generic {indexing_maps = [#x, #ch, #ch], iterator_types = ["reduction", "parallel", "reduction", "reduction"]}
      ins(%x : tensor<?x8x32x32xf32>) outs(%acc, %acc : tensor<8xf32>, tensor<8xf32>) {
  ^bb0(%a: f32, %s: f32, %q: f32):
    %s1 = arith.addf %s, %a : f32
    %sq = arith.mulf %a, %a : f32
    %q1 = arith.addf %q, %sq : f32
    linalg.yield %s1, %q1 : f32, f32
  } -> (tensor<8xf32>, tensor<8xf32>)
  %var = linalg.generic {indexing_maps = [#v, #v, #v], iterator_types = ["parallel"]}
      ins(%sums#0, %sums#1 : tensor<8xf32>, tensor<8xf32>) outs(%e8 : tensor<8xf32>) {
  ^bb0(%s: f32, %q: f32, %o: f32):
    %m = arith.mulf %s, %s : f32
    %d = arith.subf %q, %m : f32
    linalg.yield %d : f32
  } -> tensor<8xf32>
  %ey = tensor.empty(%n) : tensor<?x8x32x32xf32>
  %y = linalg.generic {indexing_maps = [#x, #ch, #ch, #x], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %sums#0, %var : tensor<?x8x32x32xf32>, tensor<8xf32>, tensor<8xf32>) outs(%ey : tensor<?x8x32x32xf32>) {
  ^bb0(%a: f32, %m: f32, %v: f32, %o: f32):
    %d = arith.subf %a, %m : f32
    %r = arith.mulf %d, %v : f32
    linalg.yield %r : f32
  } -> tensor<?x8x32x32xf32>
  // After the consumer: reads the sums, so the loop yields them.
  %run = linalg.generic {indexing_maps = [#v, #v], iterator_types = ["parallel"]}
      ins(%sums#0 : tensor<8xf32>) outs(%e8 : tensor<8xf32>) {
  ^bb0(%s: f32, %o: f32):
    %h = arith.mulf %s, %s : f32
    linalg.yield %h : f32
  } -> tensor<8xf32>
  return %y, %run : tensor<?x8x32x32xf32>, tensor<8xf32>
}

// -----

// Short channels (8x8 = 64 elements) are tiled several at a time, so that a
// tile reads runs of 1,024 elements: 16 of 64 channels.
// CHECK-LABEL: func.func @short_channels(
// CHECK: scf.for %{{.*}} = %c0 to %c64 step %c16
// CHECK: tensor.extract_slice %{{.*}}[0, %{{.*}}, 0, 0] [%{{.*}}, 16, 8, 8]
#x = affine_map<(n, c, h, w) -> (n, c, h, w)>
#ch = affine_map<(n, c, h, w) -> (c)>
func.func @short_channels(%x: tensor<?x64x8x8xf32>) -> tensor<?x64x8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x64x8x8xf32>
  %e = tensor.empty() : tensor<64xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  %sum = linalg.generic {indexing_maps = [#x, #ch], iterator_types = ["reduction", "parallel", "reduction", "reduction"]}
      ins(%x : tensor<?x64x8x8xf32>) outs(%acc : tensor<64xf32>) {
  ^bb0(%a: f32, %s: f32):
    %s1 = arith.addf %s, %a : f32
    linalg.yield %s1 : f32
  } -> tensor<64xf32>
  %ey = tensor.empty(%n) : tensor<?x64x8x8xf32>
  %y = linalg.generic {indexing_maps = [#x, #ch, #x], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %sum : tensor<?x64x8x8xf32>, tensor<64xf32>) outs(%ey : tensor<?x64x8x8xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %d = arith.subf %a, %m : f32
    linalg.yield %d : f32
  } -> tensor<?x64x8x8xf32>
  return %y : tensor<?x64x8x8xf32>
}

// -----

// A layer norm over rows of 256: one row per tile.
// CHECK-LABEL: func.func @row_norm(
// CHECK: scf.for
// CHECK: tensor.extract_slice %{{.*}}[%{{.*}}, 0] [1, 256] [1, 1]
// CHECK: iterator_types = ["parallel", "reduction"]
// CHECK: iterator_types = ["parallel", "parallel"]
#x = affine_map<(b, d) -> (b, d)>
#row = affine_map<(b, d) -> (b)>
func.func @row_norm(%x: tensor<?x256xf32>) -> tensor<?x256xf32> {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x256xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %sum = linalg.generic {indexing_maps = [#x, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<?x256xf32>) outs(%acc : tensor<?xf32>) {
  ^bb0(%a: f32, %s: f32):
    %s1 = arith.addf %s, %a : f32
    linalg.yield %s1 : f32
  } -> tensor<?xf32>
  %ey = tensor.empty(%n) : tensor<?x256xf32>
  %y = linalg.generic {indexing_maps = [#x, #row, #x], iterator_types = ["parallel", "parallel"]}
      ins(%x, %sum : tensor<?x256xf32>, tensor<?xf32>) outs(%ey : tensor<?x256xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %d = arith.subf %a, %m : f32
    linalg.yield %d : f32
  } -> tensor<?x256xf32>
  return %y : tensor<?x256xf32>
}

// -----

// Left alone: the statistic is along the innermost dim (a batch norm of
// [B, C] features: a tile would be a strided column), and rows of 5 (a
// softmax over 5 classes: shorter than one vector).
// CHECK-LABEL: func.func @not_worth_it(
// CHECK-NOT: scf.for
// CHECK: return
#x = affine_map<(b, c) -> (b, c)>
#col = affine_map<(b, c) -> (c)>
#row = affine_map<(b, c) -> (b)>
func.func @not_worth_it(%f: tensor<?x64xf32>, %l: tensor<?x5xf32>) -> (tensor<?x64xf32>, tensor<?x5xf32>) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %n = tensor.dim %f, %c0 : tensor<?x64xf32>
  %e64 = tensor.empty() : tensor<64xf32>
  %acc64 = linalg.fill ins(%zero : f32) outs(%e64 : tensor<64xf32>) -> tensor<64xf32>
  %colsum = linalg.generic {indexing_maps = [#x, #col], iterator_types = ["reduction", "parallel"]}
      ins(%f : tensor<?x64xf32>) outs(%acc64 : tensor<64xf32>) {
  ^bb0(%a: f32, %s: f32):
    %s1 = arith.addf %s, %a : f32
    linalg.yield %s1 : f32
  } -> tensor<64xf32>
  %ef = tensor.empty(%n) : tensor<?x64xf32>
  %fc = linalg.generic {indexing_maps = [#x, #col, #x], iterator_types = ["parallel", "parallel"]}
      ins(%f, %colsum : tensor<?x64xf32>, tensor<64xf32>) outs(%ef : tensor<?x64xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %d = arith.subf %a, %m : f32
    linalg.yield %d : f32
  } -> tensor<?x64xf32>
  %er = tensor.empty(%n) : tensor<?xf32>
  %accr = linalg.fill ins(%zero : f32) outs(%er : tensor<?xf32>) -> tensor<?xf32>
  %rowsum = linalg.generic {indexing_maps = [#x, #row], iterator_types = ["parallel", "reduction"]}
      ins(%l : tensor<?x5xf32>) outs(%accr : tensor<?xf32>) {
  ^bb0(%a: f32, %s: f32):
    %s1 = arith.addf %s, %a : f32
    linalg.yield %s1 : f32
  } -> tensor<?xf32>
  %el = tensor.empty(%n) : tensor<?x5xf32>
  %lc = linalg.generic {indexing_maps = [#x, #row, #x], iterator_types = ["parallel", "parallel"]}
      ins(%l, %rowsum : tensor<?x5xf32>, tensor<?xf32>) outs(%el : tensor<?x5xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %d = arith.subf %a, %m : f32
    linalg.yield %d : f32
  } -> tensor<?x5xf32>
  return %fc, %lc : tensor<?x64xf32>, tensor<?x5xf32>
}

// -----

// A statistic read along two dims at once (t[c] and t[h] of a [N, 8, 8, 32]
// tensor): the consumer's tile would need one channel of t and all of t,
// two different tiles of one producer. The consumer is left unfused (the
// function as it was before the attempt), and a later candidate in the
// same function still fuses.
// CHECK-LABEL: func.func @two_tiles_of_one_statistic(
// CHECK: %[[T:.*]] = linalg.generic {{.*}} iterator_types = ["reduction", "parallel", "reduction", "reduction"]}
// CHECK: %[[Y:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%{{.*}}, %[[T]], %[[T]] :
// CHECK-NOT: dx.reduction_fusion_tried
// CHECK: scf.for
// CHECK: iterator_types = ["reduction", "parallel", "reduction", "reduction"]
// CHECK: scf.yield
// CHECK: return %[[Y]],
#x = affine_map<(n, c, h, w) -> (n, c, h, w)>
#ch = affine_map<(n, c, h, w) -> (c)>
#hh = affine_map<(n, c, h, w) -> (h)>
func.func @two_tiles_of_one_statistic(%x: tensor<?x8x8x32xf32>, %z: tensor<?x8x32x32xf32>) -> (tensor<?x8x8x32xf32>, tensor<?x8x32x32xf32>) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x8x8x32xf32>
  %e8 = tensor.empty() : tensor<8xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e8 : tensor<8xf32>) -> tensor<8xf32>
  %t = linalg.generic {indexing_maps = [#x, #ch], iterator_types = ["reduction", "parallel", "reduction", "reduction"]}
      ins(%x : tensor<?x8x8x32xf32>) outs(%acc : tensor<8xf32>) {
  ^bb0(%a: f32, %s: f32):
    %s1 = arith.addf %s, %a : f32
    linalg.yield %s1 : f32
  } -> tensor<8xf32>
  %ey = tensor.empty(%n) : tensor<?x8x8x32xf32>
  %y = linalg.generic {indexing_maps = [#x, #ch, #hh, #x], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %t, %t : tensor<?x8x8x32xf32>, tensor<8xf32>, tensor<8xf32>) outs(%ey : tensor<?x8x8x32xf32>) {
  ^bb0(%a: f32, %p: f32, %q: f32, %o: f32):
    %d = arith.mulf %a, %p : f32
    %r = arith.mulf %d, %q : f32
    linalg.yield %r : f32
  } -> tensor<?x8x8x32xf32>
  %accz = linalg.fill ins(%zero : f32) outs(%e8 : tensor<8xf32>) -> tensor<8xf32>
  %sz = linalg.generic {indexing_maps = [#x, #ch], iterator_types = ["reduction", "parallel", "reduction", "reduction"]}
      ins(%z : tensor<?x8x32x32xf32>) outs(%accz : tensor<8xf32>) {
  ^bb0(%a: f32, %s: f32):
    %s1 = arith.addf %s, %a : f32
    linalg.yield %s1 : f32
  } -> tensor<8xf32>
  %ez = tensor.empty(%n) : tensor<?x8x32x32xf32>
  %yz = linalg.generic {indexing_maps = [#x, #ch, #x], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%z, %sz : tensor<?x8x32x32xf32>, tensor<8xf32>) outs(%ez : tensor<?x8x32x32xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %d = arith.subf %a, %m : f32
    linalg.yield %d : f32
  } -> tensor<?x8x32x32xf32>
  return %y, %yz : tensor<?x8x8x32xf32>, tensor<?x8x32x32xf32>
}

// -----

// A batch norm's gradient: the consumer reads a statistic computed from one
// output of the two-output sums (dgamma = sum(dy * x) * 2, also returned)
// before it reads the other output (sum(dy)) directly. Fusion clones each
// producer right before the slice it is fused for, so the sums land after
// dgamma, which reads them; the loop body is then put in def-use order. The
// function verifies (operands dominate their uses), and dgamma leaves the
// loop as one of its results.
// CHECK-LABEL: func.func @grad_reads_sums_twice(
// CHECK: %[[LOOP:.*]]:{{[0-9]+}} = scf.for
// CHECK:   %[[SUMS:.*]]:2 = linalg.generic {{.*}} iterator_types = ["reduction", "parallel", "reduction", "reduction"]
// CHECK:   linalg.generic {{.*}} ins(%[[SUMS]]#1 :
// CHECK:   iterator_types = ["parallel", "parallel", "parallel", "parallel"]
// CHECK: return %[[LOOP]]#0, %[[LOOP]]#
#g4 = affine_map<(n, c, h, w) -> (n, c, h, w)>
#gc = affine_map<(n, c, h, w) -> (c)>
#g1 = affine_map<(c) -> (c)>
func.func @grad_reads_sums_twice(%dy: tensor<?x8x32x32xf32>, %x: tensor<?x8x32x32xf32>) -> (tensor<?x8x32x32xf32>, tensor<8xf32>) {
  %zero = arith.constant 0.0 : f32
  %two = arith.constant 2.0 : f32
  %c0 = arith.constant 0 : index
  %e8 = tensor.empty() : tensor<8xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e8 : tensor<8xf32>) -> tensor<8xf32>
  %sums:2 = linalg.generic {indexing_maps = [#g4, #g4, #gc, #gc], iterator_types = ["reduction", "parallel", "reduction", "reduction"]}
      ins(%dy, %x : tensor<?x8x32x32xf32>, tensor<?x8x32x32xf32>) outs(%acc, %acc : tensor<8xf32>, tensor<8xf32>) {
  ^bb0(%d: f32, %a: f32, %s0: f32, %s1: f32):
    %t0 = arith.addf %s0, %d : f32
    %p = arith.mulf %d, %a : f32
    %t1 = arith.addf %s1, %p : f32
    linalg.yield %t0, %t1 : f32, f32
  } -> (tensor<8xf32>, tensor<8xf32>)
  %dgamma = linalg.generic {indexing_maps = [#g1, #g1], iterator_types = ["parallel"]}
      ins(%sums#1 : tensor<8xf32>) outs(%e8 : tensor<8xf32>) {
  ^bb0(%s: f32, %o: f32):
    %r = arith.mulf %s, %two : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %n = tensor.dim %dy, %c0 : tensor<?x8x32x32xf32>
  %ex = tensor.empty(%n) : tensor<?x8x32x32xf32>
  %dx = linalg.generic {indexing_maps = [#g4, #gc, #gc, #g4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%dy, %dgamma, %sums#0 : tensor<?x8x32x32xf32>, tensor<8xf32>, tensor<8xf32>) outs(%ex : tensor<?x8x32x32xf32>) {
  ^bb0(%d: f32, %g: f32, %s: f32, %o: f32):
    %m = arith.mulf %d, %g : f32
    %r = arith.addf %m, %s : f32
    linalg.yield %r : f32
  } -> tensor<?x8x32x32xf32>
  return %dx, %dgamma : tensor<?x8x32x32xf32>, tensor<8xf32>
}
