#include "models/aws/instance_catalog.hpp"

#include <algorithm>
#include <cctype>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "models/data_files.hpp"

namespace eksim::aws {

namespace {

using nlohmann::json;

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw std::runtime_error("instance catalog: " + path + ": " + what);
}

const json& member(const json& obj, const std::string& path, const char* key) {
  if (!obj.is_object()) fail(path, "expected an object");
  auto it = obj.find(key);
  if (it == obj.end()) fail(path + "." + key, "missing");
  return *it;
}

std::string get_string(const json& obj, const std::string& path, const char* key) {
  const json& v = member(obj, path, key);
  if (!v.is_string()) fail(path + "." + key, "expected a string");
  return v.get<std::string>();
}

double get_number(const json& obj, const std::string& path, const char* key) {
  const json& v = member(obj, path, key);
  if (!v.is_number()) fail(path + "." + key, "expected a number");
  double d = v.get<double>();
  if (d < 0) fail(path + "." + key, "must not be negative");
  return d;
}

std::int64_t get_int(const json& obj, const std::string& path, const char* key) {
  const json& v = member(obj, path, key);
  if (!v.is_number_integer()) fail(path + "." + key, "expected an integer");
  auto i = v.get<std::int64_t>();
  if (i < 0) fail(path + "." + key, "must not be negative");
  return i;
}

bool get_bool(const json& obj, const std::string& path, const char* key) {
  const json& v = member(obj, path, key);
  if (!v.is_boolean()) fail(path + "." + key, "expected true or false");
  return v.get<bool>();
}

GpuInfo parse_gpu(const json& g, const std::string& path) {
  GpuInfo gpu;
  if (g.is_null()) return gpu;
  gpu.count = static_cast<int>(get_int(g, path, "count"));
  gpu.manufacturer = get_string(g, path, "manufacturer");
  gpu.name = get_string(g, path, "name");
  gpu.memory_mib = get_int(g, path, "memory_mib");
  gpu.interconnect = get_string(g, path, "interconnect");
  if (gpu.interconnect != "pcie" && gpu.interconnect != "nvlink")
    fail(path + ".interconnect", "expected \"pcie\" or \"nvlink\", got \"" + gpu.interconnect + "\"");
  gpu.nvlink_gbytes_per_s = get_number(g, path, "nvlink_gbytes_per_s");
  return gpu;
}

InstanceType parse_type(const json& t, const std::string& path,
                        const std::map<std::string, QuotaBucket>& buckets) {
  InstanceType it;
  it.name = get_string(t, path, "name");
  split_instance_type_name(it.name, it);
  if (it.family.empty() || it.size.empty() || it.generation == 0)
    fail(path + ".name", "\"" + it.name + "\" is not of the form <family><generation>[attrs].<size>");
  it.vcpu = static_cast<int>(get_int(t, path, "vcpu"));
  it.memory_mib = get_int(t, path, "memory_mib");
  it.kubelet_memory_ki = get_int(t, path, "kubelet_memory_ki");
  it.memory_estimated = get_bool(t, path, "estimated");
  if (it.kubelet_memory_ki > it.memory_mib * 1024)
    fail(path + ".kubelet_memory_ki", "larger than memory_mib");
  it.arch = get_string(t, path, "arch");
  if (it.arch != "amd64" && it.arch != "arm64")
    fail(path + ".arch", "expected \"amd64\" or \"arm64\", got \"" + it.arch + "\"");
  it.gpu = parse_gpu(member(t, path, "gpu"), path + ".gpu");
  const std::string net_path = path + ".network";
  const json& net = member(t, path, "network");
  it.network_burst_gbps = get_number(net, net_path, "burst_gbps");
  it.network_baseline_gbps = get_number(net, net_path, "baseline_gbps");
  it.network_up_to = get_bool(net, net_path, "up_to");
  if (it.network_baseline_gbps > it.network_burst_gbps)
    fail(net_path + ".baseline_gbps", "larger than burst_gbps");
  it.max_enis = static_cast<int>(get_int(t, path, "max_enis"));
  it.default_card_enis = static_cast<int>(get_int(t, path, "default_card_enis"));
  it.ipv4_per_eni = static_cast<int>(get_int(t, path, "ipv4_per_eni"));
  it.network_cards = static_cast<int>(get_int(t, path, "network_cards"));
  if (it.default_card_enis < 1 || it.default_card_enis > it.max_enis)
    fail(path + ".default_card_enis", "must be between 1 and max_enis");
  if (it.ipv4_per_eni < 2) fail(path + ".ipv4_per_eni", "must be at least 2");
  it.efa = get_bool(t, path, "efa");
  it.quota_bucket = get_string(t, path, "quota_bucket");
  if (!buckets.contains(it.quota_bucket))
    fail(path + ".quota_bucket", "\"" + it.quota_bucket + "\" is not in quotaBuckets");
  const json& prices = member(t, path, "on_demand_usd_per_hour");
  if (!prices.is_object()) fail(path + ".on_demand_usd_per_hour", "expected an object");
  for (const auto& [region, price] : prices.items()) {
    if (!price.is_number()) fail(path + ".on_demand_usd_per_hour." + region, "expected a number");
    it.on_demand_usd_per_hour[region] = price.get<double>();
  }
  if (!it.on_demand_usd_per_hour.contains("us-east-1"))
    fail(path + ".on_demand_usd_per_hour.us-east-1", "missing (the fallback region)");
  it.spot_price_factor = get_number(t, path, "spot_price_factor");
  if (it.spot_price_factor <= 0 || it.spot_price_factor > 1)
    fail(path + ".spot_price_factor", "must be in (0, 1]");
  return it;
}

}  // namespace

