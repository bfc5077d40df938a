// Cluster Autoscaler's status ConfigMap content (clusterstate GetStatus), on the G-quota
// back-off scenario: a GPU group raised 0->3 whose third instance fails on the vCPU quota.
#include <gtest/gtest.h>

#include "models/autoscaling/cluster_autoscaler.hpp"
#include "sim/ops/runner.hpp"
#include "sim/scenario/scenario.hpp"

namespace eksim::autoscaling::cas {
namespace {

using engine::Duration;
using engine::SimTime;

SimTime at(std::int64_t seconds) { return SimTime{} + Duration::seconds(seconds); }

class CasStatus : public ::testing::Test {
 protected:
  CasStatus()
      : scenario_(scenario::load_scenario(std::string(EKSIM_SOURCE_DIR) + "/scenarios/autoscaler/000-g-quota-backoff.yaml")),
        run_(ops::start_run(scenario_)) {}
  ClusterAutoscaler& ca() { return *run_.cluster->controllers.cluster_autoscaler; }
  const api::ClusterAutoscalerStatus& status() { return *ca().status_config_map(); }
  const api::NodeGroupStatus& group(const std::string& prefix) {
    for (const auto& g : status().node_groups)
      if (g.name.rfind(prefix, 0) == 0) return g;
    throw std::runtime_error("no group " + prefix);
  }
  void advance(std::int64_t seconds) { ops::advance_run(run_, at(seconds)); }

  scenario::Scenario scenario_;
  ops::RunResult run_;
};

TEST_F(CasStatus, NothingIsKeptUnlessEnabled) {
  advance(120);
  EXPECT_FALSE(ca().status_config_map());
  EXPECT_FALSE(ca().status_config_map_created());
}

TEST_F(CasStatus, CountsScaleUpProgressAndTransitions) {
  ca().enable_status_config_map();
  advance(10);  // the first loop: the group's target is read before its scale-up
  ASSERT_TRUE(ca().status_config_map());
  EXPECT_EQ(*ca().status_config_map_created(), at(10));
  EXPECT_EQ(status().autoscaler_status, "Running");
  EXPECT_EQ(status().time, at(10));
  const auto& cw = status().cluster_wide;
  EXPECT_EQ(cw.health.status, "Healthy");
  EXPECT_EQ(cw.health.node_counts.registered.total, 2);
  EXPECT_EQ(cw.health.node_counts.registered.ready, 2);
  EXPECT_EQ(cw.health.last_transition_time, at(10));
  EXPECT_EQ(cw.scale_up.status, "NoActivity");
  // No scale-down planning yet (the loop scaled up): Go's zero time, left out of the YAML.
  EXPECT_FALSE(cw.scale_down.last_probe_time);
  {
    const auto& gpu = group("eks-ng-gpu-");
    EXPECT_EQ(gpu.health.cloud_provider_target, 0);
    EXPECT_EQ(gpu.health.min_size, 0);
    EXPECT_EQ(gpu.health.max_size, 3);
    EXPECT_EQ(gpu.health.node_counts.registered.total, 0);
    EXPECT_FALSE(gpu.health.last_probe_time);  // nothing counted in the group: no readiness time
    EXPECT_EQ(gpu.scale_up.status, "NoActivity");
    EXPECT_EQ(group("eks-ng-system-").health.node_counts.registered.ready, 2);
  }

  // 0->3 asked, the third launch failed and its capacity was given back: two instances that
  // have no Node yet, a scale-up in progress.
  advance(20);
  {
    const auto& gpu = group("eks-ng-gpu-");
    EXPECT_EQ(gpu.health.cloud_provider_target, 2);
    EXPECT_EQ(gpu.health.node_counts.unregistered, 2);
    EXPECT_EQ(gpu.health.node_counts.long_unregistered, 0);
    EXPECT_EQ(gpu.health.status, "Healthy");
    EXPECT_EQ(gpu.scale_up.status, "InProgress");
    EXPECT_EQ(gpu.scale_up.last_transition_time, at(20));
    EXPECT_EQ(status().cluster_wide.scale_up.status, "InProgress");
    EXPECT_EQ(status().cluster_wide.scale_up.last_transition_time, at(20));
    EXPECT_EQ(status().cluster_wide.health.last_transition_time, at(10));  // still Healthy since 10s
  }

  // Both registered, not ready (no GPUs advertised: the GPU processor holds them unready).
  advance(90);
  {
    const auto& gpu = group("eks-ng-gpu-");
    EXPECT_EQ(gpu.health.node_counts.registered.total, 2);
    EXPECT_EQ(gpu.health.node_counts.registered.not_started, 2);
    EXPECT_EQ(gpu.health.node_counts.unregistered, 0);
    EXPECT_EQ(gpu.scale_up.status, "InProgress");
    EXPECT_EQ(gpu.scale_up.last_transition_time, at(20));
    EXPECT_EQ(status().cluster_wide.health.node_counts.registered.total, 4);
    EXPECT_TRUE(status().cluster_wide.scale_down.last_probe_time);
  }

  // Past MaxNodeStartupTime they count as unready for a missing resource; nothing is upcoming
  // any more and the group shows its back-off with the AWS provider's placeholder error.
  advance(23 * 60);
  {
    const auto& gpu = group("eks-ng-gpu-");
    EXPECT_EQ(gpu.health.node_counts.registered.not_started, 0);
    EXPECT_EQ(gpu.health.node_counts.registered.unready.total, 2);
    EXPECT_EQ(gpu.health.node_counts.registered.unready.resource_unready, 2);
    EXPECT_EQ(gpu.scale_up.status, "Backoff");
    EXPECT_EQ(gpu.scale_up.backoff_info.error_code, "placeholder-cannot-be-fulfilled");
    EXPECT_EQ(gpu.scale_up.backoff_info.error_message, "AWS cannot provision any more instances for this node group");
  }
}

}  // namespace
}  // namespace eksim::autoscaling::cas
