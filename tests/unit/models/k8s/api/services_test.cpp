// Services: EKS's default Service CIDR and kube-apiserver's ClusterIP allocator.
#include "models/k8s/api/services.hpp"

#include <gtest/gtest.h>

#include <set>

namespace eksim::k8s {
namespace {

Service svc(const std::string& name, const std::string& ip = "") {
  Service s;
  s.meta.name = name;
  s.meta.ns = "default";
  s.cluster_ip = ip;
  s.ports = {ServicePort{"http", "TCP", 80, "8080", 0}};
  return s;
}

std::uint32_t address(const std::string& ip) {
  auto a = engine::parse_ipv4(ip);
  EXPECT_TRUE(a) << ip;
  return a.value_or(0);
}

TEST(ServiceCidr, EksPicksTheBlockThatDoesNotOverlapTheVpc) {
  EXPECT_EQ(eks_default_service_cidr(address("10.0.0.0")).text, "172.20.0.0/16");
  EXPECT_EQ(eks_default_service_cidr(address("192.168.0.0")).text, "10.100.0.0/16");
  EXPECT_EQ(eks_default_service_cidr(address("172.31.0.0")).text, "10.100.0.0/16");
}

TEST(ServiceRegistry, DynamicAddressesComeFromAboveTheStaticBand) {
  ServiceRegistry r;
  engine::Rng rng(7);
  std::set<std::string> seen;
  for (int i = 0; i < 200; ++i) {
    std::string name = "s";  // not "s" + std::to_string(i): GCC 12 warns falsely (-Wrestrict) on that
    name += std::to_string(i);
    const Service& s = r.apply(svc(name), rng, engine::SimTime{});
    const std::uint32_t a = address(s.cluster_ip);
    // 172.20.0.0/16: the first 256 usable addresses (172.20.0.1-172.20.1.0) are the static band.
    EXPECT_GT(a, address("172.20.1.0")) << s.cluster_ip;
    EXPECT_LT(a, address("172.20.255.255")) << s.cluster_ip;
    EXPECT_TRUE(seen.insert(s.cluster_ip).second) << "allocated twice: " << s.cluster_ip;
  }
  // Asked-for addresses in the static band are given as asked.
  EXPECT_EQ(r.apply(svc("dns", "172.20.0.10"), rng, engine::SimTime{}).cluster_ip, "172.20.0.10");
}

TEST(ServiceRegistry, ReappliedServiceKeepsItsAddressAndCreationTime) {
  ServiceRegistry r;
  engine::Rng rng(1);
  const std::string ip = r.apply(svc("web"), rng, engine::SimTime{engine::Duration::seconds(5).us}).cluster_ip;
  Service again = svc("web");
  again.ports[0].port = 81;
  const Service& s = r.apply(again, rng, engine::SimTime{engine::Duration::seconds(60).us});
  EXPECT_EQ(s.cluster_ip, ip);
  EXPECT_EQ(s.ports[0].port, 81);
  EXPECT_EQ(s.meta.creation_timestamp.us, engine::Duration::seconds(5).us);
  EXPECT_TRUE(r.remove("default", "web"));
  EXPECT_FALSE(r.remove("default", "web"));
}

TEST(ServiceRegistry, RefusesAddressesAsTheApiserverDoes) {
  ServiceRegistry r;
  engine::Rng rng(1);
  r.apply(svc("dns", "172.20.0.10"), rng, engine::SimTime{});
  EXPECT_EQ(r.refusal(svc("other", "172.20.0.10")).value_or(""),
            "Service \"other\" is invalid: spec.clusterIPs: Invalid value: []string{\"172.20.0.10\"}: failed to "
            "allocate IP 172.20.0.10: provided IP is already allocated");
  EXPECT_EQ(r.refusal(svc("other", "10.0.0.5")).value_or(""),
            "Service \"other\" is invalid: spec.clusterIPs: Invalid value: []string{\"10.0.0.5\"}: failed to allocate "
            "IP 10.0.0.5: the provided IP (10.0.0.5) is not in the valid range. The range of valid IPs is 172.20.0.0/16");
  EXPECT_EQ(r.refusal(svc("dns", "172.20.0.11")).value_or(""),
            "Service \"dns\" is invalid: spec.clusterIPs[0]: Invalid value: []string{\"172.20.0.11\"}: may not change "
            "once set");
  EXPECT_FALSE(r.refusal(svc("dns", "172.20.0.10")));  // unchanged
  EXPECT_FALSE(r.refusal(svc("headless", "None")));
  EXPECT_TRUE(r.refusal(svc("bad", "172.20.0.300")));
}

TEST(ServiceRegistry, NodePortsAreDrawnFromTheNodePortRange) {
  ServiceRegistry r;
  engine::Rng rng(3);
  Service s = svc("np");
  s.type = "NodePort";
  const Service& got = r.apply(s, rng, engine::SimTime{});
  const int port = got.ports[0].node_port;
  EXPECT_GE(port, 30000);
  EXPECT_LE(port, 32767);
  // kubectl apply of the same Service (no nodePort in it) keeps the port; back to ClusterIP frees it.
  EXPECT_EQ(r.apply(s, rng, engine::SimTime{}).ports[0].node_port, port);
  Service cluster_ip = svc("np");
  EXPECT_EQ(r.apply(cluster_ip, rng, engine::SimTime{}).ports[0].node_port, 0);
  Service other = svc("other");
  other.type = "NodePort";
  other.ports[0].node_port = port;
  EXPECT_EQ(r.apply(other, rng, engine::SimTime{}).ports[0].node_port, port);
}

}  // namespace
}  // namespace eksim::k8s
