// RUN: dx-opt --dx-merge-gpu-modules --split-input-file --verify-diagnostics --allow-unregistered-dialect %s | FileCheck %s

// dx-merge-gpu-modules (--target=cuda, right after gpu-kernel-outlining):
// every kernel goes into ONE gpu.module, @dx_kernels, and every
// gpu.launch_func follows it. Outlining names all kernels of a function
// FUNC_kernel and makes only the module names unique, so a module's single
// kernel takes the module's name.

// Two launches, as outlining leaves them: one module per kernel, both
// kernels named @step_kernel.
// CHECK-LABEL: module attributes {gpu.container_module}
// CHECK-NOT: gpu.module
// CHECK: func.func @step(
// CHECK: gpu.launch_func @dx_kernels::@step_kernel blocks
// CHECK: gpu.launch_func @dx_kernels::@step_kernel_0 blocks
// The module follows the host code.
// CHECK: gpu.module @dx_kernels {
// CHECK-NEXT: gpu.func @step_kernel(%{{.*}}: memref<?xf32>) kernel
// CHECK: arith.addf
// CHECK: gpu.func @step_kernel_0(%{{.*}}: memref<?xf32>) kernel
// CHECK: arith.mulf
// CHECK-NOT: gpu.module
module attributes {gpu.container_module} {
  gpu.module @step_kernel {
    gpu.func @step_kernel(%m: memref<?xf32>) kernel {
      %i = gpu.thread_id x
      %v = memref.load %m[%i] : memref<?xf32>
      %w = arith.addf %v, %v : f32
      memref.store %w, %m[%i] : memref<?xf32>
      gpu.return
    }
  }
  gpu.module @step_kernel_0 {
    gpu.func @step_kernel(%m: memref<?xf32>) kernel {
      %i = gpu.thread_id x
      %v = memref.load %m[%i] : memref<?xf32>
      %w = arith.mulf %v, %v : f32
      memref.store %w, %m[%i] : memref<?xf32>
      gpu.return
    }
  }
  func.func @step(%m: memref<?xf32>) {
    %c1 = arith.constant 1 : index
    %c256 = arith.constant 256 : index
    gpu.launch_func @step_kernel::@step_kernel blocks in (%c1, %c1, %c1) threads in (%c256, %c1, %c1) args(%m : memref<?xf32>)
    gpu.launch_func @step_kernel_0::@step_kernel blocks in (%c1, %c1, %c1) threads in (%c256, %c1, %c1) args(%m : memref<?xf32>)
    return
  }
}

// -----

// A declaration the outliner copied into several modules is kept once;
// the same kernel launched twice stays one kernel.
// CHECK-LABEL: module attributes {gpu.container_module}
// CHECK: func.func @f(
// CHECK: gpu.launch_func @dx_kernels::@a_kernel blocks
// CHECK: gpu.launch_func @dx_kernels::@b_kernel blocks
// CHECK: gpu.launch_func @dx_kernels::@a_kernel blocks
// CHECK: gpu.module @dx_kernels {
// CHECK-NEXT: func.func private @helper(f32) -> f32
// CHECK-NEXT: gpu.func @a_kernel(
// CHECK: gpu.func @b_kernel(
// CHECK-NOT: func.func private @helper
module attributes {gpu.container_module} {
  gpu.module @a_kernel {
    func.func private @helper(f32) -> f32
    gpu.func @a_kernel(%x: f32) kernel {
      %y = func.call @helper(%x) : (f32) -> f32
      gpu.return
    }
  }
  gpu.module @b_kernel {
    func.func private @helper(f32) -> f32
    gpu.func @b_kernel(%x: f32) kernel {
      %y = func.call @helper(%x) : (f32) -> f32
      gpu.return
    }
  }
  func.func @f(%x: f32) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @a_kernel::@a_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : f32)
    gpu.launch_func @b_kernel::@b_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : f32)
    gpu.launch_func @a_kernel::@a_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : f32)
    return
  }
}

// -----

// Two different symbols of one name: an error, not a silent rename.
module attributes {gpu.container_module} {
  gpu.module @a_kernel {
    // expected-note @below {{the other @helper}}
    func.func private @helper(f32) -> f32
    gpu.func @a_kernel(%x: f32) kernel {
      %y = func.call @helper(%x) : (f32) -> f32
      gpu.return
    }
  }
  gpu.module @b_kernel {
    // expected-error @below {{@helper of gpu.module @b_kernel would be @helper in @dx_kernels, which already holds another @helper}}
    func.func private @helper(f32) -> f64
    gpu.func @b_kernel(%x: f32) kernel {
      %y = func.call @helper(%x) : (f32) -> f64
      gpu.return
    }
  }
}

// -----

// A module's kernel renamed after its module would clash with a kernel of
// that name already merged: an error.
module attributes {gpu.container_module} {
  gpu.module @dx_kernels {
    // expected-note @below {{the other @k_0}}
    gpu.func @k_0() kernel {
      gpu.return
    }
  }
  gpu.module @k_0 {
    // expected-error @below {{@k of gpu.module @k_0 would be @k_0 in @dx_kernels, which already holds another @k_0}}
    gpu.func @k() kernel {
      gpu.return
    }
  }
}

// -----

// Modules for different targets cannot become one.
module attributes {gpu.container_module} {
  gpu.module @a_kernel [#nvvm.target<chip = "sm_90">] {
    gpu.func @a_kernel() kernel {
      gpu.return
    }
  }
  // expected-error @below {{gpu.module @b_kernel has other targets or another offloading handler than @dx_kernels, so its kernels cannot be merged into it}}
  gpu.module @b_kernel [#nvvm.target<chip = "sm_80">] {
    gpu.func @b_kernel() kernel {
      gpu.return
    }
  }
}

// -----

// The name @dx_kernels taken by something else: an error.
module attributes {gpu.container_module} {
  // expected-error @below {{the symbol @dx_kernels is taken: dx-merge-gpu-modules puts every kernel in a gpu.module of that name}}
  func.func private @dx_kernels()
  gpu.module @a_kernel {
    gpu.func @a_kernel() kernel {
      gpu.return
    }
  }
}

// -----

// A use of a module that is not a launch cannot be updated: an error.
module attributes {gpu.container_module} {
  gpu.module @a_kernel {
    gpu.func @a_kernel() kernel {
      gpu.return
    }
  }
  func.func @f() {
    // expected-error @below {{refers to @a_kernel::@a_kernel, which dx-merge-gpu-modules cannot move to @dx_kernels (only the kernel of a gpu.launch_func is updated)}}
    "test.use"() {ref = @a_kernel::@a_kernel} : () -> ()
    return
  }
}
