#pragma once
// The vpc-cni EKS add-on's configuration_values (terraform-aws-modules/eks `addons.vpc-cni`,
// `aws eks create-addon --configuration-values`): the aws-node environment ipamd reads
// (ENABLE_PREFIX_DELEGATION, WARM_ENI_TARGET, WARM_IP_TARGET, MINIMUM_IP_TARGET,
// WARM_PREFIX_TARGET, IP_COOLDOWN_PERIOD).
#include "models/aws/vpc_cni.hpp"
#include "sim/scenario/yaml_reader.hpp"

namespace eksim::scenario {

// v is the JSON text terraform's jsonencode() produces, or the same object written as YAML.
// Keys outside the add-on's configuration schema are errors (EKS rejects them); env variables
// ipamd has but eksim does not model are accepted and have no effect.
aws::VpcCniSettings read_vpc_cni_configuration(const Value& v);

}  // namespace eksim::scenario
