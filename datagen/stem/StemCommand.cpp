#include "Commands.h"

#include <CLI/CLI.hpp>
#include <stdexcept>

namespace dxgen {

void add_stem_command(CLI::App &app) {
  auto *cmd = app.add_subcommand("stem", "(being written)");
  cmd->callback([] { throw std::runtime_error("'stem' is being written"); });
}

} // namespace dxgen
