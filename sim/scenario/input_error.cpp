#include "sim/scenario/input_error.hpp"

#include <algorithm>

namespace eksim::scenario {

std::string Location::str() const {
  if (file.empty()) return "eksim";  // no place in any file: the program speaks for itself
  if (line <= 0) return file;
  return file + ":" + std::to_string(line) + ":" + std::to_string(column);
}

InputError::InputError(Location where, const std::string& message)
    : std::runtime_error(where.str() + ": error: " + message), where_(std::move(where)), message_(message) {}

namespace {

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

}  // namespace

std::string did_you_mean(const std::string& key, const std::vector<std::string>& candidates) {
  std::string best;
  std::size_t best_d = SIZE_MAX;
  for (const auto& c : candidates) {
    std::size_t d = edit_distance(key, c);
    // A shared stem ("subnets" / "subnet_ids") is a strong hint even when the tails differ.
    std::size_t stem = 0;
    while (stem < key.size() && stem < c.size() && key[stem] == c[stem]) ++stem;
    if (stem >= 5 && stem + 1 >= std::min(key.size(), c.size())) d = std::min<std::size_t>(d, 1);
    if (d < best_d) {
      best_d = d;
      best = c;
    }
  }
  std::size_t limit = std::max<std::size_t>(2, key.size() / 3);
  return best_d <= limit ? best : std::string();
}

}  // namespace eksim::scenario
