#include "models/aws/pricing.hpp"

#include <fmt/format.h>

namespace eksim::aws {

PriceBook::PriceBook(std::string region, PricingSpec spec) : region_(std::move(region)), spec_(std::move(spec)) {
  for (const auto& p : spec_.prices)
    if (p.region == region_) user_[{p.instance_type, p.spot, p.zone}] = p.usd_per_hour;
}

std::optional<Price> PriceBook::user(const InstanceType& t, bool spot, std::string_view zone) const {
  if (user_.empty()) return std::nullopt;
  const double keep = 1.0 - spec_.discount;
  if (!zone.empty()) {
    auto z = user_.find(std::make_tuple(t.name, spot, std::string(zone)));
    if (z != user_.end()) return Price{z->second * keep, PriceSource::CapacityPool};
  }
  auto r = user_.find(std::make_tuple(t.name, spot, std::string()));
  if (r != user_.end()) return Price{r->second * keep, PriceSource::User};
  return std::nullopt;
}

std::optional<Price> PriceBook::on_demand(const InstanceType& t, std::string_view zone) const {
  const double keep = 1.0 - spec_.discount;
  if (auto u = user(t, false, zone)) return u;
  if (auto p = t.on_demand_price(region_)) return Price{*p * keep, PriceSource::Catalog};
  return std::nullopt;
}

std::optional<Price> PriceBook::spot(const InstanceType& t, std::string_view zone) const {
  if (auto u = user(t, true, zone)) return u;
  if (t.spot_price_factor <= 0) return std::nullopt;
  auto od = on_demand(t, zone);
  if (!od) return std::nullopt;
  return Price{od->usd_per_hour * t.spot_price_factor, PriceSource::SpotFactor};
}

double PriceBook::hourly(const InstanceType& t, bool spot, std::string_view zone) const {
  auto p = price(t, spot, zone);
  return p ? p->usd_per_hour : 0.0;
}

std::string describe(const Price& p, const InstanceType& t, const PricingSpec& spec) {
  std::string s;
  switch (p.source) {
    case PriceSource::CapacityPool: s = "capacity pool price (usdPerHour)"; break;
    case PriceSource::User: s = "price file " + spec.file; break;
    case PriceSource::Catalog: s = "catalog On-Demand price"; break;
    case PriceSource::SpotFactor:
      s = fmt::format("assumed: spot factor {:.2f} x On-Demand (no Spot price given)", t.spot_price_factor);
      break;
  }
  if (spec.discount > 0) s += fmt::format(", less {:g}% discount", spec.discount * 100);
  return s;
}

}  // namespace eksim::aws
