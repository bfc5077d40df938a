#pragma once
// Pod -> CoreDNS, UDP 53. A pod's resolv.conf names the kube-dns Service; kube-proxy sends each
// query to one of the CoreDNS pods (kube-system/coredns), which run on some nodes with their
// node's security groups. A query between two nodes passes only if an egress rule of the pod's
// node and an ingress rule of the CoreDNS node admit UDP 53 (terraform-aws-modules/eks's base
// node SG rules ingress_self_coredns_tcp/_udp do, from the node SG itself); a CoreDNS pod on the
// pod's own node needs no security group. EKS Auto Mode runs CoreDNS on every node as a system
// service, so a pod there always reaches one.
#include <string>

#include "models/k8s/api/api_server.hpp"

namespace eksim {

class Cluster;

// Can a pod on `node` get an answer from some Running CoreDNS pod? false when there is none
// (not installed, or none running: the Service has no endpoints) or every one is on another
// node whose groups drop UDP 53 from this one. Nodes whose instances carry no modelled groups
// let DNS through, as elsewhere.
bool coredns_reachable(Cluster& cluster, k8s::NodeId node);

// Why not, in words for eksim's HINTS ("" when a CoreDNS pod is reachable).
std::string coredns_unreachable_reason(Cluster& cluster, k8s::NodeId node);

}  // namespace eksim
