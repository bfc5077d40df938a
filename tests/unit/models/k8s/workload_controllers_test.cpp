#include <gtest/gtest.h>

#include <algorithm>
#include <regex>

#include "models/k8s/controllers/daemonset_controller.hpp"
#include "models/k8s/controllers/deployment_controller.hpp"
#include "models/k8s/controllers/job_controller.hpp"
#include "models/k8s/kubelet/kubelet.hpp"
#include "models/k8s/kubelet/node_lifecycle.hpp"
#include "models/k8s/scheduling/scheduler_controller.hpp"
#include "tests/unit/models/k8s/k8s_test_util.hpp"

namespace eksim::k8s {
namespace {

using testing::K8sWorld;
using testing::secs;

struct WorkloadWorld : K8sWorld {
  Kubelet kubelet{api};
  SchedulerController scheduler{api, {}, &kubelet};
};

PodTemplate tmpl(std::vector<std::string> command, std::string restart = "Always") {
  PodTemplate t;
  t.meta.labels = {{"app", "web"}};
  t.spec = testing::make_pod("x", "busybox", std::move(command), {}, std::move(restart)).spec;
  return t;
}

// Deployment "web" of `replicas` pods that sleep forever.
Deployment web(std::int32_t replicas) {
  Deployment d;
  d.meta.name = "web";
  d.replicas = replicas;
  d.tmpl = tmpl({"sleep", "infinity"});
  return d;
}

TEST(DeploymentController, NamesEventsAndReplacement) {
  WorkloadWorld w;
  DeploymentController dc(w.api, &w.kubelet);
  w.add_ready_node("n1", ResourceList{{"cpu", 4000}, {"pods", 20}});
  std::size_t idx = dc.apply(web(3));
  std::string rs = dc.replica_set_name(idx);
  EXPECT_TRUE(std::regex_match(rs, std::regex("web-[bcdfghjklmnpqrstvwxz2456789]{9,10}")));
  auto scaling = w.events("ScalingReplicaSet", "Deployment/default/web");
  ASSERT_EQ(scaling.size(), 1u);
  EXPECT_EQ(scaling[0].message, "Scaled up replica set " + rs + " from 0 to 3");
  EXPECT_EQ(scaling[0].source, "deployment-controller");
  auto created = w.events("SuccessfulCreate", "ReplicaSet/default/" + rs);
  ASSERT_EQ(created.size(), 3u);
  auto pods = dc.pods(idx);
  ASSERT_EQ(pods.size(), 3u);
  const Pod& p0 = w.api.pod(pods[0]).pod;
  EXPECT_EQ(created[0].message, "Created pod: " + p0.meta.name);
  EXPECT_TRUE(std::regex_match(p0.meta.name, std::regex(rs + "-[bcdfghjklmnpqrstvwxz2456789]{5}")));
  EXPECT_EQ(p0.meta.labels.at("pod-template-hash"), rs.substr(4));
  w.run_until_s(60);
  w.kubelet.delete_pod(pods[0]);
  w.run_until_s(200);
  EXPECT_EQ(dc.pods(idx).size(), 3u);
  EXPECT_EQ(w.events("SuccessfulCreate", "ReplicaSet/default/" + rs).size(), 4u);
  dc.scale("default", "web", 1);
  EXPECT_EQ(w.events("ScalingReplicaSet").back().message, "Scaled down replica set " + rs + " from 3 to 1");
  w.run_until_s(300);
  EXPECT_EQ(dc.pods(idx).size(), 1u);
}

TEST(DeploymentController, DeletedReplicaSetComesBackUnderItsNameWithNewPods) {
  WorkloadWorld w;
  DeploymentController dc(w.api, &w.kubelet);
  w.add_ready_node("n1", ResourceList{{"cpu", 4000}, {"pods", 20}});
  std::size_t idx = dc.apply(web(2));
  const std::string rs = dc.replica_set_name(idx);
  w.run_until_s(60);
  const auto before = dc.pods(idx);
  ASSERT_EQ(before.size(), 2u);
  EXPECT_FALSE(dc.delete_replica_set("default", "web"));  // the Deployment's name, not its ReplicaSet's
  EXPECT_FALSE(dc.delete_replica_set("other", rs));
  ASSERT_TRUE(dc.delete_replica_set("default", rs));
  // The old pods terminate (background cascade) while two new ones are created at once.
  for (PodId p : before) EXPECT_TRUE(w.api.pod(p).terminating || w.api.pod(p).deleted);
  const auto after = dc.pods(idx);
  ASSERT_EQ(after.size(), 2u);
  for (PodId p : after) EXPECT_TRUE(std::find(before.begin(), before.end(), p) == before.end());
  auto scaling = w.events("ScalingReplicaSet", "Deployment/default/web");
  ASSERT_EQ(scaling.size(), 2u);
  EXPECT_EQ(scaling[1].message, "Scaled up replica set " + rs + " from 0 to 2");
  EXPECT_EQ(w.events("SuccessfulCreate", "ReplicaSet/default/" + rs).size(), 4u);
  w.run_until_s(200);
  EXPECT_EQ(dc.pods(idx).size(), 2u);  // the old pods' removal creates no more
  EXPECT_EQ(w.events("SuccessfulCreate", "ReplicaSet/default/" + rs).size(), 4u);
  EXPECT_TRUE(dc.remove("default", "web"));
  EXPECT_FALSE(dc.remove("default", "web"));
}

TEST(JobController, CompletionsParallelismAndCompleted) {
  WorkloadWorld w;
  JobController jc(w.api, &w.kubelet);
  w.add_ready_node("n1", ResourceList{{"cpu", 4000}, {"pods", 20}});
  Job j;
  j.meta.name = "train";
  j.completions = 4;
  j.parallelism = 2;
  j.completion_mode = "Indexed";
  j.tmpl = tmpl({"sleep", "60"}, "Never");
  std::size_t idx = jc.apply(j);
  auto pods = jc.pods(idx);
  ASSERT_EQ(pods.size(), 2u);
  EXPECT_TRUE(std::regex_match(w.api.pod(pods[0]).pod.meta.name, std::regex("train-0-[a-z0-9]{5}")));
  EXPECT_TRUE(std::regex_match(w.api.pod(pods[1]).pod.meta.name, std::regex("train-1-[a-z0-9]{5}")));
  w.run_until_s(1000);
  const Job& job = w.api.jobs()[idx];
  EXPECT_EQ(job.condition, "Complete");
  EXPECT_EQ(job.succeeded, 4);
  auto done = w.events("Completed", "Job/default/train");
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].message, "Job completed");
  // Two waves of 60 s after a ~8 s start (5 s sandbox + 3.3 s pull of a 100 MB image).
  EXPECT_GT(secs(*job.completed_at), 120.0);
  EXPECT_LT(secs(*job.completed_at), 140.0);
}

