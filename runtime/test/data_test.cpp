// Data readers on small files written here, good and bad; normalisation;
// shuffles and batch shards.
#include "ExpectError.h"
#include "TestUtil.h"
#include "common/Check.h"
#include "data/Array.h"
#include "data/Augment.h"
#include "data/Bytes.h"
#include "data/Csv.h"
#include "data/Dataset.h"
#include "data/Order.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <gtest/gtest.h>
#include <limits>
#include <map>
#include <numeric>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <unistd.h>

using namespace dxrt;
using dxtest::expect_error;
using dxtest::TempDir;

namespace {

std::vector<float> floats(const SampleFloats &x) { return {x.begin(), x.end()}; }

std::vector<uint8_t> iota_bytes(size_t n) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = uint8_t(i % 251);
  return v;
}

DatasetSpec idx_spec(const TempDir &d, bool gz) {
  DatasetSpec s;
  s.name = "t";
  s.format = "idx";
  s.train = {"img" + std::string(gz ? ".gz" : ""), "lab"};
  s.sample = {1, 2, 3};
  s.classes = 4;
  dxtest::write_bytes(d / s.train[0], dxtest::idx_u8({5, 2, 3}, iota_bytes(30)), gz);
  dxtest::write_bytes(d / "lab", dxtest::idx_u8({5}, {0, 1, 2, 3, 1}));
  return s;
}

TEST(Idx, ReadsImagesAndLabels) {
  TempDir d;
  for (bool gz : {false, true}) {
    DatasetSpec s = idx_spec(d, gz);
    Split sp = load_split(s, s.train, "train", d.path.string());
    EXPECT_EQ(sp.n, 5);
    EXPECT_EQ(sp.sample_floats, 6);
    ASSERT_EQ(sp.x.size(), 30u);
    EXPECT_EQ(sp.x[7], 7.0f);
    EXPECT_EQ(sp.y, (std::vector<int64_t>{0, 1, 2, 3, 1}));
  }
}

// A split's floats from 4 MiB start at a 2 MiB boundary (where huge pages
// can back them); smaller ones are ordinary; both hold what is put there.
TEST(Load, LargeSplitsAreAlignedForHugePages) {
  SampleFloats big(size_t(5) << 20), small(1000);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(big.data()) % (size_t(2) << 20), 0u);
  big.back() = 3.0f;
  small.back() = 4.0f;
  EXPECT_EQ(big[(size_t(5) << 20) - 1] + small[999], 7.0f);
  SampleFloats moved = std::move(big);
  EXPECT_EQ(moved.back(), 3.0f);
}

TEST(Idx, TruncatedFileIsAnError) {
  TempDir d;
  auto bytes = dxtest::idx_u8({5, 2, 3}, iota_bytes(30));
  bytes.resize(bytes.size() - 4);
  dxtest::write_bytes(d / "img", bytes);
  expect_error([&] { read_idx(d / "img"); }, {d / "img", "truncated", "[5, 2, 3]", "30 bytes", "26"});
}

TEST(Idx, TruncatedGzipIsAnError) {
  TempDir d;
  dxtest::write_bytes(d / "img.gz", dxtest::idx_u8({50, 20, 30}, iota_bytes(30000)), true);
  auto gz = dxtest::read_bytes(d / "img.gz");
  gz.resize(gz.size() / 2);
  dxtest::write_bytes(d / "img.gz", gz);
  expect_error([&] { read_idx(d / "img.gz"); }, {d / "img.gz", "cannot read"});
}

TEST(Idx, BadMagicAndEmptyFilesAreErrors) {
  TempDir d;
  dxtest::write_text(d / "bad", "hello world");
  expect_error([&] { read_idx(d / "bad"); }, {d / "bad", "IDX magic"});
  dxtest::write_text(d / "empty", "");
  expect_error([&] { read_idx(d / "empty"); }, {d / "empty", "too short"});
  dxtest::write_bytes(d / "type", {0, 0, 0x42, 1, 0, 0, 0, 1, 0});
  expect_error([&] { read_idx(d / "type"); }, {"unknown element type 0x42"});
  dxtest::write_bytes(d / "hdr", {0, 0, 8, 3, 0, 0, 0});
  expect_error([&] { read_idx(d / "hdr"); }, {"truncated inside its header"});
}

TEST(Idx, TrailingBytesAreAnError) {
  TempDir d;
  auto bytes = dxtest::idx_u8({2}, {1, 2});
  bytes.push_back(9);
  dxtest::write_bytes(d / "lab", bytes);
  expect_error([&] { read_idx(d / "lab"); }, {"1 bytes after"});
}

TEST(Load, MissingFileNamesTheFileAndTheDataDirFlag) {
  TempDir d;
  DatasetSpec s = idx_spec(d, false);
  expect_error([&] { load_split(s, {"nope", "lab"}, "train", d.path.string()); }, {d / "nope", "does not exist"});
  try {
    load_split(s, {"nope", "lab"}, "train", "");
  } catch (const Error &e) {
    EXPECT_NE(e.hint().find("--data-dir"), std::string::npos);
  }
}

TEST(Load, SampleShapeMismatchIsAnError) {
  TempDir d;
  DatasetSpec s = idx_spec(d, false);
  s.sample = {1, 28, 28};
  expect_error([&] { load_split(s, s.train, "train", d.path.string()); },
               {"train inputs", "[2, 3] (6 elements)", "[1, 28, 28] (784 elements)"});
}

TEST(Load, SameElementCountIsAccepted) {
  TempDir d;
  DatasetSpec s = idx_spec(d, false);
  s.sample = {6};
  EXPECT_EQ(load_split(s, s.train, "train", d.path.string()).n, 5);
}

TEST(Load, LabelOutOfRangeIsAnError) {
  TempDir d;
  DatasetSpec s = idx_spec(d, false);
  s.classes = 3;
  expect_error([&] { load_split(s, s.train, "train", d.path.string()); }, {d / "lab", "label 3 is 3", "outside [0, 3)"});
}

TEST(Load, LabelCountMismatchIsAnError) {
  TempDir d;
  DatasetSpec s = idx_spec(d, false);
  dxtest::write_bytes(d / "lab", dxtest::idx_u8({4}, {0, 1, 2, 3}));
  expect_error([&] { load_split(s, s.train, "train", d.path.string()); }, {"4 labels for the 5 samples"});
}

TEST(Load, LabelledDatasetNeedsALabelsFileInEverySplit) {
  TempDir d;
  DatasetSpec s = idx_spec(d, false);
  expect_error([&] { load_split(s, {"img"}, "test", d.path.string()); }, {"test split lists no labels file"});
}

TEST(Load, AbsolutePathsIgnoreTheDataDir) {
  TempDir d;
  DatasetSpec s = idx_spec(d, false);
  Split sp = load_split(s, {d / "img", d / "lab"}, "train", "/nonexistent");
  EXPECT_EQ(sp.n, 5);
}

