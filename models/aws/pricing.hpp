#pragma once
// What an instance-hour costs in the scenario's region: the catalog's On-Demand price (us-east-1
// and GovCloud from Karpenter's generated pricing tables, ap-northeast-2 for the FACTS.md types),
// or the user's price file (`cluster.pricing.file`: region,instanceType,capacityType,usdPerHour),
// less a uniform discount (Savings Plans, EDP). Spot without a user price is the catalog's
// assumed spot factor times On-Demand. Every price says where it came from, so that the report
// can list the ones that were assumed.
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "models/aws/instance_catalog.hpp"

namespace eksim::aws {

struct UserPrice {
  std::string region;
  std::string instance_type;
  bool spot = false;
  double usd_per_hour = 0;
  std::string zone;  // a capacity pool's price holds in its AZ only; "" = the whole region
};

struct PricingSpec {
  std::string file;               // as the scenario names it, for messages
  std::vector<UserPrice> prices;  // the file's rows
  double discount = 0;            // fraction taken off every price, [0, 1)
};

enum class PriceSource { CapacityPool, User, Catalog, SpotFactor };

struct Price {
  double usd_per_hour = 0;  // after the discount
  PriceSource source = PriceSource::Catalog;
};

class PriceBook {
 public:
  PriceBook() = default;
  PriceBook(std::string region, PricingSpec spec);

  // nullopt when neither the user nor the catalog prices the type in the region. With a zone, a
  // capacity pool's own price for that AZ wins.
  std::optional<Price> on_demand(const InstanceType& t, std::string_view zone = {}) const;
  std::optional<Price> spot(const InstanceType& t, std::string_view zone = {}) const;
  std::optional<Price> price(const InstanceType& t, bool spot, std::string_view zone = {}) const {
    return spot ? this->spot(t, zone) : on_demand(t, zone);
  }
  // Hourly price, 0 when unknown (the loader refuses node groups without a price; Karpenter
  // offers no type without one).
  double hourly(const InstanceType& t, bool spot, std::string_view zone = {}) const;
  const std::string& region() const { return region_; }
  double discount() const { return spec_.discount; }

 private:
  std::string region_ = "us-east-1";
  PricingSpec spec_;
  std::optional<Price> user(const InstanceType& t, bool spot, std::string_view zone) const;
  std::map<std::tuple<std::string, bool, std::string>, double, std::less<>> user_;  // (type, spot, zone)
};

// How a price was found, for the report: "user price file prices.csv", "catalog", "assumed: spot
// factor 0.40 x On-Demand".
std::string describe(const Price& p, const InstanceType& t, const PricingSpec& spec);

}  // namespace eksim::aws