TEST(JobController, BackoffLimitExceeded) {
  WorkloadWorld w;
  JobController jc(w.api, &w.kubelet);
  w.add_ready_node("n1", ResourceList{{"cpu", 4000}, {"pods", 20}});
  Job j;
  j.meta.name = "bad";
  j.backoff_limit = 2;
  j.tmpl = tmpl({"sh", "-c", "exit 1"}, "Never");
  j.tmpl->run.duration = engine::Duration::seconds(5);
  j.tmpl->run.exit_code = 1;
  std::size_t idx = jc.apply(j);
  w.run_until_s(2000);
  const Job& job = w.api.jobs()[idx];
  EXPECT_EQ(job.condition, "Failed");
  EXPECT_EQ(job.condition_reason, "BackoffLimitExceeded");
  EXPECT_EQ(job.failed, 3);
  auto ev = w.events("BackoffLimitExceeded", "Job/default/bad");
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].message, "Job has reached the specified backoff limit");
  EXPECT_EQ(ev[0].type, k8s::EventType::Warning);
  EXPECT_EQ(w.events("SuccessfulCreate", "Job/default/bad").size(), 3u);
}

// A long run drops a finished Job's pod template, and only a finished one's: the running Job still
// creates its pods from it, and the finished one's status and events are as with the template kept.
TEST(JobController, LongRunDropsOnlyFinishedTemplates) {
  WorkloadWorld w;
  JobController jc(w.api, &w.kubelet);
  jc.drop_finished_templates(true);
  w.add_ready_node("n1", ResourceList{{"cpu", 4000}, {"pods", 20}});
  Job quick, slow;
  quick.meta.name = "quick";
  quick.completions = 2;
  quick.tmpl = tmpl({"sleep", "60"}, "Never");
  slow.meta.name = "slow";
  slow.completions = 3;
  slow.tmpl = tmpl({"sleep", "600"}, "Never");
  std::size_t q = jc.apply(quick), s = jc.apply(slow);
  w.run_until_s(300);
  EXPECT_EQ(w.api.jobs()[q].condition, "Complete");
  EXPECT_EQ(w.api.jobs()[q].succeeded, 2);
  EXPECT_FALSE(w.api.jobs()[q].tmpl.has_value());
  EXPECT_EQ(w.api.jobs()[s].condition, "");
  ASSERT_TRUE(w.api.jobs()[s].tmpl.has_value());
  EXPECT_EQ(w.api.jobs()[s].tmpl->spec.containers.size(), 1u);
  w.run_until_s(3000);
  EXPECT_EQ(w.api.jobs()[s].condition, "Complete");
  EXPECT_EQ(w.api.jobs()[s].succeeded, 3);
  EXPECT_EQ(w.events("SuccessfulCreate", "Job/default/slow").size(), 3u);
  EXPECT_FALSE(w.api.jobs()[s].tmpl.has_value());
}

