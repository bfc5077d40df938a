#pragma once
// The AWS cloud provider (karpenter-provider-aws pkg/cloudprovider, pkg/providers/instance and
// instancetype): instance types per EC2NodeClass from the catalog and price book, CreateFleet
// over the cheapest offerings, the unavailable-offerings cache.
#include <map>
#include <string>
#include <vector>

#include "models/autoscaling/karpenter/cloudprovider.hpp"
#include "models/autoscaling/karpenter/settings.hpp"
#include "models/cluster/cluster.hpp"

namespace eksim::autoscaling::karpenter {

class AwsCloudProvider : public CloudProvider {
 public:
  AwsCloudProvider(eksim::Cluster& world, const Settings& settings) : world_(world), settings_(settings) {}
  std::vector<InstanceTypeInfo>& instance_types(const NodeClass& nc) override;
  void forget_instance_types(const std::string& node_class) override { types_by_class_.erase(node_class); }
  CreateResult create(const NodeClaimState& claim, const PlannedNodeClaim& planned, const NodeClass& nc) override;
  void delete_instance(const std::string& instance_id) override { world_.ec2.terminate(instance_id); }
  bool instance_alive(const std::string& instance_id) const override;
  UnavailableOfferings& unavailable_offerings() override { return ice_; }
  const UnavailableOfferings& unavailable_offerings() const override { return ice_; }

 private:
  eksim::Cluster& world_;
  const Settings& settings_;
  std::map<std::string, std::vector<InstanceTypeInfo>> types_by_class_;
  UnavailableOfferings ice_;
};

}  // namespace eksim::autoscaling::karpenter
