#pragma once

#include "mlir/Pass/Pass.h"

#include <memory>

namespace dx {

// dx-fuse-cheap-producers: after linalg-fuse-elementwise-ops (which fuses a
// producer only into its single user), an elementwise producer with several
// users is fused into all of them (recomputed in each) when that moves
// fewer tensors through memory: it is cheap (a few arith ops, no math
// function), every user is a linalg.generic it can fuse into, and
//   inputs * users < inputs + 1 + users
// (each user then reads the producer's inputs instead of its one result,
// and the producer's own pass, reads and write, goes away). The relu
// gradient feeding both sums and the input gradient of a batch norm is the
// case it is for: one pass over the activation fewer.
//
// Rule 2, per use, for producers that must stay (a library call such as a
// pooling reads them): a consumer that already reads every full-size input
// of the producer (those indexed by all its loops; the others are broadcast
// vectors) recomputes it instead of reading its result, when it is a dozen
// arith ops or fewer (square roots allowed: on a channel's variance they
// are hoisted out of the vector loop). A batch norm's backward sums and
// input gradient read the relu output only for its mask, and the batch
// norm's input x for x-hat: they then read dy and x, one activation fewer
// in each of the two passes.
//
// A producer that reads an input through an expression of its loop
// indices (a generated max pooling's gradient reads dy at h floordiv 2) may
// also compute a few integer ops on them (the pixel's position in its
// window), and such an input counts by its size against the result's (dy a
// quarter, the winners a sixteenth).
//
// Rule 3: a recomputable producer read only through strided slices of its
// result (a generated max pooling's window slices, GeneratedMaxPool.h),
// with at most one full-size input, runs on the same slices of its inputs
// instead, fused into each slice's user: its result is never written.
//
// A result whose producer has other results in use is not fused into its
// user (the fused op would recompute the whole producer).
std::unique_ptr<mlir::Pass> createFuseCheapProducersPass();
void registerFuseCheapProducersPass();

} // namespace dx
