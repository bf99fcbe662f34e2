// RUN: dx-opt --dx-plan-memory --split-input-file --verify-diagnostics %s | FileCheck %s

// dx-plan-memory (after bufferization and buffer deallocation) places every
// top-level memref.alloc of dx_train_step and dx_eval_step in one workspace
// from libdxrt: a memref.view at a planned byte offset. Buffers whose live
// ranges (alloc .. last use, following views and casts) overlap get
// disjoint ranges; others may share bytes. Offsets are 64-byte aligned.
// The workspace has a fixed region (static shapes) followed by a region that
// scales with the batch (allocs sized by the batch: offsets and sizes per
// sample). The deallocs go away: a step does no heap allocation.

// CHECK-LABEL: func.func private @dxrt_workspace(i64) -> memref<?xi8> attributes {llvm.emit_c_interface}
// CHECK-LABEL: func.func @dx_train_step(
// CHECK-SAME: %[[BATCH:[^:]*]]: i64
// 1024 + 448 (100 floats rounded up to 64 bytes) fixed bytes, 64 + 64 bytes per sample.
// CHECK-SAME: attributes {dx.workspace_bytes_per_sample = 128 : i64, dx.workspace_fixed_bytes = 1472 : i64}
// CHECK: %[[N:.*]] = arith.index_cast %[[BATCH]] : i64 to index
// The workspace call follows the batch size: fixed + per_sample * batch bytes.
// CHECK-NEXT: %[[FIXED:.*]] = arith.constant 1472 : index
// CHECK-NEXT: %[[PER:.*]] = arith.constant 128 : index
// CHECK-NEXT: %[[SCALED:.*]] = arith.muli %[[PER]], %[[N]] : index
// CHECK-NEXT: %[[TOTAL:.*]] = arith.addi %[[FIXED]], %[[SCALED]] : index
// CHECK-NEXT: %[[TOTAL64:.*]] = arith.index_cast %[[TOTAL]] : index to i64
// CHECK-NEXT: %[[WS:.*]] = call @dxrt_workspace(%[[TOTAL64]]) : (i64) -> memref<?xi8>
// a and b are never live at the same time: both at offset 0.
// CHECK: %[[OA:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[A:.*]] = memref.view %[[WS]][%[[OA]]][] : memref<?xi8> to memref<256xf32>
// CHECK: %[[OB:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[B:.*]] = memref.view %[[WS]][%[[OB]]][] : memref<?xi8> to memref<256xf32>
// c is live with b: after b's 1024 bytes.
// CHECK: %[[OC:.*]] = arith.constant 1024 : index
// CHECK-NEXT: %[[C:.*]] = memref.view %[[WS]][%[[OC]]][] : memref<?xi8> to memref<100xf32>
// d and e are live together: per-sample offsets 0 and 64, after the fixed region.
// CHECK: %[[F1:.*]] = arith.constant 1472 : index
// CHECK-NEXT: %[[P1:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[S1:.*]] = arith.muli %[[P1]], %[[N]] : index
// CHECK-NEXT: %[[O1:.*]] = arith.addi %[[F1]], %[[S1]] : index
// CHECK-NEXT: %[[D:.*]] = memref.view %[[WS]][%[[O1]]][%[[N]]] : memref<?xi8> to memref<?x16xf32>
// CHECK: %[[F2:.*]] = arith.constant 1472 : index
// CHECK-NEXT: %[[P2:.*]] = arith.constant 64 : index
// CHECK-NEXT: %[[S2:.*]] = arith.muli %[[P2]], %[[N]] : index
// CHECK-NEXT: %[[O2:.*]] = arith.addi %[[F2]], %[[S2]] : index
// CHECK-NEXT: %[[E:.*]] = memref.view %[[WS]][%[[O2]]][%[[N]]] : memref<?xi8> to memref<?x3xf32>
// CHECK-NOT: memref.alloc
// CHECK-NOT: memref.dealloc
// CHECK: return
func.func @dx_train_step(%batch: i64) -> f32 {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 1.0 : f32
  %n = arith.index_cast %batch : i64 to index
  %a = memref.alloc() {alignment = 64 : i64} : memref<256xf32>
  memref.store %cst, %a[%c0] : memref<256xf32>
  %x = memref.load %a[%c0] : memref<256xf32>
  memref.dealloc %a : memref<256xf32>
  %b = memref.alloc() {alignment = 64 : i64} : memref<256xf32>
  memref.store %x, %b[%c0] : memref<256xf32>
  %c = memref.alloc() {alignment = 64 : i64} : memref<100xf32>
  memref.store %x, %c[%c0] : memref<100xf32>
  %y = memref.load %b[%c0] : memref<256xf32>
  %z = memref.load %c[%c0] : memref<100xf32>
  memref.dealloc %b : memref<256xf32>
  memref.dealloc %c : memref<100xf32>
  %d = memref.alloc(%n) {alignment = 64 : i64} : memref<?x16xf32>
  memref.store %y, %d[%c0, %c0] : memref<?x16xf32>
  %e = memref.alloc(%n) {alignment = 64 : i64} : memref<?x3xf32>
  %dv = memref.load %d[%c0, %c0] : memref<?x16xf32>
  memref.store %dv, %e[%c0, %c0] : memref<?x3xf32>
  memref.dealloc %d : memref<?x16xf32>
  %w = memref.load %e[%c0, %c0] : memref<?x3xf32>
  memref.dealloc %e : memref<?x3xf32>
  return %w : f32
}

