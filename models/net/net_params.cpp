#include "models/net/net_params.hpp"

#include <nlohmann/json.hpp>

#include <cctype>
#include <stdexcept>
#include <string>

#include "models/data_files.hpp"

namespace eksim::net {

const char* protocol_name(Protocol p) {
  switch (p) {
    case Protocol::LL: return "LL";
    case Protocol::LL128: return "LL128";
    case Protocol::Simple: return "Simple";
  }
  return "?";
}

const char* gpu_arch_name(GpuArch a) {
  switch (a) {
    case GpuArch::Volta: return "Volta";
    case GpuArch::Ampere: return "Ampere";
    case GpuArch::Hopper: return "Hopper";
    case GpuArch::Blackwell: return "Blackwell";
  }
  return "?";
}

const EfaHardware& efa_hardware(const NetParams& params, const std::string& family) {
  static const EfaHardware none;
  auto it = params.efa.find(family);
  if (it != params.efa.end()) return it->second;
  it = params.efa.find("default");
  return it != params.efa.end() ? it->second : none;
}

namespace {

using nlohmann::json;

const json& at(const json& j, const char* key, const std::string& path) {
  if (!j.is_object() || !j.contains(key)) {
    throw std::runtime_error("az_latency.json: missing key " + path + key);
  }
  return j.at(key);
}

double num(const json& j, const char* key, const std::string& path) {
  const json& v = at(j, key, path);
  if (!v.is_number()) throw std::runtime_error("az_latency.json: " + path + key + " is not a number");
  return v.get<double>();
}

int integer(const json& j, const char* key, const std::string& path) {
  const json& v = at(j, key, path);
  if (!v.is_number_integer()) {
    throw std::runtime_error("az_latency.json: " + path + key + " is not an integer");
  }
  return v.get<int>();
}

bool flag(const json& j, const char* key, const std::string& path) {
  const json& v = at(j, key, path);
  if (!v.is_boolean()) throw std::runtime_error("az_latency.json: " + path + key + " is not true or false");
  return v.get<bool>();
}

GpuArch arch_of(const json& j, const std::string& path) {
  const json& v = at(j, "arch", path);
  for (GpuArch a : {GpuArch::Volta, GpuArch::Ampere, GpuArch::Hopper, GpuArch::Blackwell}) {
    std::string name = gpu_arch_name(a);
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (v.is_string() && v.get<std::string>() == name) return a;
  }
  throw std::runtime_error("az_latency.json: " + path + "arch must be volta, ampere, hopper or blackwell");
}

void parse_hardware(const json& doc, NetParams& p) {
  const json& hw = at(doc, "nccl_hardware", "");
  for (const auto& [name, g] : at(hw, "gpus", "nccl_hardware.").items()) {
    const std::string gp = "nccl_hardware.gpus." + name + ".";
    GpuHardware h;
    h.arch = arch_of(g, gp);
    h.nvlink_gbytes_per_s = integer(g, "nvlink_links", gp) * num(g, "nvlink_link_gbytes_per_s", gp);
    h.nvswitch = flag(g, "nvswitch", gp);
    h.nvls = flag(g, "nvls", gp);
    h.channels = integer(g, "channels", gp);
    p.gpus[name] = h;
  }
  const json& hosts = at(hw, "pcie_hosts", "nccl_hardware.");
  for (const auto& [family, cores] : at(hosts, "cores_per_socket", "nccl_hardware.pcie_hosts.").items()) {
    if (family.front() == '_') continue;
    if (!cores.is_number_integer() || cores.get<int>() < 1)
      throw std::runtime_error("az_latency.json: nccl_hardware.pcie_hosts.cores_per_socket." + family +
                               " is not a positive integer");
    p.cores_per_socket[family] = cores.get<int>();
  }
  p.amd_socket_link_gbytes_per_s = num(hosts, "amd_socket_link_gbytes_per_s", "nccl_hardware.pcie_hosts.");
  p.intel_socket_link_gbytes_per_s = num(hosts, "intel_socket_link_gbytes_per_s", "nccl_hardware.pcie_hosts.");
  for (const auto& [family, e] : at(hw, "efa", "nccl_hardware.").items()) {
    const std::string ep = "nccl_hardware.efa." + family + ".";
    p.efa[family] = EfaHardware{num(e, "plugin_latency_us", ep), num(e, "hop_latency_us", ep),
                                flag(e, "in_order_128b", ep)};
  }
}

void parse_calibration(const json& n, NcclParams& c) {
  const std::string np = "nccl.";
  c.socket_max_gbps = num(n, "socket_max_gbps", np);
  c.net_bandwidth_efficiency = num(n, "net_bandwidth_efficiency", np);
  c.nvls_bandwidth_efficiency = num(n, "nvls_bandwidth_efficiency", np);
  c.nvls_latency_us = num(n, "nvls_latency_us", np);
  c.simple_net_fill_chunks = integer(n, "simple_net_fill_chunks", np);
  c.simple_net_chunk_bytes = num(n, "simple_net_chunk_bytes", np);
}

}  // namespace

NetParams parse_net_params(std::string_view json_text) {
  const json doc = json::parse(json_text);
  NetParams p;
  const json& rtt = at(doc, "rtt_ms", "");
  p.same_az_rtt_ms = num(rtt, "same_az", "rtt_ms.");
  p.cross_az_rtt_ms = num(rtt, "cross_az", "rtt_ms.");
  const json& cap = at(doc, "per_flow_cap_gbps", "");
  p.per_flow_cap_gbps = num(cap, "outside_placement_group", "per_flow_cap_gbps.");
  p.per_flow_cap_placement_group_gbps = num(cap, "inside_placement_group", "per_flow_cap_gbps.");
  p.pcie_gen4_gbytes_per_s = num(at(doc, "intra_node_gbytes_per_s", ""), "pcie_gen4", "intra_node_gbytes_per_s.");
  const json& tcp = at(doc, "tcp", "");
  p.tcp_syn_retries = integer(tcp, "syn_retries", "tcp.");
  p.tcp_initial_rto_s = num(tcp, "initial_rto_s", "tcp.");
  p.tcp_window_bytes = num(tcp, "rmem_max_bytes", "tcp.") / 2;
  const json& torch = at(doc, "pytorch", "");
  p.watchdog_timeout_ms = integer(torch, "watchdog_timeout_ms", "pytorch.");
  p.watchdog_overshoot_ms = integer(torch, "watchdog_overshoot_ms", "pytorch.");
  const json& n = at(doc, "nccl", "");
  const std::string np = "nccl.";
  p.nccl.socket_nthreads = integer(n, "socket_nthreads", np);
  p.nccl.nsocks_perthread = integer(n, "nsocks_perthread", np);
  p.nccl.channels = integer(n, "channels", np);
  p.nccl.ena_assumed_gbps = num(n, "ena_assumed_gbps", np);
  p.nccl.socket_retry_cnt = integer(n, "socket_retry_cnt", np);
  p.nccl.socket_retry_sleep_ms = integer(n, "socket_retry_sleep_ms", np);
  parse_calibration(n, p.nccl);
  parse_hardware(doc, p);
  return p;
}

const NetParams& default_net_params() {
  static const NetParams params = [] {
    const std::string_view text = data::embedded_file("az_latency.json");
    if (text.empty()) throw std::runtime_error("models/data/az_latency.json is not embedded; re-run cmake");
    return parse_net_params(text);
  }();
  return params;
}

}  // namespace eksim::net
