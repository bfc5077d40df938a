#include "sim/scenario/kubelet_user_data.hpp"

#include <algorithm>
#include <climits>

#include "sim/engine/numbers.hpp"
#include "sim/scenario/k8s_syntax.hpp"
#include "sim/scenario/toml_settings.hpp"
#include "sim/scenario/yaml_documents.hpp"

namespace eksim::scenario {

namespace {

bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (;;) {
    std::size_t at = s.find(sep, start);
    out.push_back(s.substr(start, at == std::string::npos ? std::string::npos : at - start));
    if (at == std::string::npos) return out;
    start = at + 1;
  }
}

// A label key's domain: "eks.amazonaws.com" for "eks.amazonaws.com/nodegroup", "" without one.
std::string label_domain(const std::string& key) {
  auto slash = key.find('/');
  return slash == std::string::npos ? "" : key.substr(0, slash);
}
bool in_domain(const std::string& domain, const std::string& parent) {
  return domain == parent || (domain.size() > parent.size() && domain.compare(domain.size() - parent.size() - 1,
                                                                             std::string::npos, "." + parent) == 0);
}

// The kubelet refuses to start with labels in the kubernetes.io and k8s.io namespaces other than
// the ones it sets itself or those under kubelet.kubernetes.io and node.kubernetes.io
// (pkg/kubelet/apis/well_known_labels.go KubeletLabels/KubeletLabelNamespaces).
bool kubelet_may_set(const std::string& key) {
  static const std::vector<std::string> allowed{
      "kubernetes.io/hostname", "topology.kubernetes.io/zone", "topology.kubernetes.io/region",
      "failure-domain.beta.kubernetes.io/zone", "failure-domain.beta.kubernetes.io/region",
      "node.kubernetes.io/instance-type", "beta.kubernetes.io/instance-type", "kubernetes.io/os",
      "beta.kubernetes.io/os", "kubernetes.io/arch", "beta.kubernetes.io/arch"};
  const std::string domain = label_domain(key);
  if (!in_domain(domain, "kubernetes.io") && !in_domain(domain, "k8s.io")) return true;
  for (const auto& a : allowed)
    if (key == a) return true;
  return in_domain(domain, "kubelet.kubernetes.io") || in_domain(domain, "node.kubernetes.io");
}

void check_label(const std::string& key, const std::string& value, const Value& at, const std::string& source) {
  const std::string name = key.substr(key.find('/') == std::string::npos ? 0 : key.find('/') + 1);
  const std::string domain = label_domain(key);
  if (name.empty() || name.size() > 63 || !syntax::qualified_name_part(name) ||
      (!domain.empty() && (domain.size() > 253 || !syntax::dns1123_subdomain(domain))))
    at.fail(source + ": invalid label key \"" + key + "\"");
  if (value.size() > 63 || !syntax::label_value(value))
    at.fail(source + ": invalid label value \"" + value + "\" for " + key);
  if (!kubelet_may_set(key))
    at.fail(source + ": unknown 'kubernetes.io' or 'k8s.io' labels specified with --node-labels: [" + key +
            "] (the kubelet refuses to start)");
}

// "value:Effect" or ":Effect"/"Effect"-less forms as the kubelet's taint parser takes them.
aws::NodegroupTaint taint_of(const std::string& key, const std::string& value_effect, const Value& at,
                             const std::string& source, const std::string& spec) {
  auto colon = value_effect.rfind(':');
  if (colon == std::string::npos) at.fail(source + ": invalid taint spec: " + spec);
  aws::NodegroupTaint t{key, value_effect.substr(0, colon), value_effect.substr(colon + 1)};
  if (t.effect != "NoSchedule" && t.effect != "PreferNoSchedule" && t.effect != "NoExecute")
    at.fail(source + ": invalid taint effect: " + t.effect + ", unsupported taint effect");
  if (key.empty() || !syntax::qualified_name_part(key.substr(key.find('/') == std::string::npos ? 0 : key.find('/') + 1)))
    at.fail(source + ": invalid taint spec: " + spec);
  return t;
}

void set_max_pods(std::int64_t n, const Value& at, const std::string& source, aws::KubeletUserData& out) {
  // KubeletConfiguration validation: "maxPods (--max-pods) must not be a negative number"; 0
  // leaves no room for any pod, which the VPC CNI's own pods already need.
  if (n <= 0 || n > INT32_MAX) at.fail(source + ": max pods must be an integer from 1 to " + std::to_string(INT32_MAX));
  out.max_pods = n;
}

}  // namespace

