// The single-core sgemm rate, the reference of bench/vs_pytorch.sh's
// "Fashion CNN step" line: one N x N x N single-precision GEMM
// (C = A B, row-major, no transposes; N = 1024 by default) on one thread, with
// oneDNN's dnnl_sgemm (what libdxrt's matrix products call,
// runtime/kernels/Blas.cpp) and with OpenBLAS's cblas_sgemm (libdxrt's
// DXRT_GEMM=openblas). One warm-up call of each, then R reps (default 5),
// each timing one oneDNN call and then one OpenBLAS call, so that both meet
// the same load; the rate of a library is 2 N^3 / its fastest rep.
//
//   cc -O2 -fopenmp -o sgemm_rate bench/sgemm_rate.c -ldnnl -lopenblas
//   OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 ./sgemm_rate [--n N] [--reps R] [--json] [--label S]
//
// Like libdxrt (runtime/kernels/Onednn.cpp), it limits oneDNN's OpenMP to one
// thread with omp_set_num_threads(1), and OpenBLAS with
// openblas_set_num_threads(1). A few entries of each product are checked
// against a dot product in double precision. The output is two lines of
// text, or with --json one JSON line (the --label string, the rates in
// GFLOP/s, the CPU time / wall time of each fastest rep, which is about 1 for
// one thread, OpenBLAS's kernel and the 1-minute load average afterwards).
#define _POSIX_C_SOURCE 200809L
#include <cblas.h>
#include <math.h>
#include <oneapi/dnnl/dnnl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if DNNL_CPU_THREADING_RUNTIME == DNNL_RUNTIME_OMP
#include <omp.h>
#endif

static double now(clockid_t clock) {
  struct timespec t;
  clock_gettime(clock, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

typedef struct {
  double best_s, best_cpu_s;
} Timing;

static void run_onednn(long n, const float *A, const float *B, float *C) {
  dnnl_status_t st = dnnl_sgemm('N', 'N', n, n, n, 1.0f, A, n, B, n, 0.0f, C, n);
  if (st != dnnl_success) {
    fprintf(stderr, "sgemm_rate: dnnl_sgemm failed (status %d)\n", (int)st);
    exit(1);
  }
}

static void run_openblas(long n, const float *A, const float *B, float *C) {
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)n, (int)n, (int)n, 1.0f, A, (int)n, B, (int)n, 0.0f,
              C, (int)n);
}

static void timed(void (*f)(long, const float *, const float *, float *), long n, const float *A, const float *B,
                  float *C, Timing *t) {
  double w0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_PROCESS_CPUTIME_ID);
  f(n, A, B, C);
  double w = now(CLOCK_MONOTONIC) - w0, c = now(CLOCK_PROCESS_CPUTIME_ID) - c0;
  if (w < t->best_s) {
    t->best_s = w;
    t->best_cpu_s = c;
  }
}

// A few entries of C = A B against a dot product in double precision.
static void check(const char *lib, long n, const float *A, const float *B, const float *C) {
  const long idx[][2] = {{0, 0}, {1, 7}, {n / 2, n / 3}, {n - 1, n - 1}, {n - 5, 3}};
  for (size_t k = 0; k < sizeof idx / sizeof idx[0]; ++k) {
    long i = idx[k][0], j = idx[k][1];
    double ref = 0, mag = 0;
    for (long p = 0; p < n; ++p) {
      ref += (double)A[i * n + p] * (double)B[p * n + j];
      mag += fabs((double)A[i * n + p] * (double)B[p * n + j]);
    }
    if (fabs((double)C[i * n + j] - ref) > 1e-4 * mag + 1e-6) {
      fprintf(stderr, "sgemm_rate: %s: C[%ld][%ld] = %g, expected %g\n", lib, i, j, (double)C[i * n + j], ref);
      exit(1);
    }
  }
}

static double load1(void) {
  double l = -1;
  FILE *f = fopen("/proc/loadavg", "r");
  if (f) {
    if (fscanf(f, "%lf", &l) != 1) l = -1;
    fclose(f);
  }
  return l;
}