TEST(Normalize, ScaleThenMeanAndStdPerChannel) {
  DatasetSpec s;
  s.sample = {2, 2};
  s.scale = 0.5;
  s.mean = {1, 2};
  s.std = {2, 4};
  Split sp;
  sp.n = 1;
  sp.sample_floats = 4;
  sp.x = {2, 4, 6, 10};
  normalize(sp, s);
  EXPECT_EQ(floats(sp.x), (std::vector<float>{0, 0.5f, 0.25f, 0.75f}));
  s.mean = {1};
  s.std = {2};
  sp.x = {2, 4, 6, 10};
  normalize(sp, s);
  EXPECT_EQ(floats(sp.x), (std::vector<float>{0, 0.5f, 1, 2}));
  s.mean = {1, 2, 3};
  expect_error([&] { normalize(sp, s); }, {"mean lists 3 values", "2 channels"});
}

TEST(Npy, ReadsEveryDtype) {
  TempDir d;
  using dxtest::npy;
  using dxtest::raw;
  dxtest::write_bytes(d / "f4.npy", npy("<f4", {2, 3}, raw(std::vector<float>{1, 2, 3, 4, 5, 6.5f})));
  dxtest::write_bytes(d / "f8.npy", npy("<f8", {2, 3}, raw(std::vector<double>{1, 2, 3, 4, 5, 6.5})));
  dxtest::write_bytes(d / "u1.npy", npy("|u1", {2, 3}, {1, 2, 3, 4, 5, 255}));
  dxtest::write_bytes(d / "i4.npy", npy("<i4", {3}, raw(std::vector<int32_t>{0, 2, 1})));
  dxtest::write_bytes(d / "i8.npy", npy("<i8", {3}, raw(std::vector<int64_t>{2, 0, 1})));
  EXPECT_EQ(to_floats(read_npy(d / "f4.npy")), (std::vector<float>{1, 2, 3, 4, 5, 6.5f}));
  EXPECT_EQ(to_floats(read_npy(d / "f8.npy")), (std::vector<float>{1, 2, 3, 4, 5, 6.5f}));
  EXPECT_EQ(to_floats(read_npy(d / "u1.npy")), (std::vector<float>{1, 2, 3, 4, 5, 255}));
  EXPECT_EQ(to_labels(read_npy(d / "i4.npy"), 3), (std::vector<int64_t>{0, 2, 1}));
  EXPECT_EQ(to_labels(read_npy(d / "i8.npy"), 3), (std::vector<int64_t>{2, 0, 1}));
  EXPECT_EQ(read_npy(d / "f4.npy").shape, (std::vector<int64_t>{2, 3}));
}

TEST(Npy, UnlabelledSplit) {
  TempDir d;
  std::vector<float> v(4 * 1 * 2 * 2);
  std::iota(v.begin(), v.end(), 0.0f);
  dxtest::write_bytes(d / "maps.npy", dxtest::npy("<f4", {4, 1, 2, 2}, dxtest::raw(v)));
  DatasetSpec s;
  s.format = "npy";
  s.train = {"maps.npy"};
  s.sample = {1, 2, 2};
  s.mean = {1};
  Split sp = load_split(s, s.train, "train", d.path.string());
  EXPECT_EQ(sp.n, 4);
  EXPECT_FALSE(sp.has_labels);
  EXPECT_EQ(sp.x[5], 4.0f);
}

TEST(Npy, BadFilesAreErrors) {
  TempDir d;
  using dxtest::npy;
  dxtest::write_bytes(d / "be.npy", npy(">f4", {2}, {0, 0, 0, 0, 0, 0, 0, 0}));
  expect_error([&] { read_npy(d / "be.npy"); }, {d / "be.npy", "'>f4'"});
  dxtest::write_bytes(d / "c8.npy", npy("<c8", {1}, std::vector<uint8_t>(8)));
  expect_error([&] { read_npy(d / "c8.npy"); }, {"'<c8'"});
  dxtest::write_bytes(d / "fo.npy", npy("<f4", {2, 2}, std::vector<uint8_t>(16), true));
  expect_error([&] { read_npy(d / "fo.npy"); }, {"Fortran order"});
  dxtest::write_bytes(d / "short.npy", npy("<f4", {2, 2}, std::vector<uint8_t>(15)));
  expect_error([&] { read_npy(d / "short.npy"); }, {"truncated", "16 bytes", "15"});
  dxtest::write_bytes(d / "scalar.npy", npy("<f4", {}, std::vector<uint8_t>(4)));
  expect_error([&] { read_npy(d / "scalar.npy"); }, {"0-dimensional"});
  dxtest::write_text(d / "text.npy", "not an npy file");
  expect_error([&] { read_npy(d / "text.npy"); }, {"NPY magic"});
  auto hdr = npy("<f4", {2}, std::vector<uint8_t>(8));
  hdr.resize(20);
  dxtest::write_bytes(d / "hdr.npy", hdr);
  expect_error([&] { read_npy(d / "hdr.npy"); }, {"truncated inside its header"});
  std::vector<float> nan = {1.0f, std::nanf("")};
  dxtest::write_bytes(d / "nan.npy", npy("<f4", {2}, dxtest::raw(nan)));
  expect_error([&] { to_floats(read_npy(d / "nan.npy")); }, {"non-finite", "element 1"});
  dxtest::write_bytes(d / "frac.npy", npy("<f4", {2}, dxtest::raw(std::vector<float>{1, 1.5f})));
  expect_error([&] { to_labels(read_npy(d / "frac.npy"), 3); }, {"label 1 is 1.5"});
}

// A dataset with `targets: [2]`: the second NPY file's values, converted to
// f32, gathered with their samples; a wrong per-sample shape, a different
// sample count, a non-finite target and a missing targets file are errors.
TEST(Targets, ReadConvertedAndGathered) {
  TempDir d;
  using dxtest::npy;
  using dxtest::raw;
  dxtest::write_bytes(d / "x.npy", npy("<f4", {3, 2}, raw(std::vector<float>{0, 1, 2, 3, 4, 5})));
  dxtest::write_bytes(d / "y.npy", npy("<f8", {3, 2}, raw(std::vector<double>{0.5, -1, 1.5, -2, 2.5, -3})));
  DatasetSpec s;
  s.format = "npy";
  s.train = {"x.npy", "y.npy"};
  s.sample = {2};
  s.targets = true;
  s.target_shape = {2};
  EXPECT_FALSE(s.labelled());
  Split sp = load_split(s, s.train, "train", d.path.string(), Access::Map);
  EXPECT_FALSE(sp.has_labels);
  ASSERT_TRUE(sp.has_targets);
  EXPECT_EQ(sp.target_floats, 2);
  EXPECT_EQ(sp.t, (std::vector<float>{0.5f, -1, 1.5f, -2, 2.5f, -3}));
  float x[4], t[4];
  gather(sp, {2, 0, 1}, 0, 2, x, nullptr, t, AugmentKey{});
  EXPECT_EQ(std::vector<float>(x, x + 4), (std::vector<float>{4, 5, 0, 1}));
  EXPECT_EQ(std::vector<float>(t, t + 4), (std::vector<float>{2.5f, -3, 0.5f, -1}));
  gather_range(sp, 1, 3, x, nullptr, t);
  EXPECT_EQ(std::vector<float>(t, t + 4), (std::vector<float>{1.5f, -2, 2.5f, -3}));

  s.target_shape = {3};
  expect_error([&] { load_split(s, s.train, "train", d.path.string()); },
               {d / "y.npy", "[3, 2]", "expected 3 samples of shape [3]"});
  s.target_shape = {2};
  dxtest::write_bytes(d / "y4.npy", npy("<f4", {4, 2}, std::vector<uint8_t>(32)));
  s.train = {"x.npy", "y4.npy"};
  expect_error([&] { load_split(s, s.train, "train", d.path.string()); }, {d / "y4.npy", "4 targets for the 3 samples"});
  dxtest::write_bytes(d / "ynan.npy", npy("<f4", {3, 2}, raw(std::vector<float>{0, 1, 2, std::nanf(""), 4, 5})));
  s.train = {"x.npy", "ynan.npy"};
  expect_error([&] { load_split(s, s.train, "train", d.path.string()); }, {d / "ynan.npy", "element 3"});
  s.train = {"x.npy"};
  expect_error([&] { load_split(s, s.train, "train", d.path.string()); }, {"has targets", "no targets file"});
}

