#include "models/k8s/api/services.hpp"

#include <algorithm>

namespace eksim::k8s {

namespace {

std::string key_of(const std::string& ns, const std::string& name) { return ns + "/" + name; }

}  // namespace

ServiceCidr eks_default_service_cidr(std::uint32_t vpc_first) {
  const bool vpc_in_ten = (vpc_first >> 24) == 10;
  if (vpc_in_ten) return {0xAC140000u, 0xAC14FFFFu, "172.20.0.0/16"};
  return {0x0A640000u, 0x0A64FFFFu, "10.100.0.0/16"};
}

std::optional<std::string> ServiceRegistry::refusal(const Service& s) const {
  const std::string& ip = s.cluster_ip;
  if (ip.empty() || ip == "None" || s.type == "ExternalName") return std::nullopt;
  if (const Service* old = find(s.meta.ns, s.meta.name)) {
    if (old->cluster_ip == ip) return std::nullopt;
    return "Service \"" + s.meta.name + "\" is invalid: spec.clusterIPs[0]: Invalid value: []string{\"" + ip +
           "\"}: may not change once set";
  }
  auto a = engine::parse_ipv4(ip);
  if (!a)
    return "Service \"" + s.meta.name + "\" is invalid: spec.clusterIPs[0]: Invalid value: \"" + ip +
           "\": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)";
  const std::string head =
      "Service \"" + s.meta.name + "\" is invalid: spec.clusterIPs: Invalid value: []string{\"" + ip + "\"}: ";
  if (*a <= cidr_.first || *a >= cidr_.last)
    return head + "failed to allocate IP " + ip + ": the provided IP (" + ip +
           ") is not in the valid range. The range of valid IPs is " + cidr_.text;
  if (allocated_.count(*a)) return head + "failed to allocate IP " + ip + ": provided IP is already allocated";
  return std::nullopt;
}

std::string ServiceRegistry::allocate(engine::Rng& rng) {
  // Usable addresses exclude the network and broadcast addresses.
  const std::uint32_t base = cidr_.first + 1;
  const std::uint32_t size = cidr_.last - cidr_.first - 1;
  const std::uint32_t band = std::min<std::uint32_t>(std::max<std::uint32_t>(16, (size + 2) / 16), 256);
  auto scan = [&](std::uint32_t from, std::uint32_t to) -> std::optional<std::uint32_t> {
    if (from >= to) return std::nullopt;
    const std::uint32_t start = from + static_cast<std::uint32_t>(rng.below(to - from));
    for (std::uint32_t i = 0; i < to - from; ++i) {
      const std::uint32_t offset = from + (start - from + i) % (to - from);
      if (!allocated_.count(base + offset)) return offset;
    }
    return std::nullopt;
  };
  auto offset = scan(band, size);
  if (!offset) offset = scan(0, band);
  if (!offset) return "";  // range full: the Service is kept without an address
  return engine::format_ipv4(base + *offset);
}

void ServiceRegistry::assign_node_ports(Service& s, const Service* old, engine::Rng& rng) {
  const std::string key = key_of(s.meta.ns, s.meta.name);
  if (old)
    for (const auto& p : old->ports) node_ports_.erase(p.node_port);
  if (s.type != "NodePort" && s.type != "LoadBalancer") {
    for (auto& p : s.ports) p.node_port = 0;
    return;
  }
  for (auto& p : s.ports) {
    // An update keeps the node port a port had (kubectl apply sends none back).
    if (p.node_port == 0 && old)
      for (const auto& o : old->ports)
        if (o.port == p.port && o.protocol == p.protocol && o.node_port && !node_ports_.count(o.node_port))
          p.node_port = o.node_port;
    if (p.node_port == 0) {
      constexpr int kFirst = 30000, kSize = 2768;  // --service-node-port-range 30000-32767
      const int start = static_cast<int>(rng.below(kSize));
      for (int i = 0; i < kSize && p.node_port == 0; ++i)
        if (!node_ports_.count(kFirst + (start + i) % kSize)) p.node_port = kFirst + (start + i) % kSize;
    }
    if (p.node_port) node_ports_[p.node_port] = key;
  }
}

const Service& ServiceRegistry::apply(Service s, engine::Rng& rng, engine::SimTime now) {
  const std::string key = key_of(s.meta.ns, s.meta.name);
  auto it = services_.find(key);
  if (it != services_.end()) {
    s.cluster_ip = it->second.cluster_ip;
    s.meta.creation_timestamp = it->second.meta.creation_timestamp;
    s.meta.uid = it->second.meta.uid;
    assign_node_ports(s, &it->second, rng);
    it->second = std::move(s);
    return it->second;
  }
  s.meta.creation_timestamp = now;
  assign_node_ports(s, nullptr, rng);
  if (s.type == "ExternalName") {
    s.cluster_ip.clear();
  } else if (s.cluster_ip != "None") {
    if (s.cluster_ip.empty() || refusal(s)) s.cluster_ip = allocate(rng);
    if (auto a = engine::parse_ipv4(s.cluster_ip)) allocated_[*a] = key;
  }
  return services_[key] = std::move(s);
}

bool ServiceRegistry::remove(const std::string& ns, const std::string& name) {
  auto it = services_.find(key_of(ns, name));
  if (it == services_.end()) return false;
  if (auto a = engine::parse_ipv4(it->second.cluster_ip)) allocated_.erase(*a);
  for (const auto& p : it->second.ports) node_ports_.erase(p.node_port);
  services_.erase(it);
  return true;
}

const Service* ServiceRegistry::find(const std::string& ns, const std::string& name) const {
  auto it = services_.find(key_of(ns, name));
  return it == services_.end() ? nullptr : &it->second;
}

}  // namespace eksim::k8s
