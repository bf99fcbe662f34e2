#include "train/Schedule.h"

#include "common/Check.h"

#include <algorithm>
#include <cmath>

namespace dxrt {

double learning_rate(const ScheduleSpec &s, double base, int64_t step, int64_t steps_per_epoch, int64_t epochs) {
  const int64_t S = std::max<int64_t>(steps_per_epoch, 1);
  const int64_t t = std::max<int64_t>(step, 1) - 1;              // 0-based step
  const int64_t e = t / S;                                       // 0-based epoch
  const double warmup = s.warmup_epochs * double(S);             // warm-up steps
  if (double(t) < warmup) return base * double(t + 1) / warmup;
  if (s.kind == "step") return base * std::pow(s.gamma, double(e / std::max<int64_t>(s.every, 1)));
  if (s.kind == "multistep") {
    int64_t passed = std::count_if(s.milestones.begin(), s.milestones.end(), [&](int64_t m) { return m <= e; });
    return base * std::pow(s.gamma, double(passed));
  }
  if (s.kind == "exponential") return base * std::pow(s.gamma, double(e));
  if (s.kind == "cosine") {
    const double total = double(epochs * S) - warmup, done = double(t) - warmup;
    if (total <= 0) return base;
    const double progress = std::min(done / total, 1.0);
    return s.min_lr + (base - s.min_lr) * 0.5 * (1.0 + std::cos(M_PI * progress));
  }
  return base; // constant
}

std::string describe(const ScheduleSpec &s) {
  std::string main;
  if (s.kind == "step") main = str("step(every ", s.every, " epochs, gamma ", num(s.gamma), ")");
  else if (s.kind == "multistep") main = str("multistep(milestones ", shape_str(s.milestones), ", gamma ", num(s.gamma), ")");
  else if (s.kind == "exponential") main = str("exponential(gamma ", num(s.gamma), ")");
  else if (s.kind == "cosine") main = str("cosine(min_lr ", num(s.min_lr), ")");
  else main = s.kind;
  if (s.warmup_epochs > 0)
    return str("warmup ", num(s.warmup_epochs), s.warmup_epochs == 1 ? " epoch" : " epochs", " then ", main);
  return main;
}

void validate(const ScheduleSpec &s) {
  const char *hint = "the model object's metadata is inconsistent; rebuild it with dxc";
  DXRT_CHECK(s.kind == "constant" || s.kind == "step" || s.kind == "multistep" || s.kind == "exponential" ||
                 s.kind == "cosine",
             str("unknown learning-rate schedule '", s.kind, "'"), hint);
  DXRT_CHECK(s.warmup_epochs >= 0, str("schedule: warmup_epochs ", s.warmup_epochs, " is negative"), hint);
  DXRT_CHECK(s.kind != "step" || s.every >= 1, str("schedule step: every = ", s.every, " must be >= 1"), hint);
  DXRT_CHECK(s.gamma > 0, str("schedule: gamma = ", s.gamma, " must be positive"), hint);
  DXRT_CHECK(s.min_lr >= 0, str("schedule: min_lr = ", s.min_lr, " must not be negative"), hint);
}

} // namespace dxrt
