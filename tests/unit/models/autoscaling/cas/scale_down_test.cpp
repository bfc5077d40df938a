// --max-graceful-termination-sec 0 (cluster-autoscaler core/scaledown/actuation/drain.go): evictPod
// caps the pod's grace period only when maxTermination > 0, so 0 sends the eviction with the
// pod's own terminationGracePeriodSeconds; waitPodsToDisappear then waits 0 s + the 30 s
// DefaultPodEvictionHeadroom (ClusterAutoscaler::drain's deadline).
#include <gtest/gtest.h>

#include "models/autoscaling/cas/simulator/drainability/rules.hpp"
#include "models/autoscaling/cas/simulator/utilization.hpp"
#include "models/autoscaling/cas/core/scaledown/actuation/drain.hpp"

namespace eksim::autoscaling::cas {
namespace {

TEST(CasScaleDownGrace, ZeroMeansTheEvictionIsNotCapped) {
  struct Case {
    std::int64_t pod_grace, cap, want;
  };
  const std::vector<Case> cases = {
      {3600, 0, 3600},  // 0: no cap, not "evict with grace 0"
      {30, 0, 30},
      {0, 0, 0},
      {3600, 1, 1},  // the smallest cap that caps
      {600, 600, 600},
      {601, 600, 600},
  };
  for (const auto& c : cases) {
    k8s::Pod p;
    p.spec.termination_grace_period_seconds = c.pod_grace;
    EXPECT_EQ(eviction_grace_seconds(p, c.cap), c.want) << c.pod_grace << " cap " << c.cap;
  }
}

}  // namespace
}  // namespace eksim::autoscaling::cas
