#include "lowering/MergeGpuModules.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/IR/SymbolTable.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

namespace dx {
namespace {

using namespace mlir;

struct MergeGpuModulesPass : PassWrapper<MergeGpuModulesPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(MergeGpuModulesPass)
  llvm::StringRef getArgument() const override { return "dx-merge-gpu-modules"; }
  llvm::StringRef getDescription() const override {
    return "Move the kernels of every gpu.module into one gpu.module, @dx_kernels (one ptxas run per architecture, "
           "one module load)";
  }
  void getDependentDialects(DialectRegistry &registry) const override { registry.insert<gpu::GPUDialect>(); }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    StringAttr destName = StringAttr::get(ctx, kMergedGpuModuleName);

    gpu::GPUModuleOp dest;
    llvm::SmallVector<gpu::GPUModuleOp> sources;
    for (auto m : module.getOps<gpu::GPUModuleOp>()) {
      if (m.getNameAttr() == destName) dest = m;
      else sources.push_back(m);
    }
    if (sources.empty()) return;
    if (!dest) {
      if (Operation *other = SymbolTable::lookupSymbolIn(module, destName)) {
        other->emitError("the symbol @") << destName.getValue()
                                         << " is taken: dx-merge-gpu-modules puts every kernel in a gpu.module of "
                                            "that name";
        return signalPassFailure();
      }
      // After the host code (where gpu-kernel-outlining would put a module
      // of a function's kernels after the last function).
      auto b = OpBuilder::atBlockEnd(module.getBody());
      dest = b.create<gpu::GPUModuleOp>(module.getLoc(), destName.getValue(), sources.front().getTargetsAttr(),
                                        sources.front().getOffloadingHandlerAttr());
    }

    // One module, one set of targets: nvvm-attach-target runs after this
    // pass, so normally none has any yet.
    llvm::DenseSet<StringAttr> sourceNames;
    for (gpu::GPUModuleOp m : sources) {
      if (m.getTargetsAttr() != dest.getTargetsAttr() ||
          m.getOffloadingHandlerAttr() != dest.getOffloadingHandlerAttr()) {
        m.emitError("gpu.module @") << m.getName() << " has other targets or another offloading handler than @"
                                    << destName.getValue() << ", so its kernels cannot be merged into it";
        return signalPassFailure();
      }
      sourceNames.insert(m.getNameAttr());
    }

    // The name of every symbol of every module in @dx_kernels. Outlining
    // names all kernels of a function alike (FUNC_kernel) and makes the
    // module names unique: a module's only kernel takes the module's name.
    llvm::DenseMap<std::pair<StringAttr, StringAttr>, StringAttr> newNames;
    for (gpu::GPUModuleOp m : sources) {
      llvm::SmallVector<gpu::GPUFuncOp> kernels;
      for (auto f : m.getOps<gpu::GPUFuncOp>())
        if (f.isKernel()) kernels.push_back(f);
      for (Operation &op : m.getBody()->without_terminator())
        if (auto name = op.getAttrOfType<StringAttr>(SymbolTable::getSymbolAttrName()))
          newNames[{m.getNameAttr(), name}] =
              kernels.size() == 1 && &op == kernels.front().getOperation() ? m.getNameAttr() : name;
    }

    // Every use of a module must be a launch of one of its symbols, which
    // this pass can point at @dx_kernels. (Uses inside the modules keep
    // their names: only a module's single kernel is renamed, and nothing
    // calls a kernel.) Every op's attributes, inherent ones included, are
    // searched outside the nested symbol tables; a reference is not walked
    // into (its leaf may have a module's name).
    llvm::SmallVector<std::pair<gpu::LaunchFuncOp, StringAttr>> launches;
    WalkResult walked = module.walk<WalkOrder::PreOrder>([&](Operation *op) -> WalkResult {
      if (op != module.getOperation() && op->hasTrait<OpTrait::SymbolTable>()) return WalkResult::skip();
      WalkResult result = WalkResult::advance();
      op->getAttrDictionary().walk<WalkOrder::PreOrder>([&](SymbolRefAttr ref) -> WalkResult {
        if (!sourceNames.contains(ref.getRootReference())) return WalkResult::skip();
        auto launch = dyn_cast<gpu::LaunchFuncOp>(op);
        auto it = newNames.end();
        if (launch && launch.getKernel() == ref && ref.getNestedReferences().size() == 1)
          it = newNames.find({ref.getRootReference(), ref.getLeafReference()});
        if (it == newNames.end()) {
          op->emitError("refers to ") << ref << ", which dx-merge-gpu-modules cannot move to @"
                                      << destName.getValue()
                                      << " (only the kernel of a gpu.launch_func is updated)";
          result = WalkResult::interrupt();
          return WalkResult::interrupt();
        }
        launches.push_back({launch, it->second});
        return WalkResult::skip();
      });
      return result;
    });
    if (walked.wasInterrupted()) return signalPassFailure();

    // Move. A symbol whose name is already in @dx_kernels is dropped if it
    // is an identical copy (a declaration the outliner copied into several
    // modules); any other clash is an error.
    SymbolTable destTable(dest);
    Operation *end = dest.getBody()->getTerminator();
    for (gpu::GPUModuleOp m : sources) {
      for (Operation &op : llvm::make_early_inc_range(m.getBody()->without_terminator())) {
        auto name = op.getAttrOfType<StringAttr>(SymbolTable::getSymbolAttrName());
        if (!name) {
          op.moveBefore(end);
          continue;
        }
        StringAttr to = newNames.lookup({m.getNameAttr(), name});
        if (Operation *existing = destTable.lookup(to)) {
          bool kernel = isa<gpu::GPUFuncOp>(op) || isa<gpu::GPUFuncOp>(existing);
          if (!kernel && to == name &&
              OperationEquivalence::isEquivalentTo(&op, existing, OperationEquivalence::IgnoreLocations)) {
            op.erase();
            continue;
          }
          InFlightDiagnostic d = op.emitError("@") << name.getValue() << " of gpu.module @" << m.getName()
                                                   << " would be @" << to.getValue() << " in @"
                                                   << destName.getValue() << ", which already holds another @"
                                                   << to.getValue();
          d.attachNote(existing->getLoc()) << "the other @" << to.getValue();
          return signalPassFailure();
        }
        if (to != name) SymbolTable::setSymbolName(&op, to);
        op.moveBefore(end);
        destTable.insert(&op);
      }
    }
    for (auto &[launch, kernel] : launches)
      launch.setKernelAttr(SymbolRefAttr::get(destName, {FlatSymbolRefAttr::get(kernel)}));
    for (gpu::GPUModuleOp m : sources) m.erase();
  }
};

} // namespace

std::unique_ptr<mlir::Pass> createMergeGpuModulesPass() { return std::make_unique<MergeGpuModulesPass>(); }
void registerMergeGpuModulesPass() { mlir::PassRegistration<MergeGpuModulesPass>(); }

} // namespace dx
