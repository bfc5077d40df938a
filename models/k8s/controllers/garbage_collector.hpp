#pragma once
// What kube-controller-manager's garbage collector does when an owner is deleted with the
// default propagation (background): each dependent pod still there is deleted in turn, with its
// own grace period. The workload controllers call this from their remove(); the GC's latency
// (milliseconds) is not modelled.
#include <vector>

#include "models/k8s/api/api_server.hpp"

namespace eksim::k8s {

class Kubelet;

// Deletes the pods not already deleted or terminating: gracefully through the kubelet, or at
// once when there is none (a controller tested alone).
void delete_dependents(ApiServer& api, Kubelet* kubelet, const std::vector<PodId>& pods);

}  // namespace eksim::k8s
