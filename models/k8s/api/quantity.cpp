#include "models/k8s/api/quantity.hpp"

#include <algorithm>
#include <limits>

namespace eksim::k8s {

namespace {

using Wide = __int128;  // GCC/Clang builtin; every intermediate below stays far inside it
constexpr Wide kMaxMilli = std::numeric_limits<std::int64_t>::max();
constexpr Wide kOverflow = kMaxMilli + 1;  // any value above the int64 range

struct Suffix {
  std::string_view text;
  int pow10;  // decimal suffixes: 10^pow10
  int pow2;   // binary suffixes: 2^pow2
};

constexpr Suffix kSuffixes[] = {
    {"Ki", 0, 10}, {"Mi", 0, 20}, {"Gi", 0, 30}, {"Ti", 0, 40}, {"Pi", 0, 50}, {"Ei", 0, 60},
    {"n", -9, 0}, {"u", -6, 0}, {"m", -3, 0}, {"", 0, 0}, {"k", 3, 0}, {"M", 6, 0}, {"G", 9, 0},
    {"T", 12, 0}, {"P", 15, 0}, {"E", 18, 0},
};

// v * factor, saturating at kOverflow.
Wide mul_sat(Wide v, Wide factor) {
  if (v == 0) return 0;
  if (v > kOverflow / factor) return kOverflow;
  return std::min(v * factor, kOverflow);
}

}  // namespace

// Exact integer arithmetic throughout: a long double mantissa misrounds values such as
// "123456789.123" (the ceil below would then add a spurious milli-unit).
std::optional<std::int64_t> parse_quantity(std::string_view s) {
  if (s.empty()) return std::nullopt;
  bool negative = false;
  if (s[0] == '+' || s[0] == '-') {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  std::size_t i = 0;
  Wide mantissa = 0;
  int fraction_digits = 0;
  bool digits = false;
  bool dropped_nonzero = false;  // fraction digits beyond what the mantissa can hold
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
    mantissa = mul_sat(mantissa, 10) + (s[i] - '0');
    if (mantissa >= kOverflow) mantissa = kOverflow;
    ++i;
    digits = true;
  }
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
      if (fraction_digits < 30 && mantissa < kOverflow) {
        mantissa = mantissa * 10 + (s[i] - '0');
        ++fraction_digits;
      } else if (s[i] != '0') {
        dropped_nonzero = true;
      }
      ++i;
      digits = true;
    }
  }
  if (!digits) return std::nullopt;
  std::string_view rest = s.substr(i);
  int pow10 = 0;
  int pow2 = 0;
  bool parsed_suffix = false;
  if (!rest.empty() && (rest[0] == 'e' || rest[0] == 'E') && rest.size() > 1) {
    // Decimal exponent form: "1e3", "5E-3". ("E" alone is the exa suffix.)
    std::string_view exp = rest.substr(1);
    bool neg_exp = false;
    if (exp[0] == '+' || exp[0] == '-') {
      neg_exp = exp[0] == '-';
      exp.remove_prefix(1);
    }
    int e = 0;
    bool ok = !exp.empty();
    for (char c : exp) {
      if (c < '0' || c > '9') { ok = false; break; }
      e = std::min(e * 10 + (c - '0'), 1000);
    }
    if (!ok) return std::nullopt;
    pow10 = neg_exp ? -e : e;
    parsed_suffix = true;
  }
  if (!parsed_suffix) {
    const Suffix* found = nullptr;
    for (const auto& suf : kSuffixes)
      if (rest == suf.text) found = &suf;
    if (!found) return std::nullopt;
    pow10 = found->pow10;
    pow2 = found->pow2;
  }
  // milli-units = mantissa * 2^pow2 * 10^(pow10 + 3 - fraction_digits), rounded up.
  Wide v = mantissa;
  for (int k = 0; k < pow2; ++k) v = mul_sat(v, 2);
  int net10 = pow10 + 3 - fraction_digits;
  bool inexact = dropped_nonzero;
  for (; net10 > 0; --net10) v = mul_sat(v, 10);
  for (; net10 < 0 && v > 0; ++net10) {
    if (v % 10 != 0) inexact = true;
    v /= 10;
  }
  // Kubernetes never rounds a quantity below what was written: fractional milli-units round up.
  if (inexact) v += 1;
  if (v > kMaxMilli) return std::nullopt;
  auto out = static_cast<std::int64_t>(v);
  return negative ? -out : out;
}

std::string format_cpu(std::int64_t m) {
  if (m % 1000 == 0) return std::to_string(m / 1000);
  return std::to_string(m) + "m";
}

std::string format_memory(std::int64_t bytes) {
  if (bytes != 0 && bytes % 1024 == 0) return std::to_string(bytes / 1024) + "Ki";
  return std::to_string(bytes);
}

std::string format_count(std::int64_t count) { return std::to_string(count); }

}  // namespace eksim::k8s
