// RUN: dx-opt --pass-pipeline='builtin.module(dx-to-linalg, canonicalize, cse, linalg-fuse-elementwise-ops, canonicalize, cse)' --split-input-file %s | FileCheck %s

// Batch normalisation has two forms. The eval form (dx.batchnorm, in
// M_eval) normalises with the running statistics; the train form
// (dx.batchnorm_train, made by dx-autodiff in M_train_step) computes the
// batch statistics over N, H, W, and dx.running_stats updates the running
// ones (PyTorch: momentum 0.1, unbiased variance).

// Eval: ONE loop, fused with the relu after it. The affine map folds into
// two coefficients per channel, y = x * scale + shift with
// scale = gamma / sqrt(rv + eps) and shift = beta - rm * scale (computed per
// channel; fusion inlines them, and dx-vectorize-cpu hoists them out of the
// loops over H and W), so per element it is one multiply and one add.
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[CH:.*]] = affine_map<(d0, d1, d2, d3) -> (d1)>
// CHECK-LABEL: func.func @batchnorm_eval(
// CHECK-SAME: %[[X:[^:]*]]: tensor<?x6x4x4xf32>, %[[G:[^:]*]]: tensor<6xf32>, %[[B:[^:]*]]: tensor<6xf32>, %[[RM:[^:]*]]: tensor<6xf32>, %[[RV:[^:]*]]: tensor<6xf32>)
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-DAG: %[[EPS:.*]] = arith.constant 9.99999974E-6 : f32
// CHECK: %[[Y:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[CH]], #[[CH]], #[[CH]], #[[CH]], #[[ID]]], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
// CHECK-SAME: ins(%[[X]], %[[RV]], %[[G]], %[[RM]], %[[B]] :
// CHECK-NEXT: ^bb0(%[[XV:.*]]: f32, %[[VV:.*]]: f32, %[[GV:.*]]: f32, %[[MV:.*]]: f32, %[[BV:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[VE:.*]] = arith.addf %[[VV]], %[[EPS]]
// CHECK-NEXT: %[[SD:.*]] = math.sqrt %[[VE]]
// CHECK-NEXT: %[[INV:.*]] = arith.divf %[[ONE]], %[[SD]]
// CHECK-NEXT: %[[SC:.*]] = arith.mulf %[[INV]], %[[GV]]
// CHECK-NEXT: %[[MS:.*]] = arith.mulf %[[MV]], %[[SC]]
// CHECK-NEXT: %[[SH:.*]] = arith.subf %[[BV]], %[[MS]]
// CHECK-NEXT: %[[XS:.*]] = arith.mulf %[[XV]], %[[SC]]
// CHECK-NEXT: %[[YV:.*]] = arith.addf %[[XS]], %[[SH]]
// CHECK-NEXT: %[[R:.*]] = arith.maximumf %[[YV]]
// CHECK-NEXT: linalg.yield %[[R]]
// CHECK-NOT: linalg.generic
// CHECK: return %[[Y]]
func.func @batchnorm_eval(%x: tensor<?x6x4x4xf32>, %g: tensor<6xf32>, %b: tensor<6xf32>, %rm: tensor<6xf32>, %rv: tensor<6xf32>) -> tensor<?x6x4x4xf32> {
  %0 = dx.batchnorm %x params(%g, %b, %rm, %rv) {affine = true, eps = 1.000000e-05 : f64, momentum = 1.000000e-01 : f64} : (tensor<?x6x4x4xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>) -> tensor<?x6x4x4xf32>
  %1 = dx.relu %0 : (tensor<?x6x4x4xf32>) -> tensor<?x6x4x4xf32>
  return %1 : tensor<?x6x4x4xf32>
}

// -----

