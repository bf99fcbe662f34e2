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

ModelSync::ModelSync(World &world, SyncSpec spec, int64_t bucket_bytes)
    : world_(world), spec_(std::move(spec)), bucket_floats_(std::max<int64_t>(bucket_bytes / 4, 1024)) {}

int64_t ModelSync::buckets(int64_t n) const { return (n + bucket_floats_ - 1) / bucket_floats_; }

void ModelSync::reduce_in_buckets(float *x, int64_t n) {
  // Equal buckets: the last one is not a sliver.
  const int64_t k = std::max<int64_t>(buckets(n), 1), per = (n + k - 1) / k;
  for (int64_t i = 0; i < n; i += per) world_.allreduce_sum(x + i, std::min(per, n - i));
}

static void scale(float *x, int64_t n, float w) {
  if (w != 1.0f)
    for (int64_t i = 0; i < n; ++i) x[i] *= w;
}

void ModelSync::reduce_gradients(float *grads, int64_t n, float weight, int64_t n_side) {
  if (world_.size() == 1) return;
  const double t0 = now_s();
  scale(grads, n, weight);
  reduce_in_buckets(grads, n + n_side);
  comm_s_ += now_s() - t0;
}

void ModelSync::weighted_sum(float *x, int64_t n, float weight) {
  if (world_.size() == 1 || n == 0) return;
  const double t0 = now_s();
  scale(x, n, weight);
  reduce_in_buckets(x, n);
  comm_s_ += now_s() - t0;
}

void ModelSync::average(float *x, int64_t n) { weighted_sum(x, n, 1.0f / float(world_.size())); }

double ModelSync::take_comm_time() {
  double t = comm_s_;
  comm_s_ = 0;
  return t;
}

} // namespace dxrt
