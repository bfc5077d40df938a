#pragma once
// `eksim catalog`: the instance types the simulator knows, one aligned row each.
#include <string>
#include <string_view>

#include "models/aws/instance_catalog.hpp"

namespace eksim::report {

// Columns: TYPE VCPU MEMORY(GiB) GPUS ARCH NETWORK ENIxIPS MAXPODS EFA BUCKET $/H SPOT$/H.
// Prices are for region (us-east-1 prices where the catalog has none for it). Rows follow the
// catalog's order; every line ends with '\n'.
std::string format_catalog_table(const aws::InstanceCatalog& catalog, std::string_view region);

}  // namespace eksim::report
