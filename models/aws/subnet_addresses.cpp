#include "models/aws/subnet_addresses.hpp"

#include <algorithm>
#include <cstdio>

namespace eksim::aws {

std::optional<std::int64_t> cidr_block_size(std::string_view cidr) {
  unsigned a = 0, b = 0, c = 0, d = 0, prefix = 0;
  char tail = 0;
  std::string text(cidr);
  if (std::sscanf(text.c_str(), "%u.%u.%u.%u/%u%c", &a, &b, &c, &d, &prefix, &tail) != 5) return std::nullopt;
  if (a > 255 || b > 255 || c > 255 || d > 255 || prefix > 32) return std::nullopt;
  return std::int64_t{1} << (32 - prefix);
}

std::optional<Ipv4Block> parse_ipv4_block(std::string_view cidr) {
  unsigned a = 0, b = 0, c = 0, d = 0, prefix = 0;
  char tail = 0;
  std::string text(cidr);
  if (std::sscanf(text.c_str(), "%u.%u.%u.%u/%u%c", &a, &b, &c, &d, &prefix, &tail) != 5) return std::nullopt;
  if (a > 255 || b > 255 || c > 255 || d > 255 || prefix > 32) return std::nullopt;
  const std::uint32_t address = (a << 24) | (b << 16) | (c << 8) | d;
  const std::uint32_t host_mask = prefix == 0 ? 0xFFFFFFFFu : (std::uint32_t{1} << (32 - prefix)) - 1;
  return Ipv4Block{address & ~host_mask, (address & ~host_mask) | host_mask};
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
