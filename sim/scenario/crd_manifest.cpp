#include "sim/scenario/crd_manifest.hpp"

#include <regex>

namespace eksim::scenario {

using nlohmann::json;

namespace {

std::string scalar(const YAML::Node& n) { return n && n.IsScalar() ? n.Scalar() : ""; }

std::vector<std::string> strings(const YAML::Node& n) {
  std::vector<std::string> out;
  if (n && n.IsSequence())
    for (const auto& s : n)
      if (s.IsScalar()) out.push_back(s.Scalar());
  return out;
}

json plain_scalar(const std::string& s) {
  static const std::regex integer("[-+]?[0-9]+"), real("[-+]?(\\.[0-9]+|[0-9]+(\\.[0-9]*)?)([eE][-+]?[0-9]+)?");
  if (s == "true" || s == "True" || s == "TRUE") return true;
  if (s == "false" || s == "False" || s == "FALSE") return false;
  if (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL") return nullptr;
  if (std::regex_match(s, integer)) {
    try {
      return std::stoll(s);
    } catch (const std::exception&) {
      return s;
    }
  }
  if (std::regex_match(s, real)) return std::stod(s);
  return s;
}

}  // namespace

json yaml_to_json(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map: {
      json out = json::object();
      for (const auto& kv : node) out[kv.first.Scalar()] = yaml_to_json(kv.second);
      return out;
    }
    case YAML::NodeType::Sequence: {
      json out = json::array();
      for (const auto& item : node) out.push_back(yaml_to_json(item));
      return out;
    }
    case YAML::NodeType::Scalar:
      // A quoted scalar carries the "!" tag: always a string.
      return node.Tag() == "!" ? json(node.Scalar()) : plain_scalar(node.Scalar());
    default:
      return nullptr;
  }
}

k8s::CustomResourceDefinition decode_crd(const Value& v) {
  const YAML::Node& n = v.node();
  const std::string name = scalar(n["metadata"]["name"]);
  auto invalid = [&](const std::string& what) {
    v.fail("The CustomResourceDefinition \"" + name + "\" is invalid: " + what);
  };
  if (name.empty()) invalid("metadata.name: Required value: name or generateName is required");
  const YAML::Node spec = n["spec"], names = spec ? spec["names"] : YAML::Node();
  k8s::CustomResourceDefinition crd;
  crd.group = scalar(spec["group"]);
  crd.kind = scalar(names["kind"]);
  crd.plural = scalar(names["plural"]);
  crd.singular = scalar(names["singular"]);
  crd.list_kind = scalar(names["listKind"]);
  if (crd.list_kind.empty() && !crd.kind.empty()) crd.list_kind = crd.kind + "List";
  crd.short_names = strings(names["shortNames"]);
  crd.categories = strings(names["categories"]);
  const std::string scope = scalar(spec["scope"]);
  if (crd.group.empty()) invalid("spec.group: Required value");
  if (crd.plural.empty()) invalid("spec.names.plural: Required value");
  if (crd.kind.empty()) invalid("spec.names.kind: Required value");
  if (scope != "Namespaced" && scope != "Cluster")
    invalid("spec.scope: Unsupported value: \"" + scope + "\": supported values: \"Cluster\", \"Namespaced\"");
  if (name != crd.name()) invalid("metadata.name: Invalid value: \"" + name + "\": must be spec.names.plural+\".\"+spec.group");
  crd.namespaced = scope == "Namespaced";
  int storage = 0;
  if (spec["versions"] && spec["versions"].IsSequence())
    for (const auto& ver : spec["versions"]) {
      k8s::CrdVersion cv{scalar(ver["name"]), scalar(ver["served"]) == "true", scalar(ver["storage"]) == "true"};
      storage += cv.storage ? 1 : 0;
      crd.versions.push_back(std::move(cv));
    }
  if (crd.versions.empty()) invalid("spec.versions: Invalid value: []apiextensions.CustomResourceDefinitionVersion(nil): must have exactly one version marked as storage version");
  if (storage != 1) invalid("spec.versions: Invalid value: []apiextensions.CustomResourceDefinitionVersion{...}: must have exactly one version marked as storage version");
  if (crd.singular.empty()) {
    crd.singular = crd.kind;
    for (char& c : crd.singular) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  crd.object_json = yaml_to_json(n).dump();
  return crd;
}

}  // namespace eksim::scenario
