// Learning-rate schedules: values at chosen steps.
#include "common/Check.h"
#include "train/Schedule.h"

#include <gtest/gtest.h>
#include <cmath>

using namespace dxrt;

namespace {

const int64_t S = 10; // steps per epoch

double lr(const ScheduleSpec &s, int64_t step, int64_t epochs = 10) { return learning_rate(s, 0.1, step, S, epochs); }

TEST(Schedule, Constant) {
  ScheduleSpec s;
  EXPECT_DOUBLE_EQ(lr(s, 1), 0.1);
  EXPECT_DOUBLE_EQ(lr(s, 100), 0.1);
}

TEST(Schedule, StepDecaysEveryNEpochs) {
  ScheduleSpec s;
  s.kind = "step";
  s.every = 3;
  s.gamma = 0.5;
  EXPECT_DOUBLE_EQ(lr(s, 30), 0.1);  // last step of epoch 3
  EXPECT_DOUBLE_EQ(lr(s, 31), 0.05); // first step of epoch 4
  EXPECT_DOUBLE_EQ(lr(s, 61), 0.025);
}

TEST(Schedule, MultistepDecaysAtMilestones) {
  ScheduleSpec s;
  s.kind = "multistep";
  s.milestones = {2, 5};
  s.gamma = 0.1;
  EXPECT_DOUBLE_EQ(lr(s, 20), 0.1);
  EXPECT_NEAR(lr(s, 21), 0.01, 1e-15);
  EXPECT_NEAR(lr(s, 50), 0.01, 1e-15);
  EXPECT_NEAR(lr(s, 51), 0.001, 1e-15);
}

TEST(Schedule, ExponentialDecaysEveryEpoch) {
  ScheduleSpec s;
  s.kind = "exponential";
  s.gamma = 0.9;
  EXPECT_DOUBLE_EQ(lr(s, 10), 0.1);
  EXPECT_NEAR(lr(s, 11), 0.09, 1e-15);
  EXPECT_NEAR(lr(s, 35), 0.1 * 0.9 * 0.9 * 0.9, 1e-15);
}

TEST(Schedule, CosineAnnealsPerStepToMinLr) {
  ScheduleSpec s;
  s.kind = "cosine";
  s.min_lr = 0.01;
  EXPECT_DOUBLE_EQ(lr(s, 1), 0.1);
  EXPECT_NEAR(lr(s, 51), 0.055, 1e-12); // half way: (0.1 + 0.01) / 2
  EXPECT_NEAR(lr(s, 100), 0.01 + 0.09 * 0.5 * (1 + std::cos(M_PI * 99 / 100)), 1e-12);
  EXPECT_GT(lr(s, 40), lr(s, 41));
}

TEST(Schedule, LinearWarmupThenCosine) {
  ScheduleSpec s;
  s.kind = "cosine";
  s.warmup_epochs = 2;
  EXPECT_NEAR(lr(s, 1), 0.1 / 20, 1e-15);
  EXPECT_NEAR(lr(s, 10), 0.1 / 2, 1e-15);
  EXPECT_NEAR(lr(s, 20), 0.1, 1e-15);
  EXPECT_NEAR(lr(s, 21), 0.1, 1e-15); // cosine starts at base after warmup
  EXPECT_NEAR(lr(s, 61), 0.05, 1e-12); // half of the 80 post-warmup steps
}

TEST(Schedule, WarmupThenStepCountsEpochsOfTheRun) {
  ScheduleSpec s;
  s.kind = "step";
  s.every = 3;
  s.warmup_epochs = 1;
  EXPECT_NEAR(lr(s, 5), 0.05, 1e-15);
  EXPECT_DOUBLE_EQ(lr(s, 11), 0.1);
  EXPECT_NEAR(lr(s, 31), 0.01, 1e-15);
}

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
