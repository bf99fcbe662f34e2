// Image folders on small folders of PNGs and JPEGs written here: listing and
// labels, decoding, the evaluation and training crops, flips, errors, and
// that prefetched batches are the synchronous ones.
#include "ExpectError.h"
#include "TestUtil.h"
#include "common/Check.h"
#include "data/Augment.h"
#include "data/Dataset.h"
#include "data/Image.h"
#include "data/ImageFolder.h"
#include "data/Order.h"
#include "data/Prefetch.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <numeric>
#include <set>

#include <jpeglib.h>
#include <png.h>

using namespace dxrt;
using dxtest::expect_error;
using dxtest::TempDir;
namespace fs = std::filesystem;

namespace {

// Pixels (HWC) whose value tells where they are: every one differs from its
// neighbours, so a wrong crop or flip shows.
std::vector<uint8_t> pattern(int h, int w, int c, int salt = 0) {
  std::vector<uint8_t> px(size_t(h * w * c));
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int k = 0; k < c; ++k) px[size_t((y * w + x) * c + k)] = uint8_t((y * 13 + x * 7 + k * 71 + salt) % 256);
  return px;
}

// A smooth image, for JPEG's lossy coding.
std::vector<uint8_t> gradient(int h, int w, int c) {
  std::vector<uint8_t> px(size_t(h * w * c));
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int k = 0; k < c; ++k) px[size_t((y * w + x) * c + k)] = uint8_t(40 + (y * 150) / h + (x * 50) / w + k * 10);
  return px;
}

void write_png(const std::string &path, int h, int w, int c, const std::vector<uint8_t> &px) {
  png_image img{};
  img.version = PNG_IMAGE_VERSION;
  img.width = png_uint_32(w);
  img.height = png_uint_32(h);
  img.format = c == 1 ? PNG_FORMAT_GRAY : c == 3 ? PNG_FORMAT_RGB : PNG_FORMAT_RGBA;
  ASSERT_TRUE(png_image_write_to_file(&img, path.c_str(), 0, px.data(), 0, nullptr)) << img.message;
}

void write_jpeg(const std::string &path, int h, int w, int c, const std::vector<uint8_t> &px, int quality = 95) {
  jpeg_compress_struct cinfo;
  jpeg_error_mgr jerr;
  cinfo.err = jpeg_std_error(&jerr);
  jpeg_create_compress(&cinfo);
  std::FILE *f = std::fopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  jpeg_stdio_dest(&cinfo, f);
  cinfo.image_width = JDIMENSION(w);
  cinfo.image_height = JDIMENSION(h);
  cinfo.input_components = c;
  cinfo.in_color_space = c == 1 ? JCS_GRAYSCALE : JCS_RGB;
  jpeg_set_defaults(&cinfo);
  jpeg_set_quality(&cinfo, quality, TRUE);
  jpeg_start_compress(&cinfo, TRUE);
  while (cinfo.next_scanline < cinfo.image_height) {
    JSAMPROW row = const_cast<uint8_t *>(px.data()) + size_t(cinfo.next_scanline) * size_t(w * c);
    jpeg_write_scanlines(&cinfo, &row, 1);
  }
  jpeg_finish_compress(&cinfo);
  jpeg_destroy_compress(&cinfo);
  std::fclose(f);
}

DatasetSpec folder_spec(std::vector<int64_t> sample, std::vector<std::string> augment = {}) {
  DatasetSpec s;
  s.name = "imgs";
  s.format = "folder";
  s.train = {"train"};
  s.sample = std::move(sample);
  s.augment = std::move(augment);
  return s;
}

// Three classes of images of different sizes and kinds (RGB and grey, PNG and
// JPEG, one named .JPEG but a PNG), and files that are not images.
void make_folder(const TempDir &d, const std::string &split = "train") {
  const fs::path root = d.path / split;
  for (const char *c : {"cat", "ant", "dog"}) fs::create_directories(root / c);
  write_png((root / "cat" / "b.png").string(), 20, 30, 3, pattern(20, 30, 3, 1));
  write_jpeg((root / "cat" / "a.jpg").string(), 40, 24, 3, gradient(40, 24, 3));
  write_png((root / "ant" / "z.PNG").string(), 16, 16, 1, pattern(16, 16, 1, 2)); // grey
  write_jpeg((root / "ant" / "y.jpeg").string(), 33, 47, 1, gradient(33, 47, 1)); // grey JPEG
  write_png((root / "ant" / "x.JPEG").string(), 25, 19, 3, pattern(25, 19, 3, 3)); // a PNG named .JPEG
  write_png((root / "dog" / "c.png").string(), 64, 48, 3, pattern(64, 48, 3, 4));
  write_jpeg((root / "dog" / "d.jpg").string(), 21, 60, 3, gradient(21, 60, 3));
  dxtest::write_text((root / "dog" / "notes.txt").string(), "not an image");
  dxtest::write_text((root / "README").string(), "not a class");
  fs::create_directories(root / "dog" / "nested");
  write_png((root / "dog" / "nested" / "e.png").string(), 8, 8, 3, pattern(8, 8, 3)); // not listed
}

} // namespace

