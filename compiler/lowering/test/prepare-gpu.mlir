// RUN: dx-opt --dx-prepare-gpu --split-input-file --verify-diagnostics %s | FileCheck %s

// dx-prepare-gpu (--target=cuda, after bufferization, dx-plan-memory and
// dx-cuda-kernel-names) turns every memory-touching op at the top level of a
// function into a 1-D scf.parallel, which the tiling by 256 and the GPU
// mapping then make a kernel: memref.copy becomes linalg.copy; linalg ops
// become loops, parallel dimensions first (reductions as scf.for inside),
// and what has no parallel dimension runs in a one-iteration scf.parallel;
// dx_update's host loop becomes an scf.parallel when it is elementwise;
// multi-dimensional scf.parallel loops are collapsed to one dimension. On
// the host only calls (dxrt_cuda_*), views and arithmetic stay; a returned
// f32 scalar (the loss) is read back through dxrt_cuda_read_f32; any other
// host access to memory is an error at the op.

// 1. An elementwise generic (bias + relu over [B, 8]) is ONE 1-D
//    scf.parallel over all B * 8 elements; the row and column come from
//    the flat index (divsi / remsi by the inner size), the body's
//    arithmetic is inside.

#id2 = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>

// CHECK-LABEL: func.func @bias_relu(
// CHECK-SAME: %[[X:[^:]*]]: memref<?x8xf32>, %[[B:[^:]*]]: memref<8xf32, strided<[1], offset: 32>>, %[[Y:[^:]*]]: memref<?x8xf32>)
// CHECK-NOT: linalg.generic
// CHECK: %[[ROWS:.*]] = memref.dim %[[X]], %{{.*}} : memref<?x8xf32>
// CHECK: %[[C8:.*]] = arith.constant 8 : index
// CHECK: %[[R1:.*]] = arith.muli %{{.*}}, %[[ROWS]] : index
// CHECK: %[[N:.*]] = arith.muli %[[R1]], %[[C8]] : index
// CHECK: scf.parallel (%[[I:[^)]*]]) = (%{{[^)]*}}) to (%[[N]]) step (%{{[^)]*}}) {
// CHECK-NEXT: %[[J:.*]] = arith.remsi %[[I]], %[[C8]] : index
// CHECK-NEXT: %[[R:.*]] = arith.divsi %[[I]], %[[C8]] : index
// CHECK: memref.load %[[X]]
// CHECK: memref.load %[[B]]
// CHECK: %[[SUM:.*]] = arith.addf
// CHECK-NEXT: %[[RELU:.*]] = arith.maximumf %[[SUM]], %{{.*}} : f32
// CHECK-NEXT: memref.store %[[RELU]], %[[Y]][
// CHECK-NEXT: scf.reduce
// CHECK-NEXT: }
// CHECK-NEXT: return
func.func @bias_relu(%x: memref<?x8xf32>, %b: memref<8xf32, strided<[1], offset: 32>>, %y: memref<?x8xf32>) {
  %zero = arith.constant 0.000000e+00 : f32
  linalg.generic {indexing_maps = [#id2, #col, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x, %b : memref<?x8xf32>, memref<8xf32, strided<[1], offset: 32>>) outs(%y : memref<?x8xf32>) {
  ^bb0(%in: f32, %bias: f32, %out: f32):
    %0 = arith.addf %in, %bias : f32
    %1 = arith.maximumf %0, %zero : f32
    linalg.yield %1 : f32
  }
  return
}

// -----

// 2. A reduction over the inner dimension (the row maximum of softmax):
//    one thread per output row, an scf.parallel over the rows with the
//    reduction as an scf.for inside.

#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

// CHECK-LABEL: func.func @row_max(
// CHECK-SAME: %[[X:[^:]*]]: memref<?x3xf32>, %[[M:[^:]*]]: memref<?xf32>)
// CHECK-NOT: linalg.generic
// CHECK: %[[ROWS:.*]] = memref.dim %[[X]], %{{.*}} : memref<?x3xf32>
// CHECK: %[[C3:.*]] = arith.constant 3 : index
// CHECK: scf.parallel (%[[I:[^)]*]]) = (%{{[^)]*}}) to (%[[ROWS]]) step (%{{[^)]*}}) {
// CHECK-NEXT: scf.for %[[K:.*]] = %{{.*}} to %[[C3]] step %{{.*}} {
// CHECK-NEXT: %[[XI:.*]] = affine.apply #{{[a-z0-9_]+}}(%[[I]])
// CHECK-NEXT: %[[XK:.*]] = affine.apply #{{[a-z0-9_]+}}(%[[K]])
// CHECK-NEXT: %[[XV:.*]] = memref.load %[[X]][%[[XI]], %[[XK]]] : memref<?x3xf32>
// CHECK: %[[MV:.*]] = memref.load %[[M]][
// CHECK: %[[MAX:.*]] = arith.maximumf %[[MV]], %[[XV]] : f32
// CHECK-NEXT: memref.store %[[MAX]], %[[M]][
// CHECK-NEXT: }
// CHECK-NEXT: scf.reduce
// CHECK-NEXT: }
// CHECK-NEXT: return
func.func @row_max(%x: memref<?x3xf32>, %m: memref<?xf32>) {
  linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<?x3xf32>) outs(%m : memref<?xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.maximumf %out, %in : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

// 2b. A reduction over the OUTER dimension (a bias gradient: the sum over
//     the batch): the loops are reordered, parallel first, so it is still
//     one scf.parallel over the 8 outputs with the batch as an scf.for
//     inside (not a host loop over the batch around a kernel).

#id2 = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>

// CHECK-LABEL: func.func @col_sum(
// CHECK-SAME: %[[DY:[^:]*]]: memref<?x8xf32>, %[[DB:[^:]*]]: memref<8xf32>)
// CHECK-NOT: linalg.generic
// CHECK: %[[ROWS:.*]] = memref.dim %[[DY]], %{{.*}} : memref<?x8xf32>
// CHECK: %[[C8:.*]] = arith.constant 8 : index
// CHECK: scf.parallel (%[[J:[^)]*]]) = (%{{[^)]*}}) to (%[[C8]]) step (%{{[^)]*}}) {
// CHECK-NEXT: scf.for %[[B:.*]] = %{{.*}} to %[[ROWS]] step %{{.*}} {
// CHECK-NEXT: %[[R:.*]] = affine.apply #{{[a-z0-9_]+}}(%[[B]])
// CHECK-NEXT: %[[C:.*]] = affine.apply #{{[a-z0-9_]+}}(%[[J]])
// CHECK-NEXT: %[[V:.*]] = memref.load %[[DY]][%[[R]], %[[C]]] : memref<?x8xf32>
// CHECK: %[[ACC:.*]] = memref.load %[[DB]][
// CHECK: %[[S:.*]] = arith.addf %[[ACC]], %[[V]] : f32
// CHECK-NEXT: memref.store %[[S]], %[[DB]][
// CHECK-NEXT: }
// CHECK-NEXT: scf.reduce
// CHECK-NEXT: }
// CHECK-NEXT: return
func.func @col_sum(%dy: memref<?x8xf32>, %db: memref<8xf32>) {
  linalg.generic {indexing_maps = [#id2, #col], iterator_types = ["reduction", "parallel"]}
      ins(%dy : memref<?x8xf32>) outs(%db : memref<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %out, %in : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

// 3. A scalar reduction (the loss summed over the batch into a 0-D buffer)
//    has no parallel dimension: a one-iteration scf.parallel (one GPU
//    thread) around the scf.for over the batch.

#vec = affine_map<(d0) -> (d0)>
#scalar = affine_map<(d0) -> ()>

// CHECK-LABEL: func.func @loss_sum(
// CHECK-SAME: %[[L:[^:]*]]: memref<?xf32>, %[[S:[^:]*]]: memref<f32>)
// CHECK-NOT: linalg.generic
// CHECK: %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT: scf.parallel (%{{[^)]*}}) = (%[[C0]]) to (%[[C1]]) step (%[[C1]]) {
// CHECK: %[[B:.*]] = memref.dim %[[L]], %{{.*}} : memref<?xf32>
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %[[B]] step %{{.*}} {
// CHECK: %[[V:.*]] = memref.load %[[L]][
// CHECK-NEXT: %[[ACC:.*]] = memref.load %[[S]][] : memref<f32>
// CHECK-NEXT: %[[SUM:.*]] = arith.addf %[[ACC]], %[[V]] fastmath<reassoc> : f32
// CHECK-NEXT: memref.store %[[SUM]], %[[S]][] : memref<f32>
// CHECK-NEXT: }
// CHECK-NEXT: scf.reduce
// CHECK-NEXT: }
// CHECK-NEXT: return
func.func @loss_sum(%l: memref<?xf32>, %s: memref<f32>) {
  linalg.generic {indexing_maps = [#vec, #scalar], iterator_types = ["reduction"]}
      ins(%l : memref<?xf32>) outs(%s : memref<f32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %out, %in fastmath<reassoc> : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

// 3b. A generic with no loops at all (the loss divided by the batch size,
//     a 0-D buffer in place) runs in one thread too; the division by a
//     host value stays inside it.

#none = affine_map<() -> ()>

// CHECK-LABEL: func.func @loss_mean(
// CHECK-SAME: %[[S:[^:]*]]: memref<f32>, %[[BATCH:[^:]*]]: i64)
// CHECK-NOT: linalg.generic
// CHECK: %[[BF:.*]] = arith.sitofp %[[BATCH]] : i64 to f32
// CHECK-NEXT: %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT: scf.parallel (%{{[^)]*}}) = (%[[C0]]) to (%[[C1]]) step (%[[C1]]) {
// CHECK-NEXT: %[[V:.*]] = memref.load %[[S]][] : memref<f32>
// CHECK: %[[Q:.*]] = arith.divf %[[V]], %[[BF]] : f32
// CHECK-NEXT: memref.store %[[Q]], %[[S]][] : memref<f32>
// CHECK-NEXT: scf.reduce
// CHECK-NEXT: }
// CHECK-NEXT: return
func.func @loss_mean(%s: memref<f32>, %batch: i64) {
  %n = arith.sitofp %batch : i64 to f32
  linalg.generic {indexing_maps = [#none, #none], iterator_types = []} ins(%s : memref<f32>) outs(%s : memref<f32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.divf %in, %n : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

// 4. memref.copy (bufferization's materialize_in_destination: the logits
//    into the caller's output buffer) goes through linalg.copy: one 1-D
//    scf.parallel that loads the source and stores into the target.

// CHECK-LABEL: func.func @copy_out(
// CHECK-SAME: %[[SRC:[^:]*]]: memref<?x3xf32>, %[[DST:[^:]*]]: memref<?x3xf32>)
// CHECK-NOT: memref.copy
// CHECK-NOT: linalg.copy
// CHECK: %[[C3:.*]] = arith.constant 3 : index
// CHECK: %[[N:.*]] = arith.muli %{{.*}}, %[[C3]] : index
// CHECK: scf.parallel (%[[I:[^)]*]]) = (%{{[^)]*}}) to (%[[N]]) step (%{{[^)]*}}) {
// CHECK-NEXT: arith.remsi %[[I]], %[[C3]] : index
// CHECK-NEXT: arith.divsi %[[I]], %[[C3]] : index
// CHECK: %[[V:.*]] = memref.load %[[SRC]][{{.*}}] : memref<?x3xf32>
// CHECK: memref.store %[[V]], %[[DST]][{{.*}}] : memref<?x3xf32>
// CHECK-NEXT: scf.reduce
// CHECK-NEXT: }
// CHECK-NEXT: return
func.func @copy_out(%src: memref<?x3xf32>, %dst: memref<?x3xf32>) {
  memref.copy %src, %dst : memref<?x3xf32> to memref<?x3xf32>
  return
}

// -----

// 5. dx_update as BuildABI writes it (SGD with momentum: parameters,
//    gradients and the momentum buffer, each at element i of its flat
//    buffer): the host scf.for becomes an scf.parallel with the same
//    bounds and body, one thread per parameter. Host-side scalars (the
//    learning rate, the first-step flag) are used inside.

// CHECK-LABEL: func.func @dx_update(
// CHECK-SAME: %[[P:[^:]*]]: memref<?xf32>, %[[G:[^:]*]]: memref<?xf32>, %[[ST:[^:]*]]: memref<?xf32>, %[[LR:[^:]*]]: f32, %[[STEP:[^:]*]]: i64)
// CHECK-NOT: scf.for
// CHECK: %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT: %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[N:.*]] = arith.constant 83 : index
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[STEP]], %{{.*}} : i64
// CHECK-NEXT: scf.parallel (%[[I:[^)]*]]) = (%[[C0]]) to (%[[N]]) step (%[[C1]]) {
// CHECK-NEXT: %[[PV:.*]] = memref.load %[[P]][%[[I]]] : memref<?xf32>
// CHECK-NEXT: %[[GV:.*]] = memref.load %[[G]][%[[I]]] : memref<?xf32>
// CHECK-NEXT: %[[BV:.*]] = memref.load %[[ST]][%[[I]]] : memref<?xf32>
// CHECK: %[[BUF:.*]] = arith.select %[[FIRST]], %[[GV]], %{{.*}} : f32
// CHECK-NEXT: memref.store %[[BUF]], %[[ST]][%[[I]]] : memref<?xf32>
// CHECK-NEXT: %[[D:.*]] = arith.mulf %[[LR]], %[[BUF]] : f32
// CHECK-NEXT: %[[NEW:.*]] = arith.subf %[[PV]], %[[D]] : f32
// CHECK-NEXT: memref.store %[[NEW]], %[[P]][%[[I]]] : memref<?xf32>
// CHECK-NEXT: scf.reduce
// CHECK-NEXT: }
// CHECK-NEXT: return
func.func @dx_update(%arg0: memref<?xf32>, %arg1: memref<?xf32>, %arg2: memref<?xf32>, %arg3: f32, %arg4: i64) attributes {llvm.emit_c_interface} {
  %cst = arith.constant 0.899999976 : f32
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %c83 = arith.constant 83 : index
  %c1_i64 = arith.constant 1 : i64
  %0 = arith.cmpi eq, %arg4, %c1_i64 : i64
  scf.for %arg5 = %c0 to %c83 step %c1 {
    %1 = memref.load %arg0[%arg5] : memref<?xf32>
    %2 = memref.load %arg1[%arg5] : memref<?xf32>
    %3 = memref.load %arg2[%arg5] : memref<?xf32>
    %4 = arith.mulf %3, %cst : f32
    %5 = arith.addf %4, %2 : f32
    %6 = arith.select %0, %2, %5 : f32
    memref.store %6, %arg2[%arg5] : memref<?xf32>
    %7 = arith.mulf %arg3, %6 : f32
    %8 = arith.subf %1, %7 : f32
    memref.store %8, %arg0[%arg5] : memref<?xf32>
  }
  return
}

// -----

// 5b. A host loop that is not elementwise (iteration i reads element i + 1,
//     which iteration i + 1 overwrites: the order matters) is not made
//     parallel: it runs, unchanged, in a one-iteration scf.parallel.

// CHECK-LABEL: func.func @shift(
// CHECK-SAME: %[[P:[^:]*]]: memref<?xf32>)
// CHECK: arith.constant 82 : index
// CHECK-NEXT: %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT: scf.parallel (%{{[^)]*}}) = (%[[C0]]) to (%[[C1]]) step (%[[C1]]) {
// CHECK-NEXT: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT: %[[NEXT:.*]] = arith.addi %[[I]], %{{.*}} : index
// CHECK-NEXT: %[[V:.*]] = memref.load %[[P]][%[[NEXT]]] : memref<?xf32>
// CHECK-NEXT: memref.store %[[V]], %[[P]][%[[I]]] : memref<?xf32>
// CHECK-NEXT: }
// CHECK-NEXT: scf.reduce
// CHECK-NEXT: }
// CHECK-NEXT: return
func.func @shift(%p: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c82 = arith.constant 82 : index
  scf.for %i = %c0 to %c82 step %c1 {
    %next = arith.addi %i, %c1 : index
    %v = memref.load %p[%next] : memref<?xf32>
    memref.store %v, %p[%i] : memref<?xf32>
  }
  return
}

// -----

// 5c. Adam's update: both moments live in one state buffer, slot k at
//     element i + k * N (N = 83 parameters). Iteration i touches [i] and
//     [i + 83] only, and no other iteration does (the offsets are a trip
//     count apart): one thread per parameter, not one thread for all.

// CHECK-LABEL: func.func @adam_like(
// CHECK-SAME: %[[P:[^:]*]]: memref<?xf32>, %[[G:[^:]*]]: memref<?xf32>, %[[ST:[^:]*]]: memref<?xf32>)
// CHECK-NOT: scf.for
// CHECK: scf.parallel (%[[I:[^)]*]]) = (%{{.*}}) to (%{{.*}}) step (%{{.*}}) {
// CHECK: %[[J:.*]] = arith.addi %[[I]], %{{.*}} : index
// CHECK: memref.load %[[ST]][%[[J]]] : memref<?xf32>
// CHECK: memref.store %{{.*}}, %[[ST]][%[[J]]] : memref<?xf32>
// CHECK: memref.store %{{.*}}, %[[P]][%[[I]]] : memref<?xf32>
// CHECK-NOT: scf.for
// CHECK: return
func.func @adam_like(%p: memref<?xf32>, %g: memref<?xf32>, %st: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c83 = arith.constant 83 : index
  scf.for %i = %c0 to %c83 step %c1 {
    %j = arith.addi %i, %c83 : index
    %pv = memref.load %p[%i] : memref<?xf32>
    %gv = memref.load %g[%i] : memref<?xf32>
    %m = memref.load %st[%i] : memref<?xf32>
    %v = memref.load %st[%j] : memref<?xf32>
    %m2 = arith.addf %m, %gv : f32
    %g2 = arith.mulf %gv, %gv : f32
    %v2 = arith.addf %v, %g2 : f32
    memref.store %m2, %st[%i] : memref<?xf32>
    memref.store %v2, %st[%j] : memref<?xf32>
    %d = arith.divf %m2, %v2 : f32
    %np = arith.subf %pv, %d : f32
    memref.store %np, %p[%i] : memref<?xf32>
  }
  return
}

// -----

// 5d. Offsets closer than the trip count (82 apart in a loop of 83
//     iterations: iteration 0 reads [82], which iteration 82 writes): the
//     iterations are not independent, so one thread runs the loop.

// CHECK-LABEL: func.func @slots_overlap(
// CHECK: scf.parallel (%{{[^)]*}}) = (%{{.*}}) to (%{{.*}}) step (%{{.*}}) {
// CHECK-NEXT: scf.for
func.func @slots_overlap(%st: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c82 = arith.constant 82 : index
  %c83 = arith.constant 83 : index
  scf.for %i = %c0 to %c83 step %c1 {
    %j = arith.addi %c82, %i : index
    %a = memref.load %st[%j] : memref<?xf32>
    memref.store %a, %st[%i] : memref<?xf32>
  }
  return
}

// -----

// 5e. LARS: the update first computes per-layer norms in a loop whose results
//     the host then uses for the layer's rate. Those values would have to come
//     back from the device: a clear error instead of invalid IR.

func.func @lars_like(%p: memref<?xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c83 = arith.constant 83 : index
  %zero = arith.constant 0.0 : f32
  // expected-error@+1 {{the CUDA target cannot run this optimizer update on the GPU yet}}
  %norm = scf.for %i = %c0 to %c83 step %c1 iter_args(%acc = %zero) -> (f32) {
    %v = memref.load %p[%i] : memref<?xf32>
    %sq = arith.mulf %v, %v : f32
    %next = arith.addf %acc, %sq : f32
    scf.yield %next : f32
  }
  %r = math.sqrt %norm : f32
  return %r : f32
}

// -----

// 6. The end of dx_eval_step: the loss is a 0-D view of the workspace that
//    the function returns. Its host load becomes a call to
//    dxrt_cuda_read_f32 (declared once, at the top of the module) on the
//    view cast to the declaration's layout; the workspace call and the view
//    stay on the host; the fill of the loss is a one-thread kernel.

// CHECK-LABEL: func.func private @dxrt_cuda_read_f32(memref<f32, strided<[], offset: ?>>) -> f32 attributes {llvm.emit_c_interface}
// CHECK-LABEL: func.func @dx_eval_step(
// CHECK: %[[WS:.*]] = call @dxrt_cuda_workspace(%{{.*}}) : (i64) -> memref<?xi8>
// CHECK-NEXT: %[[LOSS:.*]] = memref.view %[[WS]][%{{.*}}][] : memref<?xi8> to memref<f32>
// CHECK: scf.parallel
// CHECK: memref.store %{{.*}}, %[[LOSS]][] : memref<f32>
// CHECK: scf.reduce
// CHECK-NOT: memref.load
// CHECK: %[[CAST:.*]] = memref.cast %[[LOSS]] : memref<f32> to memref<f32, strided<[], offset: ?>>
// CHECK-NEXT: %[[V:.*]] = call @dxrt_cuda_read_f32(%[[CAST]]) : (memref<f32, strided<[], offset: ?>>) -> f32
// CHECK-NEXT: return %[[V]] : f32
func.func private @dxrt_cuda_workspace(i64) -> memref<?xi8> attributes {llvm.emit_c_interface}
func.func @dx_eval_step(%batch: i64) -> f32 attributes {llvm.emit_c_interface} {
  %zero = arith.constant 0.000000e+00 : f32
  %c0 = arith.constant 0 : index
  %bytes = arith.constant 64 : i64
  %ws = call @dxrt_cuda_workspace(%bytes) : (i64) -> memref<?xi8>
  %loss = memref.view %ws[%c0][] : memref<?xi8> to memref<f32>
  linalg.fill ins(%zero : f32) outs(%loss : memref<f32>)
  %v = memref.load %loss[] : memref<f32>
  return %v : f32
}

// -----

// 7. A load on the host whose value the host computes with (not returned
//    as it is) cannot be read back: an error at the load.

func.func @host_arith(%loss: memref<f32>) -> f32 {
  %two = arith.constant 2.000000e+00 : f32
  // expected-error@+1 {{the CUDA target cannot run this on the GPU yet: 'memref.load' would touch device memory on the host}}
  %v = memref.load %loss[] : memref<f32>
  %w = arith.mulf %v, %two : f32
  return %w : f32
}

// -----

// 7b. Only a 0-D f32 is read back: an element of a 1-D buffer returned
//     from the host is an error at the load.

func.func @host_element(%out: memref<?xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  // expected-error@+1 {{the CUDA target cannot run this on the GPU yet: 'memref.load' would touch device memory on the host}}
  %v = memref.load %out[%c0] : memref<?xf32>
  return %v : f32
}

// -----

// 7c. A store on the host is an error at the store.

func.func @host_store(%out: memref<?xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  // expected-error@+1 {{the CUDA target cannot run this on the GPU yet: 'memref.store' would touch device memory on the host}}
  memref.store %v, %out[%c0] : memref<?xf32>
  return
}

// -----

// 7d. Linalg on tensors (not bufferized) is rejected at the op.

#vec = affine_map<(d0) -> (d0)>

func.func @tensors(%x: tensor<?xf32>) -> tensor<?xf32> {
  // expected-error@+1 {{the GPU code generator expects bufferized operations}}
  %0 = linalg.generic {indexing_maps = [#vec], iterator_types = ["parallel"]} outs(%x : tensor<?xf32>) {
  ^bb0(%out: f32):
    %1 = arith.negf %out : f32
    linalg.yield %1 : f32
  } -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// 7e. Control flow between blocks is not expected: an error at the function.

// expected-error@+1 {{the GPU code generator expects a function of one block}}
func.func @two_blocks(%x: memref<f32>) {
  cf.br ^bb1
^bb1:
  return
}
