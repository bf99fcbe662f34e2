// The device backend (CudaBackend.cpp, reached through make_cuda_backend)
// against the host backend's semantics (model/Backend.h, Backend.cpp), on the
// hand-written device model of fake_device_model.cu: the training loop's
// device side, checked without the compiler. The expected values come from
// the model's formulas run on the host (the host twin); the gradients are
// read through the backend's own path (update at lr 0 copies them into
// state slot 1, download_model brings the state up).
//
// Suites NoDevice and HostTwin run anywhere (CTest: dxrt_cuda_backend_nodevice);
// the CudaBackend* suites need a GPU (test/gpu/run.sh, one process per suite).
#include "GpuTestUtil.h"
#include "fake_device_model.h"

#include "common/Check.h"
#include "comm/World.h"
#include "dxrt/abi.h"
#include "model/Arenas.h"
#include "model/Backend.h"
#include "model/Metadata.h"
#include "train/ModelSync.h"

#include <cstring>
#include <iterator>
#include <limits>
#include <memory>
#include <string>
#include <vector>

using namespace fake;
using dxrt::Arenas;
using dxtest::expect_close;
using dxtest::expect_same;
using Vec = std::vector<float>;

namespace {

constexpr int64_t kMaxBatch = 8;

const dxrt::Metadata &meta() {
  static const dxrt::Metadata m = dxrt::parse_metadata(dx_model_metadata);
  return m;
}

bool have_device() {
  int count = 0;
  const bool ok = cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
  cudaGetLastError();
  return ok;
}

void fill(dxrt::Floats &v, unsigned seed) {
  const Vec r = dxtest::random_floats(v.size(), seed);
  std::copy(r.begin(), r.end(), v.begin());
}

// b samples into the loading dock, as the data loader leaves them.
void load_batch(Arenas &a, int64_t b, unsigned seed) {
  const Vec x = dxtest::random_floats(size_t(b * kIn), seed, -2.0f, 2.0f);
  std::copy(x.begin(), x.end(), a.x.begin());
  for (int64_t i = 0; i < b; ++i) a.labels[size_t(i)] = int64_t(seed + unsigned(i)) % kClasses;
}

Vec slice(const dxrt::Floats &f, int64_t from, int64_t n) { return Vec(f.begin() + from, f.begin() + from + n); }

// The host twin of a train step on the batch in `a`.
struct Step {
  float loss;
  Vec grads, new_buffers;
};
Step host_train(const Vec &p, const Vec &buf, const Arenas &a, int64_t b) {
  Step s{loss(p.data(), buf.data(), a.x.data(), a.labels.data(), b), Vec(kParams), Vec(kBuffers)};
  for (int64_t t = 0; t < kParams; ++t)
    s.grads[size_t(t)] = grad(p.data(), buf.data(), a.x.data(), a.labels.data(), b, t);
  for (int64_t k = 0; k < kBuffers; ++k) s.new_buffers[size_t(k)] = new_buffer(buf.data(), a.x.data(), b, k);
  return s;
}

// Float sums in another order (and FMA on the device): close, not equal. A
// wrong slice or batch is off by far more.
constexpr double kRel = 1e-4;
void expect_loss(float got, float want) { EXPECT_NEAR(got, want, kRel * std::max(1.0f, std::fabs(want))); }

Vec axpy2(float w1, const Vec &x1, float w2, const Vec &x2) {
  Vec y(x1.size());
  for (size_t i = 0; i < y.size(); ++i) y[i] = w1 * x1[i] + w2 * x2[i];
  return y;
}

// ---- runs anywhere ----

TEST(NoDevice, MakingTheBackendIsAClearError) {
  // A weak reference (model/Backend.h): linked only by -u dxrt_cuda_backend_link.
  ASSERT_NE(dxrt::make_cuda_backend, nullptr);
  if (have_device()) GTEST_SKIP() << "this machine has a CUDA device";
  Arenas a(meta(), kMaxBatch);
  try {
    dxrt::make_cuda_backend(meta(), a, dxrt::World::get(), 1);
    FAIL() << "make_cuda_backend succeeded without a device";
  } catch (const dxrt::Error &e) {
    EXPECT_NE(std::string(e.what()).find("no CUDA device"), std::string::npos) << e.what();
  }
}

TEST(HostTwin, MetadataMatchesTheModel) {
  const dxrt::Metadata &m = meta();
  EXPECT_EQ(m.target, "cuda");
  EXPECT_EQ(m.input.floats, kIn);
  EXPECT_EQ(m.param_floats, kParams);
  EXPECT_EQ(m.buffer_floats, kBuffers);
  EXPECT_EQ(m.state_slots, kSlots);
  EXPECT_EQ(m.output_floats(), kOutFloats);
  Arenas a(m, kMaxBatch);
  EXPECT_EQ(int64_t(a.state.size()), kSlots * kParams);
  EXPECT_EQ(int64_t(a.outputs.size()), kMaxBatch * kOutFloats);
}

// The loss is quadratic in the parameters: central differences are its
// derivative up to rounding, so the formulas the device runs are right.
TEST(HostTwin, GradientIsTheLossDerivative) {
  Arenas a(meta(), kMaxBatch);
  load_batch(a, 5, 3);
  Vec p = dxtest::random_floats(kParams, 1), buf = dxtest::random_floats(kBuffers, 2);
  const Step s = host_train(p, buf, a, 5);
  const float h = 1e-2f;
  for (int64_t t = 0; t < kParams; ++t) {
    Vec hi = p, lo = p;
    hi[size_t(t)] += h;
    lo[size_t(t)] -= h;
    const float fd = (loss(hi.data(), buf.data(), a.x.data(), a.labels.data(), 5) -
                      loss(lo.data(), buf.data(), a.x.data(), a.labels.data(), 5)) /
                     (hi[size_t(t)] - lo[size_t(t)]);
    EXPECT_NEAR(s.grads[size_t(t)], fd, 2e-3) << "parameter " << t;
  }
  EXPECT_EQ(new_buffer(buf.data(), a.x.data(), 0, 1), buf[1]); // an empty batch keeps the statistics
}

// ---- need a GPU ----

class CudaBackendTest : public testing::Test {
protected:
  void SetUp() override { make(1); }

