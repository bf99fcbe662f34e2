/* The ABI between a dxc-generated model object and libdxrt.
 *
 * dxc compiles a .dx file into an object that exports the functions below
 * (MLIR's C interface: memref arguments are passed as pointers to
 * descriptors) plus a metadata string, and links it with libdxrt, which owns
 * main(): flags, data, the step loop, MPI, logging and checkpoints.
 *
 * All parameters of a model live in one flat f32 arena, in the order and at
 * the offsets the metadata lists; gradients use the same layout in a second
 * arena, so reductions and optimizer updates run over one contiguous block.
 * Non-learnable buffers (batchnorm running statistics) live in a third arena.
 * The optimizer state (momentum, Adam moments, ...) is `state_floats` floats
 * laid out as state_slots copies of the parameter arena.
 */
#ifndef DXRT_ABI_H
#define DXRT_ABI_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* MLIR's descriptor of a 1-D memref. */
typedef struct {
  float *allocated;
  float *aligned;
  int64_t offset;
  int64_t size;
  int64_t stride;
} dx_memref_f32;

typedef struct {
  int64_t *allocated;
  int64_t *aligned;
  int64_t offset;
  int64_t size;
  int64_t stride;
} dx_memref_i64;

/* The random stream of one step: dropout and randn_like draw from a
 * counter-based generator keyed by (seed, step, rank) and each op's stream. */
typedef struct {
  int64_t seed;
  int64_t step;
  int64_t rank;
} dx_rng_key;

/* JSON describing the model, its parameters and the train/dataset blocks;
 * see docs/abi.md. NUL-terminated. */
extern const char dx_model_metadata[];

/* One training step on a batch of `batch` samples: forward in training mode,
 * backward, and the loss (mean over the batch) as the return value.
 *   params     [param_floats]   read
 *   buffers    [buffer_floats]  read (running statistics)
 *   grads      [param_floats]   written: d loss / d params
 *   new_buffers[buffer_floats]  written: updated running statistics
 *   x          [batch * sample_floats] the batch, already normalised
 *   labels     [batch * label_elems]   class indices, one per sample or per pixel
 *                                      (ignored by models without labels)
 *   targets    [batch * target_floats] continuous targets (ignored by models without targets)
 */
float _mlir_ciface_dx_train_step(dx_memref_f32 *params, dx_memref_f32 *buffers, dx_memref_f32 *grads,
                                 dx_memref_f32 *new_buffers, dx_memref_f32 *x, dx_memref_i64 *labels,
                                 dx_memref_f32 *targets, int64_t batch, int64_t rng_seed, int64_t rng_step,
                                 int64_t rng_rank);

/* Evaluation on a batch (inference mode: running statistics, no dropout).
 * Returns the loss (mean over the batch) and writes the model's first output,
 * [batch * output_floats], to `outputs` (logits, for accuracy). */
float _mlir_ciface_dx_eval_step(dx_memref_f32 *params, dx_memref_f32 *buffers, dx_memref_f32 *x,
                                dx_memref_i64 *labels, dx_memref_f32 *targets, dx_memref_f32 *outputs,
                                int64_t batch);

/* The train block's learning-rate schedule: the rate of step `step` (from 1)
 * of a run of `epochs` epochs of `steps_per_epoch` steps, for base rate `base`. */
double _mlir_ciface_dx_learning_rate(double base, int64_t step, int64_t steps_per_epoch, int64_t epochs);

/* The optimizer update, fused over the whole parameter arena:
 * params -= f(grads, state) at learning rate `lr`; `step` counts from 1. */
void _mlir_ciface_dx_update(dx_memref_f32 *params, dx_memref_f32 *grads, dx_memref_f32 *state, float lr,
                            int64_t step);

#ifdef __cplusplus
}
#endif

#endif /* DXRT_ABI_H */
