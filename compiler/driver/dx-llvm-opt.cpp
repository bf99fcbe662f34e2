// dx-llvm-opt: runs dx's passes on LLVM IR (those dxc runs after LLVM's O3
// pipeline) over an .ll file and prints the module, for lit tests.
#include "codegen/StreamPrefetch.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/IRReader/IRReader.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

namespace cl = llvm::cl;

static cl::opt<std::string> inputFile(cl::Positional, cl::desc("<input .ll file>"), cl::init("-"));
static cl::opt<unsigned>
    streamPrefetchBytes("stream-prefetch-bytes",
                        cl::desc("software prefetches this many bytes ahead of each stream (StreamPrefetch.h)"),
                        cl::init(0));

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::ParseCommandLineOptions(argc, argv, "DeepEx passes on LLVM IR\n");
  llvm::LLVMContext ctx;
  llvm::SMDiagnostic err;
  std::unique_ptr<llvm::Module> m = llvm::parseIRFile(inputFile, err, ctx);
  if (!m) {
    err.print(argv[0], llvm::errs());
    return 1;
  }
  dx::insertStreamPrefetches(*m, /*tm=*/nullptr, streamPrefetchBytes);
  if (llvm::verifyModule(*m, &llvm::errs())) {
    llvm::errs() << argv[0] << ": the module is not valid after the passes\n";
    return 1;
  }
  m->print(llvm::outs(), nullptr);
  return 0;
}
