#pragma once
// The Amazon VPC CNI's address management (ipamd, amazon-vpc-cni-k8s pkg/ipamd): how many pod
// addresses a node can hand out, how many subnet addresses it holds for them, and one node's pool
// of pod addresses. Pure rules and state; the cluster glue (models/cluster/pod_networking) calls
// them when the kubelet asks the CNI for a pod's network and when a pod ends.
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <vector>

namespace eksim::aws {

// aws-node's environment as the vpc-cni EKS add-on's configuration_values set it (`env`), with
// the add-on's defaults (amazon-vpc-cni-k8s config/master/aws-k8s-cni.yaml: WARM_ENI_TARGET "1",
// WARM_PREFIX_TARGET "1", ENABLE_PREFIX_DELEGATION "false"; WARM_IP_TARGET and MINIMUM_IP_TARGET
// unset).
struct VpcCniSettings {
  bool prefix_delegation = false;  // ENABLE_PREFIX_DELEGATION: /28 prefixes instead of secondary IPs
  int warm_eni_target = 1;         // WARM_ENI_TARGET: whole free ENIs ipamd keeps attached
  int warm_prefix_target = 1;      // WARM_PREFIX_TARGET: free /28 prefixes kept (prefix mode)
  std::optional<int> warm_ip_target;     // WARM_IP_TARGET: free addresses kept (wins over WARM_ENI/PREFIX)
  std::optional<int> minimum_ip_target;  // MINIMUM_IP_TARGET: addresses held at least
  // IP_COOLDOWN_PERIOD (seconds, default 30): ipamd does not hand out an address a pod released
  // more recently (datastore getCooldownPeriod), so a stale route cannot reach the next pod.
  int ip_cooldown_seconds = 30;
};

// A /28 prefix: 16 addresses, each usable by a pod (ipamd prefix mode).
inline constexpr std::int64_t kAddressesPerPrefix = 16;

// The CNI plugin's error when ipamd has no address for a pod (cmd/routed-eni-cni-plugin/cni.go),
// as libcni wraps it for the plugin named aws-cni in EKS's 10-aws.conflist.
inline constexpr const char* kAssignIpFailed =
    "plugin type=\"aws-cni\" name=\"aws-cni\" failed (add): add cmd: failed to assign an IP address to container";

// Pod addresses a node can ever hand out (the primary address of each ENI is the ENI's own):
// secondary-IP mode max_enis x (ips_per_eni - 1); prefix mode max_enis x (ips_per_eni - 1) x 16
// (each secondary slot holds a /28 instead). Without catalog data (max_enis or ips_per_eni < 2),
// unlimited (nullopt).
std::optional<std::int64_t> pod_address_capacity(std::int64_t max_enis, std::int64_t ips_per_eni,
                                                 const VpcCniSettings& cni);

// Subnet addresses a node holds with `pods` pods using an address, after ipamd has met its warm
// targets:
// - WARM_IP_TARGET / MINIMUM_IP_TARGET set: max(pods + WARM_IP_TARGET, MINIMUM_IP_TARGET)
//   secondaries (rounded up to whole /28s in prefix mode), on as many ENIs as they need;
// - else prefix mode: prefixes for the pods plus WARM_PREFIX_TARGET free ones;
// - else WARM_ENI_TARGET: whole ENIs, ceil(pods / per-ENI) + WARM_ENI_TARGET of them.
// Each attached ENI also holds its primary address; the total is capped by the instance type's
// ENIs. Without catalog data (max_enis or ips_per_eni < 2): one address per pod plus the node's
// own. Sources: amazon-vpc-cni-k8s docs/eni-and-ip-target.md, docs/prefix-and-ip-target.md.
std::int64_t vpc_cni_node_addresses(std::int64_t max_enis, std::int64_t ips_per_eni, std::int64_t pods,
                                    const VpcCniSettings& cni = {});

// max-pods-calculator.sh --cni-prefix-delegation-enabled: ENIs x ((IPv4 per ENI - 1) x 16) + 2,
// capped at 110 below 30 vCPUs and 250 above (the value EKS managed node groups use when the
// vpc-cni add-on has prefix delegation on).
int prefix_delegation_max_pods(int enis, int ipv4_per_eni, int vcpu);

// One node's pod addresses, as ipamd's datastore keeps them: slot k is the node's k-th pod
// address (an index the caller maps to an IP). Released slots are reused first-released first,
// once cooled down; fresh slots are taken in order up to the capacity. Times are seconds.
class NodeAddressPool {
 public:
  NodeAddressPool(std::optional<std::int64_t> capacity, double cooldown_seconds)
      : capacity_(capacity), cooldown_(cooldown_seconds) {}
  // A slot for a new pod at `now`, or nullopt when every address is in use or cooling down.
  std::optional<std::uint32_t> assign(double now);
  void release(std::uint32_t slot, double now);
  std::int64_t in_use() const { return in_use_; }

 private:
  struct Released {
    std::uint32_t slot;
    double at;
  };
  std::optional<std::int64_t> capacity_;
  double cooldown_ = 30;
  std::uint32_t fresh_ = 0;  // slots ever handed out
  std::int64_t in_use_ = 0;
  std::deque<Released> released_;  // in release order, so the front cools down first
};

}  // namespace eksim::aws
