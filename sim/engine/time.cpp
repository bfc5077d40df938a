#include "sim/engine/time.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace eksim::engine {

Duration Duration::from_seconds(double s) {
  const double us = s * 1e6;
  if (std::isnan(us)) return {};
  // 2^63 is a double; llround of anything at or past it (or below -2^63) is undefined. Doubles
  // that large are integers, so no rounding can cross the rail.
  if (us >= 9223372036854775808.0) return {kInt64Max};
  if (us <= -9223372036854775808.0) return {kInt64Min};
  return {static_cast<std::int64_t>(std::llround(us))};
}

namespace {

// Nanoseconds per unit, as in Go's time package.
std::optional<std::int64_t> unit_ns(std::string_view u) {
  if (u == "ns") return 1;
  if (u == "us" || u == "\xc2\xb5s" || u == "\xce\xbcs") return 1000;  // us, µs (micro sign), μs (mu)
  if (u == "ms") return 1000000;
  if (u == "s") return 1000000000LL;
  if (u == "m") return 60000000000LL;
  if (u == "h") return 3600000000000LL;
  return std::nullopt;
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

std::optional<Duration> parse_duration(std::string_view s) {
  bool negative = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s == "0") return Duration{0};
  if (s.empty()) return std::nullopt;
  // Accumulate in nanoseconds as long double to keep fractions like "1.5h" exact enough, then
  // truncate to microseconds. Go caps at ~292 years; we cap at the same int64-ns range.
  long double total_ns = 0;
  while (!s.empty()) {
    std::size_t i = 0;
    std::int64_t whole = 0;
    bool any = false;
    while (i < s.size() && is_digit(s[i])) {
      if (whole > (INT64_MAX - 9) / 10) return std::nullopt;
      whole = whole * 10 + (s[i] - '0');
      ++i;
      any = true;
    }
    long double frac = 0, scale = 1;
    if (i < s.size() && s[i] == '.') {
      ++i;
      while (i < s.size() && is_digit(s[i])) {
        scale /= 10;
        frac += (s[i] - '0') * scale;
        ++i;
        any = true;
      }
    }
    if (!any) return std::nullopt;
    std::size_t j = i;
    while (j < s.size() && !is_digit(s[j]) && s[j] != '.') ++j;
    auto unit = unit_ns(s.substr(i, j - i));
    if (!unit) return std::nullopt;
    total_ns += (static_cast<long double>(whole) + frac) * static_cast<long double>(*unit);
    if (total_ns > static_cast<long double>(INT64_MAX)) return std::nullopt;
    s.remove_prefix(j);
  }
  auto us = static_cast<std::int64_t>(total_ns / 1000);
  return Duration{negative ? -us : us};
}

namespace {

// Appends v / 10^digits with trailing zeros of the fraction removed, as Go's fmtFrac/fmtInt do.
void append_fixed(std::string& out, std::uint64_t v, int digits) {
  std::uint64_t div = 1;
  for (int i = 0; i < digits; ++i) div *= 10;
  out += std::to_string(v / div);
  std::uint64_t frac = v % div;
  if (frac == 0) return;
  std::string f = std::to_string(frac);
  f.insert(0, static_cast<std::size_t>(digits) - f.size(), '0');
  while (!f.empty() && f.back() == '0') f.pop_back();
  out += '.';
  out += f;
}

}  // namespace

std::string format_duration(Duration d) {
  if (d.us == 0) return "0s";
  std::string out;
  std::uint64_t u = d.us < 0 ? static_cast<std::uint64_t>(-(d.us + 1)) + 1 : static_cast<std::uint64_t>(d.us);
  if (d.us < 0) out += '-';
  if (u < 1000) {
    out += std::to_string(u) + "\xc2\xb5s";  // Go prints the micro sign
  } else if (u < 1000000) {
    append_fixed(out, u, 3);
    out += "ms";
  } else {
    std::uint64_t hours = u / 3600000000ULL;
    std::uint64_t rest = u % 3600000000ULL;
    std::uint64_t minutes = rest / 60000000ULL;
    std::uint64_t sec_us = rest % 60000000ULL;
    if (hours > 0) out += std::to_string(hours) + "h";
    if (hours > 0 || minutes > 0) out += std::to_string(minutes) + "m";
    append_fixed(out, sec_us, 6);
    out += "s";
  }
  return out;
}

std::string format_clock(SimTime t) {
  std::int64_t ms = t.us / 1000;
  bool negative = ms < 0;
  if (negative) ms = -ms;
  char buf[48];
  std::snprintf(buf, sizeof buf, "%s%02lld:%02lld:%02lld.%03lld", negative ? "-" : "",
                static_cast<long long>(ms / 3600000), static_cast<long long>(ms / 60000 % 60),
                static_cast<long long>(ms / 1000 % 60), static_cast<long long>(ms % 1000));
  return buf;
}

std::string human_duration(Duration d) {
  std::int64_t seconds = d.us / 1000000;
  if (seconds < 0) seconds = 0;
  auto str = [](std::int64_t v) { return std::to_string(v); };
  if (seconds < 120) return str(seconds) + "s";
  std::int64_t minutes = seconds / 60;
  if (minutes < 10) {
    std::int64_t s = seconds % 60;
    return s == 0 ? str(minutes) + "m" : str(minutes) + "m" + str(s) + "s";
  }
  if (minutes < 180) return str(minutes) + "m";
  std::int64_t hours = minutes / 60;
  if (hours < 8) {
    std::int64_t m = minutes % 60;
    return m == 0 ? str(hours) + "h" : str(hours) + "h" + str(m) + "m";
  }
  if (hours < 48) return str(hours) + "h";
  if (hours < 24 * 8) {
    std::int64_t h = hours % 24;
    return h == 0 ? str(hours / 24) + "d" : str(hours / 24) + "d" + str(h) + "h";
  }
  if (hours < 24 * 365 * 2) return str(hours / 24) + "d";
  if (hours < 24 * 365 * 8) {
    std::int64_t dy = (hours / 24) % 365;
    return dy == 0 ? str(hours / 24 / 365) + "y" : str(hours / 24 / 365) + "y" + str(dy) + "d";
  }
  return str(hours / 24 / 365) + "y";
}

}  // namespace eksim::engine

