#include "lowering/ProfilePoints.h"

#include "lowering/LoweringUtils.h"
#include "transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include "llvm/ADT/SetVector.h"
#include "llvm/Support/JSON.h"

#include <map>

namespace dx {
namespace {

constexpr llvm::StringLiteral kBegin = "dxrt_prof_begin", kPoint = "dxrt_prof_point";

// The .dx layer paths in a location, in order, each once.
void layersOf(mlir::Location loc, llvm::SmallVectorImpl<std::string> &out) {
  if (auto n = mlir::dyn_cast<mlir::NameLoc>(loc)) {
    std::string name = n.getName().str();
    if (llvm::find(out, name) == out.end()) out.push_back(name);
    return; // the child is the same layer's position
  }
  if (auto c = mlir::dyn_cast<mlir::CallSiteLoc>(loc)) return layersOf(c.getCallee(), out);
  if (auto f = mlir::dyn_cast<mlir::FusedLoc>(loc))
    for (mlir::Location l : f.getLocations()) layersOf(l, out);
}

bool isBackward(mlir::Location loc) {
  bool found = false;
  loc->walk([&](mlir::Location l) {
    if (auto f = mlir::dyn_cast<mlir::FusedLoc>(l))
      if (auto s = mlir::dyn_cast_or_null<mlir::StringAttr>(f.getMetadata()); s && s.getValue() == kBackwardLocTag)
        found = true;
    return found ? mlir::WalkResult::interrupt() : mlir::WalkResult::advance();
  });
  return found;
}

// The kind of work an op does, or "" for bookkeeping (constants, views,
// the workspace call) whose time goes to the next point.
std::string kindOf(mlir::Operation *op) {
  if (auto call = mlir::dyn_cast<mlir::func::CallOp>(op)) {
    llvm::StringRef callee = call.getCallee();
    if (callee == "dxrt_workspace" || callee == kBegin || callee == kPoint) return "";
    return callee.starts_with("dxrt_") ? callee.drop_front(5).str() : callee.str();
  }
  if (mlir::isa<mlir::linalg::LinalgOp, mlir::memref::CopyOp, mlir::scf::ForOp, mlir::scf::ParallelOp,
                mlir::scf::WhileOp, mlir::scf::IfOp>(op))
    return "generated";
  return "";
}

// A generated op's shape for the kernel table: its loop ranges ("B" for
// the batch, a dynamic range) and what it computes, e.g.
// "reduce Bx2x28x28x16 -> 2x16", "map Bx32x14x14", "copy 128x3136",
// "fill 64".
std::string describe(mlir::Operation *op) {
  auto dims = [](llvm::ArrayRef<int64_t> shape) {
    std::string s;
    for (int64_t d : shape) s += (s.empty() ? "" : "x") + (mlir::ShapedType::isDynamic(d) ? std::string("B") : std::to_string(d));
    return s.empty() ? std::string("scalar") : s;
  };
  if (auto copy = mlir::dyn_cast<mlir::memref::CopyOp>(op))
    return "copy " + dims(mlir::cast<mlir::ShapedType>(copy.getSource().getType()).getShape());
  if (auto l = mlir::dyn_cast<mlir::linalg::LinalgOp>(op)) {
    const std::string loops = dims(l.getStaticLoopRanges());
    if (!mlir::isa<mlir::linalg::GenericOp>(op)) return op->getName().stripDialect().str() + " " + loops;
    if (l.getNumReductionLoops() == 0) return "map " + loops;
    std::string out;
    for (mlir::Value v : l.getDpsInits())
      if (auto t = mlir::dyn_cast<mlir::ShapedType>(v.getType()))
        out += (out.empty() ? "" : ", ") + dims(t.getShape());
    return "reduce " + loops + " -> " + out;
  }
  return "loop";
}

// The buffers from outside `op` that it reads and those it writes (through
// any view of them made inside it), from the memory effects of `op` and the
// ops nested in it.
void accesses(mlir::Operation *op, llvm::SetVector<mlir::Value> &read, llvm::SetVector<mlir::Value> &written) {
  auto inside = [&](mlir::Value v) {
    mlir::Operation *def = v.getDefiningOp() ? v.getDefiningOp() : v.getParentBlock()->getParentOp();
    return op->isAncestor(def);
  };
  op->walk([&](mlir::Operation *inner) {
    auto effects = mlir::dyn_cast<mlir::MemoryEffectOpInterface>(inner);
    if (!effects) return;
    llvm::SmallVector<mlir::MemoryEffects::EffectInstance> list;
    effects.getEffects(list);
    for (const mlir::MemoryEffects::EffectInstance &e : list) {
      mlir::Value v = e.getValue();
      if (!v || !mlir::isa<mlir::MemRefType>(v.getType())) continue;
      while (inside(v))
        if (auto view = v.getDefiningOp<mlir::ViewLikeOpInterface>()) v = view.getViewSource();
        else break;
      if (inside(v)) continue; // a buffer of the loop's own
      if (mlir::isa<mlir::MemoryEffects::Write>(e.getEffect())) written.insert(v);
      else if (mlir::isa<mlir::MemoryEffects::Read>(e.getEffect())) read.insert(v);
    }
  });
}

// The bytes a generated op must move at least, computed when the point runs
// (the batch is known only then): the size of every buffer it reads and of
// every buffer it writes (one it updates in place counts twice).
mlir::Value trafficOf(mlir::OpBuilder &b, mlir::Operation *op) {
  mlir::Location loc = op->getLoc();
  llvm::SetVector<mlir::Value> read, written;
  accesses(op, read, written);
  mlir::Value total = b.create<mlir::arith::ConstantIndexOp>(loc, 0);
  for (const llvm::SetVector<mlir::Value> *buffers : {&read, &written})
    for (mlir::Value v : *buffers) {
      auto t = mlir::cast<mlir::MemRefType>(v.getType());
      const unsigned bits = t.getElementType().isIntOrFloat() ? t.getElementTypeBitWidth() : 64;
      mlir::Value bytes = b.create<mlir::arith::ConstantIndexOp>(loc, int64_t(std::max(1u, bits / 8)));
      for (int64_t d = 0; d < t.getRank(); ++d)
        bytes = b.create<mlir::arith::MulIOp>(loc, bytes, b.createOrFold<mlir::memref::DimOp>(loc, v, d));
      total = b.create<mlir::arith::AddIOp>(loc, total, bytes);
    }
  return b.create<mlir::arith::IndexCastOp>(loc, b.getI64Type(), total);
}

struct ProfilePointsPass : mlir::PassWrapper<ProfilePointsPass, mlir::OperationPass<mlir::ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(ProfilePointsPass)
  llvm::StringRef getArgument() const override { return "dx-profile-points"; }
  llvm::StringRef getDescription() const override {
    return "Insert the --profile hooks (dxrt_prof_begin/point) and the region table dx_profile_regions";
  }
  void getDependentDialects(mlir::DialectRegistry &r) const override {
    r.insert<mlir::LLVM::LLVMDialect, mlir::func::FuncDialect, mlir::arith::ArithDialect>();
  }