int main(int argc, char **argv) {
  long n = 1024;
  int reps = 5, json = 0;
  const char *label = "";
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--n") == 0 && i + 1 < argc) n = atol(argv[++i]);
    else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) reps = atoi(argv[++i]);
    else if (strcmp(argv[i], "--label") == 0 && i + 1 < argc) label = argv[++i];
    else if (strcmp(argv[i], "--json") == 0) json = 1;
    else {
      fprintf(stderr, "usage: %s [--n N] [--reps R] [--json] [--label S]\n", argv[0]);
      return 2;
    }
  }
  if (n < 8 || n > 16384 || reps < 1) {
    fprintf(stderr, "sgemm_rate: want 8 <= N <= 16384 and R >= 1\n");
    return 2;
  }
  if (strpbrk(label, "\"\\")) { // written into the JSON line as it is
    fprintf(stderr, "sgemm_rate: the label may not contain '\"' or '\\'\n");
    return 2;
  }
  for (const char *const *v = (const char *const[]){"OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", NULL}; *v; ++v) {
    const char *s = getenv(*v);
    if (!s || strcmp(s, "1") != 0)
      fprintf(stderr, "sgemm_rate: note: %s is %s%s%s; one thread is set through the libraries' calls\n", *v,
              s ? "'" : "unset", s ? s : "", s ? "'" : "");
  }
#if DNNL_CPU_THREADING_RUNTIME == DNNL_RUNTIME_OMP
  omp_set_num_threads(1);
#endif
  openblas_set_num_threads(1);

  size_t elems = (size_t)n * (size_t)n;
  float *A = malloc(elems * sizeof *A), *B = malloc(elems * sizeof *B), *C = malloc(elems * sizeof *C);
  if (!A || !B || !C) {
    fprintf(stderr, "sgemm_rate: out of memory\n");
    return 1;
  }
  unsigned long s = 12345;
  for (size_t i = 0; i < elems; ++i) { // uniform in [-1, 1)
    s = s * 6364136223846793005UL + 1442695040888963407UL;
    A[i] = (float)((double)(s >> 40) / (double)(1UL << 23) - 1.0);
    s = s * 6364136223846793005UL + 1442695040888963407UL;
    B[i] = (float)((double)(s >> 40) / (double)(1UL << 23) - 1.0);
  }

  // Warm-up (oneDNN's kernel selection and buffers, OpenBLAS's threads and
  // buffers, the pages of C), checking each library's product once.
  run_onednn(n, A, B, C);
  check("dnnl_sgemm", n, A, B, C);
  memset(C, 0, elems * sizeof *C);
  run_openblas(n, A, B, C);
  check("cblas_sgemm", n, A, B, C);

  Timing d = {1e30, 0}, o = {1e30, 0};
  for (int r = 0; r < reps; ++r) {
    timed(run_onednn, n, A, B, C, &d);
    timed(run_openblas, n, A, B, C, &o);
  }
  double flop = 2.0 * (double)n * (double)n * (double)n;
  double dg = flop / d.best_s / 1e9, og = flop / o.best_s / 1e9;
  const dnnl_version_t *v = dnnl_version();
  const char *core = openblas_get_corename();
  if (json) {
    printf("{\"kind\": \"sgemm\", \"label\": \"%s\", \"n\": %ld, \"reps\": %d, \"onednn_gflops\": %.3f, "
           "\"onednn_cpu_per_wall\": %.3f, \"onednn_version\": \"%d.%d.%d\", \"openblas_gflops\": %.3f, "
           "\"openblas_cpu_per_wall\": %.3f, \"openblas_core\": \"%s\", \"load1\": %.2f}\n",
           label, n, reps, dg, d.best_cpu_s / d.best_s, v->major, v->minor, v->patch, og, o.best_cpu_s / o.best_s,
           core ? core : "", load1());
  } else {
    printf("sgemm %ldx%ldx%ld, one thread, best of %d: oneDNN %d.%d.%d dnnl_sgemm %.1f GFLOP/s (%.2f ms)\n", n, n, n,
           reps, v->major, v->minor, v->patch, dg, 1e3 * d.best_s);
    printf("sgemm %ldx%ldx%ld, one thread, best of %d: OpenBLAS (%s) cblas_sgemm %.1f GFLOP/s (%.2f ms)\n", n, n, n,
           reps, core ? core : "?", og, 1e3 * o.best_s);
  }
  free(A);
  free(B);
  free(C);
  return 0;
}
