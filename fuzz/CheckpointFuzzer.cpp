// libFuzzer harness for the checkpoint loaders (runtime/train/Checkpoint.cpp):
// Checkpointer::load, which --resume runs, and load_checkpoint_weights, which
// --from and dx_model_open run, for a model of 4 parameters, 2 buffer values
// and one optimizer slot, trained with batch 8 and seed 4, in a world of one
// rank.
//
// An input that starts with the rank files' magic "DXCKPT01" is the rank
// file step-*/rank-0000.ckpt less its last 4 bytes: the harness appends the
// CRC-32 the loader checks first, so that mutations reach the header and the
// arenas behind it (a file with a wrong CRC is refused, tested in
// test/mpi/resume.test). Any other input is the DONE marker, next to the
// fixture's valid rank file. The seeds (fuzz/corpus/checkpoint/, made by
// make_seeds.py) are the fixture's own files, with the metadata hash of kMeta.
#include "common/Check.h"
#include "model/Arenas.h"
#include "train/Checkpoint.h"
#include "ReaderFuzz.h"

#include <cstring>
#include <zlib.h>

namespace {

// make_seeds.py hashes the same text.
constexpr const char *kMeta = R"({"model":"fuzz","param_floats":4,"buffer_floats":2,"state_slots":1})";

struct Fixture {
  dxrt::Metadata meta;
  dxrt::RunConfig cfg;
  dxrt::World world; // a world of one; no MPI
  std::string step_dir, valid_done, valid_rank;

  Fixture() {
    meta.model = "fuzz";
    meta.json = kMeta;
    meta.param_floats = 4;
    meta.buffer_floats = 2;
    meta.state_slots = 1;
    cfg.per_rank_batch = 8;
    cfg.seed = 4;
    cfg.checkpoint_dir = (dxfuzz::scratch_dir() / "checkpoints").string();
    // The valid pair that each input replaces one of, as Checkpointer writes it.
    dxrt::Arenas a(meta, 1);
    dxrt::Progress p;
    p.step = 3;
    step_dir = dxrt::Checkpointer(meta, cfg, world).write(p, a);
    valid_done = dxfuzz::read_file(step_dir + "/DONE");
    valid_rank = dxfuzz::read_file(step_dir + "/rank-0000.ckpt");
  }
};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static Fixture f;
  const std::string input(reinterpret_cast<const char *>(data), size);
  std::string done = f.valid_done, rank = f.valid_rank;
  if (input.rfind("DXCKPT01", 0) == 0) {
    const uint32_t crc = uint32_t(crc32(0L, data, uInt(size)));
    rank = input + std::string(reinterpret_cast<const char *>(&crc), sizeof crc);
  } else {
    done = input;
  }
  dxfuzz::write_file(f.step_dir + "/DONE", done.data(), done.size());
  dxfuzz::write_file(f.step_dir + "/rank-0000.ckpt", rank.data(), rank.size());
  dxrt::Checkpointer ck(f.meta, f.cfg, f.world);
  dxrt::Arenas a(f.meta, 1);
  dxfuzz::allow_errors<dxrt::Error>([&] { ck.load(f.step_dir, a); });
  dxfuzz::allow_errors<dxrt::Error>([&] { dxrt::load_checkpoint_weights(f.meta, a, f.step_dir, "fuzz"); });
  return 0;
}
