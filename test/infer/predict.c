/* A C program using a model library (dxc compile --emit=lib), for
 * inference-lib.test: predict.c WEIGHTS_DIR INPUTS.f32 N BATCH OUT_PREFIX
 * reads N samples of raw float32 from INPUTS.f32, predicts them BATCH at a
 * time, and writes output k to OUT_PREFIX<k>.f32. Errors: the library's
 * message on stderr, exit 1. With WEIGHTS_DIR "-errors" it checks the
 * error paths instead.
 *
 * Built with -DPREDICT_DEVICE against the library of a --target=cuda model
 * (test/gpu/run.sh), it passes device memory instead: the inputs copied to
 * cudaMalloc'd memory first, the outputs written to cudaMalloc'd memory and
 * copied back. */
#include MODEL_HEADER

#ifdef PREDICT_DEVICE
#include <cuda_runtime_api.h>
#define CUDA(call)                                                                                                   \
  do {                                                                                                               \
    cudaError_t e_ = (call);                                                                                         \
    if (e_ != cudaSuccess) return fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e_)), 1;                     \
  } while (0)
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int errors(const char *good_dir) {
  dx_model *m = NULL;
  int rc = dx_model_open("/nonexistent-weights", 0, &m);
  printf("open missing: rc %d (%s) model %s: %s\n", rc, rc == DX_ERROR_FILE ? "DX_ERROR_FILE" : "?",
         m ? "set" : "null", dx_model_last_error());
  rc = dx_model_open(good_dir, -1, &m);
  printf("open max_batch -1: rc %d (%s)\n", rc, rc == DX_ERROR_ARGUMENT ? "DX_ERROR_ARGUMENT" : "?");
  if (dx_model_open(good_dir, 4, &m) != DX_OK) return printf("open: %s\n", dx_model_last_error()), 1;
  float x[1] = {0}, *outs[8] = {0};
  rc = dx_model_predict(m, x, -1, outs);
  printf("predict n -1: rc %d (%s): %s\n", rc, rc == DX_ERROR_ARGUMENT ? "DX_ERROR_ARGUMENT" : "?", dx_model_error(m));
  rc = dx_model_predict(m, x, 1, outs);
  printf("predict null output: rc %d (%s): %s\n", rc, rc == DX_ERROR_ARGUMENT ? "DX_ERROR_ARGUMENT" : "?",
         dx_model_error(m));
  rc = dx_model_predict(m, x, 0, outs);
  printf("predict 0 samples: rc %d\n", rc);
  printf("output -1: %lld floats\n", (long long)dx_model_output_floats(m, -1));
  dx_model_close(m);
  return 0;
}

int main(int argc, char **argv) {
  if (argc == 3 && strcmp(argv[1], "-errors") == 0) return errors(argv[2]);
  if (argc != 6) return fprintf(stderr, "usage: %s WEIGHTS_DIR INPUTS.f32 N BATCH OUT_PREFIX\n", argv[0]), 2;
  const long long n = atoll(argv[3]), batch = atoll(argv[4]);
  dx_model *m;
  if (dx_model_open(argv[1], batch, &m) != DX_OK) return fprintf(stderr, "%s\n", dx_model_last_error()), 1;
  const int64_t in = dx_model_input_floats(m);
  const int outputs = dx_model_num_outputs(m);
  printf("model %s: input %lld floats, %d outputs:", dx_model_name(m), (long long)in, outputs);
  for (int k = 0; k < outputs; ++k)
    printf(" %s[%lld]", dx_model_output_name(m, k), (long long)dx_model_output_floats(m, k));
  printf("\n");
  float *x = malloc(sizeof(float) * (size_t)(n * in));
  FILE *f = fopen(argv[2], "rb");
  if (!f || fread(x, sizeof(float), (size_t)(n * in), f) != (size_t)(n * in)) return fprintf(stderr, "cannot read %s\n", argv[2]), 1;
  fclose(f);
  float *outs[8];
  for (int k = 0; k < outputs; ++k) outs[k] = malloc(sizeof(float) * (size_t)(n * dx_model_output_floats(m, k)));
  float *xs = x, *ys[8];
  for (int k = 0; k < outputs; ++k) ys[k] = outs[k];
#ifdef PREDICT_DEVICE
  CUDA(cudaMalloc((void **)&xs, sizeof(float) * (size_t)(n * in)));
  CUDA(cudaMemcpy(xs, x, sizeof(float) * (size_t)(n * in), cudaMemcpyHostToDevice));
  for (int k = 0; k < outputs; ++k) CUDA(cudaMalloc((void **)&ys[k], sizeof(float) * (size_t)(n * dx_model_output_floats(m, k))));
#endif
  /* BATCH samples per call, as a simulation would call it each time step. */
  for (long long lo = 0; lo < n; lo += batch) {
    const long long b = lo + batch <= n ? batch : n - lo;
    float *at[8];
    for (int k = 0; k < outputs; ++k) at[k] = ys[k] + lo * dx_model_output_floats(m, k);
    if (dx_model_predict(m, xs + lo * in, b, at) != DX_OK) return fprintf(stderr, "%s\n", dx_model_error(m)), 1;
  }
#ifdef PREDICT_DEVICE
  for (int k = 0; k < outputs; ++k) {
    CUDA(cudaMemcpy(outs[k], ys[k], sizeof(float) * (size_t)(n * dx_model_output_floats(m, k)), cudaMemcpyDeviceToHost));
    CUDA(cudaFree(ys[k]));
  }
  CUDA(cudaFree(xs));
#endif
  for (int k = 0; k < outputs; ++k) {
    char path[4096];
    snprintf(path, sizeof path, "%s%d.f32", argv[5], k);
    FILE *o = fopen(path, "wb");
    fwrite(outs[k], sizeof(float), (size_t)(n * dx_model_output_floats(m, k)), o);
    fclose(o);
    free(outs[k]);
  }
  free(x);
  dx_model_close(m);
  return 0;
}
