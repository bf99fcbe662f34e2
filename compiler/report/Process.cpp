#include "report/Process.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <sched.h>
#include <set>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

namespace dx::report {

std::string ProcessResult::describe() const {
  if (!started) return error;
  if (signal) return "killed by signal " + std::to_string(signal) + " (" + strsignal(signal) + ")";
  return "exit code " + std::to_string(exitCode);
}

std::optional<std::string> findExecutable(const std::string &name) {
  auto isExe = [](const std::string &p) {
    std::error_code ec;
    return std::filesystem::is_regular_file(p, ec) && access(p.c_str(), X_OK) == 0;
  };
  if (name.find('/') != std::string::npos) return isExe(name) ? std::optional<std::string>(name) : std::nullopt;
  const char *path = std::getenv("PATH");
  std::stringstream ss(path ? path : "/usr/local/bin:/usr/bin:/bin");
  std::string dir;
  while (std::getline(ss, dir, ':')) {
    std::string p = (dir.empty() ? "." : dir) + "/" + name;
    if (isExe(p)) return p;
  }
  return std::nullopt;
}

ProcessResult runProcess(const std::vector<std::string> &argv, const std::vector<std::pair<std::string, std::string>> &env,
                         const std::string &outputFile) {
  ProcessResult r;
  auto exe = findExecutable(argv.at(0));
  if (!exe) {
    r.error = "cannot find '" + argv[0] + "'";
    return r;
  }
  int fd = -1;
  if (!outputFile.empty()) {
    fd = open(outputFile.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
      r.error = "cannot write '" + outputFile + "': " + std::strerror(errno);
      return r;
    }
  }
  std::vector<char *> args;
  for (const std::string &a : argv) args.push_back(const_cast<char *>(a.c_str()));
  args.push_back(nullptr);
  // The child's environment, built here: after fork, the child only calls
  // dup2 and execve.
  std::vector<std::string> envStrings;
  for (char **e = environ; *e; ++e) {
    std::string kv = *e;
    bool replaced = false;
    for (const auto &[k, v] : env) replaced = replaced || kv.rfind(k + "=", 0) == 0;
    if (!replaced) envStrings.push_back(kv);
  }
  for (const auto &[k, v] : env) envStrings.push_back(k + "=" + v);
  std::vector<char *> envp;
  for (std::string &kv : envStrings) envp.push_back(kv.data());
  envp.push_back(nullptr);
  pid_t pid = fork();
  if (pid < 0) {
    r.error = std::string("cannot start a process: ") + std::strerror(errno);
    if (fd >= 0) close(fd);
    return r;
  }
  if (pid == 0) {
    if (fd >= 0) {
      dup2(fd, STDOUT_FILENO);
      dup2(fd, STDERR_FILENO);
    }
    execve(exe->c_str(), args.data(), envp.data());
    _exit(127);
  }
  if (fd >= 0) close(fd);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) {
      r.error = std::string("lost the child process: ") + std::strerror(errno);
      return r;
    }
  r.started = true;
  if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  else r.exitCode = WEXITSTATUS(status);
  return r;
}

int physicalCores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::set<std::pair<std::string, std::string>> cores;
  if (sched_getaffinity(0, sizeof set, &set) == 0)
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
      if (!CPU_ISSET(cpu, &set)) continue;
      const std::string base = "/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/topology/";
      std::ifstream pkg(base + "physical_package_id"), core(base + "core_id");
      std::string p, c;
      if (!(pkg >> p) || !(core >> c)) {
        p = "cpu";
        c = std::to_string(cpu);
      }
      cores.insert({p, c});
    }
  if (!cores.empty()) return int(cores.size());
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? int(n) : 1;
}

std::string tailOfFile(const std::string &path, int lines) {
  std::ifstream f(path, std::ios::binary);
  std::vector<std::string> all;
  std::string line;
  while (std::getline(f, line)) {
    if (size_t cr = line.find_last_of('\r'); cr != std::string::npos) {
      // What a terminal shows: the text after the last carriage return
      // (or before it, when the line ends with one).
      std::string after = line.substr(cr + 1);
      if (after.empty() && cr > 0) {
        size_t prev = line.find_last_of('\r', cr - 1);
        after = line.substr(prev == std::string::npos ? 0 : prev + 1, cr - (prev == std::string::npos ? 0 : prev + 1));
      }
      line = after;
    }
    // Drop terminal escape sequences (ESC [ ... letter).
    std::string clean;
    for (size_t i = 0; i < line.size(); ++i) {
      if (line[i] == '\x1b' && i + 1 < line.size() && line[i + 1] == '[') {
        i += 2;
        while (i < line.size() && !std::isalpha((unsigned char)line[i])) ++i;
        continue;
      }
      clean += line[i];
    }
    all.push_back(clean);
  }
  std::string out;
  for (size_t i = all.size() > size_t(lines) ? all.size() - lines : 0; i < all.size(); ++i) out += "  | " + all[i] + "\n";
  return out;
}

} // namespace dx::report