TEST(Targets, CsvTargetsFile) {
  TempDir d;
  dxtest::write_text(d / "x.csv", "1,2\n3,4\n");
  dxtest::write_text(d / "y.csv", "0.5,1,2\n-1,-2,-3\n");
  DatasetSpec s;
  s.format = "csv";
  s.train = {"x.csv", "y.csv"};
  s.sample = {2};
  s.targets = true;
  s.target_shape = {3};
  Split sp = load_split(s, s.train, "train", d.path.string());
  EXPECT_EQ(sp.t, (std::vector<float>{0.5f, 1, 2, -1, -2, -3}));
  s.target_shape = {2};
  expect_error([&] { load_split(s, s.train, "train", d.path.string()); }, {d / "y.csv", "3 columns", "[2]"});
}

// `labels: [2, 2]`: per-pixel labels, label_elems per sample, gathered with
// their samples; [N] labels for a per-pixel dataset are an error.
TEST(Labels, PerPixelLabels) {
  TempDir d;
  using dxtest::npy;
  dxtest::write_bytes(d / "x.npy", npy("<f4", {2, 1, 2, 2}, std::vector<uint8_t>(32)));
  dxtest::write_bytes(d / "m.npy", npy("|u1", {2, 2, 2}, {0, 1, 2, 1, 2, 2, 0, 0}));
  dxtest::write_bytes(d / "m1.npy", npy("|u1", {2}, {0, 1}));
  DatasetSpec s;
  s.format = "npy";
  s.train = {"x.npy", "m.npy"};
  s.sample = {1, 2, 2};
  s.classes = 3;
  s.label_shape = {2, 2};
  Split sp = load_split(s, s.train, "train", d.path.string());
  EXPECT_EQ(sp.label_elems, 4);
  EXPECT_EQ(sp.y, (std::vector<int64_t>{0, 1, 2, 1, 2, 2, 0, 0}));
  float x[8];
  int64_t y[8];
  gather(sp, {1, 0}, 0, 2, x, y, nullptr, AugmentKey{});
  EXPECT_EQ(std::vector<int64_t>(y, y + 8), (std::vector<int64_t>{2, 2, 0, 0, 0, 1, 2, 1}));
  s.train = {"x.npy", "m1.npy"};
  expect_error([&] { load_split(s, s.train, "train", d.path.string()); },
               {d / "m1.npy", "have shape [2]", "samples of shape [2, 2]"});
  Split syn = synthetic_split("train", 5, 4, 3, 1, 4);
  EXPECT_EQ(syn.y.size(), 20u);
  EXPECT_EQ(syn.label_elems, 4);
  for (int64_t v : syn.y) EXPECT_TRUE(v >= 0 && v < 3);
  Split syt = synthetic_split("train", 5, 4, 0, 1, 1, 3);
  EXPECT_TRUE(syt.has_targets && !syt.has_labels);
  EXPECT_EQ(syt.t.size(), 15u);
}

// `transform: log1p` (CosmoFlow's log(x + 1) of int16 counts): applied to
// the stored value before scale, mean and std, the same for read and mapped
// splits; a value <= -1 is an error naming the element.
TEST(Transform, Log1pOfIntegerCounts) {
  TempDir d;
  using dxtest::npy;
  using dxtest::raw;
  dxtest::write_bytes(d / "c.npy", npy("<i2", {2, 3}, raw(std::vector<int16_t>{0, 1, 3, 7, 15, 255})));
  dxtest::write_bytes(d / "u.npy", npy("<u2", {2, 3}, raw(std::vector<uint16_t>{0, 1, 3, 7, 15, 65535})));
  dxtest::write_bytes(d / "neg.npy", npy("<i2", {2, 3}, raw(std::vector<int16_t>{0, 1, 3, 7, -1, 2})));
  DatasetSpec s;
  s.format = "npy";
  s.sample = {3};
  s.transform = "log1p";
  s.scale = 2;
  for (Access access : {Access::Read, Access::Map}) {
    s.train = {"c.npy"};
    Split sp = load_split(s, s.train, "train", d.path.string(), access);
    std::vector<float> x(6);
    gather_range(sp, 0, 2, x.data(), nullptr, nullptr);
    const double want[6] = {0, 1, 3, 7, 15, 255};
    for (int i = 0; i < 6; ++i) EXPECT_FLOAT_EQ(x[size_t(i)], float(std::log1p(want[i])) * 2) << i;
    s.train = {"u.npy"};
    Split su = load_split(s, s.train, "train", d.path.string(), access);
    gather_range(su, 1, 2, x.data(), nullptr, nullptr);
    EXPECT_FLOAT_EQ(x[2], float(std::log1p(65535.0)) * 2);
    s.train = {"neg.npy"};
    expect_error([&] {
      Split sn = load_split(s, s.train, "train", d.path.string(), access);
      gather_range(sn, 0, 2, x.data(), nullptr, nullptr);
    }, {d / "neg.npy", "element 4"});
  }
}

TEST(Csv, HeaderAndLabelColumn) {
  TempDir d;
  dxtest::write_text(d / "t.csv", "a,b,label,c\n1,2,0,3\r\n4, 5 ,2,6\n\n7,8,1,9e0\n");
  CsvTable t = read_csv(d / "t.csv", 2, true, 3);
  EXPECT_EQ(t.rows, 3);
  EXPECT_EQ(t.features, 3);
  EXPECT_EQ(t.x, (std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8, 9}));
  EXPECT_EQ(t.y, (std::vector<int64_t>{0, 2, 1}));
}

TEST(Csv, SplitThroughTheDatasetSpec) {
  TempDir d;
  dxtest::write_text(d / "digits.csv", "0,16,1\n8,4,0\n");
  DatasetSpec s;
  s.format = "csv";
  s.train = {"digits.csv"};
  s.sample = {2};
  s.classes = 2;
  s.label_column = 2;
  s.scale = 1.0 / 16;
  Split sp = load_split(s, s.train, "train", d.path.string());
  EXPECT_TRUE(sp.has_labels);
  EXPECT_EQ(floats(sp.x), (std::vector<float>{0, 1, 0.5f, 0.25f}));
  EXPECT_EQ(sp.y, (std::vector<int64_t>{1, 0}));
  s.sample = {3};
  expect_error([&] { load_split(s, s.train, "train", d.path.string()); }, {"2 feature columns", "besides label column 2", "[3]"});
}

