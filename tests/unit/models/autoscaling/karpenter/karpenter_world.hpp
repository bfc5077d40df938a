#pragma once
// The cluster the Karpenter controller tests run in: a Cluster with Karpenter as its autoscaler
// (OSS with an EC2NodeClass "default", or EKS Auto Mode with its built-in NodeClass), plus
// helpers to add a NodePool and pods and to read the outcome.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "models/autoscaling/karpenter.hpp"
#include "models/autoscaling/karpenter/controller.hpp"
#include "models/cluster/controllers.hpp"

namespace eksim::autoscaling::karpenter::test {

struct WorldOptions {
  int zones = 2;                // private-a in ap-northeast-2a, then private-b in ap-northeast-2b
  bool declared_access = false;  // aws-auth / access entries declared: only mapped_roles join
  std::vector<std::string> mapped_roles;
  bool auto_mode = false;  // EKS Auto Mode (cluster mode "auto")
  std::map<std::string, std::string> subnet_a_tags;  // private-a's tags (Karpenter discovery)
  // How long a new NodeClass takes to resolve. The tests start from a class already resolved
  // (0: its first reconcile runs at the start); Settings{} has the modelled default.
  engine::Duration node_class_resolve_time{};
};

struct World {
  std::unique_ptr<Cluster> cluster;
  Controller* k = nullptr;

  explicit World(WorldOptions o = {}) {
    ClusterSpec spec;
    spec.name = "test";
    spec.region = "ap-northeast-2";
    spec.subnets = {{"private-a", "ap-northeast-2a", "10.0.1.0/24"}};
    spec.subnets[0].tags = o.subnet_a_tags;
    if (o.zones > 1) spec.subnets.push_back({"private-b", "ap-northeast-2b", "10.0.2.0/24"});
    spec.autoscaler.kind = "karpenter";
    if (o.auto_mode) spec.mode = "auto";
    spec.access.declared = o.declared_access;
    spec.access.mapped_roles = std::move(o.mapped_roles);
    cluster = std::make_unique<Cluster>(spec, 7);
    Settings settings = settings_from_flags(spec.autoscaler.flags, o.auto_mode);
    settings.node_class_resolve_time = o.node_class_resolve_time;
    cluster->controllers.karpenter = make_karpenter(*cluster, settings);
    k = cluster->controllers.karpenter.get();
    if (o.auto_mode) return;  // NodeClass "default" is built in
    NodeClass nc;
    nc.name = "default";
    nc.role = "KarpenterNodeRole";
    k->apply_node_class(nc);
  }

  // NodePool "cpu": m5.large or c5.xlarge on-demand, with the given disruption settings.
  void pool(const std::string& policy, std::optional<engine::Duration> after,
            std::optional<engine::Duration> expire = std::nullopt) {
    NodePool p;
    p.name = "cpu";
    p.requirements = {{"node.kubernetes.io/instance-type", "In", {"m5.large", "c5.xlarge"}},
                      {"karpenter.sh/capacity-type", "In", {"on-demand"}}};
    p.consolidation_policy = policy;
    p.consolidate_after = after;
    p.expire_after = expire;
    k->apply_node_pool(p);
  }
  // NodePool "cpu": the given on-demand types and budgets, consolidateAfter 1m.
  void pool_of(std::vector<std::string> types, std::vector<Budget> budgets,
               const std::string& policy = "WhenEmptyOrUnderutilized") {
    NodePool p;
    p.name = "cpu";
    p.requirements = {{"node.kubernetes.io/instance-type", "In", std::move(types)},
                      {"karpenter.sh/capacity-type", "In", {"on-demand"}}};
    p.consolidation_policy = policy;
    p.consolidate_after = engine::Duration::minutes(1);
    p.budgets = std::move(budgets);
    k->apply_node_pool(p);
  }

  // A bare pod in default requesting cpu_m millicores.
  k8s::PodId pod(const std::string& name, std::int64_t cpu_m, k8s::Labels annotations = {}) {
    k8s::Pod p;
    p.meta.name = name;
    p.meta.ns = "default";
    p.meta.annotations = std::move(annotations);
    k8s::Container c;
    c.name = "main";
    c.image = "nginx";
    c.requests.set(k8s::kCpu, cpu_m);
    p.spec.containers.push_back(c);
    return cluster->api.create_pod(p);
  }

  void run_to(engine::Duration d) { cluster->sim.run_until(engine::SimTime{} + d); }

  // Events with this reason (and a message starting with message_prefix).
  int count(const std::string& reason, const std::string& message_prefix = "") const {
    int n = 0;
    for (const auto& e : cluster->log.events())
      if (e.reason == reason && e.message.rfind(message_prefix, 0) == 0) ++n;
    return n;
  }

  const NodeClaimState& claim(std::size_t i = 0) const { return k->node_claims().at(i); }

  // NodeClaims neither deleting nor deleted.
  std::vector<const NodeClaimState*> live() const {
    std::vector<const NodeClaimState*> out;
    for (const auto& c : k->node_claims())
      if (c.phase != NodeClaimPhase::Deleted && c.phase != NodeClaimPhase::Deleting) out.push_back(&c);
    return out;
  }

  // Makes sure the pod is on the NodeClaim's node (the kube-scheduler normally bound it already).
  void bind(k8s::PodId p, std::size_t claim_index = 0) {
    if (cluster->api.pod(p).node.valid()) return;
    auto node = cluster->api.find_node(claim(claim_index).node_name);
    ASSERT_TRUE(node.has_value());
    cluster->api.bind(p, *node);
  }
};

}  // namespace eksim::autoscaling::karpenter::test
