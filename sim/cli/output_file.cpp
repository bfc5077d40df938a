#include "sim/cli/output_file.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>

#include "sim/scenario/input_error.hpp"

namespace eksim::cli {

namespace {
[[noreturn]] void cannot_write(const std::string& path) {
  // errno still holds the reason the stream failed (ENOENT for a missing directory, ...).
  std::string why = errno ? std::string(": ") + std::strerror(errno) : std::string();
  throw scenario::InputError(scenario::Location{}, "cannot write \"" + path + "\"" + why);
}
}  // namespace

void write_output_file(const std::string& path, const std::string& text) {
  errno = 0;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (out) out << text;
  if (!out) cannot_write(path);
}

void write_output_file(const std::string& path,
                       const std::function<void(const std::function<void(std::string_view)>&)>& produce) {
  errno = 0;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (out) produce([&out](std::string_view piece) { out.write(piece.data(), static_cast<std::streamsize>(piece.size())); });
  if (!out) cannot_write(path);
}

}  // namespace eksim::cli
