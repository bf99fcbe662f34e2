#pragma once

#include "mlir/Pass/Pass.h"

#include <memory>

namespace dx {

// dx-simplify-compares: exact rewrites of comparisons against a clamp's own
// bound, in every function and every linalg.generic body:
//   maximumf(a, c) >  c   ->   a >  c      (cmpf ogt)
//   minimumf(a, c) <  c   ->   a <  c      (cmpf olt)
// and the mirrored forms (c < maximumf(a, c), c > minimumf(a, c)), with the
// clamp's operands in either order. Both sides agree for every a, NaN
// included (an ordered compare with NaN is false, and the clamp of NaN is
// NaN). After fusion, a relu's gradient mask recomputes the forward relu
// (maximumf(y, 0) > 0, LowerDx) and a NaN-propagating maximumf costs three
// vector instructions on x86 (max, unordered compare, blend) where the
// compare alone is one; the clamp goes away when nothing else reads it.
std::unique_ptr<mlir::Pass> createSimplifyComparesPass();
void registerSimplifyComparesPass();

} // namespace dx
