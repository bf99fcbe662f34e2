#pragma once

#include "mlir/Pass/Pass.h"

#include <memory>

namespace dx {

// dx-interleave-accumulators{vector-bits=N}: after dx-vectorize-cpu, an
// innermost scf.for whose every iteration argument is a vector accumulator
// (one associative, commutative combine per iteration, `acc = acc + t`,
// max, min or product, whose result only the yield reads) runs K copies of
// its body per iteration, each combining into its own partial accumulator
// (the first from the loop's initial value, the others from the kind's
// neutral element). After that loop the K partials are combined into one,
// and the original loop runs the remaining iterations (fewer than K) from
// there.
//
// Why: a single accumulator is a chain of dependent vector adds. A floating
// add takes 3-4 cycles, so a loop that reads one or two registers of data
// per add runs at the add's latency, not at the loads' rate: measured on one
// core of the AVX-512 EPYC, a [64, 2, 784, 16] batch norm's sum and sum of
// squares read 56-60 GB/s from L2 or L3 with one accumulator per register
// and 100-155 GB/s with two to four (and 37 -> 44 GB/s from DRAM).
//
// K: enough copies that the loads, not the chain, bound the loop (about 8
// register loads per add in flight: K = 8 / the registers the body loads,
// at most 4), and no more than the register file (16 registers at 256 bits,
// 32 at 512) holds next to what the body loads and the vectors it reads
// from outside the loop: spilled partials would chain through memory. Only the order of the combination
// changes, which the vector builds allow (their sums are reassociated
// already, fast-math `reassoc`); builds that sum in program order
// (--strict-fp, --emulate-gpu) run neither this pass nor dx-vectorize-cpu.
std::unique_ptr<mlir::Pass> createInterleaveAccumulatorsPass(int64_t vectorBits = 256);
void registerInterleaveAccumulatorsPass();

} // namespace dx