  void runOnOperation() override {
    mlir::ModuleOp module = getOperation();
    mlir::MLIRContext *ctx = &getContext();
    mlir::OpBuilder b(ctx);
    b.setInsertionPointToStart(module.getBody());
    auto i64 = b.getI64Type();
    auto declare = [&](llvm::StringRef name, mlir::TypeRange args) {
      if (module.lookupSymbol(name)) return;
      auto fn = b.create<mlir::func::FuncOp>(module.getLoc(), name, b.getFunctionType(args, {}));
      fn.setPrivate();
    };
    declare(kBegin, {});
    declare(kPoint, {i64, i64});

    llvm::json::Array regions;
    std::map<std::string, int64_t> ids;
    const std::pair<const char *, const char *> functions[] = {
        {"dx_train_step", "train"}, {"dx_eval_step", "eval"}, {"dx_update", "update"}};
    for (auto [symbol, function] : functions) {
      auto fn = module.lookupSymbol<mlir::func::FuncOp>(symbol);
      if (!fn || fn.isExternal()) continue;
      mlir::Block &entry = fn.getBody().front();
      b.setInsertionPointToStart(&entry);
      b.create<mlir::func::CallOp>(fn.getLoc(), kBegin, mlir::TypeRange{});
      llvm::SmallVector<mlir::Operation *> work;
      for (mlir::Operation &op : entry.without_terminator())
        if (!kindOf(&op).empty()) work.push_back(&op);
      for (mlir::Operation *op : work) {
        llvm::SmallVector<std::string> layers;
        layersOf(op->getLoc(), layers);
        std::string layer = llvm::join(layers, " + ");
        std::string phase = llvm::StringRef(function) == "train" ? (isBackward(op->getLoc()) ? "backward" : "forward")
                                                                 : function;
        std::string kind = kindOf(op);
        // Each generated op is a region of its own (the kernel table); the
        // library calls of one kind in a layer and phase share one.
        const bool generated = kind == "generated";
        std::string key = std::string(function) + '\n' + layer + '\n' + phase + '\n' + kind +
                          (generated ? '\n' + std::to_string(regions.size()) : "");
        auto [it, added] = ids.try_emplace(key, int64_t(regions.size()));
        if (added) {
          llvm::json::Object region{{"function", function}, {"layer", layer}, {"phase", phase}, {"kind", kind}};
          if (generated) region["op"] = describe(op);
          regions.push_back(std::move(region));
        }
        b.setInsertionPointAfter(op);
        mlir::Value id = b.create<mlir::arith::ConstantIntOp>(op->getLoc(), it->second, 64);
        mlir::Value bytes = generated ? trafficOf(b, op) : b.create<mlir::arith::ConstantIntOp>(op->getLoc(), 0, 64);
        b.create<mlir::func::CallOp>(op->getLoc(), kPoint, mlir::TypeRange{}, mlir::ValueRange{id, bytes});
      }
    }

    std::string text;
    llvm::raw_string_ostream os(text);
    os << llvm::json::Value(std::move(regions));
    os.flush();
    lower::addStringGlobal(module, "dx_profile_regions", std::move(text));
  }
};

} // namespace

std::unique_ptr<mlir::Pass> createProfilePointsPass() { return std::make_unique<ProfilePointsPass>(); }
void registerProfilePointsPass() { mlir::PassRegistration<ProfilePointsPass>(); }

} // namespace dx
