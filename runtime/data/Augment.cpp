#include "data/Augment.h"

#include "common/Check.h"

#include <algorithm>
#include <cmath>

namespace dxrt {
namespace {

RngKey rng(const AugmentKey &k) { return RngKey{k.seed, uint32_t(k.epoch), kRuntimeRank, kStreamAugment}; }

// Draw d of sample index: a double uniform in [a, b), or an integer in [0, n).
double uniform(const AugmentKey &k, int64_t index, uint64_t d, double a, double b) {
  const uint64_t r = random_u64(rng(k), uint64_t(index) * kAugmentDraws + d);
  return a + (b - a) * double(r >> 11) * 0x1p-53;
}
int64_t below(const AugmentKey &k, int64_t index, uint64_t d, int64_t n) {
  const uint64_t r = random_u64(rng(k), uint64_t(index) * kAugmentDraws + d);
  return int64_t((unsigned __int128)r * uint64_t(n) >> 64);
}
// The draws of one sample: 2 per crop try, then the crop's position, then the flip.
constexpr uint64_t kTries = 10, kDrawTop = 2 * kTries, kDrawLeft = kDrawTop + 1, kDrawFlip = kDrawLeft + 1;
static_assert(kDrawFlip < kAugmentDraws);

// Python's round(): halves to even (the default rounding mode).
int64_t round_even(double x) { return int64_t(std::nearbyint(x)); }

CropBox whole_pixels(int64_t top, int64_t left, int64_t h, int64_t w) {
  return CropBox{double(top), double(left), double(h), double(w), top, left, top + h, left + w};
}

// PIL's bilinear filter weights for one axis (ImagingResample's
// precompute_coeffs): output i is centred at start + (i + 0.5) * scale; the
// triangle filter widens by the scale when shrinking, so every source pixel
// counts (antialiasing). Taps outside [lo, hi) are dropped and the rest
// renormalised.
void axis_weights(double start, double extent, int64_t out_n, int64_t lo, int64_t hi, std::vector<int64_t> &first,
                  std::vector<float> &weights, int64_t &taps) {
  const double scale = extent / double(out_n), filterscale = std::max(scale, 1.0), support = filterscale;
  taps = int64_t(std::ceil(support)) * 2 + 1;
  first.resize(size_t(out_n));
  weights.assign(size_t(out_n * taps), 0.0f);
  for (int64_t i = 0; i < out_n; ++i) {
    const double center = start + (double(i) + 0.5) * scale;
    const int64_t xmin = std::max(int64_t(center - support + 0.5), lo);
    const int64_t xmax = std::min(int64_t(center + support + 0.5), hi);
    float *w = weights.data() + i * taps;
    double sum = 0;
    for (int64_t x = xmin; x < xmax; ++x) {
      const double v = std::max(0.0, 1.0 - std::abs((double(x) - center + 0.5) / filterscale));
      w[x - xmin] = float(v);
      sum += v;
    }
    if (sum > 0)
      for (int64_t t = 0; t < xmax - xmin; ++t) w[t] = float(w[t] / sum);
    first[size_t(i)] = std::min(xmin, hi - 1);
  }
}

} // namespace

CropBox random_resized_crop(int64_t height, int64_t width, const AugmentKey &key, int64_t index) {
  const double area = double(height) * double(width);
  const double log_lo = std::log(3.0 / 4.0), log_hi = std::log(4.0 / 3.0);
  for (uint64_t t = 0; t < kTries; ++t) {
    const double target = area * uniform(key, index, 2 * t, 0.08, 1.0);
    const double ratio = std::exp(uniform(key, index, 2 * t + 1, log_lo, log_hi));
    const int64_t w = round_even(std::sqrt(target * ratio)), h = round_even(std::sqrt(target / ratio));
    if (0 < w && w <= width && 0 < h && h <= height)
      return whole_pixels(below(key, index, kDrawTop, height - h + 1), below(key, index, kDrawLeft, width - w + 1), h, w);
  }
  // The fallback: the whole image, cut to the nearest allowed aspect ratio.
  const double in_ratio = double(width) / double(height);
  int64_t w = width, h = height;
  if (in_ratio < 3.0 / 4.0) h = round_even(double(w) / (3.0 / 4.0));
  else if (in_ratio > 4.0 / 3.0) w = round_even(double(h) * (4.0 / 3.0));
  return whole_pixels((height - h) / 2, (width - w) / 2, h, w);
}

bool random_flip(const AugmentKey &key, int64_t index) { return uniform(key, index, kDrawFlip, 0.0, 1.0) < 0.5; }

CropBox center_crop(int64_t height, int64_t width, int64_t out_h, int64_t out_w) {
  const int64_t size = round_even(double(std::max(out_h, out_w)) * 256.0 / 224.0);
  // torchvision's Resize(size): the shorter side becomes size, the longer
  // one int(size * long / short).
  int64_t rh = size, rw = size;
  if (height <= width) rw = int64_t(double(size) * double(width) / double(height));
  else rh = int64_t(double(size) * double(height) / double(width));
  const double sy = double(height) / double(rh), sx = double(width) / double(rw);
  const int64_t top = round_even(double(rh - out_h) / 2.0), left = round_even(double(rw - out_w) / 2.0);
  return CropBox{double(top) * sy, double(left) * sx, double(out_h) * sy, double(out_w) * sx, 0, 0, height, width};
}

void resample(const Image &img, const CropBox &box, bool flip, const Normalization &norm, int64_t out_c, int64_t out_h,
              int64_t out_w, const std::string &name, ResampleScratch &s, float *out) {
  const int64_t ic = img.channels;
  DXRT_CHECK(ic == out_c || ic == 1,
             str("image '", name, "' has ", ic, " channels (RGB), but the dataset's sample has ", out_c,
                 " (grey)"),
             "use `sample: [3, H, W]` for colour images");
  axis_weights(box.left, box.width, out_w, box.clip_left, box.clip_right, s.first_x, s.wx, s.taps_x);
  axis_weights(box.top, box.height, out_h, box.clip_top, box.clip_bottom, s.first_y, s.wy, s.taps_y);
  // Horizontal pass over the source rows the vertical pass reads.
  const int64_t y0 = s.first_y.front(), y1 = std::min(s.first_y.back() + s.taps_y, box.clip_bottom);
  s.rows.resize(size_t((y1 - y0) * out_w * ic));
  for (int64_t y = y0; y < y1; ++y) {
    float *row = s.rows.data() + (y - y0) * out_w * ic;
    for (int64_t j = 0; j < out_w; ++j) {
      const int64_t x0 = s.first_x[size_t(j)], n = std::min(s.taps_x, box.clip_right - x0);
      const float *w = s.wx.data() + j * s.taps_x;
      for (int64_t c = 0; c < ic; ++c) {
        float acc = 0;
        for (int64_t t = 0; t < n; ++t) acc += w[t] * float(img.at(y, x0 + t)[c]);
        row[j * ic + c] = acc;
      }
    }
  }
  // Vertical pass, rounded to 8 bits, then scaled, normalised and stored
  // channel-first (mirrored when flip).
  const int64_t plane = out_h * out_w;
  for (int64_t i = 0; i < out_h; ++i) {
    const int64_t r0 = s.first_y[size_t(i)], n = std::min(s.taps_y, y1 - r0);
    const float *w = s.wy.data() + i * s.taps_y;
    for (int64_t j = 0; j < out_w; ++j) {
      const int64_t col = flip ? out_w - 1 - j : j;
      for (int64_t c = 0; c < out_c; ++c) {
        const int64_t src_c = ic == 1 ? 0 : c;
        float acc = 0;
        for (int64_t t = 0; t < n; ++t) acc += w[t] * s.rows[size_t(((r0 - y0 + t) * out_w + j) * ic + src_c)];
        const float v = std::clamp(std::nearbyint(acc), 0.0f, 255.0f);
        out[c * plane + i * out_w + col] = (v * norm.scale - norm.mean[size_t(c)]) * norm.inv_std[size_t(c)];
      }
    }
  }
}

} // namespace dxrt

