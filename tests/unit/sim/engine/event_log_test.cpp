#include "sim/engine/event_log.hpp"

#include <gtest/gtest.h>

namespace eksim::engine {
namespace {

TEST(EventLog, CountsRepeatsPerObjectReasonAndMessage) {
  EventLog log;
  ObjectRef pod{"Pod", "default", "gpu-pod"};
  log.record(SimTime{0}, EventType::Warning, "BackOff", pod, "Back-off restarting failed container", "kubelet");
  log.record(SimTime{10}, EventType::Normal, "Pulled", pod, "Container image already present", "kubelet");
  log.record(SimTime{20}, EventType::Warning, "BackOff", pod, "Back-off restarting failed container", "kubelet");
  log.record(SimTime{30}, EventType::Warning, "BackOff", {"Pod", "default", "other"},
             "Back-off restarting failed container", "kubelet");
  ASSERT_EQ(log.events().size(), 4u);
  EXPECT_EQ(log.events()[0].count, 1);
  EXPECT_EQ(log.events()[1].count, 1);
  EXPECT_EQ(log.events()[2].count, 2);
  EXPECT_EQ(log.events()[3].count, 1);
}

TEST(ObjectRef, PrintsKindNamespaceName) {
  EXPECT_EQ((ObjectRef{"Pod", "default", "gpu-pod"}).str(), "Pod/default/gpu-pod");
  EXPECT_EQ((ObjectRef{"Node", "", "ip-10-0-1-2.ec2.internal"}).str(), "Node/ip-10-0-1-2.ec2.internal");
}

}  // namespace
}  // namespace eksim::engine
