// Prices in a region: user file first, then the catalog, less the discount; Spot from the
// assumed factor unless the user gives one.
#include "models/aws/pricing.hpp"

#include <gtest/gtest.h>

namespace eksim::aws {
namespace {

const InstanceType& type(const char* name) { return *InstanceCatalog::builtin().find(name); }

TEST(PriceBook, CatalogPricesPerRegion) {
  const PriceBook use1("us-east-1", {});
  EXPECT_DOUBLE_EQ(use1.on_demand(type("m7g.large"))->usd_per_hour, 0.0816);
  EXPECT_EQ(use1.on_demand(type("m7g.large"))->source, PriceSource::Catalog);
  const PriceBook apne2("ap-northeast-2", {});
  EXPECT_DOUBLE_EQ(apne2.on_demand(type("g5.xlarge"))->usd_per_hour, 1.237);
  EXPECT_FALSE(apne2.on_demand(type("m7g.large"))) << "FACTS.md has no ap-northeast-2 price for it";
  const PriceBook gov("us-gov-west-1", {});
  EXPECT_DOUBLE_EQ(gov.on_demand(type("p5.48xlarge"))->usd_per_hour, 66.048);
  EXPECT_FALSE(PriceBook("us-east-1", {}).on_demand(type("mac1.metal")));
}

TEST(PriceBook, SpotIsTheAssumedFactorUnlessGiven) {
  const auto& g5 = type("g5.xlarge");
  const PriceBook plain("us-east-1", {});
  auto spot = plain.spot(g5);
  ASSERT_TRUE(spot);
  EXPECT_EQ(spot->source, PriceSource::SpotFactor);
  EXPECT_DOUBLE_EQ(spot->usd_per_hour, 1.006 * g5.spot_price_factor);
  EXPECT_NE(describe(*spot, g5, {}).find("assumed: spot factor 0.40"), std::string::npos);
  PricingSpec spec;
  spec.file = "prices.csv";
  spec.prices = {{"us-east-1", "g5.xlarge", true, 0.3931, ""}, {"eu-west-1", "g5.xlarge", false, 1.123, ""},
                 {"us-east-1", "g5.xlarge", true, 0.35, "us-east-1b"}};
  const PriceBook user("us-east-1", spec);
  EXPECT_DOUBLE_EQ(user.spot(g5)->usd_per_hour, 0.3931);
  EXPECT_EQ(user.spot(g5)->source, PriceSource::User);
  EXPECT_DOUBLE_EQ(user.on_demand(g5)->usd_per_hour, 1.006) << "the eu-west-1 row does not apply";
  EXPECT_DOUBLE_EQ(PriceBook("eu-west-1", spec).on_demand(g5)->usd_per_hour, 1.123);
  // A capacity pool's price holds in its AZ only.
  EXPECT_DOUBLE_EQ(user.spot(g5, "us-east-1b")->usd_per_hour, 0.35);
  EXPECT_EQ(user.spot(g5, "us-east-1b")->source, PriceSource::CapacityPool);
  EXPECT_DOUBLE_EQ(user.spot(g5, "us-east-1a")->usd_per_hour, 0.3931);
}

TEST(PriceBook, DiscountAppliesToEveryPrice) {
  PricingSpec spec;
  spec.discount = 0.25;
  const PriceBook book("us-east-1", spec);
  const auto& m5 = type("m5.large");
  EXPECT_DOUBLE_EQ(book.on_demand(m5)->usd_per_hour, 0.096 * 0.75);
  EXPECT_DOUBLE_EQ(book.spot(m5)->usd_per_hour, 0.096 * 0.75 * m5.spot_price_factor);
  EXPECT_DOUBLE_EQ(book.hourly(m5, false), 0.072);
  EXPECT_NE(describe(*book.on_demand(m5), m5, spec).find("less 25% discount"), std::string::npos);
}

}  // namespace
}  // namespace eksim::aws
