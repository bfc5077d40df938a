#pragma once
// IPv4 addresses as host-order integers, their dotted-quad text, and CIDR blocks. Both AWS (VPC and subnet
// CIDRs, ENIs, security group rules) and Kubernetes (Service ClusterIPs) hold addresses; these are
// the one parser and printer they share.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace eksim::engine {

// "10.0.1.23" -> 0x0A000117; nullopt unless the whole text is four decimal octets 0-255 of at
// most three digits.
std::optional<std::uint32_t> parse_ipv4(std::string_view text);
std::string format_ipv4(std::uint32_t ip);

struct Ipv4Cidr {
  std::uint32_t network = 0;  // host order, host bits cleared
  int prefix = 0;             // 0..32
  // "192.168.0.0/16"; a bare address means /32. Host bits set in the address are cleared, as
  // EC2 does when it stores a rule or a subnet's block.
  static std::optional<Ipv4Cidr> parse(std::string_view text);
  bool contains(std::uint32_t ip) const;
  std::uint32_t first() const { return network; }
  std::uint32_t last() const;
  std::int64_t size() const { return std::int64_t{1} << (32 - prefix); }
  std::string str() const;
  bool operator==(const Ipv4Cidr&) const = default;
};

}  // namespace eksim::engine
