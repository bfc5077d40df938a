#include "models/k8s/scheduling/queueing_hints.hpp"

#include <array>
#include <string_view>

namespace eksim::k8s {

namespace {

// The filter plugins in the order run_filters runs them.
constexpr std::array<std::string_view, 8> kFilterOrder{"NodeUnschedulable", "NodeName",         "TaintToleration",
                                                       "NodeAffinity",      "NodePorts",        "NodeResourcesFit",
                                                       "PodTopologySpread", "InterPodAffinity"};

std::size_t order_of(std::string_view plugin) {
  for (std::size_t i = 0; i < kFilterOrder.size(); ++i)
    if (kFilterOrder[i] == plugin) return i;
  return kFilterOrder.size();
}

bool spans_nodes(const std::string& plugin) { return plugin == "PodTopologySpread" || plugin == "InterPodAffinity"; }

}  // namespace

bool worth_requeuing_after_node_event(const Pod& pending, const std::set<std::string>* rejected_by, const NodeInfo& node,
                                      const KubernetesVersion& version) {
  if (!rejected_by || rejected_by->empty()) return true;
  for (const auto& p : *rejected_by)
    if (spans_nodes(p)) return true;
  const NodeInfo* only[] = {&node};
  SchedulerOptions options;
  options.version = version;
  FilterResult r = fits(pending, node, NodeInfoView(only, 1), options);
  if (r.ok()) return true;
  std::size_t first_failure = order_of(r.plugin);
  for (const auto& p : *rejected_by)
    if (order_of(p) < first_failure) return true;  // that plugin passes on this node now
  return false;
}

bool worth_requeuing_after_assigned_pod_gone(const Pod& pending, const std::set<std::string>* rejected_by) {
  (void)pending;
  if (!rejected_by || rejected_by->empty()) return true;
  // noderesources isSchedulableAfterPodEvent: "any deletion event to a scheduled pod could make
  // the unscheduled pod schedulable"; a pod that reached a terminal phase is removed from the
  // scheduler's cache the same way (AssignedPodDelete).
  for (const auto& p : *rejected_by)
    if (p == "NodeResourcesFit" || p == "NodePorts" || spans_nodes(p)) return true;
  return false;
}

}  // namespace eksim::k8s
