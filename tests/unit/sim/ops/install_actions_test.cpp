// Karpenter installed by its controller Deployment in a running cluster (lab 002's order): it
// provisions nothing while no replica runs, and from when one leads; a leader that goes hands
// the Lease on after the retry period.
#include "sim/ops/install_actions.hpp"

#include <gtest/gtest.h>

#include "models/autoscaling/karpenter/controller.hpp"
#include "sim/ops/kubectl_operations.hpp"
#include "sim/ops/runner.hpp"

namespace eksim::ops {
namespace {

using engine::Duration;
using engine::SimTime;

scenario::Scenario lab(const char* name) {
  return scenario::load_scenario(std::string(EKSIM_SOURCE_DIR) + "/scenarios/labs/" + name);
}

int gpu_pool_nodes(const Cluster& c) {
  int n = 0;
  for (std::size_t i = 0; i < c.api.node_slots(); ++i) {
    const auto& rec = c.api.node(k8s::NodeId{static_cast<std::uint32_t>(i)});
    n += rec.node_pool == "gpu-pool" ? 1 : 0;
  }
  return n;
}

SimTime at(Duration d) { return SimTime{} + d; }

TEST(InstallActions, KarpenterExistsOnlyOnceItsControllerDeploymentIsApplied) {
  auto s = lab("002-karpenter-install-steps.yaml");
  auto run = start_run(s);
  advance_run(run, at(Duration::minutes(2) + Duration::seconds(59)));
  EXPECT_EQ(run.cluster->controllers.karpenter, nullptr);
  advance_run(run, at(Duration::minutes(3)));
  ASSERT_NE(run.cluster->controllers.karpenter, nullptr);
  // Settings from the Deployment's env, version from its image tag.
  EXPECT_EQ(run.cluster->controllers.karpenter->settings().cluster_name, "training-on-eks");
  EXPECT_EQ(run.cluster->controllers.karpenter->settings().version, "1.8.3");
  // Applied, not yet running: the pods are still being scheduled and pulled.
  EXPECT_FALSE(run.cluster->autoscaler_running());
  advance_run(run, at(Duration::minutes(5)));
  EXPECT_TRUE(run.cluster->autoscaler_running());
  advance_run(run, at(Duration::minutes(12)));
  EXPECT_EQ(gpu_pool_nodes(*run.cluster), 1);
}

TEST(InstallActions, NothingProvisionedWhileTheControllerPodsCannotSchedule) {
  auto s = lab("002-karpenter-affinity-typo.yaml");
  auto run = start_run(s);
  advance_run(run, at(Duration::minutes(11) + Duration::seconds(59)));
  const Cluster& c = *run.cluster;
  ASSERT_NE(c.controllers.karpenter, nullptr);
  EXPECT_FALSE(c.autoscaler_running());
  EXPECT_EQ(gpu_pool_nodes(c), 0);
  ASSERT_TRUE(c.autoscaler_replicas->unschedulable_replica().has_value());
  EXPECT_NE(c.autoscaler_replicas->unschedulable_message().find("didn't match Pod's node affinity/selector"), std::string::npos);
  // The corrected Deployment at 12m: a replica leads once it runs, and the GPU pod's node comes.
  advance_run(run, at(Duration::minutes(16)));
  ASSERT_TRUE(c.autoscaler_replicas->leader().has_value());
  EXPECT_GT(c.autoscaler_replicas->leading_since(), at(Duration::minutes(12)));
  EXPECT_LT(c.autoscaler_replicas->leading_since(), at(Duration::minutes(13)));
  EXPECT_EQ(gpu_pool_nodes(c), 1);
}

TEST(InstallActions, ANewLeaderTakesTheReleasedLeaseAfterTheRetryPeriod) {
  auto s = lab("002-karpenter-install-steps.yaml");
  auto run = start_run(s);
  const SimTime t = at(Duration::minutes(6));
  advance_run(run, t);
  Cluster& c = *run.cluster;
  ASSERT_TRUE(c.autoscaler_replicas->leader().has_value());
  const k8s::PodId old = *c.autoscaler_replicas->leader();
  const k8s::Pod& pod = c.api.pod(old).pod;
  ASSERT_FALSE(kubectl_delete(c, "Pod", pod.meta.ns, pod.meta.name).has_value());
  // Graceful deletion: SIGTERM, the manager releases the Lease (ReleaseOnCancel); the other
  // replica takes it at its next try, 2 s later.
  ASSERT_TRUE(c.autoscaler_replicas->leader().has_value());
  EXPECT_NE(*c.autoscaler_replicas->leader(), old);
  EXPECT_EQ(c.autoscaler_replicas->leading_since(), t + Duration::seconds(2));
  EXPECT_FALSE(c.autoscaler_running());
  advance_run(run, t + Duration::seconds(2));
  EXPECT_TRUE(c.autoscaler_running());
}

}  // namespace
}  // namespace eksim::ops
