#include "sim/engine/numbers.hpp"

#include <cmath>

namespace eksim::engine {

ParsedNumber<double> parse_real(std::string_view text) {
  std::string_view s = detail::strip_plus(text);
  ParsedNumber<double> out;
  if (s.empty()) return out;
  // from_chars accepts "inf", "nan" and "infinity"; a user-written quantity never means those.
  for (char c : s)
    if (!((c >= '0' && c <= '9') || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E')) return out;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out.value, std::chars_format::general);
  if (end != s.data() + s.size() || (ec != std::errc() && ec != std::errc::result_out_of_range)) {
    out.value = 0;
    return out;
  }
  if (ec == std::errc::result_out_of_range || !std::isfinite(out.value)) {
    out.value = 0;
    out.status = NumberStatus::OutOfRange;
    return out;
  }
  out.status = NumberStatus::Ok;
  return out;
}

}  // namespace eksim::engine
