#include "train/Trainer.h"

#include "common/Check.h"
#include "common/Timer.h"
#include "data/Order.h"
#include "model/Model.h"
#include "train/Evaluate.h"
#include "train/Schedule.h"

#include <algorithm>
#include <cmath>

namespace dxrt {

Trainer::Trainer(const Metadata &meta, const RunConfig &cfg, const TrainData &data, Arenas &arenas, World &world,
                 Console &console, MetricsLog &log, double start_time)
    : meta_(meta), cfg_(cfg), data_(data), a_(arenas), world_(world), console_(console), log_(log), start_(start_time) {}

int Trainer::run() {
  for (int64_t epoch = 1; epoch <= cfg_.epochs && !stop_; ++epoch) {
    EpochStats s = train_epoch(epoch);
    if (data_.test) {
      s.val = evaluate(meta_, a_, *data_.test, cfg_.eval_batch, world_);
      s.has_val = true;
    }
    s.elapsed_s = now_s() - start_;
    console_.epoch_summary(s);
    log_.epoch(s);
    check_target(s);
  }
  const double elapsed = now_s() - start_;
  log_.end(train_time_, elapsed);
  std::string target;
  if (cfg_.target)
    target = str("; target ", cfg_.target->metric, " ", cfg_.target->op, " ", num(cfg_.target->value),
                 target_met_ ? str(" reached at epoch ", target_epoch_, " after ", str_fixed(target_time_, 1), " s of training")
                             : std::string(" not reached"));
  console_.line(str("done: ", step_, " steps, ", str_fixed(train_time_, 1), " s training, ", str_fixed(elapsed, 1),
                    " s in all", target));
  return kExitOk;
}

EpochStats Trainer::train_epoch(int64_t epoch) {
  const Split &train = data_.train;
  const std::vector<int64_t> order = epoch_order(train.n, uint64_t(cfg_.seed), epoch);
  const BatchPlan plan{train.n, cfg_.per_rank_batch, cfg_.world, cfg_.rank};
  const int64_t steps = plan.steps();
  EpochStats s;
  s.epoch = epoch;
  s.epochs = cfg_.epochs;
  double sums[2] = {0, 0}; // loss * samples, samples (this rank)
  for (int64_t k = 0; k < steps; ++k) {
    if (cfg_.max_steps && step_ >= cfg_.max_steps) {
      stop_ = true;
      break;
    }
    const double t0 = now_s();
    int64_t lo, hi;
    plan.shard(k, &lo, &hi);
    const int64_t b = hi - lo;
    gather(train, order, lo, hi, a_.x.data(), a_.labels.data());
    ++step_;
    float loss = 0;
    if (b > 0) {
      loss = model_train_step(a_, b, cfg_.seed, step_, cfg_.rank);
      if (!std::isfinite(loss)) non_finite(loss, epoch, k, steps);
    } else {
      std::fill(a_.grads.begin(), a_.grads.end(), 0.0f);
      std::copy(a_.buffers.begin(), a_.buffers.end(), a_.new_buffers.begin());
    }
    // Issue 4: all-reduce the gradients here (weighted by b / global batch).
    s.lr = learning_rate(cfg_.schedule, cfg_.base_lr, step_, steps, cfg_.epochs);
    model_update(a_, float(s.lr), step_);
    std::copy(a_.new_buffers.begin(), a_.new_buffers.end(), a_.buffers.begin());
    last_finite_loss_ = loss;
    last_finite_step_ = step_;
    sums[0] += double(loss) * double(b);
    sums[1] += double(b);
    s.epoch_time_s += now_s() - t0;
    ++s.steps;
    const double rate = double(plan.global_batch()) * double(s.steps) / std::max(s.epoch_time_s, 1e-9);
    console_.progress(cfg_, epoch, k + 1, steps, sums[0] / std::max(sums[1], 1.0), rate,
                      s.epoch_time_s / double(s.steps) * double(steps - s.steps));
  }
  world_.allreduce_sum(sums, 2);
  train_time_ += s.epoch_time_s;
  s.samples = int64_t(sums[1]);
  s.train_loss = sums[1] > 0 ? sums[0] / sums[1] : NAN;
  s.train_time_s = train_time_;
  s.samples_per_s = s.epoch_time_s > 0 ? double(s.samples) / s.epoch_time_s : 0;
  return s;
}

void Trainer::check_target(const EpochStats &s) {
  if (!cfg_.target || target_met_) return;
  const TargetSpec &t = *cfg_.target;
  double v = t.metric == "accuracy" ? s.val.accuracy : t.metric == "val_loss" ? s.val.loss : s.train_loss;
  if (t.metric != "loss" && !s.has_val) v = NAN;
  if (std::isnan(v) || !t.met(v)) return;
  target_met_ = true;
  target_epoch_ = s.epoch;
  target_time_ = s.train_time_s;
  log_.target(t, v, s.epoch, s.train_time_s);
  console_.line(str("target ", t.metric, " ", t.op, " ", num(t.value), " reached at epoch ", s.epoch, " (", t.metric, " ",
                    str_fixed(v, 4), ") after ", str_fixed(s.train_time_s, 1), " s of training"));
  if (cfg_.stop_at_target) stop_ = true;
}

void Trainer::non_finite(float loss, int64_t epoch, int64_t k, int64_t steps) {
  const double elapsed = now_s() - start_;
  log_.non_finite_loss(step_, epoch, loss, last_finite_loss_, last_finite_step_, elapsed);
  console_.end_progress();
  std::string last = last_finite_step_ ? str("the last finite loss was ", str_sig(last_finite_loss_, 6), " at step ", last_finite_step_)
                                       : std::string("no step had a finite loss");
  Error e(str("the loss became ", std::isnan(loss) ? "NaN" : "Inf", " at step ", step_, " (epoch ", epoch, ", batch ",
              k + 1, " of ", steps, "); ", last),
          str("lower the learning rate (--lr; now ", num(cfg_.base_lr),
              "), add warmup, or check the data's scale and normalisation"),
          __FILE__, __LINE__);
  e.exit_code = kExitNonFinite;
  throw e;
}

} // namespace dxrt
