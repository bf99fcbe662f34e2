// dxc: the DeepEx compiler driver.
//
//   dxc check FILE [--print-model] [--emit=ast]
//   dxc compile FILE -o OUT [--target=cpu|cuda] [--emit=STAGE]
//   dxc report LOG.jsonl... [-o DIR] [--project N,... --network NET]
//   dxc study FILE --ranks N,... [--epochs N] [-o DIR]
//
// Exit codes: 0 success, 1 errors in the input, 2 usage errors.
#include "driver/Compile.h"
#include "driver/LargeStack.h"
#include "driver/ModelTable.h"
#include "driver/VerifyDiagnostics.h"
#include "frontend/ASTDump.h"
#include "report/Report.h"
#include "report/Study.h"
#include "sema/Sema.h"

#include <CLI/CLI.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <unistd.h>

#ifndef DX_VERSION
#define DX_VERSION "0.0.0"
#endif
#ifndef DX_STDLIB_SOURCE_DIR
#define DX_STDLIB_SOURCE_DIR ""
#endif

namespace fs = std::filesystem;

namespace {

// The stages --emit can stop after, in pipeline order.
// ptx (the kernels, --target=cuda) comes before llvm: the host code embeds it.
const std::vector<std::string> kStages = {"ast", "dx", "dx-grad", "linalg", "ptx", "llvm", "obj", "lib"};

struct Options {
  std::string command;
  std::string input;
  std::string output;
  std::string emit;
  std::string target = "cpu";
  std::string cpu = "x86-64-v3";
  std::string gpuArch; // --gpu-arch, comma-separated; empty: sm_90
  std::string color = "auto";
  std::string stdlibDir;
  bool printModel = false;
  bool printLocations = false;
  bool remarks = false;
  std::string splitReductions;    // hidden --split-reductions[=N]; empty: not given
  std::string emulateGpu;         // hidden --emulate-gpu=ORDER
  bool strictFp = false;          // hidden --strict-fp
  bool fuseReductionLoops = false; // hidden --fuse-reduction-loops
  bool singleAccumulators = false; // hidden --single-accumulators
  int64_t prefetchBytes = -1;      // hidden --prefetch-bytes
  bool generatedPooling = false;   // hidden --generated-pooling
  bool noFusePoolInput = false;    // hidden --no-fuse-pool-input
  bool fp32ProductInputs = false;  // hidden --fp32-product-inputs
  std::string convLayout = "auto"; // --conv-layout=auto|nchw16c|nchw8c|nchw
  bool verify = false;
  bool split = false;
  std::string precision; // --precision: overrides the train block's; empty: as written
};

std::string findStdlib(const std::string &flag) {
  if (!flag.empty()) return flag;
  if (const char *env = std::getenv("DX_STDLIB")) return env;
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    fs::path installed = exe.parent_path().parent_path() / "share" / "deepex" / "stdlib";
    if (fs::is_directory(installed, ec)) return installed.string();
  }
  return DX_STDLIB_SOURCE_DIR;
}

bool useColor(const std::string &mode) {
  if (mode == "always") return true;
  if (mode == "never" || std::getenv("NO_COLOR")) return false;
  const char *term = std::getenv("TERM");
  return isatty(STDERR_FILENO) && term && std::string(term) != "dumb";
}

