// dx-datagen cosmo: a physical stand-in for CosmoFlow's N-body volumes
// (docs/datagen-cosmo.md): log-normal Poisson counts of Gaussian linear
// density fields at several redshifts, labelled by the four cosmological
// parameters that made them; NPY arrays plus a JSON sidecar, and with --hdf5
// the same arrays in one HDF5 file.
#include "Commands.h"

#include "common/Hdf5.h"
#include "common/Npy.h"
#include "common/Parallel.h"
#include "common/Progress.h"
#include "common/Sidecar.h"
#include "common/Validators.h"
#include "cosmo/Dataset.h"
#include "util/Format.h"

#include <CLI/CLI.hpp>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace dxgen {

namespace {

using namespace cosmo;

struct CosmoOptions {
  std::string output = "data/cosmo";
  int64_t train = 1024, test = 128;
  int size = 32;
  double box = 0; // 0: 4 Mpc/h per cell
  std::vector<double> redshifts = {0.0, 0.5, 1.0, 1.5};
  double mean_count = 8;
  std::string transfer = "bbks";
  uint64_t seed = 1;
  int threads = 0;
  bool quiet = false, hdf5 = false;
};

CosmoConfig validate(const CosmoOptions &o) {
  CosmoConfig cfg;
  require(o.train >= 0, "--train", "must be >= 0, got " + text(o.train));
  require(o.test >= 0, "--test", "must be >= 0, got " + text(o.test));
  require(o.train + o.test >= 1, "--train", "--train and --test are both 0: nothing to generate");
  require(o.size >= 8 && o.size <= 256 && (o.size & (o.size - 1)) == 0, "--size",
          "must be a power of two in 8..256 (cells per side), got " + text(o.size));
  const double box = o.box == 0 ? 4.0 * o.size : o.box;
  require(std::isfinite(o.box) && box >= 16 && box <= 4096, "--box",
          "must be in [16, 4096] (Mpc/h, the periodic box's side; 0: 4 Mpc/h per cell), got " + text(o.box));
  require(!o.redshifts.empty() && o.redshifts.size() <= 16, "--redshifts",
          "needs 1 to 16 redshifts (one channel each), got " + text(o.redshifts.size()));
  for (double z : o.redshifts)
    require(std::isfinite(z) && z >= 0 && z <= 20, "--redshifts", "each must be in [0, 20], got " + text(z));
  require(std::isfinite(o.mean_count) && o.mean_count > 0 && o.mean_count <= 1000, "--mean-count",
          "must be in (0, 1000] (mean particles per cell; counts are int16), got " + text(o.mean_count));
  require(o.transfer == "bbks" || o.transfer == "eh", "--transfer",
          "must be 'bbks' (Bardeen et al. 1986) or 'eh' (Eisenstein & Hu 1998, no wiggles), got '" + o.transfer + "'");
  require(o.threads >= 0, "--threads", "must be >= 0 (0: all cores), got " + text(o.threads));
  // int16 volumes: the whole split must stay addressable in memory.
  const double bytes = double(o.train + o.test) * double(o.redshifts.size()) * std::pow(double(o.size), 3) * 2;
  require(bytes <= 64e9, "--train", "the volumes would take " + dx::fixed(bytes / 1e9, 1) + " GB (at most 64 GB)");
  cfg.train = o.train;
  cfg.test = o.test;
  cfg.grid.n = o.size;
  cfg.grid.box = box;
  cfg.redshifts = o.redshifts;
  cfg.mean_count = o.mean_count;
  cfg.transfer = o.transfer == "bbks" ? Transfer::BBKS : Transfer::EisensteinHu;
  cfg.seed = o.seed;
  return cfg;
}

std::string command_line(const CosmoConfig &c) {
  return "dx-datagen cosmo --train " + text(c.train) + " --test " + text(c.test) + " --size " + text(c.grid.n) +
         " --box " + text(c.grid.box) + " --redshifts " + join(c.redshifts) + " --mean-count " +
         text(c.mean_count) + " --transfer " + transfer_name(c.transfer) + " --seed " + text(c.seed);
}

nlohmann::json sidecar(const CosmoConfig &c, const CosmoData &d) {
  using nlohmann::json;
  const int64_t n = c.grid.n, channels = int64_t(c.redshifts.size());
  json names = json::array(), fiducial = json::object(), ranges = json::object();
  for (int i = 0; i < kParams; ++i) {
    names.push_back(param_name(i));
    fiducial[param_name(i)] = kFiducial[i];
    ranges[param_name(i)] = {kFiducial[i] * (1 - kSpread), kFiducial[i] * (1 + kSpread)};
  }
  json growth = json::array();
  for (double z : c.redshifts) growth.push_back(growth_factor(z, kFiducial[0]));
  const Spectrum fid({kFiducial[0], kFiducial[1], kFiducial[2], kFiducial[3]}, c.transfer);
  return {
      {"generator", "dx-datagen cosmo"},
      {"version", "dx-datagen 0.1"},
      {"command", command_line(c)},
      {"seed", c.seed},
      {"counts", {{"train", c.train}, {"test", c.test}}},
      {"target_names", names},
      {"targets", "(p - p_fiducial) / (0.1 p_fiducial), in [-1, 1]; p = p_fiducial (1 + 0.1 t)"},
      {"parameters",
       {{"grid_cells_per_side", n},
        {"box_Mpc_h", c.grid.box},
        {"cell_Mpc_h", c.grid.cell()},
        {"k_fundamental_h_Mpc", c.grid.fundamental()},
        {"k_nyquist_h_Mpc", c.grid.nyquist()},
        {"redshifts", c.redshifts},
        {"growth_factor_at_fiducial_Omega_m", growth},
        {"mean_count_per_cell", c.mean_count},
        {"transfer_function", c.transfer == Transfer::BBKS ? "BBKS (Sugiyama shape parameter)" : "Eisenstein-Hu no-wiggle"},
        {"Omega_b", kOmegaB},
        {"T_cmb_K", kTcmb},
        {"flat", true},
        {"fiducial", fiducial},
        {"ranges", ranges},
        {"fiducial_cell_sigma_z0", std::sqrt(grid_tophat_variance(c.grid, fid, 0))},
        {"clipped_cells", d.clipped}}},
      {"model",
       "delta_k = w_k sqrt(P(k)/dV), P = A k^n_s T(k)^2 with sigma_8 fixed; per redshift "
       "rho = exp(D delta - D^2 s^2/2) / mean, counts ~ Poisson(mean_count rho), clipped at 32767"},
      {"files",
       {{"train_volumes", {{"path", "train_volumes.npy"}, {"dtype", "int16"}, {"shape", {c.train, channels, n, n, n}}}},
        {"test_volumes", {{"path", "test_volumes.npy"}, {"dtype", "int16"}, {"shape", {c.test, channels, n, n, n}}}},
        {"train_targets", {{"path", "train_targets.npy"}, {"dtype", "float32"}, {"shape", {c.train, kParams}}}},
        {"test_targets", {{"path", "test_targets.npy"}, {"dtype", "float32"}, {"shape", {c.test, kParams}}}},
        {"train_params", {{"path", "train_params.npy"}, {"dtype", "float32"}, {"shape", {c.train, kParams}}}},
        {"test_params", {{"path", "test_params.npy"}, {"dtype", "float32"}, {"shape", {c.test, kParams}}}}}},
  };
}

void run(const CosmoOptions &o) {
  const CosmoConfig cfg = validate(o);
  const auto start = std::chrono::steady_clock::now();
  const int threads = resolve_threads(o.threads);
  const int64_t n = cfg.grid.n, channels = int64_t(cfg.redshifts.size());
  make_directories(o.output);
  Progress progress("cosmo: volumes", cfg.train + cfg.test, o.quiet);
  const CosmoData data = generate_dataset(cfg, threads, &progress);
  progress.finish();
  write_npy(o.output + "/train_volumes.npy", {cfg.train, channels, n, n, n}, data.train_volumes.data());
  write_npy(o.output + "/test_volumes.npy", {cfg.test, channels, n, n, n}, data.test_volumes.data());
  write_npy(o.output + "/train_targets.npy", {cfg.train, kParams}, data.train_targets.data());
  write_npy(o.output + "/test_targets.npy", {cfg.test, kParams}, data.test_targets.data());
  write_npy(o.output + "/train_params.npy", {cfg.train, kParams}, data.train_params.data());
  write_npy(o.output + "/test_params.npy", {cfg.test, kParams}, data.test_params.data());
  if (o.hdf5) {
    // The same arrays in one file: format: hdf5, "cosmo.h5:/train/volumes". A
    // chunk per volume (up to 512 MiB at 16 x 256^3), so a reader of one
    // sample decompresses that sample alone.
    Hdf5Writer h5(o.output + "/cosmo.h5");
    h5.write("/train/volumes", {cfg.train, channels, n, n, n}, data.train_volumes.data(), 1);
    h5.write("/train/targets", {cfg.train, kParams}, data.train_targets.data());
    h5.write("/train/params", {cfg.train, kParams}, data.train_params.data());
    h5.write("/test/volumes", {cfg.test, channels, n, n, n}, data.test_volumes.data(), 1);
    h5.write("/test/targets", {cfg.test, kParams}, data.test_targets.data());
    h5.write("/test/params", {cfg.test, kParams}, data.test_params.data());
    h5.close();
  }
  write_sidecar(o.output + "/cosmo.json", sidecar(cfg, data));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("dx-datagen cosmo: %s train + %s test volumes %lldx%lldx%lld x %lld redshifts in %s s (%d threads)\n",
              dx::withThousands(cfg.train).c_str(), dx::withThousands(cfg.test).c_str(), (long long)n, (long long)n,
              (long long)n, (long long)channels, dx::fixed(seconds, 1).c_str(), threads);
  std::printf("  box %s Mpc/h (%s Mpc/h cells), z = %s, %s transfer, mean count %s per cell, %lld cells clipped\n",
              text(cfg.grid.box).c_str(), text(cfg.grid.cell()).c_str(), join(cfg.redshifts).c_str(),
              transfer_name(cfg.transfer).c_str(), text(cfg.mean_count).c_str(), (long long)data.clipped);
  std::printf("  wrote %s/{train,test}_{volumes,targets,params}.npy and cosmo.json\n", o.output.c_str());
  if (o.hdf5) std::printf("  wrote %s/cosmo.h5 (/{train,test}/{volumes,targets,params})\n", o.output.c_str());
}

} // namespace

