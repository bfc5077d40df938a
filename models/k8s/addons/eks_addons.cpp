#include "models/k8s/addons/eks_addons.hpp"

#include "models/k8s/api/api_server.hpp"
#include "models/k8s/controllers/deployment_controller.hpp"
#include "models/k8s/api/quantity.hpp"

namespace eksim::k8s {

namespace {

inline constexpr const char* kSystem = "kube-system";
// scheduling.k8s.io PriorityClasses every cluster has (pkg/apis/scheduling/types.go).
inline constexpr std::int32_t kSystemNodeCritical = 2000001000;
inline constexpr std::int32_t kSystemClusterCritical = 2000000000;

ResourceList quantities(std::initializer_list<std::pair<std::string_view, std::string_view>> items) {
  ResourceList out;
  for (const auto& [name, text] : items) out.set(name, amount_from_milli(name, *parse_quantity(text)));
  return out;
}

Container container(std::string name, std::string image, ResourceList requests, ResourceList limits = {}) {
  Container c;
  c.name = std::move(name);
  c.image = std::move(image);
  c.requests = std::move(requests);
  c.limits = std::move(limits);
  return c;
}

Toleration exists(std::string key = {}, std::string effect = {}) {
  return Toleration{std::move(key), "Exists", {}, std::move(effect), std::nullopt};
}

// The node affinity the EKS networking DaemonSets carry: Linux, amd64 or arm64, and not Fargate,
// hybrid or Auto Mode nodes (aws-k8s-cni.yaml; the same terms in eks-pod-identity-agent's chart).
Affinity eks_node_daemon_affinity() {
  Affinity a;
  a.node_required = std::vector<NodeSelectorTerm>{{{
      {kLabelOs, "In", {"linux"}},
      {kLabelArch, "In", {"amd64", "arm64"}},
      {"eks.amazonaws.com/compute-type", "NotIn", {"fargate", "hybrid", "auto"}},
  }, {}}};
  return a;
}

void label(ObjectMeta& meta, LabelSelector& selector, PodTemplate& tmpl, const Labels& labels) {
  for (const auto& [k, v] : labels) {
    meta.labels[k] = v;
    selector.match_labels[k] = v;
    tmpl.meta.labels[k] = v;
  }
}

DaemonSet node_daemon(const std::string& name, const Labels& labels) {
  DaemonSet ds;
  ds.meta.name = name;
  ds.meta.ns = kSystem;
  label(ds.meta, ds.selector, ds.tmpl, labels);
  PodSpec& s = ds.tmpl.spec;
  s.priority_class_name = "system-node-critical";
  s.priority = kSystemNodeCritical;
  s.host_network = true;
  s.tolerations = {exists()};
  s.affinity = eks_node_daemon_affinity();
  return ds;
}

Deployment cluster_deployment(const std::string& name, std::int32_t replicas, const Labels& labels) {
  Deployment d;
  d.meta.name = name;
  d.meta.ns = kSystem;
  d.replicas = replicas;
  label(d.meta, d.selector, d.tmpl, labels);
  d.tmpl.spec.priority_class_name = "system-cluster-critical";
  d.tmpl.spec.priority = kSystemClusterCritical;
  return d;
}

}  // namespace

EksAddonVersions eks_addon_versions(int minor) {
  // EKS user guide, managing-kube-proxy.md and managing-coredns.md, "latest version of the
  // Amazon EKS add-on type for each Kubernetes version" (snapshot listing 1.30-1.35). Older
  // minors take the oldest row, newer ones the newest.
  struct Row {
    int minor;
    const char* kube_proxy;
    const char* coredns;
  };
  static const Row kRows[] = {
      {30, "v1.30.14-eksbuild.28", "v1.11.4-eksbuild.33"}, {31, "v1.31.14-eksbuild.9", "v1.11.4-eksbuild.33"},
      {32, "v1.32.13-eksbuild.5", "v1.11.4-eksbuild.33"},  {33, "v1.33.10-eksbuild.2", "v1.13.2-eksbuild.4"},
      {34, "v1.34.6-eksbuild.2", "v1.13.2-eksbuild.4"},    {35, "v1.35.3-eksbuild.2", "v1.13.2-eksbuild.4"},
  };
  const Row* row = &kRows[0];
  for (const Row& r : kRows)
    if (r.minor <= minor) row = &r;
  // The VPC CNI's version does not follow the Kubernetes minor: the release in the project's
  // manifest (config/master/aws-k8s-cni.yaml, app.kubernetes.io/version "v1.23.1").
  return EksAddonVersions{"v1.23.1", row->kube_proxy, row->coredns};
}

std::string eks_addon_registry(const std::string& region) {
  return "602401143452.dkr.ecr." + region + ".amazonaws.com";
}

// amazon-vpc-cni-k8s config/master/aws-k8s-cni.yaml: DaemonSet kube-system/aws-node, labels
// k8s-app=aws-node, hostNetwork, system-node-critical, tolerations [{operator: Exists}]; init
// container aws-vpc-cni-init (cpu 25m), containers aws-node (cpu 25m) and aws-eks-nodeagent
// (the network policy agent, cpu 25m): the pod requests 50m.
DaemonSet aws_node_daemonset(const std::string& region, const EksAddonVersions& v) {
  DaemonSet ds = node_daemon("aws-node", {{"k8s-app", "aws-node"}});
  const std::string reg = eks_addon_registry(region);
  PodSpec& s = ds.tmpl.spec;
  s.termination_grace_period_seconds = 10;
  s.init_containers.push_back(container("aws-vpc-cni-init", reg + "/amazon-k8s-cni-init:" + v.vpc_cni, quantities({{kCpu, "25m"}})));
  s.containers.push_back(container("aws-node", reg + "/amazon-k8s-cni:" + v.vpc_cni, quantities({{kCpu, "25m"}})));
  s.containers.push_back(container("aws-eks-nodeagent", reg + "/amazon/aws-network-policy-agent:v1.4.2", quantities({{kCpu, "25m"}})));
  return ds;
}

// EKS's kube-proxy DaemonSet (kube-system/kube-proxy, labels k8s-app=kube-proxy): hostNetwork,
// system-node-critical, tolerations [{operator: Exists}], requests cpu 100m, image
// eks/kube-proxy:<version> (the EKS add-on type's tag; the self-managed one is "-minimal-").
DaemonSet kube_proxy_daemonset(const std::string& region, const EksAddonVersions& v) {
  DaemonSet ds = node_daemon("kube-proxy", {{"k8s-app", "kube-proxy"}});
  ds.tmpl.spec.containers.push_back(
      container("kube-proxy", eks_addon_registry(region) + "/eks/kube-proxy:" + v.kube_proxy, quantities({{kCpu, "100m"}})));
  return ds;
}

// EKS's CoreDNS Deployment (kube-system/coredns, labels k8s-app=kube-dns and
// eks.amazonaws.com/component=coredns): 2 replicas "regardless of the number of nodes" (EKS user
// guide, managing-coredns), system-cluster-critical, tolerations CriticalAddonsOnly (Exists) and
// node-role.kubernetes.io/control-plane:NoSchedule, preferred pod anti-affinity on the hostname
// (weight 100), a ScheduleAnyway spread over zones, requests cpu 100m memory 70Mi, limit memory
// 170Mi. Its PodDisruptionBudget (maxUnavailable 1) is installed with it (models/cluster/
// system_addons.cpp).
Deployment coredns_deployment(const std::string& region, const EksAddonVersions& v) {
  const Labels labels{{"k8s-app", "kube-dns"}, {"eks.amazonaws.com/component", "coredns"}};
  Deployment d = cluster_deployment("coredns", 2, labels);
  PodSpec& s = d.tmpl.spec;
  s.tolerations = {exists("CriticalAddonsOnly"), Toleration{"node-role.kubernetes.io/control-plane", "", "", kNoSchedule, std::nullopt}};
  s.affinity.node_required = std::vector<NodeSelectorTerm>{{{
      {kLabelOs, "In", {"linux"}},
      {kLabelArch, "In", {"amd64", "arm64"}},
  }, {}}};
  LabelSelector dns;
  dns.match_expressions = {{"k8s-app", "In", {"kube-dns"}}};
  s.affinity.pod_anti_affinity_preferred = {WeightedPodAffinityTerm{100, PodAffinityTerm{dns, kLabelHostname, {}}}};
  LabelSelector own;
  own.match_labels = {{"k8s-app", "kube-dns"}};
  s.topology_spread_constraints = {TopologySpreadConstraint{1, kLabelZone, "ScheduleAnyway", own, std::nullopt}};
  s.containers.push_back(container("coredns", eks_addon_registry(region) + "/eks/coredns:" + v.coredns,
                                   quantities({{kCpu, "100m"}, {kMemory, "70Mi"}}), quantities({{kMemory, "170Mi"}})));
  return d;
}

// aws/eks-pod-identity-agent charts/eks-pod-identity-agent (helm template with default values):
// hostNetwork, system-node-critical, tolerations [{operator: Exists}], the networking add-ons'
// node affinity, an init container and the server container, `resources: {}`: no requests.
DaemonSet pod_identity_agent_daemonset(const std::string& region) {
  DaemonSet ds = node_daemon("eks-pod-identity-agent", {{"app.kubernetes.io/name", "eks-pod-identity-agent"},
                                                        {"app.kubernetes.io/instance", "eks-pod-identity-agent"}});
  const std::string image = eks_addon_registry(region) + "/eks/eks-pod-identity-agent:v0.1.20";
  ds.tmpl.spec.init_containers.push_back(container("eks-pod-identity-agent-init", image, {}));
  ds.tmpl.spec.containers.push_back(container("eks-pod-identity-agent", image, {}));
  return ds;
}

// kubernetes-sigs/metrics-server charts/metrics-server values.yaml: replicas 1, requests cpu 100m
// memory 200Mi, no tolerations or affinity; the chart's priorityClassName is
// system-cluster-critical.
Deployment metrics_server_deployment() {
  Deployment d = cluster_deployment("metrics-server", 1, {{"app.kubernetes.io/name", "metrics-server"},
                                                          {"app.kubernetes.io/instance", "metrics-server"}});
  d.tmpl.spec.containers.push_back(container("metrics-server", "registry.k8s.io/metrics-server/metrics-server:v0.8.0",
                                             quantities({{kCpu, "100m"}, {kMemory, "200Mi"}})));
  return d;
}

// kubernetes/autoscaler cluster-autoscaler/cloudprovider/aws/examples/
// cluster-autoscaler-autodiscover.yaml (the manifest the EKS docs point to): kube-system,
// labels app=cluster-autoscaler, 1 replica, system-cluster-critical, requests and limits cpu 100m
// memory 600Mi, no tolerations; the image's minor follows the cluster's. (The Helm chart 9.x has
// the same replica count and priority class but `resources: {}`.)
Deployment cluster_autoscaler_deployment(int kubernetes_minor) {
  Deployment d = cluster_deployment("cluster-autoscaler", 1, {{"app", "cluster-autoscaler"}});
  const ResourceList r = quantities({{kCpu, "100m"}, {kMemory, "600Mi"}});
  d.tmpl.spec.containers.push_back(container(
      "cluster-autoscaler", "registry.k8s.io/autoscaling/cluster-autoscaler:v1." + std::to_string(kubernetes_minor) + ".0", r, r));
  return d;
}

// aws/karpenter-provider-aws charts/karpenter values.yaml (chart 1.14.1): replicas 2,
// system-cluster-critical, nodeSelector kubernetes.io/os=linux, required node affinity
// karpenter.sh/nodepool DoesNotExist (never on a node it manages), required pod anti-affinity on
// the hostname, a DoNotSchedule spread over zones, toleration CriticalAddonsOnly (Exists). The
// chart leaves `controller.resources` empty; the Karpenter getting-started install (which the
// labs follow) sets requests and limits cpu 1 memory 1Gi, used here. Installed in kube-system as
// the getting-started guide does (the karpenter setting `namespace` moves it, as lab 002's
// KARPENTER_NAMESPACE=karpenter does).
Deployment karpenter_deployment(const std::string& version) {
  const Labels labels{{"app.kubernetes.io/name", "karpenter"}, {"app.kubernetes.io/instance", "karpenter"}};
  Deployment d = cluster_deployment("karpenter", 2, labels);
  PodSpec& s = d.tmpl.spec;
  s.node_selector = {{kLabelOs, "linux"}};
  s.affinity.node_required = std::vector<NodeSelectorTerm>{{{{"karpenter.sh/nodepool", "DoesNotExist", {}}}, {}}};
  LabelSelector own;
  own.match_labels = labels;
  s.affinity.pod_anti_affinity_required = {PodAffinityTerm{own, kLabelHostname, {}}};
  s.topology_spread_constraints = {TopologySpreadConstraint{1, kLabelZone, "DoNotSchedule", own, std::nullopt}};
  s.tolerations = {exists("CriticalAddonsOnly")};
  const ResourceList r = quantities({{kCpu, "1"}, {kMemory, "1Gi"}});
  s.containers.push_back(container("controller", "public.ecr.aws/karpenter/controller:" + version, r, r));
  return d;
}

bool any_replica_running(const ApiServer& api, const DeploymentController& deployments, std::size_t index) {
  for (PodId p : deployments.pods(index)) {
    const PodRecord& r = api.pod(p);
    if (!r.deleted && r.pod.status.phase == PodPhase::Running) return true;
  }
  return false;
}

Service kubernetes_service(const std::string& cluster_ip) {
  Service s;
  s.meta.name = "kubernetes";
  s.meta.ns = "default";
  s.meta.labels = {{"component", "apiserver"}, {"provider", "kubernetes"}};
  s.cluster_ip = cluster_ip;
  s.ports = {ServicePort{"https", "TCP", 443, "443", 0}};
  return s;
}

Service kube_dns_service(const std::string& cluster_ip) {
  Service s;
  s.meta.name = "kube-dns";
  s.meta.ns = kSystem;
  s.meta.labels = {{"eks.amazonaws.com/component", "kube-dns"},
                   {"k8s-app", "kube-dns"},
                   {"kubernetes.io/cluster-service", "true"},
                   {"kubernetes.io/name", "CoreDNS"}};
  s.meta.annotations = {{"prometheus.io/port", "9153"}, {"prometheus.io/scrape", "true"}};
  s.cluster_ip = cluster_ip;
  s.selector = {{"k8s-app", "kube-dns"}};
  // The metrics port is listed since aws/containers-roadmap#2177 was fixed.
  s.ports = {ServicePort{"dns", "UDP", 53, "53", 0}, ServicePort{"dns-tcp", "TCP", 53, "53", 0},
             ServicePort{"metrics", "TCP", 9153, "9153", 0}};
  return s;
}

Service eks_extension_metrics_api_service() {
  Service s;
  s.meta.name = "eks-extension-metrics-api";
  s.meta.ns = kSystem;
  s.ports = {ServicePort{"", "TCP", 443, "", 0}};
  return s;
}

Service metrics_server_service() {
  Service s;
  s.meta.name = "metrics-server";
  s.meta.ns = kSystem;
  s.meta.labels = {{"app.kubernetes.io/name", "metrics-server"}, {"app.kubernetes.io/instance", "metrics-server"}};
  s.selector = s.meta.labels;
  s.ports = {ServicePort{"https", "TCP", 443, "https", 0}};
  return s;
}

Service karpenter_service(const std::string& version, const std::string& ns) {
  Service s;
  s.meta.name = "karpenter";
  s.meta.ns = ns;
  s.selector = {{"app.kubernetes.io/name", "karpenter"}, {"app.kubernetes.io/instance", "karpenter"}};
  s.meta.labels = s.selector;
  s.meta.labels["helm.sh/chart"] = "karpenter-" + version;
  s.meta.labels["app.kubernetes.io/version"] = version;
  s.meta.labels["app.kubernetes.io/managed-by"] = "Helm";
  s.ports = {ServicePort{"http-metrics", "TCP", 8080, "http-metrics", 0}};
  return s;
}

}  // namespace eksim::k8s
