#pragma once
// Checked conversions of numbers written by users (scenario values, flags, annotations).
//
// std::stoi and friends throw on bad input, accept trailing garbage ("1e300" -> 1) and know no
// ranges; a number read from input goes through here instead. The whole text must be the number
// (no spaces, no suffix), an optional leading '+' is accepted as YAML and Go accept it, and a
// value outside the target type (or a double that overflows or underflows) is OutOfRange, never
// a wrapped or clamped value.
#include <charconv>
#include <concepts>
#include <string>
#include <string_view>

namespace eksim::engine {

enum class NumberStatus { Ok, NotANumber, OutOfRange };

template <class T>
struct ParsedNumber {
  T value{};
  NumberStatus status = NumberStatus::NotANumber;
  bool ok() const { return status == NumberStatus::Ok; }
};

namespace detail {
// "+5" -> "5"; a lone sign or "+-5" stays invalid.
inline std::string_view strip_plus(std::string_view s) {
  if (s.size() > 1 && s[0] == '+' && s[1] != '-' && s[1] != '+') s.remove_prefix(1);
  return s;
}
}  // namespace detail

// A decimal integer of type T ("12", "-3", "+7"); "1.0", "1e3", "0x10" are NotANumber.
template <std::integral T>
ParsedNumber<T> parse_integer(std::string_view text) {
  std::string_view s = detail::strip_plus(text);
  ParsedNumber<T> out;
  if (s.empty()) return out;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out.value, 10);
  if (ec == std::errc::result_out_of_range) {
    // from_chars stops at the first non-digit even when out of range: "9999999999999999999x" is
    // not a number at all.
    out.status = end == s.data() + s.size() ? NumberStatus::OutOfRange : NumberStatus::NotANumber;
    out.value = T{};
    return out;
  }
  out.status = (ec == std::errc() && end == s.data() + s.size()) ? NumberStatus::Ok : NumberStatus::NotANumber;
  if (!out.ok()) out.value = T{};
  return out;
}

// A finite decimal number ("0.5", "1e3", "-2"); "inf", "nan" and hex floats are NotANumber,
// "1e400" and "1e-400" OutOfRange.
ParsedNumber<double> parse_real(std::string_view text);

}  // namespace eksim::engine