// -----

// A use through a view (here a cast) keeps the buffer live: b, allocated
// while a's cast is still to be read, cannot share a's bytes.
// CHECK-LABEL: func.func @dx_eval_step(
// CHECK-SAME: attributes {dx.workspace_bytes_per_sample = 0 : i64, dx.workspace_fixed_bytes = 128 : i64}
// CHECK: %[[WS:.*]] = call @dxrt_workspace
// (index constants print as %c<value>)
// CHECK: memref.view %[[WS]][%c0{{(_[0-9]+)?}}][] : memref<?xi8> to memref<16xf32>
// CHECK: memref.view %[[WS]][%c64][] : memref<?xi8> to memref<16xf32>
func.func @dx_eval_step(%batch: i64) -> f32 {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 1.0 : f32
  %a = memref.alloc() {alignment = 64 : i64} : memref<16xf32>
  %ac = memref.cast %a : memref<16xf32> to memref<?xf32>
  memref.store %cst, %a[%c0] : memref<16xf32>
  %b = memref.alloc() {alignment = 64 : i64} : memref<16xf32>
  memref.store %cst, %b[%c0] : memref<16xf32>
  %x = memref.load %ac[%c0] : memref<?xf32>
  %y = memref.load %b[%c0] : memref<16xf32>
  memref.dealloc %a : memref<16xf32>
  memref.dealloc %b : memref<16xf32>
  %s = arith.addf %x, %y : f32
  return %s : f32
}

// -----

// A flat buffer of k * batch elements (e.g. the random numbers of a dropout
// over [B, 6]: B * 6 floats) is batch-scaled too: 24 bytes per sample,
// rounded up to 64.
// CHECK-LABEL: func.func @dx_train_step(
// CHECK-SAME: %[[BATCH:[^:]*]]: i64
// CHECK-SAME: attributes {dx.workspace_bytes_per_sample = 64 : i64, dx.workspace_fixed_bytes = 0 : i64}
// CHECK: %[[N:.*]] = arith.index_cast %[[BATCH]] : i64 to index
// CHECK: %[[WS:.*]] = call @dxrt_workspace
// CHECK: %[[M:.*]] = arith.muli %[[N]], %c6 : index
// CHECK: memref.view %[[WS]][%{{.*}}][%[[M]]] : memref<?xi8> to memref<?xf32>
// CHECK-NOT: memref.alloc
func.func @dx_train_step(%batch: i64) -> f32 {
  %c0 = arith.constant 0 : index
  %c6 = arith.constant 6 : index
  %cst = arith.constant 1.0 : f32
  %n = arith.index_cast %batch : i64 to index
  %m = arith.muli %n, %c6 : index
  %r = memref.alloc(%m) {alignment = 64 : i64} : memref<?xf32>
  memref.store %cst, %r[%c0] : memref<?xf32>
  %x = memref.load %r[%c0] : memref<?xf32>
  memref.dealloc %r : memref<?xf32>
  return %x : f32
}

// -----

// What the plan cannot place stays on the heap, with a remark: a buffer that
// escapes the step, one sized by something other than the batch, one with
// two dynamic dims (the batch twice). Functions other than the two steps are
// left alone.
// CHECK-LABEL: func.func @dx_train_step(
// CHECK-NOT: call @dxrt_workspace
// CHECK: memref.alloc() {alignment = 64 : i64} : memref<8xf32>
// CHECK: memref.alloc(%{{.*}}) {alignment = 64 : i64} : memref<?xf32>
// CHECK: memref.dealloc
// CHECK: memref.alloc(%{{.*}}, %{{.*}}) {alignment = 64 : i64} : memref<?x?xf32>
// CHECK: memref.dealloc
// CHECK-LABEL: func.func @helper(
// CHECK: memref.alloc() : memref<4xf32>
// CHECK: memref.dealloc
func.func @dx_train_step(%batch: i64) -> memref<8xf32> {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 1.0 : f32
  %n = arith.index_cast %batch : i64 to index
  %m = arith.muli %n, %n : index
  // expected-remark@+1 {{buffer left on the heap by the memory plan}}
  %r = memref.alloc() {alignment = 64 : i64} : memref<8xf32>
  memref.store %cst, %r[%c0] : memref<8xf32>
  // expected-remark@+1 {{buffer left on the heap by the memory plan}}
  %o = memref.alloc(%m) {alignment = 64 : i64} : memref<?xf32>
  memref.store %cst, %o[%c0] : memref<?xf32>
  memref.dealloc %o : memref<?xf32>
  // expected-remark@+1 {{buffer left on the heap by the memory plan}}
  %t = memref.alloc(%n, %n) {alignment = 64 : i64} : memref<?x?xf32>
  memref.store %cst, %t[%c0, %c0] : memref<?x?xf32>
  memref.dealloc %t : memref<?x?xf32>
  return %r : memref<8xf32>
}
func.func @helper() {
  %a = memref.alloc() : memref<4xf32>
  memref.dealloc %a : memref<4xf32>
  return
}

