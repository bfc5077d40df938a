#include "sim/report/catalog_table.hpp"

#include <algorithm>
#include <cctype>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "models/aws/pricing.hpp"
#include "models/k8s/kubelet/allocatable.hpp"
#include "sim/report/text_table.hpp"

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
  if (t.network_burst_gbps == 0) return t.network_performance.empty() ? "-" : t.network_performance;
  if (t.network_up_to)
    return fmt::format("up to {} ({} base) Gbps", number(t.network_burst_gbps), number(t.network_baseline_gbps));
  return fmt::format("{} Gbps", number(t.network_burst_gbps));
}

std::string enis(const aws::InstanceType& t) {
  if (t.network_cards > 1)
    return fmt::format("{}x{} ({} cards)", t.default_card_enis, t.ipv4_per_eni, t.network_cards);
  return fmt::format("{}x{}", t.max_enis, t.ipv4_per_eni);
}

std::string money(std::optional<double> v) { return v ? fmt::format("{:.4f}", *v) : "-"; }

}  // namespace

bool catalog_matches(const aws::InstanceType& t, const CatalogFilter& f) {
  if (!f.family.empty() && t.family != f.family) return false;
  if (f.gpu && t.gpu.count == 0) return false;
  if (!f.arch.empty() && t.arch != f.arch) return false;
  return t.vcpu >= f.min_vcpu;
}

std::string format_catalog_table(const aws::InstanceCatalog& catalog, std::string_view region) {
  CatalogFilter f;
  f.region = std::string(region);
  return format_catalog_table(catalog, f);
}

std::string format_catalog_json(const aws::InstanceCatalog& catalog, const CatalogFilter& filter) {
  const aws::PriceBook prices(filter.region, {});
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const auto& t : catalog.all()) {
    if (!catalog_matches(t, filter)) continue;
    nlohmann::ordered_json j;
    j["name"] = t.name;
    j["family"] = t.family;
    j["vcpu"] = t.vcpu;
    j["memoryMiB"] = t.memory_mib;
    j["arch"] = t.arch;
    j["gpus"] = t.gpu.count;
    if (!t.gpu.name.empty()) {
      j["gpuName"] = t.gpu.name;
      j["gpuManufacturer"] = t.gpu.manufacturer;
      j["gpuMemoryMiB"] = t.gpu.memory_mib;
    }
    if (t.accelerator.count > 0) {
      j["acceleratorName"] = t.accelerator.name;
      j["acceleratorCount"] = t.accelerator.count;
    }
    j["enis"] = t.default_card_enis;
    j["ipv4PerEni"] = t.ipv4_per_eni;
    j["maxPods"] = t.eks_max_pods;
    j["baselineBandwidthMbps"] = static_cast<std::int64_t>(t.network_baseline_gbps * 1000 + 0.5);
    j["efa"] = t.efa;
    j["hypervisor"] = t.hypervisor;
    j["bareMetal"] = t.bare_metal;
    j["localNvmeGB"] = t.local_nvme_gb;
    j["quotaBucket"] = t.quota_bucket;
    j["region"] = filter.region;
    auto od = prices.on_demand(t);
    auto spot = prices.spot(t);
    j["onDemandUSD"] = od ? nlohmann::ordered_json(od->usd_per_hour) : nlohmann::ordered_json(nullptr);
    j["spotUSD"] = spot ? nlohmann::ordered_json(spot->usd_per_hour) : nlohmann::ordered_json(nullptr);
    j["spotAssumed"] = spot && spot->source == aws::PriceSource::SpotFactor;
    out.push_back(std::move(j));
  }
  return out.dump(2) + "\n";
}

std::string format_catalog_table(const aws::InstanceCatalog& catalog, const CatalogFilter& filter) {
  const aws::PriceBook prices(filter.region, {});
  std::vector<std::vector<std::string>> rows;
  rows.push_back({"TYPE", "VCPU", "MEMORY(GiB)", "GPUS", "ARCH", "NETWORK", "ENIxIPS", "MAXPODS", "EFA",
                  "BUCKET", "$/H", "SPOT$/H"});
  for (const auto& t : catalog.all()) {
    if (!catalog_matches(t, filter)) continue;
    auto od = prices.on_demand(t);
    auto spot = prices.spot(t);
    rows.push_back({t.name, std::to_string(t.vcpu), number(static_cast<double>(t.memory_mib) / 1024.0), gpus(t),
                    t.arch.empty() ? "-" : t.arch, network(t), enis(t),
                    std::to_string(k8s::eni_max_pods(t.default_card_enis, t.ipv4_per_eni)),
                    t.efa ? "yes" : "no", t.quota_bucket.empty() ? "-" : t.quota_bucket,
                    money(od ? std::optional<double>(od->usd_per_hour) : std::nullopt),
                    money(spot ? std::optional<double>(spot->usd_per_hour) : std::nullopt)});
  }
  // Numbers right-aligned, text left-aligned.
  const std::vector<bool> right = {false, true, true, false, false, false, false, true, false, false, true, true};
  return fmt::format("On-demand and typical spot prices for {}\n", filter.region) + aligned_rows(rows, right);
}

}  // namespace eksim::report
