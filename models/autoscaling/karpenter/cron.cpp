#include "models/autoscaling/karpenter/cron.hpp"

#include <algorithm>
#include <cctype>
#include <vector>
#include "sim/engine/numbers.hpp"

namespace eksim::autoscaling::karpenter {

namespace {

struct Civil {
  std::int64_t days;  // since 1970-01-01
  int year, month, day, hour, minute, weekday;
};

// Howard Hinnant's civil_from_days.
Civil civil(std::int64_t unix_seconds) {
  std::int64_t days = unix_seconds >= 0 ? unix_seconds / 86400 : -((-unix_seconds + 86399) / 86400);
  std::int64_t secs = unix_seconds - days * 86400;
  Civil c{};
  c.days = days;
  c.hour = static_cast<int>(secs / 3600);
  c.minute = static_cast<int>(secs % 3600 / 60);
  c.weekday = static_cast<int>(((days % 7) + 11) % 7);  // 1970-01-01 was a Thursday (4)
  std::int64_t z = days + 719468;
  std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  std::int64_t doe = z - era * 146097;
  std::int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  std::int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  std::int64_t mp = (5 * doy + 2) / 153;
  c.day = static_cast<int>(doy - (153 * mp + 2) / 5 + 1);
  c.month = static_cast<int>(mp < 10 ? mp + 3 : mp - 9);
  c.year = static_cast<int>(yoe + era * 400 + (c.month <= 2 ? 1 : 0));
  return c;
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  for (char ch : s) {
    if (ch == sep) {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += ch;
    }
  }
  out.push_back(cur);
  return out;
}

std::optional<int> value_of(const std::string& tok, const char* const* names, int names_base) {
  if (tok.empty()) return std::nullopt;
  if (std::all_of(tok.begin(), tok.end(), [](unsigned char ch) { return std::isdigit(ch); })) {
    if (tok.size() > 4) return std::nullopt;
    return engine::parse_integer<int>(tok).value;
  }
  if (!names) return std::nullopt;
  std::string low;
  for (char ch : tok) low += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  for (int i = 0; names[i]; ++i)
    if (low == names[i]) return names_base + i;
  return std::nullopt;
}

// One field: comma-separated items of `*`, `N`, `N-M`, each with an optional `/step`.
// Returns false on a syntax or range error; *star is set when the field starts with `*` or `?`.
template <std::size_t Bits>
bool parse_field(const std::string& field, int lo, int hi, const char* const* names, int names_base, std::bitset<Bits>& out,
                 bool* star) {
  if (star) *star = !field.empty() && (field[0] == '*' || field[0] == '?');
  for (const std::string& item : split(field, ',')) {
    std::string range = item;
    int step = 1;
    auto slash = item.find('/');
    if (slash != std::string::npos) {
      range = item.substr(0, slash);
      auto st = value_of(item.substr(slash + 1), nullptr, 0);
      if (!st || *st <= 0) return false;
      step = *st;
    }
    int a = lo, b = hi;
    if (range == "*" || range == "?") {
      // whole range
    } else {
      auto dash = range.find('-');
      auto first = value_of(range.substr(0, dash), names, names_base);
      if (!first) return false;
      a = *first;
      if (dash != std::string::npos) {
        auto last = value_of(range.substr(dash + 1), names, names_base);
        if (!last) return false;
        b = *last;
      } else {
        b = slash != std::string::npos ? hi : a;  // "N/step" runs to the end of the range
      }
    }
    if (a < lo || b > hi || a > b) return false;
    for (int v = a; v <= b; v += step) out.set(static_cast<std::size_t>(v));
  }
  return true;
}

const char* const kMonths[] = {"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec", nullptr};
const char* const kDays[] = {"sun", "mon", "tue", "wed", "thu", "fri", "sat", nullptr};

bool day_matches(const CronSchedule& s, const Civil& c) {
  if (!s.month.test(static_cast<std::size_t>(c.month))) return false;
  bool dom = s.dom.test(static_cast<std::size_t>(c.day));
  bool dow = s.dow.test(static_cast<std::size_t>(c.weekday));
  if (s.dom_star || s.dow_star) return dom && dow;
  return dom || dow;
}

}  // namespace

std::optional<CronSchedule> parse_cron(const std::string& spec_in, std::string* error) {
  std::string spec = spec_in;
  // Descriptors (robfig/cron parseDescriptor).
  static const std::pair<const char*, const char*> kDescriptors[] = {
      {"@yearly", "0 0 1 1 *"}, {"@annually", "0 0 1 1 *"}, {"@monthly", "0 0 1 * *"},
      {"@weekly", "0 0 * * 0"}, {"@daily", "0 0 * * *"},    {"@midnight", "0 0 * * *"},
      {"@hourly", "0 * * * *"}};
  for (const auto& [d, expansion] : kDescriptors)
    if (spec == d) spec = expansion;
  std::vector<std::string> fields;
  std::string cur;
  for (char ch : spec) {
    if (ch == ' ' || ch == '\t') {
      if (!cur.empty()) fields.push_back(cur);
      cur.clear();
    } else {
      cur += ch;
    }
  }
  if (!cur.empty()) fields.push_back(cur);
  auto fail = [&](const std::string& why) -> std::optional<CronSchedule> {
    if (error) *error = why;
    return std::nullopt;
  };
  if (fields.size() != 5) return fail("expected exactly 5 fields, found " + std::to_string(fields.size()) + ": " + spec_in);
  CronSchedule s;
  if (!parse_field(fields[0], 0, 59, nullptr, 0, s.minute, nullptr)) return fail("invalid minute field: " + fields[0]);
  if (!parse_field(fields[1], 0, 23, nullptr, 0, s.hour, nullptr)) return fail("invalid hour field: " + fields[1]);
  if (!parse_field(fields[2], 1, 31, nullptr, 0, s.dom, &s.dom_star)) return fail("invalid day-of-month field: " + fields[2]);
  if (!parse_field(fields[3], 1, 12, kMonths, 1, s.month, nullptr)) return fail("invalid month field: " + fields[3]);
  // Day of week 7 is Sunday too (robfig/cron accepts 0-6 only; Vixie cron 0-7): 0-6 here.
  if (!parse_field(fields[4], 0, 6, kDays, 0, s.dow, &s.dow_star)) return fail("invalid day-of-week field: " + fields[4]);
  return s;
}

bool cron_matches(const CronSchedule& s, std::int64_t unix_seconds) {
  Civil c = civil(unix_seconds);
  return day_matches(s, c) && s.hour.test(static_cast<std::size_t>(c.hour)) && s.minute.test(static_cast<std::size_t>(c.minute));
}

bool cron_window_active(const CronSchedule& s, std::int64_t now, std::int64_t duration) {
  if (duration <= 0) return false;
  const std::int64_t floor_limit = now - duration;  // exclusive
  // Walk back minute by minute from now, skipping whole days and hours that cannot match.
  std::int64_t t = now - (((now % 60) + 60) % 60);
  while (t > floor_limit) {
    Civil c = civil(t);
    if (!day_matches(s, c)) {
      t = c.days * 86400 - 60;  // last minute of the previous day
      continue;
    }
    if (!s.hour.test(static_cast<std::size_t>(c.hour))) {
      t = c.days * 86400 + c.hour * 3600 - 60;
      continue;
    }
    if (s.minute.test(static_cast<std::size_t>(c.minute))) return true;
    t -= 60;
  }
  return false;
}

}  // namespace eksim::autoscaling::karpenter
