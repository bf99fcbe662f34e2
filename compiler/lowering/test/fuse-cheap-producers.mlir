// RUN: dx-opt --dx-fuse-cheap-producers --split-input-file %s | FileCheck %s

// dx-fuse-cheap-producers (FuseCheapProducers.h): a cheap elementwise
// producer with several users is recomputed in each when that moves fewer
// tensors, inputs * users < inputs + 1 + users.

// A relu gradient (2 inputs) feeding a reduction and an elementwise op, as
// in a batch norm's backward pass: 2 * 2 < 2 + 1 + 2, so both users compute
// the select themselves and the gradient is never materialised.
// CHECK-LABEL: func.func @relu_grad_two_users(
// CHECK-SAME: %[[DY:[^:]*]]: tensor<8x16xf32>, %[[H:[^:]*]]: tensor<8x16xf32>
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[DY]], %[[H]] :
// CHECK: arith.select
// CHECK: %[[TWICE:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]} ins(%[[DY]], %[[H]] :
// CHECK: arith.select
// CHECK-NOT: linalg.generic
// CHECK: return %[[SUM]], %[[TWICE]]
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @relu_grad_two_users(%dy: tensor<8x16xf32>, %h: tensor<8x16xf32>) -> (tensor<8xf32>, tensor<8x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x16xf32>
  %g = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%dy, %h : tensor<8x16xf32>, tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%d: f32, %v: f32, %o: f32):
    %pos = arith.cmpf ogt, %v, %zero : f32
    %r = arith.select %pos, %d, %zero : f32
    linalg.yield %r : f32
  } -> tensor<8x16xf32>
  %acc0 = tensor.empty() : tensor<8xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%acc0 : tensor<8xf32>) -> tensor<8xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%g : tensor<8x16xf32>) outs(%acc : tensor<8xf32>) {
  ^bb0(%x: f32, %a: f32):
    %s = arith.addf %x, %a : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  %twice = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%g : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%x: f32, %o: f32):
    %t = arith.addf %x, %x : f32
    linalg.yield %t : f32
  } -> tensor<8x16xf32>
  return %sum, %twice : tensor<8xf32>, tensor<8x16xf32>
}

// -----

