#pragma once
// Control plane -> kubelet, TCP 10250: `kubectl logs`, `exec` and `port-forward` go through the API
// server, which dials the node's kubelet from the control plane's ENIs in the VPC (they carry the
// cluster security group). The module's node SG admits them with ingress_cluster_kubelet.
#include <optional>
#include <string>

#include "models/k8s/api/api_server.hpp"

namespace eksim {

class Cluster;

// nullopt when the API server can reach the node's kubelet (or the path is not modelled: no
// cluster security group, or an instance without groups); else the dial error the API server
// returns, "dial tcp IP:10250: i/o timeout".
std::optional<std::string> kubelet_dial_error(const Cluster& cluster, const k8s::NodeRecord& node);

}  // namespace eksim
