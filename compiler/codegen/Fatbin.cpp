#include "codegen/Fatbin.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

namespace dx {
namespace {

using namespace mlir;

// Temporary files, removed when it goes out of scope.
class TempFiles {
public:
  ~TempFiles() {
    for (const std::string &p : paths_) llvm::sys::fs::remove(p);
  }
  // A new empty file "dxc-PREFIX-%%%%%%.SUFFIX" in the temporary directory.
  std::optional<std::string> create(const llvm::Twine &prefix, llvm::StringRef suffix) {
    llvm::SmallString<128> path;
    if (llvm::sys::fs::createTemporaryFile("dxc-" + prefix, suffix, path)) return std::nullopt;
    paths_.push_back(path.str().str());
    return paths_.back();
  }

private:
  std::vector<std::string> paths_;
};

// One architecture's image: its PTX, the cubin ptxas makes of it, the log.
struct Image {
  gpu::ObjectAttr object;
  std::string chip; // sm_90
  std::string sm;   // 90, as fatbinary's sm= wants it
  unsigned number = 0;
  std::string ptx, cubin, log;
  llvm::sys::ProcessInfo process;
};

std::string cudaTool(llvm::StringRef name) {
  const char *home = std::getenv("CUDA_HOME");
  llvm::SmallString<128> path(home && *home ? home : "/usr/local/cuda");
  llvm::sys::path::append(path, "bin", name);
  return path.str().str();
}

// A tool's messages (stdout and stderr went to one file), without the
// trailing newline; "no messages" when it printed nothing.
std::string readLog(const std::string &path) {
  auto buf = llvm::MemoryBuffer::getFile(path);
  if (!buf) return "(no messages)";
  llvm::StringRef text = (*buf)->getBuffer().rtrim();
  return text.empty() ? "(no messages)" : text.str();
}

std::string commandLine(llvm::ArrayRef<std::string> args) {
  std::string s;
  for (const std::string &a : args) s += (s.empty() ? "" : " ") + a;
  return s;
}

// Why a tool run failed, or nullopt when it succeeded.
std::optional<std::string> whyFailed(const llvm::sys::ProcessInfo &done, const std::string &waitError,
                                   const std::string &log) {
  if (done.ReturnCode == 0) return std::nullopt;
  if (done.ReturnCode == -1) return "could not be run" + (waitError.empty() ? "" : ": " + waitError);
  if (done.ReturnCode == -2) return "crashed" + (waitError.empty() ? "" : " (" + waitError + ")") + ":\n" + readLog(log);
  return "failed (exit status " + std::to_string(done.ReturnCode) + "):\n" + readLog(log);
}

LogicalResult fatbinOf(gpu::BinaryOp bin, TempFiles &tmp) {
  MLIRContext *ctx = bin.getContext();
  std::vector<Image> images;
  for (Attribute a : bin.getObjectsAttr()) {
    auto obj = cast<gpu::ObjectAttr>(a);
    auto target = dyn_cast<NVVM::NVVMTargetAttr>(obj.getTarget());
    if (!target || obj.getFormat() != gpu::CompilationTarget::Assembly)
      return bin.emitError("gpu.binary @") << bin.getName() << ": expected PTX objects of nvvm targets (format=isa)";
    Image img;
    img.object = obj;
    img.chip = target.getChip().str();
    llvm::StringRef sm(img.chip);
    if (!sm.consume_front("sm_") || sm.empty() || sm.take_while([](char c) { return llvm::isDigit(c); }).getAsInteger(10, img.number))
      return bin.emitError("'") << img.chip << "' is not a GPU architecture such as sm_90";
    img.sm = sm.str();
    if (llvm::any_of(images, [&](const Image &i) { return i.chip == img.chip; }))
      return bin.emitError("gpu.binary @") << bin.getName() << " has two objects for " << img.chip;
    images.push_back(std::move(img));
  }
  if (images.empty()) return bin.emitError("gpu.binary @") << bin.getName() << " has no objects";

  std::string ptxas = cudaTool("ptxas"), fatbinary = cudaTool("fatbinary");
  for (const std::string &tool : {ptxas, fatbinary})
    if (!llvm::sys::fs::can_execute(tool))
      return bin.emitError("cannot find the CUDA tool ") << tool << " (set CUDA_HOME to the CUDA toolkit)";

  // The PTX to files (without the NUL the JIT loader wants), then one ptxas
  // per architecture, all at once.
  for (Image &img : images) {
    auto ptx = tmp.create(img.chip, "ptx"), cubin = tmp.create(img.chip, "cubin"), log = tmp.create(img.chip, "log");
    if (!ptx || !cubin || !log) return bin.emitError("cannot create temporary files for ptxas");
    img.ptx = *ptx, img.cubin = *cubin, img.log = *log;
    llvm::StringRef text = img.object.getObject().getValue();
    while (text.ends_with(llvm::StringRef("\0", 1))) text = text.drop_back();
    std::error_code ec;
    llvm::raw_fd_ostream out(img.ptx, ec, llvm::sys::fs::OF_None);
    if (ec) return bin.emitError("cannot write ") << img.ptx << ": " << ec.message();
    out << text;
    out.close();
    if (out.has_error()) return bin.emitError("cannot write ") << img.ptx << ": " << out.error().message();
  }
  // Wait for every ptxas started before reporting (no process left behind).
  std::string firstError;
  std::vector<Image *> started;
  for (Image &img : images) {
    std::vector<std::string> args = {ptxas, "-arch=" + img.chip, "-O3", img.ptx, "-o", img.cubin};
    std::vector<llvm::StringRef> refs(args.begin(), args.end());
    std::optional<llvm::StringRef> redirects[] = {llvm::StringRef(), llvm::StringRef(img.log), llvm::StringRef(img.log)};
    std::string err;
    bool execFailed = false;
    img.process = llvm::sys::ExecuteNoWait(ptxas, refs, std::nullopt, redirects, 0, &err, &execFailed);
    if (execFailed || img.process.Pid == llvm::sys::ProcessInfo::InvalidPid) {
      firstError = "ptxas could not be run: " + err + "\n  command: " + commandLine(args);
      break;
    }
    started.push_back(&img);
  }
  for (Image *img : started) {
    std::string err;
    llvm::sys::ProcessInfo done = llvm::sys::Wait(img->process, std::nullopt, &err);
    if (auto why = whyFailed(done, err, img->log); why && firstError.empty())
      firstError = "ptxas -arch=" + img->chip + " " + *why +
                   "\n(each --gpu-arch must be an architecture that the CUDA toolkit's ptxas, " + ptxas +
                   ", supports)";
  }
  if (!firstError.empty()) return bin.emitError(firstError);

  // One fatbin: every cubin, and the PTX of the lowest architecture for
  // GPUs newer than all of them.
  const Image &lowest = *llvm::min_element(images, [](const Image &a, const Image &b) { return a.number < b.number; });
  auto fatbin = tmp.create("kernels", "fatbin"), log = tmp.create("fatbinary", "log");
  if (!fatbin || !log) return bin.emitError("cannot create temporary files for fatbinary");
  std::vector<std::string> args = {fatbinary, "-64", "--create=" + *fatbin};
  for (const Image &img : images) args.push_back("--image3=kind=elf,sm=" + img.sm + ",file=" + img.cubin);
  args.push_back("--image3=kind=ptx,sm=" + lowest.sm + ",file=" + lowest.ptx);
  std::vector<llvm::StringRef> refs(args.begin(), args.end());
  std::optional<llvm::StringRef> redirects[] = {llvm::StringRef(), llvm::StringRef(*log), llvm::StringRef(*log)};
  std::string err;
  bool execFailed = false;
  int rc = llvm::sys::ExecuteAndWait(fatbinary, refs, std::nullopt, redirects, 0, 0, &err, &execFailed);
  llvm::sys::ProcessInfo done;
  done.ReturnCode = execFailed ? -1 : rc;
  if (auto why = whyFailed(done, err, *log))
    return bin.emitError("fatbinary ") << *why << "\n  command: " << commandLine(args);

  auto data = llvm::MemoryBuffer::getFile(*fatbin, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!data) return bin.emitError("cannot read ") << *fatbin << ": " << data.getError().message();
  auto object = gpu::ObjectAttr::get(ctx, lowest.object.getTarget(), gpu::CompilationTarget::Fatbin,
                                     StringAttr::get(ctx, (*data)->getBuffer()), lowest.object.getProperties());
  bin.setObjectsAttr(ArrayAttr::get(ctx, {object}));
  return success();
}

} // namespace

LogicalResult buildFatbins(ModuleOp module) {
  llvm::SmallVector<gpu::BinaryOp> binaries(module.getOps<gpu::BinaryOp>());
  TempFiles tmp;
  for (gpu::BinaryOp bin : binaries)
    if (failed(fatbinOf(bin, tmp))) return failure();
  return success();
}

} // namespace dx
