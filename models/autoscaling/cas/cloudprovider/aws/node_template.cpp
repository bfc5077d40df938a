#include "models/autoscaling/cas/cloudprovider/aws/node_template.hpp"

#include "models/k8s/api/quantity.hpp"
#include "models/k8s/api/resources.hpp"

namespace eksim::autoscaling::cas {

std::optional<std::string> go_split_second(std::string_view s, std::string_view sep) {
  auto first = s.find(sep);
  if (first == std::string_view::npos || sep.empty()) return std::nullopt;
  auto start = first + sep.size();
  auto next = s.find(sep, start);
  return std::string(s.substr(start, next == std::string_view::npos ? std::string_view::npos : next - start));
}

k8s::Labels extract_labels_from_tags(const Tags& tags) {
  k8s::Labels out;
  for (const auto& [k, v] : tags) {
    auto label = go_split_second(k, kNodeTemplateLabelPrefix);
    if (!label) label = go_split_second(k, "eks:");
    if (label && !label->empty()) out[*label] = v;
  }
  return out;
}

std::vector<k8s::Taint> extract_taints_from_tags(const Tags& tags) {
  std::vector<k8s::Taint> out;
  for (const auto& [k, v] : tags) {
    // Unanchored `(.*):(?:NoSchedule|NoExecute|PreferNoSchedule)` is "contains one of these".
    bool matches = v.find(":NoSchedule") != std::string::npos || v.find(":NoExecute") != std::string::npos ||
                   v.find(":PreferNoSchedule") != std::string::npos;
    if (!matches) continue;
    auto key = go_split_second(k, kNodeTemplateTaintPrefix);
    if (!key) continue;
    auto colon = v.find(':');
    out.push_back(k8s::Taint{*key, v.substr(0, colon), v.substr(colon + 1)});
  }
  return out;
}

std::map<std::string, std::int64_t> extract_resources_from_tags(const Tags& tags) {
  std::map<std::string, std::int64_t> out;
  for (const auto& [k, v] : tags) {
    auto name = go_split_second(k, kNodeTemplateResourcesPrefix);
    if (!name || name->empty()) continue;
    auto milli = k8s::parse_quantity(v);
    if (!milli) continue;
    out[*name] = k8s::amount_from_milli(*name, *milli);
  }
  return out;
}

k8s::Node build_node_from_template(const TemplateInput& in) {
  k8s::Node node;
  node.meta.name = in.node_name;
  const aws::InstanceType& t = *in.type;
  k8s::ResourceList cap;
  cap.set(k8s::kPods, 110);  // aws_manager.go: "TODO: get a real value."
  cap.set(k8s::kCpu, static_cast<std::int64_t>(t.vcpu) * 1000);
  cap.set(k8s::kNvidiaGpu, t.gpu.count);
  cap.set(k8s::kMemory, t.memory_mib * 1024 * 1024);
  for (const auto& [name, amount] : extract_resources_from_tags(in.tags)) cap.set(name, amount);
  node.capacity = cap;
  node.allocatable = cap;

  k8s::Labels& labels = node.meta.labels;
  labels[k8s::kLabelArch] = t.arch;
  labels[k8s::kLabelOs] = "linux";
  labels[k8s::kLabelInstanceType] = t.name;
  labels[k8s::kLabelRegion] = in.region;
  labels[k8s::kLabelZone] = in.zone;
  labels[kLabelEbsCsiZone] = in.zone;
  labels[k8s::kLabelHostname] = in.node_name;
  for (const auto& [k, v] : extract_labels_from_tags(in.tags)) labels[k] = v;
  node.taints = extract_taints_from_tags(in.tags);
  // Only for groups whose tags name an EKS node group and cluster (eks:nodegroup-name and
  // eks:cluster-name, which EKS puts on every managed node group's ASG).
  if (in.managed && labels.count("nodegroup-name") && labels.count("cluster-name")) {
    for (const auto& [k, v] : in.managed->labels) labels[k] = v;
    for (const auto& taint : in.managed->taints) node.taints.push_back(taint);
  }
  node.ready = true;
  return node;
}

}  // namespace eksim::autoscaling::cas
