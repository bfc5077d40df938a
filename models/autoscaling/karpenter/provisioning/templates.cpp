// NodeClaimTemplates (pkg/controllers/provisioning/scheduling nodeclaimtemplate.go): one per
// ready NodePool, heaviest first, with the DaemonSet pods' overhead, rebuilt only when what they
// are built from changed.
#include <algorithm>
#include <limits>

#include "models/autoscaling/karpenter/internal.hpp"
#include "models/autoscaling/karpenter/provisioning/provisioner.hpp"

namespace eksim::autoscaling::karpenter {

using namespace detail;

std::vector<k8s::Pod> Provisioner::daemon_pods() const {
  std::vector<k8s::Pod> out;
  for (auto& ds : ctx_.world.api.daemon_sets()) {
    if (ds.deleted) continue;
    k8s::Pod p;
    p.meta.name = ds.meta.name;
    p.meta.ns = ds.meta.ns;
    p.meta.labels = ds.tmpl.meta.labels;
    p.spec = ds.tmpl.spec;
    out.push_back(std::move(p));
  }
  return out;
}

std::vector<NodeClaimTemplate> Provisioner::templates(std::vector<k8s::Pod>& daemons) {
  std::vector<const NodePool*> order;
  for (const auto& [n, p] : ctx_.state.node_pools) order.push_back(&p);
  std::stable_sort(order.begin(), order.end(), [](const NodePool* a, const NodePool* b) { return a->weight > b->weight; });
  std::vector<NodeClaimTemplate> out;
  for (const NodePool* p : order) {
    // NewScheduler: "ignoring nodepool, not ready" (its NodeClass missing or not Ready).
    if (!p->ready()) continue;
    auto nc = ctx_.state.node_classes.find(p->node_class_name);
    if (nc == ctx_.state.node_classes.end() || nc->second.kind != p->node_class_kind) continue;
    std::map<std::string, std::int64_t> usage;
    for (std::size_t i : ctx_.state.live_claims()) {
      const NodeClaimState& c = ctx_.state.node_claims[i];
      if (c.node_pool != p->name) continue;
      for (const auto& [r, v] : c.capacity.items()) usage[r] += v;
    }
    out.push_back(make_template(*p, ctx_.cloud.instance_types(nc->second), daemons, ctx_.settings.domain(), usage));
  }
  return out;
}

std::string Provisioner::template_signature() {
  std::string sig = std::to_string(ctx_.state.config_version) + "|" + std::to_string(ctx_.cloud.unavailable_offerings().marks()) + "|" +
                    std::to_string(ctx_.cloud.unavailable_offerings().size(ctx_.world.sim.now())) + "|";
  bool limits = false;
  for (const auto& [n, p] : ctx_.state.node_pools) limits |= !p.limits.empty();
  if (limits) sig += std::to_string(ctx_.state.claims_version);
  sig += "|";
  return sig + daemon_signature();
}

std::string Provisioner::daemon_signature() {
  // A DaemonSet is applied once and then only marked deleted (DaemonSetController), so which
  // ones are live says whether their pods changed; recomputing the classes took a copy of every
  // DaemonSet pod on every disruption pass.
  std::vector<bool> live;
  for (const auto& ds : ctx_.world.api.daemon_sets()) live.push_back(!ds.deleted);
  if (daemon_signature_ && daemon_signature_->first == live) return daemon_signature_->second;
  // make_template reads a DaemonSet pod's tolerations, nodeSelector, required node affinity and
  // requests: the class key of its pod covers exactly these.
  std::string sig;
  for (const auto& dp : daemon_pods()) {
    k8s::Pod p = dp;
    p.spec.topology_spread_constraints.clear();
    p.spec.affinity.pod_affinity_required.clear();
    p.spec.affinity.pod_anti_affinity_required.clear();
    for (auto* cs : {&p.spec.init_containers, &p.spec.containers})
      for (auto& c : cs->mut()) c.ports.clear();
    sig += std::to_string(*ctx_.state.classes.of(p)) + ",";
  }
  daemon_signature_.emplace(std::move(live), sig);
  return sig;
}

double Provisioner::price_floor(TemplateSet& set, const std::vector<std::uint32_t>& classes) {
  double floor = std::numeric_limits<double>::infinity();
  for (std::uint32_t k : classes) {
    auto [it, inserted] = set.floor_by_class.try_emplace(k, std::numeric_limits<double>::infinity());
    if (inserted) {
      const k8s::ResourceList pod = karpenter_requests(ctx_.state.classes.representative(k));
      for (const NodeClaimTemplate& t : set.templates) {
        k8s::ResourceList requests = t.daemon_overhead;
        requests += pod;
        for (const InstanceTypeInfo* type : t.instance_types) {
          if (!fits_in(requests, type->allocatable)) continue;
          const double p = type->cheapest(t.requirements);
          if (p >= 0) it->second = std::min(it->second, p);
        }
      }
    }
    floor = std::min(floor, it->second);
  }
  return floor;
}

std::shared_ptr<TemplateSet> Provisioner::template_set() {
  // Rebuilt when what they are built from changed (template_signature): checked once a pass, and
  // again within one when the cluster state moved.
  const std::uint64_t pass = ctx_.state.pass;
  if (templates_pass_ != pass || pass == 0) {
    templates_pass_ = pass;
    std::string sig = template_signature();
    if (!templates_ || sig != templates_signature_) rebuild_templates(std::move(sig));
  } else if (templates_version_ != ctx_.state.version) {
    std::string sig = template_signature();
    if (sig != templates_signature_) rebuild_templates(std::move(sig));
  }
  templates_version_ = ctx_.state.version;
  return templates_;
}

void Provisioner::rebuild_templates(std::string signature) {
  templates_ = std::make_shared<TemplateSet>();
  templates_->daemons = daemon_pods();
  templates_->templates = templates(templates_->daemons);
  templates_->generation = ++templates_generation_;
  templates_signature_ = std::move(signature);
}

}  // namespace eksim::autoscaling::karpenter
