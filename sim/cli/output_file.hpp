#pragma once
#include <string>

namespace eksim::cli {
// Writes text to path; a file that cannot be written is an input error ("error: cannot write").
void write_output_file(const std::string& path, const std::string& text);
}  // namespace eksim::cli