namespace eksim::engine {

namespace {

// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil).
std::int64_t days_from_civil(std::int64_t y, int m, int d) {
  y -= m <= 2;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const std::int64_t yoe = y - era * 400;
  const std::int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const std::int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

int days_in_month(int y, int m) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  return m == 2 && leap ? 29 : kDays[m - 1];
}

// n decimal digits at s[pos..pos+n) into out; false if any is not a digit or s is too short.
bool fixed_digits(std::string_view s, std::size_t pos, std::size_t n, int& out) {
  if (pos + n > s.size()) return false;
  out = 0;
  for (std::size_t i = pos; i < pos + n; ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    out = out * 10 + (s[i] - '0');
  }
  return true;
}

}  // namespace

std::optional<std::int64_t> parse_rfc3339(std::string_view s) {
  int y, mo, d, h, mi, se;
  if (!fixed_digits(s, 0, 4, y) || s.size() < 20 || s[4] != '-' || !fixed_digits(s, 5, 2, mo) || s[7] != '-' ||
      !fixed_digits(s, 8, 2, d) || (s[10] != 'T' && s[10] != 't') || !fixed_digits(s, 11, 2, h) || s[13] != ':' ||
      !fixed_digits(s, 14, 2, mi) || s[16] != ':' || !fixed_digits(s, 17, 2, se))
    return std::nullopt;
  if (y < 1970 || mo < 1 || mo > 12 || d < 1 || d > days_in_month(y, mo) || h > 23 || mi > 59 || se > 59)
    return std::nullopt;
  std::size_t pos = 19;
  std::int64_t frac_us = 0;
  if (s[pos] == '.') {
    std::int64_t scale = 100000;
    std::size_t digits = 0;
    for (++pos; pos < s.size() && s[pos] >= '0' && s[pos] <= '9'; ++pos, ++digits) {
      frac_us += (s[pos] - '0') * scale;  // digits past the microsecond are dropped (scale 0)
      scale /= 10;
    }
    if (digits == 0 || digits > 9) return std::nullopt;  // Go reads at most nanoseconds
  }
  std::int64_t offset_s = 0;
  if (pos < s.size() && (s[pos] == 'Z' || s[pos] == 'z') && pos + 1 == s.size()) {
    offset_s = 0;
  } else if (pos + 6 == s.size() && (s[pos] == '+' || s[pos] == '-') && s[pos + 3] == ':') {
    int oh, om;
    if (!fixed_digits(s, pos + 1, 2, oh) || !fixed_digits(s, pos + 4, 2, om) || oh > 23 || om > 59) return std::nullopt;
    offset_s = (s[pos] == '-' ? -1 : 1) * (oh * 3600 + om * 60);
  } else {
    return std::nullopt;
  }
  const std::int64_t seconds = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + se - offset_s;
  if (seconds < 0) return std::nullopt;  // 1970-01-01T00:30:00+01:00 is before the epoch
  return seconds * 1000000 + frac_us;
}

}  // namespace eksim::engine
