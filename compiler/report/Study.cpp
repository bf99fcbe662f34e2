#include "report/Study.h"

#include "report/Log.h"
#include "report/Process.h"
#include "util/Format.h"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <ostream>
#include <unistd.h>

namespace dx::report {

namespace fs = std::filesystem;

std::string checkSyncMode(const std::string &mode) {
  if (mode == "allreduce") return "";
  const std::string prefix = "average:";
  if (mode.rfind(prefix, 0) == 0) {
    std::string k = mode.substr(prefix.size());
    if (!k.empty() && k.size() < 10 && k.find_first_not_of("0123456789") == std::string::npos && std::stol(k) >= 1)
      return "";
  }
  return "'" + mode + "' is not a sync mode: allreduce or average:K (average the models every K steps, K >= 1)";
}

namespace {

std::string quoteArg(const std::string &a) {
  if (!a.empty() && a.find_first_of(" \t'\"\\$") == std::string::npos) return a;
  std::string q = "'";
  for (char c : a) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string commandLine(const std::vector<std::string> &argv) {
  std::string s;
  for (size_t i = 0; i < argv.size(); ++i) s += (i ? " " : "") + quoteArg(argv[i]);
  return s;
}

// "np2", "np2-average8"
std::string runName(int64_t ranks, const std::string &sync, bool severalModes) {
  std::string name = "np" + std::to_string(ranks);
  if (severalModes) {
    std::string m = sync;
    if (m.rfind("average:", 0) == 0) m = "average" + m.substr(8);
    name += "-" + m;
  }
  return name;
}

// The executable's --help, to learn which flags it has.
std::string helpText(const std::string &exe) {
  std::string text;
  if (FILE *f = popen((quoteArg(exe) + " --help 2>/dev/null").c_str(), "r")) {
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, n);
    pclose(f);
  }
  return text;
}

} // namespace

int runStudy(const StudyOptions &o, const CompileFn &compile, std::ostream &out, std::ostream &err) {
  const std::string stem = fs::path(o.input).stem().string();
  const fs::path dir = o.outDir.empty() ? fs::path(stem + "-study") : fs::path(o.outDir);
  for (const std::string &m : o.sync)
    if (std::string why = checkSyncMode(m); !why.empty()) {
      err << "dxc: error: --sync: " << why << "\n";
      return 1;
    }
  for (size_t i = 0; i < o.ranks.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (o.ranks[i] == o.ranks[j]) {
        err << "dxc: error: --ranks: " << o.ranks[i] << " is given twice\n";
        return 1;
      }
  if (o.ranks.empty()) {
    err << "dxc: error: --ranks: no rank count given\n";
    return 1;
  }
  auto mpirun = findExecutable(o.mpirun);
  if (!mpirun) {
    err << "dxc: error: cannot find '" << o.mpirun
        << "' to run the study with (install Open MPI: apt-get install openmpi-bin; or name it with --mpirun)\n";
    return 1;
  }
  std::error_code ec;
  fs::create_directories(dir / "runs", ec);
  if (ec) {
    err << "dxc: error: cannot create '" << (dir / "runs").string() << "': " << ec.message() << "\n";
    return 1;
  }

  // Compile once.
  const fs::path exe = dir / stem;
  out << "dxc study: compiling " << o.input << " -> " << exe.string() << "\n" << std::flush;
  if (int rc = compile(exe.string()); rc != 0) {
    err << "dxc: error: the study stops: " << o.input << " did not compile\n";
    return rc;
  }

  // Checkpoints go under DIR, not into the current directory, when the
  // executable's runtime writes them.
  const bool checkpoints = helpText(exe.string()).find("--checkpoint-dir") != std::string::npos;
  const int cores = physicalCores();
  std::vector<std::pair<std::string, std::string>> env;
  if (geteuid() == 0) {
    env = {{"OMPI_ALLOW_RUN_AS_ROOT", "1"}, {"OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1"}};
    out << "dxc study: running as root, so mpirun gets OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1\n";
  }
  const std::vector<std::string> modes = o.sync.empty() ? std::vector<std::string>{""} : o.sync;
  const size_t total = modes.size() * o.ranks.size();
  size_t done = 0;
  int failures = 0;
  bool stop = false, warnedWarmup = false;
  std::vector<std::string> logs;

  for (const std::string &mode : modes) {
    for (int64_t n : o.ranks) {
      if (stop) break;
      const std::string name = runName(n, mode, modes.size() > 1);
      const fs::path log = dir / "runs" / (name + ".jsonl");
      const fs::path output = dir / "runs" / (name + ".out");
      fs::remove(log, ec); // never report a stale log

      std::vector<std::string> argv = {*mpirun, "-np", std::to_string(n)};
      if (n > cores) argv.push_back("--oversubscribe");
      argv.insert(argv.end(), o.mpirunArgs.begin(), o.mpirunArgs.end());
      argv.push_back(exe.string());
      argv.insert(argv.end(), {"--log", log.string()});
      if (o.epochs) argv.insert(argv.end(), {"--epochs", std::to_string(*o.epochs)});
      if (o.batch) argv.insert(argv.end(), {"--batch", std::to_string(*o.batch)});
      if (o.seed) argv.insert(argv.end(), {"--seed", std::to_string(*o.seed)});
      if (o.maxSteps) argv.insert(argv.end(), {"--max-steps", std::to_string(*o.maxSteps)});
      if (o.synthetic) argv.push_back("--synthetic");
      if (!o.dataDir.empty()) argv.insert(argv.end(), {"--data-dir", o.dataDir});
      if (o.stopAtTarget) argv.push_back("--stop-at-target");
      if (!o.lrScaling.empty()) argv.insert(argv.end(), {"--lr-scaling", o.lrScaling});
      if (!mode.empty()) argv.insert(argv.end(), {"--sync", mode});
      if (checkpoints) argv.insert(argv.end(), {"--checkpoint-dir", (dir / "checkpoints" / name).string()});

      ++done;
      out << "[" << done << "/" << total << "] " << n << (n == 1 ? " rank" : " ranks")
          << (mode.empty() ? "" : ", sync " + mode) << ": " << commandLine(argv) << "\n"
          << std::flush;
      const auto t0 = std::chrono::steady_clock::now();
      ProcessResult r = runProcess(argv, env, o.verbose ? "" : output.string());
      const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      const bool haveLog = fs::is_regular_file(log, ec) && fs::file_size(log, ec) > 0;
      if (haveLog) logs.push_back(log.string());
      if (!r.ok()) {
        ++failures;
        err << "dxc: error: the run on " << n << (n == 1 ? " rank" : " ranks") << " failed (" << r.describe() << ")";
        if (!o.verbose && r.started) err << "; the end of its output (" << output.string() << "):\n" << tailOfFile(output.string(), 12);
        else err << "\n";
        // A rejected flag (the executable's exit code 2) or no mpirun at
        // all would fail every run the same way.
        if (!r.started || r.exitCode == 2) {
          err << "dxc: error: the study stops here\n";
          stop = true;
        }
        continue;
      }
      std::string summary = "      done in " + fixed(secs, 1) + " s";
      if (haveLog) {
        try {
          RunLog l = readLog(log.string());
          if (!l.epochs.empty()) {
            const EpochRecord &e = l.epochs.back();
            summary += ": " + std::to_string(l.epochs.size()) + (l.epochs.size() == 1 ? " epoch, " : " epochs, ") +
                       fixed(e.trainTime, 2) + " s of training";
            if (e.valAccuracy) summary += ", accuracy " + fixed(*e.valAccuracy, 4);
            if (e.valIou) summary += ", IoU " + fixed(*e.valIou, 4);
            if (e.valMae) summary += ", MAE " + shortest(*e.valMae);
          }
          if (o.lrScaling == "linear" && !warnedWarmup && l.schedule.find("warmup") == std::string::npos &&
              !l.schedule.empty()) {
            err << "warning: --lr-scaling linear without a warm-up (the schedule is '" << l.schedule
                << "'): the linear rule is meant to be used with one, e.g. schedule: warmup(epochs: 1) then cosine\n";
            warnedWarmup = true;
          }
          if (l.ranks != n)
            err << "warning: " << log.string() << " says the run had " << l.ranks << (l.ranks == 1 ? " rank" : " ranks")
                << ", but mpirun started " << n << " (an executable without MPI support runs " << n
                << " separate worlds of 1 rank)\n";
        } catch (const InputError &) {
          // The report names the problem.
        }
        summary += " -> " + log.string();
      } else {
        summary += ", but it wrote no log";
      }
      out << summary << "\n" << std::flush;
    }
  }

  if (logs.empty()) {
    err << "dxc: error: no run wrote a log, so there is no report\n";
    return 1;
  }
  out << "\n";
  ReportOptions ro = o.report;
  ro.logs = logs;
  ro.outDir = dir.string();
  int rc = runReport(ro, out, err);
  if (failures) err << "dxc: error: " << failures << " of " << total << " runs failed\n";
  return rc != 0 || failures ? 1 : 0;
}

} // namespace dx::report
