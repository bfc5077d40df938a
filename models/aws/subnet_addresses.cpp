#include "models/aws/subnet_addresses.hpp"

#include <algorithm>

#include "sim/engine/ipv4.hpp"

namespace eksim::aws {

namespace {

// A subnet's or VPC's block must be written with its prefix ("10.0.1.0/24").
std::optional<engine::Ipv4Cidr> block_of(std::string_view cidr) {
  if (cidr.find('/') == std::string_view::npos) return std::nullopt;
  return engine::Ipv4Cidr::parse(cidr);
}

}  // namespace

std::optional<std::int64_t> cidr_block_size(std::string_view cidr) {
  auto block = block_of(cidr);
  if (!block) return std::nullopt;
  return block->size();
}

std::optional<Ipv4Block> parse_ipv4_block(std::string_view cidr) {
  auto block = block_of(cidr);
  if (!block) return std::nullopt;
  return Ipv4Block{block->first(), block->last()};
}

AwsError invalid_subnet_range_error(std::string_view cidr) {
  return AwsError{"InvalidSubnet.Range", "The CIDR '" + std::string(cidr) + "' is invalid."};
}

AwsError subnet_conflict_error(std::string_view cidr) {
  return AwsError{"InvalidSubnet.Conflict", "The CIDR '" + std::string(cidr) + "' conflicts with another subnet"};
}

std::int64_t usable_subnet_addresses(std::string_view cidr) {
  auto size = cidr_block_size(cidr);
  if (!size) return 0;
  return std::max<std::int64_t>(0, *size - kSubnetReservedAddresses);
}

AwsError insufficient_free_addresses_error(std::string_view subnet_id) {
  return AwsError{"InsufficientFreeAddressesInSubnet",
                  "There are not enough free addresses in subnet '" + std::string(subnet_id) +
                      "' to satisfy the requested number of instances."};
}

}  // namespace eksim::aws
