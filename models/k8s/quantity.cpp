#include "models/k8s/quantity.hpp"

#include <cmath>

namespace eksim::k8s {

namespace {

struct Suffix {
  std::string_view text;
  long double factor;  // multiplier to base units
};

// Binary suffixes first so that "Mi" is not read as "M" + junk.
constexpr Suffix kSuffixes[] = {
    {"Ki", 1024.0L}, {"Mi", 1048576.0L}, {"Gi", 1073741824.0L}, {"Ti", 1099511627776.0L},
    {"Pi", 1125899906842624.0L}, {"Ei", 1152921504606846976.0L},
    {"n", 1e-9L}, {"u", 1e-6L}, {"m", 1e-3L}, {"k", 1e3L}, {"M", 1e6L}, {"G", 1e9L}, {"T", 1e12L},
    {"P", 1e15L}, {"E", 1e18L},
};

}  // namespace

std::optional<std::int64_t> parse_quantity(std::string_view s) {
  if (s.empty()) return std::nullopt;
  bool negative = false;
  if (s[0] == '+' || s[0] == '-') {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  std::size_t i = 0;
  long double mantissa = 0;
  bool digits = false;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
    mantissa = mantissa * 10 + (s[i] - '0');
    ++i;
    digits = true;
  }
  if (i < s.size() && s[i] == '.') {
    ++i;
    long double scale = 0.1L;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
      mantissa += (s[i] - '0') * scale;
      scale /= 10;
      ++i;
      digits = true;
    }
  }
  if (!digits) return std::nullopt;
  std::string_view rest = s.substr(i);
  long double factor = 1;
  if (!rest.empty()) {
    if (rest[0] == 'e' || rest[0] == 'E') {
      // Decimal exponent form: "1e3". ("E" alone is the exa suffix.)
      std::string_view exp = rest.substr(1);
      if (!exp.empty()) {
        bool neg_exp = false;
        if (exp[0] == '+' || exp[0] == '-') {
          neg_exp = exp[0] == '-';
          exp.remove_prefix(1);
        }
        int e = 0;
        bool ok = !exp.empty();
        for (char c : exp) {
          if (c < '0' || c > '9' || e > 100) { ok = false; break; }
          e = e * 10 + (c - '0');
        }
        if (ok) {
          factor = std::pow(10.0L, neg_exp ? -e : e);
          rest = {};
        }
      }
    }
    if (!rest.empty()) {
      bool found = false;
      for (const auto& suf : kSuffixes) {
        if (rest == suf.text) {
          factor = suf.factor;
          found = true;
          break;
        }
      }
      if (!found) return std::nullopt;
    }
  }
  long double milli = mantissa * factor * 1000.0L;
  if (milli > 9.2e18L) return std::nullopt;
  // Kubernetes rounds a fractional milli-value up (a quantity is never smaller than written).
  auto v = static_cast<std::int64_t>(std::ceil(milli - 1e-9L));
  return negative ? -v : v;
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
