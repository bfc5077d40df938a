// Cluster Autoscaler's flags decoded once, at load, into CasOptions by the one table, from the
// `autoscaler:` shorthand and from the Deployment's command alike, with CA's defaults for the
// flags not given and located errors for values CA would refuse.
#include "sim/scenario/cas_flags.hpp"

#include <gtest/gtest.h>

#include "models/autoscaling/cas/config/autoscaling_options.hpp"
#include "sim/scenario/autoscaler_config.hpp"
#include "sim/scenario/input_error.hpp"

namespace eksim::scenario {
namespace {

using autoscaling::CasOptions;
using engine::Duration;
namespace cas = autoscaling::cas;

std::shared_ptr<const std::string> file() { return std::make_shared<const std::string>("s.yaml"); }

// The options of `autoscaler: {clusterAutoscaler: {FLAGS}}`.
CasOptions shorthand(const std::string& flags) {
  AutoscalerSpec spec = read_autoscaler(Value(YAML::Load("{clusterAutoscaler: {" + flags + "}}"), file()));
  EXPECT_EQ(spec.kind, "clusterAutoscaler");
  return spec.cluster_autoscaler ? *spec.cluster_autoscaler : CasOptions{};
}

CasOptions command(const std::vector<std::string>& args) {
  std::vector<Value> values;
  for (const auto& a : args) values.emplace_back(YAML::Node(a), file());
  return read_cluster_autoscaler_args(values);
}

std::string error_of(const std::string& flags) {
  try {
    shorthand(flags);
  } catch (const InputError& e) {
    return std::to_string(e.where().column) + ": " + e.message();
  }
  return "no error";
}

TEST(CasFlags, DefaultsAndOverrides) {
  CasOptions d = shorthand("");
  EXPECT_EQ(d.scan_interval, Duration::seconds(10));
  EXPECT_EQ(d.expander, (std::vector<cas::Expander>{cas::Expander::LeastWaste}));
  EXPECT_EQ(d.max_node_provision_time, Duration::minutes(15));
  EXPECT_EQ(d.scale_down_unneeded_time, Duration::minutes(10));
  EXPECT_EQ(d.scale_down_delay_after_add, Duration::minutes(10));
  EXPECT_FALSE(d.scale_down_delay_after_delete.has_value());
  EXPECT_EQ(d.scale_down_delay_after_failure, Duration::minutes(3));
  EXPECT_DOUBLE_EQ(d.scale_down_utilization_threshold, 0.5);
  EXPECT_DOUBLE_EQ(d.scale_down_gpu_utilization_threshold, 0.5);
  EXPECT_EQ(d.backoff.initial, Duration::minutes(5));
  EXPECT_EQ(d.backoff.max, Duration::minutes(30));
  EXPECT_EQ(d.backoff.reset, Duration::hours(3));
  EXPECT_EQ(d.expendable_pods_priority_cutoff, -10);
  EXPECT_FALSE(d.describe_nodegroup_allowed);
  CasOptions o = shorthand(
      "scanInterval: 1m, expander: 'priority,least-waste', scale-down-gpu-utilization-threshold: 0.3, "
      "nodes: ['0:3:a', '1:2:b'], describeNodegroupAllowed: true, scaleDownDelayAfterDelete: 30s, "
      "expendablePodsPriorityCutoff: -20");
  EXPECT_EQ(o.scan_interval, Duration::minutes(1));
  EXPECT_EQ(o.expander, (std::vector<cas::Expander>{cas::Expander::Priority, cas::Expander::LeastWaste}));
  EXPECT_DOUBLE_EQ(o.scale_down_gpu_utilization_threshold, 0.3);
  ASSERT_EQ(o.nodes.size(), 2u);
  EXPECT_EQ(o.nodes[1].min_size, 1);
  EXPECT_EQ(o.nodes[1].max_size, 2);
  EXPECT_EQ(o.nodes[1].name, "b");
  EXPECT_TRUE(o.describe_nodegroup_allowed);
  EXPECT_EQ(o.scale_down_delay_after_delete, Duration::seconds(30));
  EXPECT_EQ(o.expendable_pods_priority_cutoff, -20);
}

TEST(CasFlags, Issue5Flags) {
  CasOptions d = shorthand("");
  EXPECT_EQ(d.scale_down_unready_time, Duration::minutes(20));
  EXPECT_TRUE(d.scale_down_unready_enabled);
  EXPECT_FALSE(d.balance_similar_node_groups);
  EXPECT_EQ(d.max_graceful_termination_sec, 600);
  EXPECT_TRUE(d.drain.skip_nodes_with_local_storage);
  EXPECT_TRUE(d.drain.skip_nodes_with_system_pods);
  CasOptions o = shorthand(
      "balance-similar-node-groups: true, balancing-ignore-label: [nodegroup-name, foo], "
      "scale-down-unready-enabled: false, skip-nodes-with-local-storage: false, max-graceful-termination-sec: 60, "
      "ok-total-unready-count: 0, max-total-unready-percentage: 10");
  EXPECT_TRUE(o.balance_similar_node_groups);
  EXPECT_EQ(o.balancing_ignore_labels, (std::vector<std::string>{"nodegroup-name", "foo"}));
  EXPECT_FALSE(o.scale_down_unready_enabled);
  EXPECT_FALSE(o.drain.skip_nodes_with_local_storage);
  EXPECT_EQ(o.max_graceful_termination_sec, 60);
  EXPECT_EQ(o.ok_total_unready_count, 0);
  EXPECT_DOUBLE_EQ(o.max_total_unready_percentage, 10);
}

TEST(CasFlags, BoundsFlagsWithUpstreamDefaults) {
  CasOptions d = shorthand("");
  EXPECT_EQ(d.max_nodes_per_scale_up, 1000);
  EXPECT_EQ(d.max_scale_down_parallelism, 10);
  EXPECT_EQ(d.max_drain_parallelism, 1);
  EXPECT_EQ(d.scale_down_non_empty_candidates_count, 30);
  EXPECT_DOUBLE_EQ(d.scale_down_candidates_pool_ratio, 0.1);
  EXPECT_EQ(d.scale_down_candidates_pool_min_count, 50);
  CasOptions o = shorthand(
      "max-nodes-per-scaleup: 5, max-scale-down-parallelism: 4, max-drain-parallelism: 2, "
      "scale-down-non-empty-candidates-count: 7, scale-down-candidates-pool-ratio: 0.25, "
      "scale-down-candidates-pool-min-count: 3");
  EXPECT_EQ(o.max_nodes_per_scale_up, 5);
  EXPECT_EQ(o.max_scale_down_parallelism, 4);
  EXPECT_EQ(o.max_drain_parallelism, 2);
  EXPECT_EQ(o.scale_down_non_empty_candidates_count, 7);
  EXPECT_DOUBLE_EQ(o.scale_down_candidates_pool_ratio, 0.25);
  EXPECT_EQ(o.scale_down_candidates_pool_min_count, 3);
  // The deprecated --max-empty-bulk-delete sets the parallelism only when it is alone, in
  // whichever order the two are given.
  EXPECT_EQ(shorthand("max-empty-bulk-delete: 6").max_scale_down_parallelism, 6);
  EXPECT_EQ(shorthand("max-scale-down-parallelism: 2, max-empty-bulk-delete: 6").max_scale_down_parallelism, 2);
  EXPECT_EQ(command({"--max-empty-bulk-delete=6", "--max-scale-down-parallelism=2"}).max_scale_down_parallelism, 2);
}

TEST(CasFlags, CommandDecodesWithTheSameTable) {
  CasOptions o = command({"./cluster-autoscaler", "--v=4", "--cloud-provider=aws", "--scale-down-enabled",
                          "--scan-interval=30s", "--scan-interval=20s", "--nodes=1:3:a", "--nodes=0:2:b",
                          "--node-group-auto-discovery=asg:tag=k8s.io/cluster-autoscaler/enabled,team=ml"});
  EXPECT_TRUE(o.scale_down_enabled);
  EXPECT_EQ(o.scan_interval, Duration::seconds(20)) << "a repeated flag: the last counts";
  ASSERT_EQ(o.nodes.size(), 2u) << "a repeated list flag adds up";
  EXPECT_EQ(o.nodes[0].name, "a");
  ASSERT_EQ(o.node_group_auto_discovery.size(), 1u);
  const auto& tags = o.node_group_auto_discovery[0].tags;
  ASSERT_EQ(tags.size(), 2u);
  EXPECT_EQ(tags[0].first, "k8s.io/cluster-autoscaler/enabled");
  EXPECT_FALSE(tags[0].second.has_value()) << "a key alone: any value";
  EXPECT_EQ(tags[1].first, "team");
  EXPECT_EQ(tags[1].second, "ml");
  try {
    command({"--scan-interval=fast"});
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.message(), "--scan-interval: expected a duration such as 90s, 15m or 1h30m, got \"fast\"");
  }
}

TEST(CasFlags, ValuesCaWouldRefuseAreLocatedErrors) {
  EXPECT_EQ(error_of("scanIntervall: 10s"), "22: unknown cluster-autoscaler flag \"scanIntervall\"; did you mean \"scan-interval\"?");
  EXPECT_EQ(error_of("scan-interval: 0s"), "37: expected an interval of at least 1s, got 0s");
  EXPECT_EQ(error_of("expander: 'priority,cheapest'"), "32: unknown expander \"cheapest\" (one of: random, most-pods, "
                                                        "least-waste, price, priority, least-nodes)");
  EXPECT_EQ(error_of("max-nodes-total: -1"), "39: expected a whole number from 0 to 2147483647, got -1");
  EXPECT_EQ(error_of("scale-down-utilization-threshold: 1.5"), "56: expected a number from 0 to 1, got 1.5");
  EXPECT_EQ(error_of("scale-down-enabled: maybe"), "42: expected true or false, got \"maybe\"");
  EXPECT_EQ(error_of("nodes: ['1:0:a']"), "30: nodes takes MIN:MAX:NAME with 0 <= MIN <= MAX, got \"1:0:a\"");
  EXPECT_EQ(error_of("node-group-auto-discovery: 'mig:tag=x'"), "49: unsupported discoverer specified: mig");
  EXPECT_EQ(error_of("node-group-auto-discovery: 'asg:label=x'"),
            "49: unsupported parameter key \"label\" is specified for discoverer \"asg\". The only supported key is \"tag\"");
  EXPECT_EQ(error_of("node-group-auto-discovery: 'asg:tag='"), "49: tag value not supplied");
}

}  // namespace
}  // namespace eksim::scenario
