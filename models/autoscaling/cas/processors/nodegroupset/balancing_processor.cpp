#include "models/autoscaling/cas/processors/nodegroupset/balancing_processor.hpp"

#include <algorithm>
#include <map>

#include "models/k8s/api/resources.hpp"

namespace eksim::autoscaling::cas {

namespace {

using Quantities = std::map<std::string, std::vector<std::int64_t>>;

bool within(const std::vector<std::int64_t>& q, double ratio) {
  if (q.size() != 2) return false;
  double larger = static_cast<double>(std::max(q[0], q[1]));
  double smaller = static_cast<double>(std::min(q[0], q[1]));
  return larger - smaller <= larger * ratio;
}

bool all_within(const Quantities& m, double ratio) {
  return std::all_of(m.begin(), m.end(), [&](const auto& kv) { return within(kv.second, ratio); });
}

// framework.Resource.ResourceList(): cpu, memory, pods and ephemeral-storage always, scalar
// resources when requested.
void add_free(Quantities& free, const k8s::NodeInfo& n) {
  // Requested carries no pod count (AllowedPodNumber 0), so free pods = allocatable pods.
  for (std::string_view r : {k8s::kCpu, k8s::kMemory, k8s::kPods, k8s::kEphemeralStorage})
    free[std::string(r)].push_back(n.node.allocatable.get(r) - n.requested.get(r));
  for (const auto& [r, used] : n.requested.items()) {
    if (r == k8s::kCpu || r == k8s::kMemory || r == k8s::kPods || r == k8s::kEphemeralStorage || used == 0) continue;
    free[r].push_back(n.node.allocatable.get(r) - used);
  }
}

}  // namespace

std::set<std::string> aws_ignored_labels(const std::vector<std::string>& extra) {
  std::set<std::string> out = {
      // compare_nodegroups.go BasicIgnoredLabels
      "kubernetes.io/hostname", "failure-domain.beta.kubernetes.io/zone", "failure-domain.beta.kubernetes.io/region",
      "topology.kubernetes.io/zone", "topology.kubernetes.io/region", "beta.kubernetes.io/fluentd-ds-ready",
      "kops.k8s.io/instancegroup", "topology.ebs.csi.aws.com/zone", "topology.gke.io/zone",
      "topology.disk.csi.azure.com/zone",
      // aws_nodegroups.go CreateAwsNodeInfoComparator
      "alpha.eksctl.io/instance-id", "alpha.eksctl.io/nodegroup-name", "eks.amazonaws.com/nodegroup",
      "k8s.amazonaws.com/eniConfig", "lifecycle"};
  out.insert(extra.begin(), extra.end());
  return out;
}

bool node_infos_similar(const k8s::NodeInfo& a, const k8s::NodeInfo& b, const std::set<std::string>& ignored_labels,
                        const DifferenceRatios& ratios) {
  Quantities capacity, allocatable, free;
  for (const k8s::NodeInfo* n : {&a, &b}) {
    for (const auto& [r, q] : n->node.capacity.items()) capacity[r].push_back(q);
    for (const auto& [r, q] : n->node.allocatable.items()) allocatable[r].push_back(q);
    add_free(free, *n);
  }
  for (const auto& [r, q] : capacity) {
    if (q.size() != 2) return false;
    if (r == k8s::kMemory) {
      if (!within(q, ratios.max_capacity_memory)) return false;
    } else if (q[0] != q[1]) {
      // Other capacities must match exactly (MaxCoresTotal accounting depends on it).
      return false;
    }
  }
  if (!all_within(allocatable, ratios.max_allocatable) || !all_within(free, ratios.max_free)) return false;
  std::map<std::string, std::vector<std::string>> labels;
  for (const k8s::NodeInfo* n : {&a, &b})
    for (const auto& [k, v] : n->node.meta.labels)
      if (!ignored_labels.count(k)) labels[k].push_back(v);
  return std::all_of(labels.begin(), labels.end(),
                     [](const auto& kv) { return kv.second.size() == 2 && kv.second[0] == kv.second[1]; });
}

std::vector<ScaleUpInfo> balance_scale_up(const std::vector<GroupSize>& groups, std::int64_t new_nodes) {
  std::vector<ScaleUpInfo> infos;
  std::int64_t total_capacity = 0;
  for (const auto& g : groups) {
    if (g.current >= g.max) continue;  // already maxed
    infos.push_back(ScaleUpInfo{g.id, g.current, g.current, g.max});
    total_capacity += g.max - g.current;
  }
  new_nodes = std::min(new_nodes, total_capacity);
  if (infos.empty() || new_nodes <= 0) return {};
  // sort.Slice on a handful of groups is an insertion sort, i.e. stable.
  std::stable_sort(infos.begin(), infos.end(), [](const ScaleUpInfo& x, const ScaleUpInfo& y) { return x.current < y.current; });
  std::size_t start = 0, cur = 0;
  while (new_nodes > 0) {
    ScaleUpInfo& info = infos[cur];
    if (info.new_size < info.max) {
      ++info.new_size;
      --new_nodes;
    } else {
      std::swap(infos[start], infos[cur]);
      ++start;
    }
    if (cur + 1 < infos.size() && infos[cur].new_size > infos[cur + 1].new_size) ++cur;
    else cur = start;
  }
  std::vector<ScaleUpInfo> out;
  for (const auto& i : infos)
    if (i.new_size != i.current) out.push_back(i);
  return out;
}

}  // namespace eksim::autoscaling::cas
