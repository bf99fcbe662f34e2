// RUN: dx-opt --dx-interleave-accumulators --canonicalize --split-input-file %s | FileCheck %s
// RUN: dx-opt --dx-interleave-accumulators=vector-bits=512 --canonicalize --split-input-file %s | FileCheck %s --check-prefix=AVX512

// dx-interleave-accumulators (InterleaveAccumulators.h): an innermost loop
// whose iteration arguments are all vector accumulators runs K copies of its
// body per iteration, each into its own partial (the first from the loop's
// initial value, the others from the neutral element), combines them
// pairwise after the loop, and leaves the iterations that remain to the
// original loop.

// A channel block's sum over H*W (dx-vectorize-cpu's loop for a blocked
// batch norm): one vector<16xf32> accumulator (2 registers at 256 bits),
// one load of 2 registers per iteration: K = 8 / 2 = 4. 784 = 4 * 196, so
// no iteration remains and the original loop folds away.
// CHECK-LABEL: func.func @channel_sum(
// CHECK-DAG: %[[NEG0:.*]] = arith.constant dense<-0.000000e+00> : vector<16xf32>
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[C784:.*]] = arith.constant 784 : index
// CHECK: %[[INIT:.*]] = vector.load %arg1
// CHECK: %[[P:.*]]:4 = scf.for %[[I:.*]] = %c0 to %[[C784]] step %[[C4]] iter_args(%[[A0:.*]] = %[[INIT]], %[[A1:.*]] = %[[NEG0]], %[[A2:.*]] = %[[NEG0]], %[[A3:.*]] = %[[NEG0]])
// CHECK:   vector.load %arg0[%[[I]], %c0]
// CHECK:   %[[S0:.*]] = arith.addf %[[A0]]
// CHECK:   %[[I1:.*]] = arith.addi %[[I]], %c1
// CHECK:   vector.load %arg0[%[[I1]], %c0]
// CHECK:   %[[S1:.*]] = arith.addf %[[A1]]
// CHECK:   %[[S2:.*]] = arith.addf %[[A2]]
// CHECK:   %[[S3:.*]] = arith.addf %[[A3]]
// CHECK:   scf.yield %[[S0]], %[[S1]], %[[S2]], %[[S3]]
// CHECK: %[[L:.*]] = arith.addf %[[P]]#0, %[[P]]#1
// CHECK: %[[R:.*]] = arith.addf %[[P]]#2, %[[P]]#3
// CHECK: %[[T:.*]] = arith.addf %[[L]], %[[R]]
// CHECK-NOT: scf.for
// CHECK: vector.store %[[T]], %arg1
// AVX512-LABEL: func.func @channel_sum(
// AVX512: scf.for {{.*}} step %c4 iter_args({{.*}}) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
func.func @channel_sum(%x: memref<784x16xf32>, %s: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c784 = arith.constant 784 : index
  %init = vector.load %s[%c0] : memref<16xf32>, vector<16xf32>
  %sum = scf.for %i = %c0 to %c784 step %c1 iter_args(%acc = %init) -> (vector<16xf32>) {
    %v = vector.load %x[%i, %c0] : memref<784x16xf32>, vector<16xf32>
    %next = arith.addf %acc, %v : vector<16xf32>
    scf.yield %next : vector<16xf32>
  }
  vector.store %sum, %s[%c0] : memref<16xf32>, vector<16xf32>
  return
}

// -----

// A bias gradient over a batch of unknown size: the main loop runs to
// floor(N / 4) * 4, the original loop the rest from the combined partials.
// CHECK-LABEL: func.func @bias_grad(
// CHECK: %[[N:.*]] = memref.dim %arg0, %c0
// CHECK: %[[Q:.*]] = arith.divui %{{.*}}, %c4
// CHECK: %[[MAIN:.*]] = arith.muli %[[Q]], %c4
// CHECK: %[[P:.*]]:4 = scf.for %{{.*}} = %c0 to %[[MAIN]] step %c4 iter_args(
// CHECK: scf.yield
// CHECK: arith.addf %[[P]]#0, %[[P]]#1
// CHECK: arith.addf %[[P]]#2, %[[P]]#3
// CHECK: %[[T:.*]] = arith.addf
// CHECK: %[[REST:.*]] = scf.for %{{.*}} = %[[MAIN]] to %[[N]] step %c1 iter_args(%{{.*}} = %[[T]])
// CHECK:   arith.addf
// CHECK: vector.store %[[REST]], %arg1
func.func @bias_grad(%dy: memref<?x16xf32>, %db: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %dy, %c0 : memref<?x16xf32>
  %init = vector.load %db[%c0] : memref<16xf32>, vector<16xf32>
  %sum = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> (vector<16xf32>) {
    %v = vector.load %dy[%i, %c0] : memref<?x16xf32>, vector<16xf32>
    %next = arith.addf %v, %acc : vector<16xf32>
    scf.yield %next : vector<16xf32>
  }
  vector.store %sum, %db[%c0] : memref<16xf32>, vector<16xf32>
  return
}

