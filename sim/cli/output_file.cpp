#include "sim/cli/output_file.hpp"

#include <fstream>

#include "sim/scenario/input_error.hpp"

namespace eksim::cli {

void write_output_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (out) out << text;
  if (!out) throw scenario::InputError(scenario::Location{path, 0, 0}, "cannot write \"" + path + "\"");
}

}  // namespace eksim::cli
