#include "driver/MetricsLog.h"

#include "train/ModelSync.h"

#include "common/Check.h"

#include <cerrno>
#include <cmath>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <nlohmann/json.hpp>

namespace dxrt {

using Json = nlohmann::ordered_json;

// Times to the microsecond, rates to 0.1: readable, and exact enough.
// (Dividing by the power of ten gives the double nearest the decimal.)
static double round_to(double v, double per_unit) { return std::round(v * per_unit) / per_unit; }
// NaN (no such value) is written as null.
static Json number(double v) { return std::isfinite(v) ? Json(v) : Json(nullptr); }
// R^2 is listed per target element up to this many (e.g. the 4 parameters of
// a surrogate, not the pixels of an image-to-image model).
static constexpr size_t kMaxListedOutputs = 64;

MetricsLog::MetricsLog(const std::string &path, bool enabled, bool append) : path_(path) {
  if (!enabled || path.empty()) return;
  std::filesystem::path p(path);
  std::error_code ec;
  if (p.has_parent_path()) std::filesystem::create_directories(p.parent_path(), ec);
  continues_ = append && std::filesystem::file_size(p, ec) > 0 && !ec;
  f_ = std::fopen(path.c_str(), append ? "a" : "w");
  DXRT_CHECK(f_ != nullptr, str("cannot open the metrics log '", path, "' for writing: ", std::strerror(errno)),
             "give --log a writable path");
}

MetricsLog::~MetricsLog() {
  if (f_) std::fclose(f_);
}

void MetricsLog::write(const std::string &line) {
  if (!f_) return;
  std::fprintf(f_, "%s\n", line.c_str());
  std::fflush(f_);
}

void MetricsLog::start(const Metadata &m, const RunConfig &cfg, const Split &train, const Split *test,
                       int64_t steps_per_epoch, int blas_threads) {
  if (!f_) return;
  char when[32];
  std::time_t t = std::time(nullptr);
  std::strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  Json j;
  j["event"] = "start";
  j["model"] = m.model;
  j["target"] = m.target;
  j["ranks"] = cfg.world;
  j["per_rank_batch"] = cfg.per_rank_batch;
  j["global_batch"] = cfg.global_batch();
  j["params"] = m.param_floats;
  j["train_samples"] = train.n;
  j["test_samples"] = test ? test->n : 0;
  j["seed"] = cfg.seed;
  j["epochs"] = cfg.epochs;
  j["steps_per_epoch"] = steps_per_epoch;
  j["lr"] = cfg.base_lr;
  j["optimizer"] = m.optimizer.kind;
  j["schedule"] = describe(cfg.schedule);
  j["eval_batch"] = cfg.eval_batch;
  j["flops_per_sample"] = m.flops_per_sample;
  j["dataset"] = m.dataset ? m.dataset->name : "";
  j["task"] = m.task();
  j["synthetic"] = cfg.synthetic;
  if (cfg.target) j["goal"] = {{"metric", cfg.target->metric}, {"op", cfg.target->op}, {"value", cfg.target->value}};
  if (cfg.max_steps) j["max_steps"] = cfg.max_steps;
  j["sync"] = cfg.sync.mode;
  if (cfg.sync.mode == "average") j["average_every"] = cfg.sync.every;
  j["lr_scaling"] = cfg.lr_scaling;
  j["precision"] = m.precision();
  j["grad_bytes"] = m.param_floats * 4;
  // The buckets the gradient is all-reduced in (--bucket-mb; used with ranks > 1).
  j["grad_buckets"] = ModelSync::bucket_count(m.param_floats, cfg.bucket_bytes);
  j["source"] = m.source;
  j["blas_threads"] = blas_threads;
  j["time"] = when;
  write(j.dump());
}

void MetricsLog::epoch(const EpochStats &s) {
  Json j;
  j["event"] = "epoch";
  j["epoch"] = s.epoch;
  j["steps"] = s.steps;
  j["train_time_s"] = round_to(s.train_time_s, 1e6);
  j["elapsed_s"] = round_to(s.elapsed_s, 1e6);
  j["epoch_time_s"] = round_to(s.epoch_time_s, 1e6);
  j["comm_time_s"] = round_to(s.comm_time_s, 1e6);
  j["comm_wait_s"] = round_to(s.comm_wait_s, 1e6);
  j["overlap_window_s"] = round_to(s.overlap_window_s, 1e6);
  j["samples_per_s"] = round_to(s.samples_per_s, 10);
  j["train_loss"] = number(s.train_loss);
  j["val_loss"] = s.has_val ? number(s.val.loss) : Json(nullptr);
  j["val_accuracy"] = s.has_val ? number(s.val.accuracy) : Json(nullptr);
  // The segmentation and regression metrics, where evaluation has them.
  auto list = [](const std::vector<double> &v) {
    Json a = Json::array();
    for (double x : v) a.push_back(number(x));
    return a;
  };
  if (s.has_val && s.val.per_pixel) {
    j["val_iou"] = number(s.val.iou);
    j["val_class_iou"] = list(s.val.class_iou);
  }
  if (s.has_val && !s.val.output_r2.empty()) {
    j["val_mae"] = number(s.val.mae);
    j["val_rmse"] = number(s.val.rmse);
    j["val_r2"] = number(s.val.r2);
    if (s.val.output_r2.size() <= kMaxListedOutputs) j["val_output_r2"] = list(s.val.output_r2);
  }
  j["lr"] = s.lr;
  write(j.dump());
}

void MetricsLog::step(int64_t step, int64_t epoch, double loss, double lr) {
  if (!f_) return;
  Json j;
  j["event"] = "step";
  j["step"] = step;
  j["epoch"] = epoch;
  j["loss"] = number(loss);
  j["lr"] = lr;
  write(j.dump());
}

void MetricsLog::target(const TargetSpec &t, double value, int64_t epoch, double train_time_s) {
  Json j;
  j["event"] = "target";
  j["metric"] = t.metric;
  j["value"] = value;
  j["epoch"] = epoch;
  j["train_time_s"] = round_to(train_time_s, 1e6);
  write(j.dump());
}

void MetricsLog::end(double train_time_s, double elapsed_s) {
  Json j;
  j["event"] = "end";
  j["train_time_s"] = round_to(train_time_s, 1e6);
  j["elapsed_s"] = round_to(elapsed_s, 1e6);
  write(j.dump());
}

void MetricsLog::checkpoint(const std::string &why, const Progress &p, const std::string &path) {
  Json j;
  j["event"] = "checkpoint";
  j["why"] = why;
  // `epoch` is the epoch a resume continues in (so 11 after the last epoch
  // of a 10-epoch run); `epochs_done` says how many are complete.
  j["epoch"] = p.epoch;
  j["epochs_done"] = p.epoch - 1;
  j["step_in_epoch"] = p.step_in_epoch;
  j["step"] = p.step;
  j["train_time_s"] = round_to(p.train_time_s, 1e6);
  j["path"] = path;
  write(j.dump());
}

void MetricsLog::stop(const std::string &reason, const Progress &p, const std::string &checkpoint, double elapsed_s) {
  Json j;
  j["event"] = "stop";
  j["reason"] = reason;
  j["epoch"] = p.epoch;
  j["step"] = p.step;
  j["train_time_s"] = round_to(p.train_time_s, 1e6);
  j["elapsed_s"] = round_to(elapsed_s, 1e6);
  j["checkpoint"] = checkpoint;
  write(j.dump());
}

void MetricsLog::resume(const Progress &p, const std::string &from) {
  Json j;
  j["event"] = "resume";
  j["epoch"] = p.epoch;
  j["step_in_epoch"] = p.step_in_epoch;
  j["step"] = p.step;
  j["train_time_s"] = round_to(p.train_time_s, 1e6);
  j["elapsed_s"] = round_to(p.elapsed_s, 1e6);
  j["from"] = from;
  write(j.dump());
}

void MetricsLog::non_finite_loss(int64_t step, int64_t epoch, double loss, double last_finite_loss,
                                 int64_t last_finite_step, double elapsed_s) {
  Json j;
  j["event"] = "error";
  j["error"] = "non_finite_loss";
  j["step"] = step;
  j["epoch"] = epoch;
  j["loss"] = std::isnan(loss) ? "nan" : loss > 0 ? "inf" : "-inf";
  j["last_finite_loss"] = number(last_finite_loss);
  j["last_finite_step"] = last_finite_step;
  j["elapsed_s"] = round_to(elapsed_s, 1e6);
  write(j.dump());
}

} // namespace dxrt