TEST(Csv, BadFilesAreErrors) {
  TempDir d;
  dxtest::write_text(d / "word.csv", "1,2\n3,x\n");
  expect_error([&] { read_csv(d / "word.csv", -1, false, 0); }, {d / "word.csv", "line 2 column 2", "'x'"});
  dxtest::write_text(d / "header.csv", "a,b\n1,2\n");
  try {
    read_csv(d / "header.csv", -1, false, 0);
    ADD_FAILURE();
  } catch (const Error &e) {
    EXPECT_NE(e.hint().find("header: true"), std::string::npos);
  }
  dxtest::write_text(d / "ragged.csv", "1,2,3\n4,5\n");
  expect_error([&] { read_csv(d / "ragged.csv", -1, false, 0); }, {"line 2 has 2 columns, but line 1 has 3"});
  dxtest::write_text(d / "label.csv", "1,2,7\n");
  expect_error([&] { read_csv(d / "label.csv", 2, false, 3); }, {"line 1", "label 7 is outside [0, 3)"});
  expect_error([&] { read_csv(d / "label.csv", 5, false, 3); }, {"label_column 5 does not exist"});
  dxtest::write_text(d / "empty.csv", "a,b\n");
  expect_error([&] { read_csv(d / "empty.csv", -1, true, 0); }, {"no data rows"});
  dxtest::write_text(d / "inf.csv", "1,inf\n");
  expect_error([&] { read_csv(d / "inf.csv", -1, false, 0); }, {"'inf' is not a finite number"});
}

// Crafted headers, seen with the reader fuzzers (fuzz/README.md, Findings).

// A gzip file's last 4 bytes are its uncompressed size only when it ends
// with a gzip member; zlib ignores trailing bytes, and those may say 4 GiB,
// which read_file reserved (dx_idx_fuzzer: out-of-memory).
TEST(Crafted, GzipSizeGuessIsBoundedByTheFileSize) {
  TempDir d;
  const std::vector<uint8_t> idx = dxtest::idx_u8({2}, {1, 2});
  dxtest::write_bytes(d / "x.gz", idx, true);
  std::vector<uint8_t> gz = dxtest::read_bytes(d / "x.gz");
  gz.insert(gz.end(), {0xf0, 0xff, 0xff, 0xff});
  dxtest::write_bytes(d / "x.gz", gz);
  const std::vector<uint8_t> got = read_file(d / "x.gz");
  EXPECT_EQ(got, idx);
  EXPECT_LT(got.capacity(), size_t(1) << 20);
}

// Dimensions whose product wraps around 2^64 (2^20 x 2^20 x 2^24): a 16-byte
// header read as an empty array of that shape, whose element count then
// overflowed int64_t (UBSan in dx_idx_fuzzer and dx_npy_fuzzer). A zero dimension
// does not lift the bound on the others, whose product a sample's size is.
TEST(Crafted, ShapesWhoseProductOverflowsAreErrors) {
  const auto idx = dxtest::idx_u8({1u << 20, 1u << 20, 1u << 24}, {});
  expect_error([&] { parse_idx(idx.data(), idx.size(), "wrap.idx"); }, {"wrap.idx", "claims an absurd size"});
  for (const std::vector<int64_t> &shape : {std::vector<int64_t>{int64_t(1) << 40, int64_t(1) << 24},
                                            std::vector<int64_t>{0, int64_t(1) << 40, int64_t(1) << 40}}) {
    const auto npy = dxtest::npy("|u1", shape, {});
    expect_error([&] { parse_npy(npy.data(), npy.size(), "wrap.npy"); }, {"wrap.npy", "claims an absurd shape"});
  }
  const auto ok = dxtest::npy("|u1", {0, int64_t(1) << 20, int64_t(1) << 20}, {});
  EXPECT_EQ(parse_npy(ok.data(), ok.size(), "empty.npy").numel(), 0);
}

// Without a class count a label only has to be a non-negative integer; a
// float64 1e300 is one, but not an int64_t (the conversion was undefined:
// dx_npy_fuzzer, UBSan). Labels from a CSV column likewise.
TEST(Crafted, LabelsBeyondInt64AreErrors) {
  Array a;
  a.file = "y.npy";
  a.shape = {2};
  a.dtype = Dtype::F64;
  a.bytes = dxtest::raw(std::vector<double>{1, 1e300});
  expect_error([&] { to_labels(a, 0); }, {"y.npy", "label 1 is 1e+300, not a class index in [0, 2^63)"});
  a.bytes = dxtest::raw(std::vector<double>{1, 0x1p62});
  EXPECT_EQ(to_labels(a, 0)[1], int64_t(1) << 62);
  TempDir d;
  dxtest::write_text(d / "y.csv", "1,2\n3,1e300\n");
  expect_error([&] { read_csv(d / "y.csv", 1, false, 0); }, {"line 2", "label 1e+300 is not a class index in [0, 2^63)"});
}

TEST(Shuffle, IsAPermutationFixedBySeedAndEpoch) {
  auto a = epoch_order(1000, 1, 1);
  EXPECT_EQ(a, epoch_order(1000, 1, 1));
  EXPECT_NE(a, epoch_order(1000, 1, 2));
  EXPECT_NE(a, epoch_order(1000, 2, 1));
  auto sorted = a;
  std::sort(sorted.begin(), sorted.end());
  std::vector<int64_t> ident(1000);
  std::iota(ident.begin(), ident.end(), 0);
  EXPECT_EQ(sorted, ident);
  EXPECT_NE(a, ident);
  EXPECT_TRUE(epoch_order(0, 1, 1).empty());
  EXPECT_EQ(epoch_order(1, 1, 1), (std::vector<int64_t>{0}));
}

TEST(Shuffle, KnownOrderIsStable) {
  // Changing the shuffle changes every run's data order (and breaks resuming
  // from old checkpoints): these values are pinned on purpose.
  EXPECT_EQ(epoch_order(8, 1, 1), (std::vector<int64_t>{7, 1, 5, 3, 2, 0, 6, 4}));
  EXPECT_EQ(epoch_order(10, 42, 3), (std::vector<int64_t>{3, 4, 0, 6, 8, 2, 5, 9, 1, 7}));
}

TEST(BatchPlan, ShardsOfOneGlobalBatchMatchASingleRank) {
  // np 1 x batch 64 and np 2 x batch 32 cover the same global batches.
  BatchPlan one{1000, 64, 1, 0};
  BatchPlan r0{1000, 32, 2, 0}, r1{1000, 32, 2, 1};
  ASSERT_EQ(one.steps(), 16);
  ASSERT_EQ(r0.steps(), 16);
  for (int64_t s = 0; s < one.steps(); ++s) {
    int64_t lo, hi, lo0, hi0, lo1, hi1;
    one.shard(s, &lo, &hi);
    r0.shard(s, &lo0, &hi0);
    r1.shard(s, &lo1, &hi1);
    EXPECT_EQ(lo0, lo);
    EXPECT_EQ(hi0, lo1);
    EXPECT_EQ(hi1, hi);
    EXPECT_LE(hi1 - lo1 - (hi0 - lo0), 1);
  }
  int64_t lo, hi;
  one.shard(15, &lo, &hi);
  EXPECT_EQ(hi - lo, 1000 - 15 * 64); // the last batch is smaller
}

