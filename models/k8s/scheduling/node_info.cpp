#include "models/k8s/scheduling/node_info.hpp"

#include <algorithm>

#include "sim/engine/saturating.hpp"

namespace eksim::k8s {

namespace {

std::int64_t non_zero(std::int64_t v, std::int64_t dflt) { return v != 0 ? v : dflt; }

}  // namespace

PodSchedulingInfo pod_scheduling_info(const Pod& pod) {
  PodSchedulingInfo s;
  s.requests = pod_requests(pod.spec);
  // Same shape as PodRequests (sum of app containers, at least the largest init container),
  // with the scoring defaults applied per container (NonMissingContainerRequests).
  for (const auto& c : pod.spec.containers) {
    s.non_zero_cpu = engine::sat_add(s.non_zero_cpu, non_zero(c.requests.get(kCpu), kDefaultMilliCpuRequest));
    s.non_zero_memory = engine::sat_add(s.non_zero_memory, non_zero(c.requests.get(kMemory), kDefaultMemoryRequest));
  }
  for (const auto& c : pod.spec.init_containers) {
    s.non_zero_cpu = std::max(s.non_zero_cpu, non_zero(c.requests.get(kCpu), kDefaultMilliCpuRequest));
    s.non_zero_memory =
        std::max(s.non_zero_memory, non_zero(c.requests.get(kMemory), kDefaultMemoryRequest));
  }
  auto collect_ports = [&](const std::vector<Container>& cs) {
    for (const auto& c : cs)
      for (const auto& p : c.ports)
        if (p.host_port > 0) s.host_ports.push_back({p.protocol.empty() ? "TCP" : p.protocol, p.host_port});
  };
  collect_ports(pod.spec.init_containers);
  collect_ports(pod.spec.containers);
  const auto& a = pod.spec.affinity;
  s.has_required_anti_affinity = !a.pod_anti_affinity_required.empty();
  s.has_pod_affinity = !a.pod_affinity_required.empty() || !a.pod_affinity_preferred.empty() ||
                       !a.pod_anti_affinity_required.empty() || !a.pod_anti_affinity_preferred.empty();
  return s;
}

NodeInfo make_node_info(const Node& node, std::span<const Pod* const> pods) {
  NodeInfo info;
  info.node = node;
  for (const Pod* p : pods) add_pod(info, *p);
  return info;
}

void add_pod(NodeInfo& info, const Pod& pod) {
  if (pod.status.phase == PodPhase::Succeeded || pod.status.phase == PodPhase::Failed) return;
  PodSchedulingInfo s = pod_scheduling_info(pod);
  info.pods.push_back(&pod);
  info.requested += s.requests;
  info.non_zero_cpu = engine::sat_add(info.non_zero_cpu, s.non_zero_cpu);
  info.non_zero_memory = engine::sat_add(info.non_zero_memory, s.non_zero_memory);
  for (auto& hp : s.host_ports)
    info.used_ports.insert(std::upper_bound(info.used_ports.begin(), info.used_ports.end(), hp), hp);
  info.pods_with_affinity += s.has_pod_affinity ? 1 : 0;
  info.pods_with_required_anti_affinity += s.has_required_anti_affinity ? 1 : 0;
  info.min_pod_priority = std::min(info.min_pod_priority, pod.spec.priority);
}

bool remove_pod(NodeInfo& info, const Pod& pod) {
  auto it = std::find(info.pods.begin(), info.pods.end(), &pod);
  if (it == info.pods.end())
    it = std::find_if(info.pods.begin(), info.pods.end(), [&](const Pod* p) {
      return p->meta.ns == pod.meta.ns && p->meta.name == pod.meta.name;
    });
  if (it == info.pods.end()) return false;
  // Subtract what the stored pod contributed; it is the same object or an identical spec.
  PodSchedulingInfo s = pod_scheduling_info(**it);
  info.pods.erase(it);
  info.requested -= s.requests;
  info.non_zero_cpu = engine::sat_sub(info.non_zero_cpu, s.non_zero_cpu);
  info.non_zero_memory = engine::sat_sub(info.non_zero_memory, s.non_zero_memory);
  for (auto& hp : s.host_ports) {
    auto p = std::lower_bound(info.used_ports.begin(), info.used_ports.end(), hp);
    if (p != info.used_ports.end() && *p == hp) info.used_ports.erase(p);
  }
  info.pods_with_affinity -= s.has_pod_affinity ? 1 : 0;
  info.pods_with_required_anti_affinity -= s.has_required_anti_affinity ? 1 : 0;
  info.min_pod_priority = INT32_MAX;
  for (const Pod* p : info.pods) info.min_pod_priority = std::min(info.min_pod_priority, p->spec.priority);
  return true;
}

}  // namespace eksim::k8s
