// The gradient-check runner: linked with one dxc-generated model object, it
// runs _mlir_ciface_dx_train_step once on arrays read from NPY files and
// writes the loss, the gradient arena and the new buffer arena as NPY files,
// for test/gradcheck/gradcheck.py to compare against a float64 reference.
//
//   runner --metadata                 print dx_model_metadata and exit
//   runner PARAMS BUFFERS X LABELS SEED STEP RANK OUTDIR
//     PARAMS  f4 [param_floats]      BUFFERS f4 [buffer_floats] (may be empty)
//     X       f4 [batch, ...sample]
//     LABELS  i8 [batch, ...label_shape] class labels, or
//             f4 [batch, ...target_shape] continuous targets (datasets with `targets:`)
//   writes OUTDIR/loss.npy (f4 [1]), OUTDIR/grads.npy, OUTDIR/new_buffers.npy
//
// Only little-endian, C-order '<f4' and '<i8' arrays are read and written.
// Linked with: runner object/library first, then the model object, then
// libdxrt.a (whose own main() is then not pulled in).
#include "dxrt/abi.h"
#include "kernels/Precision.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

struct Npy {
  std::string descr;
  std::vector<int64_t> shape;
  std::vector<char> data;
  int64_t count() const {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    return n;
  }
};

[[noreturn]] void fail(const std::string &msg) {
  std::fprintf(stderr, "dxgc-runner: %s\n", msg.c_str());
  std::exit(2);
}

Npy readNpy(const std::string &path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) fail("cannot open " + path);
  std::string all((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  if (all.size() < 10 || all.compare(0, 6, "\x93NUMPY") != 0) fail(path + ": not an NPY file");
  int major = static_cast<unsigned char>(all[6]);
  size_t hlen, hstart;
  if (major == 1) {
    hlen = static_cast<unsigned char>(all[8]) | (static_cast<unsigned char>(all[9]) << 8);
    hstart = 10;
  } else {
    if (all.size() < 12) fail(path + ": truncated header");
    hlen = 0;
    for (int i = 0; i < 4; ++i) hlen |= static_cast<size_t>(static_cast<unsigned char>(all[8 + i])) << (8 * i);
    hstart = 12;
  }
  if (hstart + hlen > all.size()) fail(path + ": truncated header");
  std::string h = all.substr(hstart, hlen);
  Npy n;
  auto field = [&](const char *key) {
    size_t k = h.find(key);
    if (k == std::string::npos) fail(path + ": header lacks " + key);
    return k + std::strlen(key);
  };
  size_t d = h.find('\'', field("'descr':"));
  n.descr = h.substr(d + 1, h.find('\'', d + 1) - d - 1);
  if (h.find("True", field("'fortran_order':")) == field("'fortran_order':") + 1) fail(path + ": Fortran order");
  size_t s = h.find('(', field("'shape':")), e = h.find(')', s);
  std::stringstream ss(h.substr(s + 1, e - s - 1));
  std::string tok;
  while (std::getline(ss, tok, ','))
    if (tok.find_first_of("0123456789") != std::string::npos) n.shape.push_back(std::stoll(tok));
  size_t width = n.descr == "<f4" ? 4 : n.descr == "<i8" ? 8 : 0;
  if (!width) fail(path + ": unsupported dtype " + n.descr);
  size_t bytes = static_cast<size_t>(n.count()) * width;
  if (hstart + hlen + bytes > all.size()) fail(path + ": truncated data");
  n.data.assign(all.begin() + hstart + hlen, all.begin() + hstart + hlen + bytes);
  return n;
}

void writeNpy(const std::string &path, const float *p, int64_t count) {
  std::string h = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + std::to_string(count) + ",), }";
  while ((10 + h.size() + 1) % 64 != 0) h += ' ';
  h += '\n';
  std::ofstream f(path, std::ios::binary);
  f.write("\x93NUMPY\x01\x00", 8);
  char len[2] = {static_cast<char>(h.size() & 0xff), static_cast<char>(h.size() >> 8)};
  f.write(len, 2);
  f.write(h.data(), static_cast<std::streamsize>(h.size()));
  f.write(reinterpret_cast<const char *>(p), count * 4);
  if (!f) fail("cannot write " + path);
}

dx_memref_f32 ref(std::vector<float> &v) {
  return {v.data(), v.data(), 0, static_cast<int64_t>(v.size()), 1};
}

std::vector<float> floats(const Npy &n, int64_t expect, const char *what) {
  if (n.descr != "<f4") fail(std::string(what) + ": expected float32");
  if (expect >= 0 && n.count() != expect)
    fail(std::string(what) + ": " + std::to_string(n.count()) + " floats, metadata says " + std::to_string(expect));
  std::vector<float> v(static_cast<size_t>(n.count()) + 1); // +1: never a null pointer
  std::memcpy(v.data(), n.data.data(), n.data.size());
  v.resize(static_cast<size_t>(n.count()));
  return v;
}

} // namespace

