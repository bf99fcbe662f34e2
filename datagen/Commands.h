// The subcommands of dx-datagen. Each adds itself to the app with its
// options and a callback that generates the data; errors are thrown as
// std::runtime_error (or CLI::ValidationError for option values) and main
// turns them into a message and exit status 1.
#pragma once

namespace CLI {
class App;
}

namespace dxgen {

void add_peptide_command(CLI::App &app);
void add_stem_command(CLI::App &app);
void add_cosmo_command(CLI::App &app);

} // namespace dxgen
