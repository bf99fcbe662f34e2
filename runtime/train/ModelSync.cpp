#include "train/ModelSync.h"

#include "common/Check.h"
#include "common/Timer.h"

#include <algorithm>
#include <cstdlib>

namespace dxrt {

std::string SyncSpec::str() const {
  return mode == "average" ? dxrt::str("average every ", every, every == 1 ? " step" : " steps") : mode;
}

SyncSpec parse_sync(const std::string &text) {
  SyncSpec s;
  if (text == "allreduce") return s;
  std::string rest;
  if (text.rfind("average:", 0) == 0) rest = text.substr(8);
  else if (text.rfind("average every ", 0) == 0) rest = text.substr(14);
  else
    DXRT_FAIL(str("unknown sync mode '", text, "'"), "write --sync allreduce or --sync average:K (K steps between averages)");
  char *end = nullptr;
  long long k = std::strtoll(rest.c_str(), &end, 10);
  DXRT_CHECK(!rest.empty() && *end == '\0' && k >= 1, str("sync mode '", text, "': K must be a whole number >= 1"),
             "e.g. --sync average:8");
  s.mode = "average";
  s.every = k;
  return s;
}

static int64_t floats_per_bucket(int64_t bucket_bytes) { return std::max<int64_t>(bucket_bytes / 4, 1024); }

ModelSync::ModelSync(World &world, SyncSpec spec, int64_t bucket_bytes)
    : world_(world), spec_(std::move(spec)), bucket_floats_(floats_per_bucket(bucket_bytes)) {}

// At least kMinBuckets buckets of at least kMinBucketFloats, when there is
// that much: a model smaller than one --bucket-mb bucket still has buckets
// that the backward pass can hide.
constexpr int64_t kMinBuckets = 8, kMinBucketFloats = 16384;

static int64_t bucket_count_of(int64_t n, int64_t per) {
  return std::max<int64_t>({(n + per - 1) / per, std::min(kMinBuckets, n / kMinBucketFloats), int64_t(1)});
}

int64_t ModelSync::buckets(int64_t n) const { return bucket_count_of(n, bucket_floats_); }

int64_t ModelSync::bucket_count(int64_t n, int64_t bucket_bytes) {
  return bucket_count_of(n, floats_per_bucket(bucket_bytes));
}

ModelSync::Buckets ModelSync::partition(int64_t n) const {
  // Equal buckets: the last one is not a sliver.
  const int64_t k = buckets(n);
  return {k, std::max<int64_t>((n + k - 1) / k, 1)};
}

void ModelSync::reduce_in_buckets(float *x, int64_t n) {
  const Buckets b = partition(n);
  for (int64_t i = 0; i < n; i += b.per) world_.allreduce_sum(x + i, std::min(b.per, n - i));
}

static void scale(float *x, int64_t n, float w) {
  if (w != 1.0f)
    for (int64_t i = 0; i < n; ++i) x[i] *= w;
}

// The armed ModelSync of this process, for dxrt_grads_ready (the generated
// step calls it; main thread only).
static ModelSync *g_armed = nullptr;

void ModelSync::begin_gradients(float *grads, int64_t n, float weight, bool overlap) {
  if (world_.size() == 1) return;
  grads_ = grads, n_ = n, weight_ = weight;
  buckets_ = partition(n);
  next_ = buckets_.k - 1;
  started_at_ = -1;
  if (overlap) g_armed = this;
}

void ModelSync::start_bucket() {
  const int64_t lo = next_ * buckets_.per, count = std::min(buckets_.per, n_ - lo);
  if (started_at_ < 0) started_at_ = now_s();
  if (count > 0) {
    scale(grads_ + lo, count, weight_);
    world_.start_sum(grads_ + lo, count);
  }
  --next_;
}

void ModelSync::grads_ready(int64_t first) {
  while (next_ >= 0 && next_ * buckets_.per >= first) start_bucket();
  world_.progress();
}

void ModelSync::finish_gradients(float *side, int64_t n_side) {
  if (world_.size() == 1) return;
  g_armed = nullptr;
  const double t0 = now_s();
  while (next_ >= 0) start_bucket();
  if (n_side > 0) world_.start_sum(side, n_side); // last, unscaled: the loss and signal flags
  world_.wait_all();
  const double t1 = now_s();
  // The overlap window: from the first bucket grads_ready started to here.
  if (started_at_ >= 0 && started_at_ < t0) window_s_ += t0 - started_at_;
  wait_s_ += t1 - t0;
  comm_s_ += t1 - (started_at_ >= 0 ? std::min(started_at_, t0) : t0);
  grads_ = nullptr;
}

void ModelSync::reduce_gradients(float *grads, int64_t n, float weight, float *side, int64_t n_side) {
  if (world_.size() == 1) return;
  if (grads_ != grads) begin_gradients(grads, n, weight, false);
  finish_gradients(side, n_side);
}

void ModelSync::weighted_sum(float *x, int64_t n, float weight) {
  if (world_.size() == 1 || n == 0) return;
  const double t0 = now_s();
  scale(x, n, weight);
  reduce_in_buckets(x, n);
  const double t = now_s() - t0;
  comm_s_ += t;
  wait_s_ += t;
}

void ModelSync::average(float *x, int64_t n) { weighted_sum(x, n, 1.0f / float(world_.size())); }

double ModelSync::take_comm_time() {
  double t = comm_s_;
  comm_s_ = 0;
  return t;
}

double ModelSync::take_wait_time() {
  double t = wait_s_;
  wait_s_ = 0;
  return t;
}

double ModelSync::take_overlap_window() {
  double t = window_s_;
  window_s_ = 0;
  return t;
}

} // namespace dxrt

// The generated dx_train_step's call when the gradients in [first, end) of
// its gradient arena are final (compiler/lowering/GradsReady.h).
extern "C" void dxrt_grads_ready(int64_t first) {
  if (dxrt::g_armed) dxrt::g_armed->grads_ready(first);
}

namespace dxrt {

} // namespace dxrt
