// dx-datagen: generates the data of DeepEx's scientific workloads from
// physics, deterministically for a given seed (docs/datagen.md).
//   dx-datagen peptide -o data/peptide   folding trajectories -> contact maps, Q, RMSD
//   dx-datagen stem -o data/stem         HAADF-STEM images of 2-D crystals -> lattice class
//   dx-datagen cosmo -o data/cosmo       log-normal density volumes -> Omega_m, sigma_8, n_s, h
#include "Commands.h"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>

int main(int argc, char **argv) {
  CLI::App app{"dx-datagen: data of DeepEx's scientific workloads, generated from physics "
               "(deterministic for a seed; NPY arrays plus a JSON sidecar of every parameter)",
               "dx-datagen"};
  app.require_subcommand(1);
  dxgen::add_peptide_command(app);
  dxgen::add_stem_command(app);
  dxgen::add_cosmo_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &e) {
    return app.exit(e);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "dx-datagen: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