std::vector<std::string> shell_words(const std::string& text) {
  std::vector<std::string> out;
  std::string cur;
  bool in_word = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '\'') {
      in_word = true;
      for (++i; i < text.size() && text[i] != '\''; ++i) cur += text[i];
    } else if (c == '"') {
      in_word = true;
      for (++i; i < text.size() && text[i] != '"'; ++i) {
        if (text[i] == '\\' && i + 1 < text.size() && (text[i + 1] == '"' || text[i + 1] == '\\')) ++i;
        cur += text[i];
      }
    } else if (c == '\\' && i + 1 < text.size()) {
      in_word = true;
      if (text[i + 1] != '\n') cur += text[i + 1];
      ++i;
    } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      if (in_word) out.push_back(cur);
      cur.clear();
      in_word = false;
    } else {
      in_word = true;
      cur += c;
    }
  }
  if (in_word) out.push_back(cur);
  return out;
}

void read_kubelet_flags(const std::vector<std::string>& args, const Value& at, aws::KubeletUserData& out) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::string a = args[i];
    if (!starts_with(a, "-")) continue;
    a = a.substr(starts_with(a, "--") ? 2 : 1);
    std::string name = a.substr(0, a.find('='));
    std::string value;
    bool has_value = a.find('=') != std::string::npos;
    if (has_value) {
      value = a.substr(a.find('=') + 1);
    } else if ((name == "max-pods" || name == "node-labels" || name == "register-with-taints") && i + 1 < args.size()) {
      value = args[++i];  // pflag also takes "--flag value"
      has_value = true;
    }
    const std::string source = "--" + name;
    if (name == "max-pods") {
      auto n = engine::parse_integer<std::int64_t>(value);
      if (!has_value || !n.ok()) at.fail(source + ": invalid argument \"" + value + "\": an integer");
      set_max_pods(n.value, at, source, out);
    } else if (name == "node-labels") {
      for (const auto& kv : split(value, ',')) {
        if (kv.empty()) continue;
        auto eq = kv.find('=');
        if (eq == std::string::npos) at.fail(source + ": invalid argument \"" + value + "\": " + kv + " must be formatted as key=value");
        check_label(kv.substr(0, eq), kv.substr(eq + 1), at, source);
        out.node_labels[kv.substr(0, eq)] = kv.substr(eq + 1);
      }
    } else if (name == "register-with-taints") {
      for (const auto& spec : split(value, ',')) {
        if (spec.empty()) continue;
        auto eq = spec.find('=');
        auto colon = spec.rfind(':');
        std::string key = spec.substr(0, std::min(eq, colon));
        std::string rest = eq != std::string::npos && eq < colon ? spec.substr(eq + 1) : spec.substr(std::min(colon, spec.size()));
        out.taints.push_back(taint_of(key, rest, at, source, spec));
      }
    }
  }
}

