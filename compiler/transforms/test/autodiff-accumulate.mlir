// RUN: dx-opt --dx-autodiff --split-input-file --verify-diagnostics %s | FileCheck %s

// A value used twice gets the sum of both adjoints; a broadcast operand's
// adjoint is reduced back to its shape; an unused parameter gets zeros.
// CHECK-LABEL: func.func @f_train_step
// CHECK-SAME: (%[[X:[^:]*]]: tensor<?x3xf32> {dx.input = "x"}, %[[S:[^:]*]]: tensor<3xf32> {dx.param = "s"}, %[[U:[^:]*]]: tensor<2xf32> {dx.param = "u"}, %{{[^:]*}}: tensor<3xi64> {dx.rng})
// CHECK: %[[P:.*]] = dx.mul %[[X]], %[[S]]
// CHECK: %[[Q:.*]] = dx.mul %[[P]], %[[P]]
// CHECK: %[[L:.*]] = dx.sum %[[Q]]
// CHECK: %[[DQ:.*]] = dx.broadcast_to %{{.*}} {axes = array<i64: 0, 1>}
// CHECK: %[[D1:.*]] = dx.mul %[[DQ]], %[[P]]
// CHECK: %[[D2:.*]] = dx.mul %[[DQ]], %[[P]]
// CHECK: %[[DP:.*]] = dx.add %[[D1]], %[[D2]]
// CHECK: %[[DS:.*]] = dx.mul %[[DP]], %[[X]]
// CHECK: %[[RS:.*]] = dx.reduce_to %[[DS]] : (tensor<?x3xf32>) -> tensor<3xf32>
// CHECK: %[[Z:.*]] = dx.zeros %[[U]]
// CHECK: return %[[L]], %[[RS]], %[[Z]]
func.func @f_loss(%x: tensor<?x3xf32> {dx.input = "x"}, %s: tensor<3xf32> {dx.param = "s"}, %u: tensor<2xf32> {dx.param = "u"}) -> tensor<f32> {
  %p = dx.mul %x, %s : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
  %q = dx.mul %p, %p : (tensor<?x3xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>
  %l = dx.sum %q {keepdim = false} : (tensor<?x3xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

// -----

func.func @g(%x: tensor<f32>) -> tensor<f32> {
  return %x : tensor<f32>
}
func.func @g_loss(%x: tensor<f32> {dx.input = "x"}) -> tensor<f32> {
  // expected-error@+1 {{automatic differentiation: no gradient rule for 'func.call'}}
  %0 = func.call @g(%x) : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// expected-error@+1 {{a loss function must return one scalar}}
func.func @h_loss(%x: tensor<3xf32> {dx.input = "x"}) -> tensor<3xf32> {
  return %x : tensor<3xf32>
}
