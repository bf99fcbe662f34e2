#include "driver/Compile.h"
#include "driver/Library.h"

#include "codegen/Metadata.h"
#include "codegen/Pipeline.h"
#include "mlirgen/MLIRGen.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OperationSupport.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <filesystem>

#ifndef DX_RUNTIME_LINK
#define DX_RUNTIME_LINK ""
#endif
// --emit=lib: libdxrt_infer.a, the inference library's C API.
#ifndef DX_INFER_LIBRARY
#define DX_INFER_LIBRARY ""
#endif
// --target=cuda: libdxrt_cuda.a, then the CUDA libraries; empty when the
// build has no libdxrt_cuda.
#ifndef DX_CUDA_RUNTIME_LINK
#define DX_CUDA_RUNTIME_LINK ""
#endif

namespace dx {
namespace {

// A text stage's output: to the file -o names, else (or with "-o -") to
// standard output. Returns the exit code.
int writeText(const std::string &output, const std::string &text) {
  if (output.empty() || output == "-") {
    llvm::outs() << text;
    return 0;
  }
  std::error_code ec;
  llvm::raw_fd_ostream out(output, ec, llvm::sys::fs::OF_Text);
  if (!ec) out << text;
  if (!ec) out.close();
  if (ec || out.has_error()) {
    llvm::errs() << "dxc: error: cannot write " << output << ": " << (ec ? ec : out.error()).message() << "\n";
    out.clear_error();
    return 1;
  }
  return 0;
}

// The .dx position of a location: the innermost file:line:col, plus the
// block call sites it was instantiated from.
void describe(mlir::Location loc, std::string &where, std::vector<std::string> &sites) {
  if (auto f = mlir::dyn_cast<mlir::FileLineColLoc>(loc)) {
    if (where.empty())
      where = f.getFilename().str() + ":" + std::to_string(f.getLine()) + ":" + std::to_string(f.getColumn());
  } else if (auto n = mlir::dyn_cast<mlir::NameLoc>(loc)) {
    describe(n.getChildLoc(), where, sites);
  } else if (auto c = mlir::dyn_cast<mlir::CallSiteLoc>(loc)) {
    describe(c.getCallee(), where, sites);
    std::string site;
    std::vector<std::string> more;
    describe(c.getCaller(), site, more);
    if (!site.empty()) sites.push_back(site);
    sites.insert(sites.end(), more.begin(), more.end());
  } else if (auto fused = mlir::dyn_cast<mlir::FusedLoc>(loc)) {
    for (mlir::Location l : fused.getLocations()) describe(l, where, sites);
  }
}

std::string stem(const std::string &path) { return std::filesystem::path(path).stem().string(); }

// A '|'-separated link line as the build recorded it, its first element (a
// library archive) taken from ../lib when dxc is installed and it is there.
std::vector<std::string> linkArgs(const std::string &all) {
  std::vector<std::string> args;
  size_t start = 0;
  while (start <= all.size() && !all.empty()) {
    size_t bar = all.find('|', start);
    std::string a = all.substr(start, bar == std::string::npos ? std::string::npos : bar - start);
    if (!a.empty()) args.push_back(a);
    if (bar == std::string::npos) break;
    start = bar + 1;
  }
  std::error_code ec;
  auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec && !args.empty()) {
    auto installed = exe.parent_path().parent_path() / "lib" / std::filesystem::path(args[0]).filename();
    if (std::filesystem::exists(installed, ec)) args[0] = installed.string();
  }
  return args;
}

// The libraries a model object links with: libdxrt and what it needs
// (OpenBLAS and zlib statically; MPI, oneDNN, OpenMP shared), as the build
// recorded them (DX_RUNTIME_LINK, '|'-separated, libdxrt first). An
// installed dxc takes libdxrt.a from ../lib instead of the build tree.
std::vector<std::string> runtimeLinkArgs() { return linkArgs(DX_RUNTIME_LINK); }

// For --target=cuda: libdxrt_cuda.a (from ../lib when installed), then
// cudart (static), cuBLAS, cuDNN, NCCL (DX_CUDA_RUNTIME_LINK).
std::vector<std::string> cudaRuntimeLinkArgs() { return linkArgs(DX_CUDA_RUNTIME_LINK); }

// The link line of a CUDA executable around the CPU one: object,
// libdxrt_cuda.a (with its device backend forced in: nothing in the model
// object names it), libdxrt.a and the CPU libraries, then the CUDA
// libraries, -lpthread. The directories of the CUDA shared libraries go in
// the run path (they need not be in the loader's cache where it runs).
std::vector<std::string> cudaLinkLine(const std::vector<std::string> &cpu, const std::vector<std::string> &cuda) {
  std::vector<std::string> args = {"-Wl,-u,dxrt_cuda_backend_link", cuda[0]};
  args.insert(args.end(), cpu.begin(), cpu.end());
  std::vector<std::string> rpaths;
  for (size_t i = 1; i < cuda.size(); ++i) {
    args.push_back(cuda[i]);
    std::filesystem::path p(cuda[i]);
    if (p.is_absolute() && p.extension() == ".so") {
      std::string dir = "-Wl,-rpath," + p.parent_path().string();
      if (std::find(rpaths.begin(), rpaths.end(), dir) == rpaths.end()) rpaths.push_back(dir);
    }
  }
  args.push_back("-lpthread");
  args.insert(args.end(), rpaths.begin(), rpaths.end());
  return args;
}

int link(const std::string &object, const std::string &output, bool cuda) {
  std::vector<std::string> runtime = runtimeLinkArgs();
  std::error_code ec;
  if (runtime.empty() || !std::filesystem::exists(runtime[0], ec)) {
    llvm::errs() << "dxc: error: cannot find the runtime library libdxrt.a"
                 << (runtime.empty() ? "" : " (looked for " + runtime[0] + ")") << "\n";
    return 1;
  }
  if (cuda) {
    std::vector<std::string> cudaRuntime = cudaRuntimeLinkArgs();
    // compileProgram checked that the build has it.
    if (!std::filesystem::exists(cudaRuntime[0], ec)) {
      llvm::errs() << "dxc: error: cannot find the CUDA runtime library libdxrt_cuda.a (looked for "
                   << cudaRuntime[0] << ")\n";
      return 1;
    }
    runtime = cudaLinkLine(runtime, cudaRuntime);
  }
  std::vector<std::string> args = linkDriver();
  if (args.empty()) return 1;
  args.insert(args.end(), {"-o", output, object});
  args.insert(args.end(), runtime.begin(), runtime.end());
  std::vector<llvm::StringRef> refs(args.begin(), args.end());
  std::string msg;
  int rc = llvm::sys::ExecuteAndWait(args[0], refs, std::nullopt, {}, 0, 0, &msg);
  if (rc != 0) {
    llvm::errs() << "dxc: error: linking failed" << (msg.empty() ? "" : ": " + msg) << "\n  command:";
    for (auto &a : args) llvm::errs() << " " << a;
    llvm::errs() << "\n";
    return 1;
  }
  return 0;
}

} // namespace

