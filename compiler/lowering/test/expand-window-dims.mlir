// RUN: dx-opt --dx-expand-window-dims --canonicalize --split-input-file %s | FileCheck %s

// dx-expand-window-dims (ExpandWindowDims.h): a generic that reads dy and
// the winners of a 2x2 pooling at (h floordiv 2, w floordiv 2) iterates h
// and w as (h / 2, h mod 2) and (w / 2, w mod 2): the full-size operand is
// an expanded view, the floordiv reads are projected reads of the outer
// dims, `h mod 2` is the index of the inner dim, and the result is
// collapsed back to the op's own type.
// CHECK-DAG: #[[POOLED:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d4, d6)>
// CHECK-DAG: #[[FULL:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3, d4, d5, d6)>
// CHECK-LABEL: func.func @route(
// CHECK-SAME: %[[DY:.*]]: tensor<?x2x4x4x16xf32>, %[[WIN:.*]]: tensor<?x2x4x4x16xi8>, %[[INIT:.*]]: tensor<?x2x8x8x16xf32>)
// CHECK: %[[X:.*]] = tensor.expand_shape %[[INIT]] {{\[}}[0], [1], [2, 3], [4, 5], [6]] {{.*}} into tensor<?x2x4x2x4x2x16xf32>
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[POOLED]], #[[POOLED]], #[[FULL]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%[[DY]], %[[WIN]] : {{.*}}) outs(%[[X]] : tensor<?x2x4x2x4x2x16xf32>)
// CHECK-NOT: arith.remui
// CHECK:   %[[KH:.*]] = linalg.index 3 : index
// CHECK:   %[[KW:.*]] = linalg.index 5 : index
// CHECK:   %[[ROW:.*]] = arith.muli %[[KH]], %{{.*}} : index
// CHECK:   arith.addi %[[ROW]], %[[KW]] : index
// CHECK: %[[C:.*]] = tensor.collapse_shape %[[R]] {{\[}}[0], [1], [2, 3], [4, 5], [6]] : tensor<?x2x4x2x4x2x16xf32> into tensor<?x2x8x8x16xf32>
// CHECK: return %[[C]]
#q = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2 floordiv 2, d3 floordiv 2, d4)>
#id = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
func.func @route(%dy: tensor<?x2x4x4x16xf32>, %win: tensor<?x2x4x4x16xi8>, %init: tensor<?x2x8x8x16xf32>) -> tensor<?x2x8x8x16xf32> {
  %r = linalg.generic {indexing_maps = [#q, #q, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%dy, %win : tensor<?x2x4x4x16xf32>, tensor<?x2x4x4x16xi8>) outs(%init : tensor<?x2x8x8x16xf32>) {
  ^bb0(%d: f32, %w: i8, %o: f32):
    %c2 = arith.constant 2 : index
    %h = linalg.index 2 : index
    %w0 = linalg.index 3 : index
    %hr = arith.remui %h, %c2 : index
    %row = arith.muli %hr, %c2 : index
    %wr = arith.remui %w0, %c2 : index
    %pos = arith.addi %row, %wr : index
    %p8 = arith.index_cast %pos : index to i8
    %won = arith.cmpi eq, %p8, %w : i8
    %z = arith.constant 0.0 : f32
    %v = arith.select %won, %d, %z : f32
    linalg.yield %v : f32
  } -> tensor<?x2x8x8x16xf32>
  return %r : tensor<?x2x8x8x16xf32>
}

// -----

// A reduction (a batch norm's sums with the routing fused in): the split
// dims are reductions on both sides, the sums keep their [C/B, B] type, and
// the full-size input is read through an expanded view. An index used
// whole (not `mod 2`) is outer * 2 + inner.
// CHECK-DAG: #[[POOLED:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d4, d6)>
// CHECK-DAG: #[[FULL:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3, d4, d5, d6)>
// CHECK-DAG: #[[SUM:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d6)>
// CHECK-LABEL: func.func @sums(
// CHECK: %[[X:.*]] = tensor.expand_shape %{{.*}} {{\[}}[0], [1], [2, 3], [4, 5], [6]] {{.*}} into tensor<?x2x4x2x4x2x16xf32>
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[POOLED]], #[[FULL]], #[[SUM]]], iterator_types = ["reduction", "parallel", "reduction", "reduction", "reduction", "reduction", "parallel"]} ins(%{{.*}}, %[[X]] : tensor<?x2x4x4x16xf32>, tensor<?x2x4x2x4x2x16xf32>) outs(%{{.*}} : tensor<2x16xf32>)
// CHECK:   %[[H:.*]] = linalg.index 2 : index
// CHECK:   %[[HI:.*]] = linalg.index 3 : index
// CHECK:   %[[HO:.*]] = arith.muli %[[H]], %{{.*}} : index
// CHECK:   arith.addi %[[HO]], %[[HI]] : index
// CHECK: } -> tensor<2x16xf32>
// CHECK-NOT: tensor.collapse_shape
// CHECK: return %[[R]]
#q2 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2 floordiv 2, d3 floordiv 2, d4)>
#id2 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
#c2 = affine_map<(d0, d1, d2, d3, d4) -> (d1, d4)>
func.func @sums(%dy: tensor<?x2x4x4x16xf32>, %x: tensor<?x2x8x8x16xf32>, %acc: tensor<2x16xf32>) -> tensor<2x16xf32> {
  %r = linalg.generic {indexing_maps = [#q2, #id2, #c2], iterator_types = ["reduction", "parallel", "reduction", "reduction", "parallel"]} ins(%dy, %x : tensor<?x2x4x4x16xf32>, tensor<?x2x8x8x16xf32>) outs(%acc : tensor<2x16xf32>) {
  ^bb0(%d: f32, %v: f32, %o: f32):
    %h = linalg.index 2 : index
    %hi = arith.index_cast %h : index to i32
    %hf = arith.sitofp %hi : i32 to f32
    %p = arith.mulf %d, %v : f32
    %q = arith.mulf %p, %hf : f32
    %s = arith.addf %o, %q : f32
    linalg.yield %s : f32
  } -> tensor<2x16xf32>
  return %r : tensor<2x16xf32>
}

// -----

// Left alone: a floordiv on the innermost dim (an NCHW nearest upsampling,
// whose W is the vector dim), a dim the factor does not divide, two factors
// on one dim, and a dim read through another expression.
// CHECK-LABEL: func.func @left_alone(
// CHECK-NOT: tensor.expand_shape
// CHECK-NOT: tensor.collapse_shape
// CHECK: } -> tensor<?x3x8x8xf32>
// CHECK: } -> tensor<?x7x16xf32>
// CHECK: } -> tensor<?x12x16xf32>
// CHECK: } -> tensor<?x12x16xf32>
// CHECK: return
#up = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2 floordiv 2, d3 floordiv 2)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#odd = affine_map<(d0, d1, d2) -> (d0, d1 floordiv 2, d2)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#two = affine_map<(d0, d1, d2) -> (d0, d1 floordiv 3, d2)>
#mod = affine_map<(d0, d1, d2) -> (d0, d1 mod 2, d2)>
func.func @left_alone(%a: tensor<?x3x4x4xf32>, %ai: tensor<?x3x8x8xf32>, %b: tensor<?x3x16xf32>, %bi: tensor<?x7x16xf32>,
                      %c: tensor<?x6x16xf32>, %ci: tensor<?x12x16xf32>) -> (tensor<?x3x8x8xf32>, tensor<?x7x16xf32>, tensor<?x12x16xf32>, tensor<?x12x16xf32>) {
  %0 = linalg.generic {indexing_maps = [#up, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%a : tensor<?x3x4x4xf32>) outs(%ai : tensor<?x3x8x8xf32>) {
  ^bb0(%v: f32, %o: f32):
    linalg.yield %v : f32
  } -> tensor<?x3x8x8xf32>
  %1 = linalg.generic {indexing_maps = [#odd, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%b : tensor<?x3x16xf32>) outs(%bi : tensor<?x7x16xf32>) {
  ^bb0(%v: f32, %o: f32):
    linalg.yield %v : f32
  } -> tensor<?x7x16xf32>
  %2 = linalg.generic {indexing_maps = [#odd, #two, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%c, %b : tensor<?x6x16xf32>, tensor<?x3x16xf32>) outs(%ci : tensor<?x12x16xf32>) {
  ^bb0(%v: f32, %w: f32, %o: f32):
    %s = arith.addf %v, %w : f32
    linalg.yield %s : f32
  } -> tensor<?x12x16xf32>
  %3 = linalg.generic {indexing_maps = [#odd, #mod, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%c, %bi : tensor<?x6x16xf32>, tensor<?x7x16xf32>) outs(%ci : tensor<?x12x16xf32>) {
  ^bb0(%v: f32, %w: f32, %o: f32):
    %s = arith.addf %v, %w : f32
    linalg.yield %s : f32
  } -> tensor<?x12x16xf32>
  return %0, %1, %2, %3 : tensor<?x3x8x8xf32>, tensor<?x7x16xf32>, tensor<?x12x16xf32>, tensor<?x12x16xf32>
}
