#pragma once
// The files of models/data/, embedded at build time (cmake/embed_data.cmake) so that eksim
// never searches the disk for its own data.
#include <string_view>

namespace eksim::data {
// Contents of models/data/<name>, or an empty view when there is no such file.
std::string_view embedded_file(std::string_view name);
}  // namespace eksim::data
