#include "models/cluster/registry_access.hpp"

#include <cstdint>

#include "models/aws/security_groups.hpp"
#include "models/cluster/cluster.hpp"

namespace eksim {

ImageReference parse_image_reference(const std::string& image) {
  ImageReference r;
  std::string rest = image;
  // distribution/reference: the first component is a domain when it has a dot or a port, or is
  // localhost; otherwise the image is on Docker Hub, and a one-component name is in library/.
  auto slash = rest.find('/');
  std::string first = slash == std::string::npos ? std::string() : rest.substr(0, slash);
  if (!first.empty() && (first.find('.') != std::string::npos || first.find(':') != std::string::npos ||
                         first == "localhost")) {
    r.domain = first;
    rest = rest.substr(slash + 1);
  } else {
    r.domain = "docker.io";
    if (slash == std::string::npos) rest = "library/" + rest;
  }
  r.host = r.domain == "docker.io" ? "registry-1.docker.io" : r.domain;
  if (auto at = rest.find('@'); at != std::string::npos) {
    r.repository = rest.substr(0, at);
    r.reference = rest.substr(at + 1);
    return r;
  }
  auto colon = rest.rfind(':');
  if (colon != std::string::npos && rest.find('/', colon) == std::string::npos) {
    r.repository = rest.substr(0, colon);
    r.reference = rest.substr(colon + 1);
  } else {
    r.repository = rest;
    r.reference = "latest";
  }
  return r;
}

std::string ImageReference::full() const {
  bool digest = reference.find(':') != std::string::npos;  // sha256:...
  return domain + "/" + repository + (digest ? "@" : ":") + reference;
}

bool is_ecr_host(const std::string& host) {
  const std::string suffix = ".amazonaws.com";
  return host.find(".dkr.ecr.") != std::string::npos && host.size() > suffix.size() &&
         host.compare(host.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string registry_dial_timeout_error(const ImageReference& ref, const std::string& ip) {
  const std::string full = ref.full();
  return "rpc error: code = Unknown desc = failed to pull and unpack image \"" + full +
         "\": failed to resolve reference \"" + full + "\": failed to do request: Head \"https://" + ref.host +
         "/v2/" + ref.repository + "/manifests/" + ref.reference + "\": dial tcp " + ip + ":443: i/o timeout";
}

namespace {

// A public registry's name resolves to addresses of its operator's (CDN, AWS) ranges, different
// from one query to the next; a fixed address per host stands for them (FNV-1a of the name, in
// 52.0.0.0/8: outside any VPC a scenario can declare with a private CIDR).
std::uint32_t public_address(const std::string& host) {
  std::uint32_t h = 2166136261u;
  for (unsigned char ch : host) h = (h ^ ch) * 16777619u;
  std::uint32_t low = h & 0xFFFFFFu;
  if ((low & 0xFFu) == 0 || (low & 0xFFu) == 0xFFu) low ^= 0x01u;
  return (52u << 24) | low;
}

const VpcEndpointSpec* endpoint(const ClusterSpec& spec, const std::string& service) {
  for (const auto& e : spec.vpc_endpoints)
    if (e.service == service) return &e;
  return nullptr;
}

// The interface endpoint's ENI in the instance's subnet (one per subnet the endpoint spans); its
// address stands in as the subnet's tenth.
std::uint32_t endpoint_address(const ClusterSpec& spec, const aws::Instance& inst) {
  for (const auto& s : spec.subnets)
    if (s.id == inst.subnet_id)
      if (auto cidr = engine::Ipv4Cidr::parse(s.cidr)) return cidr->network + 10;
  if (!spec.subnets.empty())
    if (auto cidr = engine::Ipv4Cidr::parse(spec.subnets.front().cidr)) return cidr->network + 10;
  return 0;
}

}  // namespace

std::optional<std::string> registry_pull_error(const Cluster& cluster, const aws::Instance& inst,
                                               const std::string& image) {
  if (inst.security_groups.empty()) return std::nullopt;
  ImageReference ref = parse_image_reference(image);
  aws::Eni node{engine::parse_ipv4(inst.private_ip).value_or(0), inst.security_groups};
  const ClusterSpec& spec = cluster.spec();
  const VpcEndpointSpec* dkr = endpoint(spec, "ecr.dkr");
  if (is_ecr_host(ref.host) && dkr && endpoint(spec, "s3")) {
    // Private DNS on the endpoint: ECR's name answers with the endpoint's ENI addresses.
    aws::Eni eni{endpoint_address(spec, inst), dkr->security_groups};
    if (cluster.security_groups.reachable(node, eni, "tcp", 443)) return std::nullopt;
    return registry_dial_timeout_error(ref, engine::format_ipv4(eni.ip));
  }
  std::uint32_t ip = public_address(ref.host);
  if (cluster.security_groups.egress_allowed(node, ip, "tcp", 443)) return std::nullopt;
  return registry_dial_timeout_error(ref, engine::format_ipv4(ip));
}

}  // namespace eksim
