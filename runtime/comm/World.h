// The set of processes that train together. Under mpirun (or srun) this is
// MPI_COMM_WORLD; a plain run is a world of one that never starts MPI, so
// executables also run where no MPI launcher is set up. The driver never asks
// which: it calls these collectives, which are no-ops in a world of one.
#pragma once

#include <cstdint>
#include <string>

namespace dxrt {

class World {
public:
  // Starts the world: MPI_Init when a launcher started this process (its
  // environment says so), else a world of one. Safe to call once.
  static World &init(int *argc, char ***argv);
  static World &get();

  int rank() const { return rank_; }
  int size() const { return size_; }
  int local_rank() const { return local_rank_; } // rank among the processes on this node
  bool is_root() const { return rank_ == 0; }
  bool uses_mpi() const { return mpi_; }
  std::string name() const; // "rank 0 of 1"

  // In-place sums and maxima over all ranks. A failed MPI call throws
  // dxrt::Error naming the call and this rank.
  void allreduce_sum(float *data, int64_t n);
  void allreduce_sum(double *data, int64_t n);
  void allreduce_max(int64_t *data, int64_t n);
  // Non-blocking in-place sums (MPI_Iallreduce), for a gradient bucket
  // while the backward pass computes the rest: start_sum starts one,
  // progress lets MPI move the started ones along (Open MPI progresses
  // non-blocking collectives only inside MPI calls), wait_all returns when
  // all are done. No-ops in a world of one.
  void start_sum(float *data, int64_t n);
  void progress();
  void wait_all();
  void broadcast(void *data, int64_t bytes, int root);
  void barrier();
  // Ends every rank with this exit code (MPI_Abort under MPI): for errors
  // that only some ranks see, so that no rank waits forever in a collective.
  [[noreturn]] void abort(int code);
  // Ends this rank normally; every rank must call it (MPI_Finalize).
  void finalize();

private:
  int rank_ = 0, size_ = 1, local_rank_ = 0;
  bool mpi_ = false, finalized_ = false;
};

} // namespace dxrt
