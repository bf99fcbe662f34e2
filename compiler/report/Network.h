// The machines `dxc report --project` models: a preset or a JSON file. The
// numbers and their sources are in docs/scaling-model.md.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace dx::report {

struct Network {
  std::string name;
  std::string description;
  int64_t gpusPerNode = 1;
  double intraBandwidth = 0; // bytes/s per rank and direction inside a node (NVLink)
  double intraLatency = 0;   // s per message inside a node
  double interBandwidth = 0; // bytes/s per node and direction between nodes (InfiniBand, all rails)
  double interLatency = 0;   // s per message between nodes
  std::string source;        // where the numbers come from
};

// "summit", "hopper".
std::vector<std::string> networkPresets();

// A preset by name, else a JSON file:
//   {"name": "mycluster", "gpus_per_node": 4,
//    "intra_node": {"bandwidth_GBps": 100, "latency_us": 2},
//    "inter_node": {"bandwidth_GBps": 25,  "latency_us": 5},
//    "source": "where the numbers come from"}
// (GB = 1e9 bytes). Throws InputError naming the file (and line) for a
// name that is neither, unreadable JSON, and missing or non-positive fields.
Network loadNetwork(const std::string &presetOrFile);

} // namespace dx::report
