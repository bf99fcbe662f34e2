// Image decoding. Both libraries report errors by calling a handler that must
// not return: libjpeg's default one calls exit(), libpng's aborts. Ours record
// the message and longjmp back to the decode call, which throws dxrt::Error.
// Between setjmp and longjmp only C frames run, so no C++ destructor is
// skipped; everything that must be cleaned up is destroyed after the jump.
#include "data/Image.h"

#include "common/Check.h"

#include <algorithm>
#include <csetjmp>
#include <cstdio>
#include <cstring>
#include <fstream>

// jpeglib.h needs size_t and FILE declared first.
#include <jerror.h>
#include <jpeglib.h>
#include <png.h>

namespace dxrt {
namespace {

[[noreturn]] void fail(const std::string &name, const std::string &why) {
  throw Error(str("image '", name, "': ", why), "remove or replace the file (or re-encode it as JPEG or PNG)");
}

// The most pixels an image may have: PIL's (twice Image.MAX_IMAGE_PIXELS,
// where it raises DecompressionBombError), so torchvision's ImageFolder
// refuses such a file too. A JPEG or PNG header of a few bytes can claim
// 65000 x 65000 pixels, which would be allocated (by us, or by libjpeg for a
// progressive file) before a single one is decoded. The fuzzing build stops
// at 4 Mpx: bigger images cost it only time.
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
constexpr int64_t kMaxPixels = int64_t(1) << 22;
#else
constexpr int64_t kMaxPixels = 2 * int64_t(89478485);
#endif

// "" when a width x height image may be decoded, else why not.
std::string too_big(int64_t width, int64_t height) {
  if (width * height <= kMaxPixels) return "";
  return str(width, " x ", height, " pixels is more than the ", kMaxPixels, " DeepEx decodes (a decompression bomb?)");
}

// ---- JPEG ----

struct JpegError {
  jpeg_error_mgr mgr;
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
};

void jpeg_error_exit(j_common_ptr cinfo) {
  auto *err = reinterpret_cast<JpegError *>(cinfo->err);
  cinfo->err->format_message(cinfo, err->message);
  std::longjmp(err->jump, 1);
}

// Warnings are silent, except a truncated file: libjpeg would fill the rest
// of the image with grey and carry on; PIL refuses such a file, and so do we.
void jpeg_emit_message(j_common_ptr cinfo, int level) {
  if (level < 0 && cinfo->err->msg_code == JWRN_JPEG_EOF) jpeg_error_exit(cinfo);
}

// CMYK as Adobe writes it (inverted: 255 = no ink) or plain; to RGB as PIL
// does: R = (255 - C) * (255 - K) / 255.
void cmyk_to_rgb(uint8_t *px, int64_t n, bool inverted) {
  for (int64_t i = 0; i < n; ++i) {
    const uint8_t *in = px + 4 * i;
    int c = in[0], m = in[1], y = in[2], k = in[3];
    if (!inverted) c = 255 - c, m = 255 - m, y = 255 - y, k = 255 - k;
    uint8_t *out = px + 3 * i;
    out[0] = uint8_t((c * k + 127) / 255);
    out[1] = uint8_t((m * k + 127) / 255);
    out[2] = uint8_t((y * k + 127) / 255);
  }
}

void decode_jpeg(const uint8_t *data, size_t size, const std::string &name, Image &out) {
  jpeg_decompress_struct cinfo;
  JpegError err;
  cinfo.err = jpeg_std_error(&err.mgr);
  err.mgr.error_exit = jpeg_error_exit;
  err.mgr.emit_message = jpeg_emit_message;
  err.message[0] = 0;
  if (setjmp(err.jump)) {
    jpeg_destroy_decompress(&cinfo);
    fail(name, str("corrupt or unsupported JPEG (", err.message, ")"));
  }
  jpeg_create_decompress(&cinfo);
  jpeg_mem_src(&cinfo, data, static_cast<unsigned long>(size));
  jpeg_read_header(&cinfo, TRUE);
  if (const std::string why = too_big(cinfo.image_width, cinfo.image_height); !why.empty()) {
    jpeg_destroy_decompress(&cinfo);
    fail(name, why);
  }
  const bool cmyk = cinfo.jpeg_color_space == JCS_CMYK || cinfo.jpeg_color_space == JCS_YCCK;
  cinfo.out_color_space = cinfo.jpeg_color_space == JCS_GRAYSCALE ? JCS_GRAYSCALE : cmyk ? JCS_CMYK : JCS_RGB;
  jpeg_start_decompress(&cinfo);
  const int64_t h = cinfo.output_height, w = cinfo.output_width, c = cinfo.output_components;
  out.height = h;
  out.width = w;
  out.channels = cmyk ? 3 : c;
  out.pixels.resize(size_t(h * w * c)); // CMYK: 4 bytes a pixel, packed to 3 below
  while (cinfo.output_scanline < cinfo.output_height) {
    JSAMPROW row = out.pixels.data() + int64_t(cinfo.output_scanline) * w * c;
    jpeg_read_scanlines(&cinfo, &row, 1);
  }
  const bool inverted = cinfo.saw_Adobe_marker;
  jpeg_finish_decompress(&cinfo);
  jpeg_destroy_decompress(&cinfo);
  if (cmyk) {
    cmyk_to_rgb(out.pixels.data(), h * w, inverted);
    out.pixels.resize(size_t(h * w * 3));
  }
}

// ---- PNG ----

struct PngSource {
  const uint8_t *data;
  size_t size, at;
  char message[256];
};

void png_error_fn(png_structp png, png_const_charp msg) {
  auto *src = static_cast<PngSource *>(png_get_error_ptr(png));
  std::snprintf(src->message, sizeof src->message, "%s", msg);
  png_longjmp(png, 1);
}

void png_warning_fn(png_structp, png_const_charp) {} // benign (e.g. a bad sRGB profile)

void png_read_fn(png_structp png, png_bytep dst, png_size_t n) {
  auto *src = static_cast<PngSource *>(png_get_io_ptr(png));
  if (src->size - src->at < n) png_error(png, "the file is truncated");
  std::memcpy(dst, src->data + src->at, n);
  src->at += n;
}

void decode_png(const uint8_t *data, size_t size, const std::string &name, Image &out) {
  PngSource src{data, size, 0, {0}};
  png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &src, png_error_fn, png_warning_fn);
  if (!png) fail(name, "out of memory");
  png_infop info = png_create_info_struct(png);
  // Row pointers are filled after setjmp but owned outside it: a longjmp
  // must not skip a destructor.
  std::vector<png_bytep> rows;
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_read_struct(&png, &info, nullptr);
    fail(name, str("corrupt PNG (", src.message, ")"));
  }
  if (!info) png_error(png, "out of memory");
  png_set_read_fn(png, &src, png_read_fn);
  png_read_info(png, info);
  if (const std::string why = too_big(png_get_image_width(png, info), png_get_image_height(png, info)); !why.empty()) {
    png_destroy_read_struct(&png, &info, nullptr); // not png_error: a longjmp would skip why's destructor
    fail(name, why);
  }
  // To 8-bit grey or RGB: palettes and low bit depths expanded, 16 bits
  // reduced, alpha dropped (not composited, as PIL's convert("RGB")).
  const int type = png_get_color_type(png, info);
  png_set_expand(png);
  png_set_strip_16(png);
  png_set_strip_alpha(png);
  if (type == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
  const int passes = png_set_interlace_handling(png);
  png_read_update_info(png, info);
  const int64_t h = png_get_image_height(png, info), w = png_get_image_width(png, info);
  const int64_t c = png_get_channels(png, info);
  if (c != 1 && c != 3) png_error(png, "unsupported channel layout");
  out.height = h;
  out.width = w;
  out.channels = c;
  out.pixels.resize(size_t(h * w * c));
  rows.resize(size_t(h));
  for (int64_t y = 0; y < h; ++y) rows[size_t(y)] = out.pixels.data() + y * w * c;
  for (int p = 0; p < passes; ++p) png_read_rows(png, rows.data(), nullptr, png_uint_32(h));
  png_read_end(png, nullptr);
  png_destroy_read_struct(&png, &info, nullptr);
}

} // namespace

void decode_image(const uint8_t *data, size_t size, const std::string &name, Image &out) {
  static const uint8_t kPng[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  if (size >= 3 && data[0] == 0xFF && data[1] == 0xD8 && data[2] == 0xFF) decode_jpeg(data, size, name, out);
  else if (size >= 8 && std::memcmp(data, kPng, 8) == 0) decode_png(data, size, name, out);
  else fail(name, size == 0 ? "the file is empty" : "not a JPEG or PNG file");
  if (out.height < 1 || out.width < 1) fail(name, "the image has no pixels");
}

const Image &ImageReader::read(const std::string &path) {
  std::ifstream f(path, std::ios::binary | std::ios::ate);
  if (!f) fail(path, "cannot open the file");
  const std::streamsize n = f.tellg();
  f.seekg(0);
  bytes_.resize(size_t(std::max<std::streamsize>(n, 0)));
  if (n < 0 || !f.read(reinterpret_cast<char *>(bytes_.data()), n)) fail(path, "cannot read the file");
  decode_image(bytes_.data(), bytes_.size(), path, image_);
  return image_;
}

} // namespace dxrt