// Train: one pass over x for the statistics. The shift k per channel is the
// mean of the batch's first sample (a slice [1, C, H, W], its sum / (H*W));
// one generic with two outputs sums d = x - k and d * d; then
// mean = k + sum(d) / (B*H*W) and var = max(sum(d^2)/n - (sum(d)/n)^2, 0);
// then one normalising loop. The running statistics are blended with
// momentum 0.1, the variance made unbiased with n / max(n - 1, 1).
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[CH:.*]] = affine_map<(d0, d1, d2, d3) -> (d1)>
// CHECK-LABEL: func.func @batchnorm_train(
// CHECK-SAME: %[[X:[^:]*]]: tensor<?x6x4x4xf32>, %[[G:[^:]*]]: tensor<6xf32>, %[[B:[^:]*]]: tensor<6xf32>, %[[RM:[^:]*]]: tensor<6xf32>, %[[RV:[^:]*]]: tensor<6xf32>)
// CHECK-DAG: %[[M09:.*]] = arith.constant 0.899999976 : f32
// CHECK-DAG: %[[M01:.*]] = arith.constant 1.000000e-01 : f32
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG: %[[HW:.*]] = arith.constant 1.600000e+01 : f32
// CHECK: %[[FIRST:.*]] = tensor.extract_slice %[[X]][0, 0, 0, 0] [1, 6, 4, 4] [1, 1, 1, 1] : tensor<?x6x4x4xf32> to tensor<1x6x4x4xf32>
// CHECK: %[[FSUM:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[CH]]], iterator_types = ["reduction", "parallel", "reduction", "reduction"]} ins(%[[FIRST]] : tensor<1x6x4x4xf32>)
// CHECK: %[[K:.*]] = linalg.generic {{.*}} ins(%[[FSUM]] : tensor<6xf32>)
// CHECK: arith.divf %{{.*}}, %[[HW]]
// CHECK: %[[SUMS:.*]]:2 = linalg.generic {indexing_maps = [#[[ID]], #[[CH]], #[[CH]], #[[CH]]], iterator_types = ["reduction", "parallel", "reduction", "reduction"]} ins(%[[X]], %[[K]] : tensor<?x6x4x4xf32>, tensor<6xf32>)
// CHECK-NEXT: ^bb0(%[[XV:.*]]: f32, %[[KV:.*]]: f32, %[[S1:.*]]: f32, %[[S2:.*]]: f32):
// CHECK-NEXT: %[[D:.*]] = arith.subf %[[XV]], %[[KV]]
// CHECK-NEXT: arith.addf %[[S1]], %[[D]] fastmath<reassoc>
// CHECK-NEXT: %[[D2:.*]] = arith.mulf %[[D]], %[[D]]
// CHECK-NEXT: arith.addf %[[S2]], %[[D2]] fastmath<reassoc>
// CHECK: %[[N:.*]] = tensor.dim %[[X]], %c0
// CHECK: %[[NI:.*]] = arith.index_cast %[[N]]
// CHECK: %[[NF:.*]] = arith.sitofp %[[NI]]
// CHECK: %[[CNT:.*]] = arith.mulf %[[NF]], %[[HW]]
// CHECK: %[[MEAN:.*]] = linalg.generic {{.*}} ins(%[[K]], %[[SUMS]]#0 : tensor<6xf32>, tensor<6xf32>)
// CHECK-NEXT: ^bb0(%[[KB:.*]]: f32, %[[SB:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[ED:.*]] = arith.divf %[[SB]], %[[CNT]]
// CHECK-NEXT: arith.addf %[[KB]], %[[ED]]
// CHECK: %[[VAR:.*]] = linalg.generic {{.*}} ins(%[[SUMS]]#0, %[[SUMS]]#1 : tensor<6xf32>, tensor<6xf32>)
// CHECK-NEXT: ^bb0(%[[A1:.*]]: f32, %[[A2:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[M1:.*]] = arith.divf %[[A1]], %[[CNT]]
// CHECK-NEXT: %[[M1SQ:.*]] = arith.mulf %[[M1]], %[[M1]]
// CHECK-NEXT: %[[M2:.*]] = arith.divf %[[A2]], %[[CNT]]
// CHECK-NEXT: %[[V:.*]] = arith.subf %[[M2]], %[[M1SQ]]
// CHECK-NEXT: arith.maximumf %[[V]], %[[ZERO]]
// CHECK: %[[Y:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[CH]], #[[CH]], #[[CH]], #[[CH]], #[[ID]]], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
// CHECK-SAME: ins(%[[X]], %[[VAR]], %[[G]], %[[MEAN]], %[[B]] :
// CHECK: math.sqrt
// running_mean: 0.9 rm + 0.1 mean
// CHECK: %[[NM:.*]] = linalg.generic {{.*}} ins(%[[RM]], %[[MEAN]] : tensor<6xf32>, tensor<6xf32>)
// CHECK-NEXT: ^bb0(%[[A:.*]]: f32, %[[MB:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[T1:.*]] = arith.mulf %[[MB]], %[[M01]]
// CHECK-NEXT: %[[T2:.*]] = arith.mulf %[[A]], %[[M09]]
// CHECK-NEXT: arith.addf %[[T2]], %[[T1]]
// running_var: 0.9 rv + 0.1 var * n / max(n - 1, 1)
// CHECK: %[[NV:.*]] = linalg.generic {{.*}} ins(%[[RV]], %[[VAR]] : tensor<6xf32>, tensor<6xf32>)
// CHECK-NEXT: ^bb0(%[[A:.*]]: f32, %[[VB:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[NM1:.*]] = arith.subf %[[CNT]], %[[ONE]]
// CHECK-NEXT: %[[DEN:.*]] = arith.maximumf %[[NM1]], %[[ONE]]
// CHECK-NEXT: %[[VN:.*]] = arith.mulf %[[VB]], %[[CNT]]
// CHECK-NEXT: %[[UB:.*]] = arith.divf %[[VN]], %[[DEN]]
// CHECK-NEXT: %[[T3:.*]] = arith.mulf %[[UB]], %[[M01]]
// CHECK-NEXT: %[[T4:.*]] = arith.mulf %[[A]], %[[M09]]
// CHECK-NEXT: arith.addf %[[T4]], %[[T3]]
// CHECK: return %[[Y]], %[[NM]], %[[NV]]
func.func @batchnorm_train(%x: tensor<?x6x4x4xf32>, %g: tensor<6xf32>, %b: tensor<6xf32>, %rm: tensor<6xf32>, %rv: tensor<6xf32>) -> (tensor<?x6x4x4xf32>, tensor<6xf32>, tensor<6xf32>) {
  %y, %mean, %var = dx.batchnorm_train %x affine(%g, %b) {eps = 1.000000e-05 : f64} : (tensor<?x6x4x4xf32>, tensor<6xf32>, tensor<6xf32>) -> (tensor<?x6x4x4xf32>, tensor<6xf32>, tensor<6xf32>)
  %nm, %nv = dx.running_stats %rm, %rv, %mean, %var, %x {momentum = 1.000000e-01 : f64} : (tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<?x6x4x4xf32>) -> (tensor<6xf32>, tensor<6xf32>)
  return %y, %nm, %nv : tensor<?x6x4x4xf32>, tensor<6xf32>, tensor<6xf32>
}