TEST(ImageFolder, ListsClassesInSortedOrderAndFilesByName) {
  TempDir d;
  make_folder(d);
  ImageFolder f = list_image_folder(d / "train");
  EXPECT_EQ(f.classes, (std::vector<std::string>{"ant", "cat", "dog"}));
  std::vector<std::string> names;
  for (const std::string &p : f.files) names.push_back(fs::path(p).parent_path().filename().string() + "/" + fs::path(p).filename().string());
  EXPECT_EQ(names, (std::vector<std::string>{"ant/x.JPEG", "ant/y.jpeg", "ant/z.PNG", "cat/a.jpg", "cat/b.png",
                                             "dog/c.png", "dog/d.jpg"}));
  EXPECT_EQ(f.labels, (std::vector<int64_t>{0, 0, 0, 1, 1, 2, 2}));
}

TEST(ImageFolder, FolderErrorsNameTheDirectory) {
  TempDir d;
  expect_error([&] { list_image_folder(d / "missing"); }, {d / "missing", "not a directory"});
  fs::create_directories(d.path / "flat");
  write_png(d / "flat/a.png", 4, 4, 3, pattern(4, 4, 3));
  expect_error([&] { list_image_folder(d / "flat"); }, {d / "flat", "no class sub-folders"});
  fs::create_directories(d.path / "t/full");
  fs::create_directories(d.path / "t/empty");
  write_png(d / "t/full/a.png", 4, 4, 3, pattern(4, 4, 3));
  dxtest::write_text(d / "t/empty/readme.txt", "no images here");
  expect_error([&] { list_image_folder(d / "t"); }, {(d.path / "t" / "empty").string(), "has no images"});
}

TEST(ImageFolder, ClassesMustMatchTheDatasetBlock) {
  TempDir d;
  make_folder(d);
  DatasetSpec spec = folder_spec({3, 8, 8});
  spec.classes = 5;
  expect_error([&] { load_split(spec, spec.train, "train", d.path.string()); },
               {d / "train", "3 class sub-folders", "classes: 5"});
  spec.classes = 3;
  Split s = load_split(spec, spec.train, "train", d.path.string());
  EXPECT_EQ(s.n, 7);
  EXPECT_TRUE(s.has_labels && s.decoded() && s.x.empty());
  EXPECT_EQ(s.y, (std::vector<int64_t>{0, 0, 0, 1, 1, 2, 2}));
}

TEST(Image, DecodesPngExactly) {
  TempDir d;
  ImageReader r;
  write_png(d / "rgb.png", 5, 7, 3, pattern(5, 7, 3));
  const Image &rgb = r.read(d / "rgb.png");
  EXPECT_EQ(rgb.height, 5);
  EXPECT_EQ(rgb.width, 7);
  EXPECT_EQ(rgb.channels, 3);
  EXPECT_EQ(rgb.pixels, pattern(5, 7, 3));
  write_png(d / "grey.png", 6, 3, 1, pattern(6, 3, 1));
  const Image &grey = r.read(d / "grey.png");
  EXPECT_EQ(grey.channels, 1);
  EXPECT_EQ(grey.pixels, pattern(6, 3, 1));
  // Alpha is dropped, not composited (PIL's convert("RGB")).
  std::vector<uint8_t> rgba = pattern(4, 4, 4);
  write_png(d / "rgba.png", 4, 4, 4, rgba);
  const Image &noalpha = r.read(d / "rgba.png");
  ASSERT_EQ(noalpha.channels, 3);
  for (int i = 0; i < 16; ++i)
    for (int k = 0; k < 3; ++k) EXPECT_EQ(noalpha.pixels[size_t(i * 3 + k)], rgba[size_t(i * 4 + k)]);
}

