#include "train/Schedule.h"

#include "common/Check.h"

#include <algorithm>
#include <cmath>

namespace dxrt {

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
