#include "sim/report/catalog_table.hpp"

#include <algorithm>
#include <cctype>
#include <vector>

#include <fmt/format.h>

#include "models/k8s/allocatable.hpp"

namespace eksim::report {

namespace {

// Shortest decimal form: 5 -> "5", 2.5 -> "2.5", 0.256 -> "0.256".
std::string number(double v) { return fmt::format("{}", v); }

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

std::string gpus(const aws::InstanceType& t) {
  if (t.gpu.count == 0) return "-";
  std::string memory = t.gpu.memory_mib % 1024 == 0 ? fmt::format("{}GiB", t.gpu.memory_mib / 1024)
                                                    : fmt::format("{:.1f}GiB", t.gpu.memory_mib / 1024.0);
  std::string s = fmt::format("{}x {} {}", t.gpu.count, upper(t.gpu.name), memory);
  if (t.gpu.interconnect == "nvlink") s += fmt::format(" NVLink {}GB/s", number(t.gpu.nvlink_gbytes_per_s));
  return s;
}

std::string network(const aws::InstanceType& t) {
  if (t.network_up_to)
    return fmt::format("up to {} ({} base) Gbps", number(t.network_burst_gbps), number(t.network_baseline_gbps));
  return fmt::format("{} Gbps", number(t.network_burst_gbps));
}

std::string enis(const aws::InstanceType& t) {
  if (t.network_cards > 1)
    return fmt::format("{}x{} ({} cards)", t.default_card_enis, t.ipv4_per_eni, t.network_cards);
  return fmt::format("{}x{}", t.max_enis, t.ipv4_per_eni);
}

}  // namespace

std::string format_catalog_table(const aws::InstanceCatalog& catalog, std::string_view region) {
  std::vector<std::vector<std::string>> rows;
  rows.push_back({"TYPE", "VCPU", "MEMORY(GiB)", "GPUS", "ARCH", "NETWORK", "ENIxIPS", "MAXPODS", "EFA",
                  "BUCKET", "$/H", "SPOT$/H"});
  for (const auto& t : catalog.all()) {
    const double price = t.on_demand_price(region);
    rows.push_back({t.name, std::to_string(t.vcpu), number(static_cast<double>(t.memory_mib) / 1024.0), gpus(t),
                    t.arch, network(t), enis(t),
                    std::to_string(k8s::eni_max_pods(t.default_card_enis, t.ipv4_per_eni)),
                    t.efa ? "yes" : "no", t.quota_bucket, fmt::format("{:.4f}", price),
                    fmt::format("{:.4f}", price * t.spot_price_factor)});
  }
  // Numbers right-aligned, text left-aligned, two spaces between columns.
  const std::vector<bool> right = {false, true, true, false, false, false, false, true, false, false, true, true};
  std::vector<std::size_t> width(rows[0].size(), 0);
  for (const auto& r : rows)
    for (std::size_t c = 0; c < r.size(); ++c) width[c] = std::max(width[c], r[c].size());
  std::string out = fmt::format("On-demand and typical spot prices for {}\n", region);
  for (const auto& r : rows) {
    std::string line;
    for (std::size_t c = 0; c < r.size(); ++c) {
      if (c > 0) line += "  ";
      line += right[c] ? fmt::format("{:>{}}", r[c], width[c]) : fmt::format("{:<{}}", r[c], width[c]);
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

}  // namespace eksim::report