void split_instance_type_name(std::string_view name, InstanceType& out) {
  auto dot = name.find('.');
  std::string_view fam = name.substr(0, dot);
  out.family = std::string(fam);
  out.size = dot == std::string_view::npos ? std::string() : std::string(name.substr(dot + 1));
  std::size_t i = 0;
  while (i < fam.size() && !std::isdigit(static_cast<unsigned char>(fam[i]))) ++i;
  out.category = std::string(fam.substr(0, i));
  int gen = 0;
  while (i < fam.size() && std::isdigit(static_cast<unsigned char>(fam[i]))) gen = gen * 10 + (fam[i++] - '0');
  out.generation = gen;
}

double InstanceType::on_demand_price(std::string_view region) const {
  auto it = on_demand_usd_per_hour.find(std::string(region));
  if (it != on_demand_usd_per_hour.end()) return it->second;
  auto fallback = on_demand_usd_per_hour.find("us-east-1");
  return fallback != on_demand_usd_per_hour.end() ? fallback->second : 0.0;
}

InstanceCatalog InstanceCatalog::from_json(std::string_view json_text) {
  json doc;
  try {
    doc = json::parse(json_text);
  } catch (const json::parse_error& e) {
    throw std::runtime_error(std::string("instance catalog: not valid JSON: ") + e.what());
  }
  InstanceCatalog cat;
  const json& buckets = member(doc, "$", "quotaBuckets");
  if (!buckets.is_object()) fail("quotaBuckets", "expected an object");
  for (const auto& [name, b] : buckets.items()) {
    const std::string path = "quotaBuckets." + name;
    QuotaBucket qb;
    qb.name = name;
    const json& fams = member(b, path, "families");
    if (!fams.is_array() || fams.empty()) fail(path + ".families", "expected a non-empty array");
    for (std::size_t i = 0; i < fams.size(); ++i) {
      if (!fams[i].is_string()) fail(path + ".families[" + std::to_string(i) + "]", "expected a string");
      qb.families.push_back(fams[i].get<std::string>());
    }
    qb.on_demand_quota_code = get_string(b, path, "onDemandQuotaCode");
    qb.spot_quota_code = get_string(b, path, "spotQuotaCode");
    qb.on_demand_quota_name = get_string(b, path, "onDemandQuotaName");
    cat.buckets_.emplace(name, std::move(qb));
  }
  const json& types = member(doc, "$", "instanceTypes");
  if (!types.is_array()) fail("instanceTypes", "expected an array");
  for (std::size_t i = 0; i < types.size(); ++i) {
    const std::string path = "instanceTypes[" + std::to_string(i) + "]";
    InstanceType t = parse_type(types[i], path, cat.buckets_);
    if (cat.find(t.name)) fail(path + ".name", "duplicate instance type \"" + t.name + "\"");
    cat.types_.push_back(std::move(t));
  }
  return cat;
}

const InstanceCatalog& InstanceCatalog::builtin() {
  static const InstanceCatalog catalog = [] {
    std::string_view text = data::embedded_file("instances.json");
    if (text.empty()) throw std::runtime_error("instance catalog: instances.json is not embedded");
    return from_json(text);
  }();
  return catalog;
}

const InstanceType* InstanceCatalog::find(std::string_view name) const {
  for (const auto& t : types_)
    if (t.name == name) return &t;
  return nullptr;
}

std::vector<std::string> InstanceCatalog::names() const {
  std::vector<std::string> out;
  out.reserve(types_.size());
  for (const auto& t : types_) out.push_back(t.name);
  std::sort(out.begin(), out.end());
  return out;
}

std::string InstanceCatalog::quota_code(std::string_view bucket, bool spot) const {
  auto it = buckets_.find(std::string(bucket));
  if (it == buckets_.end()) return {};
  return spot ? it->second.spot_quota_code : it->second.on_demand_quota_code;
}

std::string InstanceCatalog::bucket_for(std::string_view instance_type) const {
  std::string family(instance_type.substr(0, instance_type.find('.')));
  std::string best;
  std::size_t best_len = 0;
  for (const auto& [name, b] : buckets_) {
    for (const auto& prefix : b.families) {
      if (prefix.size() <= best_len || prefix.size() > family.size()) continue;
      bool match = true;
      for (std::size_t i = 0; i < prefix.size() && match; ++i)
        match = std::tolower(static_cast<unsigned char>(prefix[i])) ==
                std::tolower(static_cast<unsigned char>(family[i]));
      // "inf2" is Inf, but "i4i" must not be read as "Inf" nor "dl1" as "D": the prefix must be
      // followed by the generation digit.
      if (match && prefix.size() < family.size() &&
          !std::isdigit(static_cast<unsigned char>(family[prefix.size()])))
        match = false;
      if (match) {
        best = name;
        best_len = prefix.size();
      }
    }
  }
  return best;
}

}  // namespace eksim::aws
