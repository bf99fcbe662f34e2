// MPI_COMM_WORLD, or a world of one when no launcher started this process.
//
// MPI is started only when the environment shows a launcher (Open MPI's
// mpirun, PMI/PMIx as srun and MPICH's Hydra set them): a singleton MPI_Init
// would spawn helper daemons and can stall on machines without a network, and
// a plain run must start instantly.
#include "comm/World.h"

#include "comm/Watchdog.h"
#include "common/Check.h"

#include <cstdio>
#include <cstdlib>
#include <limits>
#include <vector>
// The C API only: keep mpi.h from pulling in the C++ bindings (libmpi_cxx).
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

namespace dxrt {

static World g_world;

static bool launched_by_mpi() {
  for (const char *v : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE", "MPI_LOCALNRANKS"})
    if (std::getenv(v)) return true;
  return false;
}

// Throws dxrt::Error when an MPI call failed (errors return, they do not abort:
// MPI_ERRORS_RETURN is set on the world communicator).
static void check_mpi(int rc, const char *call, const World &w) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, text, &len);
  throw Error(str(call, " failed on ", w.name(), ": ", std::string(text, size_t(len))),
              "another rank probably failed first; look for its message above", __FILE__, __LINE__);
}

World &World::init(int *argc, char ***argv) {
  World &w = g_world;
  if (w.mpi_ || !launched_by_mpi()) return w;
  int provided = 0;
  if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
    std::fprintf(stderr, "dxrt: error: MPI_Init failed; this process was started by an MPI launcher but MPI could not "
                         "start\n");
    std::exit(kExitError);
  }
  w.mpi_ = true;
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, &w.rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &w.size_);
  // The local rank picks a GPU; ranks that share memory form a node.
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, w.rank_, MPI_INFO_NULL, &node);
  MPI_Comm_rank(node, &w.local_rank_);
  MPI_Comm_free(&node);
  return w;
}

World &World::get() { return g_world; }

std::string World::name() const { return str("rank ", rank_, " of ", size_); }

// MPI counts are int: large arrays go in pieces of at most 2^30 elements.
template <typename T> static void allreduce(T *data, int64_t n, MPI_Datatype type, MPI_Op op, const World &w) {
  constexpr int64_t kPiece = int64_t(1) << 30;
  for (int64_t i = 0; i < n; i += kPiece) {
    int count = int(std::min(kPiece, n - i));
    CommWait wait("MPI_Allreduce");
    check_mpi(MPI_Allreduce(MPI_IN_PLACE, data + i, count, type, op, MPI_COMM_WORLD), "MPI_Allreduce", w);
  }
}

void World::allreduce_sum(float *data, int64_t n) {
  if (size_ > 1) allreduce(data, n, MPI_FLOAT, MPI_SUM, *this);
}
void World::allreduce_sum(double *data, int64_t n) {
  if (size_ > 1) allreduce(data, n, MPI_DOUBLE, MPI_SUM, *this);
}
void World::allreduce_max(int64_t *data, int64_t n) {
  if (size_ > 1) allreduce(data, n, MPI_INT64_T, MPI_MAX, *this);
}

// The started non-blocking sums (one world per process, main thread only).
static std::vector<MPI_Request> g_requests;

void World::start_sum(float *data, int64_t n) {
  if (size_ == 1) return;
  constexpr int64_t kPiece = int64_t(1) << 30;
  for (int64_t i = 0; i < n; i += kPiece) {
    g_requests.push_back(MPI_REQUEST_NULL);
    check_mpi(MPI_Iallreduce(MPI_IN_PLACE, data + i, int(std::min(kPiece, n - i)), MPI_FLOAT, MPI_SUM,
                             MPI_COMM_WORLD, &g_requests.back()),
              "MPI_Iallreduce", *this);
  }
}

void World::progress() {
  if (g_requests.empty()) return;
  int flag = 0;
  check_mpi(MPI_Testall(int(g_requests.size()), g_requests.data(), &flag, MPI_STATUSES_IGNORE), "MPI_Testall",
            *this);
}

void World::wait_all() {
  if (g_requests.empty()) return;
  CommWait wait("MPI_Waitall (the gradients' all-reduce)");
  const int rc = MPI_Waitall(int(g_requests.size()), g_requests.data(), MPI_STATUSES_IGNORE);
  g_requests.clear();
  check_mpi(rc, "MPI_Waitall", *this);
}

void World::broadcast(void *data, int64_t bytes, int root) {
  if (size_ == 1) return;
  DXRT_CHECK(bytes <= std::numeric_limits<int>::max(), str("broadcast of ", bytes, " bytes"), "");
  CommWait wait("MPI_Bcast");
  check_mpi(MPI_Bcast(data, int(bytes), MPI_BYTE, root, MPI_COMM_WORLD), "MPI_Bcast", *this);
}

void World::barrier() {
  if (size_ == 1) return;
  CommWait wait("MPI_Barrier");
  check_mpi(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier", *this);
}

void World::abort(int code) {
  std::fflush(stdout);
  std::fflush(stderr);
  if (mpi_ && size_ > 1 && !finalized_) MPI_Abort(MPI_COMM_WORLD, code);
  if (mpi_ && !finalized_) MPI_Finalize();
  std::exit(code);
}

void World::finalize() {
  if (!mpi_ || finalized_) return;
  finalized_ = true;
  MPI_Finalize();
}

} // namespace dxrt
