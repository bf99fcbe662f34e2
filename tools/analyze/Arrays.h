// Loading the arrays dx-analyze reads (a trained executable's --export
// outputs and dx-datagen's data). Every check names the file: the exported
// files differ only by split and output name, so "shape mismatch" alone
// would not say which one was given by mistake.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace dxan {

// One NPY file, converted to float (float32, float64, int64 and uint8
// arrays are accepted: labels such as Q may come in any of them).
struct Array {
  std::string path;
  std::vector<int64_t> shape;
  std::vector<float> values;
  int64_t rows() const { return shape.empty() ? 1 : shape[0]; }
};

// Reads PATH; throws std::runtime_error naming it.
Array load_array(const std::string &path);

// "[200, 1, 22, 22]"
std::string shape_string(const std::vector<int64_t> &shape);

// The multi-index of the flat C-order element `flat`: "[3, 0, 5, 7]".
std::string index_string(const std::vector<int64_t> &shape, size_t flat);

// Throws "PATH: non-finite value nan at [3, 0, 5, 7]" for the first NaN or
// infinity: a diverged model exports NaN, and every statistic computed from
// it would be silently wrong.
void require_finite(const Array &a);

// A per-frame value array: [N] or [N, 1]. Throws naming PATH otherwise.
void require_vector(const Array &a, const char *what);

} // namespace dxan
