// Reads top to bottom: world, metadata, flags, BLAS, data, arenas and the
// target's backend (host or GPU), initialisation, banner, training. Any dxrt::Error ends the run with its
// message and exit code (on every rank, through World::abort).
#include "driver/Run.h"

#include "comm/Watchdog.h"
#include "comm/World.h"
#include "common/Check.h"
#include "common/Timer.h"
#include "data/Dataset.h"
#include "data/Order.h"
#include "driver/Console.h"
#include "driver/Flags.h"
#include "driver/MetricsLog.h"
#include "driver/Signals.h"
#include "kernels/Blas.h"
#include "kernels/Conv2d.h"
#include "kernels/Precision.h"
#include "model/Arenas.h"
#include "model/Backend.h"
#include "model/Metadata.h"
#include "model/Model.h"
#include "train/Export.h"
#include "train/Checkpoint.h"
#include "train/Profile.h"
#include "train/Trainer.h"
#include "train/Weights.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <memory>

namespace dxrt {

// NPY or IDX (raw or gzip-compressed), by FILE's first bytes (NPY's magic),
// else by its name: new inputs come in either, whatever the training data's
// format was.
static std::string array_format(const std::string &file) {
  std::ifstream in(file, std::ios::binary);
  char magic[6] = {};
  if (in.read(magic, sizeof magic) && std::memcmp(magic, "\x93NUMPY", sizeof magic) == 0) return "npy";
  return file.size() > 4 && file.compare(file.size() - 4, 4, ".npy") == 0 ? "npy" : "idx";
}

// --predict: the inputs of FILE without labels or targets, normalised as the
// dataset block says (the model was trained on such samples). NPY/IDX are
// mapped, HDF5 read a sample at a time, so inputs larger than memory stream
// through.
static Split predict_split(const Metadata &meta, const std::string &file) {
  DatasetSpec d = *meta.dataset;
  // FILE:/PATH names a dataset in an HDF5 file whatever FILE's extension
  // (.h5, .hdf5, .nc): a reference with ":/" that is not itself a file.
  const bool h5 = file.rfind(":/") != std::string::npos && !std::filesystem::exists(file);
  d.format = h5 ? "hdf5" : array_format(file);
  d.train = {file};
  d.targets = false;
  d.label_column = -1;
  d.label_shape.clear();
  return load_split(d, d.train, "predict", "", Access::Map);
}

// Loads (or synthesises) the splits and checks them against the model.
static TrainData load_data(const Metadata &meta, const RunConfig &cfg) {
  const DatasetSpec &d = *meta.dataset;
  DXRT_CHECK(d.sample_floats() == meta.input.floats,
             str("the dataset's sample ", shape_str(d.sample), " has ", d.sample_floats(), " elements, but the model's input '",
                 meta.input.name, "' takes ", shape_str(meta.input.shape), " = ", meta.input.floats, " per sample"),
             "the model object and its metadata disagree; rebuild it with dxc");
  TrainData data;
  if (cfg.synthetic) {
    const int64_t per = d.label_elems();
    int64_t classes = meta.labels ? (d.classes ? d.classes : meta.score_classes() ? meta.score_classes()
                                                                                  : meta.outputs[0].floats / per)
                                  : 0;
    const int64_t test_n = std::max<int64_t>(cfg.synthetic_samples / 8, cfg.eval_batch);
    data.train = synthetic_split("train", cfg.synthetic_samples, d.sample_floats(), classes, uint64_t(cfg.seed), per,
                                 d.target_floats());
    data.test = synthetic_split("test", test_n, d.sample_floats(), classes, uint64_t(cfg.seed), per, d.target_floats());
    return data;
  }
  // Uncompressed IDX and NPY inputs are mapped: a rank touches only the pages
  // of the samples it trains and evaluates on, and ranks share them.
  data.train = load_split(d, d.train, "train", cfg.data_dir, Access::Map);
  if (!d.test.empty()) data.test = load_split(d, d.test, "test", cfg.data_dir, Access::Map);
  DXRT_CHECK(!meta.labels || data.train.has_labels,
             str("the model's loss uses labels, but the dataset '", d.name, "' has none"),
             "give the dataset a labels file (or label_column for csv)");
  // A label beyond the model's class scores would silently add nothing to
  // the loss: refuse it (the loader already checked a declared `classes`).
  if (const int64_t c = meta.score_classes())
    for (const Split *s : {&data.train, data.test ? &*data.test : nullptr}) {
      if (!s || !s->has_labels) continue;
      auto bad = std::find_if(s->y.begin(), s->y.end(), [&](int64_t y) { return y >= c; });
      DXRT_CHECK(bad == s->y.end(),
                 str("the ", s->name, " split's label ", bad - s->y.begin(), " is ", *bad,
                     ", but the model's first output has ", c, " class scores"),
                 "declare `classes:` in the dataset block and check the labels and the model's output size");
    }
  return data;
}

int run(int argc, char **argv) {
  const double start = now_s();
  block_scheduler_signals(); // before MPI, OpenMP or BLAS start a thread
  World &world = World::init(&argc, &argv);
  try {
    Metadata meta = parse_metadata(model_metadata());
    DXRT_CHECK(meta.train && meta.dataset, str("the model '", meta.model, "' has no train block or no dataset"),
               "only a .dx file with a train block compiles to a trainable executable");

    RunConfig cfg;
    int exit_code = 0;
    if (!parse_flags(argc, argv, meta, world, &cfg, &exit_code)) {
      world.finalize();
      return exit_code;
    }
    if (cfg.print_weights) { // the tensors --init-from needs, for tools/weights/dx_weights.py
      if (world.is_root()) std::printf("%s", weights_index(meta).c_str());
      world.finalize();
      return kExitOk;
    }
    const int blas_threads = blas_init();
    conv_backend(), conv_algorithm(); // a bad DXRT_CONV or DXRT_CONV_ALGORITHM ends the run here
    // bf16 on a CPU without bf16 instructions ends here, before any data is read.
    set_matmul_precision("the model", meta.precision().c_str(), meta.target.c_str());
    install_signal_handlers(str(argc > 0 ? argv[0] : "dxrt", world.size() > 1 ? str(": ", world.name()) : ""));
    if (world.size() > 1) start_comm_watchdog(cfg.comm_timeout_s, str(argc > 0 ? argv[0] : "dxrt", ": ", world.name()));

    Console console(world.is_root(), !world.uses_mpi());
    DXRT_CHECK(cfg.predict.empty() || !cfg.init_from.empty() || !cfg.from.empty(),
               "--predict needs the trained weights: --init-from DIR or --from CHECKPOINT",
               "write them with --save-weights DIR at the end of training, or name a checkpoint of the run");
    DXRT_CHECK(cfg.init_from.empty() || cfg.from.empty(), "--init-from and --from both say where the weights come from",
               "give one of them");
    DXRT_CHECK(cfg.from.empty() || !cfg.predict.empty(), "--from CHECKPOINT is for --predict",
               "to continue training from a checkpoint use --resume (with --checkpoint-dir)");
    // --resume auto without a complete checkpoint is a first run: it starts
    // afresh (and its log starts anew); with one it is --resume. Rank 0
    // lists the directory and every rank gets its list, so all agree.
    bool fresh_auto = false;
    if (cfg.resume_auto && cfg.predict.empty() && Checkpointer(meta, cfg, world).complete().empty()) {
      cfg.resume = false;
      fresh_auto = true;
    }
    MetricsLog log(cfg.log_path, world.is_root(), cfg.resume);
    console.title(meta, cfg, blas_threads);
    if (!cfg.predict.empty()) { // no training: outputs for new inputs
      const Split inputs = predict_split(meta, cfg.predict);
      Arenas arenas(meta, cfg.eval_batch);
      std::unique_ptr<Backend> backend = make_backend(meta, arenas, world, 1);
      const std::string weights =
          cfg.from.empty() ? (load_weights(meta, arenas, cfg.init_from), cfg.init_from)
                           : str("the checkpoint ", load_checkpoint_weights(meta, arenas, cfg.from, "--from"));
      backend->upload_model(arenas);
      console.line(str("predicting ", dx::withThousands(inputs.n), " samples of ", cfg.predict, " with the weights of ",
                       weights));
      for (const std::string &path : export_outputs(meta, arenas, *backend, inputs, cfg.eval_batch, cfg.predict_out, world))
        console.line(str("wrote ", path));
      world.finalize();
      return kExitOk;
    }
    GemmWarmup gemm_warmup; // oneDNN's sgemm kernels, generated while the data are read
    const double t0 = now_s();
    TrainData data = load_data(meta, cfg);
    const double load_s = now_s() - t0;

    const int64_t steps_per_epoch = BatchPlan{data.train.n, cfg.per_rank_batch, cfg.world, cfg.rank, cfg.accumulate}.steps();
    if (cfg.print_schedule) { // the generated schedule, step by step: "step epoch lr"
      if (world.is_root())
        for (int64_t st = 1; st <= steps_per_epoch * cfg.epochs; ++st)
          std::printf("%lld %lld %.17g\n", (long long)st, (long long)((st - 1) / steps_per_epoch + 1),
                      model_learning_rate(cfg.base_lr, st, steps_per_epoch, cfg.epochs));
      world.finalize();
      return kExitOk;
    }

    Arenas arenas(meta, std::max(cfg.per_rank_batch, cfg.eval_batch));
    // The target the model was compiled for: the host, or this rank's GPU
    // (a clear error where there is none).
    std::unique_ptr<Backend> backend = make_backend(meta, arenas, world, cfg.accumulate);
    if (!backend->describe().empty()) console.line(backend->describe());
    // Initialised on the host, from the seed, whatever the target: a CUDA run
    // starts from the same parameters as a CPU run.
    init_arena(meta.params, arenas.params.data(), uint64_t(cfg.seed), 0);
    init_arena(meta.buffers, arenas.buffers.data(), uint64_t(cfg.seed), kBufferStreams);
    if (!cfg.init_from.empty() && cfg.resume && cfg.resume_auto) {
      // --resume auto with a checkpoint: the checkpoint holds the model;
      // --init-from is for the job's first run.
      console.line(str("--resume auto: resuming, so --init-from ", cfg.init_from, " is not read"));
    } else if (!cfg.init_from.empty()) {
      DXRT_CHECK(!cfg.resume, "--init-from and --resume both say where the model starts",
                 "use --resume to continue a run, --init-from to start one from given weights (or --resume auto "
                 "with --init-from: the weights for a first run, the checkpoint once there is one)");
      load_weights(meta, arenas, cfg.init_from);
      console.line(str("initialised from ", cfg.init_from));
    }
    backend->upload_model(arenas);

    const Split *test = data.test ? &*data.test : nullptr;
    console.banner(meta, cfg, data.train, test, load_s, arenas.bytes());
    console.layer_table(meta);
    if (cfg.target && cfg.target->metric != "loss" && !test)
      console.line(str("warning: the target ", cfg.target->metric, " needs a test split, and the dataset has none"));
    if (!log.continues()) log.start(meta, cfg, data.train, test, steps_per_epoch, blas_threads);

    if (cfg.profile) Profiler::get().enable();
    gemm_warmup.wait();
    Trainer trainer(meta, cfg, data, arenas, *backend, world, console, log, start);
    if (cfg.resume) trainer.resume();
    else if (fresh_auto)
      console.line(str("--resume auto: no complete checkpoint in '", cfg.checkpoint_dir, "': starting afresh"));
    int rc = trainer.run();
    Profiler::get().report(world.is_root(), cfg.profile_kernels, log);
    if (rc == kExitOk && !cfg.save_weights.empty()) {
      backend->download_model(arenas);
      if (world.is_root()) {
        save_weights(meta, arenas, cfg.save_weights);
        console.line(str("weights saved to ", cfg.save_weights));
      }
      world.barrier();
    }
    if (rc == kExitOk && !cfg.export_dir.empty()) {
      // Inference mode, with the final parameters (also after --stop-after-epoch).
      for (const Split *split : {static_cast<const Split *>(&data.train), test}) {
        if (!split) continue;
        for (const std::string &path : export_outputs(meta, arenas, *backend, *split, cfg.eval_batch, cfg.export_dir, world))
          console.line(str("exported ", path));
      }
    }
    world.finalize();
    return rc;
  } catch (const Error &e) {
    std::fflush(stdout);
    if (e.collective) {
      // Every rank met it: rank 0 says it once, and all end together.
      if (world.is_root()) std::fprintf(stderr, "%s: %s", argc > 0 ? argv[0] : "dxrt", describe(e).c_str());
      std::fflush(stderr);
      world.finalize();
      return e.exit_code;
    }
    std::string where = world.size() > 1 ? str(" [", world.name(), "]") : "";
    std::fprintf(stderr, "%s%s: %s", argc > 0 ? argv[0] : "dxrt", where.c_str(), describe(e).c_str());
    world.abort(e.exit_code);
  } catch (const std::exception &e) { // out of memory, or a bug: still a message, never a bare crash
    std::fflush(stdout);
    std::fprintf(stderr, "%s: internal error: %s\n", argc > 0 ? argv[0] : "dxrt", e.what());
    world.abort(kExitError);
  }
}

} // namespace dxrt