int compileProgram(const Program &prog, const SourceManager &sm, const CompileRequest &req) {
  if (req.target != "cpu" && req.target != "cuda") {
    llvm::errs() << "dxc: error: unknown target '" << req.target << "'\n";
    return 1;
  }
  bool cuda = req.target == "cuda";
  if (req.emit == "ptx" && !cuda) {
    llvm::errs() << "dxc: error: --emit=ptx needs --target=cuda\n";
    return 1;
  }
  if (!req.gpuArch.empty() && !cuda) {
    llvm::errs() << "dxc: error: --gpu-arch needs --target=cuda\n";
    return 1;
  }
  // The executable and the library link libdxrt_cuda and the CUDA libraries.
  if (cuda && (req.emit.empty() || req.emit == "lib") && cudaRuntimeLinkArgs().empty()) {
    llvm::errs() << "dxc: error: this dxc was built without the CUDA runtime (libdxrt_cuda), so it cannot "
                 << (req.emit.empty() ? "link" : "make a library") << " for --target=cuda: use --emit=ptx|llvm|obj, "
                 << "or build DeepEx where the CUDA toolkit is\n";
    return 1;
  }
  // LARS's update computes per-layer norms that the host uses to set each
  // layer's rate; the GPU lowering cannot bring them back yet (dx-prepare-gpu
  // would refuse it too, without a .dx place).
  if (cuda && prog.train && prog.train->optimizer.kind == "lars") {
    SourceRange at;
    if (prog.module.main)
      for (const auto &t : prog.module.main->trains)
        if (const ast::Setting *s = t->find("optimizer")) at = s->range;
    llvm::errs() << (at.file >= 0 ? sm.describe(at) : req.input) << ": error: the CUDA target does not support the "
                 << "lars optimizer yet (its per-layer norms are used on the host); use sgd, adam, adamw or rmsprop, "
                 << "or compile for the CPU\n";
    return 1;
  }
  mlir::DialectRegistry registry;
  registerCodegenDialects(registry);
  mlir::MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();
  // An error names its .dx place; dumping the failing op (often a whole
  // function) would bury it.
  ctx.printOpOnDiagnostic(false);
  // Errors of later stages carry the .dx location of the op at fault.
  unsigned errors = 0;
  mlir::ScopedDiagnosticHandler handler(&ctx, [&](mlir::Diagnostic &d) {
    // Remarks (e.g. a buffer the memory plan left on the heap) only with --remarks.
    if (d.getSeverity() == mlir::DiagnosticSeverity::Remark && !req.remarks) return mlir::success();
    std::string where;
    std::vector<std::string> sites;
    describe(d.getLocation(), where, sites);
    bool isError = d.getSeverity() == mlir::DiagnosticSeverity::Error;
    errors += isError;
    const char *kind = isError ? "error: " : d.getSeverity() == mlir::DiagnosticSeverity::Remark ? "remark: " : "note: ";
    llvm::errs() << (where.empty() ? "dxc" : where) << ": " << kind << d.str() << "\n";
    for (const std::string &s : sites) llvm::errs() << s << ": note: in the block instantiated here\n";
    for (mlir::Diagnostic &n : d.getNotes()) {
      std::string nw;
      std::vector<std::string> ns;
      describe(n.getLocation(), nw, ns);
      llvm::errs() << (nw.empty() ? "dxc" : nw) << ": note: " << n.str() << "\n";
    }
    return mlir::success();
  });
  auto module = mlirGen(ctx, prog, sm);
  if (!module) {
    llvm::errs() << "dxc: internal error: MLIRGen produced an invalid dx module\n";
    return 1;
  }
  CodegenOptions opts;
  opts.cpu = req.cpu;
  opts.splitReductions = req.splitReductions;
  opts.emulateGpu = req.emulateGpu;
  opts.strictFp = req.strictFp;
  opts.fuseReductionLoops = req.fuseReductionLoops;
  opts.singleAccumulators = req.singleAccumulators;
  if (req.prefetchBytes >= 0) opts.prefetchBytes = req.prefetchBytes;
  opts.generatedPooling = req.generatedPooling;
  opts.fusePoolInput = req.fusePoolInput;
  opts.bf16ProductInputs = prog.train && prog.train->precision == "bf16" && !req.fp32ProductInputs;
  opts.channelBlock = req.channelBlock;
  if (cuda) {
    opts.target = Target::Cuda;
    if (!req.gpuArch.empty()) {
      opts.gpuArchs.clear();
      llvm::SmallVector<llvm::StringRef> archs;
      llvm::StringRef(req.gpuArch).split(archs, ',');
      // One image per architecture: a repeated one is dropped.
      for (llvm::StringRef a : archs)
        if (std::find(opts.gpuArchs.begin(), opts.gpuArchs.end(), a.str()) == opts.gpuArchs.end())
          opts.gpuArchs.push_back(a.str());
    }
  }
  std::string convLayout;
  if (!cuda) {
    const int64_t block = plannedChannelBlock(opts);
    convLayout = block == 0 ? "nchw" : "nchw" + std::to_string(block) + "c";
  }
  annotateModule(*module, prog, sm, req.target, convLayout);
  const bool lib = req.emit == "lib";
  const std::string e = lib ? std::string("obj") : req.emit; // a library starts as the model's object
  opts.stopAfter = e == "dx" ? Stage::Dx : e == "dx-grad" ? Stage::DxGrad : e == "linalg" ? Stage::Linalg
                   : e == "ptx" ? Stage::Ptx : e == "llvm" ? Stage::LLVM : Stage::Obj;
  if (e.empty() || e == "obj") {
    if (!prog.train) {
      llvm::errs() << "dxc: error: " << req.input << " has no train block, so there is nothing to compile\n";
      return 1;
    }
  }
  llvm::SmallString<128> tmpObject;
  if (e == "obj" && !lib) opts.objectPath = req.output.empty() ? stem(req.input) + ".o" : req.output;
  else if (e.empty() || lib) {
    if (llvm::sys::fs::createTemporaryFile("dxc-" + stem(req.input), "o", tmpObject)) {
      llvm::errs() << "dxc: error: cannot create a temporary object file\n";
      return 1;
    }
    opts.objectPath = tmpObject.str().str();
  }
  std::string llvmIR;
  if (mlir::failed(runPipeline(*module, opts, &llvmIR))) {
    if (!tmpObject.empty()) llvm::sys::fs::remove(tmpObject);
    if (errors == 0) llvm::errs() << "dxc: error: code generation failed\n";
    return 1;
  }
  if (e == "dx" || e == "dx-grad" || e == "linalg") {
    mlir::OpPrintingFlags flags;
    if (req.printLocations) flags.enableDebugInfo(/*enable=*/true, /*prettyForm=*/false);
    std::string text;
    llvm::raw_string_ostream os(text);
    module->print(os, flags);
    os << "\n";
    os.flush();
    return writeText(req.output, text);
  }
  if (e == "llvm" || e == "ptx") return writeText(req.output, llvmIR); // LLVM IR, or the kernels' PTX
  if (lib) {
    // The C API (libdxrt_infer.a, from ../lib when installed) before libdxrt;
    // for CUDA, libdxrt_cuda and the CUDA libraries around it, as for the
    // executable.
    std::vector<std::string> link = linkArgs(DX_INFER_LIBRARY), runtime = runtimeLinkArgs();
    if (cuda) runtime = cudaLinkLine(runtime, cudaRuntimeLinkArgs());
    link.insert(link.end(), runtime.begin(), runtime.end());
    int rc = writeModelLibrary(prog, opts.objectPath, req.output.empty() ? "lib" + stem(req.input) + ".a" : req.output,
                               link);
    llvm::sys::fs::remove(tmpObject);
    return rc;
  }
  if (e == "obj") return 0;
  std::string output = req.output.empty() ? stem(req.input) : req.output;
  int rc = link(opts.objectPath, output, cuda);
  llvm::sys::fs::remove(tmpObject);
  return rc;
}

} // namespace dx
