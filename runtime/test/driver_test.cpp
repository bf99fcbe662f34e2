// The driver end to end: the hand-written model object (fake_model.cpp),
// linked with libdxrt like a generated one, trained on small IDX files
// written here. Checks the console, the metrics log, and the exit codes of
// bad flags, missing or corrupt data and a NaN loss.
#include "TestUtil.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <sys/wait.h>

using dxtest::TempDir;
using Json = nlohmann::json;

namespace {

struct Result {
  int code;
  std::string out; // stdout and stderr
};

Result run(const std::string &args, const std::string &env = "") {
  std::string cmd = env + " " + DXRT_FAKE_MODEL + " " + args + " 2>&1";
  Result r{-1, ""};
  std::FILE *p = popen(cmd.c_str(), "r");
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  int status = pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

// Three classes of 4x4 images: class c has a bright row c, the rest noise.
void write_blobs(const TempDir &d, const std::string &images, const std::string &labels, int n, unsigned seed,
                 bool gz_images, bool gz_labels) {
  std::mt19937 g(seed);
  std::vector<uint8_t> x, y;
  for (int i = 0; i < n; ++i) {
    int c = int(g() % 3);
    y.push_back(uint8_t(c));
    for (int r = 0; r < 4; ++r)
      for (int k = 0; k < 4; ++k) x.push_back(uint8_t(r == c ? 80 + g() % 120 : g() % 160));
  }
  dxtest::write_bytes(d / images, dxtest::idx_u8({uint32_t(n), 4, 4}, x), gz_images);
  dxtest::write_bytes(d / labels, dxtest::idx_u8({uint32_t(n)}, y), gz_labels);
}

struct Blobs : TempDir {
  Blobs() {
    write_blobs(*this, "train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte", 600, 1, true, false);
    write_blobs(*this, "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte.gz", 150, 2, false, true);
  }
  std::string flags() const { return "--data-dir " + path.string(); }
};

std::vector<Json> read_log(const std::string &path) {
  std::vector<Json> out;
  std::istringstream in(std::string(reinterpret_cast<const char *>(dxtest::read_bytes(path).data()),
                                    dxtest::read_bytes(path).size()));
  for (std::string line; std::getline(in, line);) out.push_back(Json::parse(line));
  return out;
}

bool contains(const std::string &s, const std::string &part) { return s.find(part) != std::string::npos; }

TEST(Driver, TrainsAndWritesTheMetricsLog) {
  Blobs d;
  Result r = run(d.flags() + " --log " + (d / "runs/log.jsonl"));
  ASSERT_EQ(r.code, 0) << r.out;
  // Banner and layer table.
  EXPECT_TRUE(contains(r.out, "training 'softmax_regression'")) << r.out;
  EXPECT_TRUE(contains(r.out, "51 parameters")) << r.out;
  EXPECT_TRUE(contains(r.out, "600 train, 150 test samples of [1, 4, 4], 3 classes")) << r.out;
  EXPECT_TRUE(contains(r.out, "sgd(lr 0.02, momentum 0.9")) << r.out;
  EXPECT_TRUE(contains(r.out, "warmup 1 epoch then cosine")) << r.out;
  EXPECT_TRUE(contains(r.out, "dense_1")) << r.out;
  EXPECT_TRUE(contains(r.out, "f32[B, 16]")) << r.out;
  EXPECT_TRUE(contains(r.out, "epoch 4/4  train_loss")) << r.out;
  EXPECT_TRUE(contains(r.out, "target accuracy >= 0.85 reached at epoch")) << r.out;

  std::vector<Json> log = read_log(d / "runs/log.jsonl");
  ASSERT_GE(log.size(), 6u);
  const Json &start = log.front();
  EXPECT_EQ(start["event"], "start");
  for (const char *k : {"model", "target", "ranks", "per_rank_batch", "global_batch", "params", "train_samples",
                        "test_samples", "seed"})
    EXPECT_TRUE(start.contains(k)) << k;
  EXPECT_EQ(start["model"], "softmax_regression");
  EXPECT_EQ(start["target"], "cpu");
  EXPECT_EQ(start["ranks"], 1);
  EXPECT_EQ(start["per_rank_batch"], 16);
  EXPECT_EQ(start["global_batch"], 16);
  EXPECT_EQ(start["params"], 51);
  EXPECT_EQ(start["train_samples"], 600);
  EXPECT_EQ(start["test_samples"], 150);
  EXPECT_EQ(start["seed"], 1);

  std::vector<Json> epochs;
  int targets = 0;
  for (const Json &j : log) {
    if (j["event"] == "epoch") epochs.push_back(j);
    if (j["event"] == "target") {
      ++targets;
      EXPECT_EQ(j["metric"], "accuracy");
      EXPECT_GE(j["value"].get<double>(), 0.85);
      EXPECT_GE(j["epoch"].get<int>(), 1);
      EXPECT_GT(j["train_time_s"].get<double>(), 0.0);
    }
  }
  EXPECT_EQ(targets, 1);
  ASSERT_EQ(epochs.size(), 4u);
  double prev_train_time = 0;
  for (size_t e = 0; e < epochs.size(); ++e) {
    const Json &j = epochs[e];
    std::vector<std::string> keys;
    for (auto it = j.begin(); it != j.end(); ++it) keys.push_back(it.key());
    EXPECT_EQ(j["epoch"], int(e + 1));
    EXPECT_EQ(j["steps"], 38); // ceil(600 / 16)
    for (const char *k : {"train_time_s", "elapsed_s", "epoch_time_s", "samples_per_s", "train_loss", "val_loss",
                          "val_accuracy", "lr"})
      EXPECT_TRUE(j.contains(k) && j[k].is_number()) << k << " in " << j.dump();
    EXPECT_GE(j["train_time_s"].get<double>(), prev_train_time);
    EXPECT_GE(j["elapsed_s"].get<double>(), j["train_time_s"].get<double>());
    prev_train_time = j["train_time_s"].get<double>();
  }
  EXPECT_LT(epochs.back()["train_loss"].get<double>(), epochs.front()["train_loss"].get<double>());
  EXPECT_GT(epochs.back()["val_accuracy"].get<double>(), 0.85);
  EXPECT_LT(epochs.back()["lr"].get<double>(), 0.001); // cosine to 0
  EXPECT_EQ(log.back()["event"], "end");
  EXPECT_NEAR(log.back()["train_time_s"].get<double>(), prev_train_time, 1e-5);
  EXPECT_GE(log.back()["elapsed_s"].get<double>(), prev_train_time);
}

TEST(Driver, SameSeedSameLosses) {
  Blobs d;
  ASSERT_EQ(run(d.flags() + " --epochs 2 --log " + (d / "a.jsonl")).code, 0);
  ASSERT_EQ(run(d.flags() + " --epochs 2 --log " + (d / "b.jsonl")).code, 0);
  ASSERT_EQ(run(d.flags() + " --epochs 2 --seed 7 --log " + (d / "c.jsonl")).code, 0);
  auto a = read_log(d / "a.jsonl"), b = read_log(d / "b.jsonl"), c = read_log(d / "c.jsonl");
  EXPECT_EQ(a[1]["train_loss"], b[1]["train_loss"]);
  EXPECT_EQ(a[2]["val_loss"], b[2]["val_loss"]);
  EXPECT_NE(a[1]["train_loss"], c[1]["train_loss"]);
}

TEST(Driver, FlagsOverrideTheTrainBlock) {
  Blobs d;
  Result r = run(d.flags() + " --epochs 1 --batch 50 --lr 0.1 --eval-batch 7 --max-steps 5 --log " + (d / "l.jsonl"));
  ASSERT_EQ(r.code, 0) << r.out;
  auto log = read_log(d / "l.jsonl");
  EXPECT_EQ(log[0]["per_rank_batch"], 50);
  EXPECT_EQ(log[0]["lr"], 0.1);
  EXPECT_EQ(log[0]["epochs"], 1);
  EXPECT_EQ(log[1]["event"], "epoch");
  EXPECT_EQ(log[1]["steps"], 5);
  EXPECT_TRUE(contains(r.out, "eval batch 7")) << r.out;
}

TEST(Driver, StopAtTarget) {
  Blobs d;
  Result r = run(d.flags() + " --epochs 20 --stop-at-target --log " + (d / "l.jsonl"));
  ASSERT_EQ(r.code, 0) << r.out;
  auto log = read_log(d / "l.jsonl");
  ASSERT_GE(log.size(), 3u);
  EXPECT_EQ(log[log.size() - 2]["event"], "target");
  EXPECT_LT(log.size(), 20u);
}

TEST(Driver, SyntheticNeedsNoFiles) {
  Result r = run("--synthetic --epochs 1 --synthetic-samples 64");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_TRUE(contains(r.out, "synthetic blobs")) << r.out;
}

TEST(Driver, HelpListsTheFlags) {
  Result r = run("--help");
  EXPECT_EQ(r.code, 0);
  for (const char *f : {"--epochs", "--lr", "--batch", "--seed", "--log", "--data-dir", "--synthetic", "--max-steps",
                        "--eval-batch", "--stop-at-target"})
    EXPECT_TRUE(contains(r.out, f)) << f << "\n" << r.out;
}

TEST(Driver, BadFlagsExitWithTwo) {
  Result r = run("--epoch 3");
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(contains(r.out, "error:")) << r.out;
  EXPECT_TRUE(contains(r.out, "did you mean '--epochs'?")) << r.out;
  r = run("--epochs 0");
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(contains(r.out, "--epochs")) << r.out;
  r = run("--lr banana");
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(contains(r.out, "--lr")) << r.out;
  r = run("--batch");
  EXPECT_EQ(r.code, 2) << r.out;
  // A batch whose products with the ranks and sample sizes would overflow.
  r = run("--batch 9223372036854775807");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_TRUE(contains(r.out, "must be at most 1073741824")) << r.out;
}

TEST(Driver, MissingDataExitsWithOneNamingTheFile) {
  TempDir empty;
  Result r = run("--data-dir " + empty.path.string());
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(contains(r.out, "error: data file '" + (empty / "train-images-idx3-ubyte.gz") + "' does not exist")) << r.out;
  EXPECT_TRUE(contains(r.out, "hint:")) << r.out;
}

TEST(Driver, CorruptDataExitsWithOne) {
  Blobs d;
  auto bytes = dxtest::read_bytes(d / "t10k-images-idx3-ubyte");
  bytes.resize(bytes.size() - 10);
  dxtest::write_bytes(d / "t10k-images-idx3-ubyte", bytes);
  Result r = run(d.flags());
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(contains(r.out, "IDX file '" + (d / "t10k-images-idx3-ubyte") + "' is truncated")) << r.out;
}

TEST(Driver, WrongSampleShapeExitsWithOne) {
  Blobs d;
  dxtest::write_bytes(d / "t10k-images-idx3-ubyte", dxtest::idx_u8({2, 5, 5}, std::vector<uint8_t>(50)));
  Result r = run(d.flags());
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(contains(r.out, "test inputs")) << r.out;
  EXPECT_TRUE(contains(r.out, "[5, 5] (25 elements)")) << r.out;
}

TEST(Driver, NonFiniteLossStopsWithThree) {
  Blobs d;
  Result r = run(d.flags() + " --log " + (d / "l.jsonl"), "DXRT_FAKE_NAN_AT_STEP=45");
  EXPECT_EQ(r.code, 3) << r.out;
  EXPECT_TRUE(contains(r.out, "the loss became NaN at step 45 (epoch 2, batch 7 of 38)")) << r.out;
  EXPECT_TRUE(contains(r.out, "the last finite loss was")) << r.out;
  EXPECT_TRUE(contains(r.out, "at step 44")) << r.out;
  auto log = read_log(d / "l.jsonl");
  EXPECT_EQ(log.back()["event"], "error");
  EXPECT_EQ(log.back()["step"], 45);
}

TEST(Driver, UnwritableLogExitsWithOne) {
  Blobs d;
  Result r = run(d.flags() + " --log /proc/nonexistent/x.jsonl");
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_TRUE(contains(r.out, "cannot open the metrics log")) << r.out;
}

} // namespace
