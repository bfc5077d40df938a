#pragma once
// The AWS Regions eksim accepts as cluster.region: every Region with a code in AWS's list of
// Region billing codes (docs.aws.amazon.com/global-infrastructure, "AWS Region billing codes"),
// the commercial ones plus AWS GovCloud (US) and China. A region outside this list is a typo
// (mars-central-1, us-east1), not a place a cluster can run.
#include <string>
#include <string_view>
#include <vector>

namespace eksim::aws {

const std::vector<std::string>& aws_regions();
bool is_aws_region(std::string_view code);

}  // namespace eksim::aws