// -----

// The gradient recomputes the statistics from x as the forward pass does
// (one pass, after the first sample's shift; CSE merges the two), then one pass
// over dy and x gives both sums, dbeta = sum(dy) and sum(dy (x - mean))
// (sums over N, H, W; one linalg.generic with two outputs; times
// istd = 1/sqrt(var + eps) per channel that is dgamma = sum(dy xhat)), and one more
//   dx = dy k1 + (x - mean) k2 + k3,  k1 = gamma istd,
//   k2 = -istd^2 gamma dgamma / m,  k3 = -istd gamma dbeta / m,
// the coefficients per channel (fusion inlines them; the vectorizer hoists them).
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[CH:.*]] = affine_map<(d0, d1, d2, d3) -> (d1)>
// CHECK-LABEL: func.func @batchnorm_grad(
// CHECK-SAME: %[[DY:[^:]*]]: tensor<?x6x4x4xf32>, %[[X:[^:]*]]: tensor<?x6x4x4xf32>, %[[G:[^:]*]]: tensor<6xf32>)
// CHECK: %[[FIRST:.*]] = tensor.extract_slice %[[X]][0, 0, 0, 0] [1, 6, 4, 4]
// CHECK: %[[FSUM:.*]] = linalg.generic {{.*}} ins(%[[FIRST]] :
// CHECK: %[[K:.*]] = linalg.generic {{.*}} ins(%[[FSUM]] : tensor<6xf32>)
// CHECK: %[[MOM:.*]]:2 = linalg.generic {indexing_maps = [#[[ID]], #[[CH]], #[[CH]], #[[CH]]], iterator_types = ["reduction", "parallel", "reduction", "reduction"]} ins(%[[X]], %[[K]] :
// CHECK: %[[MEAN:.*]] = linalg.generic {{.*}} ins(%[[K]], %[[MOM]]#0 :
// CHECK: %[[SUMS:.*]]:2 = linalg.generic {indexing_maps = [#[[ID]], #[[ID]], #[[CH]], #[[CH]], #[[CH]]], iterator_types = ["reduction", "parallel", "reduction", "reduction"]} ins(%[[DY]], %[[X]], %[[MEAN]] :
// CHECK-NEXT: ^bb0(%[[DYV:.*]]: f32, %[[XV:.*]]: f32, %[[MV:.*]]: f32, %[[S0:.*]]: f32, %[[S1:.*]]: f32):
// CHECK-NEXT: arith.addf %[[S0]], %[[DYV]] fastmath<reassoc>
// CHECK-NEXT: %[[XC:.*]] = arith.subf %[[XV]], %[[MV]]
// CHECK-NEXT: %[[P:.*]] = arith.mulf %[[DYV]], %[[XC]]
// CHECK-NEXT: arith.addf %[[S1]], %[[P]] fastmath<reassoc>
// CHECK: %[[ISTD:.*]] = linalg.generic {{.*}} ins(%[[MOM]]#0, %[[MOM]]#1 :
// CHECK: math.sqrt
// CHECK: %[[DG:.*]] = linalg.generic {{.*}} ins(%[[SUMS]]#1, %[[ISTD]] :
// CHECK: %[[DX:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%[[DY]], %[[X]], %[[MEAN]], %[[ISTD]], %[[G]], %[[DG]], %[[SUMS]]#0 :
// CHECK-NOT: math.sqrt
// CHECK: %[[XC2:.*]] = arith.subf
// CHECK-NEXT: arith.mulf %[[XC2]]
// CHECK-NEXT: %[[DYK:.*]] = arith.mulf
// CHECK-NEXT: %[[T:.*]] = arith.addf %[[DYK]]
// CHECK-NEXT: %[[R:.*]] = arith.addf %[[T]]
// CHECK-NEXT: linalg.yield %[[R]]
// CHECK-NOT: linalg.generic
// CHECK: return %[[DX]], %[[DG]], %[[SUMS]]#0
func.func @batchnorm_grad(%dy: tensor<?x6x4x4xf32>, %x: tensor<?x6x4x4xf32>, %g: tensor<6xf32>) -> (tensor<?x6x4x4xf32>, tensor<6xf32>, tensor<6xf32>) {
  %dx, %dgamma, %dbeta = dx.norm_grad "batchnorm" %dy, %x gamma(%g) {dims = 1 : i64, eps = 1.000000e-05 : f64} : (tensor<?x6x4x4xf32>, tensor<?x6x4x4xf32>, tensor<6xf32>) -> (tensor<?x6x4x4xf32>, tensor<6xf32>, tensor<6xf32>)
  return %dx, %dgamma, %dbeta : tensor<?x6x4x4xf32>, tensor<6xf32>, tensor<6xf32>
}
