/* Running a trained DeepEx model from C, C++ or Fortran (docs/inference.md).
 *
 *   dxc compile model.dx --emit=lib -o libmodel.a      (or -o libmodel.so: a shared library)
 *
 * writes libmodel.a (the compiled model) next to model.h (this API plus the
 * model's sizes as constants), model.f90 (a Fortran module over this API,
 * iso_c_binding) and model.pc (pkg-config: the link line, libdxrt included).
 * A program links one DeepEx model.
 *
 *   dx_model *m;
 *   if (dx_model_open("trained/", 0, &m) != DX_OK) { puts(dx_model_last_error()); ... }
 *   float *outs[] = {logits};                 // one buffer per output
 *   dx_model_predict(m, x, n, outs);          // x: n samples, as the dataset stores them
 *   dx_model_close(m);
 *
 * Weights come from a directory written by `./model --save-weights DIR` (or
 * tools/weights/dx_weights.py from a PyTorch state_dict). Inputs are raw
 * samples, as the dataset files hold them: predict applies the dataset
 * block's normalisation (transform, scale, mean, std) first, as training did.
 * Outputs are the model's outputs in inference mode (running statistics, no
 * dropout), one buffer of n * dx_model_output_floats(m, k) floats each.
 *
 * Errors are return codes; dx_model_error(m) (or dx_model_last_error() when
 * there is no model yet) says what and where. Nothing here calls exit().
 * Contexts are independent: predict may run concurrently on different
 * contexts from different threads (not on one context from two threads).
 * Memory is allocated by open and by the first predict at a batch size up to
 * max_batch; later predicts allocate no buffer (oneDNN, on the CPU, still
 * allocates a few small blocks inside each of its calls).
 *
 * A model compiled with --target=cuda makes a library that runs on the GPU
 * (the one the executable would pick: the only visible one, else the MPI
 * local rank's): open copies the weights to it, and x and each outputs[k]
 * may each be host or device (cudaMalloc) memory. Device inputs are copied
 * to the host to be normalised, and outputs are copied to where outputs[k]
 * points; predict returns when they are there. Predictions of a CUDA build
 * run one at a time in a process (its kernels share one stream), whatever
 * the context. Without a usable GPU, open fails (DX_ERROR_INTERNAL); it
 * never falls back to the CPU.
 */
#ifndef DXRT_INFER_H
#define DXRT_INFER_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct dx_model dx_model;

enum {
  DX_OK = 0,
  DX_ERROR_FILE = 1,     /* a missing or unreadable weights directory or file */
  DX_ERROR_WEIGHTS = 2,  /* weights that do not belong to this model (name, shape, non-finite values) */
  DX_ERROR_ARGUMENT = 3, /* a null pointer, a negative count, an output index out of range */
  DX_ERROR_INPUT = 4,    /* an input that is not finite after normalisation */
  DX_ERROR_INTERNAL = 5  /* anything else (out of memory, no GPU for a CUDA build) */
};

/* Opens the model with the weights in weights_dir: a --save-weights
 * directory (index.json), or a checkpoint (a step-* directory with DONE, or
 * a --checkpoint-dir: its newest complete checkpoint). max_batch: the largest
 * number of samples evaluated at once (predict splits larger n into chunks
 * of it); 0 means 256. */
int dx_model_open(const char *weights_dir, int64_t max_batch, dx_model **out);
void dx_model_close(dx_model *m);

/* The message of the last failed call on m, or "" (valid until the next call on m). */
const char *dx_model_error(const dx_model *m);
/* The message of the last failed dx_model_open on this thread. */
const char *dx_model_last_error(void);

const char *dx_model_name(const dx_model *m);
int64_t dx_model_input_floats(const dx_model *m);        /* floats of one input sample */
int dx_model_input_rank(const dx_model *m);              /* dims of one sample */
int64_t dx_model_input_dim(const dx_model *m, int d);    /* dim d of one sample */
int dx_model_num_outputs(const dx_model *m);
const char *dx_model_output_name(const dx_model *m, int k);
int64_t dx_model_output_floats(const dx_model *m, int k); /* floats of output k for one sample (-1: no such output) */
int dx_model_output_rank(const dx_model *m, int k);
int64_t dx_model_output_dim(const dx_model *m, int k, int d);

/* Evaluates n samples: x holds n * dx_model_input_floats(m) floats, sample
 * after sample (C order, as the dataset files hold them); outputs[k]
 * receives n * dx_model_output_floats(m, k) floats. n may be 0. In a CUDA
 * build x and outputs[k] may point to device memory (the array outputs
 * itself is host memory). */
int dx_model_predict(dx_model *m, const float *x, int64_t n, float *const *outputs);

#ifdef __cplusplus
}
#endif

#endif /* DXRT_INFER_H */
