// Metadata and weights index files that the fuzz harnesses (fuzz/MetadataFuzzer.cpp,
// fuzz/WeightsFuzzer.cpp) found crashing, overflowing or throwing the wrong
// exception: each is now a dxrt::Error that names what is wrong.
#include "common/Check.h"
#include "model/Arenas.h"
#include "model/Metadata.h"
#include "train/Weights.h"

#include <gtest/gtest.h>
#include <filesystem>
#include <fstream>

using namespace dxrt;

namespace {

const std::string kMini = R"({"format": 2, "model": "m", "input": {"name": "x", "shape": [2]},
  "outputs": [{"name": "y", "shape": [1]}], "param_floats": 3, "state_slots": 1,
  "params": [{"name": "w", "shape": [1, 2], "offset": 0, "size": 2, "init": "zeros"},
             {"name": "b", "shape": [1], "offset": 2, "size": 1, "init": "ones"}]})";

std::string replace(std::string s, const std::string &a, const std::string &b) {
  size_t p = s.find(a);
  EXPECT_NE(p, std::string::npos) << a;
  return p == std::string::npos ? s : s.replace(p, a.size(), b);
}

void expect_error(const std::string &json, const std::string &part) {
  try {
    parse_metadata(json);
    ADD_FAILURE() << "no error for " << part;
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

TEST(MetadataLimits, SizesThatOverflowAreErrors) {
  parse_metadata(kMini);
  expect_error(replace(kMini, "\"shape\": [2]", "\"shape\": [4294967296, 4294967296, 4]"),
               "'input.shape' is [4294967296, 4294967296, 4], a negative dimension or more than 2^40 elements");
  expect_error(replace(kMini, "\"shape\": [1]}]", "\"shape\": [-1]}]"), "a negative dimension");
  expect_error(replace(kMini, "\"offset\": 2,", "\"offset\": 9223372036854775807,"), "runs past the end");
  expect_error(replace(kMini, "\"param_floats\": 3", "\"param_floats\": 4611686018427387904"), "beyond 2^40 floats");
  expect_error(replace(kMini, "\"state_slots\": 1", "\"state_slots\": 4611686018427387904"), "beyond 2^40 floats");
  expect_error(replace(kMini, "\"param_floats\": 3", "\"param_floats\": 18446744073709551615"),
               "'param_floats' should be an integer (below 2^63)");
  expect_error(replace(kMini, "\"format\": 2", "\"format\": 4294967298"), "format 4294967298");
}

TEST(MetadataLimits, DeepNestingIsAnError) {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  expect_error(replace(kMini, "\"format\": 2", "\"format\": " + deep), "nests deeper than 64");
  expect_error(replace(kMini, "\"format\": 2", "\"format\": " + std::string(20, '[') + std::string(20, ']')),
               "should be an integer (below 2^63), found a list nested deeper than 16");
}

TEST(WeightsLimits, AMistypedOrDeepIndexIsAnError) {
  const Metadata m = parse_metadata(kMini);
  Arenas a(m, 1);
  const std::string dir = (std::filesystem::temp_directory_path() / "dx-weights-findings").string();
  save_weights(m, a, dir);
  auto expect_index_error = [&](const std::string &index, const std::string &part) {
    std::ofstream(dir + "/index.json") << index;
    try {
      load_weights(m, a, dir);
      ADD_FAILURE() << "no error for " << part;
    } catch (const Error &e) {
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
    }
  };
  expect_index_error(R"({"format": 1, "tensors": []})", "is not a DeepEx weights index");
  expect_index_error("{\"format\": \"deepex-weights\", \"tensors\": [" + std::string(100000, '[') +
                         std::string(100000, ']') + "]}",
                     "nests deeper than 64");
  expect_index_error("{\"format\": \"deepex-weights\", \"tensors\": [" + std::string(30, '[') + std::string(30, ']') + "]}",
                     "lacks its name, shape or file: a list nested deeper than 16");
  std::filesystem::remove_all(dir);
}

} // namespace
