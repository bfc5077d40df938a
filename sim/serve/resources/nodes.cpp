// core/v1 Node from the model's NodeRecord (plus the EC2 instance behind it for addresses), the
// node's Lease in kube-node-lease (`kubectl describe node` reads it) and the namespaces.
#include <fmt/format.h>

#include "models/k8s/api/resources.hpp"
#include "sim/serve/resources/render.hpp"

namespace eksim::serve {

using nlohmann::json;

namespace {

json resource_list(const k8s::ResourceList& l) {
  json out = json::object();
  for (auto [name, amount] : l.items()) out[name] = k8s::format_amount(name, amount);
  return out;
}

// The node image's kubelet and runtime versions for the cluster's minor (EKS AMIs' pairing).
std::string kubelet_version(const std::string& k8s_version) { return "v" + k8s_version + ".0-eks-sim"; }

}  // namespace

void render_nodes(const RenderContext& ctx, ObjectMap& out) {
  const Cluster& c = ctx.cluster;
  const TimeBase& tb = ctx.time;
  for (std::size_t i = 0; i < c.api.node_slots(); ++i) {
    const k8s::NodeRecord& rec = c.api.node(k8s::NodeId{static_cast<std::uint32_t>(i)});
    if (rec.deleted) continue;
    const k8s::Node& n = rec.node;
    json meta = render_meta(n.meta, tb);
    json spec = json::object();
    if (!n.provider_id.empty()) spec["providerID"] = n.provider_id;
    if (n.unschedulable) spec["unschedulable"] = true;
    if (!n.taints.empty()) {
      json taints = json::array();
      for (const auto& t : n.taints) {
        json tj = {{"key", t.key}, {"effect", t.effect}};
        if (!t.value.empty()) tj["value"] = t.value;
        taints.push_back(tj);
      }
      spec["taints"] = taints;
    }
    json addresses = json::array();
    const aws::Instance* inst = c.ec2.find(rec.instance_id);
    if (inst && !inst->private_ip.empty()) addresses.push_back({{"type", "InternalIP"}, {"address", inst->private_ip}});
    addresses.push_back({{"type", "Hostname"}, {"address", n.meta.name}});
    if (inst && !inst->private_dns_name.empty())
      addresses.push_back({{"type", "InternalDNS"}, {"address", inst->private_dns_name}});
    engine::SimTime registered = rec.registered_at.value_or(n.meta.creation_timestamp);
    // The kubelet reports status every 5 min when nothing changed (nodeStatusReportFrequency);
    // the heartbeat is the last such report, so a steady node is not re-sent to watchers.
    std::int64_t up = std::max<std::int64_t>(0, c.sim.now().us - registered.us);
    engine::SimTime heartbeat{registered.us + up - up % 300'000'000};
    auto cond = [&](const char* type, const char* status, const char* reason, const std::string& message,
                    engine::SimTime since) {
      return json{{"type", type},       {"status", status},   {"lastHeartbeatTime", tb.at(heartbeat)},
                  {"lastTransitionTime", tb.at(since)}, {"reason", reason}, {"message", message}};
    };
    json conds = json::array();
    conds.push_back(cond("MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available", registered));
    conds.push_back(cond("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure", registered));
    conds.push_back(cond("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available", registered));
    if (n.ready)
      conds.push_back(cond("Ready", "True", "KubeletReady", "kubelet is posting ready status", rec.ready_at.value_or(registered)));
    else
      conds.push_back(cond("Ready", "False", n.ready_reason.empty() ? "KubeletNotReady" : n.ready_reason.c_str(),
                           n.ready_message, registered));
    std::string arch = n.meta.labels.count(k8s::kLabelArch) ? n.meta.labels.at(k8s::kLabelArch) : "amd64";
    std::string os_image = "Amazon Linux 2023.9.20251117";
    std::string kernel = "6.12.46-66.121.amzn2023.x86_64";
    if (!rec.node_group.empty()) {
      auto* ng = const_cast<Cluster&>(c).eks.find(rec.node_group);  // find() has no const overload; read only
      if (ng && ng->spec.ami_type.rfind("AL2_", 0) == 0) {
        os_image = "Amazon Linux 2";
        kernel = "5.10.234-225.910.amzn2.x86_64";
      } else if (ng && ng->spec.ami_type.rfind("BOTTLEROCKET", 0) == 0) {
        os_image = "Bottlerocket OS 1.50.0 (aws-k8s-" + c.spec().kubernetes_version + ")";
      }
    } else if (c.spec().mode == "auto") {
      os_image = "Bottlerocket (EKS Auto, Standard) 2025.11.21 (aws-k8s-" + c.spec().kubernetes_version + ")";
    }
    json status = {{"capacity", resource_list(n.capacity)},
                   {"allocatable", resource_list(n.allocatable)},
                   {"conditions", conds},
                   {"addresses", addresses},
                   {"daemonEndpoints", {{"kubeletEndpoint", {{"Port", 10250}}}}},
                   {"nodeInfo",
                    {{"machineID", ""},
                     {"systemUUID", ""},
                     {"bootID", ""},
                     {"kernelVersion", kernel},
                     {"osImage", os_image},
                     {"containerRuntimeVersion", "containerd://2.1.4"},
                     {"kubeletVersion", kubelet_version(c.spec().kubernetes_version)},
                     {"kubeProxyVersion", ""},
                     {"operatingSystem", "linux"},
                     {"architecture", arch}}}};
    out[n.meta.name] = json{{"apiVersion", "v1"}, {"kind", "Node"}, {"metadata", meta}, {"spec", spec}, {"status", status}};
  }
}

void render_leases(const RenderContext& ctx, ObjectMap& out) {
  const Cluster& c = ctx.cluster;
  for (std::size_t i = 0; i < c.api.node_slots(); ++i) {
    const k8s::NodeRecord& rec = c.api.node(k8s::NodeId{static_cast<std::uint32_t>(i)});
    if (rec.deleted || !rec.registered_at) continue;
    const std::string& name = rec.node.meta.name;
    // The kubelet renews every 10 s; the renew time is the last 10 s boundary since registration,
    // so a lease changes (and is re-sent to watchers) no more often than that.
    std::int64_t since = c.sim.now().us - rec.registered_at->us;
    engine::SimTime renewed{rec.registered_at->us + since - since % 10'000'000};
    json meta = {{"name", name}, {"namespace", "kube-node-lease"}, {"uid", "lease-" + rec.node.meta.uid},
                 {"creationTimestamp", ctx.time.at(*rec.registered_at)},
                 {"ownerReferences", json::array({{{"apiVersion", "v1"}, {"kind", "Node"}, {"name", name}, {"uid", rec.node.meta.uid}}})}};
    out[object_key("kube-node-lease", name)] =
        json{{"apiVersion", "coordination.k8s.io/v1"},
             {"kind", "Lease"},
             {"metadata", meta},
             {"spec", {{"holderIdentity", name}, {"leaseDurationSeconds", 40}, {"renewTime", ctx.time.micro_at(renewed)}}}};
  }
}

std::vector<std::string> namespace_names(const Cluster& cluster) {
  std::vector<std::string> names = cluster.api.namespaces();
  for (const char* builtin : {"kube-node-lease", "kube-public"})
    if (std::find(names.begin(), names.end(), builtin) == names.end()) names.push_back(builtin);
  return names;
}

void render_namespaces(const RenderContext& ctx, ObjectMap& out) {
  for (const auto& name : namespace_names(ctx.cluster)) {
    json meta = {{"name", name},
                 {"uid", "ns-" + name},
                 {"creationTimestamp", ctx.time.at(engine::SimTime{})},
                 {"labels", {{"kubernetes.io/metadata.name", name}}}};
    out[name] = json{{"apiVersion", "v1"},
                     {"kind", "Namespace"},
                     {"metadata", meta},
                     {"spec", {{"finalizers", json::array({"kubernetes"})}}},
                     {"status", {{"phase", "Active"}}}};
  }
}

}  // namespace eksim::serve
