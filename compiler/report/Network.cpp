#include "report/Network.h"

#include "report/Log.h"

#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace dx::report {

namespace {

constexpr double GB = 1e9;
constexpr double us = 1e-6;

Network summit() {
  Network n;
  n.name = "summit";
  n.description = "Summit-like: 6 NVIDIA V100 per node, NVLink 2.0 50 GB/s, dual-rail EDR InfiniBand 2 x 12.5 GB/s "
                  "per node";
  n.gpusPerNode = 6;
  n.intraBandwidth = 50 * GB;
  n.intraLatency = 2 * us;
  n.interBandwidth = 25 * GB;
  n.interLatency = 5 * us;
  n.source = "OLCF Summit User Guide (node: 6 V100, NVLink 2.0 at 50 GB/s; dual-rail EDR InfiniBand, 2 x 100 Gb/s "
             "= 25 GB/s per node); latencies are assumed, typical MPI/NCCL values";
  return n;
}

Network hopper() {
  Network n;
  n.name = "hopper";
  n.description = "Hopper cluster (DGX H100-like): 8 NVIDIA H100 per node, NVLink 4 450 GB/s per GPU and direction, "
                  "8 x NDR InfiniBand 400 Gb/s = 400 GB/s per node";
  n.gpusPerNode = 8;
  n.intraBandwidth = 450 * GB;
  n.intraLatency = 2 * us;
  n.interBandwidth = 400 * GB;
  n.interLatency = 5 * us;
  n.source = "NVIDIA H100 datasheet (NVLink 900 GB/s bidirectional per GPU) and DGX H100 datasheet (8 ConnectX-7 "
             "NDR 400 Gb/s ports for the compute fabric); latencies are assumed, typical MPI/NCCL values";
  return n;
}

// 1-based line and column of byte offset `pos` of `text`.
std::pair<int, int> lineColumn(const std::string &text, size_t pos) {
  int line = 1, col = 1;
  for (size_t i = 0; i < pos && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return {line, col};
}

} // namespace

std::vector<std::string> networkPresets() { return {"summit", "hopper"}; }

Network loadNetwork(const std::string &spec) {
  if (spec == "summit") return summit();
  if (spec == "hopper") return hopper();

  std::error_code ec;
  if (!std::filesystem::is_regular_file(spec, ec))
    throw InputError("", 0, 0,
                     "unknown network '" + spec + "': not a preset (summit, hopper) and not a readable file");
  std::ifstream in(spec, std::ios::binary);
  if (!in) throw InputError(spec, 0, 0, std::string("cannot read the network file: ") + std::strerror(errno));
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error &e) {
    auto [line, col] = lineColumn(text, e.byte ? e.byte - 1 : 0);
    std::string m = e.what();
    if (size_t p = m.find("column "); p != std::string::npos)
      if (size_t q = m.find(": ", p); q != std::string::npos) m = m.substr(q + 2);
    throw InputError(spec, line, col, "not valid JSON: " + m);
  }
  auto fail = [&](const std::string &m) -> void { throw InputError(spec, 0, 0, m); };
  if (!j.is_object()) fail("a network file holds one JSON object");
  auto positive = [&](const nlohmann::json &o, const char *key, const std::string &where) {
    if (!o.contains(key)) fail("the network has no '" + where + key + "'");
    if (!o[key].is_number() || !(o[key].get<double>() > 0) || !std::isfinite(o[key].get<double>()))
      fail("'" + where + key + "' must be a positive number, not " + o[key].dump());
    return o[key].get<double>();
  };
  auto part = [&](const char *key) -> const nlohmann::json & {
    if (!j.contains(key) || !j[key].is_object())
      fail(std::string("the network needs an object '") + key +
           "' with 'bandwidth_GBps' and 'latency_us'");
    return j[key];
  };
  Network n;
  n.name = j.contains("name") && j["name"].is_string() ? j["name"].get<std::string>()
                                                        : std::filesystem::path(spec).stem().string();
  n.source = j.contains("source") && j["source"].is_string() ? j["source"].get<std::string>() : spec;
  double g = positive(j, "gpus_per_node", "");
  if (g != std::floor(g)) fail("'gpus_per_node' must be a whole number, not " + j["gpus_per_node"].dump());
  n.gpusPerNode = int64_t(g);
  const auto &intra = part("intra_node");
  const auto &inter = part("inter_node");
  n.intraBandwidth = positive(intra, "bandwidth_GBps", "intra_node.") * GB;
  n.intraLatency = positive(intra, "latency_us", "intra_node.") * us;
  n.interBandwidth = positive(inter, "bandwidth_GBps", "inter_node.") * GB;
  n.interLatency = positive(inter, "latency_us", "inter_node.") * us;
  n.description = j.contains("description") && j["description"].is_string()
                      ? j["description"].get<std::string>()
                      : n.name + ": " + std::to_string(n.gpusPerNode) + " ranks per node";
  return n;
}

} // namespace dx::report
