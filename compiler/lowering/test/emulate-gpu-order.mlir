// dx-emulate-gpu-order runs the GPU's parallel loops on the CPU in another
// order. A kernel whose threads are independent (@scale) gives the same
// numbers in every order; one whose threads read what other threads write
// (@prefix, a race on a GPU) gives other numbers in another order, which is
// how emulate-gpu-train.test would catch such a kernel in the CUDA lowering.
// The orders themselves: forward 0..n-1, reverse n-1..0, odd-even the odd
// iterations then the even ones (each iteration appends its index to @trace).
// DEFINE: %{to_llvm} = convert-linalg-to-loops, convert-scf-to-cf, expand-strided-metadata, lower-affine, finalize-memref-to-llvm, convert-arith-to-llvm, convert-index-to-llvm, convert-func-to-llvm, convert-cf-to-llvm, reconcile-unrealized-casts
// DEFINE: %{run} = mlir-cpu-runner -e main -entry-point-result=void -shared-libs=/usr/lib/llvm-19/lib/libmlir_runner_utils.so,/usr/lib/llvm-19/lib/libmlir_c_runner_utils.so
// RUN: dx-opt --pass-pipeline='builtin.module(dx-emulate-gpu-order{order=forward}, %{to_llvm})' %s | %{run} | FileCheck %s --check-prefix=FWD
// RUN: dx-opt --pass-pipeline='builtin.module(dx-emulate-gpu-order{order=reverse}, %{to_llvm})' %s | %{run} | FileCheck %s --check-prefix=REV
// RUN: dx-opt --pass-pipeline='builtin.module(dx-emulate-gpu-order{order=odd-even}, %{to_llvm})' %s | %{run} | FileCheck %s --check-prefix=OE
// RUN: dx-opt --dx-emulate-gpu-order='order=reverse' %s | FileCheck %s --check-prefix=IR
// RUN: not dx-opt --dx-emulate-gpu-order='order=sideways' %s 2>&1 | FileCheck %s --check-prefix=BAD

// @trace over 7 iterations from 2 by 3 (2, 5, ..., 20): the visiting order.
// FWD: [2,  5,  8,  11,  14,  17,  20]
// REV: [20,  17,  14,  11,  8,  5,  2]
// OE: [5,  11,  17,  2,  8,  14,  20]
// @scale: the same in every order.
// FWD: [0,  2,  4,  6,  8,  10]
// REV: [0,  2,  4,  6,  8,  10]
// OE: [0,  2,  4,  6,  8,  10]
// @prefix (racy): only the order as written gives the running sum.
// FWD: [1,  2,  3,  4,  5,  6]
// REV: [1,  2,  2,  2,  2,  2]
// OE: [1,  2,  2,  3,  2,  3]
// The loss read-back: a load on the host again.
// FWD: 42
// REV: 42
// OE: 42

// IR-LABEL: func.func @scale(
// IR: scf.parallel (%[[IV:.*]]) =
// IR: %[[N:.*]] = arith.divui
// IR: %[[J:.*]] = arith.divui
// IR: %[[LAST:.*]] = arith.subi %[[N]], %c1
// IR: %[[P:.*]] = arith.subi %[[LAST]], %[[J]]
// IR: %[[MOVED:.*]] = arith.addi %{{.*}}, %{{.*}}
// IR: memref.load %{{.*}}[%[[MOVED]]]
// IR-LABEL: func.func @read_loss(
// IR-NOT: dxrt_cuda_read_f32
// IR: memref.load
// IR-NOT: func.func private @dxrt_cuda_read_f32
// BAD: error: dx-emulate-gpu-order: order must be forward, reverse or odd-even, not 'sideways'

func.func private @printMemrefF32(memref<*xf32>)
func.func private @printF32(f32)
func.func private @printNewline()
func.func private @dxrt_cuda_read_f32(memref<f32, strided<[], offset: ?>>) -> f32

// Records the visiting order: trace[count++] = iv.
func.func @trace(%out: memref<7xf32>, %count: memref<index>) {
  %c2 = arith.constant 2 : index
  %c21 = arith.constant 21 : index
  %c3 = arith.constant 3 : index
  %c1 = arith.constant 1 : index
  scf.parallel (%i) = (%c2) to (%c21) step (%c3) {
    %k = memref.load %count[] : memref<index>
    %v = arith.index_cast %i : index to i32
    %f = arith.sitofp %v : i32 to f32
    memref.store %f, %out[%k] : memref<7xf32>
    %k1 = arith.addi %k, %c1 : index
    memref.store %k1, %count[] : memref<index>
    scf.reduce
  }
  return
}

// out[i] = 2 * i: independent threads.
func.func @scale(%out: memref<6xf32>) {
  %c0 = arith.constant 0 : index
  %c6 = arith.constant 6 : index
  %c1 = arith.constant 1 : index
  %two = arith.constant 2.0 : f32
  scf.parallel (%i) = (%c0) to (%c6) step (%c1) {
    %v = arith.index_cast %i : index to i32
    %f = arith.sitofp %v : i32 to f32
    %y = arith.mulf %f, %two : f32
    memref.store %y, %out[%i] : memref<6xf32>
    scf.reduce
  }
  return
}

// out[i + 1] = out[i] + 1 over out = [1, 1, ...]: thread i reads what
// thread i - 1 writes.
func.func @prefix(%out: memref<6xf32>) {
  %c0 = arith.constant 0 : index
  %c5 = arith.constant 5 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f32
  scf.parallel (%i) = (%c0) to (%c5) step (%c1) {
    %x = memref.load %out[%i] : memref<6xf32>
    %y = arith.addf %x, %one : f32
    %n = arith.addi %i, %c1 : index
    memref.store %y, %out[%n] : memref<6xf32>
    scf.reduce
  }
  return
}

func.func @read_loss(%loss: memref<f32>) -> f32 {
  %cast = memref.cast %loss : memref<f32> to memref<f32, strided<[], offset: ?>>
  %v = call @dxrt_cuda_read_f32(%cast) : (memref<f32, strided<[], offset: ?>>) -> f32
  return %v : f32
}

func.func @main() {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %c0 = arith.constant 0 : index
  %t = memref.alloc() : memref<7xf32>
  %count = memref.alloc() : memref<index>
  memref.store %c0, %count[] : memref<index>
  call @trace(%t, %count) : (memref<7xf32>, memref<index>) -> ()
  %tu = memref.cast %t : memref<7xf32> to memref<*xf32>
  call @printMemrefF32(%tu) : (memref<*xf32>) -> ()
  %s = memref.alloc() : memref<6xf32>
  call @scale(%s) : (memref<6xf32>) -> ()
  %su = memref.cast %s : memref<6xf32> to memref<*xf32>
  call @printMemrefF32(%su) : (memref<*xf32>) -> ()
  %p = memref.alloc() : memref<6xf32>
  linalg.fill ins(%one : f32) outs(%p : memref<6xf32>)
  call @prefix(%p) : (memref<6xf32>) -> ()
  %pu = memref.cast %p : memref<6xf32> to memref<*xf32>
  call @printMemrefF32(%pu) : (memref<*xf32>) -> ()
  %l = memref.alloc() : memref<f32>
  %v42 = arith.constant 42.0 : f32
  memref.store %v42, %l[] : memref<f32>
  %r = call @read_loss(%l) : (memref<f32>) -> f32
  call @printF32(%r) : (f32) -> ()
  call @printNewline() : () -> ()
  return
}
