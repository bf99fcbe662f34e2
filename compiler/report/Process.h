// Running a child process (mpirun) and what the study needs to know about
// this machine. POSIX only.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace dx::report {

struct ProcessResult {
  bool started = false; // false: could not fork or exec (see error)
  int exitCode = -1;    // when it exited
  int signal = 0;       // when a signal ended it
  std::string error;
  bool ok() const { return started && signal == 0 && exitCode == 0; }
  std::string describe() const; // "exit code 3", "killed by signal 9 (Killed)", ...
};

// Runs `argv` (argv[0] a path, or a name looked up on PATH) with `env` added
// to the environment; its standard output and error go to `outputFile`, or
// stay this process's when it is empty. Waits for it.
ProcessResult runProcess(const std::vector<std::string> &argv, const std::vector<std::pair<std::string, std::string>> &env,
                         const std::string &outputFile);

// The path of `name` (a path if it has a '/'; else looked up on PATH) when
// it is an executable file.
std::optional<std::string> findExecutable(const std::string &name);

// Physical cores this process may run on (as Open MPI counts slots), at least 1.
int physicalCores();

// The last `lines` lines of a file, with terminal progress lines ('\r')
// reduced to what was left on screen.
std::string tailOfFile(const std::string &path, int lines);

} // namespace dx::report
