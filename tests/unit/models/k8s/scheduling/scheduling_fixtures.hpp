#pragma once
// Small builders for scheduler tests.
#include <string>
#include <utility>
#include <vector>

#include "models/k8s/api/objects.hpp"
#include "models/k8s/scheduling/node_info.hpp"

namespace eksim::k8s::testing {

inline constexpr std::int64_t kGi = 1024LL * 1024 * 1024;

// The scheduler's view of a list of NodeInfos (pointers into it, in its order).
inline std::vector<const NodeInfo*> view_of(const std::vector<NodeInfo>& infos) {
  std::vector<const NodeInfo*> v;
  for (const auto& i : infos) v.push_back(&i);
  return v;
}

inline Node make_node(const std::string& name, std::int64_t cpu_m, std::int64_t mem, std::int64_t pods = 110,
                      const std::string& zone = "ap-northeast-2a") {
  Node n;
  n.meta.name = name;
  n.meta.labels = {{kLabelHostname, name}, {kLabelZone, zone}, {kLabelOs, "linux"}};
  n.allocatable = {{"cpu", cpu_m}, {"memory", mem}, {"pods", pods}};
  n.capacity = n.allocatable;
  n.ready = true;
  return n;
}

inline Pod make_pod(const std::string& name, std::int64_t cpu_m, std::int64_t mem, const std::string& ns = "default") {
  Pod p;
  p.meta.name = name;
  p.meta.ns = ns;
  Container c;
  c.name = "main";
  if (cpu_m) c.requests.set("cpu", cpu_m);
  if (mem) c.requests.set("memory", mem);
  p.spec.containers.push_back(c);
  return p;
}

// A pod (anti-)affinity term selecting app=<app> over topology_key. Built field by field: GCC 12
// warns (-Wmaybe-uninitialized) on nested brace initialization of the selector maps.
inline PodAffinityTerm app_term(const std::string& app, const std::string& topology_key) {
  PodAffinityTerm t;
  t.label_selector.match_labels["app"] = app;
  t.topology_key = topology_key;
  return t;
}

}  // namespace eksim::k8s::testing
