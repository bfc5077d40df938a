#include "sim/engine/ipv4.hpp"

#include <charconv>

namespace eksim::engine {

std::optional<std::uint32_t> parse_ipv4(std::string_view text) {
  std::uint32_t ip = 0;
  const char* p = text.data();
  const char* end = text.data() + text.size();
  for (int octet = 0; octet < 4; ++octet) {
    if (octet) {
      if (p == end || *p != '.') return std::nullopt;
      ++p;
    }
    if (p == end || *p < '0' || *p > '9') return std::nullopt;
    unsigned v = 0;
    auto [q, ec] = std::from_chars(p, end, v);
    if (ec != std::errc() || v > 255 || q - p > 3) return std::nullopt;
    p = q;
    ip = (ip << 8) | v;
  }
  if (p != end) return std::nullopt;
  return ip;
}

std::string format_ipv4(std::uint32_t ip) {
  return std::to_string(ip >> 24) + "." + std::to_string((ip >> 16) & 255) + "." + std::to_string((ip >> 8) & 255) +
         "." + std::to_string(ip & 255);
}

namespace {
std::uint32_t mask_of(int prefix) { return prefix == 0 ? 0u : ~std::uint32_t{0} << (32 - prefix); }
}  // namespace

std::optional<Ipv4Cidr> Ipv4Cidr::parse(std::string_view text) {
  auto slash = text.find('/');
  auto ip = parse_ipv4(text.substr(0, slash));
  if (!ip) return std::nullopt;
  int prefix = 32;
  if (slash != std::string_view::npos) {
    auto digits = text.substr(slash + 1);
    if (digits.empty() || digits.size() > 2) return std::nullopt;
    auto [q, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), prefix);
    if (ec != std::errc() || q != digits.data() + digits.size() || prefix < 0 || prefix > 32) return std::nullopt;
  }
  return Ipv4Cidr{*ip & mask_of(prefix), prefix};
}

bool Ipv4Cidr::contains(std::uint32_t ip) const { return (ip & mask_of(prefix)) == network; }

std::uint32_t Ipv4Cidr::last() const { return network | ~mask_of(prefix); }

std::string Ipv4Cidr::str() const { return format_ipv4(network) + "/" + std::to_string(prefix); }

}  // namespace eksim::engine