// Runs the front end on one input text; returns the exit code.
int runOne(const Options &o, const std::optional<std::string> &contents) {
  dx::SourceManager sm;
  dx::DiagnosticEngine diags(sm);
  dx::SemaOptions so;
  so.stdlibDir = findStdlib(o.stdlibDir);
  so.mainContents = contents;
  bool color = useColor(o.color);

  if (o.emit == "ast") {
    auto mod = dx::loadModule(o.input, sm, diags, so);
    if (o.verify) return dx::verifyDiagnostics(diags, std::cerr) ? 0 : 1;
    diags.render(std::cerr, color);
    if (!mod || diags.hasErrors()) return 1;
    if (o.output.empty() || o.output == "-") {
      dx::dumpAST(std::cout, *mod->main, sm);
      return 0;
    }
    std::ofstream out(o.output);
    if (out) dx::dumpAST(out, *mod->main, sm);
    if (!out || !out.flush()) {
      std::cerr << "dxc: error: cannot write " << o.output << "\n";
      return 1;
    }
    return 0;
  }

  auto prog = dx::analyze(o.input, sm, diags, so);
  if (o.verify) return dx::verifyDiagnostics(diags, std::cerr) ? 0 : 1;
  diags.render(std::cerr, color);
  if (diags.hasErrors()) return 1;
  if (!o.precision.empty()) {
    if (!prog->train) {
      std::cerr << "dxc: error: --precision " << o.precision << " sets the train block's precision, but " << o.input
                << " has no train block\n";
      return 1;
    }
    prog->train->precision = o.precision;
  }
  if (o.printModel)
    for (size_t i = 0; i < prog->models.size(); ++i) {
      if (i) std::cout << "\n";
      // The trained model is the first (sema/Sema.h).
      dx::printModelTable(std::cout, prog->models[i], sm, i == 0 && prog->train ? &*prog->train : nullptr);
    }
  if (!o.emit.empty() || o.command == "compile") {
    std::cout.flush();
    dx::CompileRequest req;
    req.input = o.input;
    req.emit = o.emit;
    req.output = o.output;
    req.target = o.target;
    req.cpu = o.cpu;
    req.gpuArch = o.gpuArch;
    req.printLocations = o.printLocations;
    req.remarks = o.remarks;
    req.splitReductions = o.splitReductions.empty() ? -1 : std::stoll(o.splitReductions);
    req.emulateGpu = o.emulateGpu;
    req.strictFp = o.strictFp;
    req.fuseReductionLoops = o.fuseReductionLoops;
    req.singleAccumulators = o.singleAccumulators;
    req.prefetchBytes = o.prefetchBytes;
    req.generatedPooling = o.generatedPooling;
    req.fusePoolInput = !o.noFusePoolInput;
    req.fp32ProductInputs = o.fp32ProductInputs;
    req.channelBlock = o.convLayout == "nchw16c" ? 16 : o.convLayout == "nchw8c" ? 8 : o.convLayout == "nchw" ? 0 : -1;
    return dx::compileProgram(*prog, sm, req);
  }
  return 0;
}

// --split-input-file: each chunk between `// -----` lines is checked on its
// own. Earlier lines become blank so line numbers stay those of the file.
int runSplit(const Options &o) {
  std::ifstream in(o.input, std::ios::binary);
  if (!in) {
    std::cerr << "dxc: error: cannot read '" << o.input << "'\n";
    return 1;
  }
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  std::vector<std::string> lines;
  std::string line;
  std::istringstream ls(text);
  while (std::getline(ls, line)) lines.push_back(line);
  int rc = 0;
  size_t start = 0;
  bool first = true;
  for (size_t i = 0; i <= lines.size(); ++i) {
    bool sep = i < lines.size() && lines[i].rfind("// -----", 0) == 0;
    if (!sep && i < lines.size()) continue;
    std::string chunk;
    for (size_t k = 0; k < start; ++k) chunk += "\n";
    for (size_t k = start; k < i; ++k) chunk += lines[k] + "\n";
    if (!first && o.emit == "ast") std::cout << "// -----\n";
    first = false;
    int r = runOne(o, chunk);
    rc = std::max(rc, r);
    start = i + 1;
  }
  return rc;
}

} // namespace

// --gpu-arch: sm_NN[,sm_NN...], NVVM's chip names. CLI11's check: "" when fine.
static const char *kGpuArchHelp =
    "with --target=cuda: the GPU architectures, comma-separated (default sm_90; e.g. sm_90,sm_80)";
static std::string checkGpuArchList(const std::string &v) {
  size_t start = 0;
  while (true) {
    size_t comma = v.find(',', start);
    std::string a = v.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    bool ok = a.size() > 3 && a.compare(0, 3, "sm_") == 0 && a.find_first_not_of("0123456789", 3) == std::string::npos;
    if (!ok) return "'" + a + "' is not a GPU architecture such as sm_90";
    if (comma == std::string::npos) return "";
    start = comma + 1;
  }
}

