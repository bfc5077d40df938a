#pragma once
// The pod events Cluster Autoscaler writes after a scale-up attempt, in its words
// (cluster-autoscaler/processors/status/eventing_scale_up_processor.go, ScaleUpInfo.String in
// processors/nodegroupset).
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace eksim::autoscaling {

std::string triggered_scale_up_message(const std::vector<std::string>& infos);  // "pod triggered scale-up: [...]"
std::string scale_up_info(const std::string& group, std::int64_t from, std::int64_t to, std::int64_t max);
// "pod didn't trigger scale-up: 1 max node group size reached, 2 node(s) had ..." with
// "<count> <reason>" (count = node groups) sorted as strings for determinism (upstream: map order).
std::string not_trigger_scale_up_message(const std::map<std::string, int>& reasons);

}  // namespace eksim::autoscaling
