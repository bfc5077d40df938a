#pragma once
// What `kubectl delete|scale|cordon|uncordon|drain|label|taint` do to the cluster, implemented
// once: timeline actions and `eksim serve` requests both call these, so a command typed by a
// student and one written in a scenario change the simulation the same way. A refusal comes
// back as the API server's Status (reason, code and message as kubectl prints them).
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "models/cluster/cluster.hpp"

namespace eksim::ops {

struct KubectlError {
  std::string reason;  // NotFound, MethodNotAllowed, BadRequest, ...
  int code = 400;
  std::string message;  // `pods "x" not found`
};

std::optional<KubectlError> kubectl_delete(Cluster& c, const std::string& kind, const std::string& ns,
                                           const std::string& name, std::optional<std::int64_t> grace_seconds = std::nullopt);
std::optional<KubectlError> kubectl_scale(Cluster& c, const std::string& kind, const std::string& ns,
                                          const std::string& name, std::int32_t replicas);
// cordon (true) / uncordon (false): spec.unschedulable.
std::optional<KubectlError> kubectl_cordon(Cluster& c, const std::string& node, bool unschedulable);
// cordon, then evict every pod on the node that is not a DaemonSet's (kubectl drain
// --ignore-daemonsets --force).
std::optional<KubectlError> kubectl_drain(Cluster& c, const std::string& node);
// Sets labels; a nullopt value removes the key (`kubectl label node n key-`). Pods and nodes.
std::optional<KubectlError> kubectl_label(Cluster& c, const std::string& kind, const std::string& ns,
                                          const std::string& name,
                                          const std::map<std::string, std::optional<std::string>>& labels);
// kubectl taint node N key=value:Effect (added, or updated by key and effect) and key- /
// key:Effect- (removed); a removal that matches nothing is kubectl's error.
std::optional<KubectlError> kubectl_taint(Cluster& c, const std::string& node, const std::vector<k8s::Taint>& add,
                                          const std::vector<std::string>& remove);
// Replaces the node's taints (what a taint patch leaves).
std::optional<KubectlError> kubectl_set_taints(Cluster& c, const std::string& node, std::vector<k8s::Taint> taints);

}  // namespace eksim::ops
