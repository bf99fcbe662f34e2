// The set of processes that train together. A plain run is a world of one;
// issue 4 adds an MPI implementation of this interface (World.cpp stays the
// single-process one, selected at build time), so the driver never asks
// whether MPI is there.
#pragma once

#include <cstdint>
#include <string>

namespace dxrt {

class World {
public:
  // Starts the world (MPI_Init under mpirun); argc/argv may be rewritten.
  static World &init(int *argc, char ***argv);
  static World &get();

  int rank() const { return rank_; }
  int size() const { return size_; }
  bool is_root() const { return rank_ == 0; }
  std::string name() const; // "rank 0 of 1"

  // In-place sums over all ranks (no-ops in a world of one).
  void allreduce_sum(float *data, int64_t n);
  void allreduce_sum(double *data, int64_t n);
  void barrier();
  // Ends every rank with this exit code (MPI_Abort under MPI).
  [[noreturn]] void abort(int code);
  void finalize();

private:
  int rank_ = 0, size_ = 1;
};

} // namespace dxrt
