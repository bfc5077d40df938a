#include "sim/scenario/controller_deployment.hpp"

#include <algorithm>
#include <vector>

#include "sim/engine/numbers.hpp"
#include "sim/scenario/autoscaler_config.hpp"
#include "sim/scenario/input_error.hpp"

namespace eksim::scenario {

namespace kp = autoscaling::karpenter;

std::string image_repository(const std::string& image) {
  std::string name = image.substr(0, image.find('@'));
  // A colon after the last slash starts the tag; one before it is a registry's port.
  const auto slash = name.rfind('/');
  const auto colon = name.rfind(':');
  if (colon != std::string::npos && (slash == std::string::npos || colon > slash)) name.resize(colon);
  return name;
}

std::string image_tag(const std::string& image) {
  const std::string name = image.substr(0, image.find('@'));
  const std::string repo = image_repository(image);
  return name.size() > repo.size() ? name.substr(repo.size() + 1) : "";
}

namespace {

// The environment variables Karpenter (core and AWS provider, 1.x) and its chart set: a name
// near one of these but not one of them is a typo Karpenter would silently ignore.
const std::vector<std::string>& karpenter_env_names() {
  static const std::vector<std::string> names{
      "BATCH_IDLE_DURATION", "BATCH_MAX_DURATION", "CLUSTER_CA_BUNDLE", "CLUSTER_ENDPOINT", "CLUSTER_NAME",
      "CPU_REQUESTS", "DISABLE_WEBHOOK", "EKS_CONTROL_PLANE", "ENABLE_PROFILING", "FEATURE_GATES",
      "HEALTH_PROBE_PORT", "INTERRUPTION_QUEUE", "ISOLATED_VPC", "KARPENTER_SERVICE", "KUBE_CLIENT_BURST",
      "KUBE_CLIENT_QPS", "KUBERNETES_MIN_VERSION", "LEADER_ELECT", "LOG_ERROR_OUTPUT_PATHS", "LOG_LEVEL",
      "LOG_OUTPUT_PATHS", "MEMORY_LIMIT", "METRICS_PORT", "MIN_VALUES_POLICY", "PREFERENCE_POLICY",
      "RESERVED_ENIS", "SYSTEM_NAMESPACE", "VM_MEMORY_OVERHEAD_PERCENT", "WEBHOOK_METRICS_PORT", "WEBHOOK_PORT",
  };
  return names;
}

// Karpenter's feature gates (pkg/operator/options FeatureGates, 1.8).
const std::vector<std::string>& karpenter_feature_gates() {
  static const std::vector<std::string> gates{"NodeOverlay", "NodeRepair", "ReservedCapacity", "SpotToSpotConsolidation",
                                              "StaticCapacity"};
  return gates;
}

// FEATURE_GATES as component-base's MapStringBool reads it ("A=true,B=false"), with its texts.
void read_feature_gates(const Value& at, const std::string& text, kp::Settings& s) {
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t comma = text.find(',', start);
    std::string pair = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    start = comma == std::string::npos ? text.size() : comma + 1;
    if (pair.empty()) continue;
    const auto eq = pair.find('=');
    if (eq == std::string::npos) at.fail("FEATURE_GATES: missing bool value for " + pair);
    const std::string key = pair.substr(0, eq), value = pair.substr(eq + 1);
    const bool on = value == "true" || value == "1" || value == "t" || value == "T" || value == "TRUE" || value == "True";
    const bool off = value == "false" || value == "0" || value == "f" || value == "F" || value == "FALSE" || value == "False";
    if (!on && !off) at.fail("FEATURE_GATES: invalid value of " + pair + ", err: strconv.ParseBool: parsing \"" + value + "\": invalid syntax");
    const auto& gates = karpenter_feature_gates();
    if (std::find(gates.begin(), gates.end(), key) == gates.end()) {
      const std::string hint = did_you_mean(key, gates);
      at.fail("FEATURE_GATES: unknown feature gate \"" + key + "\" (Karpenter ignores it)" +
              (hint.empty() ? "" : "; did you mean \"" + hint + "\"?"));
    }
    if (key == "SpotToSpotConsolidation") s.spot_to_spot_consolidation = on;
  }
}

engine::Duration read_duration(const Value& at, const std::string& name, const std::string& text, engine::Duration def) {
  auto d = engine::parse_duration(text);
  if (!d || d->us <= 0)
    at.fail(name + ": expected a positive Go duration such as \"" + engine::format_duration(def) + "\", got \"" + text +
            "\" (Karpenter would silently use " + engine::format_duration(def) + ")");
  return *d;
}

// One env entry of the controller container.
void read_env(const Value& at, const std::string& name, const std::string& value, kp::Settings& s) {
  if (name == "CLUSTER_NAME") {
    if (value.empty()) at.fail("CLUSTER_NAME: missing field, cluster-name (Karpenter's controller exits at start)");
    s.cluster_name = value;
  } else if (name == "INTERRUPTION_QUEUE") {
    s.interruption_queue = value;
  } else if (name == "BATCH_MAX_DURATION") {
    s.batch_max = read_duration(at, name, value, engine::Duration::seconds(10));
  } else if (name == "BATCH_IDLE_DURATION") {
    s.batch_idle = read_duration(at, name, value, engine::Duration::seconds(1));
  } else if (name == "FEATURE_GATES") {
    read_feature_gates(at, value, s);
  } else if (name == "LOG_LEVEL") {
    if (value != "debug" && value != "info" && value != "error")
      at.fail("LOG_LEVEL: expected one of debug, info, error, got \"" + value + "\"");
    s.log_level = value;
  } else if (name == "VM_MEMORY_OVERHEAD_PERCENT") {
    auto r = engine::parse_real(value);
    if (!r.ok() || r.value < 0 || r.value >= 1)
      at.fail("VM_MEMORY_OVERHEAD_PERCENT: expected a fraction in [0, 1) such as 0.075, got \"" + value + "\"");
    s.vm_memory_overhead_percent = r.value;
  } else if (name == "RESERVED_ENIS") {
    auto r = engine::parse_integer<int>(value);
    if (!r.ok() || r.value < 0) at.fail("RESERVED_ENIS: expected a whole number, got \"" + value + "\"");
    s.reserved_enis = r.value;
  } else if (name == "LEADER_ELECT") {
    if (value != "true" && value != "false") at.fail("LEADER_ELECT: expected true or false, got \"" + value + "\"");
    s.leader_elect = value == "true";
  } else {
    const auto& known = karpenter_env_names();
    if (std::find(known.begin(), known.end(), name) != known.end()) return;
    const std::string hint = did_you_mean(name, known);
    if (!hint.empty()) at.fail("unknown Karpenter setting \"" + name + "\" (the controller ignores it); did you mean \"" + hint + "\"?");
  }
}

}  // namespace

