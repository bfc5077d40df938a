#include "sim/scenario/autoscaler_config.hpp"

#include <algorithm>
#include <climits>

#include "sim/engine/numbers.hpp"
#include "sim/scenario/cluster_loader.hpp"
#include "sim/scenario/input_error.hpp"
#include "sim/scenario/input_limits.hpp"
#include "sim/scenario/k8s_syntax.hpp"

namespace eksim::scenario {

namespace {

enum class FlagKind { Duration, Period, Integer, Fraction, Percent, Bool, String, StringList };
const std::vector<std::pair<std::string, FlagKind>>& cas_flags() {
  static const std::vector<std::pair<std::string, FlagKind>> flags{
      {"scan-interval", FlagKind::Period},
      {"expander", FlagKind::String},
      {"max-node-provision-time", FlagKind::Duration},
      {"scale-down-enabled", FlagKind::Bool},
      {"scale-down-unneeded-time", FlagKind::Duration},
      {"scale-down-unready-time", FlagKind::Duration},
      {"scale-down-unready-enabled", FlagKind::Bool},
      {"scale-down-delay-after-add", FlagKind::Duration},
      {"scale-down-delay-after-delete", FlagKind::Duration},
      {"scale-down-delay-after-failure", FlagKind::Duration},
      {"scale-down-utilization-threshold", FlagKind::Fraction},
      {"scale-down-gpu-utilization-threshold", FlagKind::Fraction},
      {"balance-similar-node-groups", FlagKind::Bool},
      {"balancing-ignore-label", FlagKind::StringList},
      {"max-nodes-total", FlagKind::Integer},
      {"node-group-auto-discovery", FlagKind::StringList},
      {"nodes", FlagKind::StringList},
      {"initial-node-group-backoff-duration", FlagKind::Duration},
      {"max-node-group-backoff-duration", FlagKind::Duration},
      {"node-group-backoff-reset-timeout", FlagKind::Duration},
      {"max-graceful-termination-sec", FlagKind::Integer},
      {"skip-nodes-with-local-storage", FlagKind::Bool},
      {"skip-nodes-with-system-pods", FlagKind::Bool},
      {"new-pod-scale-up-delay", FlagKind::Duration},
      {"max-total-unready-percentage", FlagKind::Percent},
      {"ok-total-unready-count", FlagKind::Integer},
      {"expendable-pods-priority-cutoff", FlagKind::Integer},
      {"record-duplicated-events", FlagKind::Bool},
      // The bounds on a loop's work (scale-up estimator, scale-down planning and actuation).
      {"max-nodes-per-scaleup", FlagKind::Integer},
      {"max-scale-down-parallelism", FlagKind::Integer},
      {"max-drain-parallelism", FlagKind::Integer},
      {"max-empty-bulk-delete", FlagKind::Integer},
      {"scale-down-non-empty-candidates-count", FlagKind::Integer},
      {"scale-down-candidates-pool-ratio", FlagKind::Fraction},
      {"scale-down-candidates-pool-min-count", FlagKind::Integer},
      // Not a CA flag: whether CA's IAM policy allows eks:DescribeNodegroup (FACTS.md).
      {"describe-nodegroup-allowed", FlagKind::Bool},
  };
  return flags;
}

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

// A flag's value checked for its kind and kept as text, as the flag would be written.
std::string flag_value(const Value& val, FlagKind kind) {
  std::string value;
  switch (kind) {
    case FlagKind::Duration: value = engine::format_duration(val.as_duration()); break;
    case FlagKind::Period: {
      engine::Duration d = val.as_duration();
      if (d < kMinLoopPeriod)
        val.fail("expected an interval of at least " + engine::format_duration(kMinLoopPeriod) + ", got " +
                 engine::format_duration(d));
      value = engine::format_duration(d);
      break;
    }
    case FlagKind::Integer:
      val.as_int_in(0, INT32_MAX, "a whole number");
      value = val.as_string();
      break;
    case FlagKind::Fraction:
      val.as_double_in(0, 1, "a number");
      value = val.as_string();
      break;
    case FlagKind::Percent:
      val.as_double_in(0, 100, "a percentage");
      value = val.as_string();
      break;
    case FlagKind::Bool: value = val.as_bool() ? "true" : "false"; break;
    case FlagKind::String: value = val.as_string(); break;
    case FlagKind::StringList:
      if (val.is_seq()) {
        for (const auto& s : val.as_string_list()) value += (value.empty() ? "" : "\n") + s;
      } else {
        value = val.as_string();
      }
      break;
  }
  return value;
}

// --nodes MIN:MAX:ASG_NAME, as cluster-autoscaler's flag parser requires.
void check_nodes_flag(const Value& val) {
  for (const auto& one : (val.is_seq() ? val.items() : std::vector<Value>{val})) {
    std::string s = one.as_string();
    auto a = s.find(':'), b = a == std::string::npos ? a : s.find(':', a + 1);
    bool ok = b != std::string::npos && b + 1 < s.size();
    if (ok) {
      auto lo = engine::parse_integer<std::int32_t>(s.substr(0, a)), hi = engine::parse_integer<std::int32_t>(s.substr(a + 1, b - a - 1));
      ok = lo.ok() && hi.ok() && lo.value >= 0 && hi.value >= lo.value;
    }
    if (!ok) one.fail("nodes takes MIN:MAX:NAME with 0 <= MIN <= MAX, got \"" + s + "\"");
  }
}

// --expander: a comma-separated chain of expander names.
void check_expander_flag(const Value& val, const std::string& value) {
  for (std::size_t start = 0; start <= value.size();) {
    auto comma = value.find(',', start);
    std::string one = value.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    check_one_of(val, one, {"random", "most-pods", "least-waste", "price", "priority", "least-nodes"}, "expander");
    if (comma == std::string::npos) break;
    start = comma + 1;
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
  const auto& table = cas ? cas_flags() : karpenter_settings();
  std::vector<std::string> names;
  for (const auto& [name, kind] : table) names.push_back(name);
  for (const auto& [raw, key, val] : body->entries("a flag name")) {
    std::string flag = kebab(raw);
    auto found = std::find_if(table.begin(), table.end(), [&](const auto& f) { return f.first == flag; });
    if (found == table.end()) {
      std::string hint = did_you_mean(flag, names);
      key.fail("unknown " + std::string(cas ? "cluster-autoscaler flag" : "karpenter setting") + " \"" + raw + "\"" +
               (hint.empty() ? "" : "; did you mean \"" + hint + "\"?"));
    }
    std::string value = flag_value(val, found->second);
    if (flag == "nodes") check_nodes_flag(val);
    if (spec.kind == "karpenter" && flag == "namespace" && !syntax::dns1123_label(value))
      val.fail("namespace must be a DNS-1123 label (lowercase letters, digits and '-', at most 63), got \"" + value + "\"");
    if (flag == "expander") check_expander_flag(val, value);
    spec.flags[flag] = value;
  }
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

AutoscalerSpec read_cluster_autoscaler_args(const std::vector<Value>& args) {
  AutoscalerSpec spec;
  spec.kind = "clusterAutoscaler";
  std::vector<std::string> names = ignored_cas_flags();
  for (const auto& [name, kind] : cas_flags()) names.push_back(name);
  for (const Value& arg : args) {
    const std::string text = arg.as_string();
    if (text.rfind("-", 0) != 0) continue;  // the program (./cluster-autoscaler)
    std::string body = text.substr(text.rfind("--", 0) == 0 ? 2 : 1);
    const auto eq = body.find('=');
    const std::string flag = body.substr(0, eq);
    const auto& table = cas_flags();
    auto found = std::find_if(table.begin(), table.end(), [&](const auto& f) { return f.first == flag; });
    if (found == table.end()) {
      const auto& ignored = ignored_cas_flags();
      if (std::find(ignored.begin(), ignored.end(), flag) != ignored.end()) continue;
      std::string hint = did_you_mean(flag, names);
      arg.fail("unknown flag: --" + flag + " (cluster-autoscaler exits at start)" +
               (hint.empty() ? "" : "; did you mean \"--" + hint + "\"?"));
    }
    // A flag without `=` is a boolean switched on (pflag's NoOptDefVal).
    const std::string value = eq == std::string::npos ? "true" : body.substr(eq + 1);
    try {
      const Value val(YAML::Node(value), arg.file_ptr());
      std::string checked = flag_value(val, found->second);
      if (flag == "nodes") check_nodes_flag(val);
      if (flag == "expander") check_expander_flag(val, checked);
      // Repeated list flags (--nodes, --node-group-auto-discovery) add up.
      std::string& slot = spec.flags[flag];
      slot = found->second == FlagKind::StringList && !slot.empty() ? slot + "\n" + checked : checked;
    } catch (const InputError& e) {
      arg.fail("--" + flag + ": " + e.message());
    }
  }
  return spec;
}

}  // namespace eksim::scenario
