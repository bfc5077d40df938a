#pragma once
// Karpenter's settings (pkg/operator/options, karpenter-provider-aws pkg/operator/options): the
// flags and environment the controller pod starts with.
#include <cstdint>
#include <map>
#include <string>

#include "models/autoscaling/karpenter/requirements.hpp"
#include "sim/engine/time.hpp"

namespace eksim::autoscaling::karpenter {

struct Settings {
  engine::Duration batch_idle = engine::Duration::seconds(1);  // BATCH_IDLE_DURATION default
  engine::Duration batch_max = engine::Duration::seconds(10);  // BATCH_MAX_DURATION default
  double vm_memory_overhead_percent = 0.075;                   // VM_MEMORY_OVERHEAD_PERCENT default
  bool spot_to_spot_consolidation = false;                     // feature gate, off by default
  int reserved_enis = 0;                                       // RESERVED_ENIS default
  // INTERRUPTION_QUEUE: the SQS queue the EventBridge rules feed. Empty (the default) turns
  // Karpenter's interruption controller off: it never hears of a Spot warning or a rebalance
  // recommendation, and the node just goes when EC2 takes the instance. Auto Mode handles
  // interruptions itself.
  std::string interruption_queue;
  std::string version = "1.8.3";
  std::string cluster_name;        // CLUSTER_NAME (required by the controller; the chart's settings.clusterName)
  std::string log_level = "info";  // LOG_LEVEL: debug | info | error
  // LEADER_ELECT (default true): one replica acts; false makes every Running replica act.
  bool leader_elect = true;
  bool auto_mode = false;
  // EKS Auto Mode nodes run the NVIDIA driver and device plugin in the node image, not as a
  // DaemonSet ("EKS Auto Mode includes the NVIDIA device plugin for Kubernetes. This plugin runs
  // automatically and isn't visible as a daemon set in your cluster",
  // docs.aws.amazon.com/eks/latest/userguide/auto-accelerated.html). Node Ready -> nvidia.com/gpu
  // allocatable. Assumption (lab 001 shows no node Ready time): the kubelet reports the plugin's
  // resource with its next node status update (nodeStatusUpdateFrequency 10 s, half on average),
  // as k8s::AddonTimings::device_plugin_delay does for the DaemonSet plugin.
  engine::Duration auto_mode_device_plugin_delay = engine::Duration::seconds(5);
  // How long a new EC2NodeClass (or Auto Mode NodeClass) takes to be resolved: the nodeclass
  // controller's first reconcile makes its AWS calls one after another (DescribeImages,
  // DescribeSubnets, DescribeSecurityGroups, IAM GetInstanceProfile, CreateInstanceProfile and
  // AddRoleToInstanceProfile, DescribeCluster for AL2023's cluster CIDR, the CreateLaunchTemplate,
  // CreateFleet and RunInstances dry runs of validation.go) and then patches the status. No
  // published figure; assumed from lab 002, where `kubectl get nodepool` 5 s after the apply
  // still shows READY False.
  engine::Duration node_class_resolve_time = engine::Duration::seconds(6);
  // Wall-clock time (UTC, Unix seconds) of simulated time 0, for budget cron schedules. Default:
  // 1970-01-01T00:00:00Z, a Thursday midnight.
  std::int64_t start_unix_seconds = 0;

  LabelDomain domain() const { return auto_mode ? LabelDomain::AutoMode : LabelDomain::Oss; }
  // Event source: "karpenter", or "eks-auto-mode/compute" in Auto Mode (lab 001's describe).
  const char* source() const { return auto_mode ? "eks-auto-mode/compute" : "karpenter"; }
};
Settings settings_from_flags(const std::map<std::string, std::string>& flags, bool auto_mode);

}  // namespace eksim::autoscaling::karpenter
