#include "models/net/net_params.hpp"

#include <nlohmann/json.hpp>
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

PerProtocol triple(const json& j, const char* key, const std::string& path) {
  const json& v = at(j, key, path);
  if (!v.is_array() || v.size() != 3) {
    throw std::runtime_error("az_latency.json: " + path + key + " must be [LL, LL128, Simple]");
  }
  PerProtocol out{};
  for (std::size_t i = 0; i < 3; ++i) {
    if (!v[i].is_number()) throw std::runtime_error("az_latency.json: " + path + key + " holds a non-number");
    out[i] = v[i].get<double>();
  }
  return out;
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
  const json& torch = at(doc, "pytorch", "");
  p.watchdog_timeout_ms = integer(torch, "watchdog_timeout_ms", "pytorch.");
  p.watchdog_overshoot_ms = integer(torch, "watchdog_overshoot_ms", "pytorch.");
  const json& n = at(doc, "nccl", "");
  const std::string np = "nccl.";
  p.nccl.ring_base_latency_us = triple(n, "ring_base_latency_us", np);
  p.nccl.hop_latency_net_us = triple(n, "hop_latency_net_us", np);
  p.nccl.hop_latency_pcie_us = triple(n, "hop_latency_pcie_us", np);
  p.nccl.hop_latency_nvlink_us = triple(n, "hop_latency_nvlink_us", np);
  p.nccl.ll_bandwidth_factor = num(n, "ll_bandwidth_factor", np);
  p.nccl.ll128_bandwidth_factor = num(n, "ll128_bandwidth_factor", np);
  p.nccl.ring_simple_plateau_factor = num(n, "ring_simple_plateau_factor", np);
  p.nccl.socket_nthreads = integer(n, "socket_nthreads", np);
  p.nccl.nsocks_perthread = integer(n, "nsocks_perthread", np);
  p.nccl.channels = integer(n, "channels", np);
  p.nccl.ena_assumed_gbps = num(n, "ena_assumed_gbps", np);
  p.nccl.socket_retry_cnt = integer(n, "socket_retry_cnt", np);
  p.nccl.socket_retry_sleep_ms = integer(n, "socket_retry_sleep_ms", np);
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
