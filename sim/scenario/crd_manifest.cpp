#include "sim/scenario/crd_manifest.hpp"


namespace eksim::scenario {

using nlohmann::json;

namespace {

std::string scalar(const YAML::Node& n) { return n && n.IsScalar() ? n.Scalar() : ""; }

// n[key] when n is a mapping, else a null node: indexing a missing or scalar node throws in yaml-cpp.
YAML::Node field(const YAML::Node& n, const char* key) {
  if (!n || !n.IsMap()) return YAML::Node();
  const YAML::Node& map = n;
  return map[key];
}

// YAML 1.2's core schema forms of an integer and a float, checked without std::regex (whose
// recursion grows with the text: a long scalar would overflow the stack).
bool digits(const std::string& s, std::size_t& i) {
  const std::size_t start = i;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
  return i > start;
}
bool is_integer(const std::string& s) {
  std::size_t i = (!s.empty() && (s[0] == '-' || s[0] == '+')) ? 1 : 0;
  return digits(s, i) && i == s.size();
}
bool is_real(const std::string& s) {
  std::size_t i = (!s.empty() && (s[0] == '-' || s[0] == '+')) ? 1 : 0;
  const bool whole = digits(s, i);
  bool fraction = false;
  if (i < s.size() && s[i] == '.') {
    ++i;
    fraction = digits(s, i);
  }
  if (!whole && !fraction) return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
    if (!digits(s, i)) return false;
  }
  return i == s.size();
}

std::vector<std::string> strings(const YAML::Node& n) {
  std::vector<std::string> out;
  if (n && n.IsSequence())
    for (const auto& s : n)
      if (s.IsScalar()) out.push_back(s.Scalar());
  return out;
}

json plain_scalar(const std::string& s) {
  if (s == "true" || s == "True" || s == "TRUE") return true;
  if (s == "false" || s == "False" || s == "FALSE") return false;
  if (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL") return nullptr;
  if (is_integer(s)) {
    try {
      return std::stoll(s);
    } catch (const std::exception&) {
      return s;
    }
  }
  if (is_real(s)) {
    try {
      return std::stod(s);
    } catch (const std::exception&) {  // past a double's range: kept as written
      return s;
    }
  }
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
  const std::string name = scalar(field(field(n, "metadata"), "name"));
  auto invalid = [&](const std::string& what) {
    v.fail("The CustomResourceDefinition \"" + name + "\" is invalid: " + what);
  };
  if (name.empty()) invalid("metadata.name: Required value: name or generateName is required");
  const YAML::Node spec = field(n, "spec"), names = field(spec, "names");
  k8s::CustomResourceDefinition crd;
  crd.group = scalar(field(spec, "group"));
  crd.kind = scalar(field(names, "kind"));
  crd.plural = scalar(field(names, "plural"));
  crd.singular = scalar(field(names, "singular"));
  crd.list_kind = scalar(field(names, "listKind"));
  if (crd.list_kind.empty() && !crd.kind.empty()) crd.list_kind = crd.kind + "List";
  crd.short_names = strings(field(names, "shortNames"));
  crd.categories = strings(field(names, "categories"));
  const std::string scope = scalar(field(spec, "scope"));
  if (crd.group.empty()) invalid("spec.group: Required value");
  if (crd.plural.empty()) invalid("spec.names.plural: Required value");
  if (crd.kind.empty()) invalid("spec.names.kind: Required value");
  if (scope != "Namespaced" && scope != "Cluster")
    invalid("spec.scope: Unsupported value: \"" + scope + "\": supported values: \"Cluster\", \"Namespaced\"");
  if (name != crd.name()) invalid("metadata.name: Invalid value: \"" + name + "\": must be spec.names.plural+\".\"+spec.group");
  crd.namespaced = scope == "Namespaced";
  int storage = 0;
  if (field(spec, "versions") && field(spec, "versions").IsSequence())
    for (const auto& ver : field(spec, "versions")) {
      k8s::CrdVersion cv{scalar(field(ver, "name")), scalar(field(ver, "served")) == "true", scalar(field(ver, "storage")) == "true"};
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
