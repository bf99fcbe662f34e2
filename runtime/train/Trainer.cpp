#include "train/Trainer.h"

#include "comm/Watchdog.h"
#include "common/Check.h"
#include "common/Timer.h"
#include "data/Order.h"
#include "driver/Signals.h"
#include "model/Model.h"
#include "train/Evaluate.h"
#include "train/Profile.h"
#include "train/Schedule.h"

#include <algorithm>
#include <cstring>
#include <chrono>
#include <thread>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <numeric>

namespace dxrt {

// Side values that ride in the gradients' all-reduce (see kGradSide).
enum Side { kSideLoss = 0, kSideUsr1 = 1, kSideTerm = 2 };

// A batch norm over [B, F] (or [B, C, 1, 1]) has one value per feature and
// sample: trained on a micro-batch of one sample, its batch statistics are
// that sample (variance 0) and it outputs its bias whatever the input,
// silently (PyTorch stops there: "Expected more than 1 value per channel
// when training"). Only an epoch's first and last steps can have other
// sizes than the rest; every rank checks every rank's micro-batches, so all
// of them stop here with the same message, before the first step.
static void check_batch_statistics(const Metadata &meta, const BatchPlan &plan, int64_t train_samples) {
  const LayerSpec *single = nullptr;
  for (const LayerSpec &l : meta.layers) {
    if (l.op != "batchnorm" || l.output.empty()) continue;
    int64_t spatial = 1;
    for (size_t k = 1; k < l.output.size(); ++k) spatial *= l.output[k];
    if (spatial == 1) {
      single = &l;
      break;
    }
  }
  if (!single || plan.n == 0) return;
  const int64_t steps = plan.steps(), slices = plan.world * plan.accumulate;
  for (int64_t s : {int64_t(0), steps - 1}) {
    const int64_t len = plan.global_size(s);
    for (int64_t j = 0; j < slices; ++j) {
      if (len * (j + 1) / slices - len * j / slices != 1) continue;
      const std::string rank = plan.world > 1 ? str("rank ", j / plan.accumulate, "'s ") : std::string();
      Error e(str("batchnorm '", single->path, "' normalises its features over the training batch, one value per "
                  "sample, and in step ", s + 1, " of every epoch ",
                  plan.accumulate > 1 ? str(rank, "micro-batch ", j % plan.accumulate + 1)
                                      : (plan.world > 1 ? str(rank, "batch") : std::string("the batch")),
                  " holds 1 sample (", train_samples, " training samples in global batches of ", plan.global_batch(),
                  "): its statistics would be that sample's, and it would output its bias whatever the input"),
              str("choose --batch (now ", plan.per_rank, " per rank) so that every rank's share of an epoch's "
                  "first and last batch is 0 or at least 2 samples, or normalise with layernorm"),
              __FILE__, __LINE__);
      e.collective = true;
      throw e;
    }
  }
}

Trainer::Trainer(const Metadata &meta, const RunConfig &cfg, const TrainData &data, Arenas &arenas, Backend &backend,
                 World &world, Console &console, MetricsLog &log, double start_time)
    : meta_(meta), cfg_(cfg), data_(data), a_(arenas), backend_(backend), world_(world), console_(console), log_(log),
      start_(start_time),
      sync_(world, cfg.sync, cfg.bucket_bytes), ckpt_(meta, cfg, world) {
  // A test hook: DXRT_FAULT=RANK:STEP makes that rank die of SIGSEGV at that
  // step, to check that a failing rank ends the job with a message;
  // DXRT_FAULT=RANK:STEP:hang makes it hang there instead (as in a file
  // system that stopped answering), for the watchdog (comm/Watchdog.h).
  if (const char *f = std::getenv("DXRT_FAULT")) {
    long long r = -1, st = -1;
    char how[8] = "";
    if (std::sscanf(f, "%lld:%lld:%7s", &r, &st, how) >= 2 && r == world.rank()) {
      fault_step_ = st;
      fault_hangs_ = std::strcmp(how, "hang") == 0;
    }
  }
  check_batch_statistics(meta, BatchPlan{data.train.n, cfg.per_rank_batch, cfg.world, cfg.rank, cfg.accumulate},
                         data.train.n);
  if (data.train.decoded()) prefetch_ = std::make_unique<Prefetcher>(data.train, cfg.data_threads, a_.x.size());
}

double Trainer::elapsed() const { return p_.elapsed_s + (now_s() - start_); }


static std::string joined(const std::vector<std::string> &v) {
  std::string out;
  for (const std::string &s : v) out += (out.empty() ? "" : ", ") + s;
  return out;
}

// --resume auto: the newest complete checkpoint that no rank finds damaged.
// Every rank checks its own file, and the ranks agree on the verdict (an
// all-reduce of the flags), so all of them go on to load the same one.
static std::string newest_intact(Checkpointer &ckpt, World &world, Console &console) {
  const std::vector<std::string> found = ckpt.complete();
  if (found.empty()) return ""; // gone since Run.cpp looked: resume() says there is none
  std::vector<std::string> skipped;
  for (const std::string &path : found) {
    const std::string damage = ckpt.damage(path);
    if (!damage.empty())
      std::fprintf(stderr, "warning%s: --resume auto: %s\n",
                   world.size() > 1 ? str(" [", world.name(), "]").c_str() : "", damage.c_str());
    int64_t bad = damage.empty() ? 0 : 1;
    world.allreduce_max(&bad, 1);
    if (!bad) {
      if (!skipped.empty())
        console.line(str("warning: --resume auto: skipped the damaged checkpoint(s) ", joined(skipped),
                          "; resuming from the previous complete one, ", path));
      return path;
    }
    skipped.push_back(path);
  }
  Error e(str("--resume auto: every complete checkpoint in '", ckpt.dir(), "' is damaged: ", joined(skipped)),
          "the warnings above name the files; move the damaged step-* directories away (or give another "
          "--checkpoint-dir to start afresh)",
          __FILE__, __LINE__);
  e.collective = true;
  throw e;
}

void Trainer::resume() {
  const std::string from = cfg_.resume_auto ? newest_intact(ckpt_, world_, console_) : ckpt_.newest();
  if (from.empty()) {
    Error e(str("--resume: no complete checkpoint in '", ckpt_.dir(), "'"),
            "checkpoints are written with --checkpoint-every N, on SIGUSR1/SIGTERM, or at --stop-after-epoch; "
            "--checkpoint-dir says where (default checkpoints/<model>)",
            __FILE__, __LINE__);
    e.collective = true;
    throw e;
  }
  p_ = ckpt_.load(from, a_);
  backend_.upload_model(a_);
  console_.line(str("resumed from ", from, ": epoch ", p_.epoch, ", step ", p_.step_in_epoch, " of the epoch (",
                    p_.step, " steps and ", str_fixed(p_.train_time_s + p_.epoch_time_s, 1), " s of training so far)"));
  log_.resume(p_, from);
}

int Trainer::run() {
  const int64_t stop_after = cfg_.stop_after_epoch;
  while (p_.epoch <= cfg_.epochs && !stop_) {
    EpochStats s;
    const Stop why = train_epoch(s);
    if (why == Stop::Signal) {
      const std::string at = checkpoint("SIGTERM");
      log_.stop("signal", p_, at, elapsed());
      console_.line(str("stopped by SIGTERM at step ", p_.step, " (epoch ", p_.epoch, "); checkpoint ", at,
                        "; rerun with --resume to continue"));
      return kExitStopped;
    }
    if (data_.test) {
      // Local SGD: evaluate (and go on from) one model, not N.
      if (sync_.averaging()) backend_.average_model(a_, sync_);
      s.val = evaluate(meta_, a_, backend_, *data_.test, cfg_.eval_batch, world_, cfg_.data_threads);
      s.has_val = true;
    }
    s.elapsed_s = elapsed();
    console_.epoch_summary(s);
    log_.epoch(s);
    check_target(s);
    p_.train_time_s = s.train_time_s; // the slowest rank's, the same on every rank
    if (why == Stop::MaxSteps) break;
    // The epoch is done: the progress points at the start of the next one.
    const int64_t done = p_.epoch;
    p_.epoch = done + 1;
    p_.step_in_epoch = 0;
    p_.epoch_time_s = p_.loss_sum = p_.samples = p_.comm_time_s = p_.comm_wait_s = p_.overlap_window_s = 0;
    const bool last = done == cfg_.epochs || stop_;
    if (done == stop_after && !last) {
      const std::string at = checkpoint("--stop-after-epoch");
      log_.stop("stop_after_epoch", p_, at, elapsed());
      console_.line(str("stopped after epoch ", done, " of ", cfg_.epochs, " as asked; checkpoint ", at,
                        "; rerun with --resume to continue"));
      return kExitOk;
    }
    if (cfg_.checkpoint_every > 0 && done % cfg_.checkpoint_every == 0) checkpoint("epoch");
    // --max-steps reached with the epoch's last step: no empty epoch after it.
    if (cfg_.max_steps && p_.step >= cfg_.max_steps) break;
  }
  const double total = elapsed();
  log_.end(p_.train_time_s, total);
  std::string target;
  if (cfg_.target)
    target = str("; target ", cfg_.target->metric, " ", cfg_.target->op, " ", num(cfg_.target->value),
                 p_.target_met ? str(" reached at epoch ", p_.target_epoch, " after ", str_fixed(p_.target_time_s, 1),
                                     " s of training")
                               : std::string(" not reached"));
  console_.line(str("done: ", p_.step, " steps, ", str_fixed(p_.train_time_s, 1), " s training, ", str_fixed(total, 1),
                    " s in all", target));
  return kExitOk;
}

// Trains the rest of epoch p_.epoch (all of it, unless resumed mid-epoch).
Trainer::Stop Trainer::train_epoch(EpochStats &s) {
  const int64_t epoch = p_.epoch;
  std::vector<int64_t> order(size_t(data_.train.n));
  if (cfg_.shuffle) order = epoch_order(data_.train.n, uint64_t(cfg_.seed), epoch);
  else std::iota(order.begin(), order.end(), 0); // --no-shuffle: file order
  const BatchPlan plan{data_.train.n, cfg_.per_rank_batch, cfg_.world, cfg_.rank, cfg_.accumulate};
  const int64_t steps = plan.steps();
  while (p_.step_in_epoch < steps) {
    if (cfg_.max_steps && p_.step >= cfg_.max_steps) {
      s = finish_epoch(epoch);
      return Stop::MaxSteps;
    }
    step(epoch, p_.step_in_epoch, steps, order, plan);
    if (stop_now_) return Stop::Signal; // every rank agreed: no epoch statistics, a mid-epoch checkpoint
    if (checkpoint_now_) checkpoint("SIGUSR1");
  }
  s = finish_epoch(epoch);
  return Stop::None;
}

void Trainer::step(int64_t epoch, int64_t k, int64_t steps, const std::vector<int64_t> &order, const BatchPlan &plan) {
  const double t0 = now_s();
  ++p_.step;
  note_step(p_.step, epoch);
  watchdog_note_step(p_.step);
  if (p_.step == fault_step_) {
    while (fault_hangs_) std::this_thread::sleep_for(std::chrono::seconds(1));
    std::raise(SIGSEGV);
  }
  // Micro-batch m of this rank is slice rank * M + m of the global batch; it
  // draws dropout as that slice's "rank" would, so -np 1 --accumulate 2
  // trains exactly what -np 2 trains.
  const int64_t M = cfg_.accumulate;
  double weighted_loss = 0; // sum over micro-batches of loss * b / global
  float weight = 1.0f;
  int64_t b_rank = 0;
  if (!sync_.averaging() && M == 1 && cfg_.overlap && world_.size() > 1) {
    // The gradients' all-reduce starts during the backward pass (ModelSync.h).
    int64_t lo, hi;
    plan.shard(k, 0, &lo, &hi);
    backend_.begin_reduce(a_, sync_, float(double(hi - lo) / double(plan.global_size(k))));
  }
  for (int64_t m = 0; m < M; ++m) {
    int64_t lo, hi;
    plan.shard(k, m, &lo, &hi);
    const int64_t b = hi - lo;
    b_rank += b;
    const double data_t0 = now_s();
    load_batch(epoch, k, m, lo, hi, steps, order, plan);
    if (Profiler::get().on()) Profiler::get().add(TrainerPhase::Data, now_s() - data_t0);
    float loss = 0;
    if (b > 0) {
      loss = backend_.train_step(a_, b, cfg_.seed, p_.step, int64_t(cfg_.rank) * M + m);
    } else { // a slice without samples in a short last batch contributes nothing
      backend_.skip_step(a_);
    }
    if (b > 0 && !std::isfinite(loss) && (sync_.averaging() || world_.size() == 1)) non_finite(loss, false, epoch, k, steps);
    weight = float(double(b) / double(plan.global_size(k)));
    weighted_loss += b > 0 ? double(loss) * weight : 0.0;
    p_.loss_sum += double(loss) * double(b);
    p_.samples += double(b);
    if (M == 1) break;
    // Accumulate weight * gradient (and buffers) in the same order the ranks'
    // all-reduce would sum them.
    backend_.accumulate(a_, m == 0, weight);
  }
  if (M > 1) {
    backend_.take_accumulated(a_);
    weight = 1.0f; // already applied
  }
  float side[kGradSide] = {0, 0, 0};
  const float loss = float(weighted_loss); // this rank's share of the global batch's mean loss
  // The signal flags of every rank ride along with the gradients, so the
  // ranks agree on them at no extra cost (under local SGD: at averaging).
  const int64_t usr1 = checkpoint_requests();
  side[kSideUsr1] = usr1 > usr1_handled_ ? 1.0f : 0.0f;
  side[kSideTerm] = stop_requested() ? 1.0f : 0.0f;
  double step_loss = b_rank > 0 ? weighted_loss * double(plan.global_size(k)) / double(b_rank) : 0.0;
  if (!sync_.averaging()) {
    side[kSideLoss] = loss;
    backend_.reduce_gradients(a_, sync_, weight, side);
    backend_.reduce_buffers(a_, sync_, weight);
    if (world_.size() > 1) {
      step_loss = side[kSideLoss]; // the global batch's mean loss
      if (!std::isfinite(step_loss)) non_finite(float(step_loss), true, epoch, k, steps);
    }
  }
  p_.lr = model_learning_rate(cfg_.base_lr, p_.step, steps, cfg_.epochs);
  backend_.update(a_, float(p_.lr), p_.step);
  backend_.commit_buffers(a_);
  bool agreed = !sync_.averaging() || world_.size() == 1; // side[] holds every rank's flags
  if (sync_.averaging() && p_.step % cfg_.sync.every == 0) {
    backend_.average_model(a_, sync_);
    int64_t flags[2] = {usr1, side[kSideTerm] > 0};
    world_.allreduce_max(flags, 2);
    side[kSideUsr1] = flags[0] > usr1_handled_ ? 1.0f : 0.0f;
    side[kSideTerm] = float(flags[1]);
    agreed = true;
  }
  // Between averages a signal waits for the next one (its count stays).
  checkpoint_now_ = false;
  if (agreed && side[kSideUsr1] > 0) {
    // Some rank has a SIGUSR1 not yet acted on: the largest count over the
    // ranks (a collective only in such rare steps) is what this checkpoint
    // answers, so one signal to every rank makes one checkpoint.
    int64_t most = usr1;
    world_.allreduce_max(&most, 1);
    checkpoint_now_ = most > usr1_handled_;
    usr1_handled_ = most;
  }
  stop_now_ = agreed && side[kSideTerm] > 0;
  p_.last_finite_loss = step_loss;
  p_.last_finite_step = p_.step;
  const double step_s = now_s() - t0, comm_s = sync_.take_comm_time();
  p_.epoch_time_s += step_s;
  p_.comm_time_s += comm_s;
  const double wait_s = sync_.take_wait_time();
  p_.comm_wait_s += wait_s;
  p_.overlap_window_s += sync_.take_overlap_window();
  if (Profiler::get().on()) {
    // The wait only: the rest ran inside the backward pass's regions.
    Profiler::get().add(TrainerPhase::AllReduce, wait_s);
    Profiler::get().step_done(step_s);
  }
  ++p_.step_in_epoch;
  if (cfg_.log_steps) log_.step(p_.step, epoch, step_loss, p_.lr);
  const double rate = double(plan.global_batch()) * double(p_.step_in_epoch) / std::max(p_.epoch_time_s, 1e-9);
  console_.progress(cfg_, epoch, p_.step_in_epoch, steps, p_.loss_sum / std::max(p_.samples, 1.0), rate,
                    p_.epoch_time_s / double(p_.step_in_epoch) * double(steps - p_.step_in_epoch));
}

// Micro-batch m of step k into the arena's x and labels. Image splits: the
// prefetcher hands over the batch it decoded during the previous micro-batch
// and starts on the next one of the epoch (each epoch's first batch is
// decoded on the spot: the next epoch's order is not drawn yet).
void Trainer::load_batch(int64_t epoch, int64_t k, int64_t m, int64_t lo, int64_t hi, int64_t steps,
                         const std::vector<int64_t> &order, const BatchPlan &plan) {
  const AugmentKey key{uint64_t(cfg_.seed), epoch};
  if (!prefetch_) {
    gather(data_.train, order, lo, hi, a_.x.data(), a_.labels.data(), a_.targets.data(), key);
    return;
  }
  prefetch_->take(BatchRequest{&order, lo, hi, key}, a_.x, a_.labels.data());
  int64_t nk = k, nm = m + 1;
  if (nm == cfg_.accumulate) nk = k + 1, nm = 0;
  const bool last = nk == steps || (nm == 0 && cfg_.max_steps && p_.step >= cfg_.max_steps);
  if (last) return;
  int64_t next_lo, next_hi;
  plan.shard(nk, nm, &next_lo, &next_hi);
  prefetch_->request(BatchRequest{&order, next_lo, next_hi, key});
}

// The epoch's statistics over all ranks (also for a partial epoch).
EpochStats Trainer::finish_epoch(int64_t epoch) {
  EpochStats s;
  s.epoch = epoch;
  s.epochs = cfg_.epochs;
  s.steps = p_.step_in_epoch;
  double sums[2] = {p_.loss_sum, p_.samples};
  world_.allreduce_sum(sums, 2);
  // The slowest rank's time is the epoch's time.
  double times[4] = {p_.epoch_time_s, p_.comm_time_s, p_.comm_wait_s, p_.overlap_window_s};
  if (world_.size() > 1) {
    int64_t us[4];
    for (int i = 0; i < 4; ++i) us[i] = int64_t(times[i] * 1e6);
    world_.allreduce_max(us, 4);
    for (int i = 0; i < 4; ++i) times[i] = double(us[i]) * 1e-6;
  }
  s.epoch_time_s = times[0];
  s.comm_time_s = times[1];
  s.comm_wait_s = std::min(times[2], times[1]);
  s.overlap_window_s = std::min(times[3], times[0]);
  s.samples = int64_t(sums[1]);
  s.train_loss = sums[1] > 0 ? sums[0] / sums[1] : NAN;
  s.train_time_s = p_.train_time_s + s.epoch_time_s;
  s.samples_per_s = s.epoch_time_s > 0 ? double(s.samples) / s.epoch_time_s : 0;
  s.lr = p_.lr;
  return s;
}

std::string Trainer::checkpoint(const char *why) {
  p_.elapsed_s = elapsed();
  start_ = now_s(); // elapsed() now counts from here on top of p_.elapsed_s
  backend_.download_model(a_);
  const std::string at = ckpt_.write(p_, a_);
  log_.checkpoint(why, p_, at);
  console_.line(str("checkpoint ", at, " (", why, ")"));
  return at;
}

void Trainer::check_target(const EpochStats &s) {
  if (!cfg_.target || p_.target_met) return;
  const TargetSpec &t = *cfg_.target;
  const double v = metric_value(s, t.metric);
  if (std::isnan(v) || !t.met(v)) return;
  p_.target_met = true;
  p_.target_epoch = s.epoch;
  p_.target_time_s = s.train_time_s;
  log_.target(t, v, s.epoch, s.train_time_s);
  console_.line(str("target ", t.metric, " ", t.op, " ", num(t.value), " reached at epoch ", s.epoch, " (", t.metric, " ",
                    str_fixed(v, 4), ") after ", str_fixed(s.train_time_s, 1), " s of training"));
  if (cfg_.stop_at_target) stop_ = true;
}

void Trainer::non_finite(float loss, bool collective, int64_t epoch, int64_t k, int64_t steps) {
  log_.non_finite_loss(p_.step, epoch, loss, p_.last_finite_loss, p_.last_finite_step, elapsed());
  console_.end_progress();
  std::string last = p_.last_finite_step
                         ? str("the last finite loss was ", str_sig(p_.last_finite_loss, 6), " at step ", p_.last_finite_step)
                         : std::string("no step had a finite loss");
  Error e(str("the loss became ", std::isnan(loss) ? "NaN" : "Inf", " at step ", p_.step, " (epoch ", epoch, ", batch ",
              k + 1, " of ", steps, ")", collective ? " on at least one rank" : "", "; ", last),
          str("lower the learning rate (--lr; now ", num(cfg_.base_lr),
              "), add warmup, or check the data's scale and normalisation"),
          __FILE__, __LINE__);
  e.exit_code = kExitNonFinite;
  e.collective = collective;
  throw e;
}

} // namespace dxrt
