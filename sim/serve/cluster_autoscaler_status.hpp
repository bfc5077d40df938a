#pragma once
// Cluster Autoscaler's status ConfigMap, kube-system/cluster-autoscaler-status, as the real one
// reads: data.status is the ClusterAutoscalerStatus marshalled by gopkg.in/yaml.v2 (field
// order, omitempty, quoted RFC 3339 times, plain scalars folded past column 80), and the
// annotation cluster-autoscaler.kubernetes.io/last-updated holds the loop's time in Go's
// "2006-01-02 15:04:05.999999999 -0700 MST" layout.
#include <cstdint>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "models/autoscaling/cas/clusterstate/api/types.hpp"

namespace eksim::serve {

inline constexpr const char* kCasStatusConfigMap = "cluster-autoscaler-status";
inline constexpr const char* kCasLastUpdatedAnnotation = "cluster-autoscaler.kubernetes.io/last-updated";

// "2026-11-27 10:00:10.5 +0000 UTC": Go's time.Time.Format with utils.ConfigMapLastUpdateFormat.
std::string go_status_time(std::int64_t unix_us);
// data.status: the YAML text, times anchored at sim0_unix_us.
std::string cluster_autoscaler_status_yaml(const autoscaling::cas::api::ClusterAutoscalerStatus& status,
                                           std::int64_t sim0_unix_us);
// Shifts the times inside a served cluster-autoscaler-status ConfigMap (its YAML text and the
// annotation) by delta_us, as rebase_timestamps shifts every RFC 3339 field; other objects
// are left alone.
void rebase_cluster_autoscaler_status(nlohmann::json& object, std::int64_t delta_us);

}  // namespace eksim::serve
