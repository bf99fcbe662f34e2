// `dxc study model.dx --ranks 1,2,4`: compiles the model once, trains it
// under mpirun at each rank count (and sync mode), and writes the report
// of the runs' logs.
#pragma once

#include "report/Report.h"

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace dx::report {

struct StudyOptions {
  std::string input;              // the .dx file
  std::vector<int64_t> ranks;     // rank counts, in the order to run them
  std::optional<int64_t> epochs, batch, seed, maxSteps;
  bool synthetic = false, stopAtTarget = false;
  std::string dataDir; // passed to every run as --data-dir (relative paths: from where dxc runs)
  std::string lrScaling;          // "", "none" or "linear" (--lr-scaling of the executable)
  std::vector<std::string> sync;  // "allreduce", "average:K"; several: one series each
  std::string outDir;             // default: STEM-study
  std::string mpirun = "mpirun";
  std::vector<std::string> mpirunArgs; // extra arguments before -np
  bool verbose = false;           // show the runs' output instead of writing DIR/runs/*.out
  ReportOptions report;           // projection settings; logs and outDir are the study's
};

// Compiles the .dx file to `exe`; returns dxc's exit code (diagnostics already printed).
using CompileFn = std::function<int(const std::string &exe)>;

// "" if `mode` is allreduce or average:K (K >= 1), else what is wrong.
std::string checkSyncMode(const std::string &mode);

// Exit code: 0 when every run and the report succeeded; 1 otherwise.
int runStudy(const StudyOptions &o, const CompileFn &compile, std::ostream &out, std::ostream &err);

} // namespace dx::report
