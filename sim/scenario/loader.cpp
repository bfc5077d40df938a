// Scenario files -> Scenario (CONTRACT.md, "Scenario files"). Every key is read through a
// MapReader, so an unknown key anywhere is an error with a did-you-mean; the one deliberate
// exception is the terraform module's silent handling of unknown node group keys, which is
// modelled when the scenario asks for module semantics.
#include <algorithm>
#include <filesystem>

#include "models/aws/instance_catalog.hpp"
#include "models/k8s/api/quantity.hpp"
#include "sim/scenario/autoscaling_actions.hpp"
#include "sim/scenario/cluster_loader.hpp"
#include "sim/scenario/input_limits.hpp"
#include "sim/scenario/instance_pick.hpp"
#include "sim/scenario/karpenter_manifest.hpp"
#include "sim/scenario/kubectl_kinds.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/scenario/scenario_size.hpp"
#include "sim/scenario/yaml_reader.hpp"

namespace eksim::scenario {

namespace {

std::string fix_ns(const std::string& ns_name, std::string* name_out) {
  auto slash = ns_name.find('/');
  if (slash == std::string::npos) {
    *name_out = ns_name;
    return "default";
  }
  *name_out = ns_name.substr(slash + 1);
  return ns_name.substr(0, slash);
}

const std::vector<std::string>& known_actions() {
  static const std::vector<std::string> actions{
      "kubectl.apply",    "kubectl.delete",         "eks.update-nodegroup-config", "eks.update-nodegroup-version",
      "terraform.apply",  "ec2.set-quota",          "sg.authorize-ingress",        "sg.revoke-ingress",
      "sg.authorize-egress", "sg.revoke-egress",
      "ec2.send-spot-instance-interruptions",
      "autoscaling.set-desired-capacity", "autoscaling.terminate-instance-in-auto-scaling-group",
      "kubectl.scale",    "kubectl.cordon",         "kubectl.uncordon",            "kubectl.drain",
      "kubectl.label",    "kubectl.taint",          "kubectl.create",              "eks.create-addon",
      "eks.delete-addon",
  };
  return actions;
}

// ec2.send-spot-instance-interruptions (after AWS FIS aws:ec2:send-spot-instance-interruptions):
// one target among nodegroup / nodePool / node, `instance: newest | oldest | N`, and
// durationBeforeInterruption (2m to 15m, FIS's bounds; default 2m).
void read_spot_interruption(const Value& v, MapReader& r, const ClusterSpec& cluster, Action& a) {
  int targets = 0;
  if (auto x = r.get("nodegroup")) {
    a.nodegroup = x->as_string();
    ++targets;
    std::vector<std::string> names;
    for (const auto& ng : cluster.node_groups) names.push_back(ng.name);
    if (std::find(names.begin(), names.end(), a.nodegroup) == names.end()) {
      std::string hint = did_you_mean(a.nodegroup, names);
      x->fail("unknown node group \"" + a.nodegroup + "\"" + (hint.empty() ? "" : "; did you mean \"" + hint + "\"?"));
    }
  }
  if (auto x = r.get("nodePool")) {
    a.node_pool = x->as_string();
    ++targets;
  }
  if (auto x = r.get("node")) {
    a.node = x->as_string();
    ++targets;
  }
  if (targets != 1) v.fail("ec2.send-spot-instance-interruptions needs exactly one of \"nodegroup\", \"nodePool\" or \"node\"");
  if (auto x = r.get("instance")) {
    a.instance = x->as_string();
    check_instance_pick(*x, a.instance);
  }
  if (auto x = r.get("durationBeforeInterruption")) {
    a.before_interruption = x->as_duration();
    if (a.before_interruption < engine::Duration::minutes(2) || a.before_interruption > engine::Duration::minutes(15))
      x->fail("durationBeforeInterruption must be between 2m and 15m, got " + engine::format_duration(a.before_interruption));
  }
}

void read_kubectl_apply(const Value& v, MapReader& r, FileLoader& files, Action& a) {
  bool has_manifest = r.has("manifest"), has_file = r.has("file");
  if (has_manifest == has_file) v.fail(a.action + " needs exactly one of \"manifest\" or \"file\"");
  if (has_manifest) {
    a.manifests = parse_manifests(*r.get("manifest"), files);
  } else {
    a.manifests = load_manifest_file(*r.get("file"), files);  // relative to this file
  }
}

void read_kubectl_label(MapReader& r, Action& a) {
  a.kind = r.require("kind").as_string();
  if (a.kind != "Node" && a.kind != "Pod") r.require("kind").fail("kubectl.label labels a Node or a Pod, got kind \"" + a.kind + "\"");
  a.name = r.require("name").as_string();
  a.ns = a.kind == "Pod" ? (r.get("namespace") ? r.get("namespace")->as_string() : "default") : "";
  Value labels = r.require("labels");
  (void)MapReader(labels, "labels");  // a mapping, or a located error
  for (const auto& [key, key_v, value] : labels.entries("a label key")) {
    (void)key_v;
    if (value.is_null()) a.labels[key] = std::nullopt;
    else a.labels[key] = value.as_string();
  }
}

void read_kubectl_taint(const Value& v, MapReader& r, Action& a) {
  a.node = r.require("node").as_string();
  if (auto t = r.get("taints")) {
    for (const auto& item : t->items()) {
      MapReader tr(item, "taint");
      k8s::Taint taint{tr.require("key").as_string(), tr.get("value") ? tr.get("value")->as_string() : "",
                       tr.require("effect").as_string()};
      if (taint.effect != k8s::kNoSchedule && taint.effect != k8s::kPreferNoSchedule && taint.effect != k8s::kNoExecute)
        tr.require("effect").fail("effect must be NoSchedule, PreferNoSchedule or NoExecute, got \"" + taint.effect + "\"");
      tr.finish();
      a.taints.push_back(taint);
    }
  }
  if (auto rm = r.get("remove")) a.remove_taints = rm->as_string_list();
  if (a.taints.empty() && a.remove_taints.empty()) v.fail("kubectl.taint needs \"taints\" and/or \"remove\"");
}

// kubectl.delete, kubectl.scale, kubectl.cordon, kubectl.uncordon, kubectl.drain.
void read_kubectl_object_action(MapReader& r, Action& a) {
  if (a.action == "kubectl.delete") {
    a.kind = r.require("kind").as_string();
    check_one_of(r.require("kind"), a.kind, deletable_kinds(), "kind for kubectl.delete");
    a.name = r.require("name").as_string();
    a.ns = r.get("namespace") ? r.get("namespace")->as_string() : "default";
    if (cluster_scoped_kind(a.kind)) a.ns.clear();
  } else if (a.action == "kubectl.scale") {
    a.kind = r.require("kind").as_string();
    if (a.kind != "Deployment") r.require("kind").fail("kubectl.scale scales a Deployment, got kind \"" + a.kind + "\"");
    a.name = r.require("name").as_string();
    a.ns = r.get("namespace") ? r.get("namespace")->as_string() : "default";
    a.replicas = static_cast<std::int32_t>(r.require("replicas").as_int_in(0, kMaxPods, "a replica count"));
  } else {  // kubectl.cordon, kubectl.uncordon, kubectl.drain
    a.node = r.require("node").as_string();
  }
}

void read_nodegroup_config_update(MapReader& r, Action& a) {
  a.nodegroup = r.require("nodegroup").as_string();
  MapReader s(r.require("scalingConfig"), "scalingConfig");
  if (auto x = s.get("minSize")) a.min_size = x->as_int_in(0, kMaxNodes, "a node count");
  if (auto x = s.get("maxSize")) a.max_size = x->as_int_in(0, kMaxNodes, "a node count");
  if (auto x = s.get("desiredSize")) a.desired_size = x->as_int_in(0, kMaxNodes, "a node count");
  s.finish();
}

// terraform.apply: node groups changed or created (over the cluster's current ones) and
// security groups.
void read_terraform_apply(const Value& v, MapReader& r, const ClusterSpec& cluster, Action& a) {
  if (auto ngs = r.get("nodeGroups")) {
    (void)MapReader(*ngs, "nodeGroups");  // a mapping, or a located error
    for (const auto& [name, key, body] : ngs->entries("a node group name")) {
      check_node_group_name(key, name);
      const NodeGroupSpec* base = nullptr;
      for (const auto& ng : cluster.node_groups)
        if (ng.name == name) base = &ng;
      NodeGroupChange change;
      change.where = body.where();
      change.spec = base ? *base : NodeGroupSpec{};
      change.spec.name = name;
      change.keys = read_node_group_into(body, cluster, change.spec, /*creating=*/base == nullptr);
      a.node_group_changes.push_back(std::move(change));
    }
  }
  if (auto sgs = r.get("securityGroups")) a.security_groups = read_security_groups(*sgs);
  // The module's helm_release add-ons switched on by this apply (lab 000's
  // `-var enable_gpu_operator=true` creates its gpu-operator release), as `cluster.addons`.
  if (auto addons = r.get("addons")) a.addons = read_addon_list(*addons);
  if (a.node_group_changes.empty() && a.security_groups.empty() && a.addons.empty())
    v.fail("terraform.apply needs \"nodeGroups\", \"securityGroups\" and/or \"addons\"");
}

// eks.create-addon / eks.delete-addon --addon-name NAME: the EKS add-ons eksim models.
void read_eks_addon_action(MapReader& r, Action& a) {
  Value name_v = r.require("addonName");
  a.name = name_v.as_string();
  check_one_of(name_v, a.name, {"vpc-cni", "kube-proxy", "coredns", "metrics-server", "eks-pod-identity-agent"},
               "EKS add-on");
}

Action read_action(const Value& v, FileLoader& files, const ClusterSpec& cluster) {
  MapReader r(v, "timeline action");
  Action a;
  a.where = v.where();
  a.at = engine::SimTime{} + r.require("at").as_duration();
  Value action_v = r.require("action");
  a.action = action_v.as_string();
  const auto& actions = known_actions();
  if (std::find(actions.begin(), actions.end(), a.action) == actions.end()) {
    std::string hint = did_you_mean(a.action, actions);
    action_v.fail("unknown action \"" + a.action + "\"" + (hint.empty() ? "" : "; did you mean \"" + hint + "\"?"));
  }
  if (a.action == "kubectl.apply" || a.action == "kubectl.create") {
    read_kubectl_apply(v, r, files, a);
  } else if (a.action == "eks.create-addon" || a.action == "eks.delete-addon") {
    read_eks_addon_action(r, a);
  } else if (a.action == "kubectl.label") {
    read_kubectl_label(r, a);
  } else if (a.action == "kubectl.taint") {
    read_kubectl_taint(v, r, a);
  } else if (a.action.rfind("kubectl.", 0) == 0) {
    read_kubectl_object_action(r, a);
  } else if (a.action == "eks.update-nodegroup-config") {
    read_nodegroup_config_update(r, a);
  } else if (a.action == "eks.update-nodegroup-version") {
    a.nodegroup = r.require("nodegroup").as_string();
    if (auto x = r.get("force")) a.force = x->as_bool();
  } else if (a.action == "terraform.apply") {
    read_terraform_apply(v, r, cluster, a);
  } else if (a.action == "ec2.set-quota") {
    if (!r.has("onDemand") && !r.has("spot")) v.fail("ec2.set-quota needs \"onDemand\" and/or \"spot\"");
    a.quotas = read_quotas(v, r);
  } else if (a.action == "ec2.send-spot-instance-interruptions") {
    read_spot_interruption(v, r, cluster, a);
  } else if (a.action.rfind("autoscaling.", 0) == 0) {
    read_autoscaling_action(v, r, a);
  } else {  // sg.authorize-ingress, sg.revoke-ingress, sg.authorize-egress, sg.revoke-egress
    Value group_v = r.require("group");
    a.group = group_v.as_string();
    check_security_group_exists(cluster, a.group, group_v);
    a.rule = read_sg_rule(r.require("rule"), cluster);
  }
  r.finish();
  return a;
}

// `by`/`at`: a time within the run (an expectation past its end could never be judged).
std::optional<engine::SimTime> opt_time(MapReader& r, const char* key, engine::Duration run_duration) {
  auto v = r.get(key);
  if (!v) return std::nullopt;
  engine::Duration d = v->as_duration();
  if (d.us > run_duration.us)
    v->fail(std::string("\"") + key + "\" " + engine::format_duration(d) + " is after the end of the run (duration " +
            engine::format_duration(run_duration) + ")");
  return engine::SimTime{} + d;
}

// " by 5m" / " at 5m" / "" for generated descriptions.
std::string time_suffix(const Expectation& e) {
  if (e.by) return " by " + engine::format_duration(engine::Duration{e.by->us});
  if (e.at) return " at " + engine::format_duration(engine::Duration{e.at->us});
  return "";
}

void read_counts(MapReader& r, Expectation& e) {
  if (auto c = r.get("count")) e.count = c->as_non_negative();
  if (auto c = r.get("atLeast")) e.min_count = c->as_non_negative();
  if (auto c = r.get("atMost")) e.max_count = c->as_non_negative();
}

// Count forms that contradict each other load as errors, not as an expectation that can never
// hold (or always holds).
void check_count_forms(const Value& v, const Expectation& e) {
  if (e.absent && (e.count || e.min_count || e.max_count))
    v.fail("\"absent: true\" means none; it takes no count, atLeast or atMost");
  if (e.count && (e.min_count || e.max_count)) v.fail("\"count\" is exact; it takes no atLeast or atMost");
  if (e.min_count && e.max_count && *e.min_count > *e.max_count)
    v.fail("atLeast " + std::to_string(*e.min_count) + " is more than atMost " + std::to_string(*e.max_count));
}

// The keys every expectation about events or hints shares: object, messageContains, absent, counts.
void read_record_match(MapReader& r, Expectation& e) {
  if (auto x = r.get("object")) e.object = x->as_string();
  if (auto x = r.get("messageContains")) e.message_contains = x->as_string();
  if (auto x = r.get("absent")) e.absent = x->as_bool();
  read_counts(r, e);
}

std::string record_description(const Expectation& e, const std::string& what) {
  return std::string(e.absent ? "no " : "") + what + (e.object.empty() ? "" : " on " + e.object) +
         (e.message_contains.empty() ? "" : " containing \"" + e.message_contains + "\"");
}

void read_pod_expectation(const Value& v, MapReader& r, Expectation& e) {
  e.ns = fix_ns(r.require("pod").as_string(), &e.name);
  if (auto p = r.get("phase")) {
    e.phase = p->as_string();
    static const std::vector<std::string> phases{"Pending", "Running", "Succeeded", "Failed"};
    if (std::find(phases.begin(), phases.end(), e.phase) == phases.end())
      p->fail("unknown pod phase \"" + e.phase + "\" (Pending, Running, Succeeded, Failed)");
  }
  if (auto p = r.get("reason")) e.reason = p->as_string();
  if (e.phase.empty() && e.reason.empty()) v.fail("a pod expectation needs \"phase\" and/or \"reason\"");
  if (e.description.empty())
    e.description = "pod " + e.ns + "/" + e.name + " " + (e.phase.empty() ? e.reason : e.phase) +
                    (e.by ? " by " + engine::format_duration(e.by->us ? engine::Duration{e.by->us} : engine::Duration{}) : "") +
                    (e.at ? " at " + engine::format_duration(engine::Duration{e.at->us}) : "");
}

void read_event_expectation(const Value& v, MapReader& r, Expectation& e) {
  Value reason_v = r.require("event");
  e.event_reason = reason_v.as_string();
  // These were events once; they are eksim's remarks now and no event ever carries them.
  static const std::vector<std::string> hint_kinds{"IgnoredNodeGroupKey", "DesiredSizeIgnored",
                                                   "NoSpotInstanceTarget", "NoInstanceTarget"};
  if (std::find(hint_kinds.begin(), hint_kinds.end(), e.event_reason) != hint_kinds.end())
    reason_v.fail(e.event_reason + " is an eksim hint, not an event (the real cluster and AWS stay silent); "
                  "expect it as {hint: " + e.event_reason + "}");
  if (auto x = r.get("type")) {
    e.event_type = x->as_string();
    if (e.event_type != "Normal" && e.event_type != "Warning") x->fail("event type is Normal or Warning");
  }
  read_record_match(r, e);
  check_count_forms(v, e);
  if (auto x = r.get("storedCount")) {
    e.stored_count = x->as_non_negative();
    if (e.count || e.min_count || e.max_count || e.absent)
      x->fail("storedCount is the count of the Event object; it takes no count, atLeast, atMost or absent");
  }
  if (e.description.empty())
    e.description = record_description(e, "event " + e.event_reason) +
                    (e.stored_count ? " stored with count " + std::to_string(*e.stored_count) + time_suffix(e) : "");
}

// eksim's own remarks (the HINTS section), matched like events: kind, object, message.
void read_hint_expectation(const Value& v, MapReader& r, Expectation& e) {
  e.hint_kind = r.require("hint").as_string();
  read_record_match(r, e);
  check_count_forms(v, e);
  if (e.description.empty()) e.description = record_description(e, "hint " + e.hint_kind);
}

// Resource amounts as `kubectl describe node` prints them (any resource name, pods included;
// ephemeral-storage in Ki, ...); `what` names the key for messages.
void read_amounts(const Value& x, const char* what, k8s::ResourceList& out) {
  for (const auto& [res, text] : x.as_string_map()) {
    auto milli = k8s::parse_quantity(text);
    if (!milli) x.fail("invalid quantity \"" + text + "\" for " + what + " " + res);
    out.set(res, k8s::amount_from_milli(res, *milli));
  }
}

void read_nodes_expectation(const Value& v, MapReader& r, Expectation& e) {
  MapReader sel(r.require("nodes"), "nodes selector");
  if (auto x = sel.get("nodeGroup")) e.node_group = x->as_string();
  if (auto x = sel.get("nodePool")) e.node_pool = x->as_string();
  if (auto x = sel.get("instanceType")) e.instance_type = x->as_string();
  if (auto x = sel.get("zone")) e.zone = x->as_string();
  if (auto x = sel.get("ready")) e.ready_only = x->as_bool();
  if (auto x = sel.get("allocatable")) read_amounts(*x, "allocatable", e.allocatable);
  if (auto x = sel.get("capacity")) read_amounts(*x, "capacity", e.capacity);
  // "Allocated resources" of `kubectl describe node`: the requests of its non-terminated pods.
  if (auto x = sel.get("allocated")) read_amounts(*x, "allocated", e.allocated);
  if (auto x = sel.get("labels")) e.labels = x->as_string_map();
  if (auto x = sel.get("taints"))
    for (const auto& t : x->items()) {
      std::string text = t.as_string();
      if (text.find(':') == std::string::npos) t.fail("a taint is written key=value:Effect (or key:Effect)");
      e.taints.push_back(text);
    }
  sel.finish();
  read_counts(r, e);
  if (!e.count && !e.min_count && !e.max_count) v.fail("a nodes expectation needs count, atLeast or atMost");
  check_count_forms(v, e);
  if (e.description.empty())
    e.description = "nodes" + (e.node_group.empty() ? "" : " in node group " + e.node_group) +
                    (e.node_pool.empty() ? "" : " in node pool " + e.node_pool);
}

// A nodeGroup expectation is about one of: scaling activities, EKS updates, the desired size or a
// health issue.
bool node_group_about_update(const Expectation& e) {
  return !e.update_status.empty() || !e.update_type.empty() || !e.error_contains.empty();
}

void check_node_group_expectation(const Value& v, const Expectation& e) {
  const bool about_update = node_group_about_update(e);
  const bool about_activity = !e.activity_status.empty() || !e.activity_contains.empty();
  if (about_update && about_activity)
    v.fail("a nodeGroup expectation is about scaling activities (activity, statusMessageContains) or EKS updates "
           "(update, updateType, errorContains), not both");
  if (!e.health_issue.empty() && (about_update || about_activity || e.desired))
    v.fail("a nodeGroup health expectation stands alone (no activity, desired or update keys)");
  if (!about_activity && !e.desired && !about_update && e.health_issue.empty())
    v.fail("a nodeGroup expectation needs activity, statusMessageContains, desired, update, updateType, errorContains or health");
}

std::string node_group_description(const Expectation& e) {
  if (node_group_about_update(e))
    return "node group " + e.node_group + " update " + (e.update_type.empty() ? std::string() : e.update_type + " ") +
           (e.update_status.empty() ? std::string("any") : e.update_status) +
           (e.error_contains.empty() ? "" : " with \"" + e.error_contains + "\"");
  if (e.desired) return "node group " + e.node_group + " desired " + std::to_string(*e.desired);
  if (!e.health_issue.empty())
    return "node group " + e.node_group + (e.absent ? " without health issue " : " health issue ") + e.health_issue;
  return "node group " + e.node_group + " activity " + e.activity_status;
}

void read_node_group_expectation(const Value& v, MapReader& r, Expectation& e) {
  e.node_group = r.require("nodeGroup").as_string();
  if (auto x = r.get("activity")) {
    e.activity_status = x->as_string();
    check_one_of(*x, e.activity_status, {"InProgress", "Successful", "Failed"}, "scaling activity status");
  }
  if (auto x = r.get("statusMessageContains")) e.activity_contains = x->as_string();
  if (auto x = r.get("desired")) e.desired = x->as_non_negative();
  if (auto x = r.get("update")) {
    e.update_status = x->as_string();
    static const std::vector<std::string> statuses{"InProgress", "Successful", "Failed", "Cancelled"};
    if (std::find(statuses.begin(), statuses.end(), e.update_status) == statuses.end())
      x->fail("unknown update status \"" + e.update_status + "\" (InProgress, Successful, Failed, Cancelled)");
  }
  if (auto x = r.get("updateType")) {
    e.update_type = x->as_string();
    check_one_of(*x, e.update_type, {"ConfigUpdate", "VersionUpdate"}, "node group update type");
  }
  if (auto x = r.get("errorContains")) e.error_contains = x->as_string();
  if (auto x = r.get("health")) e.health_issue = x->as_string();
  if (auto x = r.get("absent")) e.absent = x->as_bool();
  read_counts(r, e);
  check_count_forms(v, e);
  check_node_group_expectation(v, e);
  if (e.description.empty()) e.description = node_group_description(e);
}

// DescribeSubnets AvailableIpAddressCount at the end of the run.
void read_subnet_expectation(const Value& v, MapReader& r, Expectation& e) {
  e.subnet = r.require("subnet").as_string();
  e.available_addresses = r.require("availableAddresses").as_non_negative();
  if (e.by || e.at) v.fail("a subnet expectation is judged at the end of the run; it takes no \"by\" or \"at\"");
  if (e.description.empty())
    e.description = "subnet " + e.subnet + " has " + std::to_string(*e.available_addresses) + " free addresses at the end";
}

// A Karpenter object's status condition (kubectl get nodepool/ec2nodeclass -o yaml), or its AGE
// as `kubectl get` prints it, at the end, `at` or (a condition) `by` a time.
void read_condition_expectation(const Value& v, MapReader& r, Expectation& e) {
  e.name = r.require(e.subject).as_string();
  if (auto x = r.get("age")) e.age = x->as_duration();
  if (auto c = r.get("condition")) {
    if (e.age) c->fail("a " + e.subject + " expectation is about a condition or the object's age, not both");
    e.condition_type = c->as_string();
    Value st = r.require("status");
    e.condition_status = st.as_string();
    if (e.condition_status != "True" && e.condition_status != "False" && e.condition_status != "Unknown")
      st.fail("a condition status is \"True\", \"False\" or \"Unknown\"");
    if (auto x = r.get("reason")) e.condition_reason = x->as_string();
    if (auto x = r.get("messageContains")) e.message_contains = x->as_string();
  } else if (!e.age) {
    v.fail("a " + e.subject + " expectation needs \"condition\" (with \"status\") or \"age\"");
  } else if (e.by) {
    v.fail("an age is judged at one time: \"at\" (or the end of the run), not \"by\"");
  }
  if (e.description.empty())
    e.description = e.age ? e.subject + " " + e.name + " age " + engine::human_duration(*e.age) + time_suffix(e)
                          : e.subject + " " + e.name + " " + e.condition_type + "=" + e.condition_status +
                                (e.condition_reason.empty() ? "" : " (" + e.condition_reason + ")") + time_suffix(e);
}

// A container's log (`kubectl logs [--previous] POD [-c CONTAINER]`) at the end of the run.
void read_log_expectation(const Value& v, MapReader& r, Expectation& e) {
  e.ns = fix_ns(r.require("log").as_string(), &e.name);
  if (auto x = r.get("container")) e.log_container = x->as_string();
  if (auto x = r.get("previous")) e.log_previous = x->as_bool();
  e.message_contains = r.require("contains").as_string();
  if (auto x = r.get("absent")) e.absent = x->as_bool();
  if (e.by || e.at) v.fail("a log expectation reads the log at the end of the run; it takes no \"by\" or \"at\"");
  if (e.description.empty())
    e.description = std::string(e.log_previous ? "previous log" : "log") + " of pod " + e.ns + "/" + e.name +
                    (e.log_container.empty() ? "" : " container " + e.log_container) +
                    (e.absent ? " does not contain \"" : " contains \"") + e.message_contains + "\"";
}

void read_job_expectation(const Value& v, MapReader& r, Expectation& e) {
  e.ns = fix_ns(r.require("job").as_string(), &e.name);
  e.job_status = r.require("status").as_string();
  check_one_of(r.require("status"), e.job_status, {"Pending", "Running", "Complete", "Failed"}, "job status");
  if (e.at) v.fail("a job expectation is judged at the end of the run or \"by\" a time; it takes no \"at\"");
  if (e.description.empty()) e.description = "job " + e.ns + "/" + e.name + " " + e.job_status;
}

void read_cost_expectation(const Value& v, MapReader& r, Expectation& e) {
  MapReader c(r.require("cost"), "cost bounds");
  if (auto x = c.get("atMost")) e.max_usd = x->as_double();
  if (auto x = c.get("atLeast")) e.min_usd = x->as_double();
  c.finish();
  if (!e.max_usd && !e.min_usd) v.fail("a cost expectation needs atMost and/or atLeast");
  if (e.by || e.at) v.fail("a cost expectation is judged at the end of the run; it takes no \"by\" or \"at\"");
  if (e.description.empty()) e.description = "total cost within bounds";
}

const std::vector<std::string>& expectation_subjects() {
  static const std::vector<std::string> subjects{"pod", "event", "hint", "nodes", "nodeGroup", "job", "cost", "subnet",
                                                 "nodePool", "nodeClass", "log"};
  return subjects;
}

// The one subject key an expectation names, or a located error (with a did-you-mean when a key
// is a typo of one).
std::string expectation_subject(const Value& v, MapReader& r) {
  const auto& subjects = expectation_subjects();
  std::string subject;
  for (const auto& s : subjects)
    if (r.has(s)) {
      if (!subject.empty()) v.fail("an expectation names one subject, got both \"" + subject + "\" and \"" + s + "\"");
      subject = s;
    }
  if (!subject.empty()) return subject;
  for (const auto& [key, k, value] : v.entries("a field name")) {
    std::string hint = did_you_mean(key, subjects);
    if (!hint.empty()) k.fail("unknown key \"" + key + "\" in expectation; did you mean \"" + hint + "\"?");
  }
  v.fail("an expectation needs one of: pod, event, hint, nodes, nodeGroup, job, cost, subnet, nodePool, nodeClass, log");
}

Expectation read_expectation(const Value& v, engine::Duration run_duration) {
  MapReader r(v, "expectation");
  Expectation e;
  e.where = v.where();
  e.subject = expectation_subject(v, r);
  if (auto d = r.get("description")) e.description = d->as_string();
  e.by = opt_time(r, "by", run_duration);
  e.at = opt_time(r, "at", run_duration);
  if (e.by && e.at) v.fail("an expectation takes \"by\" or \"at\", not both");
  if (e.subject == "pod") read_pod_expectation(v, r, e);
  else if (e.subject == "event") read_event_expectation(v, r, e);
  else if (e.subject == "hint") read_hint_expectation(v, r, e);
  else if (e.subject == "log") read_log_expectation(v, r, e);
  else if (e.subject == "nodes") read_nodes_expectation(v, r, e);
  else if (e.subject == "nodeGroup") read_node_group_expectation(v, r, e);
  else if (e.subject == "subnet") read_subnet_expectation(v, r, e);
  else if (e.subject == "nodePool" || e.subject == "nodeClass") read_condition_expectation(v, r, e);
  else if (e.subject == "job") read_job_expectation(v, r, e);
  else read_cost_expectation(v, r, e);
  r.finish();
  return e;
}

}  // namespace

namespace {

Scenario load_scenario_root(const Value& root, FileLoader& files, const std::string& path);

}  // namespace

Scenario load_scenario(const std::string& path) {
  FileLoader files;
  std::string canonical = std::filesystem::path(path).lexically_normal().string();
  auto docs = files.load_documents(canonical, std::nullopt);
  if (docs.empty()) throw InputError(Location{canonical, 1, 1}, "empty scenario file");
  if (docs.size() > 1) docs[1].fail("a scenario file holds one document");
  return load_scenario_root(docs[0], files, canonical);
}

Scenario load_scenario(const YAML::Node& root, const std::string& file) {
  FileLoader files;
  std::string canonical = std::filesystem::path(file).lexically_normal().string();
  if (!root || root.IsNull()) throw InputError(Location{canonical, 1, 1}, "empty scenario file");
  return load_scenario_root(Value(root, std::make_shared<const std::string>(canonical)), files, canonical);
}

namespace {

Scenario load_scenario_root(const Value& root, FileLoader& files, const std::string& canonical) {
  const std::string& path = canonical;
  files.push(std::filesystem::weakly_canonical(canonical).string());
  MapReader r(root, "scenario");
  Scenario s;
  s.file = canonical;
  Value api = r.require("apiVersion");
  if (api.as_string() != "eksim/v1") api.fail("apiVersion must be \"eksim/v1\", got \"" + api.as_string() + "\"");
  Value kind = r.require("kind");
  if (kind.as_string() != "Scenario") kind.fail("kind must be \"Scenario\", got \"" + kind.as_string() + "\"");
  if (auto meta = r.get("metadata")) {
    MapReader m(*meta, "metadata");
    s.name = m.require("name").as_string();
    if (auto d = m.get("description")) s.description = d->as_string();
    m.allow({"labels", "annotations"});
    m.finish();
  } else {
    s.name = std::filesystem::path(path).stem().string();
  }
  if (auto seed = r.get("seed")) s.seed = static_cast<std::uint64_t>(seed->as_non_negative("a non-negative seed"));
  if (auto d = r.get("duration")) {
    s.duration = d->as_duration();
    if (s.duration.us <= 0) d->fail("duration must be positive");  // at most a year: as_duration
  }
  s.cluster = read_cluster(r.require("cluster"), aws::InstanceCatalog::builtin());
  if (auto m = r.get("manifests")) s.manifests = parse_manifests(*m, files);
  if (auto t = r.get("timeline"))
    for (const auto& item : t->items()) s.timeline.push_back(read_action(item, files, s.cluster));
  std::stable_sort(s.timeline.begin(), s.timeline.end(), [](const Action& a, const Action& b) { return a.at < b.at; });
  if (auto w = r.get("workloads")) s.workloads = read_workloads(*w, files);
  check_pods_at_once(s);
  if (auto e = r.get("expect"))
    for (const auto& item : e->items()) s.expectations.push_back(read_expectation(item, s.duration));
  r.finish();
  return s;
}

}  // namespace

}  // namespace eksim::scenario
