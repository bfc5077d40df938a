#pragma once
// The network facts of an instance type as NCCL meets them: the catalog's NIC rates and EFA flag,
// and from az_latency.json's nccl_hardware the GPU board (NVLink as NCCL counts it, NVSwitch,
// NVLS, channels) and what aws-ofi-nccl reports for the family. One place, so `eksim nccl` and the
// training model see the same hardware.
#include "models/aws/instance_catalog.hpp"
#include "models/net/links.hpp"
#include "models/net/net_params.hpp"

namespace eksim::net {

NodeNetworkSpec node_network_spec(const aws::InstanceType& type, const NetParams& params);

}  // namespace eksim::net
