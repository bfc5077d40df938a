#include "models/net/nccl_version.hpp"

#include <array>
#include <cctype>
#include <charconv>

namespace eksim::net {

namespace {

// Leading "<a>.<b>[.<c>]" of text; what follows is left in rest.
std::optional<std::array<int, 3>> dotted(std::string_view text, std::string_view& rest) {
  std::array<int, 3> v{0, 0, 0};
  const char* p = text.data();
  const char* end = text.data() + text.size();
  std::size_t parts = 0;
  while (parts < 3) {
    auto [next, ec] = std::from_chars(p, end, v[parts]);
    if (ec != std::errc{}) break;
    ++parts;
    p = next;
    if (parts == 3 || end - p < 2 || *p != '.' || !std::isdigit(static_cast<unsigned char>(p[1]))) break;
    ++p;
  }
  if (parts < 2) return std::nullopt;
  rest = std::string_view(p, static_cast<std::size_t>(end - p));
  return v;
}

}  // namespace

std::string NcclVersion::text() const {
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

std::string NcclVersion::banner() const { return cuda.empty() ? text() : text() + "+cuda" + cuda; }

std::optional<NcclVersion> parse_nccl_version(std::string_view text) {
  std::string_view rest;
  auto v = dotted(text, rest);
  if (!v || (*v)[0] != 2) return std::nullopt;
  if (!rest.empty() && rest.front() != '-' && rest.front() != '+') return std::nullopt;
  return NcclVersion{(*v)[0], (*v)[1], (*v)[2], ""};
}

std::optional<NcclVersion> nccl_version_of_image(std::string_view image) {
  const auto colon = image.rfind(':');
  const auto slash = image.rfind('/');
  if (colon == std::string_view::npos || (slash != std::string_view::npos && colon < slash)) return std::nullopt;
  if (image.substr(0, colon).find("pytorch") == std::string_view::npos) return std::nullopt;
  std::string_view tag = image.substr(colon + 1), rest;
  auto torch = dotted(tag, rest);
  if (!torch || (*torch)[0] != 2) return std::nullopt;
  NcclVersion v;
  switch ((*torch)[1]) {
    case 5:
    case 6: v = {2, 21, 5, ""}; break;
    case 7: v = {2, 26, 2, ""}; break;
    case 8: v = {2, 27, 3, ""}; break;
    case 9:
    case 10: v = {2, 27, 5, ""}; break;
    case 11: v = {2, 28, 9, ""}; break;
    default: return std::nullopt;
  }
  const auto cuda = rest.find("cuda");
  if (cuda != std::string_view::npos) {
    std::string_view after = rest.substr(cuda + 4), tail;
    if (auto c = dotted(after, tail)) v.cuda = std::to_string((*c)[0]) + "." + std::to_string((*c)[1]);
  }
  return v;
}

NcclVersion nccl_version_of(const k8s::Container& container) {
  const std::string env = k8s::env_of(container, "NCCL_VERSION");
  if (auto v = parse_nccl_version(env)) return *v;
  if (auto v = nccl_version_of_image(container.image)) return *v;
  return NcclVersion{};
}

}  // namespace eksim::net
