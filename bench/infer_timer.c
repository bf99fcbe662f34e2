/* Times a model library (dxc compile --emit=lib) for bench/infer_vs_pytorch.sh:
 *   infer_timer WEIGHTS_DIR INPUTS.f32 N OUT.f32
 * N raw samples in INPUTS.f32 (N >= 256). Prints one JSON line: the median
 * latency of a one-sample predict (over 500 calls after 50 warm-up calls) and
 * the throughput of 256-sample predicts (best of 5 rounds of 8 calls), and
 * writes the outputs of the first 256 samples (batch 256) to OUT.f32. */
#include MODEL_HEADER

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  if (argc != 5) return fprintf(stderr, "usage: %s WEIGHTS_DIR INPUTS.f32 N OUT.f32\n", argv[0]), 2;
  const long long n = atoll(argv[3]);
  dx_model *m;
  if (dx_model_open(argv[1], 256, &m) != DX_OK) return fprintf(stderr, "%s\n", dx_model_last_error()), 1;
  const long long in = dx_model_input_floats(m);
  const int outs = dx_model_num_outputs(m);
  float *x = malloc(sizeof(float) * (size_t)(n * in));
  FILE *f = fopen(argv[2], "rb");
  if (!f || fread(x, sizeof(float), (size_t)(n * in), f) != (size_t)(n * in)) return fprintf(stderr, "read\n"), 1;
  fclose(f);
  float *o[8];
  for (int k = 0; k < outs; ++k) o[k] = malloc(sizeof(float) * 256 * (size_t)dx_model_output_floats(m, k));
  /* batch 1 */
  double lat[500];
  for (int i = 0; i < 550; ++i) {
    const double t0 = now();
    if (dx_model_predict(m, x + (i % n) * in, 1, o) != DX_OK) return fprintf(stderr, "%s\n", dx_model_error(m)), 1;
    if (i >= 50) lat[i - 50] = now() - t0;
  }
  qsort(lat, 500, sizeof(double), cmp);
  /* batch 256 */
  double best = 1e30;
  for (int r = 0; r < 6; ++r) {
    const double t0 = now();
    for (int i = 0; i < 8; ++i)
      if (dx_model_predict(m, x, 256, o) != DX_OK) return fprintf(stderr, "%s\n", dx_model_error(m)), 1;
    const double t = (now() - t0) / 8;
    if (r > 0 && t < best) best = t; /* round 0 is warm-up */
  }
  FILE *w = fopen(argv[4], "wb");
  fwrite(o[0], sizeof(float), 256 * (size_t)dx_model_output_floats(m, 0), w);
  fclose(w);
  printf("{\"side\": \"deepex\", \"latency_us\": %.2f, \"throughput\": %.1f}\n", lat[250] * 1e6, 256.0 / best);
  dx_model_close(m);
  return 0;
}