void read_cloudinit_pre_nodeadm(const Value& v, aws::NodeGroupSpec& spec) {
  for (const auto& part : v.items()) {
    MapReader r(part, "cloudinit part");
    std::string type = r.get("content_type") ? r.get("content_type")->as_string() : "";
    Value content = r.require("content");
    r.allow({"filename", "merge_type"});
    r.finish();
    if (type != "application/node.eks.aws") continue;  // shell scripts etc. run but change nothing modelled
    // Positions inside the embedded document are relative to the string; report at the string.
    YAML::Node doc;
    try {
      doc = parse_yaml_document(content.as_string(), "NodeConfig content");
    } catch (const InputError& e) {
      std::string why = e.message();
      if (why.rfind("malformed YAML: ", 0) == 0) why = why.substr(16);
      content.fail("NodeConfig content is not valid YAML: " + why);
    }
    if (!doc.IsMap()) content.fail("NodeConfig content must be a mapping");
    const YAML::Node kind = doc["kind"];
    if (kind && (!kind.IsScalar() || kind.Scalar() != "NodeConfig"))
      content.fail("expected kind NodeConfig, got " + (kind.IsScalar() ? kind.Scalar() : Value(kind, content.file_ptr()).kind_name()));
    // spec.kubelet, each level a mapping when present (nodeadm's decoder refuses anything else).
    YAML::Node kubelet = doc;
    std::string path = "NodeConfig";
    for (const char* key : {"spec", "kubelet"}) {
      kubelet = YAML::Node(kubelet[key]);
      path += std::string(".") + key;
      if (kubelet && !kubelet.IsMap()) content.fail(path + " must be a mapping");
      if (!kubelet) break;
    }
    if (!kubelet) continue;
    // kubelet.config is merged into the kubelet's KubeletConfiguration; the kubelet decodes its
    // config file leniently, so keys it does not know are dropped (logged), not refused.
    const YAML::Node config = kubelet["config"];
    if (config && !config.IsMap()) content.fail("NodeConfig.spec.kubelet.config must be a mapping");
    const YAML::Node max_pods = config ? YAML::Node(config["maxPods"]) : YAML::Node();
    if (max_pods) {
      auto n = max_pods.IsScalar() ? engine::parse_integer<std::int32_t>(max_pods.Scalar()) : engine::ParsedNumber<std::int32_t>{};
      if (!n.ok()) content.fail("NodeConfig maxPods must be an integer from 1 to " + std::to_string(INT32_MAX));
      if (n.value <= 0) content.fail("NodeConfig maxPods must be positive");
      spec.kubelet.max_pods = n.value;
    }
    // kubelet.flags: extra kubelet command-line flags; a flag wins over the config file.
    const YAML::Node flags = kubelet["flags"];
    if (flags) {
      if (!flags.IsSequence()) content.fail("NodeConfig.spec.kubelet.flags must be a list of strings");
      std::vector<std::string> args;
      for (const auto& f : flags) {
        if (!f.IsScalar()) content.fail("NodeConfig.spec.kubelet.flags must be a list of strings");
        args.push_back(f.Scalar());
      }
      read_kubelet_flags(args, content, spec.kubelet);
    }
  }
}

