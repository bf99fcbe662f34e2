// The checkpoint loaders on rank files whose header was rewritten (with a
// valid CRC, as another writer would make them): a field of the wrong JSON
// type is a corrupt file, not a json::type_error escaping the loader, nor an
// undefined conversion of 1e300 to int64_t (both seen with dx_checkpoint_fuzzer;
// fuzz/README.md, Findings). Resuming from good checkpoints is test/mpi/resume.test.
#include "ExpectError.h"
#include "TestUtil.h"
#include "model/Arenas.h"
#include "train/Checkpoint.h"

#include <gtest/gtest.h>
#include <cstring>
#include <zlib.h>

using namespace dxrt;
using dxtest::expect_error;
using dxtest::TempDir;

namespace {

struct CheckpointedRun {
  TempDir d;
  Metadata meta;
  RunConfig cfg;
  World world; // a world of one
  std::string step;

  CheckpointedRun() {
    meta.model = "m";
    meta.json = R"({"model":"m"})";
    meta.param_floats = 3;
    meta.state_slots = 1;
    cfg.checkpoint_dir = d / "ck";
    cfg.per_rank_batch = 8;
    cfg.seed = 1;
    Arenas a(meta, 1);
    Progress p;
    p.step = 5;
    step = Checkpointer(meta, cfg, world).write(p, a);
  }
  std::string rank_file() const { return step + "/rank-0000.ckpt"; }

  // Replaces `from` in the rank file's JSON header by `to`, keeping the
  // layout (magic, header length, header, arenas, CRC-32) valid.
  void edit_header(const std::string &from, const std::string &to) const {
    const std::vector<uint8_t> b = dxtest::read_bytes(rank_file());
    uint64_t len = 0;
    std::memcpy(&len, b.data() + 8, 8);
    const auto arenas = b.begin() + 16 + long(len);
    std::string head(b.begin() + 16, arenas);
    const size_t at = head.find(from);
    ASSERT_NE(at, std::string::npos) << head;
    head.replace(at, from.size(), to);
    std::vector<uint8_t> out(b.begin(), b.begin() + 8);
    len = head.size();
    out.insert(out.end(), reinterpret_cast<uint8_t *>(&len), reinterpret_cast<uint8_t *>(&len) + 8);
    out.insert(out.end(), head.begin(), head.end());
    out.insert(out.end(), arenas, b.end() - 4);
    const uint32_t crc = uint32_t(crc32(0L, out.data(), uInt(out.size())));
    out.insert(out.end(), reinterpret_cast<const uint8_t *>(&crc), reinterpret_cast<const uint8_t *>(&crc) + 4);
    dxtest::write_bytes(rank_file(), out);
  }
  Progress load() {
    Arenas a(meta, 1);
    return Checkpointer(meta, cfg, world).load(step, a);
  }
};

TEST(Checkpoint, LoadsWhatItWrote) {
  CheckpointedRun r;
  EXPECT_EQ(r.load().step, 5);
}

TEST(Checkpoint, MistypedHeaderFieldsAreCorrupt) {
  const struct {
    std::string from, to, error;
  } cases[] = {
      {"\"per_rank_batch\":8", "\"per_rank_batch\":\"8\"", "'per_rank_batch' is not an integer"},
      {"\"seed\":1", "\"seed\":1e300", "'seed' is not an integer"},
      {"\"rank\":0", "\"rank\":[0]", "'rank' is not an integer"},
      {"\"metadata_hash\":\"", "\"metadata_hash\":7,\"x\":\"", "'metadata_hash' is not a string"},
      {"\"epoch\":1,", "\"epoch\":1e300,", "'progress.epoch' is not an integer"},
      {"\"target_met\":false", "\"target_met\":0", "'progress.target_met' is not true or false"},
      {"\"lr\":", "\"lr\":\"fast\",\"x\":", "'progress.lr' is not a number"},
      {"\"progress\":", "\"progress\":[],\"x\":", "'progress' is not an object"},
  };
  for (const auto &c : cases) {
    CheckpointedRun r;
    r.edit_header(c.from, c.to);
    expect_error([&] { r.load(); }, {r.rank_file(), "is corrupt", c.error});
  }
}

// The weights of a checkpoint, for --from and dx_model_open, read the same header.
TEST(Checkpoint, MistypedHeaderFieldsAreCorruptForTheWeightsToo) {
  CheckpointedRun r;
  r.edit_header("\"sync\":\"allreduce\"", "\"sync\":5");
  Arenas a(r.meta, 1);
  expect_error([&] { load_checkpoint_weights(r.meta, a, r.step, "--from"); },
               {r.rank_file(), "is corrupt", "'sync' is not a string"});
}

} // namespace