TEST(Image, DecodesJpegClosely) {
  TempDir d;
  ImageReader r;
  for (int c : {3, 1}) {
    const std::string p = d / (c == 3 ? "rgb.jpg" : "grey.jpg");
    const std::vector<uint8_t> px = gradient(24, 40, c);
    write_jpeg(p, 24, 40, c, px, 95);
    const Image &img = r.read(p);
    ASSERT_EQ(img.height, 24);
    ASSERT_EQ(img.width, 40);
    ASSERT_EQ(img.channels, c);
    double worst = 0, sum = 0;
    for (size_t i = 0; i < px.size(); ++i) {
      double e = std::abs(double(img.pixels[i]) - double(px[i]));
      worst = std::max(worst, e);
      sum += e;
    }
    EXPECT_LE(worst, 12) << c;
    EXPECT_LE(sum / double(px.size()), 2.0) << c;
  }
}

TEST(Image, CorruptFilesAreErrorsNamingThem) {
  TempDir d;
  ImageReader r;
  dxtest::write_text(d / "text.jpg", "this is not an image");
  expect_error([&] { r.read(d / "text.jpg"); }, {d / "text.jpg", "not a JPEG or PNG"});
  dxtest::write_text(d / "empty.png", "");
  expect_error([&] { r.read(d / "empty.png"); }, {d / "empty.png", "empty"});
  write_jpeg(d / "ok.jpg", 32, 32, 3, gradient(32, 32, 3));
  std::vector<uint8_t> jpg = dxtest::read_bytes(d / "ok.jpg");
  jpg.resize(jpg.size() / 2);
  dxtest::write_bytes(d / "half.jpg", jpg);
  expect_error([&] { r.read(d / "half.jpg"); }, {d / "half.jpg", "JPEG"});
  jpg.resize(40); // inside the headers
  dxtest::write_bytes(d / "head.jpg", jpg);
  expect_error([&] { r.read(d / "head.jpg"); }, {d / "head.jpg", "JPEG"});
  write_png(d / "ok.png", 32, 32, 3, pattern(32, 32, 3));
  std::vector<uint8_t> png = dxtest::read_bytes(d / "ok.png");
  png.resize(png.size() / 2);
  dxtest::write_bytes(d / "half.png", png);
  expect_error([&] { r.read(d / "half.png"); }, {d / "half.png", "corrupt PNG"});
  png = dxtest::read_bytes(d / "ok.png");
  for (size_t i = 40; i < png.size(); i += 7) png[i] ^= 0x5a; // bad CRCs and data
  dxtest::write_bytes(d / "bad.png", png);
  expect_error([&] { r.read(d / "bad.png"); }, {d / "bad.png", "corrupt PNG"});
  expect_error([&] { r.read(d / "none.png"); }, {d / "none.png", "cannot open"});
  // The reader is still usable after errors.
  EXPECT_EQ(r.read(d / "ok.png").pixels, pattern(32, 32, 3));
}

// A header can claim more pixels than any image DeepEx decodes (PIL's
// limit, 178,956,970): they were allocated before one was decoded, 4.2 GB
// from a 357-byte grey JPEG claiming 65000 x 65000 (out-of-memory in
// dx_image_fuzzer; fuzz/README.md, Findings). 20000 x 10000 grey keeps what
// the old code allocated to 200 MB.
TEST(Image, HeadersClaimingTooManyPixelsAreErrors) {
  TempDir d;
  ImageReader r;
  write_jpeg(d / "small.jpg", 8, 8, 1, gradient(8, 8, 1));
  std::vector<uint8_t> jpg = dxtest::read_bytes(d / "small.jpg");
  const uint8_t sof0[2] = {0xff, 0xc0}; // baseline frame header: length, precision, height, width
  const auto sof = std::search(jpg.begin(), jpg.end(), sof0, sof0 + 2);
  ASSERT_NE(sof, jpg.end());
  const uint8_t dims[4] = {10000 >> 8, 10000 & 0xff, 20000 >> 8, 20000 & 0xff}; // height, width
  std::copy(dims, dims + 4, sof + 5);
  dxtest::write_bytes(d / "big.jpg", jpg);
  expect_error([&] { r.read(d / "big.jpg"); }, {d / "big.jpg", "20000 x 10000 pixels is more than the 178956970"});

  write_png(d / "small.png", 8, 8, 1, pattern(8, 8, 1));
  std::vector<uint8_t> png = dxtest::read_bytes(d / "small.png");
  const uint8_t ihdr[8] = {0, 0, 20000 >> 8, 20000 & 0xff, 0, 0, 10000 >> 8, 10000 & 0xff}; // width, height
  std::copy(ihdr, ihdr + 8, png.begin() + 16);
  const uLong crc = crc32(0L, png.data() + 12, 17); // IHDR's type and data
  for (int i = 0; i < 4; ++i) png[size_t(29 + i)] = uint8_t(crc >> (24 - 8 * i));
  dxtest::write_bytes(d / "big.png", png);
  expect_error([&] { r.read(d / "big.png"); }, {d / "big.png", "20000 x 10000 pixels"});
}

