#pragma once
// The disruption controller (kube-controller-manager, pkg/controller/disruption): it keeps each
// PodDisruptionBudget's status (expectedPods, currentHealthy, desiredHealthy,
// disruptionsAllowed) current as pods come, change phase, start terminating and go, so an
// eviction, a managed node group's drain and Cluster Autoscaler's removal simulation read the
// status instead of counting the cluster's pods again.
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "models/k8s/api/api_server.hpp"

namespace eksim {

// A PodDisruptionBudget (policy/v1), as much as eviction needs: selector and one of
// minAvailable / maxUnavailable as an absolute count.
struct PodDisruptionBudget {
  std::string ns = "default";
  std::string name;
  k8s::LabelSelector selector;
  std::optional<std::int64_t> min_available;
  std::optional<std::int64_t> max_unavailable;
};

// disruptionsAllowed of a budget over its pods: healthy (Running, not terminating) and expected
// (every live matching pod that is not Succeeded or Failed) counts.
std::int64_t disruptions_allowed(const PodDisruptionBudget& pdb, std::int64_t healthy, std::int64_t expected);

// PodDisruptionBudgetStatus.
struct PdbStatus {
  std::int64_t expected_pods = 0;
  std::int64_t current_healthy = 0;
  std::int64_t desired_healthy = 0;
  std::int64_t disruptions_allowed = 0;
};

class DisruptionController {
 public:
  // Built with the cluster (cluster.controllers.pdb), before any budget exists.
  explicit DisruptionController(k8s::ApiServer& api);

  struct Budget {
    PodDisruptionBudget spec;
    PdbStatus status;
  };
  // Creates the budget, or replaces the one with its namespace and name; counts its pods once.
  void apply(PodDisruptionBudget pdb);
  // Deletes the budget with this namespace and name; false if there is none.
  bool remove(const std::string& ns, const std::string& name);
  const std::vector<Budget>& budgets() const { return budgets_; }
  // Whether the eviction API would let the pod go now: every budget selecting it allows a
  // disruption.
  bool eviction_allowed(const k8s::Pod& pod) const;

 private:
  // What a pod adds to the counts of the budgets selecting it.
  struct Counted {
    bool expected = false;
    bool healthy = false;
    std::vector<std::uint32_t> budgets;  // indexes into budgets_ (labels do not change)
  };
  static bool selects(const PodDisruptionBudget& pdb, const k8s::Pod& pod);
  void track(k8s::PodId id);    // a new pod: find its budgets, count it
  void recount(k8s::PodId id);  // phase, terminating or removal: move its contribution
  void refresh_status(Budget& b);
  void count_all();  // after the list changed: count every live pod again
  k8s::ApiServer& api_;
  std::vector<Budget> budgets_;
  std::unordered_map<std::uint32_t, Counted> counted_;  // by PodId, pods some budget selects
};

}  // namespace eksim
