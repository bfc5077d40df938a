#include "sim/scenario/scenario_size.hpp"

#include <algorithm>
#include <string>

#include "sim/scenario/input_error.hpp"
#include "sim/scenario/input_limits.hpp"

namespace eksim::scenario {

std::int64_t pods_at_once(const Manifest& m) {
  if (const auto* d = std::get_if<k8s::Deployment>(&m.object)) return d->replicas;
  if (const auto* j = std::get_if<k8s::Job>(&m.object)) return std::min(j->parallelism, j->completions);
  if (std::holds_alternative<k8s::Pod>(m.object)) return 1;
  return 0;
}

void check_pods_at_once(const Scenario& s) {
  std::int64_t total = 0;
  auto add = [&](std::int64_t pods, const Location& where) {
    total += pods;
    if (total > kMaxPods)
      throw InputError(where, "the scenario asks for " + std::to_string(total) + " pods at once; eksim simulates at most " +
                                  std::to_string(kMaxPods) + " (Kubernetes' scalability threshold for one cluster)");
  };
  for (const auto& m : s.manifests) add(pods_at_once(m), m.where);
  for (const auto& a : s.timeline) {
    for (const auto& m : a.manifests) add(pods_at_once(m), m.where);
    if (a.action == "kubectl.scale") add(a.replicas, a.where);
  }
  for (const auto& g : s.workloads) {
    std::int64_t one_arrival = 0;
    for (const auto& m : g.templates) one_arrival = std::max(one_arrival, pods_at_once(m));
    add(std::max<std::int64_t>(one_arrival, g.replicas), g.where);
  }
}

}  // namespace eksim::scenario
