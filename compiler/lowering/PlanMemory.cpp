#include "lowering/PlanMemory.h"

#include "lowering/PackBuffers.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include "llvm/Support/JSON.h"
#include <algorithm>

namespace dx {
namespace {

constexpr int64_t kAlign = 64;
int64_t alignUp(int64_t x) { return (x + kAlign - 1) / kAlign * kAlign; }

struct Buffer {
  mlir::memref::AllocOp alloc;
  llvm::SmallVector<mlir::memref::DeallocOp> deallocs;
  int64_t bytes = 0;      // static bytes, or bytes per batch sample
  bool perSample = false; // size = bytes * B
  unsigned first = 0, last = 0;
  int64_t offset = 0;     // in bytes, or bytes per sample
};

// If `v` is k * base for a constant k, where base is not itself a product
// with a constant (the batch), returns k and sets base. The product is an
// arith.muli, or an affine.apply of one operand times a constant (what
// reshapes of a dynamic memref make: [B, 3, 4] collapsed to [B * 3, 4]).
std::optional<int64_t> batchMultiple(mlir::Value v, mlir::Value &base) {
  if (auto mul = v.getDefiningOp<mlir::arith::MulIOp>()) {
    for (int side = 0; side < 2; ++side) {
      mlir::IntegerAttr c;
      if (mlir::matchPattern(mul->getOperand(side), mlir::m_Constant(&c)))
        if (auto k = batchMultiple(mul->getOperand(1 - side), base)) return *k * c.getInt();
    }
    return std::nullopt;
  }
  if (auto apply = v.getDefiningOp<mlir::affine::AffineApplyOp>()) {
    mlir::AffineMap map = apply.getAffineMap();
    if (map.getNumResults() != 1 || apply.getMapOperands().size() != 1) return std::nullopt;
    mlir::AffineExpr e = map.getResult(0);
    int64_t k = 1;
    if (auto bin = mlir::dyn_cast<mlir::AffineBinaryOpExpr>(e); bin && bin.getKind() == mlir::AffineExprKind::Mul) {
      auto c = mlir::dyn_cast<mlir::AffineConstantExpr>(bin.getRHS());
      if (!c) return std::nullopt;
      k = c.getValue();
      e = bin.getLHS();
    }
    if (!mlir::isa<mlir::AffineDimExpr, mlir::AffineSymbolExpr>(e)) return std::nullopt;
    if (auto inner = batchMultiple(apply.getMapOperands()[0], base)) return *inner * k;
    return std::nullopt;
  }
  base = v;
  return 1;
}

// The position (in the entry block) of the top-level op that contains `op`.
unsigned topIndex(mlir::Operation *op, mlir::Block &block, const llvm::DenseMap<mlir::Operation *, unsigned> &index) {
  while (op->getBlock() != &block) op = op->getParentOp();
  return index.lookup(op);
}

// The last use of a buffer, following views, casts and reshapes of it; its
// deallocations are collected, not counted as uses. False if a use may free
// or hand on the buffer in a way the plan cannot follow.
bool lastUse(mlir::Value root, mlir::Block &block, const llvm::DenseMap<mlir::Operation *, unsigned> &index,
             unsigned &last, llvm::SmallVectorImpl<mlir::memref::DeallocOp> &deallocs) {
  last = 0;
  llvm::SmallVector<mlir::Value> work = {root};
  llvm::DenseSet<mlir::Value> seen;
  while (!work.empty()) {
    mlir::Value v = work.pop_back_val();
    if (!seen.insert(v).second) continue;
    for (mlir::OpOperand &use : v.getUses()) {
      mlir::Operation *user = use.getOwner();
      if (auto d = mlir::dyn_cast<mlir::memref::DeallocOp>(user)) {
        if (d->getBlock() != &block || v != root) return false;
        deallocs.push_back(d);
        continue;
      }
      if (mlir::isa<mlir::func::ReturnOp>(user)) return false; // escapes the step
      last = std::max(last, topIndex(user, block, index));
      // Results of ops that alias their memref operand keep the buffer alive.
      if (mlir::isa<mlir::ViewLikeOpInterface, mlir::memref::CastOp, mlir::memref::CollapseShapeOp,
                    mlir::memref::ExpandShapeOp, mlir::memref::ReinterpretCastOp>(user))
        for (mlir::Value r : user->getResults())
          if (mlir::isa<mlir::BaseMemRefType>(r.getType())) work.push_back(r);
    }
  }
  return true;
}

// The buffers placed by packBuffers (PackBuffers.h): offsets in bytes, or
// bytes per sample for buffers that scale with the batch.
int64_t place(std::vector<Buffer *> &bufs) {
  std::vector<PackItem> items;
  for (Buffer *b : bufs) items.push_back({alignUp(b->bytes), b->first, b->last, 0});
  const int64_t total = packBuffers(items);
  for (size_t i = 0; i < bufs.size(); ++i) bufs[i]->offset = items[i].offset;
  return total;
}

void planFunction(mlir::func::FuncOp fn, mlir::func::FuncOp workspaceFn) {
  mlir::Block &block = fn.getBody().front();
  llvm::DenseMap<mlir::Operation *, unsigned> index;
  unsigned i = 0;
  for (mlir::Operation &op : block) index[&op] = i++;

  std::vector<Buffer> buffers;
  mlir::Value batch;
  for (mlir::Operation &op : block) {
    auto alloc = mlir::dyn_cast<mlir::memref::AllocOp>(&op);
    if (!alloc) continue;
    auto type = alloc.getType();
    if (!type.getLayout().isIdentity() || !type.getElementType().isIntOrFloat()) continue;
    Buffer b;
    b.alloc = alloc;
    int64_t elems = 1;
    for (int64_t d : type.getShape())
      if (!mlir::ShapedType::isDynamic(d)) elems *= d;
    b.bytes = elems * ((type.getElementTypeBitWidth() + 7) / 8);
    // Every dynamic size must be the batch times a constant.
    bool sized = true;
    for (mlir::Value d : alloc.getDynamicSizes()) {
      mlir::Value base;
      std::optional<int64_t> k = batchMultiple(d, base);
      if (!k || (batch && base != batch) || b.perSample) {
        sized = false;
        break;
      }
      batch = base;
      b.bytes *= *k;
      b.perSample = true;
    }
    if (!sized) continue; // left on the heap, with a remark below
    b.first = index[&op];
    if (!lastUse(alloc.getResult(), block, index, b.last, b.deallocs)) continue;
    buffers.push_back(b);
  }
  for (mlir::Operation &op : block)
    if (auto alloc = mlir::dyn_cast<mlir::memref::AllocOp>(&op)) {
      bool planned = false;
      for (Buffer &b : buffers) planned |= b.alloc == alloc;
      if (!planned) alloc.emitRemark("buffer left on the heap by the memory plan");
    }
  if (buffers.empty()) return;

  std::vector<Buffer *> fixed, scaled;
  for (Buffer &b : buffers) (b.perSample ? scaled : fixed).push_back(&b);
  int64_t fixedBytes = place(fixed);
  int64_t perSampleBytes = place(scaled);

  // The workspace call goes where the batch size is known.
  mlir::OpBuilder b(fn.getContext());
  if (batch && batch.getDefiningOp()) b.setInsertionPointAfter(batch.getDefiningOp());
  else b.setInsertionPointToStart(&block);
  mlir::Location loc = fn.getLoc();
  auto idx = [&](int64_t v) -> mlir::Value { return b.create<mlir::arith::ConstantIndexOp>(loc, v); };
  mlir::Value total = idx(fixedBytes);
  if (batch) total = b.create<mlir::arith::AddIOp>(loc, total, b.create<mlir::arith::MulIOp>(loc, idx(perSampleBytes), batch));
  mlir::Value totalI64 = b.create<mlir::arith::IndexCastOp>(loc, b.getI64Type(), total);
  mlir::Value ws = b.create<mlir::func::CallOp>(loc, workspaceFn, mlir::ValueRange{totalI64}).getResult(0);

  for (Buffer &buf : buffers) {
    b.setInsertionPoint(buf.alloc);
    mlir::Value off = idx(buf.perSample ? fixedBytes : buf.offset);
    if (buf.perSample) off = b.create<mlir::arith::AddIOp>(loc, off, b.create<mlir::arith::MulIOp>(loc, idx(buf.offset), batch));
    auto view = b.create<mlir::memref::ViewOp>(buf.alloc.getLoc(), buf.alloc.getType(), ws, off, buf.alloc.getDynamicSizes());
    for (auto d : buf.deallocs) d.erase();
    buf.alloc.getResult().replaceAllUsesWith(view.getResult());
    buf.alloc.erase();
  }
  fn->setAttr("dx.workspace_fixed_bytes", b.getI64IntegerAttr(fixedBytes));
  fn->setAttr("dx.workspace_bytes_per_sample", b.getI64IntegerAttr(perSampleBytes));
}

// The plan's sizes into the model's metadata (dx_model_metadata, written by
// dx-build-abi): "workspace": {"dx_train_step": {"fixed_bytes": F,
// "bytes_per_sample": S}, ...}, so that the runtime states the step's memory
// (F + S * batch) before the first step. Modules without the global (pass
// tests) are left as they are.
void recordPlan(mlir::ModuleOp module) {
  auto global = module.lookupSymbol<mlir::LLVM::GlobalOp>("dx_model_metadata");
  auto text = global ? mlir::dyn_cast_or_null<mlir::StringAttr>(global.getValueOrNull()) : mlir::StringAttr();
  if (!text) return;
  llvm::StringRef json = text.getValue();
  if (json.ends_with(llvm::StringRef("\0", 1))) json = json.drop_back();
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(json);
  if (!parsed) {
    llvm::consumeError(parsed.takeError());
    return;
  }
  llvm::json::Object *meta = parsed->getAsObject();
  if (!meta) return;
  llvm::json::Object plan;
  for (auto f : module.getOps<mlir::func::FuncOp>()) {
    auto fixed = f->getAttrOfType<mlir::IntegerAttr>("dx.workspace_fixed_bytes");
    auto perSample = f->getAttrOfType<mlir::IntegerAttr>("dx.workspace_bytes_per_sample");
    if (fixed && perSample)
      plan[f.getName()] = llvm::json::Object{{"fixed_bytes", fixed.getInt()}, {"bytes_per_sample", perSample.getInt()}};
  }
  (*meta)["workspace"] = std::move(plan);
  std::string out;
  llvm::raw_string_ostream os(out);
  os << llvm::json::Value(std::move(*meta));
  os.flush();
  out.push_back('\0');
  mlir::OpBuilder b(global);
  global.setGlobalTypeAttr(mlir::TypeAttr::get(mlir::LLVM::LLVMArrayType::get(b.getI8Type(), out.size())));
  global.setValueAttr(b.getStringAttr(out));
}

struct PlanMemoryPass : mlir::PassWrapper<PlanMemoryPass, mlir::OperationPass<mlir::ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(PlanMemoryPass)
  llvm::StringRef getArgument() const override { return "dx-plan-memory"; }
  llvm::StringRef getDescription() const override {
    return "Place the step functions' buffers in one reused workspace (no heap allocation per step)";
  }
  void runOnOperation() override {
    mlir::ModuleOp module = getOperation();
    mlir::OpBuilder b(module.getBodyRegion());
    auto wsType = mlir::MemRefType::get({mlir::ShapedType::kDynamic}, b.getI8Type());
    auto fn = module.lookupSymbol<mlir::func::FuncOp>("dxrt_workspace");
    if (!fn) {
      fn = b.create<mlir::func::FuncOp>(module.getLoc(), "dxrt_workspace", b.getFunctionType({b.getI64Type()}, {wsType}));
      fn.setPrivate();
      fn->setAttr("llvm.emit_c_interface", b.getUnitAttr());
    }
    for (auto f : module.getOps<mlir::func::FuncOp>())
      if (f.getName() == "dx_train_step" || f.getName() == "dx_eval_step") planFunction(f, fn);
    recordPlan(module);
  }
};

} // namespace

std::unique_ptr<mlir::Pass> createPlanMemoryPass() { return std::make_unique<PlanMemoryPass>(); }
void registerPlanMemoryPass() { mlir::PassRegistration<PlanMemoryPass>(); }

} // namespace dx
