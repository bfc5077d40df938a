#include "models/k8s/addons/installed_crds.hpp"

#include <cctype>

namespace eksim::k8s {

namespace {

struct Crd {
  const char* plural;
  const char* group;
  const char* kind;
  const char* version;  // the served, stored version
  bool namespaced;
  std::vector<std::string> short_names = {};
  std::vector<std::string> categories = {};
};

std::vector<CustomResourceDefinition> make(std::initializer_list<Crd> list) {
  std::vector<CustomResourceDefinition> out;
  for (const Crd& c : list) {
    CustomResourceDefinition d;
    d.plural = c.plural;
    d.group = c.group;
    d.kind = c.kind;
    d.list_kind = d.kind + "List";
    d.singular = d.kind;
    for (char& ch : d.singular) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    d.namespaced = c.namespaced;
    d.short_names = c.short_names;
    d.categories = c.categories;
    d.versions = {{c.version, true, true}};
    out.push_back(std::move(d));
  }
  return out;
}

}  // namespace

std::vector<CustomResourceDefinition> eks_crds() {
  return make({
      {"applicationnetworkpolicies", "networking.k8s.aws", "ApplicationNetworkPolicy", "v1alpha1", true},
      {"clusternetworkpolicies", "networking.k8s.aws", "ClusterNetworkPolicy", "v1alpha1", false},
      {"clusterpolicyendpoints", "networking.k8s.aws", "ClusterPolicyEndpoint", "v1alpha1", false},
      {"policyendpoints", "networking.k8s.aws", "PolicyEndpoint", "v1alpha1", true},
      {"cninodes", "vpcresources.k8s.aws", "CNINode", "v1alpha1", false},
      {"securitygrouppolicies", "vpcresources.k8s.aws", "SecurityGroupPolicy", "v1beta1", true},
  });
}

std::vector<CustomResourceDefinition> auto_mode_crds() {
  return make({
      {"cninodes", "eks.amazonaws.com", "CNINode", "v1alpha1", false},
      {"ingressclassparams", "eks.amazonaws.com", "IngressClassParams", "v1", false},
      {"nodeclaims", "karpenter.sh", "NodeClaim", "v1", false, {}, {"karpenter"}},
      {"nodeclasses", "eks.amazonaws.com", "NodeClass", "v1", false},
      {"nodediagnostics", "eks.amazonaws.com", "NodeDiagnostic", "v1alpha1", false},
      {"nodepools", "karpenter.sh", "NodePool", "v1", false, {}, {"karpenter"}},
      {"targetgroupbindings", "eks.amazonaws.com", "TargetGroupBinding", "v1", true},
  });
}

std::vector<CustomResourceDefinition> karpenter_crds() {
  return make({
      {"ec2nodeclasses", "karpenter.k8s.aws", "EC2NodeClass", "v1", false, {"ec2nc", "ec2ncs"}, {"karpenter"}},
      {"nodeclaims", "karpenter.sh", "NodeClaim", "v1", false, {}, {"karpenter"}},
      {"nodepools", "karpenter.sh", "NodePool", "v1", false, {}, {"karpenter"}},
  });
}

std::vector<CustomResourceDefinition> gpu_operator_crds() {
  return make({
      {"clusterpolicies", "nvidia.com", "ClusterPolicy", "v1", false},
      {"nvidiadrivers", "nvidia.com", "NVIDIADriver", "v1alpha1", false},
      {"nodefeaturerules", "nfd.k8s-sigs.io", "NodeFeatureRule", "v1alpha1", false},
      {"nodefeatures", "nfd.k8s-sigs.io", "NodeFeature", "v1alpha1", true},
  });
}

void install_crds(CustomResources& registry, const std::vector<CustomResourceDefinition>& crds, engine::SimTime now) {
  for (CustomResourceDefinition crd : crds) {
    if (registry.find_crd(crd.name())) continue;
    crd.created = now;
    registry.put_crd(std::move(crd));
  }
}

}  // namespace eksim::k8s
