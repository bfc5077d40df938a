#pragma once
// `cluster.pricing`: a user price file and a uniform discount.
//
//   pricing:
//     file: prices.csv      # region,instanceType,capacityType,usdPerHour (header first)
//     discount: 0.28        # Savings Plans / EDP: fraction off every price
//
// Rows are for any region (only the scenario's counts); capacityType is on-demand or spot.
// A bad row is an InputError at its line and column.
#include <string>
#include <vector>

#include "models/aws/pricing.hpp"
#include "sim/scenario/yaml_reader.hpp"

namespace eksim::scenario {

std::vector<aws::UserPrice> read_price_file(const std::string& path, const Location& from,
                                            const aws::InstanceCatalog& catalog);
aws::PricingSpec read_pricing(const Value& v, const aws::InstanceCatalog& catalog);

}  // namespace eksim::scenario
