#pragma once

#include "mlir/Pass/Pass.h"

#include <memory>

namespace dx {

// dx-bf16-product-inputs (CPU, bf16 precision): an activation that only
// matrix products read, and that a weight gradient reads again in the
// backward pass (a convolution's or dense layer's input x), is stored in
// bf16 instead of fp32. The products round their inputs to bf16 anyway
// (runtime/kernels/Precision.h), so the values they see are the same bits;
// what changes is the memory: the copy kept from the forward pass to the
// backward pass is half the bytes, and the fp32 tensor dies at the rounding.
//
// Where the activation's producer is a linalg.generic that writes it
// without reading it, that generic writes bf16 itself (the rounding fused
// into its loop); otherwise (a library kernel's result, a reshape) a
// generic after the producer rounds it. The product calls go to the
// kernels' _bf16x twins (runtime/include/dxrt/kernels.h), which take x as
// bf16. Runs on linalg on tensors with the library calls of dx-to-linalg,
// before bufferization. Activations of function arguments (the batch) and
// of 3-D and transposed convolutions are left alone.
std::unique_ptr<mlir::Pass> createBf16ProductInputsPass();
void registerBf16ProductInputsPass();

} // namespace dx
