#include "Arrays.h"

#include "util/Npy.h"

#include <cmath>
#include <stdexcept>

namespace dxan {

Array load_array(const std::string &path) {
  dx::NpyArray npy = dx::read_npy(path); // throws "PATH: ..." itself
  return Array{path, npy.shape, npy.as_floats()};
}

std::string shape_string(const std::vector<int64_t> &shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

std::string index_string(const std::vector<int64_t> &shape, size_t flat) {
  std::vector<int64_t> index(shape.size());
  int64_t rest = int64_t(flat);
  for (size_t d = shape.size(); d-- > 0;) {
    index[d] = shape[d] ? rest % shape[d] : 0;
    rest = shape[d] ? rest / shape[d] : 0;
  }
  return shape_string(index);
}

void require_finite(const Array &a) {
  for (size_t k = 0; k < a.values.size(); ++k)
    if (!std::isfinite(a.values[k]))
      throw std::runtime_error(a.path + ": non-finite value " + std::to_string(a.values[k]) + " at " +
                               index_string(a.shape, k) + " (did training diverge?)");
}

void require_vector(const Array &a, const char *what) {
  const bool ok = a.shape.size() == 1 || (a.shape.size() == 2 && a.shape[1] == 1);
  if (!ok)
    throw std::runtime_error(a.path + ": " + what + " must have shape [N] or [N, 1], not " +
                             shape_string(a.shape));
}

} // namespace dxan
