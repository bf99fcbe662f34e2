// Ops that only the compiler makes: the training forms of batchnorm and
// dropout, and the backward ops that the gradient rules (GradientRules.cpp)
// emit. They are hand-written; each has a small verifier.
#ifndef DX_GRAD_OPS_TD
#define DX_GRAD_OPS_TD

include "dialect/DxBase.td"

class Dx_GradOp<string mnemonic, list<Trait> traits = []> : Dx_Op<mnemonic, !listconcat([Pure], traits)> {
  let hasVerifier = 1;
}

def Dx_DenseGradInputOp : Dx_GradOp<"dense_grad_input"> {
  let summary = "dX = dY W for a dense layer (contracts dY's last dim with W's rows)";
  let arguments = (ins AnyRankedTensor:$dy, AnyRankedTensor:$weight);
  let results = (outs AnyRankedTensor:$dx);
  let assemblyFormat = "$dy `,` $weight attr-dict `:` functional-type(operands, results)";
}

def Dx_DenseGradWeightOp : Dx_GradOp<"dense_grad_weight"> {
  let summary = "dW = dY^T X for a dense layer, summed over every leading dim";
  let arguments = (ins AnyRankedTensor:$dy, AnyRankedTensor:$x);
  let results = (outs AnyRankedTensor:$dw);
  let assemblyFormat = "$dy `,` $x attr-dict `:` functional-type(operands, results)";
}

def Dx_UnaryGradOp : Dx_GradOp<"unary_grad"> {
  let summary = "dX for a pointwise activation from dY and the saved input or output";
  let description = [{
    `kind` names the activation: relu, leaky_relu, elu, gelu, gelu_tanh (these
    read the input x) or tanh, sigmoid (these read the output y). `alpha` is
    leaky_relu's slope or elu's alpha.
  }];
  let arguments = (ins AnyRankedTensor:$dy, AnyRankedTensor:$saved, StrAttr:$kind, F64Attr:$alpha);
  let results = (outs AnyRankedTensor:$dx);
  let assemblyFormat = "$kind $dy `,` $saved attr-dict `:` functional-type(operands, results)";
}

def Dx_SoftmaxGradOp : Dx_GradOp<"softmax_grad"> {
  let summary = "dX of softmax (log = false) or log_softmax (log = true) from dY and the output Y";
  let arguments = (ins AnyRankedTensor:$dy, AnyRankedTensor:$y, I64Attr:$axis, BoolAttr:$log);
  let results = (outs AnyRankedTensor:$dx);
  let assemblyFormat = "$dy `,` $y attr-dict `:` functional-type(operands, results)";
}

def Dx_SoftmaxCrossEntropyGradOp : Dx_GradOp<"softmax_cross_entropy_grad"> {
  let summary = "d(logits) = (softmax(logits) - onehot(labels)) * dloss / N, or with class weights w: "
                "w[label] * (softmax(logits) - onehot(labels)) * dloss / sum(w[label])";
  let arguments = (ins AnyRankedTensor:$logits, AnyRankedTensor:$labels, AnyRankedTensor:$dloss,
                       OptionalAttr<DenseF64ArrayAttr>:$weights);
  let results = (outs AnyRankedTensor:$dlogits);
  let assemblyFormat = "$logits `,` $labels `,` $dloss attr-dict `:` functional-type(operands, results)";
}

def Dx_PairwiseLossGradOp : Dx_GradOp<"pairwise_loss_grad"> {
  let summary = "Gradients of bce_with_logits, binary_cross_entropy, mse, mae (l1) or huber (with its delta) "
                "w.r.t. prediction and target";
  let arguments = (ins AnyRankedTensor:$prediction, AnyRankedTensor:$target, AnyRankedTensor:$dloss,
                       StrAttr:$kind, StrAttr:$reduction, OptionalAttr<F64Attr>:$delta);
  let results = (outs AnyRankedTensor:$dprediction, AnyRankedTensor:$dtarget);
  let assemblyFormat = "$kind $prediction `,` $target `,` $dloss attr-dict `:` functional-type(operands, results)";
}

def Dx_KlNormalGradOp : Dx_GradOp<"kl_normal_grad"> {
  let summary = "Gradients of kl_normal w.r.t. mu and logvar";
  let arguments = (ins AnyRankedTensor:$mu, AnyRankedTensor:$logvar, AnyRankedTensor:$dloss, StrAttr:$reduction);
  let results = (outs AnyRankedTensor:$dmu, AnyRankedTensor:$dlogvar);
  let assemblyFormat = "$mu `,` $logvar `,` $dloss attr-dict `:` functional-type(operands, results)";
}

def Dx_Conv2dGradInputOp : Dx_GradOp<"conv2d_grad_input"> {
  let summary = "dX of a 2-D or 3-D convolution (a transposed convolution of dY with W); the result type is X's";
  let arguments = (ins AnyRankedTensor:$dy, AnyRankedTensor:$weight, DenseI64ArrayAttr:$stride,
                       DenseI64ArrayAttr:$pad, DenseI64ArrayAttr:$dilation, I64Attr:$groups);
  let results = (outs AnyRankedTensor:$dx);
  let assemblyFormat = "$dy `,` $weight attr-dict `:` functional-type(operands, results)";
}

def Dx_Conv2dGradWeightOp : Dx_GradOp<"conv2d_grad_weight"> {
  let summary = "dW of a 2-D or 3-D convolution from dY and X; the result type is W's";
  let arguments = (ins AnyRankedTensor:$dy, AnyRankedTensor:$x, DenseI64ArrayAttr:$stride,
                       DenseI64ArrayAttr:$pad, DenseI64ArrayAttr:$dilation, I64Attr:$groups);
  let results = (outs AnyRankedTensor:$dw);
  let assemblyFormat = "$dy `,` $x attr-dict `:` functional-type(operands, results)";
}

