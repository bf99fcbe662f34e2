// Checkpoints: what a run needs to continue exactly where it stopped.
//
// Layout: DIR/step-000001876/ holds rank-0000.ckpt .. rank-(N-1).ckpt and,
// once every rank's file is on disk, DONE. Only a checkpoint with DONE is
// complete; resuming takes the newest complete one. Each file is written to
// a temporary name, fsync'ed and renamed, and the directory fsync'ed, so a
// crash at any moment leaves the previous checkpoints intact. After a new
// checkpoint is complete, rank 0 deletes all but the newest `keep`.
//
// A rank file: "DXCKPT01", a JSON header (model, metadata hash, ranks, rank,
// batch, seed, progress), the parameter, buffer and optimizer-state arenas,
// and a CRC-32 of everything before it. Resuming checks all of it and
// refuses a checkpoint of another model, rank count, batch or seed.
#pragma once

#include "comm/World.h"
#include "model/Arenas.h"
#include "model/Metadata.h"
#include "train/Config.h"
#include "train/Progress.h"

#include <string>
#include <vector>

namespace dxrt {

class Checkpointer {
public:
  Checkpointer(const Metadata &meta, const RunConfig &cfg, World &world);

  // Writes this rank's file and, once all ranks have, DONE. Collective.
  // Returns the checkpoint's directory.
  std::string write(const Progress &p, const Arenas &a);

  // The newest complete checkpoint in the checkpoint directory, as rank 0
  // sees it ("" when there is none). Collective.
  std::string newest();

  // Every complete checkpoint in the checkpoint directory, newest first, as
  // rank 0 lists it (empty when there is none, or no directory). Collective:
  // every rank gets rank 0's list.
  std::vector<std::string> complete();

  // What is wrong with this rank's part of the checkpoint at `path` ("" when
  // nothing is): its DONE marker unreadable or not JSON, its rank file
  // missing, truncated, or failing its magic, checksum or header. Not
  // collective, no exception. A checkpoint of another model or rank count
  // is not called corrupt here: load() refuses it with its reason.
  std::string damage(const std::string &path);

  // Reads this rank's part of the checkpoint at `path` into the arenas and
  // returns its progress. Throws dxrt::Error (collective when every rank
  // sees the same problem) when it does not belong to this run or is corrupt.
  Progress load(const std::string &path, Arenas &a);

  const std::string &dir() const { return dir_; }

private:
  void prune();
  const Metadata &meta_;
  const RunConfig &cfg_;
  World &world_;
  std::string dir_;
  uint64_t meta_hash_;
};

// The checkpoint a user named: `path` itself when it is one (has DONE), else
// the newest complete step-* directory in it. Throws dxrt::Error, `who`
// first ("--from", "dx_model_open").
std::string checkpoint_step_dir(const std::string &path, const char *who);

// The trained model of a checkpoint (parameters and buffers; not the
// optimizer state) into the arenas, for prediction: rank 0's under
// all-reduce, the ranks' average under local SGD (as the evaluation does).
// Refuses another model or another build of it. No MPI: any process may
// read any checkpoint. Returns the step directory read.
std::string load_checkpoint_weights(const Metadata &meta, Arenas &a, const std::string &path, const char *who);

// FNV-1a 64 of the metadata text: a checkpoint's model identity. The same
// for the model compiled with --target=cpu and --target=cuda.
uint64_t metadata_hash(const std::string &json);

} // namespace dxrt
