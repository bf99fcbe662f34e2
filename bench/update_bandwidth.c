/* Memory bandwidth of a dxc-generated optimizer update (dx_update) against
 * memcpy, interleaved in one process. Linked against a model object from
 * `dxc compile MODEL.dx --emit=obj` (and libdxrt); run by
 * bench/update_bandwidth.sh, which documents the method.
 *
 *   update_bandwidth [--reps N] [--label NAME]
 *
 * Reads param_floats and state_slots from dx_model_metadata, allocates the
 * parameter, gradient and state arenas (docs/abi.md), fills them, then for
 * each of N reps times one dx_update call and one memcpy whose read + write
 * traffic equals the update's minimum traffic:
 *   update: reads params, grads and every state slot, writes params and every
 *           state slot: (2 + slots) + (1 + slots) floats per parameter
 *           (Adam: 7 x 4 bytes, SGD with momentum: 5 x 4 bytes);
 *   memcpy: of half that many bytes (it reads and writes each byte once).
 * Prints one line of key=value pairs: median (and best) wall times, GB/s of
 * both counted as read + write bytes / time, and their ratio.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../runtime/include/dxrt/abi.h"

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double cpu_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static long metadata_int(const char *key) {
  char pattern[64];
  snprintf(pattern, sizeof pattern, "\"%s\":", key);
  const char *p = strstr(dx_model_metadata, pattern);
  if (!p) {
    fprintf(stderr, "update_bandwidth: no %s in dx_model_metadata\n", key);
    exit(1);
  }
  return strtol(p + strlen(pattern), NULL, 10);
}

static float *alloc_floats(size_t n) {
  void *p = NULL;
  if (posix_memalign(&p, 64, n * sizeof(float) + 64) != 0) {
    fprintf(stderr, "update_bandwidth: cannot allocate %zu floats\n", n);
    exit(1);
  }
  return p;
}

static dx_memref_f32 view(float *p, size_t n) {
  dx_memref_f32 m = {p, p, 0, (int64_t)n, 1};
  return m;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double median(double *v, int n) {
  double *s = malloc(n * sizeof *s);
  memcpy(s, v, n * sizeof *s);
  qsort(s, n, sizeof *s, cmp_double);
  double m = n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
  free(s);
  return m;
}

static double minimum(const double *v, int n) {
  double m = v[0];
  for (int i = 1; i < n; ++i) m = v[i] < m ? v[i] : m;
  return m;
}

int main(int argc, char **argv) {
  int reps = 9;
  const char *label = "update";
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--label") && i + 1 < argc) label = argv[++i];
    else {
      fprintf(stderr, "usage: %s [--reps N] [--label NAME]\n", argv[0]);
      return 2;
    }
  }
  if (reps < 1) reps = 1;

  const size_t n = (size_t)metadata_int("param_floats");
  const size_t slots = (size_t)metadata_int("state_slots");
  const size_t read_floats = 2 + slots, write_floats = 1 + slots;
  const double traffic = (double)((read_floats + write_floats) * n * sizeof(float));
  const size_t copy_bytes = (size_t)(traffic / 2);

  float *params = alloc_floats(n), *grads = alloc_floats(n);
  float *state = alloc_floats(slots ? slots * n : 1);
  char *src = malloc(copy_bytes), *dst = malloc(copy_bytes);
  if (!src || !dst) {
    fprintf(stderr, "update_bandwidth: cannot allocate 2 x %zu bytes for memcpy\n", copy_bytes);
    return 1;
  }
  /* Touch every page (and keep values normal: no denormals, v > 0). */
  for (size_t i = 0; i < n; ++i) {
    params[i] = 0.01f * (float)(i % 97) - 0.5f;
    grads[i] = 0.001f * (float)(i % 89) + 0.01f;
  }
  for (size_t i = 0; i < slots * n; ++i) state[i] = 1e-3f * (float)(i % 83) + 1e-3f;
  memset(src, 1, copy_bytes);
  memset(dst, 2, copy_bytes);

  dx_memref_f32 p = view(params, n), g = view(grads, n), s = view(state, slots ? slots * n : 1);
  double *tu = malloc(reps * sizeof *tu), *tc = malloc(reps * sizeof *tc);
  double *cu = malloc(reps * sizeof *cu), *cc = malloc(reps * sizeof *cc);
  /* Step 1 is special for SGD with momentum (the buffer starts at the
   * gradient, so it is not read): warm up with it, time steps 2, 3, ... */
  _mlir_ciface_dx_update(&p, &g, &s, 1e-3f, 1);
  memcpy(dst, src, copy_bytes);
  for (int r = 0; r < reps; ++r) {
    double c0 = cpu_now(), t0 = now();
    _mlir_ciface_dx_update(&p, &g, &s, 1e-3f, 2 + r);
    double t1 = now(), c1 = cpu_now();
    __asm__ volatile("" ::: "memory");
    memcpy(dst, src, copy_bytes);
    __asm__ volatile("" ::: "memory");
    double t2 = now(), c2 = cpu_now();
    tu[r] = t1 - t0;
    tc[r] = t2 - t1;
    cu[r] = c1 - c0;
    cc[r] = c2 - c1;
    src[(size_t)r * 4096 % copy_bytes] ^= 1; /* the copies are not all alike */
  }
  double check = 0;
  for (size_t i = 0; i < n; i += 4099) check += params[i];
  for (size_t i = 0; i < copy_bytes; i += 4099) check += dst[i];

  double mu = median(tu, reps), mc = median(tc, reps);
  double bu = minimum(tu, reps), bc = minimum(tc, reps);
  printf("label=%s params=%zu slots=%zu reps=%d update_bytes=%.0f copy_bytes=%zu "
         "update_ms=%.2f update_best_ms=%.2f update_cpu_ms=%.2f update_gbs=%.2f "
         "copy_ms=%.2f copy_best_ms=%.2f copy_cpu_ms=%.2f copy_gbs=%.2f ratio=%.3f best_ratio=%.3f check=%g\n",
         label, n, slots, reps, traffic, copy_bytes, 1e3 * mu, 1e3 * bu, 1e3 * median(cu, reps),
         traffic / mu / 1e9, 1e3 * mc, 1e3 * bc, 1e3 * median(cc, reps), 2.0 * copy_bytes / mc / 1e9,
         (traffic / mu) / (2.0 * copy_bytes / mc), (traffic / bu) / (2.0 * copy_bytes / bc), check);
  free(params), free(grads), free(state), free(src), free(dst);
  free(tu), free(tc), free(cu), free(cc);
  return 0;
}