TEST(Gather, CopiesSamplesInOrder) {
  Split sp;
  sp.n = 3;
  sp.sample_floats = 2;
  sp.x = {0, 1, 10, 11, 20, 21};
  sp.y = {5, 6, 7};
  sp.has_labels = true;
  std::vector<int64_t> order = {2, 0, 1};
  float x[4];
  int64_t y[2];
  gather(sp, order, 1, 3, x, y, nullptr, AugmentKey{});
  EXPECT_EQ(std::vector<float>(x, x + 4), (std::vector<float>{0, 1, 10, 11}));
  EXPECT_EQ(std::vector<int64_t>(y, y + 2), (std::vector<int64_t>{5, 6}));
}

TEST(Synthetic, IsDeterministicAndLabelled) {
  Split a = synthetic_split("train", 10, 4, 3, 1), b = synthetic_split("train", 10, 4, 3, 1);
  EXPECT_EQ(a.x, b.x);
  EXPECT_EQ(a.y, b.y);
  for (int64_t y : a.y) EXPECT_TRUE(y >= 0 && y < 3);
  EXPECT_NE(a.x, synthetic_split("test", 10, 4, 3, 1).x);
}

// ---- mapped splits (Access::Map): the same floats as read splits ----

// An IDX file of type `type` (0x08 u8 ... 0x0E f64): big-endian dims and data.
template <typename T> std::vector<uint8_t> idx_of(uint8_t type, const std::vector<uint32_t> &dims, const std::vector<T> &v) {
  std::vector<uint8_t> b = {0, 0, type, uint8_t(dims.size())};
  for (uint32_t d : dims)
    for (int s = 24; s >= 0; s -= 8) b.push_back(uint8_t(d >> s));
  for (const T &x : v) {
    uint8_t e[sizeof(T)];
    std::memcpy(e, &x, sizeof(T));
    std::reverse(e, e + sizeof(T));
    b.insert(b.end(), e, e + sizeof(T));
  }
  return b;
}

// Three samples of shape [2, 2], per-channel normalisation, labels in [0, 4).
DatasetSpec map_spec(const std::string &format, const std::string &inputs, const std::string &labels) {
  DatasetSpec s;
  s.name = "m";
  s.format = format;
  s.train = {inputs, labels};
  s.sample = {2, 2};
  s.classes = 4;
  s.scale = 0.5;
  s.mean = {1, 2};
  s.std = {2, 4};
  return s;
}

// Every sample of a split, as gather_range copies them.
std::vector<float> gathered(const Split &sp) {
  std::vector<float> x(size_t(sp.n * sp.sample_floats));
  gather_range(sp, 0, sp.n, x.data(), nullptr, nullptr);
  return x;
}

bool same_bytes(const std::vector<float> &a, const std::vector<float> &b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), sizeof(float) * a.size()) == 0;
}

const std::vector<double> kValues = {0, 1, 2, 3, 5, 7, 11, 13, 17, 19, 23, 29};

template <typename T> std::vector<T> as(const std::vector<double> &v) { return std::vector<T>(v.begin(), v.end()); }

TEST(Map, SamplesEqualTheReadSplitForEveryDtype) {
  TempDir d;
  using dxtest::npy;
  using dxtest::raw;
  // Negative and fractional values; for int64 one that rounds differently
  // through double (as the read path has always converted) than straight to
  // float; for float64 tiny, huge and inexact ones.
  std::vector<double> neg = kValues;
  for (size_t i = 0; i < neg.size(); i += 2) neg[i] = -neg[i] * 3.75;
  std::vector<int64_t> big = as<int64_t>(neg);
  big[1] = (int64_t(1) << 60) + (int64_t(1) << 36) + 1;
  big[6] = -big[1];
  ASSERT_NE(float(double(big[1])), float(big[1]));
  const std::vector<uint8_t> u8 = {0, 1, 2, 127, 128, 200, 255, 3, 4, 5, 6, 7};
  struct File { std::string name, format; std::vector<uint8_t> bytes; };
  const std::vector<File> files = {
      {"u1.npy", "npy", npy("|u1", {3, 2, 2}, u8)},
      {"i1.npy", "npy", npy("|i1", {3, 2, 2}, raw(as<int8_t>(neg)))},
      {"i2.npy", "npy", npy("<i2", {3, 2, 2}, raw(as<int16_t>(neg)))},
      {"i4.npy", "npy", npy("<i4", {3, 2, 2}, raw(as<int32_t>(neg)))},
      {"i8.npy", "npy", npy("<i8", {3, 2, 2}, raw(big))},
      {"f4.npy", "npy", npy("<f4", {3, 2, 2}, raw(as<float>(neg)))},
      {"f8.npy", "npy", npy("<f8", {3, 2, 2}, raw(std::vector<double>{0.1, -1e30, 1e-40, 3, 4, 5, 6, 7, 8, 9, 10, 1.0 / 3}))},
      {"u8.idx", "idx", idx_of<uint8_t>(0x08, {3, 2, 2}, u8)},
      {"i8.idx", "idx", idx_of<int8_t>(0x09, {3, 2, 2}, as<int8_t>(neg))},
      {"i16.idx", "idx", idx_of<int16_t>(0x0B, {3, 2, 2}, as<int16_t>(neg))},
      {"i32.idx", "idx", idx_of<int32_t>(0x0C, {3, 2, 2}, as<int32_t>(neg))},
      {"f32.idx", "idx", idx_of<float>(0x0D, {3, 2, 2}, as<float>(neg))},
      {"f64.idx", "idx", idx_of<double>(0x0E, {3, 2, 2}, std::vector<double>{0.1, -1e30, 1e-40, 3, 4, 5, 6, 7, 8, 9, 10, 1.0 / 3})},
  };
  dxtest::write_bytes(d / "lab.npy", npy("<i8", {3}, raw(std::vector<int64_t>{3, 0, 2})));
  dxtest::write_bytes(d / "lab.idx", dxtest::idx_u8({3}, {3, 0, 2}));
  for (const File &f : files) {
    SCOPED_TRACE(f.name);
    dxtest::write_bytes(d / f.name, f.bytes);
    DatasetSpec s = map_spec(f.format, f.name, "lab." + f.format);
    Split read = load_split(s, s.train, "train", d.path.string(), Access::Read);
    Split mapped = load_split(s, s.train, "train", d.path.string(), Access::Map);
    EXPECT_FALSE(read.mapped());
    ASSERT_TRUE(mapped.mapped());
    EXPECT_TRUE(mapped.x.empty()); // no float copy of the split
    EXPECT_EQ(mapped.n, 3);
    EXPECT_EQ(mapped.source, d / f.name);
    EXPECT_EQ(mapped.y, (std::vector<int64_t>{3, 0, 2}));
    EXPECT_TRUE(same_bytes(gathered(mapped), floats(read.x)));
    EXPECT_TRUE(same_bytes(gathered(read), floats(read.x)));
  }
  EXPECT_EQ(to_floats(read_npy(d / "i8.npy"))[1], float(double(big[1])));
}

