#include "sim/serve/cluster_autoscaler_status.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "sim/serve/time_base.hpp"

namespace eksim::serve {
namespace {

namespace api = autoscaling::cas::api;
using engine::Duration;
using engine::SimTime;

SimTime at(std::int64_t seconds) { return SimTime{} + Duration::seconds(seconds); }

// 2026-01-01T00:00:00Z
constexpr std::int64_t kSim0 = 1767225600LL * 1000000;

api::ClusterAutoscalerStatus sample() {
  api::ClusterAutoscalerStatus s;
  s.time = at(130) + Duration::millis(250);
  s.autoscaler_status = "Running";
  auto& cw = s.cluster_wide;
  cw.health = {"Healthy", {{3, 2, 0, 0, {1, 1}}, 0, 1}, at(130), at(10)};
  cw.scale_up = {"InProgress", at(130), at(20)};
  cw.scale_down = {"NoCandidates", 0, std::nullopt, std::nullopt};
  api::NodeGroupStatus gpu;
  gpu.name = "eks-ng-gpu-774ace57";
  gpu.health = {"Healthy", {{1, 0, 0, 0, {1, 1}}, 0, 1}, 2, 0, 3, at(130), std::nullopt};
  gpu.scale_up.status = "Backoff";
  gpu.scale_up.backoff_info = {"timeout",
                               "Scale-up timed out for node group eks-ng-gpu-774ace57-7a91-2287-eddb-1bb9b0da3b1a "
                               "after 15m10s"};
  gpu.scale_up.last_probe_time = at(130);
  gpu.scale_up.last_transition_time = at(130);
  gpu.scale_down = {"CandidatesPresent", 1, at(130), at(70)};
  api::NodeGroupStatus empty;  // no nodes: no counts, no readiness time
  empty.name = "eks-ng-spare";
  empty.health.status = "Healthy";
  empty.health.max_size = 2;
  empty.scale_up.status = "NoActivity";
  empty.scale_down.status = "NoCandidates";
  s.node_groups = {gpu, empty};
  return s;
}

// yaml.v2's marshalling of upstream's ClusterAutoscalerStatus: struct order, omitempty (zero
// counts, zero times, a zero candidates count), quoted RFC 3339 times with the fraction Go
// prints, a sequence at its key's column, a plain scalar folded past column 80.
TEST(CasStatusYaml, AsYamlV2MarshalsIt) {
  EXPECT_EQ(cluster_autoscaler_status_yaml(sample(), kSim0),
            R"(time: 2026-01-01 00:02:10.25 +0000 UTC
autoscalerStatus: Running
clusterWide:
  health:
    status: Healthy
    nodeCounts:
      registered:
        total: 3
        ready: 2
        notStarted: 0
        unready:
          total: 1
          resourceUnready: 1
      longUnregistered: 0
      unregistered: 1
    lastProbeTime: "2026-01-01T00:02:10Z"
    lastTransitionTime: "2026-01-01T00:00:10Z"
  scaleUp:
    status: InProgress
    lastProbeTime: "2026-01-01T00:02:10Z"
    lastTransitionTime: "2026-01-01T00:00:20Z"
  scaleDown:
    status: NoCandidates
nodeGroups:
- name: eks-ng-gpu-774ace57
  health:
    status: Healthy
    nodeCounts:
      registered:
        total: 1
        ready: 0
        notStarted: 0
        unready:
          total: 1
          resourceUnready: 1
      longUnregistered: 0
      unregistered: 1
    cloudProviderTarget: 2
    minSize: 0
    maxSize: 3
    lastProbeTime: "2026-01-01T00:02:10Z"
  scaleUp:
    status: Backoff
    backoffInfo:
      errorCode: timeout
      errorMessage: Scale-up timed out for node group eks-ng-gpu-774ace57-7a91-2287-eddb-1bb9b0da3b1a
        after 15m10s
    lastProbeTime: "2026-01-01T00:02:10Z"
    lastTransitionTime: "2026-01-01T00:02:10Z"
  scaleDown:
    status: CandidatesPresent
    candidates: 1
    lastProbeTime: "2026-01-01T00:02:10Z"
    lastTransitionTime: "2026-01-01T00:01:10Z"
- name: eks-ng-spare
  health:
    status: Healthy
    cloudProviderTarget: 0
    minSize: 0
    maxSize: 2
  scaleUp:
    status: NoActivity
  scaleDown:
    status: NoCandidates
)");
  EXPECT_EQ(go_status_time(kSim0), "2026-01-01 00:00:00 +0000 UTC");
  EXPECT_EQ(go_status_time(kSim0 + 1), "2026-01-01 00:00:00.000001 +0000 UTC");
}

// Served answers are rebased to the wall clock; the times inside the YAML and the annotation
// move with the object's RFC 3339 fields.
TEST(CasStatusYaml, RebasedWithTheRestOfTheObject) {
  nlohmann::json cm = {{"kind", "ConfigMap"},
                       {"metadata",
                        {{"name", kCasStatusConfigMap},
                         {"creationTimestamp", "2026-01-01T00:00:10Z"},
                         {"annotations", {{kCasLastUpdatedAnnotation, go_status_time(kSim0 + at(130).us)}}}}},
                       {"data", {{"status", cluster_autoscaler_status_yaml(sample(), kSim0)}}}};
  rebase_timestamps(cm, 3600LL * 1000000);
  EXPECT_EQ(cm["metadata"]["creationTimestamp"], "2026-01-01T01:00:10Z");
  EXPECT_EQ(cm["metadata"]["annotations"][kCasLastUpdatedAnnotation], "2026-01-01 01:02:10 +0000 UTC");
  const std::string text = cm["data"]["status"];
  EXPECT_EQ(text.rfind("time: 2026-01-01 01:02:10.25 +0000 UTC\n", 0), 0u) << text;
  EXPECT_NE(text.find("    lastTransitionTime: \"2026-01-01T01:00:20Z\"\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("T00:"), std::string::npos) << text;
  // The rest of the text is untouched.
  EXPECT_NE(text.find("      errorMessage: Scale-up timed out for node group eks-ng-gpu-774ace57-7a91-2287-eddb-1bb9b0da3b1a\n"
                      "        after 15m10s\n"),
            std::string::npos);
}

}  // namespace
}  // namespace eksim::serve
