// --profile: where a training step's time goes, darknet/Caffe style. The
// compiler puts a hook after every op of the step that does work
// (compiler/lowering/ProfilePoints.h): dxrt_prof_point(id, bytes) gives the
// time since the previous hook to region `id` = (function, .dx layer, phase,
// kind: a libdxrt call or one generated op, with the bytes that op reads and
// writes at least once), described by the object's dx_profile_regions
// table. The trainer adds its own phases (data, all-reduce). Off, each hook
// is a call that returns at once.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

extern "C" {
void dxrt_prof_begin(void);
void dxrt_prof_point(int64_t id, int64_t bytes);
}

namespace dxrt {

class MetricsLog;

struct ProfileRegion {
  std::string function, layer, phase, kind;
  std::string op; // a generated op's shape ("reduce Bx2x28x28x16 -> 2x16"), else empty
  double seconds = 0;
  double bytes = 0; // a generated op's traffic, summed over the calls
  int64_t calls = 0;
};

// The trainer's own phases, outside the generated code.
enum class TrainerPhase { Data, AllReduce };

class Profiler {
public:
  static Profiler &get();
  // Reads the object's region table; throws dxrt::Error when the executable
  // has none (a build without the hooks, e.g. --target=cuda).
  void enable();
  bool on() const { return on_; }
  void add(TrainerPhase p, double seconds);
  // The end of a training step of `seconds`. The first one is warm-up
  // (oneDNN's JIT, the workspace's first touch): it resets the counts.
  void step_done(double seconds);
  // The table on stdout (rank 0 calls it) and a "profile" event in the log;
  // with `kernels` (--profile-kernels) also one row per generated op.
  void report(bool print, bool kernels, MetricsLog &log) const;

  // The hooks' state (public for the C entry points).
  std::vector<ProfileRegion> regions;
  double last = 0;

private:
  bool on_ = false, warm_ = false;
  double step_seconds_ = 0, data_s_ = 0, allreduce_s_ = 0;
  int64_t steps_ = 0;
};

} // namespace dxrt
