#include "models/cluster/cluster.hpp"

#include <algorithm>

#include "models/aws/asg_rules.hpp"
#include "models/aws/subnet_addresses.hpp"
#include "models/cluster/control_plane_groups.hpp"
#include "models/cluster/disruption_controller.hpp"
#include "models/cluster/nodegroup_health.hpp"
#include "models/cluster/nodegroup_update.hpp"
#include "models/cluster/registry_access.hpp"
#include "models/cluster/system_addons.hpp"
#include "models/k8s/addons/eks_addons.hpp"
#include "models/k8s/addons/installed_crds.hpp"
#include "models/k8s/kubelet/allocatable.hpp"
#include "models/k8s/addons/nvidia/gpu_operator_chart.hpp"

namespace eksim {

namespace {

std::vector<aws::Subnet> to_subnets(const std::vector<SubnetSpec>& specs) {
  std::vector<aws::Subnet> out;
  for (const auto& s : specs) {
    aws::Subnet subnet;
    subnet.id = s.id;
    subnet.az = s.az;
    subnet.cidr = s.cidr.empty() ? "10.0.0.0/16" : s.cidr;
    out.push_back(subnet);
    out.back().used_addresses = s.used_addresses;
    out.back().tags = s.tags;
  }
  return out;
}

k8s::BootstrapFlavor bootstrap_of(const std::string& ami_type) {
  if (ami_type.rfind("BOTTLEROCKET", 0) == 0) return k8s::BootstrapFlavor::Bottlerocket;
  if (ami_type.rfind("AL2_", 0) == 0) return k8s::BootstrapFlavor::Al2BootstrapSh;
  return k8s::BootstrapFlavor::Al2023Nodeadm;
}

// The account's quotas, the pools' capacity and Spot interruption rates, as the spec gives them.
void set_account_limits(const ClusterSpec& spec, aws::Ec2& ec2, aws::SpotInterruptions& spot) {
  for (const auto& [bucket, vcpus] : spec.quotas.on_demand) ec2.quotas().set_quota(bucket, false, vcpus);
  for (const auto& [bucket, vcpus] : spec.quotas.spot) ec2.quotas().set_quota(bucket, true, vcpus);
  for (const auto& p : spec.capacity_pools) {
    if (p.instances) ec2.capacity().set_capacity(p.instance_type, p.az, p.spot, p.instances);
    if (p.spot && p.interruptions_per_hour > 0)
      spot.set_rate(p.instance_type, p.az, aws::SpotPoolRate{p.interruptions_per_hour, p.rebalance_lead});
  }
}

}  // namespace

aws::SgRule sg_rule_from_spec(const SecurityGroupRuleSpec& r) {
  aws::SgRule rule;
  rule.protocol = r.protocol;
  rule.from_port = r.from_port;
  rule.to_port = r.to_port;
  rule.cidr = r.cidr;
  rule.group = r.source_group;
  rule.description = r.description;
  return rule;
}

aws::SecurityGroup security_group_from_spec(const SecurityGroupSpec& sg) {
  aws::SecurityGroup g = aws::new_security_group(sg.name, sg.name);
  g.tags = sg.tags;
  for (const auto& r : sg.ingress) g.ingress.push_back(sg_rule_from_spec(r));
  if (sg.egress_given) {
    g.egress.clear();
    for (const auto& r : sg.egress) g.egress.push_back(sg_rule_from_spec(r));
  }
  return g;
}

Cluster::Cluster(ClusterSpec spec, std::uint64_t seed)
    : rng(seed),
      api(sim, log, rng),
      ec2(sim, rng, spec.region, to_subnets(spec.subnets)),
      auto_scaling(sim, activities, rng, ec2, spec.start_epoch_seconds),
      eks(rng, auto_scaling, aws::InstanceCatalog::builtin(), spec.name),
      spot(sim, rng, ec2),
      spec_(std::move(spec)),
      start_epoch_(spec_.start_epoch_seconds),
      catalog_(aws::InstanceCatalog::builtin()),
      prices_(spec_.region, spec_.pricing) {
  // The cluster's components record events with the client-go of its Kubernetes version; from
  // v0.32 the spam filter keys Normal and Warning events of an object apart.
  k8s::SpamFilterOptions by_version;
  by_version.key_includes_type = spec_.kubernetes_minor >= 32;
  log.filter_spam_by_default(by_version);
  kubelet = std::make_unique<k8s::Kubelet>(api);
  scheduler = std::make_unique<k8s::SchedulerController>(
      api, k8s::SchedulerControllerOptions{k8s::KubernetesVersion{spec_.kubernetes_minor, -1}}, kubelet.get());
  daemon_sets = std::make_unique<k8s::DaemonSetController>(api, kubelet.get());
  deployments = std::make_unique<k8s::DeploymentController>(api, kubelet.get());
  jobs = std::make_unique<k8s::JobController>(api, kubelet.get());
  addons = std::make_unique<k8s::AddonController>(api, *daemon_sets, *kubelet, k8s::AddonTimings{}, deployments.get());
  pod_gc = std::make_unique<k8s::PodGcController>(api);
  // Every EKS cluster has these from its creation, whatever is applied later (controllers.hpp).
  controllers.pdb = std::make_unique<DisruptionController>(api);
  controllers.nodegroup_update = std::make_unique<NodegroupUpdater>(*this);
  set_account_limits(spec_, ec2, spot);
  eks_spot = std::make_unique<EksSpotHandling>(*this);
  // EC2's EventBridge events, as the event stream shows them: detail-type, resource, detail.
  spot.event_bridge = [this](const aws::SpotSignal& s, std::string_view detail_type, std::string detail) {
    const bool warning = s.kind == aws::SpotSignalKind::InterruptionWarning;
    log.record(sim.now(), warning ? k8s::EventType::Warning : k8s::EventType::Normal, detail_type,
               k8s::ObjectRef{"Instance", "", s.instance_id}, detail, aws::kEc2EventSource);
  };
  spot.listeners.push_back([this](const aws::SpotSignal& s) { eks_spot->on_signal(s); });
  for (const auto& sg : spec_.security_groups) security_groups.put(security_group_from_spec(sg));
  // A scenario that models the control plane's groups gets the cluster security group EKS
  // creates with every cluster, unless it declares that group itself.
  if (spec_.primary_security_group.empty() && !spec_.cluster_security_group.empty()) {
    aws::SecurityGroup primary = eks_cluster_security_group(spec_.name, rng.get("eks/cluster-security-group"));
    spec_.primary_security_group = primary.id;
    security_groups.put(std::move(primary));
  }
  eks.set_cluster_security_group(spec_.primary_security_group);
  if (auto vpc = aws::parse_ipv4_block(spec_.vpc_cidr)) api.services().set_cidr(k8s::eks_default_service_cidr(vpc->first));
  ec2.on_running.push_back([this](aws::Instance& i) { on_instance_running(i); });
  ec2.on_terminated.push_back([this](aws::Instance& i) { on_instance_terminated(i); });
  eks.on_labels_or_taints_changed.push_back([this](aws::ManagedNodegroup& ng) { on_labels_or_taints_changed(ng); });
  // Pod addresses: the kubelet asks aws-node's CNI for each pod sandbox's network.
  pod_networking = std::make_unique<PodNetworking>(*this, spec_.vpc_cni);
  kubelet->cni_add = [this](k8s::PodId p) { return pod_networking->cni_add(p); };
  // Image pulls: the node's security groups must let it reach the registry on 443.
  kubelet->pull_error = [this](k8s::PodId p, const std::string& image) -> std::optional<std::string> {
    const k8s::PodRecord& rec = api.pod(p);
    if (!rec.node.valid()) return std::nullopt;
    const aws::Instance* inst = ec2.find(api.node(rec.node).instance_id);
    if (!inst) return std::nullopt;
    return registry_pull_error(*this, *inst, image);
  };
  // Subnet addresses: once its node has registered, the VPC CNI (aws-node) holds its warm pool
  // and one address per pod that has one (hostNetwork pods excepted); before that only the
  // primary address. PodNetworking tells EC2 when a node's pods take or give back an address.
  ec2.addresses_of = [this](const aws::Instance& inst) -> std::int64_t {
    auto node = node_of_instance(inst.id);
    if (!node || api.node(*node).deleted) return 1;
    return aws::vpc_cni_node_addresses(inst.type->default_card_enis, inst.type->ipv4_per_eni,
                                       pod_networking->pods_with_addresses(*node), spec_.vpc_cni);
  };
  // ...and EC2 asks again when the node itself changes.
  api.on_node.push_back([this](k8s::NodeId n, k8s::NodeChange) {
    if (n.valid() && !api.node(n).instance_id.empty()) ec2.addresses_changed(api.node(n).instance_id);
  });
}

Cluster::~Cluster() = default;

void Cluster::gpu_operator_version_hint(const AddonSpec& addon) {
  const auto versions = k8s::gpu_operator_chart_versions();
  const k8s::GpuOperatorChart* chart =
      k8s::find_gpu_operator_chart(addon.version.empty() ? versions.back() : addon.version);
  if (!chart) return;
  const int minor = spec_.kubernetes_minor;
  if (minor >= chart->eks_k8s_min_minor && minor <= chart->eks_k8s_max_minor) return;
  hint("UnsupportedVersion", {"HelmRelease", addon.ns.empty() ? "gpu-operator" : addon.ns,
                              addon.release_name.empty() ? "gpu-operator" : addon.release_name},
       "GPU Operator " + std::string(chart->version) + " is validated on Amazon EKS Kubernetes 1." +
           std::to_string(chart->eks_k8s_min_minor) + " to 1." + std::to_string(chart->eks_k8s_max_minor) +
           " (NVIDIA platform support); this cluster runs " + spec_.kubernetes_version +
           ". Helm installs it anyway (the chart's kubeVersion is >= 1.16.0-0).");
}

void Cluster::start() {
  starting_ = true;
  // What EKS (and the charts the scenario declares) created before the cluster was handed over.
  k8s::CustomResources& crds = api.custom_resources();
  k8s::install_crds(crds, k8s::eks_crds(), sim.now());
  if (spec_.mode == "auto") k8s::install_crds(crds, k8s::auto_mode_crds(), sim.now());
  else if (spec_.autoscaler.kind == "karpenter") k8s::install_crds(crds, k8s::karpenter_crds(), sim.now());
  for (const auto& a : spec_.addons)
    if (a.name == "gpuOperator") k8s::install_crds(crds, k8s::gpu_operator_crds(), sim.now());
  install_system_config_maps(*this);
  install_system_services(*this);
  for (const auto& a : spec_.addons) install_helm_addon(a);
  install_system_daemonsets(*this);
  for (const auto& ng : spec_.node_groups) {
    std::vector<std::string> subnets = ng.subnet_ids;
    if (subnets.empty())
      for (const auto& s : spec_.subnets) subnets.push_back(s.id);
    eks.create_nodegroup(ng, subnets, /*already_running=*/true);
  }
  install_system_deployments(*this);
  starting_ = false;
}

bool Cluster::install_helm_addon(const AddonSpec& a) {
  if (!helm_addons_.insert(a.name).second) return false;
  addons->install(a.name, a.version, a.values, a.release_name, a.ns);
  if (a.name == "gpuOperator") gpu_operator_version_hint(a);
  return true;
}

bool Cluster::autoscaler_running() const { return !autoscaler_replicas || autoscaler_replicas->acting(sim.now()); }

void Cluster::watch_autoscaler_deployment(std::size_t deployment, LeaderElectionConfig election) {
  if (autoscaler_replicas) {
    // Applied again after `kubectl delete`: the new Deployment runs the controller now.
    if (api.deployments()[autoscaler_replicas->deployment()].deleted) autoscaler_replicas->retarget(deployment);
    return;
  }
  autoscaler_replicas = std::make_unique<ControllerReplicas>(api, *deployments, *scheduler, deployment, election);
}

bool Cluster::role_mapped(const std::string& role) const {
  if (!spec_.access.declared) return true;
  return std::find(spec_.access.mapped_roles.begin(), spec_.access.mapped_roles.end(), role) !=
         spec_.access.mapped_roles.end();
}

k8s::MachineSpec Cluster::machine_for(const aws::Instance& inst, const aws::ManagedNodegroup* ng,
                                      const NodeClassSettings* node_class) const {
  k8s::MachineSpec m;
  const aws::InstanceType& type = *inst.type;
  // EKS Auto Mode names nodes by instance id; everything else by the private DNS name.
  m.node_name = spec_.mode == "auto" ? inst.id : inst.private_dns_name;
  m.provider_id = "aws:///" + inst.az + "/" + inst.id;
  m.instance_id = inst.id;
  m.labels = {
      {k8s::kLabelArch, type.arch},
      {k8s::kLabelOs, "linux"},
      {k8s::kLabelHostname, m.node_name},
      {k8s::kLabelInstanceType, type.name},
      {"beta.kubernetes.io/instance-type", type.name},
      {k8s::kLabelZone, inst.az},
      {k8s::kLabelRegion, spec_.region},
      {"failure-domain.beta.kubernetes.io/zone", inst.az},
      {"failure-domain.beta.kubernetes.io/region", spec_.region},
      {"beta.kubernetes.io/arch", type.arch},
      {"beta.kubernetes.io/os", "linux"},
  };
  m.capacity_type = inst.spot ? "spot" : "on-demand";
  m.gpu_count = type.gpu.count;
  if (type.accelerator.manufacturer == "aws") {  // Inferentia, Trainium: Neuron devices
    m.neuron_devices = type.accelerator.count;
    m.neuron_cores = type.accelerator.neuron_cores;
  }
  k8s::KubeletOptions opts;
  std::int64_t disk_gib = 20;
  if (ng) {
    m.labels[k8s::kLabelNodegroup] = ng->spec.name;
    m.labels[k8s::kLabelEksCapacityType] = inst.spot ? "SPOT" : "ON_DEMAND";
    m.labels["eks.amazonaws.com/nodegroup-image"] = "ami-0eksim" + ng->spec.ami_type.substr(0, 4);
    for (const auto& [k, v] : ng->spec.labels) m.labels[k] = v;
    for (const auto& t : ng->spec.taints)
      m.register_with_taints.push_back(k8s::Taint{t.key, t.value, aws::kubernetes_taint_effect(t.effect)});
    m.node_group = ng->spec.name;
    // enable_efa_support: the module's launch template attaches every EFA interface the type has.
    if (ng->spec.enable_efa_support) m.efa_count = type.efa_interfaces;
    m.bootstrap = bootstrap_of(ng->spec.ami_type);
    m.nvidia_ami = ng->spec.ami_type.find("NVIDIA") != std::string::npos || ng->spec.ami_type == "AL2_x86_64_GPU";
    // The kubelet's own settings from the user data: --node-labels and --register-with-taints
    // join the node group's (EKS passes those the same way).
    for (const auto& [k, v] : ng->spec.kubelet.node_labels) m.labels[k] = v;
    for (const auto& t : ng->spec.kubelet.taints) m.register_with_taints.push_back(k8s::Taint{t.key, t.value, t.effect});
    const auto& max_pods = ng->spec.kubelet.max_pods;
    opts.max_pods = max_pods ? std::optional<int>(static_cast<int>(*max_pods)) : std::nullopt;
    opts.managed_node_group_cap = ng->spec.ami_type != "CUSTOM";
    // With prefix delegation on in the vpc-cni add-on, EKS sets a managed node group's max pods
    // from the prefix formula (max-pods-calculator.sh --cni-prefix-delegation-enabled, capped at
    // 110/250) unless the user data sets it.
    if (spec_.vpc_cni.prefix_delegation && opts.managed_node_group_cap && !opts.max_pods)
      opts.max_pods = aws::prefix_delegation_max_pods(type.default_card_enis, type.ipv4_per_eni, type.vcpu);
    disk_gib = ng->spec.disk_size_gib;
    // aws-node uses the node role unless the vpc-cni add-on has its own (IRSA / Pod Identity).
    m.cni_initializes = ng->spec.iam_role_attach_cni_policy || spec_.vpc_cni_own_role;
  }
  if (node_class) {
    // Karpenter writes the NodeClass's kubelet settings into the node's user data; its
    // blockDeviceMappings size the root volume.
    opts = node_class->kubelet;
    disk_gib = node_class->root_volume_gib;
  }
  k8s::NodeShape shape{type.vcpu,          type.kubelet_memory_ki, type.default_card_enis, type.ipv4_per_eni,
                       type.gpu.count, disk_gib,               type.arch == "arm64"};
  auto res = k8s::node_resources(shape, opts);
  m.capacity = res.capacity;
  m.allocatable = res.allocatable;
  m.role_mapped = role_mapped(inst.iam_role);
  // The EKS AMIs cache only the pause image (amazon-eks-ami CACHE_CONTAINER_IMAGES=false): aws-node
  // pulls amazon-k8s-cni from EKS's ECR registry, and until it runs the CNI is not initialised.
  if (m.cni_initializes &&
      registry_pull_error(*this, inst, k8s::eks_addon_registry(spec_.region) + "/amazon-k8s-cni:latest"))
    m.cni_initializes = false;
  m.api_server_reachable = api_server_reachable(inst);
  return m;
}

bool Cluster::api_server_reachable(const aws::Instance& inst) const {
  auto endpoint = control_plane_eni(spec_);
  if (!endpoint) return true;
  aws::Eni node{engine::parse_ipv4(inst.private_ip).value_or(0), inst.security_groups};
  return security_groups.reachable(node, *endpoint, "tcp", 443);
}

void Cluster::join_instance(const aws::Instance& inst, k8s::MachineSpec machine) {
  node_by_instance_[inst.id] = machine.node_name;
  if (starting_) {
    k8s::adopt_joined_node(api, machine);  // present from the start: joined before t=0
    return;
  }
  joins_[inst.id] = k8s::start_node_join(api, std::move(machine));
}

void Cluster::on_instance_running(aws::Instance& inst) {
  aws::AutoScalingGroup* g = auto_scaling.find(inst.owner);
  if (!g) return;  // not a node group instance (Karpenter joins its own)
  aws::ManagedNodegroup* ng = eks.by_asg(g->name);
  if (!ng) return;
  join_instance(inst, machine_for(inst, ng));
  watch_nodegroup_join(*this, ng->spec.name, inst.id);
}

std::optional<k8s::NodeId> Cluster::node_of_instance(const std::string& instance_id) const {
  auto it = node_by_instance_.find(instance_id);
  if (it == node_by_instance_.end()) return std::nullopt;
  return api.find_node(it->second);
}

void Cluster::on_instance_terminated(aws::Instance& inst) {
  if (auto it = joins_.find(inst.id); it != joins_.end()) {
    it->second.cancel();
    joins_.erase(it);
  }
  if (auto node = node_of_instance(inst.id)) k8s::remove_node_and_pods(api, *node);
}

void Cluster::on_labels_or_taints_changed(aws::ManagedNodegroup& ng) {
  for (std::size_t i = 0; i < api.node_slots(); ++i) {
    k8s::NodeId id{static_cast<std::uint32_t>(i)};
    k8s::NodeRecord& rec = api.node(id);
    if (rec.deleted || rec.node_group != ng.spec.name) continue;
    for (const auto& [k, v] : ng.spec.labels) rec.node.meta.labels[k] = v;
    std::erase_if(rec.node.taints, [](const k8s::Taint& t) { return t.key.find("node.kubernetes.io/") != 0; });
    for (const auto& t : ng.spec.taints)
      rec.node.taints.push_back(k8s::Taint{t.key, t.value, aws::kubernetes_taint_effect(t.effect)});
    // The kubelet's --register-with-taints were not EKS's to change.
    for (const auto& t : ng.spec.kubelet.taints) rec.node.taints.push_back(k8s::Taint{t.key, t.value, t.effect});
    api.node_changed(id, k8s::NodeChange::Updated);
  }
}

aws::BillingLedger Cluster::billing() const {
  aws::BillingLedger ledger;
  for (const auto& inst : ec2.instances()) {
    if (!inst.running_at) continue;
    double hourly = prices_.hourly(*inst.type, inst.spot, inst.az);
    std::string owner = inst.owner;
    if (const aws::ManagedNodegroup* ng = eks.by_asg(inst.owner)) owner = ng->spec.name;
    ledger.add_instance(owner, hourly, *inst.running_at, inst.terminated_at.value_or(sim.now()),
                        {inst.id, inst.az, inst.spot ? "spot" : "on-demand"});
  }
  return ledger;
}

}  // namespace eksim