int main(int argc, char **argv) {
  if (argc == 2 && std::string(argv[1]) == "--metadata") {
    std::fputs(dx_model_metadata, stdout);
    return 0;
  }
  if (argc != 9) {
    std::fprintf(stderr, "usage: %s --metadata | PARAMS BUFFERS X LABELS SEED STEP RANK OUTDIR\n", argv[0]);
    return 2;
  }
  nlohmann::json meta = nlohmann::json::parse(dx_model_metadata);
  // A bf16 build's products read bf16 inputs, as its executable's do (Run.cpp).
  if (meta.contains("train")) {
    const std::string precision = meta["train"].value("precision", "fp32");
    try {
      dxrt::set_matmul_precision("runner", precision.c_str());
    } catch (const std::exception &e) {
      fail(e.what());
    }
  }
  int64_t paramFloats = meta.at("param_floats"), bufferFloats = meta.at("buffer_floats");
  int64_t sampleFloats = meta.at("input").at("floats");

  std::vector<float> params = floats(readNpy(argv[1]), paramFloats, "params");
  std::vector<float> buffers = floats(readNpy(argv[2]), bufferFloats, "buffers");
  Npy xn = readNpy(argv[3]);
  if (xn.shape.empty()) fail("x: needs a batch dimension");
  int64_t batch = xn.shape[0];
  std::vector<float> x = floats(xn, batch * sampleFloats, "x");
  // Labels (int64) or targets (float32), as many per sample as the dataset says.
  const nlohmann::json &ds = meta.at("dataset");
  const bool hasTargets = ds.value("targets", false);
  int64_t per = 1;
  for (int64_t d : ds.value(hasTargets ? "target_shape" : "label_shape", std::vector<int64_t>{})) per *= d;
  Npy ln = readNpy(argv[4]);
  if (ln.count() != batch * per || ln.descr != (hasTargets ? "<f4" : "<i8"))
    fail(std::string(hasTargets ? "targets: expected float32 [" : "labels: expected int64 [") + std::to_string(batch) +
         " * " + std::to_string(per) + "]");
  std::vector<int64_t> labels(static_cast<size_t>(hasTargets ? 0 : batch * per) + 1);
  std::vector<float> targets;
  if (hasTargets) targets = floats(ln, batch * per, "targets");
  else std::memcpy(labels.data(), ln.data.data(), ln.data.size());
  labels.resize(static_cast<size_t>(hasTargets ? 0 : batch * per));

  // Poison the outputs so that an element the step fails to write shows up.
  std::vector<float> grads(params.size(), std::nanf("")), newBuffers(buffers.size(), std::nanf(""));
  dx_memref_f32 pd = ref(params), bd = ref(buffers), gd = ref(grads), nd = ref(newBuffers), xd = ref(x);
  dx_memref_i64 ld = {labels.data(), labels.data(), 0, static_cast<int64_t>(labels.size()), 1};
  dx_memref_f32 td = ref(targets);
  float loss = _mlir_ciface_dx_train_step(&pd, &bd, &gd, &nd, &xd, &ld, &td, batch, std::stoll(argv[5]),
                                          std::stoll(argv[6]), std::stoll(argv[7]));
  std::string out = argv[8];
  writeNpy(out + "/loss.npy", &loss, 1);
  writeNpy(out + "/grads.npy", grads.data(), static_cast<int64_t>(grads.size()));
  writeNpy(out + "/new_buffers.npy", newBuffers.data(), static_cast<int64_t>(newBuffers.size()));
  return 0;
}
