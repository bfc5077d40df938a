#pragma once
#include <functional>
#include <string>
#include <string_view>

namespace eksim::cli {
// Writes text to path; a file that cannot be written is an input error ("error: cannot write").
void write_output_file(const std::string& path, const std::string& text);
// Streams: `produce` is given a sink and writes the file's text through it piece by piece.
void write_output_file(const std::string& path,
                       const std::function<void(const std::function<void(std::string_view)>&)>& produce);
}  // namespace eksim::cli
