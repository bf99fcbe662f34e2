// RUN: dx-opt --dx-simplify-compares --canonicalize --split-input-file %s | FileCheck %s

// dx-simplify-compares (SimplifyCompares.h): a comparison of a clamped value
// with the clamp's own bound compares the unclamped value, and the clamp goes
// away when nothing else reads it. Exact for every input, NaN included.

// A relu's gradient mask as fusion leaves it in a batch norm's backward
// pass: maximumf(y, 0) > 0 is y > 0.
// CHECK-LABEL: func.func @relu_mask(
// CHECK-SAME: %[[Y:[^:]*]]: tensor<8x16xf32>
// CHECK: linalg.generic
// CHECK: ^bb0(%[[D:[^:]*]]: f32, %[[V:[^:]*]]: f32,
// CHECK-NOT: arith.maximumf
// CHECK: %[[POS:.*]] = arith.cmpf ogt, %[[V]], %{{.*}} : f32
// CHECK: arith.select %[[POS]], %[[D]]
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @relu_mask(%dy: tensor<8x16xf32>, %y: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x16xf32>
  %g = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%dy, %y : tensor<8x16xf32>, tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%d: f32, %v: f32, %o: f32):
    %zero2 = arith.constant 0.0 : f32
    %r = arith.maximumf %v, %zero2 : f32
    %pos = arith.cmpf ogt, %r, %zero : f32
    %s = arith.select %pos, %d, %zero : f32
    linalg.yield %s : f32
  } -> tensor<8x16xf32>
  return %g : tensor<8x16xf32>
}

// -----

// The mirrored forms, the clamp's operands in either order, and minimumf
// with olt: each compares %a itself.
// CHECK-LABEL: func.func @mirrored(
// CHECK-SAME: %[[A:[^:]*]]: f32, %[[C:[^:]*]]: f32
// CHECK-NOT: arith.maximumf
// CHECK-NOT: arith.minimumf
// CHECK: arith.cmpf ogt, %[[C]], %[[A]] : f32
// CHECK: arith.cmpf olt, %[[A]], %[[C]] : f32
// CHECK: arith.cmpf olt, %[[C]], %[[A]] : f32
func.func @mirrored(%a: f32, %c: f32) -> (i1, i1, i1) {
  %min = arith.minimumf %c, %a : f32
  %lt1 = arith.cmpf ogt, %c, %min : f32
  %lt2 = arith.cmpf olt, %min, %c : f32
  %max = arith.maximumf %a, %c : f32
  %gt = arith.cmpf olt, %c, %max : f32
  return %lt1, %lt2, %gt : i1, i1, i1
}

// -----

// Left alone: oge (maximumf(a, c) >= c holds for every a that is not NaN,
// a >= c does not), a compare with another bound, and a clamp that is also
// read elsewhere (the compare is rewritten, the clamp stays for its user).
// CHECK-LABEL: func.func @left_alone(
// CHECK-SAME: %[[A:[^:]*]]: f32, %[[C:[^:]*]]: f32, %[[D:[^:]*]]: f32
// CHECK: %[[MAX:.*]] = arith.maximumf %[[A]], %[[C]] : f32
// CHECK: arith.cmpf oge, %[[MAX]], %[[C]] : f32
// CHECK: arith.cmpf ogt, %[[MAX]], %[[D]] : f32
// CHECK: arith.cmpf ogt, %[[A]], %[[C]] : f32
// CHECK: return {{.*}}, %[[MAX]]
func.func @left_alone(%a: f32, %c: f32, %d: f32) -> (i1, i1, i1, f32) {
  %max = arith.maximumf %a, %c : f32
  %ge = arith.cmpf oge, %max, %c : f32
  %other = arith.cmpf ogt, %max, %d : f32
  %gt = arith.cmpf ogt, %max, %c : f32
  return %ge, %other, %gt, %max : i1, i1, i1, f32
}

// -----

// Equal constants are the same bound; different ones are not.
// CHECK-LABEL: func.func @constants(
// CHECK-SAME: %[[A:[^:]*]]: f32
// CHECK-DAG: %[[SIX:.*]] = arith.constant 6.000000e+00 : f32
// CHECK-DAG: %[[FIVE:.*]] = arith.constant 5.000000e+00 : f32
// CHECK: %[[MIN:.*]] = arith.minimumf %[[A]], %[[SIX]] : f32
// CHECK: arith.cmpf olt, %[[A]], %[[SIX]] : f32
// CHECK: arith.cmpf olt, %[[MIN]], %[[FIVE]] : f32
func.func @constants(%a: f32) -> (i1, i1) {
  %six = arith.constant 6.0 : f32
  %six2 = arith.constant 6.0 : f32
  %five = arith.constant 5.0 : f32
  %min = arith.minimumf %a, %six : f32
  %lt = arith.cmpf olt, %min, %six2 : f32
  %lt5 = arith.cmpf olt, %min, %five : f32
  return %lt, %lt5 : i1, i1
}
