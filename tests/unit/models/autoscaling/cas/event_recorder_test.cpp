// Cluster Autoscaler's event recorder (utils/kubernetes/factory.go): with
// --record-duplicated-events=false, the default, one event per reason and object gets through
// every 5 minutes. A pod that waits 4m30s for a larger max size is told NotTriggerScaleUp on every
// 10 s scan, but its Event shows the first only.
#include <gtest/gtest.h>

#include <string>

#include "models/autoscaling/cas/config/autoscaling_options.hpp"
#include "sim/ops/runner.hpp"

namespace eksim::autoscaling::cas {
namespace {

struct PodEvents {
  int occurrences = 0;     // as CA emitted them: what expectations count
  int event_count = -1;    // the count of the Event the API server holds
};

PodEvents not_trigger_scale_up(bool record_duplicated_events) {
  scenario::Scenario s =
      scenario::load_scenario(std::string(EKSIM_SOURCE_DIR) + "/scenarios/autoscaler/max-size-raised.yaml");
  if (record_duplicated_events) {
    CasOptions o = *s.cluster.autoscaler.cluster_autoscaler;
    o.record_duplicated_events = true;
    s.cluster.autoscaler.cluster_autoscaler = std::make_shared<const CasOptions>(o);
  }
  ops::RunResult run = ops::run_scenario(s);
  PodEvents out;
  auto ours = [](const k8s::Event& e) {
    return e.reason == "NotTriggerScaleUp" && e.object.name == "gpu-pod-2" && e.source == "cluster-autoscaler";
  };
  for (const auto& e : run.cluster->log.events()) out.occurrences += ours(e);
  for (const auto& e : run.cluster->log.copy_series())
    if (ours(e)) {
      EXPECT_EQ(out.event_count, -1) << "one Event";
      out.event_count = e.count;
    }
  return out;
}

TEST(CasEventRecorder, OnePerReasonAndObjectEveryFiveMinutes) {
  const PodEvents filtered = not_trigger_scale_up(false);
  EXPECT_EQ(filtered.occurrences, 28);
  EXPECT_EQ(filtered.event_count, 1);
  // client-go's default spam filter lets 25 events about the pod through, then one per 5 minutes.
  const PodEvents duplicated = not_trigger_scale_up(true);
  EXPECT_EQ(duplicated.occurrences, 28);
  EXPECT_EQ(duplicated.event_count, 25);
}

}  // namespace
}  // namespace eksim::autoscaling::cas
