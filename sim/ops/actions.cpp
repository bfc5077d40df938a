#include "sim/ops/actions.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "models/aws/asg_rules.hpp"
#include "models/cluster/nodegroup_update.hpp"
#include "sim/engine/numbers.hpp"
#include "models/autoscaling/cluster_autoscaler.hpp"
#include "sim/ops/autoscaling_actions.hpp"
#include "sim/ops/custom_resources.hpp"
#include "sim/ops/install_actions.hpp"
#include "sim/ops/instance_pick.hpp"
#include "sim/ops/kubectl_operations.hpp"
#include "sim/scenario/cas_config_map.hpp"
#include "sim/scenario/karpenter_manifest.hpp"

namespace eksim::ops {

using namespace scenario;  // the typed input this layer acts on

namespace {

using k8s::EventType;

k8s::ObjectRef nodegroup_ref(const std::string& name) { return {"Nodegroup", "", name}; }

void warn(Cluster& c, const k8s::ObjectRef& obj, const std::string& reason, const std::string& message,
          const std::string& source) {
  c.api.emit(EventType::Warning, reason, obj, message, source);
}

void apply_terraform_node_group(Cluster& c, const NodeGroupChange& change) {
  const NodeGroupSpec& next = change.spec;
  aws::ManagedNodegroup* ng = c.eks.find(next.name);
  if (!ng) {
    std::vector<std::string> subnets = next.subnet_ids;
    if (subnets.empty())
      for (const auto& s : c.spec().subnets) subnets.push_back(s.id);
    c.eks.create_nodegroup(next, subnets, /*already_running=*/false);
    return;
  }
  // terraform-aws-modules/eks sets lifecycle { ignore_changes = [scaling_config[0].desired_size] }
  // on aws_eks_node_group: a new desired size plans no change on an existing group.
  if (change.keys.count("desired_size") && next.desired_size != c.eks.sizes(next.name).desired) {
    // terraform plans "No changes" for it: eksim's remark, not an event.
    c.hint("DesiredSizeIgnored", nodegroup_ref(next.name),
         "terraform apply left desired_size at " + std::to_string(c.eks.sizes(next.name).desired) +
             " (requested " + std::to_string(next.desired_size) +
             "): the module ignores changes to scaling_config[0].desired_size on an existing node group; use "
             "aws eks update-nodegroup-config --nodegroup-name " + next.name +
             " --scaling-config desiredSize=" + std::to_string(next.desired_size));
  }
  if (change.keys.count("min_size") || change.keys.count("max_size")) {
    aws::SizesUpdate update;
    if (change.keys.count("min_size")) update.min_size = next.min_size;
    if (change.keys.count("max_size")) update.max_size = next.max_size;
    if (auto err = c.eks.update_nodegroup_config(next.name, update))
      warn(c, nodegroup_ref(next.name), err->code, err->message, "eks");
  }
  if ((change.keys.count("labels") && next.labels != ng->spec.labels) ||
      (change.keys.count("taints") && next.taints != ng->spec.taints)) {
    ng->spec.labels = next.labels;
    ng->spec.taints = next.taints;
    for (auto& fn : c.eks.on_labels_or_taints_changed) fn(*ng);
  }
  if (change.keys.count("tags")) ng->spec.tags = next.tags;
  // Keys that end up in the module's launch template (or the node group's AMI/instance type)
  // give the group a new launch template version, which EKS rolls out as a managed update.
  auto changed = [&](const char* key, bool differs) { return change.keys.count(key) && differs; };
  if (changed("instance_types", next.instance_types != ng->spec.instance_types) ||
      changed("ami_type", next.ami_type != ng->spec.ami_type) ||
      changed("cloudinit_pre_nodeadm", next.kubelet != ng->spec.kubelet) ||
      changed("bootstrap_extra_args", next.kubelet != ng->spec.kubelet) ||
      changed("vpc_security_group_ids", next.vpc_security_group_ids != ng->spec.vpc_security_group_ids) ||
      changed("disk_size", next.disk_size_gib != ng->spec.disk_size_gib)) {
    if (auto err = c.controllers.nodegroup_update->update_version(next.name, &next))
      warn(c, nodegroup_ref(next.name), err->code, err->message, "eks");
  }
}

// policy/v1 PodDisruptionBudget, decoded at load; what eksim does not model of it is remarked now.
// metadata.name of a custom kind's object, for the API server's refusal.
std::string object_name(const Manifest& m) {
  if (const auto* pool = std::get_if<autoscaling::karpenter::NodePool>(&m.object)) return pool->name;
  if (const auto* nc = std::get_if<autoscaling::karpenter::NodeClass>(&m.object)) return nc->name;
  if (const auto* other = std::get_if<OtherObject>(&m.object)) return other->name;
  return "";
}

void apply_pdb(Cluster& c, const PdbObject& object) {
  for (const auto& remark : object.unsupported)
    c.hint("Unsupported", {"PodDisruptionBudget", object.pdb.ns, object.pdb.name}, remark);
  c.controllers.pdb->apply(object.pdb);
}

// ec2.send-spot-instance-interruptions: the target's running instances by launch order, then
// the one the action names; the interruption follows FIS (rebalance recommendation now, warning
// two minutes before the interruption).
AwsActionResult send_spot_interruption(Cluster& c, const Action& a) {
  AwsActionResult result;
  std::vector<const aws::Instance*> candidates;
  std::string target;
  if (!a.nodegroup.empty()) {
    target = "node group " + a.nodegroup;
    if (const aws::ManagedNodegroup* ng = c.eks.find(a.nodegroup))
      if (const aws::AutoScalingGroup* g = c.auto_scaling.find(ng->asg_name))
        for (const auto& id : g->instances)
          if (const aws::Instance* inst = c.ec2.find(id)) candidates.push_back(inst);
  } else {
    target = a.node.empty() ? "node pool " + a.node_pool : "node " + a.node;
    for (std::size_t i = 0; i < c.api.node_slots(); ++i) {
      const k8s::NodeRecord& rec = c.api.node(k8s::NodeId{static_cast<std::uint32_t>(i)});
      if (rec.deleted || rec.instance_id.empty()) continue;
      if (!a.node.empty() ? rec.node.meta.name != a.node : rec.node_pool != a.node_pool) continue;
      if (const aws::Instance* inst = c.ec2.find(rec.instance_id)) candidates.push_back(inst);
    }
  }
  std::erase_if(candidates, [](const aws::Instance* i) { return i->state != aws::InstanceState::Running; });
  const aws::Instance* pick = pick_by_launch_order(std::move(candidates), a.instance);
  // eksim's own message (FIS's target-resolution failure text is not modelled): a hint.
  if (!pick) {
    result.remark_kind = "NoSpotInstanceTarget";
    result.remark = "ec2.send-spot-instance-interruptions: no running instance \"" + a.instance + "\" in " + target;
    return result;
  }
  result.instance_id = pick->id;
  if (auto err = c.spot.send_spot_instance_interruption(pick->id, a.before_interruption)) {
    result.remark_kind = "InvalidTarget";
    result.remark = *err;
  }
  return result;
}

AwsActionResult set_quota(Cluster& c, const Action& a) {
  for (const auto& [bucket, vcpus] : a.quotas.on_demand) c.ec2.quotas().set_quota(bucket, false, vcpus);
  for (const auto& [bucket, vcpus] : a.quotas.spot) c.ec2.quotas().set_quota(bucket, true, vcpus);
  aws::Activity act;
  act.start = act.end = c.sim.now();
  act.service = "servicequotas";
  act.resource = c.spec().region;
  act.status = "Successful";
  std::vector<std::string> parts;
  for (const auto& [bucket, vcpus] : a.quotas.on_demand)
    parts.push_back("On-Demand " + bucket + " " + std::to_string(vcpus) + " vCPUs (" + c.catalog().quota_code(bucket, false) + ")");
  for (const auto& [bucket, vcpus] : a.quotas.spot)
    parts.push_back("Spot " + bucket + " " + std::to_string(vcpus) + " vCPUs (" + c.catalog().quota_code(bucket, true) + ")");
  act.description = "Quota increase approved: " + fmt::format("{}", fmt::join(parts, ", "));
  c.activities.push_back(std::move(act));
  return {};
}

// How the timeline records an AWS-side action's outcome: a refusal as a Warning event with the
// service's text on the object it names, eksim's own remark (no target) as a hint.
void record_aws_outcome(Cluster& c, const Action& a, const AwsActionResult& r) {
  if (r.error) {
    if (a.action.rfind("eks.", 0) == 0) warn(c, nodegroup_ref(a.nodegroup), r.error->code, r.error->message, "eks");
    else warn(c, {"SecurityGroup", "", a.group}, r.error->code, r.error->message, "ec2");
  }
  if (!r.remark.empty()) c.hint(r.remark_kind, {"Instance", "", r.instance_id}, r.remark);
}

// kubectl apply of a ConfigMap: the API server keeps it (api.config_maps(), read by device
// plugins that mount it); Cluster Autoscaler, when installed, picks up its priority expander
// ConfigMap.
void apply_config_map(Cluster& cluster, const ConfigMapObject& cm) {
  const std::string& name = cm.meta.name;
  const std::string& ns = cm.meta.ns;
  // The API server keeps every ConfigMap; pods that mount one read it when they start (the
  // NVIDIA device plugin's config file).
  cluster.api.put_config_map(ns, name, cm.data, cm.meta.labels);
  if (ns != "kube-system" || name != autoscaling::cas::kPriorityConfigMapName) return;
  autoscaling::ClusterAutoscaler* ca = cluster.controllers.cluster_autoscaler.get();
  if (!ca) return;
  // The expander reads its priorities from the ConfigMap's text, as upstream's does, and
  // reports a text it cannot read in its own events.
  auto it = cm.data.find("priorities");
  std::string error;
  auto config = parse_priority_config(it == cm.data.end() ? std::string() : it->second, &error);
  ca->set_priority_config_map(std::move(config), std::move(error));
}

}  // namespace

void apply_manifests(Cluster& c, const std::vector<Manifest>& manifests) {
  for (const auto& m : manifests) {
    if (const auto* pod = std::get_if<k8s::Pod>(&m.object)) {
      if (c.api.find_pod(pod->meta.ns.empty() ? "default" : pod->meta.ns, pod->meta.name)) {
        // kubectl apply of an unchanged pod is a no-op; a changed spec is refused by the API
        // server (pod updates may not change fields other than a few), which eksim does not diff.
        continue;
      }
      c.api.create_pod(*pod);
    } else if (const auto* d = std::get_if<k8s::Deployment>(&m.object)) {
      const std::size_t index = c.deployments->apply(*d);
      // An autoscaler's controller Deployment (recognised by its image at load) installs it.
      if (m.karpenter) install_karpenter_deployment(c, index, *m.karpenter);
      if (m.cluster_autoscaler) install_cluster_autoscaler_deployment(c, index, *m.cluster_autoscaler);
    } else if (const auto* j = std::get_if<k8s::Job>(&m.object)) {
      c.jobs->apply(*j);
    } else if (const auto* ds = std::get_if<k8s::DaemonSet>(&m.object)) {
      c.daemon_sets->apply(*ds);
    } else if (const auto* ns = std::get_if<NamespaceObject>(&m.object)) {
      auto& list = c.api.namespaces();
      if (std::find(list.begin(), list.end(), ns->meta.name) == list.end()) list.push_back(ns->meta.name);
    } else if (const auto* svc = std::get_if<k8s::Service>(&m.object)) {
      if (auto why = c.api.services().refusal(*svc)) warn(c, {"Service", svc->meta.ns, svc->meta.name}, "Invalid", *why, "kubectl");
      else c.api.apply_service(*svc);
    } else if (const auto* pdb = std::get_if<PdbObject>(&m.object)) {
      apply_pdb(c, *pdb);
      keep_object(c, m);
    } else if (const auto* cm = std::get_if<ConfigMapObject>(&m.object)) {
      apply_config_map(c, *cm);
    } else if (const auto* crd = std::get_if<k8s::CustomResourceDefinition>(&m.object)) {
      apply_crd(c, *crd);
    } else if (is_custom_kind(m.api_version) && !c.api.custom_resources().serves(m.api_version, m.kind)) {
      // kubectl apply of a kind whose CRD is not installed: the API server has no such resource.
      warn(c, {m.kind, "", object_name(m)}, "NoMatchingResource",
           "resource mapping not found for kind \"" + m.kind + "\" in version \"" + m.api_version +
               "\": ensure CRDs are installed first",
           "kubectl");
    } else if (!apply_karpenter_manifest(c, m)) {
      // Served, and nothing eksim runs models it (a ServiceAccount, RBAC, a NodePool while no
      // Karpenter runs): the API server keeps it as sent.
      keep_object(c, m);
    }
  }
}

bool is_aws_action(const std::string& action) {
  return action == "eks.update-nodegroup-config" || action == "ec2.set-quota" ||
         action == "ec2.send-spot-instance-interruptions" || action == "sg.authorize-ingress" ||
         action == "sg.revoke-ingress" || action == "sg.authorize-egress" || action == "sg.revoke-egress";
}

AwsActionResult perform_aws_action(Cluster& c, const Action& a) {
  AwsActionResult r;
  if (a.action == "eks.update-nodegroup-config") {
    aws::SizesUpdate update{a.min_size, a.max_size, a.desired_size};
    r.error = c.eks.update_nodegroup_config(a.nodegroup, update);
    if (!r.error) c.controllers.nodegroup_update->record_config_update(a.nodegroup);
  } else if (a.action == "ec2.set-quota") {
    r = set_quota(c, a);
  } else if (a.action == "ec2.send-spot-instance-interruptions") {
    r = send_spot_interruption(c, a);
  } else if (a.action == "sg.authorize-ingress" || a.action == "sg.revoke-ingress") {
    aws::SgRule rule = sg_rule_from_spec(a.rule);
    r.error = a.action == "sg.authorize-ingress" ? c.security_groups.authorize_ingress(a.group, rule)
                                                 : c.security_groups.revoke_ingress(a.group, rule);
  } else if (a.action == "sg.authorize-egress" || a.action == "sg.revoke-egress") {
    aws::SgRule rule = sg_rule_from_spec(a.rule);
    r.error = a.action == "sg.authorize-egress" ? c.security_groups.authorize_egress(a.group, rule)
                                                : c.security_groups.revoke_egress(a.group, rule);
  }
  return r;
}

void apply_action(Cluster& c, const Action& a) {
  if (apply_autoscaling_action(c, a)) return;
  if (is_aws_action(a.action)) {
    record_aws_outcome(c, a, perform_aws_action(c, a));
    return;
  }
  if (a.action == "kubectl.apply") {
    apply_manifests(c, a.manifests);
  } else if (a.action == "kubectl.create") {
    create_manifests(c, a.manifests);
  } else if (a.action == "eks.create-addon" || a.action == "eks.delete-addon") {
    apply_eks_addon_action(c, a);
  } else if (a.action == "kubectl.delete") {
    if (auto err = kubectl_delete(c, a.kind, a.ns, a.name)) warn(c, {a.kind, a.ns, a.name}, err->reason, err->message, "kubectl");
  } else if (a.action == "kubectl.scale") {
    if (auto err = kubectl_scale(c, a.kind, a.ns, a.name, a.replicas)) warn(c, {a.kind, a.ns, a.name}, err->reason, err->message, "kubectl");
  } else if (a.action == "kubectl.cordon" || a.action == "kubectl.uncordon") {
    if (auto err = kubectl_cordon(c, a.node, a.action == "kubectl.cordon")) warn(c, {"Node", "", a.node}, err->reason, err->message, "kubectl");
  } else if (a.action == "kubectl.drain") {
    if (auto err = kubectl_drain(c, a.node)) warn(c, {"Node", "", a.node}, err->reason, err->message, "kubectl");
  } else if (a.action == "kubectl.label") {
    if (auto err = kubectl_label(c, a.kind, a.ns, a.name, a.labels)) warn(c, {a.kind, a.ns, a.name}, err->reason, err->message, "kubectl");
  } else if (a.action == "kubectl.taint") {
    if (auto err = kubectl_taint(c, a.node, a.taints, a.remove_taints)) warn(c, {"Node", "", a.node}, err->reason, err->message, "kubectl");
  } else if (a.action == "eks.update-nodegroup-version") {
    if (auto err = c.controllers.nodegroup_update->update_version(a.nodegroup, nullptr, a.force))
      warn(c, nodegroup_ref(a.nodegroup), err->code, err->message, "eks");
  } else if (a.action == "terraform.apply") {
    for (const auto& change : a.node_group_changes) apply_terraform_node_group(c, change);
    for (const auto& sg : a.security_groups) {
      c.security_groups.put(security_group_from_spec(sg));
    }
    apply_terraform_addons(c, a.addons);
  }
}

}  // namespace eksim::ops
