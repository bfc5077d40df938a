#include "sim/serve/tables.hpp"

#include <gtest/gtest.h>

#include "sim/serve/time_base.hpp"

namespace eksim::serve {
namespace {

using nlohmann::json;

constexpr std::int64_t kNow = 1'800'000'000'000'000;  // an instant, unix microseconds

std::string ago(std::int64_t seconds) { return rfc3339(kNow - seconds * 1'000'000); }

TEST(Tables, CrashLoopingPodShowsTheWaitingReasonAndTheLastRestart) {
  json pod = {{"metadata", {{"name", "gpu-pod"}, {"creationTimestamp", ago(312)}}},
              {"spec", {{"containers", json::array({{{"name", "cuda-container"}}})}, {"nodeName", "i-0b27"}}},
              {"status",
               {{"phase", "Running"},
                {"podIP", "10.0.1.100"},
                {"containerStatuses",
                 json::array({{{"name", "cuda-container"},
                               {"restartCount", 5},
                               {"ready", false},
                               {"state", {{"waiting", {{"reason", "CrashLoopBackOff"}}}}},
                               {"lastState", {{"terminated", {{"finishedAt", ago(12)}}}}}}})}}}};
  json cells = table_cells("Pod", pod, kNow);
  EXPECT_EQ(cells, json::array({"gpu-pod", "0/1", "CrashLoopBackOff", "5 (12s ago)", "5m12s", "10.0.1.100", "i-0b27",
                                "<none>", "<none>"}));
}

TEST(Tables, FinishedPodIsCompletedAndDeletingPodIsTerminating) {
  json pod = {{"metadata", {{"name", "p"}, {"creationTimestamp", ago(3600)}}},
              {"spec", {{"containers", json::array({{{"name", "c"}}})}}},
              {"status", {{"phase", "Succeeded"},
                          {"containerStatuses", json::array({{{"restartCount", 0},
                                                              {"state", {{"terminated", {{"reason", "Completed"}, {"exitCode", 0}}}}}}})}}}};
  EXPECT_EQ(table_cells("Pod", pod, kNow)[2], "Completed");
  EXPECT_EQ(table_cells("Pod", pod, kNow)[4], "60m");
  pod["metadata"]["deletionTimestamp"] = ago(1);
  EXPECT_EQ(table_cells("Pod", pod, kNow)[2], "Terminating");
}

TEST(Tables, NodeStatusRolesAndWideColumns) {
  json node = {{"metadata", {{"name", "n1"}, {"creationTimestamp", ago(90)}, {"labels", {{"node-role.kubernetes.io/control-plane", ""}}}}},
               {"spec", {{"unschedulable", true}}},
               {"status", {{"conditions", json::array({{{"type", "Ready"}, {"status", "True"}}})},
                           {"addresses", json::array({{{"type", "InternalIP"}, {"address", "192.168.12.11"}}})},
                           {"nodeInfo", {{"kubeletVersion", "v1.35.0-eks-sim"}, {"osImage", "Amazon Linux 2023"},
                                         {"kernelVersion", "6.12"}, {"containerRuntimeVersion", "containerd://2.1.4"}}}}}};
  json cells = table_cells("Node", node, kNow);
  EXPECT_EQ(cells[1], "Ready,SchedulingDisabled");
  EXPECT_EQ(cells[2], "control-plane");
  EXPECT_EQ(cells[3], "90s");
  EXPECT_EQ(cells[5], "192.168.12.11");
  EXPECT_EQ(cells[6], "<none>");
  // -o wide columns are priority 1, the rest 0: kubectl shows exactly NAME STATUS ROLES AGE VERSION.
  int shown = 0;
  for (const auto& c : table_columns("Node")) shown += c.priority == 0;
  EXPECT_EQ(shown, 5);
}

TEST(Tables, EventRowsNameTheObjectAsKubectlDoes) {
  json core = {{"metadata", {{"name", "gpu-pod.1"}}}, {"involvedObject", {{"kind", "Pod"}, {"name", "gpu-pod"}}},
               {"type", "Warning"}, {"reason", "BackOff"}, {"message", "Back-off"}, {"lastTimestamp", ago(0)},
               {"firstTimestamp", ago(189)}, {"count", 15}, {"source", {{"component", "kubelet"}, {"host", "i-0b27"}}}};
  json cells = table_cells("Event", core, kNow);
  EXPECT_EQ(cells[0], "0s");
  EXPECT_EQ(cells[3], "pod/gpu-pod");
  EXPECT_EQ(cells[5], "kubelet, i-0b27");
  EXPECT_EQ(cells[7], "3m9s");
  json newer = {{"metadata", {{"name", "gpu-pod.1"}}}, {"regarding", {{"kind", "Pod"}, {"name", "gpu-pod"}}},
                {"type", "Warning"}, {"reason", "BackOff"}, {"note", "Back-off"}, {"deprecatedLastTimestamp", ago(0)}};
  EXPECT_EQ(table_cells("Event", newer, kNow)[3], "pod/gpu-pod");
  EXPECT_EQ(table_cells("Event", newer, kNow)[6], "Back-off");
}

TEST(Tables, TableCarriesPartialObjectMetadataAndTheListResourceVersion) {
  json pod = {{"metadata", {{"name", "p"}, {"namespace", "default"}, {"labels", {{"app", "x"}}}}}, {"spec", json::object()}};
  json t = make_table("Pod", {&pod}, kNow, "Metadata", "1042");
  EXPECT_EQ(t["kind"], "Table");
  EXPECT_EQ(t["apiVersion"], "meta.k8s.io/v1");
  EXPECT_EQ(t["metadata"]["resourceVersion"], "1042");
  EXPECT_EQ(t["rows"][0]["object"]["kind"], "PartialObjectMetadata");
  EXPECT_EQ(t["rows"][0]["object"]["metadata"]["labels"]["app"], "x");
  EXPECT_FALSE(make_table("Pod", {&pod}, kNow, "None", "1")["rows"][0].contains("object"));
  // A kind without a printer: NAME and AGE.
  EXPECT_EQ(table_columns("PodDisruptionBudget").size(), 2u);
  EXPECT_EQ(table_columns("ConfigMap").size(), 3u);  // NAME DATA AGE
}

TEST(Tables, AgeOfAMissingTimestampIsUnknown) {
  EXPECT_EQ(age_since(json(), kNow), "<unknown>");
  EXPECT_EQ(age_since("not a time", kNow), "<unknown>");
  EXPECT_EQ(age_since(ago(26 * 3600), kNow), "26h");
  EXPECT_EQ(age_since(ago(-5), kNow), "0s");  // a clock behind the object reads 0s, not negative
}

}  // namespace
}  // namespace eksim::serve
