#pragma once
// A hash map keyed by std::string that is also looked up by std::string_view (or a literal)
// without building a key string: for caches keyed by names that are probed far more often than
// they are filled (event sources, node names). Iteration order is unspecified: never print one.
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>

namespace eksim::engine {

struct StringHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

template <typename V>
using StringMap = std::unordered_map<std::string, V, StringHash, std::equal_to<>>;

}  // namespace eksim::engine