std::optional<kp::Settings> decode_karpenter_deployment(const k8s::Deployment& d, const Value& object) {
  const auto& containers = d.tmpl.spec.containers;
  for (std::size_t i = 0; i < containers.size(); ++i) {
    const k8s::Container& c = containers[i];
    if (image_repository(c.image) != kKarpenterControllerImage) continue;
    kp::Settings s;
    if (std::string tag = image_tag(c.image); !tag.empty() && tag != "latest") s.version = tag.front() == 'v' ? tag.substr(1) : tag;
    const YAML::Node env = object.node()["spec"]["template"]["spec"]["containers"][i]["env"];
    for (std::size_t j = 0; env && j < env.size(); ++j) {
      const YAML::Node entry = env[j];
      if (!entry["value"]) continue;  // valueFrom (SYSTEM_NAMESPACE, MEMORY_LIMIT): not a setting eksim reads
      read_env(Value(entry["value"], object.file_ptr()), entry["name"].Scalar(), entry["value"].Scalar(), s);
    }
    return s;
  }
  return std::nullopt;
}

std::optional<autoscaling::CasOptions> decode_cluster_autoscaler_deployment(const k8s::Deployment& d, const Value& object) {
  const auto& containers = d.tmpl.spec.containers;
  for (std::size_t i = 0; i < containers.size(); ++i) {
    if (image_repository(containers[i].image) != kClusterAutoscalerImage) continue;
    const YAML::Node c = object.node()["spec"]["template"]["spec"]["containers"][i];
    std::vector<Value> args;
    for (const char* key : {"command", "args"})
      for (std::size_t j = 0; c[key] && j < c[key].size(); ++j) args.emplace_back(c[key][j], object.file_ptr());
    return read_cluster_autoscaler_args(args);
  }
  return std::nullopt;
}

}  // namespace eksim::scenario
