#pragma once
// The seam between Karpenter's core and the cloud (kubernetes-sigs/karpenter
// pkg/cloudprovider/types.go CloudProvider): the instance types a NodeClass offers, Create and
// Delete of the instance behind a NodeClaim, and the offerings that failed recently. The core
// controllers call only this; aws/cloudprovider.hpp is the AWS implementation
// (karpenter-provider-aws pkg/cloudprovider).
#include <optional>
#include <string>
#include <vector>

#include "models/autoscaling/karpenter/instance_types.hpp"
#include "models/autoscaling/karpenter/nodeclaim.hpp"
#include "models/autoscaling/karpenter/provisioning/scheduling/scheduler.hpp"

namespace eksim::autoscaling::karpenter {

// What Create launched for a NodeClaim.
struct CreatedInstance {
  std::string instance_id;
  const InstanceTypeInfo* type = nullptr;
  std::string zone, capacity_type;
  double price = 0;
  Requirements type_requirements;  // the launched type's well-known labels
};

// Create's answer: the instance, or why there is none (the last error, insufficient capacity
// or not; neither when no offering was left to try).
struct CreateResult {
  std::optional<CreatedInstance> instance;
  std::optional<std::string> error;
  bool insufficient_capacity = false;
};

class CloudProvider {
 public:
  virtual ~CloudProvider() = default;
  // GetInstanceTypes: the types the NodeClass can launch, with their offerings' availability
  // as of now (the unavailable-offerings cache applied).
  virtual std::vector<InstanceTypeInfo>& instance_types(const NodeClass& nc) = 0;
  // The NodeClass changed (or went): its types are computed again when next asked for.
  virtual void forget_instance_types(const std::string& node_class) = 0;
  // Create: launches an instance for the NodeClaim (its name and NodePool set) from the
  // planned claim's instance type options. Offerings that fail for capacity go into the
  // unavailable-offerings cache.
  virtual CreateResult create(const NodeClaimState& claim, const PlannedNodeClaim& planned, const NodeClass& nc) = 0;
  // Delete: terminates the instance.
  virtual void delete_instance(const std::string& instance_id) = 0;
  virtual bool instance_alive(const std::string& instance_id) const = 0;
  virtual UnavailableOfferings& unavailable_offerings() = 0;
  virtual const UnavailableOfferings& unavailable_offerings() const = 0;
};

}  // namespace eksim::autoscaling::karpenter
