#include "models/aws/regions.hpp"

#include <algorithm>

namespace eksim::aws {

const std::vector<std::string>& aws_regions() {
  static const std::vector<std::string> regions{
      // North America
      "us-east-1", "us-east-2", "us-west-1", "us-west-2", "ca-central-1", "ca-west-1", "mx-central-1",
      // Africa
      "af-south-1",
      // Asia Pacific
      "ap-east-1", "ap-east-2", "ap-northeast-1", "ap-northeast-2", "ap-northeast-3", "ap-south-1", "ap-south-2",
      "ap-southeast-1", "ap-southeast-2", "ap-southeast-3", "ap-southeast-4", "ap-southeast-5", "ap-southeast-6",
      "ap-southeast-7",
      // Europe
      "eu-central-1", "eu-central-2", "eu-north-1", "eu-south-1", "eu-south-2", "eu-west-1", "eu-west-2", "eu-west-3",
      // Middle East
      "il-central-1", "me-central-1", "me-south-1",
      // South America
      "sa-east-1",
      // AWS GovCloud (US), China
      "us-gov-east-1", "us-gov-west-1", "cn-north-1", "cn-northwest-1"};
  return regions;
}

bool is_aws_region(std::string_view code) {
  const auto& all = aws_regions();
  return std::find(all.begin(), all.end(), code) != all.end();
}

}  // namespace eksim::aws