// Three users of a two-input producer: 2 * 3 is not < 2 + 1 + 3. A producer
// with a math function (exp) is not cheap, even with two users. All stay.
// CHECK-LABEL: func.func @not_worth_it(
// CHECK-COUNT-7: linalg.generic
// CHECK-NOT: linalg.generic
#i = affine_map<(d0) -> (d0)>
func.func @not_worth_it(%a: tensor<16xf32>, %b: tensor<16xf32>) -> (tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) {
  %e = tensor.empty() : tensor<16xf32>
  %p = linalg.generic {indexing_maps = [#i, #i, #i], iterator_types = ["parallel"]}
      ins(%a, %b : tensor<16xf32>, tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %m = arith.mulf %x, %y : f32
    linalg.yield %m : f32
  } -> tensor<16xf32>
  %u1 = linalg.generic {indexing_maps = [#i, #i], iterator_types = ["parallel"]} ins(%p : tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = arith.addf %x, %x : f32
    linalg.yield %r : f32
  } -> tensor<16xf32>
  %u2 = linalg.generic {indexing_maps = [#i, #i], iterator_types = ["parallel"]} ins(%p : tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = arith.mulf %x, %x : f32
    linalg.yield %r : f32
  } -> tensor<16xf32>
  %u3 = linalg.generic {indexing_maps = [#i, #i], iterator_types = ["parallel"]} ins(%p : tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = arith.subf %x, %x : f32
    linalg.yield %r : f32
  } -> tensor<16xf32>
  %x = linalg.generic {indexing_maps = [#i, #i], iterator_types = ["parallel"]} ins(%a : tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = math.exp %v : f32
    linalg.yield %r : f32
  } -> tensor<16xf32>
  %u4 = linalg.generic {indexing_maps = [#i, #i], iterator_types = ["parallel"]} ins(%x : tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.addf %v, %v : f32
    linalg.yield %r : f32
  } -> tensor<16xf32>
  %u5 = linalg.generic {indexing_maps = [#i, #i], iterator_types = ["parallel"]} ins(%x : tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.mulf %v, %v : f32
    linalg.yield %r : f32
  } -> tensor<16xf32>
  return %u1, %u2, %u3, %u4, %u5 : tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>
}

// -----

// Rule 2: a batch norm's relu output h = max(x - mean, 0) is kept (a pooling
// call, here the return, reads it), and the backward sum that reads both h
// (for its mask) and x recomputes h from x instead: it then reads dy and x,
// not h, and the mean, a broadcast vector, is the only input it gains.
// CHECK-LABEL: func.func @relu_output_recomputed(
// CHECK-SAME: %[[X:[^:]*]]: tensor<8x16xf32>, %[[MEAN:[^:]*]]: tensor<16xf32>, %[[DY:[^:]*]]: tensor<8x16xf32>
// CHECK: %[[H:.*]] = linalg.generic {{.*}} ins(%[[X]], %[[MEAN]] :
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}} iterator_types = ["reduction", "parallel"]} ins(%[[DY]], %[[X]], %[[MEAN]] : tensor<8x16xf32>, tensor<8x16xf32>, tensor<16xf32>)
// CHECK: arith.subf
// CHECK: arith.maximumf
// CHECK: arith.cmpf ogt
// CHECK: return %[[H]], %[[SUM]]
#bx = affine_map<(d0, d1) -> (d0, d1)>
#bc = affine_map<(d0, d1) -> (d1)>
func.func @relu_output_recomputed(%x: tensor<8x16xf32>, %mean: tensor<16xf32>, %dy: tensor<8x16xf32>) -> (tensor<8x16xf32>, tensor<16xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x16xf32>
  %h = linalg.generic {indexing_maps = [#bx, #bc, #bx], iterator_types = ["parallel", "parallel"]}
      ins(%x, %mean : tensor<8x16xf32>, tensor<16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %d = arith.subf %a, %m : f32
    %r = arith.maximumf %d, %zero : f32
    linalg.yield %r : f32
  } -> tensor<8x16xf32>
  %acc0 = tensor.empty() : tensor<16xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%acc0 : tensor<16xf32>) -> tensor<16xf32>
  %sum = linalg.generic {indexing_maps = [#bx, #bx, #bx, #bc], iterator_types = ["reduction", "parallel"]}
      ins(%dy, %h, %x : tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>) outs(%acc : tensor<16xf32>) {
  ^bb0(%g: f32, %v: f32, %a: f32, %s: f32):
    %pos = arith.cmpf ogt, %v, %zero : f32
    %m = arith.select %pos, %g, %zero : f32
    %p = arith.mulf %m, %a : f32
    %t = arith.addf %p, %s : f32
    linalg.yield %t : f32
  } -> tensor<16xf32>
  return %h, %sum : tensor<8x16xf32>, tensor<16xf32>
}

// -----

// Rule 2 does not apply when the consumer does not read the producer's
// full-size input: recomputing h there would read x, a new stream, instead
// of h.
// CHECK-LABEL: func.func @consumer_without_x(
// CHECK: %[[H:.*]] = linalg.generic
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[H]] :
#nx = affine_map<(d0, d1) -> (d0, d1)>
#nc = affine_map<(d0, d1) -> (d1)>
func.func @consumer_without_x(%x: tensor<8x16xf32>, %mean: tensor<16xf32>, %dy: tensor<8x16xf32>) -> (tensor<8x16xf32>, tensor<16xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x16xf32>
  %h = linalg.generic {indexing_maps = [#nx, #nc, #nx], iterator_types = ["parallel", "parallel"]}
      ins(%x, %mean : tensor<8x16xf32>, tensor<16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %d = arith.subf %a, %m : f32
    %r = arith.maximumf %d, %zero : f32
    linalg.yield %r : f32
  } -> tensor<8x16xf32>
  %acc0 = tensor.empty() : tensor<16xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%acc0 : tensor<16xf32>) -> tensor<16xf32>
  %sum = linalg.generic {indexing_maps = [#nx, #nx, #nc], iterator_types = ["reduction", "parallel"]}
      ins(%dy, %h : tensor<8x16xf32>, tensor<8x16xf32>) outs(%acc : tensor<16xf32>) {
  ^bb0(%g: f32, %v: f32, %s: f32):
    %pos = arith.cmpf ogt, %v, %zero : f32
    %m = arith.select %pos, %g, %zero : f32
    %t = arith.addf %m, %s : f32
    linalg.yield %t : f32
  } -> tensor<16xf32>
  return %h, %sum : tensor<8x16xf32>, tensor<16xf32>
}
