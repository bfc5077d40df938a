#pragma once
// aws-node on every node: the VPC CNI plugin's ADD/DEL and ipamd's pool of pod addresses
// (models/aws/vpc_cni). A pod without hostNetwork gets an address when the kubelet sets up its
// sandbox, or the plugin's error when the node has none left; the address goes back to the pool
// when the pod ends (Succeeded/Failed, its sandbox torn down) or is deleted, and can be handed
// out again after ipamd's cooldown. Everything is kept per node and per pod, so no call looks at
// other pods.
//
// Pod IPs are drawn from the node's subnet: secondary addresses (or /28 prefixes) from the top of
// the subnet down, while EC2 hands instance primary addresses out from the bottom; a node's
// addresses go back to its subnet when the node goes away. The count of addresses each node holds
// (for the subnet's AvailableIpAddressCount) follows ipamd's warm targets.
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "models/aws/vpc_cni.hpp"
#include "models/k8s/api/api_server.hpp"

namespace eksim {

class Cluster;

class PodNetworking {
 public:
  PodNetworking(Cluster& cluster, aws::VpcCniSettings settings);
  PodNetworking(const PodNetworking&) = delete;
  PodNetworking& operator=(const PodNetworking&) = delete;

  // The CNI ADD for a pod's sandbox (Kubelet::cni_add).
  std::optional<std::string> cni_add(k8s::PodId pod);
  // status.podIP of a pod that got an address (kept after it ended); nullptr when it never got
  // one (hostNetwork pods show the node's).
  const std::string* pod_ip(k8s::PodId pod) const;
  // Pods on the node holding an address (what ipamd's warm targets count from).
  std::int64_t pods_with_addresses(k8s::NodeId node) const;
  const aws::VpcCniSettings& settings() const { return settings_; }

 private:
  struct NodeNet {
    bool present = false;
    aws::NodeAddressPool pool{std::nullopt, 30};
    std::string subnet_id;
    std::int64_t max_enis = 0, ips_per_eni = 0;
    std::vector<std::uint32_t> addresses;  // slot -> IPv4 (numeric)
  };
  struct PodNet {
    bool held = false;
    std::uint32_t slot = 0;
    std::string ip;
  };
  // Addresses of one subnet not yet given to any node, handed out from the top down.
  struct SubnetPool {
    std::uint32_t lowest = 0;      // lowest usable address (network + 4)
    std::uint32_t next_top = 0;    // next address to hand out downwards
    std::deque<std::uint32_t> returned_addresses;  // from nodes that went away
    std::deque<std::uint32_t> returned_prefixes;
  };

  NodeNet* node_net(k8s::NodeId node);
  std::uint32_t take_address(const std::string& subnet_id, bool prefix);
  void release(k8s::PodId pod);
  void node_gone(k8s::NodeId node);
  void addresses_changed(k8s::NodeId node);

  Cluster& cluster_;
  aws::VpcCniSettings settings_;
  std::vector<NodeNet> nodes_;  // by NodeId
  std::vector<PodNet> pods_;    // by PodId
  std::map<std::string, SubnetPool> subnets_;
};

}  // namespace eksim
