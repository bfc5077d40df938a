#pragma once
// core/v1 Services as kube-apiserver stores them, and the ClusterIP allocator that gives each its
// address. eksim routes no traffic through them: they are what `kubectl get svc` / `get all`
// lists (EKS's kubernetes, kube-dns and eks-extension-metrics-api, the charts' Services, the
// user's own), with the addresses a real cluster of that shape would show.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "models/k8s/api/objects.hpp"
#include "sim/engine/ipv4.hpp"
#include "sim/engine/rng.hpp"

namespace eksim::k8s {

struct ServicePort {
  std::string name;
  std::string protocol = "TCP";
  int port = 0;
  std::string target_port;  // IntOrString as written; empty means the same as port
  int node_port = 0;        // NodePort and LoadBalancer Services
};

struct Service {
  ObjectMeta meta;
  std::string type = "ClusterIP";  // ClusterIP | NodePort | LoadBalancer | ExternalName
  std::string cluster_ip;          // requested (or "None", headless) on input; allocated on apply
  std::vector<ServicePort> ports;
  Labels selector;
  std::string external_name;  // ExternalName Services
};

// The Service CIDR as an address range, [first, last] inclusive, and its text ("172.20.0.0/16").
struct ServiceCidr {
  std::uint32_t first = 0;
  std::uint32_t last = 0;
  std::string text;
};

// EKS's default Service CIDR when CreateCluster names none: 172.20.0.0/16 when the VPC's CIDR
// is within 10.0.0.0/8 (so the two do not overlap), 10.100.0.0/16 otherwise.
ServiceCidr eks_default_service_cidr(std::uint32_t vpc_first);

class ServiceRegistry {
 public:
  void set_cidr(ServiceCidr cidr) { cidr_ = std::move(cidr); }
  const ServiceCidr& cidr() const { return cidr_; }
  // The address at an offset into the CIDR: 1 is the kubernetes Service's, 10 the cluster DNS's.
  std::string address_at(std::uint32_t offset) const { return engine::format_ipv4(cidr_.first + offset); }

  // Why kube-apiserver would refuse this Service's ClusterIP ("The Service \"x\" is invalid:
  // ..."), or nullopt. A Service being replaced keeps its address (spec.clusterIP is immutable).
  std::optional<std::string> refusal(const Service& s) const;
  // Creates or replaces the Service as an apply does: a new one gets the address it asked for,
  // or one the allocator draws from `rng`; a replaced one keeps its address and creation time.
  // Call refusal() first; an address it refuses is replaced by a drawn one here.
  const Service& apply(Service s, engine::Rng& rng, engine::SimTime now);
  bool remove(const std::string& ns, const std::string& name);
  const Service* find(const std::string& ns, const std::string& name) const;
  // By "ns/name".
  const std::map<std::string, Service>& all() const { return services_; }

 private:
  // The allocator of pkg/registry/core/service/ipallocator: dynamic addresses come from the
  // range above the first min(max(16, size/16), 256) (the static band kept for addresses users
  // and installers pick, as .10 for DNS), at a random offset, the next free one after it if taken.
  std::string allocate(engine::Rng& rng);
  // Node ports of a NodePort or LoadBalancer Service, from --service-node-port-range; an update
  // keeps those its ports had (`old`), a type changed to ClusterIP gives them back.
  void assign_node_ports(Service& s, const Service* old, engine::Rng& rng);
  ServiceCidr cidr_{0xAC140000u, 0xAC14FFFFu, "172.20.0.0/16"};
  std::map<std::string, Service> services_;
  std::map<std::uint32_t, std::string> allocated_;  // address -> "ns/name"
  std::map<int, std::string> node_ports_;            // --service-node-port-range 30000-32767
};

}  // namespace eksim::k8s
