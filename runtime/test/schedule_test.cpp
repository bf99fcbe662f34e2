// Learning-rate schedules as the metadata describes them: checks and the
// banner's text. (The rates are generated code: test/schedule/ compares them
// with PyTorch's schedulers.)
#include "common/Check.h"
#include "train/Schedule.h"

#include <gtest/gtest.h>
#include <cmath>

using namespace dxrt;

namespace {

TEST(Schedule, ValidateRejectsNonsense) {
  ScheduleSpec s;
  s.kind = "sawtooth";
  EXPECT_THROW(validate(s), Error);
  s.kind = "step";
  s.every = 0;
  EXPECT_THROW(validate(s), Error);
}

TEST(Schedule, Describe) {
  ScheduleSpec s;
  s.kind = "cosine";
  s.warmup_epochs = 1;
  EXPECT_EQ(describe(s), "warmup 1 epoch then cosine(min_lr 0)");
  s.kind = "multistep";
  s.warmup_epochs = 0;
  s.milestones = {10, 20};
  s.gamma = 0.5;
  EXPECT_EQ(describe(s), "multistep(milestones [10, 20], gamma 0.5)");
}

} // namespace
