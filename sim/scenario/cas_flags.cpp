#include "sim/scenario/cas_flags.hpp"

#include <algorithm>
#include <climits>

#include "sim/engine/numbers.hpp"
#include "sim/scenario/cluster_loader.hpp"
#include "sim/scenario/input_limits.hpp"

namespace eksim::scenario {

namespace {

using autoscaling::CasOptions;
namespace cas = autoscaling::cas;

// A loop period: at least kMinLoopPeriod, so that a run's event count stays bounded.
engine::Duration period(const Value& v) {
  engine::Duration d = v.as_duration();
  if (d < kMinLoopPeriod)
    v.fail("expected an interval of at least " + engine::format_duration(kMinLoopPeriod) + ", got " + engine::format_duration(d));
  return d;
}
// Go's flag.Int over what a count of nodes, seconds or candidates can mean.
std::int64_t count(const Value& v) { return v.as_int_in(0, INT32_MAX, "a whole number"); }
double fraction(const Value& v) { return v.as_double_in(0, 1, "a number"); }
double percent(const Value& v) { return v.as_double_in(0, 100, "a percentage"); }

// A repeatable flag's values: a YAML sequence, or one text (one occurrence of the flag).
std::vector<Value> occurrences(const Value& v) {
  if (!v.is_seq()) return {v};
  v.as_string_list();  // every item a string, or the error at the first that is not
  return v.items();
}
void add_texts(const Value& v, std::vector<std::string>& out) {
  for (const Value& one : occurrences(v)) out.push_back(one.as_string());
}

// --expander: a comma-separated chain of expander names (expander/factory).
std::vector<cas::Expander> expander_chain(const Value& v) {
  static const std::vector<std::pair<std::string, cas::Expander>> kNames{
      {"random", cas::Expander::Random},        {"most-pods", cas::Expander::MostPods},
      {"least-waste", cas::Expander::LeastWaste}, {"price", cas::Expander::Price},
      {"priority", cas::Expander::Priority},    {"least-nodes", cas::Expander::LeastNodes}};
  std::vector<std::string> names;
  for (const auto& [name, e] : kNames) names.push_back(name);
  const std::string value = v.as_string();
  std::vector<cas::Expander> chain;
  for (std::size_t start = 0; start <= value.size();) {
    auto comma = value.find(',', start);
    std::string one = value.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    check_one_of(v, one, names, "expander");
    chain.push_back(std::find_if(kNames.begin(), kNames.end(), [&](const auto& n) { return n.first == one; })->second);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return chain;
}

// --nodes MIN:MAX:ASG_NAME, as cluster-autoscaler's flag parser requires.
cas::StaticNodeGroup static_node_group(const Value& v) {
  const std::string s = v.as_string();
  auto a = s.find(':'), b = a == std::string::npos ? a : s.find(':', a + 1);
  if (b != std::string::npos && b + 1 < s.size()) {
    auto lo = engine::parse_integer<std::int32_t>(s.substr(0, a)), hi = engine::parse_integer<std::int32_t>(s.substr(a + 1, b - a - 1));
    if (lo.ok() && hi.ok() && lo.value >= 0 && hi.value >= lo.value) return {lo.value, hi.value, s.substr(b + 1)};
  }
  v.fail("nodes takes MIN:MAX:NAME with 0 <= MIN <= MAX, got \"" + s + "\"");
}

// --node-group-auto-discovery asg:tag=K1[=V1],K2[=V2], with the AWS provider's errors
// (parseASGAutoDiscoverySpec: CA exits at start on any of them).
cas::AsgAutoDiscovery asg_auto_discovery(const Value& v) {
  const std::string s = v.as_string();
  const auto colon = s.find(':');
  if (colon == std::string::npos)
    v.fail("invalid node group auto discovery spec specified via --node-group-auto-discovery: " + s);
  if (s.substr(0, colon) != "asg") v.fail("unsupported discoverer specified: " + s.substr(0, colon));
  const std::string param = s.substr(colon + 1);
  const auto eq = param.find('=');
  if (eq == std::string::npos) v.fail("invalid key=value pair [" + param + "]");
  if (param.substr(0, eq) != "tag")
    v.fail("unsupported parameter key \"" + param.substr(0, eq) + "\" is specified for discoverer \"asg\". The only supported key is \"tag\"");
  const std::string tags = param.substr(eq + 1);
  if (tags.empty()) v.fail("tag value not supplied");
  cas::AsgAutoDiscovery out;
  for (std::size_t start = 0; start <= tags.size();) {
    auto comma = tags.find(',', start);
    std::string item = tags.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    auto kv = item.find('=');
    if (item.empty() || kv == 0) v.fail("invalid ASG tag for auto discovery specified: ASG tag must not be empty");
    if (kv == std::string::npos) out.tags.emplace_back(item, std::nullopt);
    else out.tags.emplace_back(item.substr(0, kv), item.substr(kv + 1));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

}  // namespace

// In flags.go's order of the flags eksim models (did-you-mean ties follow it).
const std::vector<CasFlag>& cas_flags() {
  using V = const Value&;
  using O = CasOptions&;
  static const std::vector<CasFlag> flags{
      {"scan-interval", [](V v, O o) { o.scan_interval = period(v); }},
      {"expander", [](V v, O o) { o.expander = expander_chain(v); }},
      {"max-node-provision-time", [](V v, O o) { o.max_node_provision_time = v.as_duration(); }},
      {"scale-down-enabled", [](V v, O o) { o.scale_down_enabled = v.as_bool(); }},
      {"scale-down-unneeded-time", [](V v, O o) { o.scale_down_unneeded_time = v.as_duration(); }},
      {"scale-down-unready-time", [](V v, O o) { o.scale_down_unready_time = v.as_duration(); }},
      {"scale-down-unready-enabled", [](V v, O o) { o.scale_down_unready_enabled = v.as_bool(); }},
      {"scale-down-delay-after-add", [](V v, O o) { o.scale_down_delay_after_add = v.as_duration(); }},
      {"scale-down-delay-after-delete", [](V v, O o) { o.scale_down_delay_after_delete = v.as_duration(); }},
      {"scale-down-delay-after-failure", [](V v, O o) { o.scale_down_delay_after_failure = v.as_duration(); }},
      {"scale-down-utilization-threshold", [](V v, O o) { o.scale_down_utilization_threshold = fraction(v); }},
      {"scale-down-gpu-utilization-threshold", [](V v, O o) { o.scale_down_gpu_utilization_threshold = fraction(v); }},
      {"balance-similar-node-groups", [](V v, O o) { o.balance_similar_node_groups = v.as_bool(); }},
      {"balancing-ignore-label", [](V v, O o) { add_texts(v, o.balancing_ignore_labels); }},
      {"max-nodes-total", [](V v, O o) { o.max_nodes_total = count(v); }},
      {"node-group-auto-discovery",
       [](V v, O o) {
         for (const Value& one : occurrences(v)) o.node_group_auto_discovery.push_back(asg_auto_discovery(one));
       }},
      {"nodes", [](V v, O o) {
         for (const Value& one : occurrences(v)) o.nodes.push_back(static_node_group(one));
       }},
      {"initial-node-group-backoff-duration", [](V v, O o) { o.backoff.initial = v.as_duration(); }},
      {"max-node-group-backoff-duration", [](V v, O o) { o.backoff.max = v.as_duration(); }},
      {"node-group-backoff-reset-timeout", [](V v, O o) { o.backoff.reset = v.as_duration(); }},
      {"max-graceful-termination-sec", [](V v, O o) { o.max_graceful_termination_sec = count(v); }},
      {"skip-nodes-with-local-storage", [](V v, O o) { o.drain.skip_nodes_with_local_storage = v.as_bool(); }},
      {"skip-nodes-with-system-pods", [](V v, O o) { o.drain.skip_nodes_with_system_pods = v.as_bool(); }},
      {"new-pod-scale-up-delay", [](V v, O o) { o.new_pod_scale_up_delay = v.as_duration(); }},
      {"max-total-unready-percentage", [](V v, O o) { o.max_total_unready_percentage = percent(v); }},
      {"ok-total-unready-count", [](V v, O o) { o.ok_total_unready_count = count(v); }},
      // A pod priority: Go's int, negative included (the default is -10).
      {"expendable-pods-priority-cutoff",
       [](V v, O o) { o.expendable_pods_priority_cutoff = v.as_int_in(INT32_MIN, INT32_MAX, "a whole number"); }},
      {"record-duplicated-events", [](V v, O o) { o.record_duplicated_events = v.as_bool(); }},
      // The bounds on a loop's work (scale-up estimator, scale-down planning and actuation).
      {"max-nodes-per-scaleup", [](V v, O o) { o.max_nodes_per_scale_up = count(v); }},
      {"max-scale-down-parallelism", [](V v, O o) { o.max_scale_down_parallelism = count(v); }},
      {"max-drain-parallelism", [](V v, O o) { o.max_drain_parallelism = count(v); }},
      {"max-empty-bulk-delete", [](V v, O o) { o.max_empty_bulk_delete = count(v); }},
      {"scale-down-non-empty-candidates-count", [](V v, O o) { o.scale_down_non_empty_candidates_count = count(v); }},
      {"scale-down-candidates-pool-ratio", [](V v, O o) { o.scale_down_candidates_pool_ratio = fraction(v); }},
      {"scale-down-candidates-pool-min-count", [](V v, O o) { o.scale_down_candidates_pool_min_count = count(v); }},
      // Not a CA flag: whether CA's IAM policy allows eks:DescribeNodegroup (FACTS.md).
      {"describe-nodegroup-allowed", [](V v, O o) { o.describe_nodegroup_allowed = v.as_bool(); }},
  };
  return flags;
}

const CasFlag* find_cas_flag(const std::string& name) {
  const auto& table = cas_flags();
  auto it = std::find_if(table.begin(), table.end(), [&](const CasFlag& f) { return name == f.name; });
  return it == table.end() ? nullptr : &*it;
}

std::vector<std::string> cas_flag_names() {
  std::vector<std::string> names;
  for (const CasFlag& f : cas_flags()) names.emplace_back(f.name);
  return names;
}

void CasFlagDecoder::decode(const CasFlag& flag, const Value& value) {
  flag.decode(value, options);
  given.insert(flag.name);
}

CasOptions CasFlagDecoder::finish() const {
  CasOptions o = options;
  // flags.go: the deprecated --max-empty-bulk-delete stands in for --max-scale-down-parallelism
  // when only it is given.
  if (given.count("max-empty-bulk-delete") && !given.count("max-scale-down-parallelism"))
    o.max_scale_down_parallelism = o.max_empty_bulk_delete;
  return o;
}

}  // namespace eksim::scenario
