#include "sim/report/text_table.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace eksim::report {

std::string aligned_rows(const std::vector<std::vector<std::string>>& rows, const std::vector<bool>& right_aligned) {
  std::vector<std::size_t> width;
  for (const auto& r : rows) {
    if (width.size() < r.size()) width.resize(r.size(), 0);
    for (std::size_t c = 0; c < r.size(); ++c) width[c] = std::max(width[c], r[c].size());
  }
  std::string out;
  for (const auto& r : rows) {
    std::string line;
    for (std::size_t c = 0; c < r.size(); ++c) {
      if (c > 0) line += "  ";
      const bool right = c < right_aligned.size() && right_aligned[c];
      line += right ? fmt::format("{:>{}}", r[c], width[c]) : fmt::format("{:<{}}", r[c], width[c]);
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

}  // namespace eksim::report