TEST(Map, NormalisesPerChannel) {
  TempDir d;
  // The Normalize test's numbers, through a mapped file: scale 0.5, mean
  // (1, 2), std (2, 4), channel = the sample's first dimension.
  dxtest::write_bytes(d / "x.npy", dxtest::npy("<f4", {1, 2, 2}, dxtest::raw(std::vector<float>{2, 4, 6, 10})));
  dxtest::write_bytes(d / "y.npy", dxtest::npy("<i8", {1}, dxtest::raw(std::vector<int64_t>{1})));
  DatasetSpec s = map_spec("npy", "x.npy", "y.npy");
  Split sp = load_split(s, s.train, "train", d.path.string(), Access::Map);
  ASSERT_TRUE(sp.mapped());
  EXPECT_EQ(gathered(sp), (std::vector<float>{0, 0.5f, 0.25f, 0.75f}));
  s.mean = {1};
  s.std = {2};
  EXPECT_EQ(gathered(load_split(s, s.train, "train", d.path.string(), Access::Map)), (std::vector<float>{0, 0.5f, 1, 2}));
  s.mean = {1, 2, 3};
  expect_error([&] { load_split(s, s.train, "train", d.path.string(), Access::Map); }, {"mean lists 3 values", "2 channels"});
}

TEST(Map, GatherGivesTheBytesOfTheReadSplit) {
  TempDir d;
  DatasetSpec s = idx_spec(d, false);
  s.scale = 1.0 / 255;
  s.mean = {0.3};
  s.std = {0.35};
  Split read = load_split(s, s.train, "train", d.path.string());
  Split mapped = load_split(s, s.train, "train", d.path.string(), Access::Map);
  ASSERT_TRUE(mapped.mapped());
  Split copy = mapped; // copies share the mapping, which outlives the original
  mapped = Split();
  const std::vector<int64_t> order = {4, 1, 3, 0, 2};
  std::vector<float> xr(4 * 6), xm(4 * 6, -1);
  int64_t yr[4], ym[4];
  gather(read, order, 1, 5, xr.data(), yr, nullptr, AugmentKey{});
  gather(copy, order, 1, 5, xm.data(), ym, nullptr, AugmentKey{});
  EXPECT_TRUE(same_bytes(xm, xr));
  EXPECT_EQ(std::vector<int64_t>(ym, ym + 4), std::vector<int64_t>(yr, yr + 4));
  EXPECT_EQ(std::vector<int64_t>(ym, ym + 4), (std::vector<int64_t>{1, 3, 0, 2}));
  // This rank's evaluation shard only: samples 2..4.
  std::vector<float> shard(2 * 6);
  gather_range(copy, 2, 4, shard.data(), yr, nullptr);
  EXPECT_TRUE(same_bytes(shard, std::vector<float>(read.x.begin() + 12, read.x.begin() + 24)));
  EXPECT_EQ(yr[0], 2);
  EXPECT_EQ(yr[1], 3);
}

TEST(Map, BadFilesAreErrorsAtLoadTime) {
  TempDir d;
  DatasetSpec s = idx_spec(d, false);
  auto load = [&] { return load_split(s, s.train, "train", d.path.string(), Access::Map); };
  auto bytes = dxtest::idx_u8({5, 2, 3}, iota_bytes(30));
  bytes.resize(bytes.size() - 4);
  dxtest::write_bytes(d / "img", bytes);
  expect_error(load, {d / "img", "truncated", "[5, 2, 3]", "30 bytes", "26"});
  dxtest::write_bytes(d / "img", {});
  expect_error(load, {d / "img", "too short"});
  dxtest::write_bytes(d / "x.npy", dxtest::npy("<f4", {2, 2}, std::vector<uint8_t>(15)));
  DatasetSpec n = map_spec("npy", "x.npy", "y.npy");
  n.sample = {2};
  expect_error([&] { load_split(n, n.train, "train", d.path.string(), Access::Map); }, {"truncated", "16 bytes", "15"});
  idx_spec(d, false);
  s.sample = {1, 28, 28};
  expect_error(load, {"train inputs", "[2, 3] (6 elements)", "[1, 28, 28] (784 elements)"});
  s.sample = {1, 2, 3};
  s.classes = 3;
  expect_error(load, {d / "lab", "label 3 is 3", "outside [0, 3)"});
  s.classes = 4;
  dxtest::write_bytes(d / "lab", dxtest::idx_u8({4}, {0, 1, 2, 3}));
  expect_error(load, {"4 labels for the 5 samples"});
  expect_error([&] { load_split(s, {"nope", "lab"}, "train", d.path.string(), Access::Map); }, {d / "nope", "does not exist"});
}

TEST(Map, NonFiniteInputIsAnErrorWhenGathered) {
  TempDir d;
  std::vector<float> v = {1, 2, 3, 4, 5, std::nanf(""), 7, 8};
  dxtest::write_bytes(d / "x.npy", dxtest::npy("<f4", {4, 2}, dxtest::raw(v)));
  dxtest::write_bytes(d / "y.npy", dxtest::npy("<i8", {4}, dxtest::raw(std::vector<int64_t>{0, 1, 2, 3})));
  DatasetSpec s = map_spec("npy", "x.npy", "y.npy");
  s.sample = {2};
  s.mean = {0};
  s.std = {1};
  Split sp = load_split(s, s.train, "train", d.path.string(), Access::Map);
  float x[4];
  gather_range(sp, 0, 2, x, nullptr, nullptr); // samples 0 and 1 are fine
  expect_error([&] { gather_range(sp, 2, 4, x, nullptr, nullptr); }, {d / "x.npy", "non-finite", "element 5"});
  // The read path refuses the file when it loads it, with the same message.
  expect_error([&] { load_split(s, s.train, "train", d.path.string()); }, {d / "x.npy", "non-finite", "element 5"});
}

// convert's float32 path (blocks checked, then converted, in vector code):
// the floats of the scalar rule, bit for bit, in place or not, and the index
// of the first non-finite float wherever it lies (in a block, at a block's
// edge, in the tail), whatever follows it.
TEST(Convert, Float32IsTheScalarRuleAndFindsTheFirstNonFinite) {
  const float scale = 1.0f / 255, mean = 0.2860402f, inv_std = 1.0f / 0.3530239f;
  for (int64_t n : {1, 7, 63, 64, 65, 128, 200, 4096}) {
    std::vector<float> x = dxtest::random_floats(size_t(n), 7, -300.0f, 300.0f);
    x[0] = std::numeric_limits<float>::max(), x[size_t(n) / 2] = -0.0f; // finite too
    std::vector<float> out(static_cast<size_t>(n)), in_place = x;
    ASSERT_EQ(
        convert(reinterpret_cast<const uint8_t *>(x.data()), Dtype::F32, false, n, scale, mean, inv_std, out.data()),
        -1);
    ASSERT_EQ(convert(reinterpret_cast<const uint8_t *>(in_place.data()), Dtype::F32, false, n, scale, mean, inv_std,
                      in_place.data()),
              -1);
    for (int64_t j = 0; j < n; ++j) {
      const float want = (float(double(x[size_t(j)])) * scale - mean) * inv_std;
      ASSERT_EQ(std::memcmp(&out[size_t(j)], &want, 4), 0) << n << " " << j;
      ASSERT_EQ(std::memcmp(&in_place[size_t(j)], &want, 4), 0) << n << " " << j;
    }
    for (float special :
         {std::nanf(""), std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity()})
      for (int64_t at : {int64_t(0), n / 3, n - 1, std::min<int64_t>(64, n - 1)}) {
        std::vector<float> y = x;
        y[size_t(at)] = special;
        if (at + 1 < n) y[size_t(n) - 1] = std::nanf(""); // a later one does not hide it
        for (bool same : {false, true}) {
          std::vector<float> o(static_cast<size_t>(n));
          EXPECT_EQ(convert(reinterpret_cast<const uint8_t *>(y.data()), Dtype::F32, false, n, scale, mean, inv_std,
                            same ? y.data() : o.data()),
                    at)
              << n << " " << at << " " << special;
        }
      }
  }
}

