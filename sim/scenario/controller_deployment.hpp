#pragma once
// Controllers recognised in a Deployment by the image they run (as device plugins are by their
// DaemonSet's image, models/k8s/kubelet/device_plugins), with their settings decoded here, once,
// from the container's environment: the run receives typed settings and reads no text.
//
// Cluster Autoscaler: the image registry.k8s.io/autoscaling/cluster-autoscaler, flags from the
// container's command and args.
//
// Karpenter: the image public.ecr.aws/karpenter/controller (its tag is the version), settings
// from the env the chart renders (CLUSTER_NAME, INTERRUPTION_QUEUE, BATCH_MAX_DURATION,
// BATCH_IDLE_DURATION, FEATURE_GATES, LOG_LEVEL, VM_MEMORY_OVERHEAD_PERCENT, RESERVED_ENIS,
// LEADER_ELECT; karpenter-provider-aws's settings reference). A value Karpenter cannot use is a
// located error at the env entry: the real controller ignores an unparsable duration and exits
// on a missing cluster name, neither of which a scenario author means.
#include <optional>
#include <string>

#include "models/autoscaling/cas/config/autoscaling_options.hpp"
#include "models/autoscaling/karpenter/settings.hpp"
#include "models/cluster/cluster_spec.hpp"
#include "models/k8s/api/workloads.hpp"
#include "sim/scenario/yaml_reader.hpp"

namespace eksim::scenario {

// The repository an image names, without tag or digest ("public.ecr.aws/karpenter/controller").
std::string image_repository(const std::string& image);
// Its tag ("1.8.3" of "...controller:1.8.3@sha256:..."), "" when it has none.
std::string image_tag(const std::string& image);

inline constexpr const char* kKarpenterControllerImage = "public.ecr.aws/karpenter/controller";

// Karpenter's settings when the Deployment runs its controller image, else nullopt. object is
// the Deployment as written, for locating errors.
std::optional<autoscaling::karpenter::Settings> decode_karpenter_deployment(const k8s::Deployment& d, const Value& object);

inline constexpr const char* kClusterAutoscalerImage = "registry.k8s.io/autoscaling/cluster-autoscaler";

// Cluster Autoscaler's flags, typed, when the Deployment runs its image (the autodiscover manifest's
// `command: [./cluster-autoscaler, --v=4, ..., --node-group-auto-discovery=asg:tag=...]`), read by
// the same table as `autoscaler: {clusterAutoscaler: ...}` (sim/scenario/autoscaler_config).
std::optional<autoscaling::CasOptions> decode_cluster_autoscaler_deployment(const k8s::Deployment& d, const Value& object);

}  // namespace eksim::scenario