// ---- Augmentation of array samples ----

namespace dxrt {

std::optional<ArrayAugment> array_augment(const DatasetSpec &spec) {
  if (spec.augment.empty()) return std::nullopt;
  ArrayAugment a;
  for (const std::string &name : spec.augment) {
    if (name == "flip") a.flip = true;
    else if (name == "transpose") a.transpose = true;
    else DXRT_FAIL(str("unknown augmentation '", name, "' of an array dataset in the model metadata"),
                   "the augmentations of npy, idx and hdf5 datasets are flip and transpose");
  }
  DXRT_CHECK(spec.sample.size() >= 2,
             str("the dataset augments its samples, but the sample ", shape_str(spec.sample), " has no spatial axes"),
             "augmentation needs samples [C, S1, ...]: channels, then the axes to flip or permute");
  a.channels = spec.sample[0];
  a.spatial.assign(spec.sample.begin() + 1, spec.sample.end());
  DXRT_CHECK(a.spatial.size() <= kMaxSpatialAxes,
             str("the sample ", shape_str(spec.sample), " has more than ", kMaxSpatialAxes, " spatial axes"),
             "augment samples of at most 16 spatial axes");
  if (a.transpose)
    DXRT_CHECK(std::all_of(a.spatial.begin(), a.spatial.end(), [&](int64_t s) { return s == a.spatial[0]; }),
               str("the dataset's 'transpose' augmentation permutes the sample's spatial axes, but the sample ",
                   shape_str(spec.sample), " has axes of different lengths"),
               "transpose needs equal spatial axes, e.g. [C, 32, 32, 32]; use flip alone otherwise");
  if (spec.labelled() && spec.label_shape == a.spatial) a.label_maps = 1;
  const std::vector<int64_t> &t = spec.target_shape;
  if (spec.targets && t == a.spatial) a.target_maps = 1;
  else if (spec.targets && t.size() == a.spatial.size() + 1 && std::equal(t.begin() + 1, t.end(), a.spatial.begin()))
    a.target_maps = t[0];
  return a;
}

bool SpatialTransform::identity() const {
  for (size_t a = 0; a < axes; ++a)
    if (perm[a] != int(a) || mirror[a]) return false;
  return true;
}

// Draws 0..k-1 of the sample: the flips; draws k..2k-2: the permutation
// (Fisher-Yates from the last axis).
SpatialTransform spatial_transform(const ArrayAugment &a, const AugmentKey &key, int64_t index) {
  const size_t k = a.spatial.size();
  SpatialTransform t;
  t.axes = k;
  for (size_t i = 0; i < k; ++i) t.perm[i] = int(i);
  if (a.flip)
    for (size_t i = 0; i < k; ++i) t.mirror[i] = uniform(key, index, i, 0.0, 1.0) < 0.5;
  if (a.transpose)
    for (size_t i = k; i-- > 1;) std::swap(t.perm[i], t.perm[size_t(below(key, index, k + (k - 1 - i), int64_t(i + 1)))]);
  return t;
}

template <class T>
void transform_maps(const SpatialTransform &t, const std::vector<int64_t> &spatial, int64_t maps, T *data,
                    std::vector<T> &scratch) {
  if (t.identity() || maps <= 0) return;
  const size_t k = t.axes;
  DXRT_CHECK(spatial.size() == k && k <= kMaxSpatialAxes,
             str("a spatial transform of ", k, " axes applied to maps ", shape_str(spatial)),
             "this is a bug in DeepEx's array augmentation");
  std::array<int64_t, kMaxSpatialAxes> in_stride{}, step{}, extent{}, idx{};
  int64_t plane = 1;
  for (size_t a = k; a-- > 0;) {
    in_stride[a] = plane;
    plane *= spatial[a];
  }
  // Output axis a walks input axis perm[a], backwards from its end when mirrored.
  int64_t base = 0;
  for (size_t a = 0; a < k; ++a) {
    const size_t p = size_t(t.perm[a]);
    extent[a] = spatial[p];
    step[a] = t.mirror[a] ? -in_stride[p] : in_stride[p];
    if (t.mirror[a]) base += (spatial[p] - 1) * in_stride[p];
  }
  scratch.resize(size_t(plane));
  for (int64_t m = 0; m < maps; ++m) {
    T *map = data + m * plane;
    std::copy(map, map + plane, scratch.begin());
    std::fill_n(idx.begin(), k, 0);
    int64_t at = base;
    for (int64_t o = 0; o < plane; ++o) {
      map[o] = scratch[size_t(at)];
      for (size_t a = k; a-- > 0;) { // the next output index, last axis fastest
        at += step[a];
        if (++idx[a] < extent[a]) break;
        at -= step[a] * extent[a];
        idx[a] = 0;
      }
    }
  }
}

template void transform_maps<float>(const SpatialTransform &, const std::vector<int64_t> &, int64_t, float *,
                                    std::vector<float> &);
template void transform_maps<int64_t>(const SpatialTransform &, const std::vector<int64_t> &, int64_t, int64_t *,
                                      std::vector<int64_t> &);

} // namespace dxrt
