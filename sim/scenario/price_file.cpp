#include "sim/scenario/price_file.hpp"

#include <cstdlib>

#include "sim/engine/numbers.hpp"
#include "sim/scenario/csv_file.hpp"

namespace eksim::scenario {

std::vector<aws::UserPrice> read_price_file(const std::string& path, const Location& from,
                                            const aws::InstanceCatalog& catalog) {
  std::vector<aws::UserPrice> out;
  read_csv_file(path, from, "region,instanceType,capacityType,usdPerHour", "a price file", [&](const CsvRow& row) {
    const auto& cols = row.cols;
    auto at = [&](std::size_t col) { return row.at(col); };
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
  });
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
