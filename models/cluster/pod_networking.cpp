#include "models/cluster/pod_networking.hpp"

#include "models/aws/subnet_addresses.hpp"
#include "models/cluster/cluster.hpp"

namespace eksim {

PodNetworking::PodNetworking(Cluster& cluster, aws::VpcCniSettings settings)
    : cluster_(cluster), settings_(settings) {
  k8s::ApiServer& api = cluster_.api;
  // A pod that has ended no longer has a sandbox: the kubelet's CNI DEL gives its address back.
  api.on_pod_phase.push_back([this, &api](k8s::PodId p) {
    const k8s::PodPhase phase = api.pod(p).pod.status.phase;
    if (phase == k8s::PodPhase::Succeeded || phase == k8s::PodPhase::Failed) release(p);
  });
  api.on_pod_deleted.push_back([this](k8s::PodId p) { release(p); });
  api.on_node.push_back([this](k8s::NodeId n, k8s::NodeChange change) {
    if (change == k8s::NodeChange::Deleted) node_gone(n);
  });
}

PodNetworking::NodeNet* PodNetworking::node_net(k8s::NodeId node) {
  if (node.v >= nodes_.size()) nodes_.resize(node.v + 1);
  NodeNet& n = nodes_[node.v];
  if (n.present) return &n;
  const k8s::NodeRecord& rec = cluster_.api.node(node);
  const aws::Instance* inst = rec.instance_id.empty() ? nullptr : cluster_.ec2.find(rec.instance_id);
  if (inst && inst->type) {
    n.max_enis = inst->type->default_card_enis;
    n.ips_per_eni = inst->type->ipv4_per_eni;
    n.subnet_id = inst->subnet_id;
  }
  n.pool = aws::NodeAddressPool(aws::pod_address_capacity(n.max_enis, n.ips_per_eni, settings_),
                                settings_.ip_cooldown_seconds);
  n.present = true;
  return &n;
}

std::uint32_t PodNetworking::take_address(const std::string& subnet_id, bool prefix) {
  auto [it, fresh] = subnets_.try_emplace(subnet_id);
  SubnetPool& s = it->second;
  if (fresh) {
    const aws::Subnet* subnet = cluster_.ec2.subnet(subnet_id);
    auto block = aws::parse_ipv4_block(subnet ? subnet->cidr : "10.0.0.0/16");
    if (!block) block = aws::parse_ipv4_block("10.0.0.0/16");
    s.lowest = block->first + 4;
    s.next_top = block->last - 1;  // the last address is AWS's
  }
  auto& returned = prefix ? s.returned_prefixes : s.returned_addresses;
  if (!returned.empty()) {
    const std::uint32_t a = returned.front();
    returned.pop_front();
    return a;
  }
  if (!prefix) return s.next_top > s.lowest ? s.next_top-- : s.next_top;
  // An aligned /28 below the cursor.
  const std::uint32_t size = static_cast<std::uint32_t>(aws::kAddressesPerPrefix);
  std::uint32_t start = (s.next_top + 1 - size) & ~(size - 1);
  if (start < s.lowest) start = s.lowest & ~(size - 1);
  s.next_top = start > s.lowest ? start - 1 : s.lowest;
  return start;
}

std::optional<std::string> PodNetworking::cni_add(k8s::PodId pod) {
  const k8s::PodRecord& rec = cluster_.api.pod(pod);
  if (!rec.node.valid()) return std::nullopt;
  if (pod.v >= pods_.size()) pods_.resize(pod.v + 1);
  PodNet& p = pods_[pod.v];
  if (p.held) return std::nullopt;
  NodeNet& n = *node_net(rec.node);
  auto slot = n.pool.assign(cluster_.sim.now().to_seconds());
  if (!slot) return std::string(aws::kAssignIpFailed);
  // A slot the node has not used before takes a fresh secondary address (or, every 16 slots, a
  // fresh /28 prefix) from the subnet.
  while (n.addresses.size() <= *slot) {
    if (settings_.prefix_delegation) {
      const std::uint32_t base = take_address(n.subnet_id, true);
      for (std::uint32_t i = 0; i < aws::kAddressesPerPrefix; ++i) n.addresses.push_back(base + i);
    } else {
      n.addresses.push_back(take_address(n.subnet_id, false));
    }
  }
  p.held = true;
  p.slot = *slot;
  p.ip = engine::format_ipv4(n.addresses[*slot]);
  addresses_changed(rec.node);
  return std::nullopt;
}

const std::string* PodNetworking::pod_ip(k8s::PodId pod) const {
  // An ended pod keeps showing the address it had, as status.podIP does.
  if (pod.v >= pods_.size() || pods_[pod.v].ip.empty()) return nullptr;
  return &pods_[pod.v].ip;
}

std::int64_t PodNetworking::pods_with_addresses(k8s::NodeId node) const {
  if (node.v >= nodes_.size() || !nodes_[node.v].present) return 0;
  return nodes_[node.v].pool.in_use();
}

void PodNetworking::release(k8s::PodId pod) {
  if (pod.v >= pods_.size() || !pods_[pod.v].held) return;
  PodNet& p = pods_[pod.v];
  p.held = false;
  const k8s::NodeId node = cluster_.api.pod(pod).node;
  if (node.valid() && node.v < nodes_.size() && nodes_[node.v].present) {
    nodes_[node.v].pool.release(p.slot, cluster_.sim.now().to_seconds());
    addresses_changed(node);
  }
}

void PodNetworking::node_gone(k8s::NodeId node) {
  if (node.v >= nodes_.size() || !nodes_[node.v].present) return;
  NodeNet& n = nodes_[node.v];
  // The instance's ENIs are deleted with it: their addresses are the subnet's again.
  auto s = subnets_.find(n.subnet_id);
  if (s != subnets_.end()) {
    if (settings_.prefix_delegation) {
      for (std::size_t i = 0; i < n.addresses.size(); i += aws::kAddressesPerPrefix)
        s->second.returned_prefixes.push_back(n.addresses[i]);
    } else {
      for (std::uint32_t a : n.addresses) s->second.returned_addresses.push_back(a);
    }
  }
  n = NodeNet{};
}

void PodNetworking::addresses_changed(k8s::NodeId node) {
  const std::string& instance = cluster_.api.node(node).instance_id;
  if (!instance.empty()) cluster_.ec2.addresses_changed(instance);
}

}  // namespace eksim