  // A fresh backend with a random model uploaded (optimizer state zero).
  void make(int64_t accumulate) {
    be_.reset();
    be_ = dxrt::make_cuda_backend(meta(), a_, dxrt::World::get(), accumulate);
    fill(a_.params, 11);
    fill(a_.buffers, 12);
    std::fill(a_.state.begin(), a_.state.end(), 0.0f);
    be_->upload_model(a_);
    p0_ = slice(a_.params, 0, kParams);
    buf0_ = slice(a_.buffers, 0, kBuffers);
  }

  // The device gradients: update at lr 0 copies them into state slot 1 and
  // leaves the parameters as they are.
  Vec grads() {
    be_->update(a_, 0.0f, 1);
    be_->download_model(a_);
    return slice(a_.state, kParams, kParams);
  }
  // The device's new buffers, committed.
  Vec committed_buffers() {
    be_->commit_buffers(a_);
    be_->download_model(a_);
    return slice(a_.buffers, 0, kBuffers);
  }
  Vec params() {
    be_->download_model(a_);
    return slice(a_.params, 0, kParams);
  }

  Arenas a_{meta(), kMaxBatch};
  std::unique_ptr<dxrt::Backend> be_;
  Vec p0_, buf0_; // the model as uploaded
};

// One suite per concern, each run in its own process by test/gpu/run.sh.
using CudaBackendModel = CudaBackendTest;
using CudaBackendStep = CudaBackendTest;
using CudaBackendArithmetic = CudaBackendTest;
using CudaBackendSlots = CudaBackendTest;
using CudaBackendWorld = CudaBackendTest;

TEST_F(CudaBackendModel, DescribeNamesTheDeviceAndArena) {
  const std::string d = be_->describe();
  EXPECT_NE(d.find("device arena"), std::string::npos) << d;
  EXPECT_EQ(d.find("NCCL"), std::string::npos) << d; // a world of one has no communicator
}

// Checkpoints depend on it: every bit comes back, NaN payloads and -0 included.
TEST_F(CudaBackendModel, UploadDownloadRoundTripsBitExactly) {
  fill(a_.params, 21);
  fill(a_.buffers, 22);
  fill(a_.state, 23);
  const float odd[] = {-0.0f, std::numeric_limits<float>::quiet_NaN(), -std::numeric_limits<float>::infinity(),
                       1e-40f /* subnormal */, std::numeric_limits<float>::max()};
  for (size_t i = 0; i < std::size(odd); ++i) a_.params[i] = a_.state[a_.state.size() - 1 - i] = odd[i];
  a_.buffers[0] = odd[1];
  const dxrt::Floats p = a_.params, b = a_.buffers, s = a_.state;
  be_->upload_model(a_);
  std::fill(a_.params.begin(), a_.params.end(), 777.0f);
  std::fill(a_.buffers.begin(), a_.buffers.end(), 777.0f);
  std::fill(a_.state.begin(), a_.state.end(), 777.0f);
  be_->download_model(a_);
  EXPECT_EQ(std::memcmp(a_.params.data(), p.data(), p.size() * sizeof(float)), 0);
  EXPECT_EQ(std::memcmp(a_.buffers.data(), b.data(), b.size() * sizeof(float)), 0);
  EXPECT_EQ(std::memcmp(a_.state.data(), s.data(), s.size() * sizeof(float)), 0);
}

TEST_F(CudaBackendStep, TrainStepLossGradientsAndNewBuffers) {
  load_batch(a_, 5, 31);
  const Step want = host_train(p0_, buf0_, a_, 5);
  const float loss = be_->train_step(a_, 5, 42, 7, 3);
  expect_loss(loss, want.loss);
  // What the step was handed: the batch on the device, the run's key.
  const Call &c = calls.train;
  EXPECT_EQ(c.batch, 5);
  EXPECT_EQ(c.x_size, 5 * kIn);
  EXPECT_EQ(c.labels_size, 5);
  EXPECT_EQ(c.seed, 42);
  EXPECT_EQ(c.step, 7);
  EXPECT_EQ(c.rank, 3);
  cudaPointerAttributes attr{};
  ASSERT_EQ(cudaPointerGetAttributes(&attr, c.x), cudaSuccess);
  EXPECT_EQ(attr.type, cudaMemoryTypeDevice);
  expect_close(grads(), want.grads, kRel);
  expect_same(params(), p0_); // lr 0
  expect_close(committed_buffers(), want.new_buffers, kRel);
}

// The model's SGD on the device arenas: lr and step reach it, and the state
// persists between updates.
TEST_F(CudaBackendStep, UpdateIsTheModelsSgd) {
  load_batch(a_, 6, 32);
  const Step want = host_train(p0_, buf0_, a_, 6);
  be_->train_step(a_, 6, 1, 1, 0);
  be_->update(a_, 0.1f, 3);
  EXPECT_EQ(calls.update.lr, 0.1f);
  EXPECT_EQ(calls.update.step, 3);
  EXPECT_EQ(calls.update.state_size, kSlots * kParams);
  EXPECT_EQ(calls.update.grads, calls.train.grads);
  be_->update(a_, 0.1f, 4); // v = 0.9 g + g
  Vec p = p0_, v(kParams);
  for (size_t t = 0; t < size_t(kParams); ++t) {
    v[t] = 1.9f * want.grads[t];
    p[t] -= 0.1f * want.grads[t] + 0.1f * v[t];
  }
  expect_close(params(), p, kRel);
  expect_close(slice(a_.state, 0, kParams), v, kRel);
}

// Inference reads the committed buffers (not the step's new ones) and writes
// every output of a batch smaller than the arena's, nothing beyond.
TEST_F(CudaBackendStep, EvalWritesEveryOutputOfASmallBatch) {
  load_batch(a_, 6, 33);
  be_->train_step(a_, 6, 1, 1, 0); // new buffers differ from buffers now
  load_batch(a_, 3, 34);
  std::fill(a_.outputs.begin(), a_.outputs.end(), 12345.0f);
  const float loss = be_->eval_step(a_, 3);
  expect_loss(loss, fake::loss(p0_.data(), buf0_.data(), a_.x.data(), a_.labels.data(), 3));
  EXPECT_EQ(calls.eval.batch, 3);
  EXPECT_EQ(calls.eval.outputs_size, 3 * kOutFloats);
  Vec want(size_t(3 * kOutFloats));
  const float *p = p0_.data(), *buf = buf0_.data(), *x = a_.x.data();
  for (int64_t i = 0; i < 3; ++i) {
    for (int64_t j = 0; j < kClasses; ++j) want[size_t(i * kClasses + j)] = logit(p, buf, x, i, j);
    for (int64_t k = 0; k < kIn; ++k) want[size_t(3 * kClasses + i * kIn + k)] = centred(buf, x, i, k);
  }
  expect_close(slice(a_.outputs, 0, 3 * kOutFloats), want, kRel);
  expect_same(slice(a_.outputs, 3 * kOutFloats, (kMaxBatch - 3) * kOutFloats),
              Vec(size_t((kMaxBatch - 3) * kOutFloats), 12345.0f));
}

// A batch larger than the arena's slots is refused before anything is
// queued; the backend goes on working.
TEST_F(CudaBackendStep, ABatchLargerThanTheArenaIsAnError) {
  EXPECT_THROW(be_->train_step(a_, kMaxBatch + 1, 1, 1, 0), dxrt::Error);
  EXPECT_THROW(be_->eval_step(a_, kMaxBatch + 1), dxrt::Error);
  load_batch(a_, kMaxBatch, 35);
  const Step want = host_train(p0_, buf0_, a_, kMaxBatch);
  expect_loss(be_->train_step(a_, kMaxBatch, 1, 1, 0), want.loss);
  expect_close(grads(), want.grads, kRel);
}

// A micro-batch without samples: zero gradients, new buffers = buffers,
// after a step that left neither so.
TEST_F(CudaBackendArithmetic, SkipStepZeroesGradientsAndKeepsBuffers) {
  load_batch(a_, 4, 41);
  be_->train_step(a_, 4, 1, 1, 0);
  be_->skip_step(a_);
  expect_same(grads(), Vec(kParams, 0.0f));
  expect_same(committed_buffers(), buf0_);
  expect_same(params(), p0_);
}

// commit_buffers changes what the next step reads.
TEST_F(CudaBackendArithmetic, CommittedBuffersFeedTheNextStep) {
  load_batch(a_, 4, 42);
  const Step first = host_train(p0_, buf0_, a_, 4);
  be_->train_step(a_, 4, 1, 1, 0);
  const Vec committed = committed_buffers();
  expect_close(committed, first.new_buffers, kRel);
  load_batch(a_, 7, 43);
  const Step second = host_train(p0_, committed, a_, 7);
  expect_loss(be_->train_step(a_, 7, 1, 2, 0), second.loss);
  expect_close(grads(), second.grads, kRel);
  expect_close(committed_buffers(), second.new_buffers, kRel);
}

// --accumulate 3 as the Trainer drives it: sums = w1 g1 + w2 g2 + w3 g3 (new
// buffers too), an empty micro-batch skipped with weight 0. Two rounds: the
// second's first=true must drop the first's sums although take_accumulated
// swapped the arrays.
TEST_F(CudaBackendArithmetic, AccumulateSumsWeightedGradientsAndBuffers) {
  make(3);
  Vec buf = buf0_;
  const int64_t rounds[2][3] = {{4, 6, 0}, {0, 5, 5}};
  for (int r = 0; r < 2; ++r) {
    SCOPED_TRACE(r);
    Vec g_sum(kParams, 0.0f), b_sum(kBuffers, 0.0f);
    for (int m = 0; m < 3; ++m) {
      const int64_t b = rounds[r][m];
      const float w = float(b) / 10.0f;
      Step s{0, Vec(kParams, 0.0f), buf};
      if (b > 0) {
        load_batch(a_, b, unsigned(50 + 3 * r + m));
        s = host_train(p0_, buf, a_, b);
        expect_loss(be_->train_step(a_, b, 1, r + 1, m), s.loss);
      } else {
        be_->skip_step(a_);
      }
      be_->accumulate(a_, m == 0, w);
      g_sum = m == 0 ? axpy2(w, s.grads, 0, g_sum) : axpy2(1, g_sum, w, s.grads);
      b_sum = m == 0 ? axpy2(w, s.new_buffers, 0, b_sum) : axpy2(1, b_sum, w, s.new_buffers);
    }
    be_->take_accumulated(a_);
    expect_close(grads(), g_sum, kRel);
    expect_same(params(), p0_);
    buf = committed_buffers();
    expect_close(buf, b_sum, kRel);
  }
}

// A backend made for --accumulate 1 has no room for the sums (a zero-byte
// slice still has an address: the sums must be null, or the axpy would
// write over the next slices). Unreachable from the Trainer, which
// accumulates only when M > 1.
TEST_F(CudaBackendArithmetic, AccumulateWithoutRoomIsAnError) {
  EXPECT_THROW(be_->accumulate(a_, true, 1.0f), dxrt::Error); // made for --accumulate 1
}

// The batch goes through two device slots in turn (the next batch uploads
// while the step runs); train and eval share them. Every step's result is
// its own batch's, whichever slot it went through, and one batch gives the
// same bits from either slot.
TEST_F(CudaBackendSlots, BatchesAlternateSlotsAndResultsDoNotDependOnThem) {
  struct Op {
    bool train;
    int64_t batch;
    unsigned seed;
  };
  const Op ops[] = {{true, 5, 61}, {true, 5, 61}, {false, 3, 62}, {true, 8, 63},
                    {false, 8, 64}, {true, 1, 65}, {true, 2, 66}};
  std::vector<const void *> xs;
  Vec first_grads;
  float first_loss = 0;
  for (size_t n = 0; n < std::size(ops); ++n) {
    SCOPED_TRACE(n);
    const Op &op = ops[n];
    load_batch(a_, op.batch, op.seed);
    if (op.train) {
      const Step want = host_train(p0_, buf0_, a_, op.batch);
      const float loss = be_->train_step(a_, op.batch, 1, int64_t(n), 0);
      // The loader refills the dock as soon as the step returns.
      std::fill(a_.x.begin(), a_.x.end(), 999.0f);
      expect_loss(loss, want.loss);
      const Vec g = grads();
      expect_close(g, want.grads, kRel);
      if (n == 0) first_loss = loss, first_grads = g;
      if (n == 1) { // the same batch through the other slot
        EXPECT_EQ(loss, first_loss);
        expect_same(g, first_grads);
      }
      xs.push_back(calls.train.x);
    } else {
      const float want = fake::loss(p0_.data(), buf0_.data(), a_.x.data(), a_.labels.data(), op.batch);
      expect_loss(be_->eval_step(a_, op.batch), want);
      xs.push_back(calls.eval.x);
    }
  }
  EXPECT_NE(xs[0], xs[1]);
  for (size_t n = 2; n < xs.size(); ++n) {
    EXPECT_EQ(xs[n], xs[n - 2]) << n;
    EXPECT_NE(xs[n], xs[n - 1]) << n;
  }
}

// In a world of one the ranks' synchronisation is the identity, as in
// ModelSync: the weight is not applied, the side values come back as they
// went, parameters and buffers stay. The same step is run twice, without
// and with the synchronisation, and gives the same bits.
TEST_F(CudaBackendWorld, AWorldOfOneLeavesEverythingUnchanged) {
  dxrt::World &world = dxrt::World::get();
  ASSERT_EQ(world.size(), 1);
  dxrt::ModelSync sync(world, dxrt::SyncSpec{}, 1 << 20);
  load_batch(a_, 6, 71);
  const Step want = host_train(p0_, buf0_, a_, 6);
  Vec g[2], b[2];
  for (int with_sync = 0; with_sync < 2; ++with_sync) {
    be_->upload_model(a_);
    expect_loss(be_->train_step(a_, 6, 1, 1, 0), want.loss);
    if (with_sync) {
      float side[dxrt::kGradSide] = {1.5f, 0.0f, 1.0f};
      be_->reduce_gradients(a_, sync, 0.25f, side);
      EXPECT_EQ(side[0], 1.5f);
      EXPECT_EQ(side[1], 0.0f);
      EXPECT_EQ(side[2], 1.0f);
      be_->reduce_buffers(a_, sync, 0.25f);
      be_->average_model(a_, sync);
    }
    g[with_sync] = grads();
    expect_same(params(), p0_);
    b[with_sync] = committed_buffers();
    // The next round starts from the same model.
    std::copy(p0_.begin(), p0_.end(), a_.params.begin());
    std::copy(buf0_.begin(), buf0_.end(), a_.buffers.begin());
    std::fill(a_.state.begin(), a_.state.end(), 0.0f);
  }
  expect_close(g[0], want.grads, kRel);
  expect_same(g[1], g[0]);
  expect_same(b[1], b[0]);
  EXPECT_EQ(sync.take_comm_time(), 0.0);
}

} // namespace
