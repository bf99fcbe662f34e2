// dx-analyze: analyses of the arrays a trained DeepEx executable writes with
// --export (docs/analyze.md).
//   dx-analyze contacts --logits test_recon.npy --maps test_maps.npy   contact-map reconstruction
//   dx-analyze latent --latent test_mu.npy --color test_q.npy          latent-space plot and classifier
//   dx-analyze atoms --logits test_logits.npy --columns test_columns.csv atom finding: precision, recall
#include "Commands.h"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>

int main(int argc, char **argv) {
  CLI::App app{"dx-analyze: analyses of a trained model's exported outputs (--export DIR writes "
               "DIR/<split>_<output>.npy)",
               "dx-analyze"};
  app.require_subcommand(1);
  app.footer("Examples (the protein-folding VAE, examples/protein-folding):\n"
             "  dx-analyze contacts --logits export/test_recon.npy --maps data/peptide/test_maps.npy\n"
             "  dx-analyze latent --latent export/test_mu.npy --color data/peptide/test_q.npy --svg latent.svg \\\n"
             "      --fit-latent export/train_mu.npy --fit-color data/peptide/train_q.npy\n"
             "Atom finding (examples/microscopy/atomfind.dx):\n"
             "  dx-analyze atoms --logits export/test_logits.npy --columns data/stem-atoms/test_columns.csv\n"
             "Reference: docs/analyze.md");
  int status = 0;
  dxan::add_contacts_command(app, status);
  dxan::add_latent_command(app, status);
  dxan::add_atoms_command(app, status);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &e) {
    return app.exit(e);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "dx-analyze: error: %s\n", e.what());
    return 1;
  }
  return status;
}
