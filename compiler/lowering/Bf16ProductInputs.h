#pragma once

#include "mlir/Pass/Pass.h"

#include <memory>

namespace dx {

// dx-bf16-product-inputs (bf16 precision; CPU and CUDA): a value that only matrix
// products read is stored in bf16 instead of fp32: a convolution's or dense
// layer's input x, or the gradient dy of its output. The products round
// their inputs to bf16 anyway (runtime/kernels/Precision.h), so the values
// they see are the same bits; what changes is the memory and its traffic.
//
// - A value the backward pass reads again (x of a weight gradient, a
//   transposed convolution's input) keeps half the bytes from the forward
//   pass to the backward pass, and the fp32 tensor dies at the rounding.
// - A value read only where it is computed (a convolution's dy, an x in
//   the evaluation step) is stored in bf16 where its producer can write
//   bf16 itself: no fp32 write, and no rounding copy in the library.
//
// Where the producer is a linalg.generic that writes the value without
// reading it, directly or through reshapes, that generic writes bf16 itself
// (the rounding fused into its loop); otherwise (a library kernel's result,
// a reshape of one) a generic after the producer rounds it, for kept values
// only. The product calls go to the kernels' _bf16x / _bf16dy / _bf16xdy
// twins (runtime/include/dxrt/kernels.h), which take those operands as
// bf16. Runs on linalg on tensors with the library calls of dx-to-linalg,
// before bufferization. Function arguments (the batch) and 3-D
// convolutions are left alone.
std::unique_ptr<mlir::Pass> createBf16ProductInputsPass();
void registerBf16ProductInputsPass();

} // namespace dx
