#include "common/Sidecar.h"

#include <cstdio>
#include <fstream>
#include <stdexcept>

namespace dxgen {

void write_sidecar(const std::string &path, const nlohmann::json &doc) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp);
    out << doc.dump(2) << "\n";
    if (!out.flush()) throw std::runtime_error(tmp + ": write failed");
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) throw std::runtime_error(path + ": cannot rename " + tmp);
}

} // namespace dxgen