// A `sleep` container ignores SIGTERM, so a deleted pod terminates for its whole 30 s grace period;
// the ReplicaSet and the Job (podReplacementPolicy TerminatingOrFailed) replace it at once.
TEST(WorkloadControllers, ReplaceATerminatingPodAtOnce) {
  WorkloadWorld w;
  DeploymentController dc(w.api, &w.kubelet);
  JobController jc(w.api, &w.kubelet);
  w.add_ready_node("n1", ResourceList{{"cpu", 4000}, {"pods", 20}});
  Deployment d;
  d.meta.name = "web";
  d.replicas = 1;
  d.tmpl = tmpl({"sleep", "infinity"});
  std::size_t di = dc.apply(d);
  Job j;
  j.meta.name = "train";
  j.completion_mode = "Indexed";
  j.tmpl = tmpl({"sleep", "3600"}, "Never");
  std::size_t ji = jc.apply(j);
  w.run_until_s(60);
  PodId web = dc.pods(di).at(0), worker = jc.pods(ji).at(0);
  w.kubelet.delete_pod(web);
  w.kubelet.delete_pod(worker);
  w.run_until_s(61);
  EXPECT_TRUE(w.api.pod(web).terminating);
  EXPECT_FALSE(w.api.pod(web).deleted) << "still inside its grace period";
  std::string rs = dc.replica_set_name(di);
  auto rs_created = w.events("SuccessfulCreate", "ReplicaSet/default/" + rs);
  ASSERT_EQ(rs_created.size(), 2u);
  EXPECT_DOUBLE_EQ(secs(rs_created[1].time), 60.0);
  auto job_created = w.events("SuccessfulCreate", "Job/default/train");
  ASSERT_EQ(job_created.size(), 2u);
  EXPECT_DOUBLE_EQ(secs(job_created[1].time), 60.0);
  EXPECT_TRUE(std::regex_match(job_created[1].message, std::regex("Created pod: train-0-[a-z0-9]{5}")))
      << "the same completion index";
  w.run_until_s(120);
  EXPECT_TRUE(w.api.pod(web).deleted);
  EXPECT_EQ(w.api.jobs()[ji].failed, 1) << "counted as failed once gone";
}