TEST(Augment, CenterCropIsResizeShorterSideThenCentre) {
  // 8 x 16 image, 7 x 7 sample: the shorter side becomes round(7 * 256 / 224)
  // = 8, so no resize; the crop starts at row round(0.5) = 0 and column
  // round(4.5) = 4 (halves to even, as Python).
  TempDir d;
  write_png(d / "a.png", 8, 16, 3, pattern(8, 16, 3));
  ImageReader r;
  const Image &img = r.read(d / "a.png");
  const CropBox box = center_crop(8, 16, 7, 7);
  EXPECT_DOUBLE_EQ(box.top, 0);
  EXPECT_DOUBLE_EQ(box.left, 4);
  EXPECT_DOUBLE_EQ(box.height, 7);
  EXPECT_DOUBLE_EQ(box.width, 7);
  Normalization nm;
  nm.scale = 1;
  nm.mean = {0, 0, 0};
  nm.inv_std = {1, 1, 1};
  nm.plane = 49;
  ResampleScratch s;
  std::vector<float> out(3 * 49);
  resample(img, box, false, nm, 3, 7, 7, "a.png", s, out.data());
  for (int c = 0; c < 3; ++c)
    for (int y = 0; y < 7; ++y)
      for (int x = 0; x < 7; ++x) ASSERT_EQ(out[size_t(c * 49 + y * 7 + x)], float(img.at(y, x + 4)[c])) << c << y << x;
  // ImageNet's typical 375 x 500 at 224: resized to 256 x 341, crop at (16, 58).
  const CropBox big = center_crop(375, 500, 224, 224);
  EXPECT_NEAR(big.top, 16 * 375.0 / 256, 1e-9);
  EXPECT_NEAR(big.left, 58 * 500.0 / 341, 1e-9);
  EXPECT_NEAR(big.height, 224 * 375.0 / 256, 1e-9);
  EXPECT_NEAR(big.width, 224 * 500.0 / 341, 1e-9);
}

TEST(Augment, ResizeAveragesWhenShrinking) {
  // A 2x shrink of columns alternating 0/200 gives their mean inside (PIL's
  // antialiasing: the filter spans 4 columns, weights 1/8, 3/8, 3/8, 1/8);
  // at the edges the filter is cut and renormalised (PIL gives 86 and 114).
  Image img;
  img.height = 4;
  img.width = 8;
  img.channels = 1;
  for (int y = 0; y < 4; ++y)
    for (int x = 0; x < 8; ++x) img.pixels.push_back(x % 2 ? 200 : 0);
  Normalization nm;
  nm.mean = {0};
  nm.inv_std = {1};
  ResampleScratch s;
  std::vector<float> out(8);
  CropBox box{0, 0, 4, 8, 0, 0, 4, 8};
  resample(img, box, false, nm, 1, 2, 4, "t", s, out.data());
  for (int y = 0; y < 2; ++y) {
    EXPECT_EQ(out[size_t(y * 4)], 86);
    EXPECT_EQ(out[size_t(y * 4 + 1)], 100);
    EXPECT_EQ(out[size_t(y * 4 + 2)], 100);
    EXPECT_EQ(out[size_t(y * 4 + 3)], 114);
  }
}