// -----

// A row's maximum in tiles of 16 (dx-vectorize-cpu's partial maxima): the
// other partials start from -inf; they combine with maximumf. 160 = 10
// tiles of 16; in chunks of 4 tiles (64), the original loop runs the last 2.
// CHECK-LABEL: func.func @row_max(
// CHECK-DAG: %[[NEGINF:.*]] = arith.constant dense<0xFF800000> : vector<16xf32>
// CHECK: %[[P:.*]]:4 = scf.for %{{.*}} = %c0 to %c128 step %c64 iter_args(%{{.*}} = %arg1, %{{.*}} = %[[NEGINF]], %{{.*}} = %[[NEGINF]], %{{.*}} = %[[NEGINF]])
// CHECK-COUNT-4: arith.maximumf
// CHECK: scf.yield
// CHECK: arith.maximumf %[[P]]#0, %[[P]]#1
// CHECK: arith.maximumf %[[P]]#2, %[[P]]#3
// CHECK: %[[T:.*]] = arith.maximumf
// CHECK: scf.for %{{.*}} = %c128 to %c160 step %c16 iter_args(%{{.*}} = %[[T]])
func.func @row_max(%x: memref<160xf32>, %init: vector<16xf32>) -> vector<16xf32> {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c160 = arith.constant 160 : index
  %m = scf.for %i = %c0 to %c160 step %c16 iter_args(%acc = %init) -> (vector<16xf32>) {
    %v = vector.load %x[%i] : memref<160xf32>, vector<16xf32>
    %next = arith.maximumf %v, %acc : vector<16xf32>
    scf.yield %next : vector<16xf32>
  }
  return %m : vector<16xf32>
}

// -----

// A batch norm's two backward sums (sum of dy, sum of dy * (x - mean)) in
// one loop: two accumulators of 2 registers each at 256 bits, 4 registers
// loaded, 2 read from outside (the mean). K = min(8 / 4, (16 - 2 - 4) / 4)
// = 2; at 512 bits K = min(8 / 2, (32 - 1 - 2) / 2) = 4.
// CHECK-LABEL: func.func @two_sums(
// CHECK: %[[P:.*]]:4 = scf.for %{{.*}} step %c2 iter_args(
// CHECK-COUNT-4: arith.addf %arg
// CHECK: scf.yield
// AVX512-LABEL: func.func @two_sums(
// AVX512: %[[P:.*]]:8 = scf.for %{{.*}} step %c4 iter_args(
func.func @two_sums(%x: memref<784x16xf32>, %dy: memref<784x16xf32>, %mean: vector<16xf32>,
                    %s: vector<16xf32>, %t: vector<16xf32>) -> (vector<16xf32>, vector<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c784 = arith.constant 784 : index
  %r:2 = scf.for %i = %c0 to %c784 step %c1 iter_args(%a = %s, %b = %t) -> (vector<16xf32>, vector<16xf32>) {
    %xv = vector.load %x[%i, %c0] : memref<784x16xf32>, vector<16xf32>
    %g = vector.load %dy[%i, %c0] : memref<784x16xf32>, vector<16xf32>
    %a2 = arith.addf %a, %g : vector<16xf32>
    %c = arith.subf %xv, %mean : vector<16xf32>
    %p = arith.mulf %g, %c : vector<16xf32>
    %b2 = arith.addf %b, %p : vector<16xf32>
    scf.yield %a2, %b2 : vector<16xf32>, vector<16xf32>
  }
  return %r#0, %r#1 : vector<16xf32>, vector<16xf32>
}

// -----