// convert's block path for 8- and 16-bit integers: the floats of the scalar
// rule (through double), bit for bit, across block edges and tails.
template <typename T> void expect_integers_convert_as_the_scalar_rule(Dtype t) {
  const float scale = 1.0f / 255, mean = 0.2860402f, inv_std = 1.0f / 0.3530239f;
  for (int64_t n : {1, 63, 64, 65, 200, 784}) {
    std::vector<T> x(static_cast<size_t>(n));
    for (int64_t j = 0; j < n; ++j) x[size_t(j)] = T(j * 2654435761u >> 7); // all over T's range
    x[0] = std::numeric_limits<T>::min(), x[size_t(n) - 1] = std::numeric_limits<T>::max();
    std::vector<float> out(static_cast<size_t>(n));
    ASSERT_EQ(convert(reinterpret_cast<const uint8_t *>(x.data()), t, false, n, scale, mean, inv_std, out.data()), -1);
    for (int64_t j = 0; j < n; ++j) {
      const float want = (float(double(x[size_t(j)])) * scale - mean) * inv_std;
      ASSERT_EQ(std::memcmp(&out[size_t(j)], &want, 4), 0) << n << " " << j;
    }
  }
}

TEST(Convert, SmallIntegersAreTheScalarRule) {
  expect_integers_convert_as_the_scalar_rule<uint8_t>(Dtype::U8);
  expect_integers_convert_as_the_scalar_rule<int8_t>(Dtype::I8);
  expect_integers_convert_as_the_scalar_rule<uint16_t>(Dtype::U16);
  expect_integers_convert_as_the_scalar_rule<int16_t>(Dtype::I16);
}

// The page faults of touching each 4 KiB page of `bytes` bytes at p.
long faults_touching(const uint8_t *p, size_t bytes) {
  rusage before{}, after{};
  getrusage(RUSAGE_SELF, &before);
  volatile unsigned sum = 0;
  for (size_t i = 0; i < bytes; i += 4096) sum = sum + p[i];
  getrusage(RUSAGE_SELF, &after);
  return after.ru_minflt - before.ru_minflt;
}

// A mapped file of a small fraction of memory has its pages mapped when it
// is opened: touching every page afterwards costs no page fault, where a
// plain mapping of the same file faults once per 64 KiB (the kernel's
// fault-around; the file is written 4 KiB at a time, as the page cache then
// holds it in 4 KiB pages). Needs Linux 5.14's MADV_POPULATE_READ.
TEST(Map, SmallFilesArePopulatedWhenMapped) {
  utsname u{};
  int major = 0, minor = 0;
  if (uname(&u) != 0 || std::sscanf(u.release, "%d.%d", &major, &minor) != 2 || major * 100 + minor < 514)
    GTEST_SKIP() << "MADV_POPULATE_READ needs Linux 5.14";
  TempDir d;
  const size_t bytes = size_t(16) << 20;
  {
    std::FILE *w = std::fopen((d / "x.bin").c_str(), "wb");
    ASSERT_NE(w, nullptr);
    const std::vector<uint8_t> page(4096, 1);
    for (size_t at = 0; at < bytes; at += page.size()) {
      ASSERT_EQ(std::fwrite(page.data(), 1, page.size(), w), page.size());
      ASSERT_EQ(std::fflush(w), 0);
    }
    ASSERT_EQ(std::fclose(w), 0);
  }
  const int fd = open((d / "x.bin").c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  void *plain = mmap(nullptr, bytes, PROT_READ, MAP_SHARED, fd, 0);
  close(fd);
  ASSERT_NE(plain, MAP_FAILED);
  const long unpopulated = faults_touching(static_cast<const uint8_t *>(plain), bytes);
  munmap(plain, bytes);
  if (unpopulated < 64)
    GTEST_SKIP() << "this kernel maps the file in large pieces anyway (" << unpopulated << " faults)";
  std::shared_ptr<const MappedFile> f = map_file(d / "x.bin");
  ASSERT_TRUE(f && f->size == bytes);
  EXPECT_LT(faults_touching(f->data, bytes), 16) << "a plain mapping took " << unpopulated;
}

TEST(Map, CompressedAndCsvFilesAreRead) {
  TempDir d;
  DatasetSpec s = idx_spec(d, true);
  Split sp = load_split(s, s.train, "train", d.path.string(), Access::Map);
  EXPECT_FALSE(sp.mapped());
  ASSERT_EQ(sp.x.size(), 30u);
  EXPECT_EQ(sp.x[7], 7.0f);
  dxtest::write_text(d / "digits.csv", "0,16,1\n8,4,0\n");
  DatasetSpec c;
  c.format = "csv";
  c.train = {"digits.csv"};
  c.sample = {2};
  c.classes = 2;
  c.label_column = 2;
  Split cs = load_split(c, c.train, "train", d.path.string(), Access::Map);
  EXPECT_FALSE(cs.mapped());
  EXPECT_EQ(floats(cs.x), (std::vector<float>{0, 16, 8, 4}));
}

} // namespace

namespace {

// The real thing, when Debian's dataset-fashion-mnist is installed: every
// sample read, labels balanced, normalised to mean ~0 and std ~1.
TEST(Load, FashionMnistIfInstalled) {
  const std::string dir = "/usr/share/datasets/fashion-mnist/";
  if (!std::filesystem::exists(dir + "train-images-idx3-ubyte.gz")) GTEST_SKIP() << "dataset-fashion-mnist not installed";
  DatasetSpec s;
  s.name = "fashion_mnist";
  s.format = "idx";
  s.train = {dir + "train-images-idx3-ubyte.gz", dir + "train-labels-idx1-ubyte.gz"};
  s.sample = {1, 28, 28};
  s.classes = 10;
  s.scale = 1.0 / 255.0;
  s.mean = {0.2860};
  s.std = {0.3530};
  Split sp = load_split(s, s.train, "train", "");
  ASSERT_EQ(sp.n, 60000);
  ASSERT_EQ(sp.x.size(), 60000u * 784);
  std::vector<int64_t> count(10, 0);
  for (int64_t y : sp.y) ++count[size_t(y)];
  for (int64_t c : count) EXPECT_EQ(c, 6000);
  double sum = 0, sum2 = 0;
  for (float v : sp.x) {
    sum += v;
    sum2 += double(v) * v;
  }
  const double mean = sum / double(sp.x.size()), var = sum2 / double(sp.x.size()) - mean * mean;
  EXPECT_NEAR(mean, 0.0, 0.01);
  EXPECT_NEAR(std::sqrt(var), 1.0, 0.01);
}

} // namespace

