#include "models/cluster/system_addons.hpp"

#include <optional>

#include "models/cluster/cluster.hpp"
#include "models/cluster/disruption_controller.hpp"
#include "models/k8s/addons/eks_addons.hpp"

namespace eksim {

namespace {

bool declared(const ClusterSpec& s, const char* name) {
  return std::find(s.eks_addons.begin(), s.eks_addons.end(), name) != s.eks_addons.end();
}

// EKS installs vpc-cni, kube-proxy and CoreDNS at cluster creation unless CreateCluster had
// bootstrapSelfManagedAddons=false; an add-on declared as an EKS add-on is installed either way.
bool installed(const ClusterSpec& s, const char* name) {
  if (declared(s, name)) return true;
  const std::string n = name;
  return s.bootstrap_self_managed_addons && (n == "vpc-cni" || n == "kube-proxy" || n == "coredns");
}

std::string karpenter_version(const ClusterSpec& s) {
  auto it = s.autoscaler.flags.find("version");
  return it == s.autoscaler.flags.end() ? "1.14.1" : it->second;
}

// The EKS CoreDNS add-on's Corefile (as eksctl's coredns-1.30 asset ships it).
constexpr const char* kEksCorefile =
    ".:53 {\n"
    "    errors\n"
    "    health {\n"
    "        lameduck 5s\n"
    "      }\n"
    "    ready\n"
    "    kubernetes cluster.local in-addr.arpa ip6.arpa {\n"
    "      pods insecure\n"
    "      fallthrough in-addr.arpa ip6.arpa\n"
    "    }\n"
    "    prometheus :9153\n"
    "    forward . /etc/resolv.conf\n"
    "    cache 30\n"
    "    loop\n"
    "    reload\n"
    "    loadbalance\n"
    "}\n";

// mapRoles as eksctl and the Terraform module write it: YAML with each entry's keys in sorted order.
std::string map_roles_yaml(const std::vector<AccessSpec::MapRole>& roles) {
  std::string out;
  for (const auto& r : roles) {
    std::string item;
    if (!r.groups.empty()) {
      item += "groups:\n";
      for (const auto& g : r.groups) item += "- " + g + "\n";  // go-yaml: a key's sequence is not indented
    }
    item += "rolearn: " + r.rolearn + "\n";
    if (!r.username.empty()) item += "username: " + r.username + "\n";
    // The entry's first line opens the list item; the rest are indented under it.
    for (std::size_t at = 0, line = 0; at < item.size(); ++line) {
      std::size_t end = item.find('\n', at);
      out += (line == 0 ? "- " : "  ") + item.substr(at, end + 1 - at);
      at = end + 1;
    }
  }
  return out;
}

}  // namespace

void install_system_config_maps(Cluster& c) {
  const ClusterSpec& s = c.spec();
  if (s.mode != "auto" && installed(s, "coredns"))
    c.api.put_config_map("kube-system", "coredns", {{"Corefile", kEksCorefile}},
                         {{"eks.amazonaws.com/component", "coredns"}, {"k8s-app", "kube-dns"}});
  if (!s.access.map_roles.empty())
    c.api.put_config_map("kube-system", "aws-auth", {{"mapRoles", map_roles_yaml(s.access.map_roles)}});
}

void install_system_services(Cluster& c) {
  const ClusterSpec& s = c.spec();
  k8s::ServiceRegistry& services = c.api.services();
  c.api.apply_service(k8s::kubernetes_service(services.address_at(1)));
  c.api.apply_service(k8s::eks_extension_metrics_api_service());
  // Auto Mode runs DNS on each node, not as the CoreDNS add-on: no kube-dns Service.
  if (s.mode != "auto" && installed(s, "coredns")) c.api.apply_service(k8s::kube_dns_service(services.address_at(10)));
}

void install_system_daemonsets(Cluster& c) {
  const ClusterSpec& s = c.spec();
  if (s.mode == "auto") return;
  const k8s::EksAddonVersions v = k8s::eks_addon_versions(s.kubernetes_minor);
  if (installed(s, "vpc-cni")) c.daemon_sets->apply(k8s::aws_node_daemonset(s.region, v));
  if (installed(s, "kube-proxy")) c.daemon_sets->apply(k8s::kube_proxy_daemonset(s.region, v));
  if (installed(s, "eks-pod-identity-agent")) c.daemon_sets->apply(k8s::pod_identity_agent_daemonset(s.region));
}

void install_system_deployments(Cluster& c) {
  const ClusterSpec& s = c.spec();
  if (s.mode == "auto") return;
  const k8s::EksAddonVersions v = k8s::eks_addon_versions(s.kubernetes_minor);
  if (installed(s, "coredns")) {
    c.deployments->apply(k8s::coredns_deployment(s.region, v));
    // The add-on's PodDisruptionBudget (v1.9.3-eksbuild.6 and later): kube-system/coredns,
    // maxUnavailable 1 over the Deployment's pods. Drains (managed node group updates, Cluster
    // Autoscaler scale-down) respect it; with it CoreDNS does not block CA's scale-down as a
    // "non-pdb-assigned kube-system pod".
    PodDisruptionBudget pdb;
    pdb.ns = "kube-system";
    pdb.name = "coredns";
    pdb.selector.match_labels = {{"eks.amazonaws.com/component", "coredns"}, {"k8s-app", "kube-dns"}};
    pdb.max_unavailable = 1;
    c.controllers.pdb->apply(std::move(pdb));
  }
  if (installed(s, "metrics-server")) {
    c.deployments->apply(k8s::metrics_server_deployment());
    c.api.apply_service(k8s::metrics_server_service());
  }
  // Cluster Autoscaler's one replica acts while it runs (its leader election is not modelled).
  if (s.autoscaler.kind == "clusterAutoscaler")
    c.watch_autoscaler_deployment(c.deployments->apply(k8s::cluster_autoscaler_deployment(s.kubernetes_minor)),
                                  LeaderElectionConfig{.enabled = false});
  else if (s.autoscaler.kind == "karpenter") {
    auto ns = s.autoscaler.flags.find("namespace");
    k8s::Deployment d = k8s::karpenter_deployment(karpenter_version(s));
    if (ns != s.autoscaler.flags.end()) {
      d.meta.ns = ns->second;
      c.api.add_system_namespace(d.meta.ns);
    }
    c.api.apply_service(k8s::karpenter_service(karpenter_version(s), d.meta.ns));
    c.watch_autoscaler_deployment(c.deployments->apply(std::move(d)), LeaderElectionConfig{});
  }
}

namespace {

// The workload an EKS add-on runs, by the name its objects carry in kube-system.
struct AddonWorkload {
  const char* name;
  bool daemon_set;
};
std::optional<AddonWorkload> addon_workload(const std::string& addon) {
  if (addon == "vpc-cni") return AddonWorkload{"aws-node", true};
  if (addon == "kube-proxy") return AddonWorkload{"kube-proxy", true};
  if (addon == "eks-pod-identity-agent") return AddonWorkload{"eks-pod-identity-agent", true};
  if (addon == "coredns") return AddonWorkload{"coredns", false};
  if (addon == "metrics-server") return AddonWorkload{"metrics-server", false};
  return std::nullopt;
}

bool workload_exists(Cluster& c, const AddonWorkload& w) {
  if (w.daemon_set) {
    for (const auto& ds : c.api.daemon_sets())
      if (!ds.deleted && ds.meta.ns == "kube-system" && ds.meta.name == w.name) return true;
    return false;
  }
  for (const auto& d : c.api.deployments())
    if (!d.deleted && d.meta.ns == "kube-system" && d.meta.name == w.name) return true;
  return false;
}

}  // namespace

bool create_eks_addon(Cluster& c, const std::string& name) {
  const ClusterSpec& s = c.spec();
  auto w = addon_workload(name);
  if (!w || workload_exists(c, *w)) return false;
  const k8s::EksAddonVersions v = k8s::eks_addon_versions(s.kubernetes_minor);
  if (name == "vpc-cni") c.daemon_sets->apply(k8s::aws_node_daemonset(s.region, v));
  else if (name == "kube-proxy") c.daemon_sets->apply(k8s::kube_proxy_daemonset(s.region, v));
  else if (name == "eks-pod-identity-agent") c.daemon_sets->apply(k8s::pod_identity_agent_daemonset(s.region));
  else if (name == "metrics-server") {
    c.deployments->apply(k8s::metrics_server_deployment());
    c.api.apply_service(k8s::metrics_server_service());
  } else {  // coredns
    c.api.put_config_map("kube-system", "coredns", {{"Corefile", kEksCorefile}},
                         {{"eks.amazonaws.com/component", "coredns"}, {"k8s-app", "kube-dns"}});
    c.api.apply_service(k8s::kube_dns_service(c.api.services().address_at(10)));
    c.deployments->apply(k8s::coredns_deployment(s.region, v));
  }
  return true;
}

bool delete_eks_addon(Cluster& c, const std::string& name) {
  auto w = addon_workload(name);
  if (!w || !workload_exists(c, *w)) return false;
  if (w->daemon_set) c.daemon_sets->remove("kube-system", w->name);
  else c.deployments->remove("kube-system", w->name);
  return true;
}

}  // namespace eksim
