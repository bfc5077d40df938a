#include "models/aws/vpc_cni.hpp"

#include <algorithm>
#include <cstdio>

namespace eksim::aws {

namespace {

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return b <= 0 ? 0 : (a + b - 1) / b; }

}  // namespace

std::optional<std::int64_t> pod_address_capacity(std::int64_t max_enis, std::int64_t ips_per_eni,
                                                 const VpcCniSettings& cni) {
  if (max_enis < 1 || ips_per_eni < 2) return std::nullopt;
  const std::int64_t slots = max_enis * (ips_per_eni - 1);
  return cni.prefix_delegation ? slots * kAddressesPerPrefix : slots;
}

std::int64_t vpc_cni_node_addresses(std::int64_t max_enis, std::int64_t ips_per_eni, std::int64_t pods,
                                    const VpcCniSettings& cni) {
  pods = std::max<std::int64_t>(0, pods);
  if (max_enis < 1 || ips_per_eni < 2) return 1 + pods;
  const std::int64_t per_eni = ips_per_eni - 1;  // secondary slots on one ENI
  const std::int64_t unit = cni.prefix_delegation ? kAddressesPerPrefix : 1;  // addresses per slot
  std::int64_t slots = 0;  // secondary IPs or prefixes ipamd holds
  if (cni.warm_ip_target || cni.minimum_ip_target) {
    const std::int64_t want = std::max<std::int64_t>(pods + cni.warm_ip_target.value_or(0), cni.minimum_ip_target.value_or(0));
    slots = ceil_div(want, unit);
  } else if (cni.prefix_delegation) {
    slots = ceil_div(pods, unit) + std::max(0, cni.warm_prefix_target);
  } else {
    slots = (ceil_div(pods, per_eni) + std::max(0, cni.warm_eni_target)) * per_eni;
  }
  const std::int64_t enis = std::clamp<std::int64_t>(ceil_div(slots, per_eni), 1, max_enis);
  // Under WARM_ENI_TARGET ipamd fills every ENI it attaches with all its secondary addresses.
  const bool whole_enis = !cni.warm_ip_target && !cni.minimum_ip_target && !cni.prefix_delegation;
  slots = whole_enis ? enis * per_eni : std::min(slots, enis * per_eni);
  return enis + slots * unit;
}

int prefix_delegation_max_pods(int enis, int ipv4_per_eni, int vcpu) {
  if (enis <= 0 || ipv4_per_eni <= 1) return 0;
  const int pods = enis * ((ipv4_per_eni - 1) * static_cast<int>(kAddressesPerPrefix)) + 2;
  return std::min(pods, vcpu < 30 ? 110 : 250);
}

std::optional<std::uint32_t> NodeAddressPool::assign(double now) {
  if (!released_.empty() && released_.front().at + cooldown_ <= now) {
    const std::uint32_t slot = released_.front().slot;
    released_.pop_front();
    ++in_use_;
    return slot;
  }
  if (capacity_ && fresh_ >= *capacity_) return std::nullopt;
  ++in_use_;
  return fresh_++;
}

void NodeAddressPool::release(std::uint32_t slot, double now) {
  --in_use_;
  released_.push_back(Released{slot, now});
}

}  // namespace eksim::aws
