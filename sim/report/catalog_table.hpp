#pragma once
// `eksim catalog`: the instance types the simulator knows, one aligned row each, or JSON.
#include <string>
#include <string_view>

#include "models/aws/instance_catalog.hpp"

namespace eksim::report {

// `eksim catalog` flags: which types to list.
struct CatalogFilter {
  std::string region = "us-east-1";
  std::string family;  // --family g5: exactly that Karpenter instance-family
  bool gpu = false;    // --gpu: types with at least one GPU
  std::string arch;    // --arch arm64
  int min_vcpu = 0;    // --min-vcpu 16
};

bool catalog_matches(const aws::InstanceType& t, const CatalogFilter& f);

// Columns: TYPE VCPU MEMORY(GiB) GPUS ARCH NETWORK ENIxIPS MAXPODS EFA BUCKET $/H SPOT$/H.
// Prices are for the filter's region, "-" where the catalog has none there. Rows follow the
// catalog's order; every line ends with '\n'.
std::string format_catalog_table(const aws::InstanceCatalog& catalog, const CatalogFilter& filter);
std::string format_catalog_table(const aws::InstanceCatalog& catalog, std::string_view region);
// The same rows as a JSON array of objects (full catalog fields; prices null where unknown).
std::string format_catalog_json(const aws::InstanceCatalog& catalog, const CatalogFilter& filter);

}  // namespace eksim::report
