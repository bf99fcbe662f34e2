// RUN: dx-opt --pass-pipeline='builtin.module(dx-to-linalg, canonicalize, cse, linalg-fuse-elementwise-ops, canonicalize, cse)' --split-input-file %s | FileCheck %s

// Losses and softmax are generated code: numerically stable formulas as
// linalg reductions, with the per-element loss fused into the reduction.

// softmax_cross_entropy(x, labels), mean over the batch:
//   m = max_c x,  s = sum_c exp(x - m),  picked = x[n, labels[n]],
//   loss = sum_n (m + log s - picked) / B
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @cross_entropy(
// CHECK-SAME: %[[X:[^:]*]]: tensor<?x10xf32>, %[[Y:[^:]*]]: tensor<?xi64>)
// CHECK-DAG: %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[MINIT:.*]] = linalg.fill ins(%[[NEGINF]] : f32) outs(%{{.*}} : tensor<?xf32>)
// CHECK: %[[M:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[ROW]]], iterator_types = ["parallel", "reduction"]} ins(%[[X]] : tensor<?x10xf32>) outs(%[[MINIT]] : tensor<?xf32>)
// CHECK: arith.maximumf
// exp(x - m) is fused into the row sum.
// CHECK: %[[S:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[ROW]], #[[ROW]]], iterator_types = ["parallel", "reduction"]} ins(%[[X]], %[[M]] : tensor<?x10xf32>, tensor<?xf32>)
// CHECK-NEXT: ^bb0(%[[XE:.*]]: f32, %[[ME:.*]]: f32, %[[SACC:.*]]: f32):
// CHECK-NEXT: %[[SH:.*]] = arith.subf %[[XE]], %[[ME]]
// CHECK-NEXT: %[[EX:.*]] = math.exp %[[SH]]
// CHECK-NEXT: arith.addf %[[SACC]], %[[EX]]
// The true class's logit: a select on the column index, summed over the row.
// CHECK: %[[P:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[ROW]], #[[ROW]]], iterator_types = ["parallel", "reduction"]} ins(%[[X]], %[[Y]] : tensor<?x10xf32>, tensor<?xi64>)
// CHECK-NEXT: ^bb0(%[[XV:.*]]: f32, %[[YV:.*]]: i64, %[[ACC:.*]]: f32):
// CHECK-NEXT: %[[C:.*]] = linalg.index 1 : index
// CHECK-NEXT: %[[CI:.*]] = arith.index_cast %[[C]] : index to i64
// CHECK-NEXT: %[[HIT:.*]] = arith.cmpi eq, %[[CI]], %[[YV]] : i64
// CHECK-NEXT: %[[SEL:.*]] = arith.select %[[HIT]], %[[XV]], %[[ZERO]] : f32
// CHECK-NEXT: arith.addf %[[ACC]], %[[SEL]]
// The per-row loss is fused into the sum over the batch.
// CHECK: %[[T:.*]] = linalg.generic {{.*}} iterator_types = ["reduction"]} ins(%[[M]], %[[S]], %[[P]] : tensor<?xf32>, tensor<?xf32>, tensor<?xf32>) outs(%{{.*}} : tensor<f32>)
// CHECK-NEXT: ^bb0(%[[MV:.*]]: f32, %[[SV:.*]]: f32, %[[PV:.*]]: f32, %[[TACC:.*]]: f32):
// CHECK-NEXT: %[[LOG:.*]] = math.log %[[SV]]
// CHECK-NEXT: %[[ML:.*]] = arith.addf %[[MV]], %[[LOG]]
// CHECK-NEXT: %[[L:.*]] = arith.subf %[[ML]], %[[PV]]
// CHECK-NEXT: arith.addf %[[TACC]], %[[L]]
// CHECK: linalg.generic {{.*}} iterator_types = []} ins(%[[T]] : tensor<f32>)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: arith.divf
func.func @cross_entropy(%x: tensor<?x10xf32>, %y: tensor<?xi64>) -> tensor<f32> {
  %0 = dx.softmax_cross_entropy %x, %y : (tensor<?x10xf32>, tensor<?xi64>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// Its gradient, (softmax(x) - onehot(labels)) * dloss / B, is one loop after
// the max and the sum.
// CHECK-LABEL: func.func @cross_entropy_grad(
// CHECK-SAME: %[[X:[^:]*]]: tensor<?x10xf32>, %[[Y:[^:]*]]: tensor<?xi64>, %[[D:[^:]*]]: tensor<f32>)
// CHECK: %[[M:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<?x10xf32>)
// CHECK: %[[E:.*]] = linalg.generic {{.*}} ins(%[[X]], %[[M]] : tensor<?x10xf32>, tensor<?xf32>)
// CHECK: %[[S:.*]] = linalg.generic {{.*}} ins(%[[E]] : tensor<?x10xf32>)
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]} ins(%[[E]], %[[S]], %[[Y]], %[[D]] : tensor<?x10xf32>, tensor<?xf32>, tensor<?xi64>, tensor<f32>)
// CHECK: arith.cmpi eq
// CHECK: arith.divf
// CHECK: arith.select
// CHECK: arith.subf
// CHECK: arith.mulf
// CHECK-NEXT: linalg.yield
func.func @cross_entropy_grad(%x: tensor<?x10xf32>, %y: tensor<?xi64>, %d: tensor<f32>) -> tensor<?x10xf32> {
  %0 = dx.softmax_cross_entropy_grad %x, %y, %d : (tensor<?x10xf32>, tensor<?xi64>, tensor<f32>) -> tensor<?x10xf32>
  return %0 : tensor<?x10xf32>
}

// -----

// softmax over axis 1: max and sum kept as [B, 1] and read through (d0, 0).
// CHECK-DAG: #[[KEEP:.*]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-LABEL: func.func @softmax(
// CHECK: %[[M:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} {{.*}} outs(%{{.*}} : tensor<?x1xf32>)
// CHECK: arith.maximumf
// CHECK: %[[E:.*]] = linalg.generic {indexing_maps = [#{{.*}}, #[[KEEP]], #{{.*}}]{{.*}} ins(%{{.*}}, %[[M]] : tensor<?x10xf32>, tensor<?x1xf32>)
// CHECK: math.exp
// CHECK: %[[S:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[E]] : tensor<?x10xf32>) outs(%{{.*}} : tensor<?x1xf32>)
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[KEEP]], #{{.*}}]{{.*}} ins(%[[E]], %[[S]] : tensor<?x10xf32>, tensor<?x1xf32>)
// CHECK: arith.divf
func.func @softmax(%x: tensor<?x10xf32>) -> tensor<?x10xf32> {
  %0 = dx.softmax %x {axis = 1 : i64} : (tensor<?x10xf32>) -> tensor<?x10xf32>
  return %0 : tensor<?x10xf32>
}

