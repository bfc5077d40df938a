#include "sim/cli/output_file.hpp"

#include <fstream>

#include "sim/scenario/input_error.hpp"

namespace eksim::cli {

void write_output_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (out) out << text;
  if (!out) throw scenario::InputError(scenario::Location{path, 0, 0}, "cannot write \"" + path + "\"");
}

void write_output_file(const std::string& path,
                       const std::function<void(const std::function<void(std::string_view)>&)>& produce) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (out) produce([&out](std::string_view piece) { out.write(piece.data(), static_cast<std::streamsize>(piece.size())); });
  if (!out) throw scenario::InputError(scenario::Location{path, 0, 0}, "cannot write \"" + path + "\"");
}

}  // namespace eksim::cli
