#include "models/aws/instance_catalog.hpp"

#include <algorithm>
#include <cctype>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "models/data_files.hpp"

namespace eksim::aws {

namespace {

using nlohmann::json;

[[noreturn]] void fail(int line, const std::string& key, const std::string& what) {
  throw std::runtime_error("instance catalog: line " + std::to_string(line) + ": " + key + ": " + what);
}

// Line `text` without a trailing comma (the generator writes `KEY: VALUE,` and `[ROW],`).
std::string_view without_comma(std::string_view s) {
  while (!s.empty() && (s.back() == ',' || s.back() == ' ' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// One row of the catalog with its column names: typed getters that name line and column.
struct Row {
  const json& cells;
  const std::unordered_map<std::string, std::size_t>& column;
  std::string_view text;  // the whole catalog, for the line number of an error
  std::size_t offset;     // of this row

  // Counted only when there is an error to report (counting per row would be quadratic).
  int line() const { return 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(offset), '\n')); }

  const json* cell(const char* key) const {
    auto it = column.find(key);
    if (it == column.end()) return nullptr;  // a column the file does not have: unknown
    if (it->second >= cells.size()) fail(line(), key, "missing (the row is shorter than columns)");
    const json& v = cells[it->second];
    return v.is_null() ? nullptr : &v;
  }
  std::string str(const char* key) const {
    const json* v = cell(key);
    if (!v) return {};
    if (!v->is_string()) fail(line(), key, "expected a string");
    return v->get<std::string>();
  }
  std::int64_t integer(const char* key) const {
    const json* v = cell(key);
    if (!v) return 0;
    if (!v->is_number_integer()) fail(line(), key, "expected an integer");
    auto i = v->get<std::int64_t>();
    if (i < 0) fail(line(), key, "must not be negative");
    return i;
  }
  double number(const char* key) const {
    const json* v = cell(key);
    if (!v) return 0;
    if (!v->is_number()) fail(line(), key, "expected a number");
    double d = v->get<double>();
    if (d < 0) fail(line(), key, "must not be negative");
    return d;
  }
  bool boolean(const char* key) const {
    const json* v = cell(key);
    if (!v) return false;
    if (!v->is_boolean()) fail(line(), key, "expected true or false");
    return v->get<bool>();
  }
};

// Name, family, vCPUs, memory and what the kubelet keeps of it, architecture.
void read_compute(const Row& r, InstanceType& it) {
  it.name = r.str("name");
  split_instance_type_name(it.name, it);
  // Karpenter's labels win over the name's letters where the reference gives them (u-6tb1,
  // c7i-flex); types it does not list (macs) keep the split.
  if (auto s = r.str("family"); !s.empty()) it.family = s;
  if (auto s = r.str("category"); !s.empty()) it.category = s;
  if (auto s = r.str("size"); !s.empty()) it.size = s;
  if (auto g = r.integer("generation"); g > 0) it.generation = static_cast<int>(g);
  it.vcpu = static_cast<int>(r.integer("vcpu"));
  it.memory_mib = r.integer("memoryMiB");
  if (it.vcpu <= 0 || it.memory_mib <= 0) fail(r.line(), "vcpu", "a type needs vCPUs and memory");
  it.kubelet_memory_ki = r.integer("kubeletMemoryKi");
  it.memory_estimated = r.boolean("kubeletMemoryEstimated");
  if (it.kubelet_memory_ki == 0) {
    it.kubelet_memory_ki = estimated_kubelet_memory_ki(it.memory_mib);
    it.memory_estimated = true;
  }
  if (it.kubelet_memory_ki > it.memory_mib * 1024) fail(r.line(), "kubeletMemoryKi", "larger than memoryMiB");
  it.arch = r.str("arch");
  if (!it.arch.empty() && it.arch != "amd64" && it.arch != "arm64")
    fail(r.line(), "arch", "expected \"amd64\" or \"arm64\", got \"" + it.arch + "\"");
  it.cpu_manufacturer = r.str("cpuManufacturer");
}

// GPUs (count, model, memory, interconnect) and other accelerators (Neuron, ...).
void read_accelerators(const Row& r, InstanceType& it) {
  it.gpu.count = static_cast<int>(r.integer("gpus"));
  it.gpu.name = r.str("gpuName");
  it.gpu.manufacturer = r.str("gpuManufacturer");
  it.gpu.memory_mib = r.integer("gpuMemoryMiB");
  if (it.gpu.count > 0 || !it.gpu.name.empty()) {
    it.gpu.interconnect = r.str("gpuInterconnect");
    if (it.gpu.interconnect.empty()) it.gpu.interconnect = "pcie";
    if (it.gpu.interconnect != "pcie" && it.gpu.interconnect != "nvlink")
      fail(r.line(), "gpuInterconnect", "expected \"pcie\" or \"nvlink\", got \"" + it.gpu.interconnect + "\"");
    it.gpu.nvlink_gbytes_per_s = r.number("nvlinkGBps");
  }
  it.device_resource = r.str("deviceResource");
  it.accelerator.name = r.str("acceleratorName");
  it.accelerator.manufacturer = r.str("acceleratorManufacturer");
  it.accelerator.count = static_cast<int>(r.integer("acceleratorCount"));
  it.accelerator.neuron_cores = static_cast<int>(r.integer("neuronCores"));
}

// Bandwidth, ENIs and addresses, EFA, local and EBS storage.
void read_network_and_storage(const Row& r, InstanceType& it) {
  // Network: the data has the baseline only; the "up to" burst comes from eksim's additions and
  // is the baseline for every other type.
  it.network_baseline_gbps = static_cast<double>(r.integer("baselineBandwidthMbps")) / 1000.0;
  it.network_burst_gbps = r.number("networkBurstGbps");
  it.network_up_to = r.boolean("networkUpTo");
  if (it.network_burst_gbps == 0) it.network_burst_gbps = it.network_baseline_gbps;
  if (it.network_baseline_gbps > it.network_burst_gbps)
    fail(r.line(), "networkBurstGbps", "smaller than the baseline bandwidth");
  it.network_performance = r.str("networkPerformance");

  it.default_card_enis = static_cast<int>(r.integer("enis"));
  it.ipv4_per_eni = static_cast<int>(r.integer("ipv4PerEni"));
  it.max_enis = static_cast<int>(r.integer("enisTotal"));
  if (it.max_enis == 0) it.max_enis = it.default_card_enis;
  it.network_cards = static_cast<int>(r.integer("networkCards"));
  if (it.network_cards == 0) it.network_cards = 1;
  it.branch_enis = static_cast<int>(r.integer("branchEnis"));
  it.eks_max_pods = static_cast<int>(r.integer("maxPods"));
  if (it.default_card_enis > it.max_enis) fail(r.line(), "enis", "more than enisTotal");
  it.efa = r.boolean("efa");
  it.efa_interfaces = static_cast<int>(r.integer("efaInterfaces"));
  it.hypervisor = r.str("hypervisor");
  it.bare_metal = r.boolean("bareMetal");
  it.local_nvme_gb = r.integer("localNvmeGB");
  it.ebs_bandwidth_mbps = r.integer("ebsBandwidthMbps");
}

// Quota bucket, prices by region, Spot factor, and Karpenter's allocatable and docs.
void read_quota_and_prices(const Row& r, const std::map<std::string, QuotaBucket>& buckets, InstanceType& it) {
  it.quota_bucket = r.str("quotaBucket");
  if (!it.quota_bucket.empty() && !buckets.contains(it.quota_bucket))
    fail(r.line(), "quotaBucket", "\"" + it.quota_bucket + "\" is not in quotaBuckets");
  if (const json* prices = r.cell("onDemandUSD")) {
    if (!prices->is_object()) fail(r.line(), "onDemandUSD", "expected an object");
    for (const auto& [region, price] : prices->items()) {
      if (!price.is_number() || price.get<double>() <= 0) fail(r.line(), "onDemandUSD." + region, "expected a positive number");
      it.on_demand_usd_per_hour[region] = price.get<double>();
    }
  }
  it.spot_price_factor = r.number("spotPriceFactor");
  if (it.spot_price_factor > 1) fail(r.line(), "spotPriceFactor", "must be in (0, 1]");
  if (const json* ka = r.cell("karpenterAllocatable")) {
    if (!ka->is_array() || ka->size() != 3 || !(*ka)[0].is_number_integer() || !(*ka)[1].is_number_integer() ||
        !(*ka)[2].is_number_integer())
      fail(r.line(), "karpenterAllocatable", "expected [cpuMilli, memoryMiB, pods]");
    it.karpenter_allocatable = {true, (*ka)[0].get<std::int64_t>(), (*ka)[1].get<std::int64_t>(), (*ka)[2].get<int>()};
  }
  it.karpenter_docs = r.str("karpenterDocs");
}

InstanceType parse_row(const Row& r, const std::map<std::string, QuotaBucket>& buckets) {
  InstanceType it;
  read_compute(r, it);
  read_accelerators(r, it);
  read_network_and_storage(r, it);
  read_quota_and_prices(r, buckets, it);
  return it;
}

QuotaBucket parse_bucket(const std::string& name, const json& b, int line) {
  QuotaBucket qb;
  qb.name = name;
  auto str = [&](const char* key) {
    auto it = b.find(key);
    if (it == b.end() || !it->is_string()) fail(line, "quotaBuckets." + name + "." + key, "expected a string");
    return it->get<std::string>();
  };
  auto prefixes = b.find("prefixes");
  if (prefixes == b.end() || !prefixes->is_array() || prefixes->empty())
    fail(line, "quotaBuckets." + name + ".prefixes", "expected a non-empty array");
  for (const auto& p : *prefixes) {
    if (!p.is_string()) fail(line, "quotaBuckets." + name + ".prefixes", "expected strings");
    qb.prefixes.push_back(p.get<std::string>());
  }
  qb.on_demand_quota_code = str("onDemandQuotaCode");
  qb.spot_quota_code = str("spotQuotaCode");
  qb.on_demand_quota_name = str("onDemandQuotaName");
  qb.spot_quota_name = str("spotQuotaName");
  return qb;
}

json parse_json(std::string_view text, int line) {
  try {
    return json::parse(text);
  } catch (const json::parse_error& e) {
    throw std::runtime_error("instance catalog: line " + std::to_string(line) + ": not valid JSON: " + e.what());
  }
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

std::int64_t estimated_kubelet_memory_ki(std::int64_t memory_mib) {
  const std::int64_t ki = memory_mib * 1024;
  return ki - ki * 26 / 1000 - 256 * 1024;
}

std::optional<double> InstanceType::on_demand_price(std::string_view region) const {
  auto it = on_demand_usd_per_hour.find(std::string(region));
  if (it == on_demand_usd_per_hour.end()) return std::nullopt;
  return it->second;
}

std::unique_ptr<InstanceCatalog> InstanceCatalog::from_json(std::string_view json_text) {
  std::unique_ptr<InstanceCatalog> cat(new InstanceCatalog());
  cat->owned_ = std::string(json_text);
  cat->index_text(cat->owned_);
  return cat;
}

void InstanceCatalog::index_text(std::string_view text) {
  text_ = text;
  // The generator's layout: ` "key": value,` lines, then ` "instanceTypes": [`, one row per line,
  // ` ],` and the last key, ` "index": "NAME@OFFSET;..."` (sorted by name). Only the head and the
  // index are read here; a row waits until its type is used. Without an index line (small
  // catalogs written by hand) the rows are found by reading every line.
  std::size_t pos = 0;
  int line_no = 0;
  bool in_types = false, closed = false, indexed = false;
  while (pos < text.size() && !closed) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    const std::size_t line_start = pos;
    pos = end + 1;
    ++line_no;
    if (!in_types) {
      if (line.starts_with(" \"instanceTypes\": [")) {
        in_types = true;
        // With an index the rows need no reading: jump to it.
        std::size_t idx = text.rfind("\n \"index\": \"");
        if (idx != std::string_view::npos) {
          closed = indexed = true;
          std::size_t from = idx + 12, to = text.find('"', from);
          if (to == std::string_view::npos) fail(line_of(idx + 1), "index", "not closed by '\"'");
          std::string_view list = text.substr(from, to - from);
          while (!list.empty()) {
            std::size_t semi = list.find(';');
            std::string_view entry = list.substr(0, semi);
            std::size_t at = entry.find('@');
            if (at == std::string_view::npos) fail(line_of(idx + 1), "index", "expected NAME@OFFSET entries");
            std::size_t offset = 0;
            for (char c : entry.substr(at + 1)) {
              if (c < '0' || c > '9') fail(line_of(idx + 1), "index", "expected NAME@OFFSET entries");
              offset = offset * 10 + static_cast<std::size_t>(c - '0');
            }
            if (offset >= idx) fail(line_of(idx + 1), "index", "offset past the rows");
            rows_.push_back(RowRef{entry.substr(0, at), offset});
            list = semi == std::string_view::npos ? std::string_view() : list.substr(semi + 1);
          }
        }
      } else if (line.starts_with(" \"quotaBuckets\": ")) {
        json b = parse_json(without_comma(line.substr(17)), line_no);
        if (!b.is_object()) fail(line_no, "quotaBuckets", "expected an object");
        for (const auto& [name, v] : b.items()) buckets_.emplace(name, parse_bucket(name, v, line_no));
      } else if (line.starts_with(" \"columns\": ")) {
        json c = parse_json(without_comma(line.substr(12)), line_no);
        if (!c.is_array()) fail(line_no, "columns", "expected an array");
        for (std::size_t i = 0; i < c.size(); ++i) column_[c[i].get<std::string>()] = i;
      }
      continue;
    }
    if (line.starts_with(" ]")) {
      closed = true;
      continue;
    }
    if (!line.starts_with("[\"")) fail(line_no, "instanceTypes", "expected one [\"NAME\", ...] row per line");
    std::size_t q = line.find('"', 2);
    if (q == std::string_view::npos) fail(line_no, "name", "unterminated");
    rows_.push_back(RowRef{line.substr(2, q - 2), line_start});
  }
  if (!closed) fail(line_no, "instanceTypes", "missing or not closed by \" ]\"");
  if (column_.empty()) fail(line_no, "columns", "missing");
  // Name order for find(): the index is written sorted (checked below, no sort at start); rows
  // read line by line are sorted here. all() puts them in file order when first asked.
  by_name_.resize(rows_.size());
  for (std::uint32_t i = 0; i < by_name_.size(); ++i) by_name_[i] = i;
  auto by_name = [&](std::uint32_t a, std::uint32_t b) { return rows_[a].name < rows_[b].name; };
  if (!std::is_sorted(by_name_.begin(), by_name_.end(), by_name)) {
    if (indexed) fail(line_of(text.rfind("\n \"index\": \"") + 1), "index", "not sorted by name");
    std::stable_sort(by_name_.begin(), by_name_.end(), by_name);
  }
  for (std::size_t i = 1; i < by_name_.size(); ++i)
    if (rows_[by_name_[i]].name == rows_[by_name_[i - 1]].name)
      fail(line_of(rows_[by_name_[i]].offset), "name", "duplicate instance type \"" + std::string(rows_[by_name_[i]].name) + "\"");
  parsed_.resize(rows_.size());
  parse_once_ = std::make_unique<std::once_flag[]>(rows_.size());
}

int InstanceCatalog::line_of(std::size_t offset) const {
  return 1 + static_cast<int>(std::count(text_.begin(), text_.begin() + static_cast<std::ptrdiff_t>(offset), '\n'));
}

const InstanceType& InstanceCatalog::parse(std::size_t i) const {
  std::call_once(parse_once_[i], [&] {
    const RowRef& r = rows_[i];
    std::size_t end = text_.find('\n', r.offset);
    std::string_view line = without_comma(text_.substr(r.offset, end == std::string_view::npos ? end : end - r.offset));
    if (!line.starts_with("[\"" + std::string(r.name) + "\""))
      fail(line_of(r.offset), "index", "the row at this offset is not \"" + std::string(r.name) + "\"");
    json cells;
    try {
      cells = json::parse(line);
    } catch (const json::parse_error& e) {
      fail(line_of(r.offset), "instanceTypes", std::string("not valid JSON: ") + e.what());
    }
    if (!cells.is_array()) fail(line_of(r.offset), "instanceTypes", "expected an array");
    parsed_[i] = std::make_unique<InstanceType>(parse_row(Row{cells, column_, text_, r.offset}, buckets_));
  });
  return *parsed_[i];
}

const InstanceCatalog& InstanceCatalog::builtin() {
  static const std::unique_ptr<InstanceCatalog> catalog = [] {
    std::string_view text = data::embedded_file("instances.json");
    if (text.empty()) throw std::runtime_error("instance catalog: instances.json is not embedded");
    std::unique_ptr<InstanceCatalog> cat(new InstanceCatalog());
    cat->index_text(text);  // the embedded text lives as long as the program: no copy
    return cat;
  }();
  return *catalog;
}

const InstanceType* InstanceCatalog::find(std::string_view name) const {
  auto it = std::lower_bound(by_name_.begin(), by_name_.end(), name,
                             [&](std::uint32_t i, std::string_view n) { return rows_[i].name < n; });
  if (it == by_name_.end() || rows_[*it].name != name) return nullptr;
  return &parse(*it);
}

const std::vector<std::size_t>& InstanceCatalog::file_order() const {
  std::call_once(file_order_once_, [&] {
    file_order_.resize(rows_.size());
    for (std::size_t i = 0; i < file_order_.size(); ++i) file_order_[i] = i;
    std::sort(file_order_.begin(), file_order_.end(),
              [&](std::size_t a, std::size_t b) { return rows_[a].offset < rows_[b].offset; });
  });
  return file_order_;
}

std::string_view InstanceCatalog::row_text(std::size_t i) const {
  std::size_t end = text_.find('\n', rows_[i].offset);
  return text_.substr(rows_[i].offset, end == std::string_view::npos ? end : end - rows_[i].offset);
}

InstanceTypeList InstanceCatalog::all() const {
  std::call_once(all_once_, [&] {
    all_.reserve(rows_.size());
    for (std::size_t i : file_order()) all_.push_back(&parse(i));
  });
  return InstanceTypeList(all_);
}

std::vector<const InstanceType*> InstanceCatalog::priced_in(std::string_view region,
                                                            const std::vector<std::string>& also) const {
  // A region name appears in a row only as a key of its onDemandUSD object, so a row without
  // `"REGION":` has no price there and needs no parsing; the parsed price decides for the others.
  const std::string key = "\"" + std::string(region) + "\":";
  std::vector<const InstanceType*> out;
  for (std::size_t i : file_order()) {
    const bool listed = std::find(also.begin(), also.end(), rows_[i].name) != also.end();
    if (!listed && row_text(i).find(key) == std::string_view::npos) continue;
    const InstanceType& t = parse(i);
    if (listed || t.on_demand_price(region)) out.push_back(&t);
  }
  return out;
}

std::vector<std::string> InstanceCatalog::names() const {
  std::vector<std::string> out;
  out.reserve(by_name_.size());
  for (std::uint32_t i : by_name_) out.emplace_back(rows_[i].name);
  return out;
}

std::string InstanceCatalog::quota_code(std::string_view bucket, bool spot) const {
  auto it = buckets_.find(std::string(bucket));
  if (it == buckets_.end()) return {};
  return spot ? it->second.spot_quota_code : it->second.on_demand_quota_code;
}

std::string InstanceCatalog::bucket_for(std::string_view instance_type) const {
  std::string_view family = instance_type.substr(0, instance_type.find('.'));
  std::size_t n = 0;
  while (n < family.size() && std::isalpha(static_cast<unsigned char>(family[n]))) ++n;
  std::string letters;
  for (char c : family.substr(0, n)) letters += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::string best;
  std::size_t best_len = 0;
  for (const auto& [name, b] : buckets_) {
    for (const auto& prefix : b.prefixes) {
      // The family's letters must be the prefix itself ("inf2" is Inf, "i4i" is Standard, "dl1"
      // is DL, not D); High Memory's "u" covers u-6tb1 and u7i-12tb.
      bool match = letters == prefix || (prefix == "u" && letters == "u");
      if (match && prefix.size() > best_len) {
        best = name;
        best_len = prefix.size();
      }
    }
  }
  return best;
}

}  // namespace eksim::aws
