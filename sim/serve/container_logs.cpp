#include "sim/serve/container_logs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <ctime>

#include "models/autoscaling/karpenter/controller.hpp"
#include "models/k8s/addons/addons.hpp"
#include "models/net/training_controller.hpp"

namespace eksim::serve {

namespace {

bool runs_nvidia_smi(const k8s::Container& c) {
  auto has = [](const std::vector<std::string>& v) {
    return std::any_of(v.begin(), v.end(), [](const std::string& s) { return s.find("nvidia-smi") != std::string::npos; });
  };
  return has(c.command) || has(c.args);
}

// Board power limit by GPU (NVIDIA data sheets); idle readings as the labs show them.
int power_cap_watts(const std::string& gpu) {
  if (gpu == "t4" || gpu == "t4g") return 70;
  if (gpu == "l4") return 72;
  if (gpu == "l40s") return 350;
  if (gpu == "a100") return 400;
  if (gpu == "h100" || gpu == "h200") return 700;
  return 300;  // A10G, V100
}

}  // namespace

GpuDriver gpu_driver_of(const Cluster& c, const k8s::NodeRecord& node) {
  const GpuDriver al2023{"580.126.20", "13.0"}, al2{"535.161.08", "12.4"}, auto_mode{"570.195.03", "13.0"};
  if (!node.node_group.empty()) {
    auto* ng = const_cast<Cluster&>(c).eks.find(node.node_group);  // no const overload; read only
    if (ng && ng->spec.ami_type.rfind("AL2_", 0) == 0) return al2;
    return al2023;
  }
  if (const autoscaling::karpenter::Controller* k = c.controllers.karpenter.get()) {
    if (k->settings().auto_mode) return auto_mode;
    for (const auto& claim : k->node_claims())
      if (claim.node_name == node.node.meta.name) {
        auto it = k->node_classes().find(claim.node_class);
        if (it != k->node_classes().end() && (it->second.ami_family == "AL2" || it->second.ami_alias.rfind("al2@", 0) == 0))
          return al2;
      }
  }
  return al2023;
}

std::string nvidia_smi_table(const NvidiaSmiInput& in) {
  std::string name = "NVIDIA " + in.gpu_name;
  std::transform(name.begin() + 7, name.end(), name.begin() + 7, ::toupper);
  bool t4 = in.gpu_name == "t4" || in.gpu_name == "t4g";
  std::string out = in.date + "       \n";
  out += "+-----------------------------------------------------------------------------------------+\n";
  out += fmt::format("| NVIDIA-SMI {:<23}Driver Version: {:<15}CUDA Version: {:<9}|\n", in.driver.driver, in.driver.driver,
                     in.driver.cuda);
  out += "|-----------------------------------------+------------------------+----------------------+\n";
  out += "| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |\n";
  out += "| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |\n";
  out += "|                                         |                        |               MIG M. |\n";
  out += "|=========================================+========================+======================|\n";
  for (int i = 0; i < in.count; ++i) {
    int slot = (in.arm64 ? 0x1F : 0x1E) - (in.count - 1 - i);
    out += fmt::format("| {:>3}  {:<29}{:>4}  | {:>18} {:>3} | {:>20} |\n", i, name, "On", fmt::format("00000000:00:{:02X}.0", slot),
                       "Off", "0");
    out += fmt::format("| N/A   {:>2}C    P8{:>15}W /{:>5}W | {:>7}MiB / {:>6}MiB | {:>6}%{:>13} |\n", t4 ? 49 : 27,
                       t4 ? 9 : 16, power_cap_watts(in.gpu_name), 0, in.memory_mib, 0, "Default");
    out += "|                                         |                        |                  N/A |\n";
    out += "+-----------------------------------------+------------------------+----------------------+\n";
  }
  out += "                                                                                         \n";
  out += "+-----------------------------------------------------------------------------------------+\n";
  out += "| Processes:                                                                              |\n";
  out += "|  GPU   GI   CI              PID   Type   Process name                        GPU Memory |\n";
  out += "|        ID   ID                                                               Usage      |\n";
  out += "|=========================================================================================|\n";
  out += "|  No running processes found                                                             |\n";
  out += "+-----------------------------------------------------------------------------------------+\n";
  return out;
}

std::string nvidia_smi_on_node(const Cluster& c, const k8s::NodeRecord& node, std::int64_t unix_us) {
  const aws::Instance* inst = c.ec2.find(node.instance_id);
  const aws::InstanceType* type = inst ? inst->type : nullptr;
  if (!type || !type->has_gpus() || type->gpu.manufacturer != "nvidia")
    return "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest NVIDIA "
           "driver is installed and running.\n\n";
  NvidiaSmiInput in;
  std::time_t t = static_cast<std::time_t>(unix_us / 1000000);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "%a %b %e %H:%M:%S %Y", &tm);
  in.date = buf;
  in.driver = gpu_driver_of(c, node);
  in.gpu_name = type->gpu.name;
  in.memory_mib = type->gpu.memory_mib;
  in.count = type->gpu.count;
  in.arm64 = type->arch == "arm64";
  return nvidia_smi_table(in);
}

