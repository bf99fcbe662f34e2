// The dx dialect: DeepEx's operators on tensors, as MLIRGen emits them from
// the checked graph. Forward ops are generated from the operator registry
// (see GenOpsTd.cpp); their verifiers re-run the registry's shape rules.
#ifndef DX_BASE_TD
#define DX_BASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Dx_Dialect : Dialect {
  let name = "dx";
  let cppNamespace = "::dx::ir";
  let summary = "DeepEx neural-network operators on tensors";
  let description = [{
    One op per operator of DeepEx's registry, with the registry's attributes
    in resolved form (pairs as [h, w], paddings as [top, bottom, left, right]).
    Symbolic dims such as the batch become dynamic dims (`?`).
  }];
}

// Marks ops whose shapes and parameter types the registry checks.
def DxRegistryOp : NativeOpTrait<"DxRegistryOp"> {
  let cppNamespace = "::dx::ir";
}

class Dx_Op<string mnemonic, list<Trait> traits = []> : Op<Dx_Dialect, mnemonic, traits>;

#endif // DX_BASE_TD
