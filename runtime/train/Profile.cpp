#include "train/Profile.h"

#include "common/Check.h"
#include "common/Timer.h"
#include "driver/MetricsLog.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

// The generated object's region table (ProfilePoints.h); weak, because
// objects built without the hooks (CUDA, the runtime's tests) have none.
extern "C" const char dx_profile_regions[] __attribute__((weak));

namespace dxrt {

Profiler &Profiler::get() {
  static Profiler p;
  return p;
}

void Profiler::enable() {
  DXRT_CHECK(dx_profile_regions != nullptr, "--profile: this executable has no profile points",
             "--profile needs a CPU build (dxc compile --target=cpu); the CUDA target has none yet");
  auto j = nlohmann::json::parse(dx_profile_regions, nullptr, /*allow_exceptions=*/false);
  DXRT_CHECK(j.is_array(), "--profile: the executable's region table (dx_profile_regions) is not a JSON array",
             "recompile the model with this dxc");
  regions.clear();
  for (const auto &r : j)
    regions.push_back({r.value("function", ""), r.value("layer", ""), r.value("phase", ""), r.value("kind", ""),
                       r.value("op", "")});
  on_ = true;
}

void Profiler::step_done(double seconds) {
  if (!warm_) {
    warm_ = true;
    for (ProfileRegion &r : regions) r.seconds = 0, r.bytes = 0, r.calls = 0;
    data_s_ = allreduce_s_ = 0;
    return;
  }
  step_seconds_ += seconds;
  ++steps_;
}

void Profiler::add(TrainerPhase p, double seconds) {
  (p == TrainerPhase::Data ? data_s_ : allreduce_s_) += seconds;
}

namespace {

std::string fixed(double v, int digits) {
  char b[64];
  std::snprintf(b, sizeof b, "%.*f", digits, v);
  return b;
}

// A row of the layer table: the regions of one (function, layer, phase,
// kind), in order of first appearance (each generated op is a region).
struct LayerRow {
  const ProfileRegion *first;
  double seconds = 0;
  int64_t calls = 0;
};

std::vector<LayerRow> layerRows(const std::vector<ProfileRegion> &regions) {
  std::vector<LayerRow> rows;
  for (const ProfileRegion &r : regions) {
    auto same = [&](const LayerRow &row) {
      const ProfileRegion &f = *row.first;
      return f.function == r.function && f.layer == r.layer && f.phase == r.phase && f.kind == r.kind;
    };
    auto it = std::find_if(rows.begin(), rows.end(), same);
    if (it == rows.end()) it = rows.insert(rows.end(), LayerRow{&r});
    it->seconds += r.seconds;
    it->calls += r.calls;
  }
  return rows;
}

// GB/s of `bytes` in `seconds`, or "-" without time.
std::string rate(double bytes, double seconds) {
  return seconds > 0 ? fixed(bytes / seconds / 1e9, 1) : std::string("-");
}

} // namespace

void Profiler::report(bool print, bool kernels, MetricsLog &log) const {
  if (!on_ || steps_ == 0) return;
  const double per = 1000.0 / double(steps_), step_ms = step_seconds_ * per;
  auto share = [&](double s) { return step_seconds_ > 0 ? 100.0 * s / step_seconds_ : 0.0; };
  double generated = 0, library = 0, eval = 0, by_phase[3] = {0, 0, 0}; // forward, backward, update
  double generated_bytes = 0;
  int64_t eval_calls = 0;
  for (const ProfileRegion &r : regions) {
    if (r.function == "eval") {
      eval += r.seconds;
      eval_calls += r.calls;
      continue;
    }
    (r.kind == "generated" ? generated : library) += r.seconds;
    by_phase[r.phase == "forward" ? 0 : r.phase == "backward" ? 1 : 2] += r.seconds;
    if (r.kind == "generated") generated_bytes += r.bytes;
  }
  const double other = std::max(0.0, step_seconds_ - generated - library - data_s_ - allreduce_s_);

  nlohmann::ordered_json j;
  j["event"] = "profile";
  j["steps"] = steps_;
  j["step_s"] = step_seconds_ / double(steps_);
  j["generated_share"] = share(generated) / 100.0;
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (const ProfileRegion &r : regions) {
    nlohmann::ordered_json row = {{"function", r.function}, {"layer", r.layer}, {"phase", r.phase},
                                  {"kind", r.kind}, {"calls", r.calls}, {"seconds", r.seconds}};
    if (!r.op.empty()) row["op"] = r.op;
    if (r.kind == "generated") row["bytes"] = r.bytes;
    rows.push_back(row);
  }
  j["regions"] = rows;
  j["data_s"] = data_s_;
  j["allreduce_s"] = allreduce_s_;
  j["other_s"] = other;
  log.event(j.dump());
  if (!print) return;

  size_t lw = 5, kw = 4;
  for (const ProfileRegion &r : regions) {
    lw = std::max(lw, r.layer.size());
    kw = std::max(kw, r.kind.size());
  }
  auto row = [&](const std::string &layer, const std::string &phase, const std::string &kind, double s) {
    std::printf("  %-*s  %-10s %-*s %9s %6s\n", int(lw), layer.c_str(), phase.c_str(), int(kw), kind.c_str(),
                fixed(s * per, 3).c_str(), fixed(share(s), 1).c_str());
  };
  std::printf("profile: %lld steps, %s ms per step (rank 0)\n", (long long)steps_, fixed(step_ms, 2).c_str());
  std::printf("  %-*s  %-10s %-*s %9s %6s\n", int(lw), "layer", "phase", int(kw), "kind", "ms/step", "%step");
  for (const LayerRow &l : layerRows(regions))
    if (l.first->function != "eval" && l.calls > 0)
      row(l.first->layer.empty() ? "(step)" : l.first->layer, l.first->phase, l.first->kind, l.seconds);
  row("(trainer)", "data", "batch", data_s_);
  row("(trainer)", "all-reduce", "comm", allreduce_s_);
  row("(trainer)", "other", "step", other);
  std::printf("  by phase: forward %s ms, backward %s ms, update %s ms, data %s ms, all-reduce %s ms, other %s ms\n",
              fixed(by_phase[0] * per, 2).c_str(), fixed(by_phase[1] * per, 2).c_str(),
              fixed(by_phase[2] * per, 2).c_str(), fixed(data_s_ * per, 2).c_str(),
              fixed(allreduce_s_ * per, 2).c_str(), fixed(other * per, 2).c_str());
  std::printf("  generated code: %s ms per step, %s%% of the step; library calls: %s ms, %s%%\n",
              fixed(generated * per, 2).c_str(), fixed(share(generated), 1).c_str(), fixed(library * per, 2).c_str(),
              fixed(share(library), 1).c_str());
  std::printf("  generated code moved %s MB per step (each buffer read and each written, once) at %s GB/s\n",
              fixed(generated_bytes * per / 1e9, 1).c_str(), rate(generated_bytes, generated).c_str());
  if (eval_calls > 0)
    std::printf("  evaluation (outside the steps): %s s\n", fixed(eval, 3).c_str());
  if (kernels) {
    // The generated ops of the step, slowest first.
    std::vector<const ProfileRegion *> ops;
    size_t ow = 6;
    for (const ProfileRegion &r : regions)
      if (r.function != "eval" && r.kind == "generated" && r.calls > 0) {
        ops.push_back(&r);
        ow = std::max(ow, r.op.size());
      }
    std::stable_sort(ops.begin(), ops.end(), [](auto *a, auto *b) { return a->seconds > b->seconds; });
    std::printf("kernels (generated code), slowest first:\n");
    std::printf("  %-*s  %-10s %-*s %9s %6s %9s %7s\n", int(lw), "layer", "phase", int(ow), "kernel", "ms/step",
                "%step", "MB/step", "GB/s");
    // A row for each op with at least 1% of the generated time, the rest in one.
    double rest = 0;
    size_t more = 0;
    for (const ProfileRegion *r : ops) {
      if (r->seconds < 0.01 * generated) {
        rest += r->seconds, ++more;
        continue;
      }
      std::printf("  %-*s  %-10s %-*s %9s %6s %9s %7s\n", int(lw), r->layer.empty() ? "(step)" : r->layer.c_str(),
                  r->phase.c_str(), int(ow), r->op.c_str(), fixed(r->seconds * per, 3).c_str(),
                  fixed(share(r->seconds), 1).c_str(),
                  fixed(r->bytes * per / 1e9, 2).c_str(), rate(r->bytes, r->seconds).c_str());
    }
    if (more > 0)
      std::printf("  (%zu smaller kernels: %s ms per step)\n", more, fixed(rest * per, 3).c_str());
  }
  std::fflush(stdout);
}

} // namespace dxrt

extern "C" void dxrt_prof_begin(void) {
  dxrt::Profiler &p = dxrt::Profiler::get();
  if (p.on()) p.last = dxrt::now_s();
}

extern "C" void dxrt_prof_point(int64_t id, int64_t bytes) {
  dxrt::Profiler &p = dxrt::Profiler::get();
  if (!p.on()) return;
  const double t = dxrt::now_s();
  DXRT_KERNEL_CHECK(id >= 0 && id < int64_t(p.regions.size()), "dxrt_prof_point",
                    dxrt::str("region ", id, " is not in the executable's table of ", p.regions.size()));
  dxrt::ProfileRegion &r = p.regions[size_t(id)];
  r.seconds += t - p.last;
  ++r.calls;
  r.bytes += double(bytes);
  p.last = t;
}