TEST(Augment, RandomResizedCropIsKeyedBySeedEpochAndIndex) {
  std::set<std::tuple<double, double, double, double>> e1, e2;
  for (int64_t i = 0; i < 16; ++i) {
    const CropBox a = random_resized_crop(300, 400, AugmentKey{7, 1}, i);
    const CropBox b = random_resized_crop(300, 400, AugmentKey{7, 1}, i);
    EXPECT_EQ(a.top, b.top);
    EXPECT_EQ(a.left, b.left);
    EXPECT_EQ(a.height, b.height);
    EXPECT_EQ(a.width, b.width);
    EXPECT_GE(a.top, 0);
    EXPECT_GE(a.left, 0);
    EXPECT_LE(a.top + a.height, 300);
    EXPECT_LE(a.left + a.width, 400);
    EXPECT_EQ(a.clip_top, int64_t(a.top));
    EXPECT_EQ(a.clip_bottom, int64_t(a.top + a.height));
    const double frac = a.height * a.width / (300.0 * 400.0), ratio = a.width / a.height;
    EXPECT_GE(frac, 0.07);
    EXPECT_LE(frac, 1.0);
    EXPECT_GE(ratio, 0.7);
    EXPECT_LE(ratio, 1.4);
    e1.insert({a.top, a.left, a.height, a.width});
    const CropBox c = random_resized_crop(300, 400, AugmentKey{7, 2}, i);
    e2.insert({c.top, c.left, c.height, c.width});
  }
  EXPECT_GT(e1.size(), 12u); // samples differ
  EXPECT_NE(e1, e2);         // and epochs differ
  // A sliver no crop fits: the centre crop at the nearest allowed ratio.
  const CropBox f = random_resized_crop(2, 100, AugmentKey{1, 1}, 0);
  EXPECT_EQ(f.height, 2);
  EXPECT_EQ(f.width, 3); // round(2 * 4 / 3)
  EXPECT_EQ(f.left, 48);
}

TEST(Augment, FlipIsHalfTheTimeAndMirrors) {
  int flips = 0;
  for (int64_t i = 0; i < 2000; ++i) flips += random_flip(AugmentKey{3, 1}, i);
  EXPECT_GT(flips, 900);
  EXPECT_LT(flips, 1100);
  // A flip-only training transform is the evaluation crop, mirrored for the
  // samples whose draw says so.
  TempDir d;
  make_folder(d);
  DatasetSpec spec = folder_spec({3, 12, 12}, {"flip"});
  Split s = load_split(spec, spec.train, "train", d.path.string());
  const AugmentKey key{3, 1};
  std::vector<float> plain(size_t(s.sample_floats)), aug(size_t(s.sample_floats));
  int seen[2] = {0, 0};
  for (int64_t i = 0; i < s.n; ++i) {
    image_sample(*s.images, i, nullptr, plain.data());
    image_sample(*s.images, i, &key, aug.data());
    const bool flipped = random_flip(key, i);
    ++seen[flipped];
    for (int c = 0; c < 3; ++c)
      for (int y = 0; y < 12; ++y)
        for (int x = 0; x < 12; ++x)
          ASSERT_EQ(aug[size_t(c * 144 + y * 12 + x)], plain[size_t(c * 144 + y * 12 + (flipped ? 11 - x : x))]);
  }
  EXPECT_GT(seen[0] * seen[1], 0) << "both cases occur among the 7 samples";
}

TEST(Augment, GreyFillsEveryChannelAndRgbIntoGreyIsAnError) {
  TempDir d;
  make_folder(d);
  DatasetSpec spec = folder_spec({3, 10, 10});
  spec.scale = 1.0 / 255;
  spec.mean = {0.5, 0.25, 0};
  spec.std = {0.5, 0.25, 1};
  Split s = load_split(spec, spec.train, "train", d.path.string());
  std::vector<float> x(size_t(s.sample_floats));
  image_sample(*s.images, 2, nullptr, x.data()); // ant/z.PNG, grey, 16 x 16
  for (int i = 0; i < 100; ++i) {
    const float v0 = x[size_t(i)] * 0.5f + 0.5f, v1 = x[size_t(100 + i)] * 0.25f + 0.25f, v2 = x[size_t(200 + i)];
    EXPECT_NEAR(v0, v1, 1e-5);
    EXPECT_NEAR(v0, v2, 1e-5);
    EXPECT_NEAR(v0 * 255, std::round(v0 * 255), 1e-3); // 8-bit values, scaled
  }
  DatasetSpec grey = folder_spec({1, 10, 10});
  Split g = load_split(grey, grey.train, "train", d.path.string());
  std::vector<float> y(100);
  image_sample(*g.images, 2, nullptr, y.data()); // grey into grey
  expect_error([&] { image_sample(*g.images, 0, nullptr, y.data()); }, {"x.JPEG", "3 channels", "sample has 1"});
}