namespace {

// Bottlerocket settings.kubernetes keys (the settings reference) that eksim accepts without
// modelling them.
const std::vector<std::string> kBottlerocketKubernetesKeys = {
    "max-pods", "node-labels", "node-taints", "cluster-name", "api-server", "cluster-certificate", "cluster-dns-ip",
    "cluster-domain", "kube-reserved", "system-reserved", "eviction-hard", "eviction-soft",
    "eviction-soft-grace-period", "eviction-max-pod-grace-period", "pod-infra-container-image", "standalone-mode",
    "authentication-mode", "bootstrap-token", "server-tls-bootstrap", "cloud-provider", "registry-qps",
    "registry-burst", "event-qps", "event-burst", "kube-api-qps", "kube-api-burst", "container-log-max-size",
    "container-log-max-files", "cpu-manager-policy", "cpu-manager-policy-options", "cpu-manager-reconcile-period",
    "topology-manager-scope", "topology-manager-policy", "pod-pids-limit", "image-gc-high-threshold-percent",
    "image-gc-low-threshold-percent", "provider-id", "log-level", "credential-providers", "static-pods",
    "hostname-override", "hostname-override-source", "shutdown-grace-period",
    "shutdown-grace-period-for-critical-pods", "memory-manager-policy", "memory-manager-reserved-memory",
    "reserved-cpus", "cpu-cfs-quota-enforced", "allowed-unsafe-sysctls", "server-certificate", "server-key",
    "seccomp-default", "device-ownership-from-security-context", "single-process-oom-kill", "ids-per-pod",
    "max-parallel-image-pulls", "serialize-image-pulls", "node-ip"};

void read_bottlerocket_settings(const Value& v, aws::NodeGroupSpec& spec) {
  std::vector<TomlEntry> entries;
  try {
    entries = parse_toml(v.as_string());
  } catch (const TomlError& e) {
    v.fail("Bottlerocket settings (TOML) line " + std::to_string(e.line) + ": " + e.what());
  }
  for (const auto& e : entries) {
    const std::string where = "Bottlerocket settings line " + std::to_string(e.line) + ": ";
    if (e.path.size() < 3 || e.path[0] != "settings" || e.path[1] != "kubernetes") continue;
    const std::string& key = e.path[2];
    if (std::find(kBottlerocketKubernetesKeys.begin(), kBottlerocketKubernetesKeys.end(), key) ==
        kBottlerocketKubernetesKeys.end()) {
      std::string hint = did_you_mean(key, kBottlerocketKubernetesKeys);
      v.fail(where + "unknown setting settings.kubernetes." + key +
             (hint.empty() ? "" : "; did you mean \"" + hint + "\"?") +
             " (Bottlerocket's settings API refuses it and the node does not boot)");
    }
    if (key == "max-pods") {
      if (e.path.size() != 3 || e.value.kind != TomlValue::Kind::Integer)
        v.fail(where + "settings.kubernetes.max-pods must be an integer");
      set_max_pods(e.value.integer, v, where + "settings.kubernetes.max-pods", spec.kubelet);
    } else if (key == "node-labels") {
      if (e.path.size() != 4 || e.value.kind != TomlValue::Kind::String)
        v.fail(where + "settings.kubernetes.node-labels takes \"key\" = \"value\" entries");
      check_label(e.path[3], e.value.text, v, where + "node-labels");
      spec.kubelet.node_labels[e.path[3]] = e.value.text;
    } else if (key == "node-taints") {
      // "key" = "value:Effect", or a list of them for several effects of one key.
      if (e.path.size() != 4) v.fail(where + "settings.kubernetes.node-taints takes \"key\" = [\"value:Effect\"] entries");
      std::vector<TomlValue> items = e.value.kind == TomlValue::Kind::Array ? e.value.items : std::vector<TomlValue>{e.value};
      for (const auto& item : items) {
        if (item.kind != TomlValue::Kind::String) v.fail(where + "a node taint is a \"value:Effect\" string");
        spec.kubelet.taints.push_back(taint_of(e.path[3], item.text, v, where + "node-taints", e.path[3] + "=" + item.text));
      }
    }
  }
}

}  // namespace

void read_bootstrap_extra_args(const Value& v, aws::NodeGroupSpec& spec) {
  const std::string text = v.as_string();  // a string for every AMI family, read or not
  const std::string& ami = spec.ami_type;
  if (starts_with(ami, "BOTTLEROCKET_")) {
    read_bottlerocket_settings(v, spec);
  } else if (starts_with(ami, "AL2_") && spec.enable_bootstrap_user_data) {
    std::vector<std::string> words = shell_words(text);
    for (std::size_t i = 0; i < words.size(); ++i) {
      std::string w = words[i];
      if (w == "--kubelet-extra-args" && i + 1 < words.size()) {
        read_kubelet_flags(shell_words(words[++i]), v, spec.kubelet);
      } else if (starts_with(w, "--kubelet-extra-args=")) {
        read_kubelet_flags(shell_words(w.substr(21)), v, spec.kubelet);
      }
    }
  }
  // AL2 without enable_bootstrap_user_data, AL2023, CUSTOM: the module's template does not put
  // bootstrap_extra_args in the user data, so nothing reaches the node. The real apply is silent.
  if (text.find_first_not_of(" \t\n") == std::string::npos) return;
  if (starts_with(ami, "AL2_") && !spec.enable_bootstrap_user_data) {
    spec.ignored_user_data.push_back(
        "bootstrap_extra_args reaches the node only with enable_bootstrap_user_data = true (the module then "
        "writes bootstrap.sh's call); without it EKS bootstraps the node and these arguments change nothing");
  } else if (starts_with(ami, "AL2023_")) {
    spec.ignored_user_data.push_back(
        "bootstrap_extra_args is not used for AL2023 AMIs: nodeadm reads a NodeConfig, so terraform-aws-modules/eks "
        "leaves these arguments out of the user data; put kubelet settings in cloudinit_pre_nodeadm (a NodeConfig "
        "with spec.kubelet.config or spec.kubelet.flags)");
  }
}

}  // namespace eksim::scenario
