#pragma once
// How many private IPv4 addresses a subnet has left (DescribeSubnets AvailableIpAddressCount),
// and how many an EKS node takes from it with the Amazon VPC CNI's defaults. Pure rules; Ec2 sums
// them over its instances and refuses a launch into a subnet with no free address.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "models/aws/aws_error.hpp"
#include "models/aws/vpc_cni.hpp"

namespace eksim::aws {

// AWS reserves the first four addresses and the last one of every subnet (network address, VPC
// router, DNS, future use, broadcast). Source: Amazon VPC user guide, "Subnet CIDR blocks".
inline constexpr std::int64_t kSubnetReservedAddresses = 5;

// Addresses in a CIDR block: 2^(32 - prefix); "10.0.0.0/28" -> 16. nullopt when the text is not
// an IPv4 CIDR.
std::optional<std::int64_t> cidr_block_size(std::string_view cidr);
// What a fresh subnet offers to instances: the block size minus the 5 reserved addresses
// ("/28" -> 11, "/24" -> 251). 0 for an unparsable CIDR.
std::int64_t usable_subnet_addresses(std::string_view cidr);

// Addresses one EKS node holds with the Amazon VPC CNI: vpc_cni_node_addresses in
// models/aws/vpc_cni.hpp. With the default WARM_ENI_TARGET=1 ipamd keeps one whole ENI's worth
// of secondary addresses free, so it attaches ENIs until the free secondaries reach
// (ips_per_eni - 1), up to the instance type's ENI limit; each attached ENI holds all of its
// addresses whether pods use them or not. The EKS best-practices guide: "a m5.8xlarge node that
// is running 10 pods will hold 60 IPs total (to satisfy WARM_ENI=1)".


// An IPv4 CIDR block as the range of addresses it covers (host bits of the address ignored, as
// the block's network is what EC2 compares).
struct Ipv4Block {
  std::uint32_t first = 0;
  std::uint32_t last = 0;
  bool contains(const Ipv4Block& inner) const { return first <= inner.first && inner.last <= last; }
  bool overlaps(const Ipv4Block& other) const { return first <= other.last && other.first <= last; }
};
// nullopt when the text is not an IPv4 CIDR.
std::optional<Ipv4Block> parse_ipv4_block(std::string_view cidr);

// CreateSubnet with a CIDR outside the VPC's, code InvalidSubnet.Range: "The CIDR '10.10.1.0/24'
// is invalid." (the EC2 API error as Terraform and Pulumi print it, e.g. pulumi/pulumi-awsx#111).
AwsError invalid_subnet_range_error(std::string_view cidr);
// CreateSubnet with a CIDR that overlaps a subnet of the VPC, code InvalidSubnet.Conflict: "The
// CIDR '10.0.0.0/24' conflicts with another subnet" (as the Terraform AWS provider prints it).
AwsError subnet_conflict_error(std::string_view cidr);

// RunInstances into a subnet with no free address, code InsufficientFreeAddressesInSubnet:
// "There are not enough free addresses in subnet 'subnet-04a176042c3118735' to satisfy the
// requested number of instances." (the EC2 API error as the CLI and Auto Scaling activities show
// it, e.g. osbuild/osbuild-composer#1575, PrairieLearn/PrairieLearn#3271).
AwsError insufficient_free_addresses_error(std::string_view subnet_id);

}  // namespace eksim::aws
