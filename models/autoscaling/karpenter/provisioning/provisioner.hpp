#pragma once
// Provisioner (pkg/controllers/provisioning/provisioner.go): when the batcher closes a window,
// the pending pods and the pods of nodes being deleted, the NodeClaimTemplates from the
// NodePools, one scheduling simulation over the cluster state, and a NodeClaim launched for each
// new claim it planned. Disruption builds its simulations from the same templates.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "models/autoscaling/karpenter/context.hpp"
#include "models/autoscaling/karpenter/nodeclaim/lifecycle/controller.hpp"
#include "models/autoscaling/karpenter/provisioning/pending_pods.hpp"

namespace eksim::autoscaling::karpenter {

// The DaemonSet pods and NodeClaimTemplates, built once per pass and state version.
struct TemplateSet {
  std::vector<k8s::Pod> daemons;
  std::vector<NodeClaimTemplate> templates;
  std::uint64_t generation = 0;  // moves when the content may differ
  // Per pod class, the lowest price of a type any template could launch for a pod of it
  // (Provisioner::price_floor).
  std::unordered_map<std::uint32_t, double> floor_by_class;
};

class Provisioner {
 public:
  Provisioner(Context& ctx, Lifecycle& lifecycle) : ctx_(ctx), lifecycle_(lifecycle) {}
  // One provisioning pass (the batcher runs it; tests and benchmarks may too).
  void provision();
  // A pod the API server created, and one that changed (its labels can change what a
  // simulation plans: topology spread).
  void pod_added(k8s::PodId id);
  void pod_updated() { ++pending_version_; }
  // Whether any pod waits for provisioning (prunes the pending set).
  bool any_provisionable();
  // The templates as of now (rebuilt when what they are built from changed).
  std::shared_ptr<TemplateSet> template_set();
  // A floor under the price of any NodeClaim a simulation could plan for pods of these classes:
  // the cheapest offering, over the templates, of a type that fits the daemon overhead and one
  // such pod (a claim holds at least that, and narrowing only takes types and offerings away).
  double price_floor(TemplateSet& set, const std::vector<std::uint32_t>& classes);

 private:
  bool provisionable(const k8s::PodRecord& r) const;
  void hint_not_running();
  // The part of provisionable() that can change while a pod waits.
  static bool unbound_pending(const k8s::PodRecord& r);
  PendingPods::Filter pending_filter() const;
  // Whether the last pass still answers this one (see ProvisioningMemo); republishes its events.
  bool memo_holds();
  // The pass's pod events (Nominated on existing and new capacity, FailedScheduling), each
  // published as it is made; the earliest time one of the memo's could publish again.
  engine::SimTime nominate_existing(const OrderedPods& pods, const std::vector<k8s::PodId>& ids,
                                    const ExistingNodes& existing, const SchedulingResults& res);
  void launch_new_claims(const OrderedPods& pods, const std::vector<k8s::PodId>& ids, const SchedulingResults& res);
  engine::SimTime fail_unschedulable(const OrderedPods& pods, const std::vector<k8s::PodId>& ids,
                                     const SchedulingResults& res);
  std::vector<k8s::Pod> daemon_pods() const;
  std::vector<NodeClaimTemplate> templates(std::vector<k8s::Pod>& daemons);
  // What the templates are built from: NodePools and NodeClasses (config version), offering
  // availability (unavailable-offerings marks and live entries), the DaemonSet pods' scheduling
  // fields, and the NodeClaims' capacity when a NodePool has limits.
  std::string template_signature();
  std::string daemon_signature();  // the DaemonSet pods' part of it
  void rebuild_templates(std::string signature);

  Context& ctx_;
  Lifecycle& lifecycle_;
  PendingPods pending_;  // pods that may be provisionable, in Solve's order
  std::uint64_t pending_version_ = 0;  // moves when a pod joins pending_ or a pending pod changes
  bool not_running_hinted_ = false;  // ControllerNotRunning said for the current outage
  // A provisioning pass reads the pending pods, the cluster state, the NodeClaimTemplates and
  // the NodePools' usage. When none of them moved since a pass that launched nothing, the
  // scheduling simulation would plan exactly what it planned then: the pass only republishes
  // that pass's pod events, and not even that before the first of them leaves the dedupe window.
  struct ProvisioningMemo {
    bool valid = false;
    std::uint64_t pending_version = 0, state_version = 0, templates_generation = 0, claims_version = 0;
    std::vector<PodEvent> events;  // in publishing order
    engine::SimTime next_publish;
  };
  ProvisioningMemo memo_;
  std::shared_ptr<TemplateSet> templates_;
  std::string templates_signature_;
  std::optional<std::pair<std::vector<bool>, std::string>> daemon_signature_;  // by which DaemonSets are live
  std::uint64_t templates_pass_ = 0, templates_version_ = 0;
  std::uint64_t templates_generation_ = 0;
};

}  // namespace eksim::autoscaling::karpenter
