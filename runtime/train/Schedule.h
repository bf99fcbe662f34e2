// The learning-rate schedule as the metadata describes it, for the banner,
// the log and checks. The rates themselves come from the generated
// dx_learning_rate (compiler/lowering/BuildABI.cpp), a pure function of the
// step with the same definition:
//
// Steps count from 1; epoch e (from 0) holds steps e*S+1 .. (e+1)*S, where S
// is steps_per_epoch. With warmup_epochs W > 0, the first W*S steps ramp
// linearly: lr = base * step / (W*S). After that:
//   constant      base
//   step          base * gamma^floor(e / every)            (PyTorch StepLR)
//   multistep     base * gamma^(milestones <= e)           (MultiStepLR: milestone 10 = from the 11th epoch)
//   exponential   base * gamma^e                           (ExponentialLR)
//   cosine        min_lr + (base - min_lr) (1 + cos(pi t / T)) / 2, per step,
//                 t = steps since warmup ended, T = steps from then to the end of the run
// Epoch counts of step/multistep/exponential are those of the whole run
// (warmup included); cosine anneals over what follows the warmup.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace dxrt {

struct ScheduleSpec {
  std::string kind = "constant"; // constant, step, multistep, exponential, cosine
  double warmup_epochs = 0;
  double gamma = 0.1;
  int64_t every = 1;
  std::vector<int64_t> milestones;
  double min_lr = 0;
};

// "warmup 1 epoch then cosine(min_lr 0)", for the banner.
std::string describe(const ScheduleSpec &s);

// Throws dxrt::Error when a value is out of range (unknown kind, every < 1, ...).
void validate(const ScheduleSpec &s);

} // namespace dxrt
