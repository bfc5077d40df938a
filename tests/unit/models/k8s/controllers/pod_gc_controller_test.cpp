#include <gtest/gtest.h>

#include "models/k8s/controllers/pod_gc_controller.hpp"
#include "tests/unit/models/k8s/k8s_test_util.hpp"

namespace eksim::k8s {
namespace {

using testing::K8sWorld;

// Creates a pod at `at_s` seconds and puts it in `phase` right away.
PodId pod_at(K8sWorld& w, const std::string& name, double at_s, PodPhase phase, const std::string& reason = {}) {
  w.run_until_s(at_s);
  PodId id = w.api.create_pod(testing::make_pod(name, "busybox"));
  w.api.set_pod_phase(id, phase, reason);
  return id;
}

TEST(PodGcController, DeletesTheOldestTerminatedPodsBeyondTheThresholdEvictedFirst) {
  K8sWorld w;
  PodGcController gc(w.api, PodGcOptions{3, engine::Duration::seconds(20)});
  PodId a = pod_at(w, "a", 1, PodPhase::Succeeded);
  PodId running = pod_at(w, "running", 2, PodPhase::Running);
  PodId b = pod_at(w, "b", 3, PodPhase::Failed);
  PodId c = pod_at(w, "c", 4, PodPhase::Succeeded);
  PodId d = pod_at(w, "d", 5, PodPhase::Succeeded);
  PodId evicted = pod_at(w, "evicted", 6, PodPhase::Failed, "Evicted");
  EXPECT_EQ(gc.terminated(), 5u);
  w.run_until_s(19);  // the first pass is at 20 s
  EXPECT_FALSE(w.api.pod(a).deleted);
  w.run_until_s(20);
  // Five terminated, threshold three: the evicted pod goes first, then the oldest by creation.
  EXPECT_TRUE(w.api.pod(evicted).deleted);
  EXPECT_TRUE(w.api.pod(a).deleted);
  EXPECT_FALSE(w.api.pod(b).deleted);
  EXPECT_FALSE(w.api.pod(c).deleted);
  EXPECT_FALSE(w.api.pod(d).deleted);
  EXPECT_FALSE(w.api.pod(running).deleted);
  EXPECT_EQ(gc.terminated(), 3u);
  EXPECT_FALSE(w.api.find_pod("default", "a").has_value());
  // A pod deleted by someone else leaves the set without a GC pass.
  w.api.remove_pod(c);
  EXPECT_EQ(gc.terminated(), 2u);
}

TEST(PodGcController, ThresholdZeroDisablesIt) {
  K8sWorld w;
  PodGcController gc(w.api, PodGcOptions{0, engine::Duration::seconds(20)});
  PodId a = pod_at(w, "a", 1, PodPhase::Succeeded);
  w.run_until_s(100);
  EXPECT_FALSE(w.api.pod(a).deleted);
}

TEST(PodGcController, OrphanedPodsGoAtTheFirstPassFortySecondsAfterTheirNodeWent) {
  K8sWorld w;
  PodGcController gc(w.api);
  NodeId n = w.add_ready_node("n1", ResourceList{{"cpu", 4000}, {"pods", 20}});
  NodeId other = w.add_ready_node("n2", ResourceList{{"cpu", 4000}, {"pods", 20}});
  PodId a = w.api.create_pod(testing::make_pod("a", "busybox"));
  PodId b = w.api.create_pod(testing::make_pod("b", "busybox"));
  w.api.bind(a, n);
  w.api.bind(b, other);
  w.run_until_s(5);
  w.api.remove_node(n);  // kubectl delete node at 5 s: quarantined until 45 s, next pass at 60 s
  w.run_until_s(59);
  EXPECT_FALSE(w.api.pod(a).deleted);
  w.run_until_s(60);
  EXPECT_TRUE(w.api.pod(a).deleted);
  EXPECT_FALSE(w.api.pod(b).deleted);
  EXPECT_TRUE(w.api.node(n).pods.empty());
}

}  // namespace
}  // namespace eksim::k8s
