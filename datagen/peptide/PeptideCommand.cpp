// `dx-datagen peptide`: folding trajectories of the Go-model peptide
// (Forcefield.h) written as the contact-map VAE's training data
// (examples/protein-folding/cvae.dx, docs/datagen-peptide.md).
#include "Commands.h"
#include "common/Hdf5.h"
#include "common/Npy.h"
#include "common/Parallel.h"
#include "common/Progress.h"
#include "common/Sidecar.h"
#include "common/Validators.h"
#include "peptide/Chain.h"
#include "peptide/Simulation.h"

#include <CLI/CLI.hpp>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <optional>
#include <vector>

namespace dxgen {
namespace {

using namespace peptide;

struct Options {
  SimulationParams sim;
  ForcefieldParams ff;
  double temperature = 0; // --temperature (0 = not given)
  std::vector<double> temperatures;
  double test_fraction = 0.2;
  std::string out = "data/peptide";
  bool quiet = false, histogram = false, hdf5 = false;
};

// Frames of one split, flattened in trajectory order.
struct Split {
  std::vector<float> maps, q, rmsd, temperature, energy;
  std::vector<int64_t> trajectory;
  int64_t frames() const { return int64_t(q.size()); }
};

void append(Split &s, const Trajectory &t) {
  s.maps.insert(s.maps.end(), t.maps.begin(), t.maps.end()); // 0/1 bytes -> float 0/1
  s.q.insert(s.q.end(), t.q.begin(), t.q.end());
  s.rmsd.insert(s.rmsd.end(), t.rmsd.begin(), t.rmsd.end());
  s.energy.insert(s.energy.end(), t.energy.begin(), t.energy.end());
  s.temperature.insert(s.temperature.end(), t.q.size(), float(t.temperature));
  s.trajectory.insert(s.trajectory.end(), t.q.size(), int64_t(t.index));
}

// NAME_WHAT.npy for each array, and /NAME/WHAT in h5 when it is given (--hdf5).
nlohmann::json write_split(const std::string &dir, const std::string &name, const Split &s, Hdf5Writer *h5) {
  const int64_t n = s.frames();
  nlohmann::json files;
  auto put = [&](const std::string &what, const std::vector<int64_t> &shape, auto *data, const char *dtype) {
    const std::string file = name + "_" + what + ".npy";
    write_npy(dir + "/" + file, shape, data);
    files[file] = {{"shape", shape}, {"dtype", dtype}};
    if (h5) h5->write("/" + name + "/" + what, shape, data);
  };
  put("maps", {n, 1, kMapSide, kMapSide}, s.maps.data(), "float32");
  put("q", {n}, s.q.data(), "float32");
  put("rmsd", {n}, s.rmsd.data(), "float32");
  put("energy", {n}, s.energy.data(), "float32");
  put("temperature", {n}, s.temperature.data(), "float32");
  put("trajectory", {n}, s.trajectory.data(), "int64");
  return files;
}

void print_summary(const std::vector<Trajectory> &trajs, bool histogram, double seconds) {
  // Per temperature (in the sweep mode) and overall.
  std::map<double, std::vector<float>> by_t;
  for (const Trajectory &t : trajs) by_t[t.temperature].insert(by_t[t.temperature].end(), t.q.begin(), t.q.end());
  auto line = [&](const char *label, const std::vector<float> &q) {
    double sum = 0;
    int64_t folded = 0, unfolded = 0;
    for (float v : q) {
      sum += v;
      folded += v > 0.7f;
      unfolded += v < 0.3f;
    }
    const double n = q.empty() ? 1.0 : double(q.size());
    std::printf("  %-8s frames %7lld  mean Q %.3f  folded (Q>0.7) %5.1f%%  unfolded (Q<0.3) %5.1f%%\n", label,
                (long long)q.size(), sum / n, 100.0 * double(folded) / n, 100.0 * double(unfolded) / n);
    if (histogram) {
      int64_t bins[10] = {};
      for (float v : q) ++bins[std::min(9, std::max(0, int(v * 10.0f)))];
      for (int b = 0; b < 10; ++b)
        std::printf("      Q %.1f-%.1f %6.1f%% %s\n", 0.1 * b, 0.1 * (b + 1), 100.0 * double(bins[b]) / n,
                    std::string(size_t(std::lround(50.0 * double(bins[b]) / n)), '#').c_str());
    }
  };
  std::vector<float> all;
  for (const auto &[t, q] : by_t) all.insert(all.end(), q.begin(), q.end());
  std::printf("peptide: %zu trajectories, %zu frames in %.1f s\n", trajs.size(), all.size(), seconds);
  if (by_t.size() > 1)
    for (const auto &[t, q] : by_t) {
      char label[32];
      std::snprintf(label, sizeof label, "T=%g", t);
      line(label, q);
    }
  line("all", all);
}

void run(const Options &o_in) {
  Options o = o_in;
  if (!o.temperatures.empty()) o.sim.temperatures = o.temperatures;
  else if (o.temperature > 0) o.sim.temperatures = {o.temperature};
  const int n_test = int(std::lround(o.test_fraction * o.sim.trajectories));
  require(!(o.test_fraction > 0 && n_test == 0 && o.sim.trajectories > 1), "--test-fraction",
          "gives no test trajectory; use more --trajectories");
  require(n_test < o.sim.trajectories, "--test-fraction", "leaves no training trajectory");

  const Forcefield ff(ideal_helix(), o.ff);
  const auto start = std::chrono::steady_clock::now();
  std::vector<Trajectory> trajs;
  {
    Progress progress("peptide", int64_t(o.sim.trajectories) * o.sim.frames, o.quiet);
    trajs = run_trajectories(ff, o.sim, [&] { progress.add(); });
    progress.finish();
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  // Split by trajectory: the last n_test trajectories are the test set, so no
  // test frame is a time neighbour of a training frame; with the round-robin
  // temperatures of a sweep they cover the temperatures evenly.
  Split train, test;
  for (const Trajectory &t : trajs) append(t.index >= o.sim.trajectories - n_test ? test : train, t);

  make_directories(o.out);
  std::optional<Hdf5Writer> h5;
  if (o.hdf5) h5.emplace(o.out + "/peptide.h5");
  nlohmann::json files = write_split(o.out, "train", train, h5 ? &*h5 : nullptr);
  files.update(write_split(o.out, "test", test, h5 ? &*h5 : nullptr));
  if (h5) h5->close();

  nlohmann::json doc;
  doc["generator"] = "peptide";
  doc["version"] = "dx-datagen 0.1";
  doc["description"] = "Langevin folding trajectories of a 21-residue Calpha Go-model helix; 8 A contact maps "
                       "(21x21 zero-padded to 22x22, diagonal 1), fraction of native contacts Q, Kabsch RMSD";
  doc["units"] = {{"energy", "epsilon"}, {"length", "angstrom"}, {"mass", "bead mass = 1"},
                  {"time", "tau = angstrom * sqrt(mass / epsilon)"}, {"temperature", "k_B T in epsilon"}};
  doc["seed"] = o.sim.seed;
  doc["simulation"] = {{"trajectories", o.sim.trajectories},
                       {"frames_per_trajectory", o.sim.frames},
                       {"stride", o.sim.stride},
                       {"equilibration", o.sim.equilibration},
                       {"dt", o.sim.dt},
                       {"temperatures", o.sim.temperatures},
                       {"friction", o.sim.friction},
                       {"integrator", "Langevin BAOAB"},
                       {"start", "native helix, Maxwell-Boltzmann velocities"},
                       {"test_fraction", o.test_fraction},
                       {"test_trajectories", n_test},
                       {"split", "by trajectory: the last test_trajectories trajectories are the test set"}};
  doc["chain"] = {{"residues", kResidues},
                  {"bond_length", kBondLength},
                  {"native", "ideal alpha helix"},
                  {"helix_rise", kHelixRise},
                  {"helix_twist_deg", kHelixTwistDeg},
                  {"helix_radius", helix_radius()}};
  const ForcefieldParams &f = o.ff;
  doc["forcefield"] = {{"bond_k", f.bond_k},
                       {"angle_k", f.angle_k},
                       {"extended_angle_k", f.extended_angle_k},
                       {"extended_angle_deg", f.extended_angle_deg},
                       {"extended_angle_offset", f.extended_angle_offset},
                       {"angle_mixing", f.angle_mixing},
                       {"dihedral_k1", f.dihedral_k1},
                       {"dihedral_k3", f.dihedral_k3},
                       {"contact_epsilon", f.contact_epsilon},
                       {"repulsion_epsilon", f.repulsion_epsilon},
                       {"repulsion_sigma", f.repulsion_sigma},
                       {"contact_cutoff", f.contact_cutoff},
                       {"min_separation", f.min_separation},
                       {"cooperative_epsilon", f.cooperative_epsilon},
                       {"switch_factor", f.switch_factor},
                       {"switch_steepness", f.switch_steepness},
                       {"native_contacts", ff.contacts().size()}};
  doc["observables"] = {{"map_cutoff", kMapCutoff}, {"map_side", kMapSide}, {"map_diagonal", 1},
                        {"q_definition", "fraction of native contacts with r < q_factor * r_native"},
                        {"q_factor", kQFactor}, {"rmsd", "Calpha RMSD to the native helix after optimal "
                                                         "superposition (Kabsch), angstrom"}};
  doc["counts"] = {{"train_frames", train.frames()}, {"test_frames", test.frames()},
                   {"train_trajectories", o.sim.trajectories - n_test}, {"test_trajectories", n_test}};
  doc["files"] = files;
  doc["threads"] = resolve_threads(o.sim.threads);
  doc["seconds"] = seconds;
  write_sidecar(o.out + "/peptide.json", doc);

  print_summary(trajs, o.histogram, seconds);
  std::printf("wrote %s/{train,test}_{maps,q,rmsd,energy,temperature,trajectory}.npy and peptide.json "
              "(%lld train, %lld test frames)\n",
              o.out.c_str(), (long long)train.frames(), (long long)test.frames());
}

} // namespace

void add_peptide_command(CLI::App &app) {
  auto o = std::make_shared<Options>();
  auto *cmd = app.add_subcommand(
      "peptide", "Langevin folding trajectories of a 21-residue Go-model helix -> 22x22 contact maps, Q, RMSD "
                 "(docs/datagen-peptide.md)");
  cmd->add_option("--trajectories", o->sim.trajectories, "independent trajectories")
      ->check(positive())->capture_default_str();
  cmd->add_option("--frames", o->sim.frames, "frames recorded per trajectory")->check(positive())
      ->capture_default_str();
  cmd->add_option("--stride", o->sim.stride, "MD steps between frames")->check(positive())->capture_default_str();
  cmd->add_option("--equilibration", o->sim.equilibration, "MD steps before the first frame")
      ->check(non_negative())->capture_default_str();
  cmd->add_option("--dt", o->sim.dt, "time step (tau)")->check(positive())->capture_default_str();
  auto *t1 = cmd->add_option("--temperature", o->temperature, "temperature k_B T (epsilon); default " +
                                                                  std::to_string(o->sim.temperatures[0]).substr(0, 4))
                 ->check(positive());
  auto *tn = cmd->add_option("--temperatures", o->temperatures,
                             "sweep: comma-separated temperatures, trajectory k runs at T[k mod count]")
                 ->delimiter(',')->check(positive());
  t1->excludes(tn);
  cmd->add_option("--friction", o->sim.friction, "Langevin friction gamma (1/tau)")->check(positive())
      ->capture_default_str();
  cmd->add_option("--seed", o->sim.seed, "random seed")->capture_default_str();
  cmd->add_option("--threads", o->sim.threads, "worker threads (0 = all cores)")->check(non_negative())
      ->capture_default_str();
  cmd->add_option("--test-fraction", o->test_fraction, "fraction of the trajectories kept for the test set")
      ->check(CLI::Range(0.0, 0.9))->capture_default_str();
  cmd->add_option("-o,--output", o->out, "output directory")->capture_default_str();
  cmd->add_flag("--hdf5", o->hdf5,
                "also write every array to OUTPUT/peptide.h5 (/train/maps, /train/q, ..., /test/...; chunked, gzip) "
                "for format: hdf5");
  cmd->add_flag("--quiet,-q", o->quiet, "no progress lines");
  cmd->add_flag("--print-q-histogram", o->histogram, "print the Q histogram (per temperature in a sweep)");
  cmd->callback([o] { run(*o); });
}

} // namespace dxgen