// ---- Augmentation of array samples (data/Augment.h) ----

namespace {

DatasetSpec augmented_spec(std::vector<int64_t> sample, std::vector<std::string> augment) {
  DatasetSpec s;
  s.format = "npy";
  s.sample = std::move(sample);
  s.augment = std::move(augment);
  return s;
}

} // namespace

// Output axis a reads input axis perm[a], mirrored when mirror[a]: a 2 x 3
// map transposed and mirrored along the new rows, then a 2 x 2 x 2 one.
TEST(ArrayAugment, TransformsMapsAsTheTransformSays) {
  std::vector<float> scratch;
  float m[6] = {0, 1, 2, 3, 4, 5}; // [[0, 1, 2], [3, 4, 5]], mirrored along its rows
  transform_maps(SpatialTransform{2, {0, 1}, {false, true}}, {2, 3}, 1, m, scratch);
  EXPECT_EQ(std::vector<float>(m, m + 6), (std::vector<float>{2, 1, 0, 5, 4, 3}));
  float sq[9] = {0, 1, 2, 3, 4, 5, 6, 7, 8};
  transform_maps(SpatialTransform{2, {1, 0}, {true, false}}, {3, 3}, 1, sq, scratch);
  // out[i][j] = in[j][2 - i]: the transpose, mirrored along its rows.
  EXPECT_EQ(std::vector<float>(sq, sq + 9), (std::vector<float>{2, 5, 8, 1, 4, 7, 0, 3, 6}));
  std::vector<int64_t> cube(16), iscratch;
  std::iota(cube.begin(), cube.end(), 0); // two maps of 2 x 2 x 2
  transform_maps(SpatialTransform{3, {2, 0, 1}, {false, false, true}}, {2, 2, 2}, 2, cube.data(), iscratch);
  for (int64_t m2 = 0; m2 < 2; ++m2)
    for (int64_t i = 0; i < 2; ++i)
      for (int64_t j = 0; j < 2; ++j)
        for (int64_t k = 0; k < 2; ++k) {
          // out axes (i, j, k) read in axes (2, 0, 1): in[j][1 - k][i].
          int64_t in = m2 * 8 + j * 4 + (1 - k) * 2 + i;
          EXPECT_EQ(cube[size_t(m2 * 8 + i * 4 + j * 2 + k)], in);
        }
}

// flip alone never permutes; with transpose, every one of the cube's 48
// symmetries turns up over 2,000 samples, each about as often; the draws
// depend on the seed, the epoch and the sample only.
TEST(ArrayAugment, DrawsEverySymmetryOfTheCube) {
  ArrayAugment flips = *array_augment(augmented_spec({4, 8, 8, 8}, {"flip"}));
  ArrayAugment both = *array_augment(augmented_spec({4, 8, 8, 8}, {"flip", "transpose"}));
  const AugmentKey key{7, 3};
  using Perm = decltype(SpatialTransform::perm);
  using Mirror = decltype(SpatialTransform::mirror);
  std::map<std::pair<Perm, Mirror>, int> seen;
  int mirrored = 0;
  for (int64_t i = 0; i < 2000; ++i) {
    SpatialTransform f = spatial_transform(flips, key, i);
    EXPECT_EQ(f.axes, 3u);
    EXPECT_EQ(f.perm, (Perm{0, 1, 2}));
    mirrored += int(f.mirror[0]);
    SpatialTransform t = spatial_transform(both, key, i);
    ++seen[{t.perm, t.mirror}];
    SpatialTransform again = spatial_transform(both, key, i);
    EXPECT_EQ(again.perm, t.perm);
    EXPECT_EQ(again.mirror, t.mirror);
  }
  EXPECT_EQ(seen.size(), 48u);
  for (const auto &[t, n] : seen) EXPECT_GT(n, 15) << "a symmetry drawn " << n << " times in 2,000";
  EXPECT_GT(mirrored, 900);
  EXPECT_LT(mirrored, 1100);
  int differ = 0;
  for (int64_t i = 0; i < 100; ++i)
    differ += int(spatial_transform(both, AugmentKey{7, 4}, i).perm != spatial_transform(both, key, i).perm);
  EXPECT_GT(differ, 50);
}

// In training, gather() applies a sample's transform to every channel and
// to its per-pixel labels alike; the evaluation's gather_range does not.
TEST(ArrayAugment, GatherMovesPerPixelLabelsWithTheInputs) {
  DatasetSpec spec = augmented_spec({2, 3, 3}, {"flip", "transpose"});
  spec.train = {"x.npy", "y.npy"};
  spec.classes = 100;
  spec.label_shape = {3, 3};
  Split sp;
  sp.n = 40;
  sp.sample_floats = 18;
  sp.has_labels = true;
  sp.label_elems = 9;
  // Sample i, channel c, pixel p holds i * 100 + c * 10 + p; its label is p.
  for (int64_t i = 0; i < sp.n; ++i) {
    for (int64_t c = 0; c < 2; ++c)
      for (int64_t p = 0; p < 9; ++p) sp.x.push_back(float(i * 100 + c * 10 + p));
    for (int64_t p = 0; p < 9; ++p) sp.y.push_back(p);
  }
  sp.augment = std::make_shared<const ArrayAugment>(*array_augment(spec));
  EXPECT_EQ(sp.augment->label_maps, 1);
  std::vector<int64_t> order(size_t(sp.n));
  std::iota(order.begin(), order.end(), 0);
  std::vector<float> bx(size_t(sp.n * 18));
  std::vector<int64_t> by(size_t(sp.n * 9));
  gather(sp, order, 0, sp.n, bx.data(), by.data(), nullptr, AugmentKey{1, 1});
  int moved = 0;
  for (int64_t i = 0; i < sp.n; ++i)
    for (int64_t p = 0; p < 9; ++p) {
      const int64_t from = by[size_t(i * 9 + p)]; // where this pixel's label came from
      EXPECT_EQ(bx[size_t(i * 18 + p)], float(i * 100 + from));
      EXPECT_EQ(bx[size_t(i * 18 + 9 + p)], float(i * 100 + 10 + from));
      moved += int(from != p);
    }
  EXPECT_GT(moved, 0);
  gather_range(sp, 0, sp.n, bx.data(), by.data(), nullptr);
  for (int64_t i = 0; i < sp.n * 9; ++i) EXPECT_EQ(by[size_t(i)], i % 9);
}

TEST(ArrayAugment, BadSettingsInMetadataAreErrors) {
  expect_error([] { array_augment(augmented_spec({1, 4, 5}, {"transpose"})); },
               {"transpose", "[1, 4, 5]", "different lengths"});
  expect_error([] { array_augment(augmented_spec({8}, {"flip"})); }, {"[8]", "no spatial axes"});
  expect_error([] { array_augment(augmented_spec({1, 4, 4}, {"rotate"})); }, {"unknown augmentation 'rotate'"});
  EXPECT_FALSE(array_augment(augmented_spec({1, 4, 4}, {})).has_value());
}