int cuda_driver_version(const std::string& cuda) {
  // cudaDriverGetVersion: 1000 * major + 10 * minor ("12.4" -> 12040).
  const auto dot = cuda.find('.');
  if (dot == std::string::npos) return 0;
  return std::atoi(cuda.substr(0, dot).c_str()) * 1000 + std::atoi(cuda.substr(dot + 1).c_str()) * 10;
}

namespace {

using Timed = std::vector<std::pair<engine::SimTime, std::string>>;

// A ContainerLog event's NCCL line as the worker prints it, or nullopt when its NCCL_DEBUG hides
// it: INFO lines under the "<host>:<pid>:<tid> [0] NCCL INFO " of the init they belong to;
// "<file>:<line> NCCL WARN ..." after an empty line and the same "<host>:<pid>:<tid> [0] "
// (src/debug.cc). Other lines are printed as they are.
std::optional<std::string> nccl_line(const k8s::Event& e, const Timed& info_prefixes, bool info, bool warn) {
  constexpr std::string_view kInfo = "NCCL INFO ", kWarn = "NCCL WARN ";
  const std::string* head = nullptr;
  for (const auto& [formed, p] : info_prefixes)
    if (formed <= e.time) head = &p;
  if (e.message.starts_with(kInfo)) {
    if (!info) return std::nullopt;
    return head ? *head + e.message.substr(kInfo.size()) : e.message;
  }
  if (e.message.starts_with(kWarn)) return warn ? std::optional<std::string>(e.message) : std::nullopt;
  if (const auto at = e.message.find(" NCCL WARN "); at != std::string::npos && e.message.find(' ') == at) {
    if (!warn) return std::nullopt;
    return "\n" + (head ? head->substr(0, head->size() - kInfo.size()) : std::string()) + e.message;
  }
  return e.message;
}

}  // namespace

std::string container_log(const Cluster& c, const k8s::PodRecord& pod, const k8s::Container& container,
                          std::int64_t unix_us_of_sim0, bool previous) {
  if (!pod.node.valid()) return "";
  if (auto karpenter = karpenter_controller_log(c, pod, container, unix_us_of_sim0)) return *karpenter;
  const k8s::PodStatus& status = pod.pod.status;
  const engine::SimTime run_started = previous && status.last_termination ? status.last_termination->started_at
                                      : status.container_started_at ? *status.container_started_at
                                                                    : status.started_at.value_or(c.sim.now());
  const std::optional<k8s::PodId> id = c.api.find_pod(pod.pod.meta.ns, pod.pod.meta.name);
  if (id && c.addons && k8s::addon_container(pod.pod) == &container)
    if (auto run = c.addons->nvidia_device_plugin_start(*id))
      return k8s::nvidia_device_plugin_log(*run, unix_us_of_sim0 + run_started.us);
  if (runs_nvidia_smi(container)) return nvidia_smi_on_node(c, c.api.node(pod.node), unix_us_of_sim0 + run_started.us);
  // A training worker's lines, from its first container: NCCL's init lines under NCCL_DEBUG=INFO
  // (the training model keeps the ranks, the text is written here), and NCCL's retries, c10d's
  // and the watchdog's lines, which the model records as ContainerLog events on the pod. Merged
  // by time; read per request, not per event.
  std::string out;
  if (pod.pod.spec.containers.empty() || pod.pod.spec.containers.front().name != container.name) return out;
  Timed init_lines;
  Timed info_prefixes;  // by init, oldest first
  const net::TrainingController* training = c.controllers.training.get();
  if (training && id) {
    const int driver = cuda_driver_version(gpu_driver_of(c, c.api.node(pod.node)).cuda);
    for (auto init : training->nccl_debug_inits(*id)) {
      init.rank.cuda_driver = driver;
      info_prefixes.emplace_back(init.formed, net::nccl_info_prefix(init.rank));
      for (auto& line : net::nccl_init_lines_before_connect(init.rank)) init_lines.emplace_back(init.formed, std::move(line));
      if (init.connected)
        for (auto& line : net::nccl_init_lines_after_connect(init.rank)) init_lines.emplace_back(*init.connected, std::move(line));
    }
  }
  // NCCL prints nothing unless NCCL_DEBUG asks: WARN lines from WARN on, INFO lines from INFO.
  const net::NcclDebugLevel level = net::nccl_debug_level(pod.pod.spec.containers.front());
  const bool info = level == net::NcclDebugLevel::Info;
  const bool warn = level != net::NcclDebugLevel::None;
  std::size_t next_init = 0;
  const k8s::ObjectRef self{"Pod", pod.pod.meta.ns, pod.pod.meta.name};
  for (const auto& e : c.log.events()) {
    if (e.reason != "ContainerLog" || !(e.object == self)) continue;
    for (; next_init < init_lines.size() && init_lines[next_init].first <= e.time; ++next_init)
      out += init_lines[next_init].second + "\n";
    if (auto line = nccl_line(e, info_prefixes, info, warn)) out += *line + "\n";
  }
  for (; next_init < init_lines.size(); ++next_init) out += init_lines[next_init].second + "\n";
  return out;
}

}  // namespace eksim::serve