TEST(DaemonSetController, EligibilityFollowsSelectorAffinityAndTaints) {
  struct Case {
    const char* name;
    Labels labels;
    std::vector<Taint> taints;
    bool should_run, should_continue;
  };
  DaemonSet ds;
  ds.tmpl.spec.node_selector = {{"gpu", "true"}};
  ds.tmpl.spec.tolerations = {Toleration{"nvidia.com/gpu", "Equal", "present", kNoSchedule, std::nullopt}};
  const Case cases[] = {
      {"match", {{"gpu", "true"}}, {}, true, true},
      {"no-label", {}, {}, false, false},
      {"tolerated", {{"gpu", "true"}}, {{"nvidia.com/gpu", "present", kNoSchedule}}, true, true},
      {"wrong-value", {{"gpu", "true"}}, {{"nvidia.com/gpu", "true", kNoSchedule}}, false, true},
      {"noexecute", {{"gpu", "true"}}, {{"dedicated", "x", kNoExecute}}, false, false},
      {"cordoned", {{"gpu", "true"}}, {{"node.kubernetes.io/unschedulable", "", kNoSchedule}}, true, true},
      {"not-ready-noexecute", {{"gpu", "true"}}, {{"node.kubernetes.io/not-ready", "", kNoExecute}}, true, true},
  };
  for (const auto& c : cases) {
    Node n;
    n.meta.name = c.name;
    n.meta.labels = c.labels;
    n.taints = c.taints;
    auto r = node_should_run_daemon_pod(ds, n);
    EXPECT_EQ(r.should_run, c.should_run) << c.name;
    EXPECT_EQ(r.should_continue_running, c.should_continue) << c.name;
  }
}

TEST(DaemonSetController, OnePodPerEligibleNodeBoundByTheScheduler) {
  WorkloadWorld w;
  DaemonSetController dsc(w.api, &w.kubelet);
  w.add_ready_node("a", ResourceList{{"cpu", 4000}, {"pods", 20}});
  w.add_ready_node("b", ResourceList{{"cpu", 4000}, {"pods", 20}}, {}, {Taint{"dedicated", "x", kNoSchedule}});
  DaemonSet ds;
  ds.meta.name = "agent";
  ds.meta.ns = "kube-system";
  ds.tmpl = tmpl({"sleep", "infinity"});
  std::size_t idx = dsc.apply(ds);
  EXPECT_EQ(dsc.desired_number_scheduled(idx), 1);
  auto pa = dsc.pod_on(idx, "a");
  ASSERT_TRUE(pa);
  EXPECT_FALSE(dsc.pod_on(idx, "b"));
  const Pod& p = w.api.pod(*pa).pod;
  EXPECT_EQ(w.events("SuccessfulCreate", "DaemonSet/kube-system/agent")[0].message, "Created pod: " + p.meta.name);
  ASSERT_TRUE(p.spec.affinity.node_required);
  EXPECT_EQ((*p.spec.affinity.node_required)[0].match_fields[0].values[0], "a");
  bool tolerates_not_ready = false;
  for (const auto& t : p.spec.tolerations)
    tolerates_not_ready |= t.key == "node.kubernetes.io/not-ready" && t.effect == kNoExecute;
  EXPECT_TRUE(tolerates_not_ready);
  w.run_until_s(1);
  EXPECT_EQ(w.api.pod(*pa).pod.spec.node_name, "a");
  // A new node gets its pod.
  w.add_ready_node("c", ResourceList{{"cpu", 4000}, {"pods", 20}});
  w.run_until_s(2);
  EXPECT_TRUE(dsc.pod_on(idx, "c"));
  EXPECT_EQ(dsc.desired_number_scheduled(idx), 2);
}

}  // namespace
}  // namespace eksim::k8s