def Dx_PoolGradOp : Dx_GradOp<"pool_grad"> {
  let summary = "dX of 2-D or 3-D max or average pooling; the result type is X's";
  let arguments = (ins AnyRankedTensor:$dy, AnyRankedTensor:$x, StrAttr:$kind, DenseI64ArrayAttr:$kernel,
                       DenseI64ArrayAttr:$stride, DenseI64ArrayAttr:$pad);
  let results = (outs AnyRankedTensor:$dx);
  let assemblyFormat = "$kind $dy `,` $x attr-dict `:` functional-type(operands, results)";
}

def Dx_UpsampleGradOp : Dx_GradOp<"upsample_grad"> {
  let summary = "dX of upsample; the result type is X's";
  let arguments = (ins AnyRankedTensor:$dy, DenseI64ArrayAttr:$scale, StrAttr:$mode);
  let results = (outs AnyRankedTensor:$dx);
  let assemblyFormat = "$dy attr-dict `:` functional-type(operands, results)";
}

def Dx_BatchnormTrainOp : Dx_GradOp<"batchnorm_train"> {
  let summary = "Batch normalization with batch statistics; also returns the batch mean and (biased) variance";
  let description = [{ `affine` holds gamma and beta, or nothing when batchnorm has no affine parameters. }];
  let arguments = (ins AnyRankedTensor:$x, Variadic<AnyRankedTensor>:$affine, F64Attr:$eps);
  let results = (outs AnyRankedTensor:$y, AnyRankedTensor:$mean, AnyRankedTensor:$var);
  let assemblyFormat = "$x (`affine` `(` $affine^ `)`)? attr-dict `:` functional-type(operands, results)";
}

def Dx_NormGradOp : Dx_GradOp<"norm_grad"> {
  let summary = "Gradients of batchnorm (training form) or layernorm w.r.t. x, gamma and beta";
  let description = [{
    Recomputes the statistics from x. `kind` is batchnorm (statistics per
    channel, dim 1) or layernorm (statistics over the last `dims` dims).
    Without gamma, dgamma and dbeta are still produced (and unused).
  }];
  let arguments = (ins AnyRankedTensor:$dy, AnyRankedTensor:$x, Optional<AnyRankedTensor>:$gamma,
                       StrAttr:$kind, I64Attr:$dims, F64Attr:$eps);
  let results = (outs AnyRankedTensor:$dx, AnyRankedTensor:$dgamma, AnyRankedTensor:$dbeta);
  let assemblyFormat = "$kind $dy `,` $x (`gamma` `(` $gamma^ `)`)? attr-dict `:` functional-type(operands, results)";
}

def Dx_RunningStatsOp : Dx_GradOp<"running_stats"> {
  let summary = "Batchnorm's running statistics after one training step";
  let description = [{
    running_mean' = (1 - momentum) * running_mean + momentum * mean and
    running_var' = (1 - momentum) * running_var + momentum * var * n / (n - 1),
    where n is the number of elements per channel of x (PyTorch's unbiased update).
  }];
  let arguments = (ins AnyRankedTensor:$running_mean, AnyRankedTensor:$running_var, AnyRankedTensor:$mean,
                       AnyRankedTensor:$var, AnyRankedTensor:$x, F64Attr:$momentum);
  let results = (outs AnyRankedTensor:$new_mean, AnyRankedTensor:$new_var);
  let assemblyFormat = "$running_mean `,` $running_var `,` $mean `,` $var `,` $x attr-dict `:` functional-type(operands, results)";
}

def Dx_BroadcastToOp : Dx_GradOp<"broadcast_to"> {
  let summary = "Broadcasts x to the result type, re-inserting the reduced dims listed in `axes`";
  let description = [{
    Without `axes`, NumPy broadcasting. With `axes`, x lacks those dims of the
    result (the gradient of a reduction). With `mean`, every element is divided
    by the number of elements each one was broadcast to (the gradient of mean).
  }];
  let arguments = (ins AnyRankedTensor:$x, OptionalAttr<DenseI64ArrayAttr>:$axes, UnitAttr:$mean);
  let results = (outs AnyRankedTensor:$y);
  let assemblyFormat = "$x attr-dict `:` functional-type(operands, results)";
}

def Dx_ReduceToOp : Dx_GradOp<"reduce_to"> {
  let summary = "Sums x over the dims that broadcasting added or expanded, giving the result type";
  let arguments = (ins AnyRankedTensor:$x);
  let results = (outs AnyRankedTensor:$y);
  let assemblyFormat = "$x attr-dict `:` functional-type(operands, results)";
}

def Dx_SliceOp : Dx_GradOp<"slice"> {
  let summary = "The slice [offset, offset + size) of x along `axis`; size comes from the result type";
  let arguments = (ins AnyRankedTensor:$x, I64Attr:$axis, I64Attr:$offset);
  let results = (outs AnyRankedTensor:$y);
  let assemblyFormat = "$x attr-dict `:` functional-type(operands, results)";
}

def Dx_ZerosLikeOp : Dx_GradOp<"zeros"> {
  let summary = "A tensor of zeros shaped like x (dynamic dims taken from x)";
  let arguments = (ins AnyRankedTensor:$like);
  let results = (outs AnyRankedTensor:$y);
  let assemblyFormat = "$like attr-dict `:` functional-type(operands, results)";
}

#endif // DX_GRAD_OPS_TD
