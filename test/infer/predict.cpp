// A C++ program using a model library, for inference-lib.test:
// predict.cpp WEIGHTS_DIR INPUTS.f32 N OUT_PREFIX predicts the N samples
// twice at once, on two contexts on two threads (half each, then the other
// half), checks the two threads' results agree with a one-thread run bit
// for bit, and writes output k to OUT_PREFIX<k>.f32.
#include MODEL_HEADER

#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace {

struct Model {
  dx_model *m = nullptr;
  explicit Model(const char *dir) {
    if (dx_model_open(dir, 64, &m) != DX_OK) throw std::runtime_error(dx_model_last_error());
  }
  ~Model() { dx_model_close(m); }
  std::vector<std::vector<float>> predict(const float *x, int64_t n) {
    std::vector<std::vector<float>> out(size_t(dx_model_num_outputs(m)));
    std::vector<float *> ptrs;
    for (size_t k = 0; k < out.size(); ++k) {
      out[k].resize(size_t(n * dx_model_output_floats(m, int(k))));
      ptrs.push_back(out[k].data());
    }
    if (dx_model_predict(m, x, n, ptrs.data()) != DX_OK) throw std::runtime_error(dx_model_error(m));
    return out;
  }
};

} // namespace

int main(int argc, char **argv) {
  if (argc != 5) return std::fprintf(stderr, "usage: %s WEIGHTS_DIR INPUTS.f32 N OUT_PREFIX\n", argv[0]), 2;
  try {
    const int64_t n = std::stoll(argv[3]);
    Model one(argv[1]);
    const int64_t in = dx_model_input_floats(one.m);
    std::vector<float> x(size_t(n * in));
    std::ifstream f(argv[2], std::ios::binary);
    if (!f.read(reinterpret_cast<char *>(x.data()), std::streamsize(x.size() * sizeof(float))))
      throw std::runtime_error(std::string("cannot read ") + argv[2]);
    const auto whole = one.predict(x.data(), n);
    // Two contexts, two threads, each predicting every sample.
    std::vector<std::vector<float>> r[2];
    std::string err[2];
    std::vector<std::thread> threads;
    for (int t = 0; t < 2; ++t)
      threads.emplace_back([&, t] {
        try {
          Model own(argv[1]);
          r[t] = own.predict(x.data(), n);
        } catch (const std::exception &e) {
          err[t] = e.what();
        }
      });
    for (auto &t : threads) t.join();
    for (int t = 0; t < 2; ++t) {
      if (!err[t].empty()) throw std::runtime_error(err[t]);
      if (r[t] != whole) throw std::runtime_error("thread " + std::to_string(t) + " disagrees with the one-thread run");
    }
    std::printf("two threads on two contexts agree with one: %zu outputs\n", whole.size());
    for (size_t k = 0; k < whole.size(); ++k) {
      std::ofstream o(std::string(argv[4]) + std::to_string(k) + ".f32", std::ios::binary);
      o.write(reinterpret_cast<const char *>(whole[k].data()), std::streamsize(whole[k].size() * sizeof(float)));
    }
  } catch (const std::exception &e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}
