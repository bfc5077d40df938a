// apiextensions.k8s.io/v1 CustomResourceDefinitions: the ones a cluster of this shape lists, for
// `kubectl get crd -o wide` (labs 001 and 002 check their Karpenter install with it).
//
// Which CRDs: lab 001's listing of a new EKS cluster (December 2025). EKS itself installs the
// network policy agent's (networking.k8s.aws) and the VPC resource controller's
// (vpcresources.k8s.aws) when it creates the cluster; Auto Mode adds its own (eks.amazonaws.com)
// and Karpenter's core two; the Karpenter chart installs its three; the GPU Operator chart its two
// and Node Feature Discovery's. All carry the cluster's (or the install's) creation time: eksim
// starts with everything installed.
#include <cctype>

#include "sim/serve/resources/render.hpp"

namespace eksim::serve {

using nlohmann::json;

namespace {

struct Crd {
  const char* plural;
  const char* group;
  const char* kind;
  const char* version;  // the served, stored version
  bool namespaced;
};

// EKS's own, in every cluster.
constexpr Crd kEks[] = {
    {"applicationnetworkpolicies", "networking.k8s.aws", "ApplicationNetworkPolicy", "v1alpha1", true},
    {"clusternetworkpolicies", "networking.k8s.aws", "ClusterNetworkPolicy", "v1alpha1", false},
    {"clusterpolicyendpoints", "networking.k8s.aws", "ClusterPolicyEndpoint", "v1alpha1", false},
    {"policyendpoints", "networking.k8s.aws", "PolicyEndpoint", "v1alpha1", true},
    {"cninodes", "vpcresources.k8s.aws", "CNINode", "v1alpha1", false},
    {"securitygrouppolicies", "vpcresources.k8s.aws", "SecurityGroupPolicy", "v1beta1", true},
};
// EKS Auto Mode's.
constexpr Crd kAutoMode[] = {
    {"cninodes", "eks.amazonaws.com", "CNINode", "v1alpha1", false},
    {"ingressclassparams", "eks.amazonaws.com", "IngressClassParams", "v1", false},
    {"nodeclaims", "karpenter.sh", "NodeClaim", "v1", false},
    {"nodeclasses", "eks.amazonaws.com", "NodeClass", "v1", false},
    {"nodediagnostics", "eks.amazonaws.com", "NodeDiagnostic", "v1alpha1", false},
    {"nodepools", "karpenter.sh", "NodePool", "v1", false},
    {"targetgroupbindings", "eks.amazonaws.com", "TargetGroupBinding", "v1", true},
};
// The Karpenter chart's.
constexpr Crd kKarpenter[] = {
    {"ec2nodeclasses", "karpenter.k8s.aws", "EC2NodeClass", "v1", false},
    {"nodeclaims", "karpenter.sh", "NodeClaim", "v1", false},
    {"nodepools", "karpenter.sh", "NodePool", "v1", false},
};
// The GPU Operator chart's, with its Node Feature Discovery subchart's.
constexpr Crd kGpuOperator[] = {
    {"clusterpolicies", "nvidia.com", "ClusterPolicy", "v1", false},
    {"nvidiadrivers", "nvidia.com", "NVIDIADriver", "v1alpha1", false},
    {"nodefeaturerules", "nfd.k8s-sigs.io", "NodeFeatureRule", "v1alpha1", false},
    {"nodefeatures", "nfd.k8s-sigs.io", "NodeFeature", "v1alpha1", true},
};

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

json crd_object(const Crd& c, const std::string& created) {
  const std::string name = std::string(c.plural) + "." + c.group;
  json names = {{"plural", c.plural}, {"singular", lower(c.kind)}, {"kind", c.kind}, {"listKind", std::string(c.kind) + "List"}};
  json conditions = json::array(
      {{{"type", "NamesAccepted"}, {"status", "True"}, {"reason", "NoConflicts"}, {"message", "no conflicts found"},
        {"lastTransitionTime", created}},
       {{"type", "Established"}, {"status", "True"}, {"reason", "InitialNamesAccepted"},
        {"message", "the initial names have been accepted"}, {"lastTransitionTime", created}}});
  return json{{"apiVersion", "apiextensions.k8s.io/v1"},
              {"kind", "CustomResourceDefinition"},
              {"metadata", {{"name", name}, {"uid", uid_of("CustomResourceDefinition", name)}, {"creationTimestamp", created}, {"generation", 1}}},
              {"spec",
               {{"group", c.group},
                {"names", names},
                {"scope", c.namespaced ? "Namespaced" : "Cluster"},
                {"versions", json::array({{{"name", c.version}, {"served", true}, {"storage", true}}})}}},
              {"status", {{"acceptedNames", names}, {"conditions", conditions}, {"storedVersions", json::array({c.version})}}}};
}

}  // namespace

void render_crds(const RenderContext& ctx, ObjectMap& out) {
  const ClusterSpec& spec = ctx.cluster.spec();
  const std::string created = ctx.time.at(engine::SimTime{});
  auto add = [&](const auto& list) {
    for (const Crd& c : list) out[std::string(c.plural) + "." + c.group] = crd_object(c, created);
  };
  add(kEks);
  if (spec.mode == "auto") add(kAutoMode);
  else if (spec.autoscaler.kind == "karpenter") add(kKarpenter);
  for (const auto& a : spec.addons)
    if (a.name == "gpuOperator") add(kGpuOperator);
}

}  // namespace eksim::serve
