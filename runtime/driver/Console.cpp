#include "driver/Console.h"

#include "common/Str.h"
#include "common/Timer.h"
#include "kernels/Blas.h"
#include "kernels/Precision.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <unistd.h>

namespace dxrt {

Console::Console(bool enabled, bool allow_bar) : enabled_(enabled), tty_(allow_bar && isatty(fileno(stdout)) == 1) {}

void Console::clear_bar() {
  if (bar_shown_) std::printf("\r\033[K");
  bar_shown_ = false;
}

void Console::end_progress() {
  if (!enabled_) return;
  clear_bar();
  std::fflush(stdout);
}

void Console::line(const std::string &text) {
  if (!enabled_) return;
  clear_bar();
  std::string t = text;
  while (!t.empty() && t.back() == ' ') t.pop_back();
  std::printf("%s\n", t.c_str());
  std::fflush(stdout);
}

// 51 -> "204 B", 235146 -> "0.90 MiB"
static std::string bytes_str(double b) {
  if (b < 1024) return str(int64_t(b), " B");
  if (b < 1048576) return str(str_fixed(b / 1024, 1), " KiB");
  if (b < 1073741824.0) return str(str_fixed(b / 1048576, 2), " MiB");
  return str(str_fixed(b / 1073741824.0, 2), " GiB");
}

// sgd(lr 0.05, momentum 0.9, nesterov, weight_decay 0.0005): zeros left out.
static std::string optimizer_str(const OptimizerSpec &o, double lr) {
  std::string s = str(o.kind.empty() ? "?" : o.kind, "(lr ", num(lr));
  for (const auto &[k, v] : o.hyper) {
    if (v == 0) continue;
    bool flag = k == "nesterov" || k == "centered";
    s += flag ? str(", ", k) : str(", ", k, " ", num(v));
  }
  return s + ")";
}

// The layout a CPU build keeps 2-D convolution activations in, for a model
// with such convolutions, and whether oneDNN computes in it on this CPU
// (AVX-512: nChw16c, AVX2: nChw8c): in another block, each convolution
// reorders its activations, so the line says how to compile for this
// machine (docs/cli.md, --conv-layout). Empty otherwise.
static std::string conv_layout_line(const Metadata &m) {
  const bool convs = std::any_of(m.layers.begin(), m.layers.end(), [](const LayerSpec &l) {
    return l.op == "conv2d" || l.op == "conv_transpose2d";
  });
  if (m.target != "cpu" || m.conv_layout.empty() || !convs) return "";
  if (m.conv_layout == "nchw") return "2-D convolution activations in NCHW (oneDNN reorders them in each convolution)";
  const std::string isa = onednn_isa(), have = m.conv_layout == "nchw16c" ? "nChw16c" : "nChw8c";
  const char *host = isa.rfind("avx512", 0) == 0 ? "nchw16c" : isa.rfind("avx2", 0) == 0 ? "nchw8c" : nullptr;
  if (!host || m.conv_layout == host)
    return str("2-D convolution activations in ", have, " between convolutions",
               host ? str(" (the block oneDNN computes in on this ", isa, " CPU)") : std::string());
  return str("2-D convolution activations in ", have, " between convolutions, but oneDNN computes in ",
             std::strcmp(host, "nchw16c") == 0 ? "nChw16c" : "nChw8c", " on this ", isa,
             " CPU and reorders them in each convolution: compile with --conv-layout=", host,
             " (or auto, on this machine) for it");
}

void Console::title(const Metadata &m, const RunConfig &cfg, int blas_threads) {
  // The host's BLAS threads matter only to CPU code.
  // and which library runs the matrix products (kernels/Blas.h).
  const std::string gemm = std::strcmp(gemm_library(), "onednn") == 0 ? std::string("oneDNN GEMM")
                                                                       : str("OpenBLAS ", gemm_library(), " GEMM");
  const std::string threads = m.target == "cpu" ? str(" (", blas_threads, " BLAS thread", blas_threads == 1 ? "" : "s",
                                                       cfg.world == 1 ? "" : " each", ", ", gemm, ")")
                                                : std::string(cfg.world == 1 ? "" : " (one GPU each)");
  line(str("DeepEx: training '", m.model, "'", m.source.empty() ? "" : str(" from ", m.source), " on ", m.target, ", ",
           cfg.world, cfg.world == 1 ? " rank" : " ranks", threads));
  if (m.precision() == "bf16" && m.target == "cuda")
    line("  precision  bf16: convolutions and dense layers on bf16 inputs, accumulated in fp32 (cuBLAS and cuDNN on "
         "the tensor cores; cuDNN rounds a convolution's result to bf16); weights, gradients, optimizer state and "
         "everything else fp32");
  else if (m.precision() == "bf16")
    line(str("  precision  bf16: convolutions and dense layers on bf16 inputs, accumulated in fp32 (oneDNN on ",
             onednn_isa(), "); weights, gradients, optimizer state and everything else fp32"));
  if (const std::string layout = conv_layout_line(m); !layout.empty()) line("  layout     " + layout);
}

void Console::banner(const Metadata &m, const RunConfig &cfg, const Split &train, const Split *test, double load_s,
                     int64_t arena_bytes) {
  if (!enabled_) return;
  const DatasetSpec &d = *m.dataset;
  line(str("  model      ", dx::withThousands(m.param_floats), " parameters (", bytes_str(m.param_floats * 4.0), "), ",
           dx::humanCount(m.flops_per_sample), " FLOPs forward per sample"));
  line(str("  data       ", cfg.synthetic ? "synthetic " : "", d.name, " (", d.format, "): ", dx::withThousands(train.n), " train, ",
           test ? dx::withThousands(test->n) : std::string("no"), " test samples of ", shape_str(d.sample),
           d.classes ? str(", ", d.classes, " classes") : std::string(""),
           d.labelled() && !d.label_shape.empty() ? str(", labels ", shape_str(d.label_shape), " per sample") : std::string(""),
           d.targets ? str(", targets ", shape_str(d.target_shape)) : std::string(""),
           cfg.synthetic ? std::string("") : str(", loaded in ", str_fixed(load_s, 1), " s")));
  line(str("  batch      ", cfg.per_rank_batch, " per rank, ", cfg.global_batch(), " global; eval batch ", cfg.eval_batch));
  // The compiler's memory plan: one workspace per thread holds every
  // activation, gradient and temporary of a step (the larger of the two).
  if (m.train_workspace && m.eval_workspace)
    line(str("  memory     ", bytes_str(double(arena_bytes)), " arenas (parameters, gradients, optimizer state, a batch), ",
             bytes_str(m.train_workspace->bytes_at(cfg.per_rank_batch)), " training step workspace at batch ",
             cfg.per_rank_batch, ", ", bytes_str(m.eval_workspace->bytes_at(cfg.eval_batch)),
             " evaluation workspace at batch ", cfg.eval_batch, m.target == "cpu" ? "" : " (on the GPU)"));
  line(str("  optimizer  ", optimizer_str(m.optimizer, cfg.base_lr), ", schedule ", describe(cfg.schedule)));
  std::string target = cfg.target ? str(cfg.target->metric, " ", cfg.target->op, " ", num(cfg.target->value)) : "none";
  line(str("  run        ", cfg.epochs, cfg.epochs == 1 ? " epoch" : " epochs", ", seed ", cfg.seed, ", target ", target,
           cfg.max_steps ? str(", at most ", cfg.max_steps, " steps") : std::string(""),
           cfg.log_path.empty() ? std::string("") : str(", log ", cfg.log_path)));
}

void Console::layer_table(const Metadata &m) {
  if (!enabled_ || m.layers.empty()) return;
  size_t path_w = 5, op_w = 17;
  for (const LayerSpec &l : m.layers) {
    path_w = std::max(path_w, l.path.size());
    op_w = std::max(op_w, l.op.size());
  }
  path_w = std::min<size_t>(path_w, 48);
  auto shape = [](const std::vector<int64_t> &s) {
    std::string out = "f32[B";
    for (int64_t d : s) out += str(", ", d);
    return out + "]";
  };
  auto row = [&](const std::string &idx, std::string layer, const std::string &op, const std::string &out,
                 const std::string &params, const std::string &flops) {
    if (layer.size() > path_w) layer = "..." + layer.substr(layer.size() - path_w + 3);
    char buf[512];
    std::snprintf(buf, sizeof buf, "%5s  %-*s  %-*s  %-22s%12s%16s", idx.c_str(), int(path_w), layer.c_str(),
                  int(op_w), op.c_str(), out.c_str(), params.c_str(), flops.c_str());
    line(buf);
  };
  row("#", "layer", "op", "output", "params", "FLOPs");
  row("in", m.input.name, "input", shape(m.input.shape), "", "");
  for (size_t i = 0; i < m.layers.size(); ++i) {
    const LayerSpec &l = m.layers[i];
    row(std::to_string(i), l.path, l.op, shape(l.output), l.params ? dx::withThousands(l.params) : "",
        l.flops > 0 ? dx::roundedWithThousands(l.flops) : "");
  }
  for (const TensorSpec &o : m.outputs) row("out", o.name, "output", shape(o.shape), "", "");
}

void Console::progress(const RunConfig &cfg, int64_t epoch, int64_t step, int64_t steps, double loss,
                       double samples_per_s, double eta_s) {
  if (!enabled_) return;
  const double t = now_s();
  const bool last = step == steps;
  if (tty_) {
    if (!last && t - last_draw_ < 0.1) return;
    last_draw_ = t;
    const int width = 30;
    int filled = int(width * step / std::max<int64_t>(steps, 1));
    std::string bar(size_t(filled), '=');
    if (filled < width) bar += '>';
    bar.resize(size_t(width), ' ');
    std::printf("\r\033[Kepoch %lld/%lld [%s] %lld/%lld  loss %.4f  %s samples/s  ETA %s", (long long)epoch,
                (long long)cfg.epochs, bar.c_str(), (long long)step, (long long)steps, loss,
                dx::withThousands(std::llround(samples_per_s)).c_str(), duration(eta_s).c_str());
    std::fflush(stdout);
    bar_shown_ = true;
  } else {
    if (last_line_ == 0) last_line_ = t;
    if (last || t - last_line_ < 10.0) return; // the summary line follows the last step
    last_line_ = t;
    line(str("epoch ", epoch, "/", cfg.epochs, "  step ", step, "/", steps, "  loss ", str_fixed(loss, 4), "  ",
             dx::withThousands(std::llround(samples_per_s)), " samples/s  ETA ", duration(eta_s)));
  }
}

void Console::epoch_summary(const EpochStats &s) {
  if (!enabled_) return;
  std::string val = s.has_val ? str("  val_loss ", str_fixed(s.val.loss, 4)) : std::string("");
  if (s.has_val && !std::isnan(s.val.accuracy)) val += str("  val_acc ", str_fixed(s.val.accuracy, 4));
  if (s.has_val && s.val.per_pixel && !std::isnan(s.val.iou)) val += str("  val_iou ", str_fixed(s.val.iou, 4));
  if (s.has_val && !std::isnan(s.val.mae))
    val += str("  val_mae ", str_sig(s.val.mae, 4), "  val_rmse ", str_sig(s.val.rmse, 4),
               std::isnan(s.val.r2) ? std::string("") : str("  val_r2 ", str_fixed(s.val.r2, 4)));
  line(str("epoch ", s.epoch, "/", s.epochs, "  train_loss ", str_fixed(s.train_loss, 4), val, "  lr ", str_sig(s.lr, 4),
           "  ", dx::withThousands(std::llround(s.samples_per_s)), " samples/s  ", str_fixed(s.epoch_time_s, 1), " s"));
}

} // namespace dxrt
