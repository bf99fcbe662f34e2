// libFuzzer harness for the model metadata (runtime/model/Metadata.cpp):
// each input is the JSON text a compiled model embeds (dx_model_metadata,
// docs/abi.md), which every training executable and dx_model_open parse
// first, and which --init-from and the checkpoints are checked against.
//
// parse_metadata, then, for metadata it accepts, what a run derives from it
// before the first step: the task and precision, the weights index
// (--print-weights), the schedule's description, the sync mode, the banner,
// the model table and the title line (driver/Console.cpp), the log's start
// event (driver/MetricsLog.cpp); and, where the sizes the metadata claims
// stay below kMaxFloats (a run allocates what they say), the arenas
// (model/Arenas.h), their initialisation from the entries' `init` (what a run
// without --init-from does), and the dataset's normalisation (what
// dx_model_open derives). Seeds: fuzz/corpus/metadata/, the metadata of the
// examples, made by make_seeds.py.
#include "common/Check.h"
#include "data/Dataset.h"
#include "driver/Console.h"
#include "driver/MetricsLog.h"
#include "model/Arenas.h"
#include "train/ModelSync.h"
#include "train/Weights.h"
#include "ReaderFuzz.h"

#include <cstdio>
#include <cstdlib>

// Console.cpp's title names the GEMM library and oneDNN's ISA, which live
// with the kernels (oneDNN, OpenBLAS), not built here.
namespace dxrt {
const char *gemm_library() { return "onednn"; }
const char *onednn_isa() { return "fuzz"; }
} // namespace dxrt

namespace {

// The most floats of any arena, batch buffer or normalisation the harness
// lets the metadata allocate (a run allocates what it says).
constexpr int64_t kMaxFloats = int64_t(1) << 16;

// The sizes Arenas computes, a * b and a + b: metadata whose sizes overflow
// int64_t there must be refused by parse_metadata (a finding otherwise, even
// where the harness does not allocate the arenas).
[[noreturn]] void overflows(const char *what) {
  std::fprintf(stderr, "dx-fuzz: parse_metadata accepted metadata whose %s overflows int64_t\n", what);
  std::abort();
}
int64_t times(int64_t a, int64_t b, const char *what) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) overflows(what);
  return r;
}
int64_t plus(int64_t a, int64_t b, const char *what) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) overflows(what);
  return r;
}

// What parse_flags makes of the train block without flags (driver/Flags.cpp).
dxrt::RunConfig run_config(const dxrt::Metadata &m) {
  dxrt::RunConfig cfg;
  cfg.model = m.model;
  cfg.epochs = m.train->epochs;
  cfg.per_rank_batch = cfg.eval_batch = m.train->batch_per_rank;
  cfg.seed = m.train->seed;
  cfg.lr_scaling = m.train->lr_scaling;
  cfg.base_lr = m.optimizer.lr;
  cfg.schedule = m.schedule;
  cfg.target = m.train->target;
  cfg.checkpoint_every = m.train->checkpoint_every;
  cfg.checkpoint_dir = "checkpoints/" + m.model;
  cfg.log_path = "/dev/null"; // MetricsLog writes the start event there
  dxfuzz::allow_errors<dxrt::Error>([&] {
    cfg.sync = dxrt::parse_sync(m.train->sync == "average" ? dxrt::str("average:", m.train->average_every)
                                                           : m.train->sync);
  });
  return cfg;
}

void derive(const dxrt::Metadata &m) {
  (void)m.precision();
  (void)m.task();
  (void)m.predicts_targets();
  (void)m.score_classes();
  (void)m.output_floats();
  (void)dxrt::weights_index(m);
  (void)dxrt::describe(m.schedule);
  if (m.train && m.dataset) { // a training executable's start (driver/Run.cpp)
    const dxrt::RunConfig cfg = run_config(m);
    dxrt::Console console(true, false); // stdout is /dev/null
    console.title(m, cfg, 1);
    const dxrt::Split train;
    console.banner(m, cfg, train, nullptr, 0.5, int64_t(1) << 20);
    console.layer_table(m);
    dxrt::MetricsLog log(cfg.log_path, true);
    log.start(m, cfg, train, nullptr, 1, 1);
  }
  const dxrt::DatasetSpec *d = m.dataset ? &*m.dataset : nullptr;
  if (d && !d->sample.empty() && d->sample[0] <= kMaxFloats) // one mean and std per channel
    (void)dxrt::normalization(*d, m.input.floats);
  // The arenas for batches of 2 samples, as a run and dx_model_open size
  // them (Arenas.h), where each holds at most kMaxFloats.
  const int64_t sizes[] = {plus(m.param_floats, dxrt::kGradSide, "param_floats + kGradSide"), m.buffer_floats,
                           times(m.param_floats, m.state_slots, "param_floats * state_slots"),
                           times(2, m.input.floats, "input"), times(2, m.output_floats(), "outputs"),
                           times(2, d ? d->label_elems() : 1, "labels"), times(2, d ? d->target_floats() : 0, "targets")};
  for (int64_t n : sizes)
    if (n < 0 || n > kMaxFloats) return;
  dxrt::Arenas a(m, 2);
  (void)a.bytes();
  dxrt::init_arena(m.params, a.params.data(), 4, 0);
  dxrt::init_arena(m.buffers, a.buffers.data(), 4, dxrt::kBufferStreams);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const bool quiet = [] { // the banner and the model table: not into libFuzzer's log
    if (!std::getenv("DX_FUZZ_VERBOSE") && !std::freopen("/dev/null", "w", stdout)) std::abort();
    return true;
  }();
  (void)quiet;
  const std::string_view text(reinterpret_cast<const char *>(data), size);
  dxfuzz::allow_errors<dxrt::Error>([&] { derive(dxrt::parse_metadata(text)); });
  return 0;
}
