#pragma once
// --balance-similar-node-groups (cluster-autoscaler/processors/nodegroupset): node groups whose
// template nodes are alike form one set, and a scale-up is split across the set so that the
// groups stay the same size. Similarity is compare_nodegroups.go IsCloudProviderNodeInfoSimilar
// with the AWS comparator's ignored labels (aws_nodegroups.go); the split is
// balancing_processor.go BalanceScaleUpBetweenGroups.
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "models/k8s/scheduling/node_info.hpp"

namespace eksim::autoscaling::cas {

// config.NodeGroupDifferenceRatios defaults (--memory-difference-ratio,
// --max-allocatable-difference-ratio, --max-free-difference-ratio).
struct DifferenceRatios {
  double max_capacity_memory = 0.015;
  double max_allocatable = 0.05;
  double max_free = 0.05;
};

// BasicIgnoredLabels (hostname, zone and region in both spellings, fluentd-ds-ready,
// kops.k8s.io/instancegroup, the CSI topology labels) plus the AWS ones (alpha.eksctl.io/instance-id,
// alpha.eksctl.io/nodegroup-name, eks.amazonaws.com/nodegroup, k8s.amazonaws.com/eniConfig,
// lifecycle) plus --balancing-ignore-label values.
std::set<std::string> aws_ignored_labels(const std::vector<std::string>& extra = {});

// Capacity: every resource present on both, equal, except memory within max_capacity_memory;
// allocatable and free (allocatable - requested) within their ratios ("larger - smaller <=
// larger * ratio"); labels equal except the ignored ones. Taints are NOT compared (upstream
// neither): a group whose taint the pods do not tolerate drops out because the pods must also
// fit it (see ComputeSimilarNodeGroups in the controller).
bool node_infos_similar(const k8s::NodeInfo& a, const k8s::NodeInfo& b, const std::set<std::string>& ignored_labels,
                        const DifferenceRatios& ratios = {});

struct GroupSize {
  std::string id;
  std::int64_t current = 0;  // target size
  std::int64_t max = 0;
};

struct ScaleUpInfo {
  std::string group;
  std::int64_t current = 0, new_size = 0, max = 0;
  bool operator==(const ScaleUpInfo&) const = default;
};

// BalanceScaleUpBetweenGroups: groups at max are skipped; new_nodes is capped at the set's free
// capacity; nodes go one at a time to the smallest group; only groups that grow are returned,
// in the order the algorithm leaves them (sorted by size, swaps when a group fills up).
std::vector<ScaleUpInfo> balance_scale_up(const std::vector<GroupSize>& groups, std::int64_t new_nodes);

}  // namespace eksim::autoscaling::cas