TEST(Prefetch, GivesTheBatchesOfSynchronousDecoding) {
  TempDir d;
  make_folder(d);
  DatasetSpec spec = folder_spec({3, 16, 16}, {"random_resized_crop", "flip"});
  spec.scale = 1.0 / 255;
  spec.mean = {0.485, 0.456, 0.406};
  spec.std = {0.229, 0.224, 0.225};
  Split s = load_split(spec, spec.train, "train", d.path.string());
  const int64_t batch = 3, f = s.sample_floats;
  Prefetcher pre(s, 3, size_t(batch * f));
  Floats x(size_t(batch * f));
  std::vector<float> want(size_t(batch * f));
  int64_t y[batch], want_y[batch];
  for (int64_t epoch = 1; epoch <= 2; ++epoch) {
    const std::vector<int64_t> order = epoch_order(s.n, 11, epoch);
    const AugmentKey key{11, epoch};
    for (int64_t lo = 0; lo < s.n; lo += batch) {
      const int64_t hi = std::min(lo + batch, s.n);
      pre.take(BatchRequest{&order, lo, hi, key}, x, y); // requested by the previous round (or decoded now)
      if (hi < s.n) pre.request(BatchRequest{&order, hi, std::min(hi + batch, s.n), key});
      gather(s, order, lo, hi, want.data(), want_y, nullptr, key);
      for (int64_t i = 0; i < (hi - lo) * f; ++i) ASSERT_EQ(x[size_t(i)], want[size_t(i)]) << epoch << " " << lo << " " << i;
      for (int64_t i = 0; i < hi - lo; ++i) EXPECT_EQ(y[i], want_y[i]);
    }
  }
  // Training draws differ between epochs.
  const std::vector<int64_t> id = {0, 1, 2};
  std::vector<float> a(size_t(batch * f)), b(size_t(batch * f));
  gather(s, id, 0, 3, a.data(), nullptr, nullptr, AugmentKey{11, 1});
  gather(s, id, 0, 3, b.data(), nullptr, nullptr, AugmentKey{11, 2});
  EXPECT_NE(a, b);
  // Evaluation batches in file order: gather_range's.
  DatasetSpec eval = spec;
  Split t = load_split(eval, {"train"}, "test", d.path.string());
  Prefetcher ev(t, 2, size_t(batch * f));
  for (int64_t lo = 0; lo < t.n; lo += batch) {
    const int64_t hi = std::min(lo + batch, t.n);
    ev.take(BatchRequest{nullptr, lo, hi, std::nullopt}, x, y);
    gather_range(t, lo, hi, want.data(), want_y, nullptr);
    for (int64_t i = 0; i < (hi - lo) * f; ++i) ASSERT_EQ(x[size_t(i)], want[size_t(i)]);
  }
}

TEST(Prefetch, RethrowsDecodeErrorsAndStopsCleanly) {
  TempDir d;
  make_folder(d);
  dxtest::write_text(d / "train/cat/broken.jpg", "\xff\xd8\xff not really");
  DatasetSpec spec = folder_spec({3, 8, 8}, {"random_resized_crop", "flip"});
  Split s = load_split(spec, spec.train, "train", d.path.string());
  const int64_t f = s.sample_floats;
  std::vector<int64_t> order(size_t(s.n));
  std::iota(order.begin(), order.end(), 0);
  Floats x(size_t(s.n * f));
  {
    Prefetcher pre(s, 2, x.size());
    pre.request(BatchRequest{&order, 0, s.n, AugmentKey{1, 1}});
    expect_error([&] { pre.take(BatchRequest{&order, 0, s.n, AugmentKey{1, 1}}, x, nullptr); },
                 {"broken.jpg", "corrupt or unsupported JPEG"});
    // Still usable: the batch without the broken file.
    pre.take(BatchRequest{&order, 0, 3, AugmentKey{1, 1}}, x, nullptr);
    // A request left in flight when the prefetcher goes.
    pre.request(BatchRequest{&order, 0, s.n, AugmentKey{1, 2}});
  }
  // The synchronous path names the file too.
  std::vector<float> y(size_t(s.n * f));
  expect_error([&] { gather(s, order, 0, s.n, y.data(), nullptr, nullptr, AugmentKey{1, 1}); }, {"broken.jpg"});
}