// -----

// A step without buffers calls no workspace (and the declaration is added once).
// CHECK-LABEL: func.func private @dxrt_workspace
// CHECK-LABEL: func.func @dx_eval_step(
// CHECK-NOT: call
// CHECK: return
func.func @dx_eval_step(%batch: i64) -> i64 {
  return %batch : i64
}

// -----

// Reshapes of batch-sized memrefs size their buffers with affine.apply
// (a dense layer over [B, 3, 5] runs on [B * 3, 5]): B * 3 rows of 4 floats
// and B rows of 3 floats, live at the same time, are both per-sample
// buffers, 48 + 12 bytes per sample (each 64-aligned), not heap allocations (the batch is found through the
// affine.apply; before, its result was taken for the batch and the buffer
// sized by B itself was left on the heap).
// CHECK-LABEL: func.func @dx_train_step(
// CHECK-SAME: dx.workspace_bytes_per_sample = 128 : i64, dx.workspace_fixed_bytes = 0 : i64
// CHECK: %[[N:.*]] = arith.index_cast
// CHECK: %[[ROWS:.*]] = affine.apply #{{.*}}()[%[[N]]]
// CHECK: memref.view %{{.*}}[%{{.*}}][%[[ROWS]]] : memref<?xi8> to memref<?x4xf32>
// CHECK: memref.view %{{.*}}[%{{.*}}][%[[N]]] : memref<?xi8> to memref<?x3xf32>
// CHECK-NOT: memref.alloc
#rows = affine_map<()[s0] -> (s0 * 3)>
func.func @dx_train_step(%batch: i64) {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.0 : f32
  %n = arith.index_cast %batch : i64 to index
  %rows = affine.apply #rows()[%n]
  %a = memref.alloc(%rows) {alignment = 64 : i64} : memref<?x4xf32>
  memref.store %cst, %a[%c0, %c0] : memref<?x4xf32>
  %b = memref.alloc(%n) {alignment = 64 : i64} : memref<?x3xf32>
  memref.store %cst, %b[%c0, %c0] : memref<?x3xf32>
  memref.store %cst, %a[%c0, %c0] : memref<?x4xf32>
  memref.dealloc %a : memref<?x4xf32>
  memref.dealloc %b : memref<?x3xf32>
  return
}

// -----

// Largest first alone packs these four into 512 bytes: d (256) at 0, a (192)
// at 0 beside it in time, b (192) above a, and c (128) above both b and d.
// The most bytes live at one time are 384 (a with b, or c with d), and
// another greedy order reaches that (PackBuffers.cpp): the plan keeps it.
// CHECK-LABEL: func.func @dx_train_step(
// CHECK-SAME: dx.workspace_fixed_bytes = 384 : i64
func.func @dx_train_step(%batch: i64) -> f32 {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 1.0 : f32
  %a = memref.alloc() {alignment = 64 : i64} : memref<48xf32>
  memref.store %cst, %a[%c0] : memref<48xf32>
  %b = memref.alloc() {alignment = 64 : i64} : memref<48xf32>
  memref.store %cst, %b[%c0] : memref<48xf32>
  %va = memref.load %a[%c0] : memref<48xf32>
  memref.dealloc %a : memref<48xf32>
  %c = memref.alloc() {alignment = 64 : i64} : memref<32xf32>
  memref.store %va, %c[%c0] : memref<32xf32>
  %vb = memref.load %b[%c0] : memref<48xf32>
  memref.dealloc %b : memref<48xf32>
  %d = memref.alloc() {alignment = 64 : i64} : memref<64xf32>
  memref.store %vb, %d[%c0] : memref<64xf32>
  %vd = memref.load %d[%c0] : memref<64xf32>
  memref.dealloc %d : memref<64xf32>
  %vc = memref.load %c[%c0] : memref<32xf32>
  memref.dealloc %c : memref<32xf32>
  %s = arith.addf %vc, %vd : f32
  return %s : f32
}
