#include "sim/serve/time_base.hpp"

#include "sim/serve/cluster_autoscaler_status.hpp"

#include <cstdio>
#include <ctime>

#include <nlohmann/json.hpp>

namespace eksim::serve {

std::string rfc3339(std::int64_t unix_us, bool micro) {
  std::int64_t secs = unix_us >= 0 ? unix_us / 1000000 : (unix_us - 999999) / 1000000;
  std::int64_t frac = unix_us - secs * 1000000;
  std::time_t t = static_cast<std::time_t>(secs);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[48];
  if (micro)
    std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%06lldZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                  tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<long long>(frac));
  else
    std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                  tm.tm_hour, tm.tm_min, tm.tm_sec);
  return buf;
}

std::string TimeBase::at(engine::SimTime t) const { return rfc3339(sim0_unix_us + t.us, false); }
std::string TimeBase::micro_at(engine::SimTime t) const { return rfc3339(sim0_unix_us + t.us, true); }

bool parse_rfc3339(const std::string& s, std::int64_t& unix_us) {
  // YYYY-MM-DDTHH:MM:SS[.f+]Z
  if (s.size() < 20 || s.size() > 30 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' ||
      s.back() != 'Z')
    return false;
  auto digits = [&](std::size_t pos, std::size_t n, int& out) {
    out = 0;
    for (std::size_t i = pos; i < pos + n; ++i) {
      if (s[i] < '0' || s[i] > '9') return false;
      out = out * 10 + (s[i] - '0');
    }
    return true;
  };
  int y, mo, d, h, mi, se;
  if (!digits(0, 4, y) || !digits(5, 2, mo) || !digits(8, 2, d) || !digits(11, 2, h) || !digits(14, 2, mi) ||
      !digits(17, 2, se))
    return false;
  std::int64_t frac = 0;
  std::size_t pos = 19;
  if (s[pos] == '.') {
    int scale = 100000;
    for (++pos; pos < s.size() - 1; ++pos) {
      if (s[pos] < '0' || s[pos] > '9') return false;
      frac += (s[pos] - '0') * scale;
      scale /= 10;
    }
  } else if (pos != s.size() - 1) {
    return false;
  }
  std::tm tm{};
  tm.tm_year = y - 1900;
  tm.tm_mon = mo - 1;
  tm.tm_mday = d;
  tm.tm_hour = h;
  tm.tm_min = mi;
  tm.tm_sec = se;
  unix_us = static_cast<std::int64_t>(timegm(&tm)) * 1000000 + frac;
  return true;
}

void rebase_timestamps(nlohmann::json& v, std::int64_t delta_us) {
  if (delta_us == 0) return;
  if (v.is_object() || v.is_array()) {
    // Cluster Autoscaler's status ConfigMap carries its times inside a YAML text.
    if (v.is_object())
      if (auto kind = v.find("kind"); kind != v.end() && *kind == "ConfigMap") rebase_cluster_autoscaler_status(v, delta_us);
    for (auto& x : v) rebase_timestamps(x, delta_us);
  } else if (v.is_string()) {
    const std::string& s = v.get_ref<const std::string&>();
    std::int64_t us;
    if (parse_rfc3339(s, us)) v = rfc3339(us + delta_us, s.size() > 20);
  }
}

}  // namespace eksim::serve