int main(int argc, char **argv) {
  CLI::App app{"dxc: the DeepEx compiler. Checks .dx files, compiles them to native training executables, and reports on training runs."};
  app.set_version_flag("--version", std::string("dxc (DeepEx) ") + DX_VERSION);
  app.require_subcommand(1);
  Options o;

  auto addCommon = [&](CLI::App *sub) {
    sub->add_option("file", o.input, "the .dx file")->required();
    sub->add_option("--emit", o.emit, "stop after a stage and print it: ast | dx | dx-grad | linalg | ptx | llvm | obj; lib: the inference library (docs/inference.md)")
        ->check(CLI::IsMember(kStages));
    sub->add_flag("--print-locations", o.printLocations, "with --emit=dx: print each op's .dx location");
    sub->add_flag("--print-model", o.printModel,
                  "print a table of each model's layers: output shape, parameters, FLOPs");
    sub->add_option("--stdlib-dir", o.stdlibDir, "where 'use std.NAME' finds NAME.dx (default: installed stdlib)");
    sub->add_option("--color", o.color, "colour diagnostics: auto | always | never")
        ->check(CLI::IsMember({"auto", "always", "never"}));
    sub->add_flag("--verify-diagnostics", o.verify,
                  "compare diagnostics with expected-error {{...}} comments in the source (for tests)");
    sub->add_flag("--split-input-file", o.split, "check each chunk between '// -----' lines on its own (for tests)");
    sub->add_option("--precision", o.precision,
                    "fp32 | bf16: the train block's precision, overriding 'precision:' (docs/language.md)")
        ->check(CLI::IsMember({"fp32", "bf16"}));
  };
  CLI::App *check = app.add_subcommand("check", "parse and check a .dx file: names, imports, shapes, train block");
  addCommon(check);
  CLI::App *compile = app.add_subcommand("compile", "compile a .dx file to an executable");
  addCommon(compile);
  compile->add_option("-o,--output", o.output, "the executable to write (with --emit: the stage's file; - or none: standard output)");
  compile->add_option("--target", o.target, "cpu | cuda")->check(CLI::IsMember({"cpu", "cuda"}));
  compile->add_flag("--remarks", o.remarks, "show the code generator's remarks (e.g. buffers the memory plan left on the heap)");
  compile->add_option("--cpu", o.cpu, "the CPU to generate code for: an LLVM CPU name, or native (default x86-64-v3)");
  // Hidden, for tests: dx-split-reductions for the CPU too (it always runs for
  // CUDA); =N splits reductions of at least N elements per output (default
  // 64; for CUDA too, e.g. to time another threshold on a GPU).
  // (A string: CLI11 sums an integer flag's occurrences, and counts "0" as -1.)
  compile->add_flag("--split-reductions{0}", o.splitReductions, "")
      ->check(CLI::Validator(
          [](std::string &v) {
            bool digits = !v.empty() && v.size() < 18 && v.find_first_not_of("0123456789") == std::string::npos;
            return digits ? std::string() : "--split-reductions=N: N is a number of elements per output, not '" + v + "'";
          },
          "N"))
      ->group("");
  // Hidden, for tests (lowering/EmulateGpuOrder.h): a CPU executable whose
  // loops are the CUDA target's kernels, their threads run in ORDER.
  // (Hidden options lose their name in CLI11's messages: the checks say it.)
  compile->add_option("--emulate-gpu", o.emulateGpu, "")
      ->check(CLI::Validator(
          [](std::string &v) {
            bool known = v == "forward" || v == "reverse" || v == "odd-even";
            return known ? std::string() : "--emulate-gpu=ORDER: ORDER is forward, reverse or odd-even, not '" + v + "'";
          },
          "ORDER"))
      ->group("");
  // Hidden, for tests: sums in program order (no fast-math flags), as --emulate-gpu's.
  compile->add_flag("--strict-fp", o.strictFp, "")->group("");
  // Hidden, for measurements: dx-fuse-reduction-loops in the CPU pipeline (docs/codegen.md, section 5).
  compile->add_flag("--fuse-reduction-loops", o.fuseReductionLoops, "")->group("");
  // Hidden, for measurements: one accumulator per reduction (InterleaveAccumulators.h; docs/codegen.md, section 7).
  compile->add_flag("--single-accumulators", o.singleAccumulators, "")->group("");
  // Hidden, for measurements: software prefetches N bytes ahead of each stream, 0 none (StreamPrefetch.h).
  compile->add_option("--prefetch-bytes", o.prefetchBytes, "")
      ->check(CLI::Range(int64_t(0), int64_t(1) << 20))
      ->group("");
  // Hidden, for measurements and tests: generated 2-D max poolings (GeneratedMaxPool.h; docs/codegen.md, section 4).
  compile->add_flag("--generated-pooling", o.generatedPooling, "")->group("");
  // Hidden, for measurements and tests: poolings read a batch norm's and relu's result (FusePoolInput.h).
  compile->add_flag("--no-fuse-pool-input", o.noFusePoolInput, "")->group("");
  // Hidden, for measurements and tests: in bf16 precision, keep the products' saved inputs
  // in fp32 as before dx-bf16-product-inputs (docs/language.md, "Precision").
  compile->add_flag("--fp32-product-inputs", o.fp32ProductInputs, "")->group("");
  // The layout of 2-D convolutions' activations (docs/codegen.md, section 4,
  // "Convolution layouts"; docs/cli.md).
  compile->add_option("--conv-layout", o.convLayout,
                      "2-D convolution activations between convolutions: auto (default: nchw16c where --cpu or "
                      "this machine has AVX-512, else nchw8c), nchw16c, nchw8c or nchw")
      ->check(CLI::Validator(
          [](std::string &v) {
            bool known = v == "auto" || v == "nchw16c" || v == "nchw8c" || v == "nchw";
            return known ? std::string()
                         : "--conv-layout=LAYOUT: LAYOUT is auto, nchw16c, nchw8c or nchw, not '" + v + "'";
          },
          "LAYOUT"));
  compile->add_option("--gpu-arch", o.gpuArch, kGpuArchHelp)->check(checkGpuArchList);

  dx::report::ReportOptions ro;
  CLI::App *report = app.add_subcommand(
      "report", "read training runs' metrics logs: speed-up, learning speed-up, tables, plots, an HTML page");
  report->add_option("logs", ro.logs, "the metrics logs (JSON lines) of the runs")->required()->type_name("LOG.jsonl");
  report->add_option("-o,--output", ro.outDir, "the directory to write the report to (default: report)")->type_name("DIR");
  dx::report::StudyOptions so;
  CLI::App *study = app.add_subcommand(
      "study", "compile a .dx file once, train it under mpirun at each rank count, and write the report");
  study->add_option("file", o.input, "the .dx file")->required();
  study->add_option("--ranks", so.ranks, "the rank counts to run, e.g. 1,2,4")
      ->required()->delimiter(',')->check(CLI::PositiveNumber)->type_name("N,...");
  study->add_option("--epochs", so.epochs, "epochs of every run (default: the train block's)")
      ->check(CLI::PositiveNumber)->type_name("N");
  study->add_option("--batch", so.batch, "batch size per rank (default: the train block's)")
      ->check(CLI::PositiveNumber)->type_name("N");
  study->add_option("--seed", so.seed, "seed of every run")->check(CLI::NonNegativeNumber)->type_name("N");
  study->add_option("--max-steps", so.maxSteps, "stop every run after N steps")->check(CLI::PositiveNumber)->type_name("N");
  study->add_flag("--synthetic", so.synthetic, "train on random data (throughput only)");
  study->add_option("--data-dir", so.dataDir, "take the dataset's relative paths from DIR in every run")->type_name("DIR");
  study->add_flag("--stop-at-target", so.stopAtTarget, "stop each run once the train block's target is met");
  study->add_option("--lr-scaling", so.lrScaling,
                    "none, or linear: multiply the learning rate by the ranks (the warm-up is the schedule's)")
      ->check(CLI::IsMember({"none", "linear"}));
  study->add_option("--sync", so.sync, "sync modes to compare: allreduce, average:K (e.g. allreduce,average:8)")
      ->delimiter(',')
      ->check(CLI::Validator([](std::string &m) { return dx::report::checkSyncMode(m); }, "MODE", "sync mode"))
      ->type_name("MODE,...");
  study->add_option("-o,--output", so.outDir, "the directory for the executable, the runs' logs and the report "
                                              "(default: STEM-study)")->type_name("DIR");
  study->add_option("--mpirun", so.mpirun, "the mpirun to use (default: mpirun on PATH)")->type_name("PATH");
  study->add_flag("--verbose", so.verbose, "show the runs' output instead of writing it to DIR/runs/*.out");
  study->add_option("--cpu", o.cpu, "the CPU to generate code for (default x86-64-v3)");
  study->add_option("--precision", o.precision, "fp32 | bf16: the train block's precision, overriding 'precision:'")
      ->check(CLI::IsMember({"fp32", "bf16"}));
  // A GPU study: every rank uses the GPU of its local rank (NCCL all-reduce).
  study->add_option("--target", o.target, "cpu | cuda")->check(CLI::IsMember({"cpu", "cuda"}));
  study->add_option("--gpu-arch", o.gpuArch, kGpuArchHelp)->check(checkGpuArchList);
  study->add_option("--stdlib-dir", o.stdlibDir, "where 'use std.NAME' finds NAME.dx");
  study->add_option("--color", o.color, "colour diagnostics: auto | always | never")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  // The projection, for both.
  for (auto [sub, opts] : {std::pair{report, &ro}, std::pair{study, &so.report}}) {
    CLI::Option *project = sub->add_option("--project", opts->project,
                                           "also project the speed-up to these rank counts with an alpha-beta model "
                                           "of all-reduce, e.g. 6,96,1536,12288")
                               ->delimiter(',')->check(CLI::PositiveNumber)->type_name("N,...");
    CLI::Option *network =
        sub->add_option("--network", opts->network, "the network of the projection: summit, hopper, or a JSON file")
            ->type_name("NAME|FILE");
    project->needs(network);
    network->needs(project);
    sub->add_option("--compute-time", opts->computeTime,
                    "the projection's compute time per step in seconds (default: measured)")
        ->check(CLI::PositiveNumber)->type_name("SECONDS");
    sub->add_option("--backward-time", opts->backwardTime,
                    "the overlapped projection's backward window per step in seconds, in which the gradient "
                    "buckets' all-reduce can hide (default: overlap_window_s measured with ranks > 1)")
        ->check(CLI::PositiveNumber)->type_name("SECONDS");
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp &e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp &e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion &e) {
    return app.exit(e);
  } catch (const CLI::ParseError &e) {
    app.exit(e);
    return 2;
  }
  if (report->parsed()) {
    try {
      return dx::report::runReport(ro, std::cout, std::cerr);
    } catch (const std::exception &e) {
      std::cerr << "dxc: internal error: " << e.what() << "\n";
      return 1;
    }
  }
  o.command = check->parsed() ? "check" : "compile";
  if ((!o.emulateGpu.empty() || o.strictFp) && o.target != "cpu") {
    std::cerr << "dxc: error: " << (o.strictFp ? "--strict-fp" : "--emulate-gpu")
              << " is a test of CPU builds: it needs --target=cpu\n";
    return 2;
  }
  if (o.split && !o.output.empty() && !o.emit.empty() && o.emit != "obj") {
    // Every chunk would write the same file, the last one winning.
    std::cerr << "dxc: error: -o " << o.output << " with --split-input-file: the chunks' " << o.emit
              << " would overwrite each other; leave -o out to print them all\n";
    return 2;
  }
  if (study->parsed()) {
    so.input = o.input;
    return dx::runWithLargeStack([&]() {
      try {
        auto compileOnce = [&](const std::string &exe) {
          Options c = o;
          c.command = "compile";
          c.output = exe;
          return runOne(c, std::nullopt);
        };
        return dx::report::runStudy(so, compileOnce, std::cout, std::cerr);
      } catch (const std::exception &e) {
        std::cerr << "dxc: internal error: " << e.what() << "\n";
        return 1;
      }
    });
  }
  return dx::runWithLargeStack([&]() {
    try {
      return o.split ? runSplit(o) : runOne(o, std::nullopt);
    } catch (const std::exception &e) {
      std::cerr << "dxc: internal error: " << e.what() << "\n";
      return 1;
    }
  });
}
