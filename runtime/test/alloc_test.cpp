// Heap allocations on the training step's data path: gathering a batch,
// augmentation included, allocates nothing once its scratch has grown to
// the batch's size; a matrix product after the first of its shape allocates
// only what oneDNN allocates inside each call. The step loop's zero-allocation promise
// (bench/alloc_per_step.sh) depends on it. This program replaces the global
// operator new to count, so it is a program of its own.
#include "data/Augment.h"
#include "data/Dataset.h"
#include "data/Order.h"
#include "kernels/Blas.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>
#include <numeric>

namespace {
std::atomic<int64_t> allocations{0};
}

// The replacements below pair malloc with free; GCC, seeing `delete` inline
// an operator new of its own, warns of a mismatch that is not there.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"

void *operator new(size_t n) {
  ++allocations;
  if (void *p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void operator delete(void *p) noexcept { std::free(p); }
void operator delete(void *p, size_t) noexcept { std::free(p); }

using namespace dxrt;

namespace {

// Allocations made by f.
template <class F> int64_t allocations_of(F &&f) {
  const int64_t before = allocations.load();
  f();
  return allocations.load() - before;
}

// A training split of 3-D samples [2, 4, 4, 4] with per-voxel labels and
// per-voxel targets [3, 4, 4, 4], augmented with flips and permutations.
Split augmented_volumes(int64_t n) {
  DatasetSpec spec;
  spec.format = "npy";
  spec.sample = {2, 4, 4, 4};
  spec.augment = {"flip", "transpose"};
  spec.train = {"x.npy", "y.npy"};
  spec.classes = 5;
  spec.label_shape = {4, 4, 4};
  Split sp;
  sp.n = n;
  sp.sample_floats = 128;
  sp.x.resize(size_t(n * 128));
  std::iota(sp.x.begin(), sp.x.end(), 0.0f);
  sp.has_labels = true;
  sp.label_elems = 64;
  sp.y.assign(size_t(n * 64), 1);
  sp.augment = std::make_shared<const ArrayAugment>(*array_augment(spec));
  EXPECT_EQ(sp.augment->label_maps, 1);
  return sp;
}

} // namespace

TEST(Allocations, TheCounterCountsThem) {
  EXPECT_GE(allocations_of([] { delete new std::vector<int>(3); }), 2);
}

TEST(Allocations, GatheringAnAugmentedBatchAllocatesNothing) {
  Split sp = augmented_volumes(64);
  std::vector<int64_t> order(size_t(sp.n));
  std::iota(order.begin(), order.end(), 0);
  std::vector<float> x(size_t(16 * 128));
  std::vector<int64_t> y(size_t(16 * 64));
  gather(sp, order, 0, 16, x.data(), y.data(), nullptr, AugmentKey{3, 1}); // grows the scratch
  const std::vector<float> first(x.begin(), x.end());
  int64_t n = allocations_of([&] {
    for (int64_t epoch = 1; epoch <= 4; ++epoch)
      for (int64_t lo = 0; lo < sp.n; lo += 16)
        gather(sp, order, lo, lo + 16, x.data(), y.data(), nullptr, AugmentKey{3, epoch});
  });
  EXPECT_EQ(n, 0) << "allocations while gathering 16 augmented batches";
  gather(sp, order, 0, 16, x.data(), y.data(), nullptr, AugmentKey{3, 1});
  EXPECT_EQ(x, first) << "the same key draws the same transforms";
  EXPECT_NE(x, std::vector<float>(sp.x.begin(), sp.x.begin() + 16 * 128)) << "some samples were transformed";
}

// oneDNN allocates inside each call, which no API avoids: dnnl_sgemm its
// packing buffers, dnnl_primitive_execute its map of arguments (2-6 small
// blocks). What DeepEx controls is that a product's primitive is made once
// per shape and then reused: making one allocates hundreds of times.
TEST(Allocations, AProductReusesWhatItsFirstCallMade) {
  blas_init();
  const int64_t M = 64, N = 96, K = 200;
  std::vector<float> a(size_t(M * K), 0.5f), b(size_t(K * N), 0.25f), c(size_t(M * N));
  for (bool ta : {false, true})
    for (bool tb : {false, true}) {
      const int64_t lda = ta ? M : K, ldb = tb ? K : N;
      auto product = [&] { sgemm(ta, tb, M, N, K, 1.0f, a.data(), lda, b.data(), ldb, 0.0f, c.data(), N); };
      product();
      const int64_t one = allocations_of(product), five = allocations_of([&] {
        for (int i = 0; i < 5; ++i) product();
      });
      EXPECT_LE(one, 8) << "allocations in a product after the first, ta " << ta << " tb " << tb;
      EXPECT_EQ(five, 5 * one) << "ta " << ta << " tb " << tb;
      EXPECT_FLOAT_EQ(c[0], 0.5f * 0.25f * K);
    }
}
