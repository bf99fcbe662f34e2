#include "sema/Sema.h"

#include "sema/Elaborator.h"
#include "sema/Resolve.h"
#include "sema/TrainCheck.h"

namespace dx {

std::unique_ptr<Program> analyze(const std::string &path, SourceManager &sm, DiagnosticEngine &diags,
                                 const SemaOptions &opts) {
  auto prog = std::make_unique<Program>();
  if (!loadInto(prog->module, path, sm, diags, opts) || diags.hasErrors()) return prog;
  resolveNames(prog->module, diags);

  // The trained model first (with its loss), then the file's other models.
  checkDatasetsAndTrain(*prog, diags);
  for (const auto &fn : prog->module.main->funcs) {
    if (!fn->isModel) continue;
    bool done = false;
    for (const auto &m : prog->models) done |= m.decl == fn.get();
    if (done) continue;
    prog->models.push_back(CheckedModel{fn.get(), {}});
    Elaborator(prog->module, diags, prog->models.back().graph).elaborateModel(*fn);
  }
  return prog;
}

} // namespace dx
