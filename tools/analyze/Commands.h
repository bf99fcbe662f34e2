// dx-analyze's subcommands. Each add_* registers a CLI11 subcommand whose
// callback does the work; a callback reports a failed check (not an error:
// the inputs were fine) through `status`, which main() returns.
#pragma once

namespace CLI {
class App;
}

namespace dxan {

void add_contacts_command(CLI::App &app, int &status);
void add_latent_command(CLI::App &app, int &status);
void add_atoms_command(CLI::App &app, int &status);

} // namespace dxan
