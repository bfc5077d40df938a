#pragma once
// The simulated cluster as Kubernetes API objects (JSON, the field names and shapes of the real
// API), rendered from the model between simulation slices. Only the fields the model knows or
// that kubectl's printers read are filled; defaults the apiserver would add (dnsPolicy,
// terminationMessagePath, ...) are added where `kubectl describe` or `-o yaml` readers expect them.
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/cluster/cluster.hpp"
#include "sim/serve/time_base.hpp"

namespace eksim::serve {

// Objects of one resource type by key: "namespace/name", or "name" for cluster-scoped types.
using ObjectMap = std::map<std::string, nlohmann::json>;

struct RenderContext {
  const Cluster& cluster;
  TimeBase time;
};

nlohmann::json render_meta(const k8s::ObjectMeta& meta, const TimeBase& time);

void render_pods(const RenderContext& ctx, ObjectMap& out);
void render_nodes(const RenderContext& ctx, ObjectMap& out);
void render_leases(const RenderContext& ctx, ObjectMap& out);
void render_namespaces(const RenderContext& ctx, ObjectMap& out);
// ConfigMaps the API server holds (applied ones, the add-ons', aws-auth) and the
// kube-root-ca.crt that kube-controller-manager's root-ca-cert-publisher puts in every namespace.
void render_config_maps(const RenderContext& ctx, ObjectMap& out);
// Every namespace the API server lists, the built-in kube-node-lease and kube-public included.
std::vector<std::string> namespace_names(const Cluster& cluster);
// core/v1 Services and the addresses their allocator gave.
void render_services(const RenderContext& ctx, ObjectMap& out);
// core/v1 Events; events.k8s.io/v1 Events are the same series in the newer shape.
void render_events(const RenderContext& ctx, ObjectMap& core, ObjectMap& events_k8s_io);
void render_workloads(const RenderContext& ctx, ObjectMap& deployments, ObjectMap& replicasets, ObjectMap& daemonsets,
                      ObjectMap& jobs);
void render_karpenter(const RenderContext& ctx, ObjectMap& nodepools, ObjectMap& nodeclaims, ObjectMap& ec2nodeclasses,
                      ObjectMap& nodeclasses);

// The CustomResourceDefinitions the cluster's registry holds: EKS's own, Auto Mode's, the
// charts', and those created through the API.
void render_crds(const RenderContext& ctx, ObjectMap& out);
// The objects the API server keeps whole, by store type key; an object the models render under
// the same name wins.
void render_kept_objects(const RenderContext& ctx, std::map<std::string, ObjectMap>& out);

// The uid of an object the model keeps no uid for (NodePools, NodeClaims, node classes): stable
// per kind and name, so describe's event lookup by involvedObject.uid finds its events.
std::string uid_of(const std::string& kind, const std::string& name);

// The key of an object in its ObjectMap.
std::string object_key(const std::string& ns, const std::string& name);

}  // namespace eksim::serve