// -----

// bce_with_logits, batch_mean: max(z, 0) - z t + log1p(exp(-|z|)), summed in
// one loop, divided by B.
// CHECK-LABEL: func.func @bce_with_logits(
// CHECK-SAME: %[[Z:[^:]*]]: tensor<?x4xf32>, %[[T:[^:]*]]: tensor<?x4xf32>)
// CHECK: %[[N:.*]] = tensor.dim %[[Z]], %c0
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}} iterator_types = ["reduction", "reduction"]} ins(%[[Z]], %[[T]] : tensor<?x4xf32>, tensor<?x4xf32>) outs(%{{.*}} : tensor<f32>)
// CHECK-NEXT: ^bb0(%[[ZV:.*]]: f32, %[[TV:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK-NEXT: %[[A:.*]] = math.absf %[[ZV]]
// CHECK-NEXT: %[[NA:.*]] = arith.negf %[[A]]
// CHECK-NEXT: %[[EX:.*]] = math.exp %[[NA]]
// CHECK-NEXT: %[[LP:.*]] = math.log1p %[[EX]]
// CHECK-NEXT: %[[ZT:.*]] = arith.mulf %[[ZV]], %[[TV]]
// CHECK-NEXT: %[[MX:.*]] = arith.maximumf %[[ZV]], %{{.*}}
// CHECK-NEXT: %[[D:.*]] = arith.subf %[[MX]], %[[ZT]]
// CHECK-NEXT: %[[L:.*]] = arith.addf %[[D]], %[[LP]]
// CHECK-NEXT: arith.addf %[[ACC]], %[[L]]
// CHECK: %[[NI:.*]] = arith.index_cast %[[N]]
// CHECK: %[[NF:.*]] = arith.sitofp %[[NI]]
// CHECK: linalg.generic {{.*}} ins(%[[SUM]] : tensor<f32>)
// CHECK-NEXT: ^bb0(%[[V:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: arith.divf %[[V]], %[[NF]]
func.func @bce_with_logits(%z: tensor<?x4xf32>, %t: tensor<?x4xf32>) -> tensor<f32> {
  %0 = dx.bce_with_logits %z, %t {reduction = "batch_mean"} : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// mse, mean: the count is every element (B * 4).
// CHECK-LABEL: func.func @mse(
// CHECK-DAG: %[[FOUR:.*]] = arith.constant 4.000000e+00 : f32
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction", "reduction"]}
// CHECK-NEXT: ^bb0(%[[P:.*]]: f32, %[[T:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK-NEXT: %[[D:.*]] = arith.subf %[[P]], %[[T]]
// CHECK-NEXT: %[[SQ:.*]] = arith.mulf %[[D]], %[[D]]
// CHECK-NEXT: arith.addf %[[ACC]], %[[SQ]]
// CHECK: %[[CNT:.*]] = arith.mulf %{{.*}}, %[[FOUR]]
// CHECK: arith.divf %{{.*}}, %[[CNT]]
func.func @mse(%z: tensor<?x4xf32>, %t: tensor<?x4xf32>) -> tensor<f32> {
  %0 = dx.mse %z, %t {reduction = "mean"} : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// Its gradients with respect to both operands, for reduction sum: +-2 (p - t) dloss.
// CHECK-LABEL: func.func @mse_grad(
// CHECK-DAG: %[[M2:.*]] = arith.constant -2.000000e+00 : f32
// CHECK-DAG: %[[P2:.*]] = arith.constant 2.000000e+00 : f32
// CHECK: linalg.generic
// CHECK: arith.subf
// CHECK-NEXT: arith.mulf %{{.*}}, %[[P2]]
// CHECK-NEXT: arith.mulf
// CHECK: linalg.generic
// CHECK: arith.subf
// CHECK-NEXT: arith.mulf %{{.*}}, %[[M2]]
// CHECK-NEXT: arith.mulf
func.func @mse_grad(%z: tensor<?x4xf32>, %t: tensor<?x4xf32>, %d: tensor<f32>) -> (tensor<?x4xf32>, tensor<?x4xf32>) {
  %0:2 = dx.pairwise_loss_grad "mse" %z, %t, %d {reduction = "sum"} : (tensor<?x4xf32>, tensor<?x4xf32>, tensor<f32>) -> (tensor<?x4xf32>, tensor<?x4xf32>)
  return %0#0, %0#1 : tensor<?x4xf32>, tensor<?x4xf32>
}

// -----

// kl_normal(mu, logvar), sum: -0.5 (1 + lv - mu^2 - exp(lv)), one loop.
// CHECK-LABEL: func.func @kl_normal(
// CHECK-DAG: %[[MHALF:.*]] = arith.constant -5.000000e-01 : f32
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: %[[R:.*]] = linalg.generic {{.*}} iterator_types = ["reduction", "reduction"]}
// CHECK-NEXT: ^bb0(%[[MU:.*]]: f32, %[[LV:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK-NEXT: %[[E:.*]] = math.exp %[[LV]]
// CHECK-NEXT: %[[MM:.*]] = arith.mulf %[[MU]], %[[MU]]
// CHECK-NEXT: %[[A:.*]] = arith.addf %[[LV]], %[[ONE]]
// CHECK-NEXT: %[[B:.*]] = arith.subf %[[A]], %[[MM]]
// CHECK-NEXT: %[[C:.*]] = arith.subf %[[B]], %[[E]]
// CHECK-NEXT: %[[K:.*]] = arith.mulf %[[C]], %[[MHALF]]
// CHECK-NEXT: arith.addf %[[ACC]], %[[K]]
// CHECK-NOT: linalg.generic
// CHECK: return %[[R]]
func.func @kl_normal(%m: tensor<?x3xf32>, %l: tensor<?x3xf32>) -> tensor<f32> {
  %0 = dx.kl_normal %m, %l {reduction = "sum"} : (tensor<?x3xf32>, tensor<?x3xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}
