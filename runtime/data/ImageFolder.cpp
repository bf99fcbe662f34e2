#include "data/ImageFolder.h"

#include "common/Check.h"
#include "data/Image.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

namespace fs = std::filesystem;

namespace dxrt {
namespace {

bool is_image_name(const fs::path &p) {
  std::string ext = p.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return ext == ".jpg" || ext == ".jpeg" || ext == ".png";
}

// Entries of dir (sorted by name, as bytes: Python's sorted()) that pass keep.
template <typename Keep> std::vector<fs::path> sorted_entries(const fs::path &dir, Keep keep) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (keep(*it)) out.push_back(it->path());
  DXRT_CHECK(!ec, str("cannot list the image folder '", dir.string(), "': ", ec.message()), "");
  std::sort(out.begin(), out.end(), [](const fs::path &a, const fs::path &b) { return a.filename().string() < b.filename().string(); });
  return out;
}

} // namespace

ImageFolder list_image_folder(const std::string &dir) {
  std::error_code ec;
  DXRT_CHECK(fs::is_directory(dir, ec), str("the image folder '", dir, "' is not a directory"),
             "a folder dataset's train and test name directories with one sub-folder per class (--data-dir sets "
             "where relative names start)");
  ImageFolder f;
  f.root = dir;
  const auto class_dirs = sorted_entries(dir, [](const fs::directory_entry &e) {
    std::error_code e2;
    return e.is_directory(e2);
  });
  DXRT_CHECK(!class_dirs.empty(), str("the image folder '", dir, "' has no class sub-folders"),
             "put each class's images in a sub-folder of its own (e.g. train/n01440764/*.JPEG)");
  for (const fs::path &c : class_dirs) {
    const auto images = sorted_entries(c, [](const fs::directory_entry &e) {
      std::error_code e2;
      return e.is_regular_file(e2) && is_image_name(e.path());
    });
    DXRT_CHECK(!images.empty(), str("the class folder '", c.string(), "' of image folder '", dir, "' has no images"),
               "images are *.jpg, *.jpeg or *.png files; remove the empty folder or add its images");
    const int64_t label = int64_t(f.classes.size());
    f.classes.push_back(c.filename().string());
    for (const fs::path &p : images) {
      f.files.push_back(p.string());
      f.labels.push_back(label);
    }
  }
  return f;
}

Split load_image_split(const DatasetSpec &spec, const std::string &dir, const std::string &which) {
  DXRT_CHECK(spec.sample.size() == 3 && (spec.sample[0] == 1 || spec.sample[0] == 3),
             str("a folder dataset's sample must be [3, H, W] or [1, H, W], not ", shape_str(spec.sample)), "");
  auto src = std::make_shared<ImageSource>();
  src->folder = list_image_folder(dir);
  const int64_t classes = int64_t(src->folder.classes.size());
  DXRT_CHECK(spec.classes == 0 || spec.classes == classes,
             str("the ", which, " image folder '", dir, "' has ", classes, " class sub-folders, but the dataset block "
                 "says classes: ", spec.classes),
             "every split needs one sub-folder per class");
  ImageTransform &t = src->transform;
  t.channels = spec.sample[0];
  t.height = spec.sample[1];
  t.width = spec.sample[2];
  t.norm = normalization(spec, spec.sample_floats());
  if (which == "train")
    for (const std::string &a : spec.augment) {
      if (a == "random_resized_crop") t.random_crop = true;
      else if (a == "flip") t.flip = true;
      else DXRT_FAIL(str("unknown augmentation '", a, "' in the model metadata"), "the augmentations are random_resized_crop and flip");
    }
  Split s;
  s.name = which;
  s.source = dir;
  s.n = int64_t(src->folder.files.size());
  s.sample_floats = spec.sample_floats();
  s.y = src->folder.labels;
  s.has_labels = true;
  s.images = std::move(src);
  return s;
}

void image_sample(const ImageSource &src, int64_t i, const AugmentKey *key, float *out) {
  // One reader and resampler per thread: no allocation once their buffers
  // have grown to the largest image.
  thread_local ImageReader reader;
  thread_local ResampleScratch scratch;
  const ImageTransform &t = src.transform;
  const std::string &path = src.folder.files[size_t(i)];
  const Image &img = reader.read(path);
  const bool train = key != nullptr;
  const CropBox box = train && t.random_crop ? random_resized_crop(img.height, img.width, *key, i)
                                              : center_crop(img.height, img.width, t.height, t.width);
  const bool flip = train && t.flip && random_flip(*key, i);
  resample(img, box, flip, t.norm, t.channels, t.height, t.width, path, scratch, out);
}

} // namespace dxrt
