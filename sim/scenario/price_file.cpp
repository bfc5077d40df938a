#include "sim/scenario/price_file.hpp"

#include <cstdlib>
#include <fstream>

#include "sim/engine/numbers.hpp"

namespace eksim::scenario {

namespace {

std::string trim(const std::string& s) {
  auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  auto e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

}  // namespace

std::vector<aws::UserPrice> read_price_file(const std::string& path, const Location& from,
                                            const aws::InstanceCatalog& catalog) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(from, "cannot open \"" + path + "\": no such file");
  std::vector<aws::UserPrice> out;
  std::string line;
  int line_no = 0;
  bool header = false;
  while (std::getline(in, line)) {
    ++line_no;
    std::string t = trim(line);
    if (t.empty() || t[0] == '#') continue;
    std::vector<std::string> cols;
    std::vector<int> starts;
    std::size_t pos = 0;
    while (true) {
      auto comma = line.find(',', pos);
      cols.push_back(trim(line.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos)));
      starts.push_back(static_cast<int>(pos) + 1);
      if (comma == std::string::npos) break;
      pos = comma + 1;
    }
    auto at = [&](std::size_t col) { return Location{path, line_no, starts[std::min(col, starts.size() - 1)]}; };
    if (!header) {
      if (t != "region,instanceType,capacityType,usdPerHour")
        throw InputError(at(0), "a price file starts with the header \"region,instanceType,capacityType,usdPerHour\"");
      header = true;
      continue;
    }
    if (cols.size() != 4)
      throw InputError(at(0), "expected 4 columns (region,instanceType,capacityType,usdPerHour), got " +
                                  std::to_string(cols.size()));
    aws::UserPrice p;
    p.region = cols[0];
    if (p.region.empty()) throw InputError(at(0), "region must not be empty");
    p.instance_type = cols[1];
    if (!catalog.find(p.instance_type)) {
      std::string hint = did_you_mean(p.instance_type, catalog.names());
      throw InputError(at(1), "unknown instance type \"" + p.instance_type + "\"" +
                                  (hint.empty() ? "" : "; did you mean \"" + hint + "\"?"));
    }
    if (cols[2] != "on-demand" && cols[2] != "spot")
      throw InputError(at(2), "capacityType must be on-demand or spot, got \"" + cols[2] + "\"");
    p.spot = cols[2] == "spot";
    auto usd = engine::parse_real(cols[3]);
    p.usd_per_hour = usd.value;
    if (!usd.ok() || !(p.usd_per_hour > 0) || p.usd_per_hour > 1e6)
      throw InputError(at(3), "usdPerHour: expected a positive number of dollars, got \"" + cols[3] + "\"");
    out.push_back(p);
  }
  if (!header) throw InputError(Location{path, 1, 1}, "a price file starts with the header \"region,instanceType,capacityType,usdPerHour\"");
  return out;
}

aws::PricingSpec read_pricing(const Value& v, const aws::InstanceCatalog& catalog) {
  MapReader r(v, "pricing");
  aws::PricingSpec spec;
  if (auto f = r.get("file")) {
    spec.file = f->as_string();
    spec.prices = read_price_file(FileLoader::resolve(f->file(), spec.file), f->where(), catalog);
  }
  if (auto d = r.get("discount")) {
    spec.discount = d->as_double();
    if (!(spec.discount >= 0 && spec.discount < 1))
      d->fail("discount must be a fraction in [0, 1) (0.28 for 28% off), got " + d->as_string());
  }
  r.finish();
  return spec;
}

}  // namespace eksim::scenario
