#include "sim/scenario/autoscaler_config.hpp"

#include <algorithm>
#include <climits>
#include <memory>

#include "sim/scenario/cas_flags.hpp"
#include "sim/scenario/cluster_loader.hpp"
#include "sim/scenario/input_error.hpp"
#include "sim/scenario/k8s_syntax.hpp"

namespace eksim::scenario {

namespace {

enum class FlagKind { Duration, Integer, Fraction, String };

// Karpenter settings (Helm chart `settings.*` and controller env), plus eksim's knobs.
const std::vector<std::pair<std::string, FlagKind>>& karpenter_settings() {
  static const std::vector<std::pair<std::string, FlagKind>> flags{
      {"version", FlagKind::String},
      // Helm's --namespace for the chart: the getting-started guide's kube-system, or the
      // KARPENTER_NAMESPACE a lab chooses (lab 002: karpenter).
      {"namespace", FlagKind::String},
      {"batch-idle-duration", FlagKind::Duration},
      {"batch-max-duration", FlagKind::Duration},
      {"interruption-queue", FlagKind::String},
      {"feature-gates", FlagKind::String},
      {"reserved-enis", FlagKind::Integer},
      {"vm-memory-overhead-percent", FlagKind::Fraction},
  };
  return flags;
}

std::string kebab(const std::string& camel) {
  std::string out;
  for (char c : camel) {
    if (c >= 'A' && c <= 'Z') {
      out += '-';
      out += static_cast<char>(c - 'A' + 'a');
    } else {
      out += c;
    }
  }
  return out;
}

// A Karpenter setting's value checked for its kind and kept as text, as the setting would be written.
std::string setting_value(const Value& val, FlagKind kind) {
  switch (kind) {
    case FlagKind::Duration: return engine::format_duration(val.as_duration());
    case FlagKind::Integer: val.as_int_in(0, INT32_MAX, "a whole number"); break;
    case FlagKind::Fraction: val.as_double_in(0, 1, "a number"); break;
    case FlagKind::String: break;
  }
  return val.as_string();
}

// cluster-autoscaler flags by name, camelCase read as kebab-case, decoded into spec's options.
void read_cas_flags(const Value& body, AutoscalerSpec& spec) {
  CasFlagDecoder decoder;
  for (const auto& [raw, key, val] : body.entries("a flag name")) {
    const CasFlag* flag = find_cas_flag(kebab(raw));
    if (!flag) {
      std::string hint = did_you_mean(kebab(raw), cas_flag_names());
      key.fail("unknown cluster-autoscaler flag \"" + raw + "\"" + (hint.empty() ? "" : "; did you mean \"" + hint + "\"?"));
    }
    decoder.decode(*flag, val);
  }
  spec.cluster_autoscaler = std::make_shared<const autoscaling::CasOptions>(decoder.finish());
}

// Karpenter's settings by name, checked and kept as text for the controller.
void read_karpenter_settings(const Value& body, AutoscalerSpec& spec) {
  const auto& table = karpenter_settings();
  std::vector<std::string> names;
  for (const auto& [name, kind] : table) names.push_back(name);
  for (const auto& [raw, key, val] : body.entries("a flag name")) {
    std::string flag = kebab(raw);
    auto found = std::find_if(table.begin(), table.end(), [&](const auto& f) { return f.first == flag; });
    if (found == table.end()) {
      std::string hint = did_you_mean(flag, names);
      key.fail("unknown karpenter setting \"" + raw + "\"" + (hint.empty() ? "" : "; did you mean \"" + hint + "\"?"));
    }
    std::string value = setting_value(val, found->second);
    if (flag == "namespace" && !syntax::dns1123_label(value))
      val.fail("namespace must be a DNS-1123 label (lowercase letters, digits and '-', at most 63), got \"" + value + "\"");
    spec.flags[flag] = value;
  }
}

// The one body of `autoscaler:` (clusterAutoscaler or karpenter); spec.kind names it.
std::optional<Value> autoscaler_body(const Value& v, AutoscalerSpec& spec) {
  MapReader r(v, "autoscaler");
  std::optional<Value> body;
  for (const char* kind : {"clusterAutoscaler", "karpenter"}) {
    if (auto b = r.get(kind)) {
      if (body) v.fail("autoscaler takes one of clusterAutoscaler or karpenter, not both");
      body = b;
      spec.kind = kind;
    }
  }
  r.finish();
  if (!body) v.fail("autoscaler needs clusterAutoscaler or karpenter");
  return body;
}

}  // namespace

AutoscalerSpec read_autoscaler(const Value& v) {
  AutoscalerSpec spec;
  if (v.is_scalar()) {
    std::string s = v.as_string();
    if (s != "none") v.fail("autoscaler is none, {clusterAutoscaler: {...}} or {karpenter: {...}}");
    return spec;
  }
  std::optional<Value> body = autoscaler_body(v, spec);
  if (body->is_null()) return spec;
  const bool cas = spec.kind == "clusterAutoscaler";
  if (!body->is_map())
    body->fail(spec.kind + " takes a mapping of " + (cas ? "cluster-autoscaler flags" : "karpenter settings") + ", got " +
               body->kind_name());
  if (cas) read_cas_flags(*body, spec);
  else read_karpenter_settings(*body, spec);
  return spec;
}

namespace {

// cluster-autoscaler flags the autodiscover manifest and the chart pass that change nothing eksim
// models (logging, the provider, the kube client, leader election).
const std::vector<std::string>& ignored_cas_flags() {
  static const std::vector<std::string> flags{
      "v", "stderrthreshold", "logtostderr", "alsologtostderr", "log-file", "cloud-provider", "cloud-config",
      "aws-use-static-instance-list", "kubeconfig", "namespace", "leader-elect", "leader-elect-resource-name",
      "leader-elect-resource-namespace", "address", "write-status-configmap", "status-config-map-name",
      "cluster-name", "kube-client-qps", "kube-client-burst", "feature-gates", "emit-per-nodegroup-metrics"};
  return flags;
}

}  // namespace

autoscaling::CasOptions read_cluster_autoscaler_args(const std::vector<Value>& args) {
  CasFlagDecoder decoder;
  std::vector<std::string> names = ignored_cas_flags();
  for (const std::string& name : cas_flag_names()) names.push_back(name);
  for (const Value& arg : args) {
    const std::string text = arg.as_string();
    if (text.rfind("-", 0) != 0) continue;  // the program (./cluster-autoscaler)
    std::string body = text.substr(text.rfind("--", 0) == 0 ? 2 : 1);
    const auto eq = body.find('=');
    const std::string name = body.substr(0, eq);
    const CasFlag* flag = find_cas_flag(name);
    if (!flag) {
      const auto& ignored = ignored_cas_flags();
      if (std::find(ignored.begin(), ignored.end(), name) != ignored.end()) continue;
      std::string hint = did_you_mean(name, names);
      arg.fail("unknown flag: --" + name + " (cluster-autoscaler exits at start)" +
               (hint.empty() ? "" : "; did you mean \"--" + hint + "\"?"));
    }
    // A flag without `=` is a boolean switched on (pflag's NoOptDefVal). A repeated flag: the
    // last one counts, a list flag's (--nodes, --node-group-auto-discovery) add up.
    const std::string value = eq == std::string::npos ? "true" : body.substr(eq + 1);
    try {
      decoder.decode(*flag, Value(YAML::Node(value), arg.file_ptr()));
    } catch (const InputError& e) {
      arg.fail("--" + name + ": " + e.message());
    }
  }
  return decoder.finish();
}

}  // namespace eksim::scenario