// Too many vectors from outside the loop for more partials at 256 bits
// (4 registers of accumulators, 4 loaded, 8 read from outside: (16 - 12) / 4
// = 1): the loop stays as it is. At 512 bits there is room for 4.
// CHECK-LABEL: func.func @no_room(
// CHECK: scf.for %{{.*}} = %c0 to %c784 step %c1 iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (vector<16xf32>, vector<16xf32>)
// AVX512-LABEL: func.func @no_room(
// AVX512: scf.for %{{.*}} step %c4 iter_args(
func.func @no_room(%x: memref<784x16xf32>, %dy: memref<784x16xf32>, %m: vector<16xf32>, %k: vector<16xf32>,
                   %u: vector<16xf32>, %w: vector<16xf32>, %s: vector<16xf32>, %t: vector<16xf32>)
    -> (vector<16xf32>, vector<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c784 = arith.constant 784 : index
  %r:2 = scf.for %i = %c0 to %c784 step %c1 iter_args(%a = %s, %b = %t) -> (vector<16xf32>, vector<16xf32>) {
    %xv = vector.load %x[%i, %c0] : memref<784x16xf32>, vector<16xf32>
    %g = vector.load %dy[%i, %c0] : memref<784x16xf32>, vector<16xf32>
    %c = arith.subf %xv, %m : vector<16xf32>
    %h = arith.mulf %c, %k : vector<16xf32>
    %o = arith.addf %h, %u : vector<16xf32>
    %q = arith.mulf %o, %w : vector<16xf32>
    %g2 = arith.mulf %g, %q : vector<16xf32>
    %a2 = arith.addf %a, %g2 : vector<16xf32>
    %p = arith.mulf %g2, %c : vector<16xf32>
    %b2 = arith.addf %b, %p : vector<16xf32>
    scf.yield %a2, %b2 : vector<16xf32>, vector<16xf32>
  }
  return %r#0, %r#1 : vector<16xf32>, vector<16xf32>
}

// -----

// Left alone: an accumulator read by more than its combine (a running
// maximum that the body also subtracts), and a loop with a loop inside
// (only the inner one, whose accumulator is a chain, is interleaved).
// CHECK-LABEL: func.func @running_max(
// CHECK: scf.for %{{.*}} = %c0 to %c96 step %c16 iter_args(%{{.*}} = %arg1, %{{.*}} = %arg2)
// CHECK-NOT: scf.for
func.func @running_max(%x: memref<96xf32>, %m0: vector<16xf32>, %s0: vector<16xf32>) -> (vector<16xf32>, vector<16xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c96 = arith.constant 96 : index
  %r:2 = scf.for %i = %c0 to %c96 step %c16 iter_args(%m = %m0, %s = %s0) -> (vector<16xf32>, vector<16xf32>) {
    %v = vector.load %x[%i] : memref<96xf32>, vector<16xf32>
    %m2 = arith.maximumf %v, %m : vector<16xf32>
    %d = arith.subf %v, %m : vector<16xf32>
    %s2 = arith.addf %s, %d : vector<16xf32>
    scf.yield %m2, %s2 : vector<16xf32>, vector<16xf32>
  }
  return %r#0, %r#1 : vector<16xf32>, vector<16xf32>
}

// CHECK-LABEL: func.func @nested(
// CHECK: %[[OUTER:.*]] = scf.for %{{.*}} = %c0 to %[[N:.*]] step %c1 iter_args(%[[ACC:.*]] = %arg1) -> (vector<16xf32>)
// CHECK:   scf.for %{{.*}} = %c0 to %c784 step %c4 iter_args(%{{.*}} = %[[ACC]], %{{.*}} = %cst, %{{.*}} = %cst, %{{.*}} = %cst)
func.func @nested(%x: memref<?x784x16xf32>, %init: vector<16xf32>) -> vector<16xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c784 = arith.constant 784 : index
  %n = memref.dim %x, %c0 : memref<?x784x16xf32>
  %r = scf.for %b = %c0 to %n step %c1 iter_args(%acc = %init) -> (vector<16xf32>) {
    %row = scf.for %i = %c0 to %c784 step %c1 iter_args(%a = %acc) -> (vector<16xf32>) {
      %v = vector.load %x[%b, %i, %c0] : memref<?x784x16xf32>, vector<16xf32>
      %a2 = arith.addf %a, %v : vector<16xf32>
      scf.yield %a2 : vector<16xf32>
    }
    scf.yield %row : vector<16xf32>
  }
  return %r : vector<16xf32>
}

// -----

// An accumulator chain in a loop that has a loop inside: only innermost
// loops get partials (copying an outer body would copy its inner loops).
// CHECK-LABEL: func.func @outer_chain(
// CHECK: scf.for %{{.*}} = %c0 to %c64 step %c1 iter_args(%{{.*}} = %arg2) -> (vector<16xf32>)
// CHECK:   scf.for %{{.*}} = %c0 to %c4 step %c1 {
// CHECK-NOT: step %c4
func.func @outer_chain(%x: memref<64x16xf32>, %y: memref<4x16xf32>, %init: vector<16xf32>) -> vector<16xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %r = scf.for %i = %c0 to %c64 step %c1 iter_args(%acc = %init) -> (vector<16xf32>) {
    %v = vector.load %x[%i, %c0] : memref<64x16xf32>, vector<16xf32>
    scf.for %j = %c0 to %c4 step %c1 {
      vector.store %v, %y[%j, %c0] : memref<4x16xf32>, vector<16xf32>
    }
    %a2 = arith.addf %acc, %v : vector<16xf32>
    scf.yield %a2 : vector<16xf32>
  }
  return %r : vector<16xf32>
}
