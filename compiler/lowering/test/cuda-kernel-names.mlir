// RUN: dx-opt --dx-cuda-kernel-names %s | FileCheck %s

// dx-cuda-kernel-names (--target=cuda): declarations of libdxrt's kernels
// and every call to them are renamed to the device twins in libdxrt_cuda;
// the operands stay. Definitions and dxrt_cuda_* names are left alone.

// CHECK-LABEL: func.func private @dxrt_cuda_dense_forward(memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>) attributes {llvm.emit_c_interface}
func.func private @dxrt_dense_forward(memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>) attributes {llvm.emit_c_interface}
// CHECK-LABEL: func.func private @dxrt_cuda_workspace(i64) -> memref<?xi8>
func.func private @dxrt_workspace(i64) -> memref<?xi8> attributes {llvm.emit_c_interface}
// CHECK-LABEL: func.func private @dxrt_cuda_read_f32(
func.func private @dxrt_cuda_read_f32(memref<f32, strided<[], offset: ?>>) -> f32 attributes {llvm.emit_c_interface}

// CHECK-LABEL: func.func @step(
// CHECK-SAME: %[[X:.*]]: memref<?x?xf32, strided<[?, ?], offset: ?>>, %[[W:.*]]: memref<?x?xf32, strided<[?, ?], offset: ?>>, %[[Y:.*]]: memref<?x?xf32, strided<[?, ?], offset: ?>>
// CHECK: call @dxrt_cuda_workspace(%{{.*}}) : (i64) -> memref<?xi8>
// CHECK: call @dxrt_cuda_dense_forward(%[[X]], %[[W]], %[[Y]])
// CHECK: call @dxrt_cuda_dense_forward(%[[Y]], %[[W]], %[[X]])
// CHECK-NOT: @dxrt_dense_forward
func.func @step(%x: memref<?x?xf32, strided<[?, ?], offset: ?>>, %w: memref<?x?xf32, strided<[?, ?], offset: ?>>, %y: memref<?x?xf32, strided<[?, ?], offset: ?>>) {
  %c = arith.constant 64 : i64
  %ws = call @dxrt_workspace(%c) : (i64) -> memref<?xi8>
  call @dxrt_dense_forward(%x, %w, %y) : (memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>) -> ()
  call @dxrt_dense_forward(%y, %w, %x) : (memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>) -> ()
  return
}
