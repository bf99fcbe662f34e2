#include "Commands.h"

#include <CLI/CLI.hpp>
#include <stdexcept>

namespace dxgen {

void add_peptide_command(CLI::App &app) {
  auto *cmd = app.add_subcommand("peptide", "(being written)");
  cmd->callback([] { throw std::runtime_error("'peptide' is being written"); });
}

} // namespace dxgen
