#pragma once
// The pod spec as the API server decodes it (core/v1 PodSpec: containers and their resources,
// node selection, affinity, tolerations, topology spread), and the labels and selectors the
// workload kinds share. Internal to sim/scenario.
#include <utility>

#include "sim/scenario/manifest_decoding.hpp"

namespace eksim::scenario::manifest {

struct ParsedQuantity {
  std::string text;
  std::int64_t milli = 0;
};

struct NamedQuantity {
  std::string name;
  ParsedQuantity q;
  Value at;
};

std::vector<std::pair<Value, Value>> string_map_entries(const Ctx& ctx, const Value& v, const char* go_struct,
                                                         const std::string& path);
k8s::Labels labels_impl(const Ctx& ctx, const Value& v, const std::string& path, const char* go_struct);
k8s::Labels annotations(const Ctx& ctx, const Value& v, const std::string& path);
std::vector<NamedQuantity> resource_entries(const Ctx& ctx, const Value& v, const std::string& path);
k8s::ResourceList to_resource_list(const std::vector<NamedQuantity>& entries);
std::vector<k8s::NodeSelectorRequirement> node_requirements(const Ctx& ctx, const Value& v, const std::string& path,
                                                            bool fields);
k8s::NodeSelectorTerm node_selector_term(const Ctx& ctx, const Value& v, const std::string& path);
k8s::LabelSelector label_selector(const Ctx& ctx, const Value& v, const std::string& path);
bool selector_empty(const k8s::LabelSelector& s);
std::vector<k8s::Toleration> tolerations(const Ctx& ctx, const Value& v, const std::string& path);
// Decoded in pod_scheduling_decoding.cpp, with the selectors and tolerations above.
k8s::Affinity affinity(const Ctx& ctx, const Value& v, const std::string& path);
std::vector<k8s::TopologySpreadConstraint> spread_constraints(const Ctx& ctx, const Value& v, const std::string& path);
k8s::PodSpec pod_spec(const Ctx& ctx, const Value& v, const std::string& path);

}  // namespace eksim::scenario::manifest