void add_cosmo_command(CLI::App &app) {
  auto o = std::make_shared<CosmoOptions>();
  auto *cmd = app.add_subcommand("cosmo", "Log-normal Poisson density volumes of Gaussian cosmological fields at "
                                          "several redshifts, labelled by Omega_m, sigma_8, n_s, h "
                                          "(a stand-in for CosmoFlow; docs/datagen-cosmo.md)");
  cmd->add_option("-o,--output", o->output, "Output directory")->capture_default_str();
  cmd->add_option("--train", o->train, "Training volumes")->capture_default_str();
  cmd->add_option("--test", o->test, "Test volumes")->capture_default_str();
  cmd->add_option("--size", o->size, "Cells per side, a power of two in 8..256")->capture_default_str();
  cmd->add_option("--box", o->box, "Side of the periodic box in Mpc/h (0: 4 Mpc/h per cell)")->capture_default_str();
  cmd->add_option("--redshifts", o->redshifts, "Redshifts, one channel each")->delimiter(',')->capture_default_str();
  cmd->add_option("--mean-count", o->mean_count, "Mean Poisson count (particles) per cell")->capture_default_str();
  cmd->add_option("--transfer", o->transfer, "Transfer function: bbks or eh (Eisenstein-Hu no-wiggle)")
      ->capture_default_str();
  cmd->add_option("--seed", o->seed, "Random seed (the data depend only on it and the parameters)")
      ->capture_default_str();
  cmd->add_option("--threads", o->threads, "Worker threads (0: all cores; the output does not depend on it)")
      ->capture_default_str();
  cmd->add_flag("--quiet", o->quiet, "No progress output");
  cmd->add_flag("--hdf5", o->hdf5,
                "Also write the arrays to OUTPUT/cosmo.h5 (/train/volumes, /train/targets, /train/params, /test/...; "
                "a chunk per volume, gzip) for format: hdf5");
  cmd->callback([o] { run(*o); });
}

} // namespace dxgen
