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

// -----

// Inputs count by their size against the result's: a max pooling's
// gradient routing reads dy and the winners at a quarter of the size
// (through h floordiv 2), the relu output at full size: 1.3 * 2 users <
// 1.3 + 1 + 2, so both users recompute it (by count, 3 * 2 is not < 3 + 1 +
// 2). Its integer ops on the loop indices (position in the window) are cheap.
// CHECK-LABEL: func.func @weighted_inputs(
// CHECK-SAME: %[[DY:[^:]*]]: tensor<4x2x2x16xf32>, %[[W:[^:]*]]: tensor<4x2x2x16xi8>, %[[Y:[^:]*]]: tensor<4x4x4x16xf32>
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction", "reduction", "reduction", "parallel"]} ins(%[[DY]], %[[W]], %[[Y]] :
// CHECK: arith.cmpi eq
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%[[DY]], %[[W]], %[[Y]] :
// CHECK: arith.cmpi eq
// CHECK-NOT: linalg.generic
#q4 = affine_map<(d0, d1, d2, d3) -> (d0, d1 floordiv 2, d2 floordiv 2, d3)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d3)>
func.func @weighted_inputs(%dy: tensor<4x2x2x16xf32>, %w: tensor<4x2x2x16xi8>, %y: tensor<4x4x4x16xf32>) -> (tensor<16xf32>, tensor<4x4x4x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %c2 = arith.constant 2 : index
  %e = tensor.empty() : tensor<4x4x4x16xf32>
  %g = linalg.generic {indexing_maps = [#q4, #q4, #id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%dy, %w, %y : tensor<4x2x2x16xf32>, tensor<4x2x2x16xi8>, tensor<4x4x4x16xf32>) outs(%e : tensor<4x4x4x16xf32>) {
  ^bb0(%d: f32, %win: i8, %v: f32, %o: f32):
    %h = linalg.index 1 : index
    %x = linalg.index 2 : index
    %hm = arith.remui %h, %c2 : index
    %row = arith.muli %hm, %c2 : index
    %xm = arith.remui %x, %c2 : index
    %pos = arith.addi %row, %xm : index
    %p8 = arith.index_cast %pos : index to i8
    %won = arith.cmpi eq, %p8, %win : i8
    %r = arith.select %won, %d, %zero : f32
    %live = arith.cmpf ogt, %v, %zero : f32
    %m = arith.select %live, %r, %zero : f32
    linalg.yield %m : f32
  } -> tensor<4x4x4x16xf32>
  %acc0 = tensor.empty() : tensor<16xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%acc0 : tensor<16xf32>) -> tensor<16xf32>
  %sum = linalg.generic {indexing_maps = [#id4, #ch], iterator_types = ["reduction", "reduction", "reduction", "parallel"]}
      ins(%g : tensor<4x4x4x16xf32>) outs(%acc : tensor<16xf32>) {
  ^bb0(%a: f32, %s: f32):
    %t = arith.addf %a, %s : f32
    linalg.yield %t : f32
  } -> tensor<16xf32>
  %twice = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%g : tensor<4x4x4x16xf32>) outs(%e : tensor<4x4x4x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = arith.addf %a, %a : f32
    linalg.yield %t : f32
  } -> tensor<4x4x4x16xf32>
  return %sum, %twice : tensor<16xf32>, tensor<4x4x4x16xf32>
}

// -----

// Rule 3: a relu read only through the four strided slices of a 2x2
// pooling becomes a relu on each slice of its input, fused into the
// pooling's op; the full-size relu output is never made. A broadcast input
// (the bias, read along the channels) passes whole.
// CHECK-LABEL: func.func @sliced_producer(
// CHECK-SAME: %[[X:[^:]*]]: tensor<4x4x4x16xf32>, %[[B:[^:]*]]: tensor<16xf32>
// CHECK-DAG: %[[S0:.*]] = tensor.extract_slice %[[X]][0, 0, 0, 0] [4, 2, 2, 16] [1, 2, 2, 1]
// CHECK-DAG: %[[S3:.*]] = tensor.extract_slice %[[X]][0, 1, 1, 0] [4, 2, 2, 16] [1, 2, 2, 1]
// CHECK: linalg.generic {{.*}} ins(%[[S0]], %[[B]], %{{.*}}, %{{.*}}, %[[S3]] :
// CHECK: arith.maximumf
// CHECK-NOT: linalg.generic
// CHECK: return
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d3)>
func.func @sliced_producer(%x: tensor<4x4x4x16xf32>, %b: tensor<16xf32>) -> tensor<4x2x2x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x4x4x16xf32>
  %y = linalg.generic {indexing_maps = [#id4, #ch, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %b : tensor<4x4x4x16xf32>, tensor<16xf32>) outs(%e : tensor<4x4x4x16xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %s = arith.addf %v, %bias : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<4x4x4x16xf32>
  %s0 = tensor.extract_slice %y[0, 0, 0, 0] [4, 2, 2, 16] [1, 2, 2, 1] : tensor<4x4x4x16xf32> to tensor<4x2x2x16xf32>
  %s1 = tensor.extract_slice %y[0, 0, 1, 0] [4, 2, 2, 16] [1, 2, 2, 1] : tensor<4x4x4x16xf32> to tensor<4x2x2x16xf32>
  %s2 = tensor.extract_slice %y[0, 1, 0, 0] [4, 2, 2, 16] [1, 2, 2, 1] : tensor<4x4x4x16xf32> to tensor<4x2x2x16xf32>
  %s3 = tensor.extract_slice %y[0, 1, 1, 0] [4, 2, 2, 16] [1, 2, 2, 1] : tensor<4x4x4x16xf32> to tensor<4x2x2x16xf32>
  %pe = tensor.empty() : tensor<4x2x2x16xf32>
  %p = linalg.generic {indexing_maps = [#id4, #id4, #id4, #id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%s0, %s1, %s2, %s3 : tensor<4x2x2x16xf32>, tensor<4x2x2x16xf32>, tensor<4x2x2x16xf32>, tensor<4x2x2x16xf32>) outs(%pe : tensor<4x2x2x16xf32>) {
  ^bb0(%a: f32, %b1: f32, %c: f32, %d: f32, %o: f32):
    %m0 = arith.maximumf %a, %b1 : f32
    %m1 = arith.maximumf %c, %d : f32
    %m = arith.maximumf %m0, %m1 : f32
    linalg.yield %m : f32
  } -> tensor<4x2x2x16xf32>
  return %p : tensor<4x2x2x16xf32>
}

// -----

// A result of a producer whose other result is used elsewhere is read, not
// recomputed: the pooling's winners (i8) in the backward pass would
// otherwise recompute the whole pooling from its inputs.
// CHECK-LABEL: func.func @two_results(
// CHECK: %[[P:.*]]:2 = linalg.generic
// CHECK: linalg.generic {{.*}} ins(%[[P]]#1 :
// CHECK: return %[[P]]#0,
#i1 = affine_map<(d0) -> (d0)>
func.func @two_results(%a: tensor<16xf32>, %b: tensor<16xf32>) -> (tensor<16xf32>, tensor<16xf32>) {
  %e = tensor.empty() : tensor<16xf32>
  %e8 = tensor.empty() : tensor<16xi8>
  %p:2 = linalg.generic {indexing_maps = [#i1, #i1, #i1, #i1], iterator_types = ["parallel"]}
      ins(%a, %b : tensor<16xf32>, tensor<16xf32>) outs(%e, %e8 : tensor<16xf32>, tensor<16xi8>) {
  ^bb0(%x: f32, %y: f32, %o: f32, %o8: i8):
    %gt = arith.cmpf ogt, %y, %x : f32
    %m = arith.select %gt, %y, %x : f32
    %w = arith.extui %gt : i1 to i8
    linalg.yield %m, %w : f32, i8
  } -> (tensor<16xf32>, tensor<16xi8>)
  %q = linalg.generic {indexing_maps = [#i1, #i1], iterator_types = ["parallel"]}
      ins(%p#1 : tensor<16xi8>) outs(%e : tensor<16xf32>) {
  ^bb0(%w: i8, %o: f32):
    %f = arith.uitofp %w : i8 to f32
    linalg.yield %f : f32
  } -> tensor<16xf32>
  return %p#0, %q : tensor<16xf32>, tensor<16xf32>
}
