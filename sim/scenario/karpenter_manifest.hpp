#pragma once
// Karpenter and Auto Mode objects (karpenter.sh/v1 NodePool, karpenter.k8s.aws/v1 EC2NodeClass,
// eks.amazonaws.com/v1 NodeClass): decoded once with the manifest (k8s_manifest.cpp calls the
// decoders below), given to the cluster's Karpenter controller when applied.
#include "models/autoscaling/karpenter/nodepool.hpp"
#include "models/cluster/cluster.hpp"
#include "sim/scenario/k8s_manifest.hpp"

namespace eksim::scenario {

// Strict decoders of the whole object (apiVersion, kind, metadata, spec); throw InputError.
autoscaling::karpenter::NodePool decode_node_pool(const Value& v);
autoscaling::karpenter::NodeClass decode_ec2_node_class(const Value& v);
autoscaling::karpenter::NodeClass decode_auto_node_class(const Value& v);

// Hands a decoded NodePool or NodeClass to the cluster's Karpenter controller. Returns false when
// the manifest is no Karpenter kind, or no Karpenter that serves that kind runs.
bool apply_karpenter_manifest(Cluster& cluster, const Manifest& manifest);

}  // namespace eksim::scenario
