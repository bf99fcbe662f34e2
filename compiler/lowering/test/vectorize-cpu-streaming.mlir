// RUN: dx-opt --dx-vectorize-cpu=streaming-stores=1 --split-input-file %s | FileCheck %s
// RUN: dx-opt --dx-vectorize-cpu --split-input-file %s | FileCheck %s --check-prefix=OFF

// dx-vectorize-cpu step 7 (VectorizeCpu.h): an elementwise op that writes a
// planned workspace view runs in two copies, chosen by the output's size at
// run time: from 4 MiB (the whole buffer's size) its vector stores are
// non-temporal and an sfence follows; below it, plain stores.

// CHECK-LABEL: func.func @relu_into_workspace(
// CHECK: %[[LIMIT:.*]] = arith.constant 4194304 : index
// CHECK: %[[LARGE:.*]] = arith.cmpi uge, %{{.*}}, %[[LIMIT]] : index
// CHECK: scf.if %[[LARGE]] {
// CHECK: vector.store {{.*}} {nontemporal = true} : memref<{{.*}}>, vector<16xf32>
// CHECK: call @llvm.x86.sse.sfence() : () -> ()
// CHECK: } else {
// CHECK-NOT: nontemporal
// CHECK: vector.store {{.*}} : memref<{{.*}}>, vector<16xf32>
// CHECK-NOT: nontemporal
// CHECK: return
// OFF-LABEL: func.func @relu_into_workspace(
// OFF-NOT: scf.if
// OFF-NOT: nontemporal
#id = affine_map<(n, c, h, w) -> (n, c, h, w)>
func.func @relu_into_workspace(%x: memref<?x16x64x64xf32>, %ws: memref<?xi8>, %n: index) {
  %zero = arith.constant 0.0 : f32
  %off = arith.constant 0 : index
  %y = memref.view %ws[%off][%n] : memref<?xi8> to memref<?x16x64x64xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x : memref<?x16x64x64xf32>) outs(%y : memref<?x16x64x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.maximumf %a, %zero : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// An output that is not a workspace view (a function argument: its
// alignment is not known) and a reduction keep one copy, plain stores.
// CHECK-LABEL: func.func @not_streamed(
// CHECK-NOT: scf.if
// CHECK-NOT: nontemporal
// CHECK: return
#id = affine_map<(n, c) -> (n, c)>
#row = affine_map<(n, c) -> (n)>
func.func @not_streamed(%x: memref<?x1024xf32>, %y: memref<?x1024xf32>, %s: memref<?xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<?x1024xf32>) outs(%y : memref<?x1024xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.maximumf %a, %zero : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<?x1024xf32>) outs(%s : memref<?xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %a, %o : f32
    linalg.yield %r : f32
  }
  return
}
