#include "models/k8s/addons/addons.hpp"

#include <algorithm>
#include <cstdlib>
#include <stdexcept>

#include "models/k8s/addons/chart_values.hpp"
#include "models/k8s/controllers/daemonset_controller.hpp"
#include "models/k8s/controllers/deployment_controller.hpp"
#include "models/k8s/addons/nvidia/gpu_operator_objects.hpp"
#include "models/k8s/kubelet/kubelet.hpp"
#include "models/k8s/kubelet/node_lifecycle.hpp"
#include "sim/engine/numbers.hpp"

namespace eksim::k8s {

namespace {

using engine::Duration;
using namespace chart;

// Chart default affinity of nvidia-device-plugin 0.18.x (values.yaml): any of the NFD PCI label,
// the Tegra CPU vendor label, or nvidia.com/gpu.present=true.
Affinity device_plugin_default_affinity() {
  Affinity a;
  a.node_required = std::vector<NodeSelectorTerm>{
      {{{kLabelPci10de, "In", {"true"}}}, {}},
      {{{"feature.node.kubernetes.io/cpu-model.vendor_id", "In", {"NVIDIA"}}}, {}},
      {{{kLabelGpuPresent, "In", {"true"}}}, {}},
  };
  return a;
}

}  // namespace

std::vector<Toleration> parse_tolerations(const FlatValues& v, const std::string& prefix) {
  std::vector<Toleration> out;
  for (int i : indexes(v, prefix)) {
    std::string p = idx(prefix, i);
    Toleration t = tol(get(v, p + ".key"), get(v, p + ".operator"), get(v, p + ".value"), get(v, p + ".effect"));
    // An int64 the scenario reader checked (flatten_values).
    if (auto s = get(v, p + ".tolerationSeconds"); !s.empty()) t.toleration_seconds = engine::parse_integer<std::int64_t>(s).value;
    out.push_back(t);
  }
  return out;
}

std::optional<Affinity> parse_affinity(const FlatValues& v, const std::string& prefix) {
  std::string whole = get(v, prefix);
  if (!has_prefix(v, prefix + ".")) return std::nullopt;  // "null", "{}" or nothing
  (void)whole;
  Affinity a;
  std::string terms = prefix + ".nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms";
  if (has_prefix(v, terms + "[")) {
    std::vector<NodeSelectorTerm> list;
    for (int i : indexes(v, terms)) {
      NodeSelectorTerm t;
      t.match_expressions = parse_requirements(v, idx(terms, i) + ".matchExpressions");
      t.match_fields = parse_requirements(v, idx(terms, i) + ".matchFields");
      list.push_back(t);
    }
    a.node_required = list;
  }
  return a;
}

// templates/daemonset-device-plugin.yml's env, in its order: the values the chart passes on
// when set (null by default: the plugin's own defaults then hold), MPS's root, the config file
// the config-manager writes, and the runtime's variables.
std::vector<EnvVar> device_plugin_chart_env(const FlatValues& v, bool has_config_map) {
  std::vector<EnvVar> env{{"MPS_ROOT", get(v, "mps.root", "/run/nvidia/mps")}};
  auto string_value = [&](const char* key, const char* var) {
    if (auto value = get(v, key); !value.empty() && value != "null") env.push_back({var, value});
  };
  auto bool_value = [&](const char* key, const char* var) {
    if (auto value = get(v, key); value == "true" || value == "false") env.push_back({var, value});
  };
  string_value("migStrategy", "MIG_STRATEGY");
  bool_value("failOnInitError", "FAIL_ON_INIT_ERROR");
  bool_value("compatWithCPUManager", "PASS_DEVICE_SPECS");
  string_value("deviceListStrategy", "DEVICE_LIST_STRATEGY");
  string_value("deviceIDStrategy", "DEVICE_ID_STRATEGY");
  string_value("nvidiaDriverRoot", "NVIDIA_DRIVER_ROOT");
  string_value("nvidiaDevRoot", "NVIDIA_DEV_ROOT");
  string_value("cdi.nvidiaHookPath", "NVIDIA_CDI_HOOK_PATH");
  string_value("cdi.featureFlags", "CDI_FEATURE_FLAGS");
  bool_value("gdrcopyEnabled", "GDRCOPY_ENABLED");
  bool_value("gdsEnabled", "GDS_ENABLED");
  bool_value("mofedEnabled", "MOFED_ENABLED");
  if (has_config_map) env.push_back({"CONFIG_FILE", "/config/config.yaml"});
  // addMigMonitorDevices: unless every MIG strategy the chart could be given is none.
  if (auto mig = get(v, "migStrategy"); !mig.empty() && mig != "null" && mig != "none")
    env.push_back({"NVIDIA_MIG_MONITOR_DEVICES", "all"});
  string_value("deviceDiscoveryStrategy", "DEVICE_DISCOVERY_STRATEGY");
  env.push_back({"NVIDIA_VISIBLE_DEVICES", "all"});
  env.push_back({"NVIDIA_DRIVER_CAPABILITIES", "compute,utility"});
  return env;
}

std::string device_plugin_chart_fullname(const std::string& release) {
  // Chart fullname: "<release>-nvidia-device-plugin" unless the release already contains it.
  return release.find("nvidia-device-plugin") != std::string::npos ? release : release + "-nvidia-device-plugin";
}

std::map<std::string, std::string> device_plugin_config_map_data(const FlatValues& v) {
  std::map<std::string, std::string> data;
  const std::string prefix = "config.map.";
  for (auto it = v.lower_bound(prefix); it != v.end() && it->first.rfind(prefix, 0) == 0; ++it)
    data[it->first.substr(prefix.size())] = it->second;
  return data;
}

std::string device_plugin_config_map(const FlatValues& v, const std::string& release) {
  if (std::string name = get(v, "config.name"); !name.empty()) return name;
  return device_plugin_config_map_data(v).empty() ? std::string() : device_plugin_chart_fullname(release) + "-configs";
}

std::vector<DaemonSet> build_addon_daemonsets(const std::string& addon, const std::string& version,
                                              const FlatValues& v, const std::string& release,
                                              const std::string& ns) {
  std::vector<DaemonSet> out;
  // NFD 0.17.3 is the subchart the device plugin 0.18 chart pins (charts/node-feature-discovery).
  const std::string nfd_image = "registry.k8s.io/nfd/node-feature-discovery:v0.17.3";
  if (addon == "nvidiaDevicePlugin") {
    std::string full = device_plugin_chart_fullname(release);
    std::string image = "nvcr.io/nvidia/k8s-device-plugin:v" + version;
    auto tolerations = tolerations_or(
        v, "tolerations", {tol("CriticalAddonsOnly", "Exists"), tol("nvidia.com/gpu", "Exists", "", kNoSchedule)});
    auto node_selector = node_selector_or(v, "nodeSelector", {});
    auto affinity = affinity_or(v, "affinity", device_plugin_default_affinity());
    // config.name, else config.map's ConfigMap "<fullname>-configs" (templates/configmap.yml,
    // made by AddonController::install): then both programs get the config-manager.
    const std::string config_map = device_plugin_config_map(v, release);
    std::string fallbacks;
    for (int i : indexes(v, "config.fallbackStrategies"))
      fallbacks += (fallbacks.empty() ? "" : ",") + get(v, idx("config.fallbackStrategies", i));
    if (!has_prefix(v, "config.fallbackStrategies[")) fallbacks = "named,single";
    auto configured = [&](DaemonSet ds, const std::string& prefix) {
      if (!config_map.empty())
        add_config_manager(ds.tmpl.spec, image, config_map, get(v, "config.default"), fallbacks, prefix + "-init",
                           prefix + "-sidecar");
      return ds;
    };
    if (get_bool(v, "devicePlugin.enabled", true)) {
      DaemonSet plugin = make_ds(full, ns, kRoleDevicePlugin, image, tolerations, node_selector, affinity);
      plugin.tmpl.spec.containers.mut().front().env = device_plugin_chart_env(v, !config_map.empty());
      out.push_back(configured(std::move(plugin), "nvidia-device-plugin"));
    }
    if (get_bool(v, "gfd.enabled", false)) {
      out.push_back(configured(
          make_ds(full + "-gpu-feature-discovery", ns, kRoleGfd, image, tolerations, node_selector, affinity),
          "gpu-feature-discovery"));
    }
    // mps-control-daemon: only on nodes labelled nvidia.com/mps.capable=true.
    out.push_back(make_ds(full + "-mps-control-daemon", ns, kRoleOther, image, tolerations,
                          {{"nvidia.com/mps.capable", "true"}}, affinity));
    // The NFD subchart comes with gfd.enabled (Chart.yaml condition nfd.enabled,gfd.enabled). Its
    // worker tolerates only nvidia.com/gpu=present (values.yaml nfd.worker.tolerations): the lab
    // 003 taint value trap.
    if (get_bool(v, "nfd.enabled", get_bool(v, "gfd.enabled", false))) {
      auto worker_tol = tolerations_or(v, "nfd.worker.tolerations",
                                       {tol("node-role.kubernetes.io/master", "Equal", "", kNoSchedule),
                                        tol("nvidia.com/gpu", "Equal", "present", kNoSchedule)});
      out.push_back(make_ds(release + "-node-feature-discovery-worker", ns, kRoleNfdWorker, nfd_image, worker_tol,
                            node_selector_or(v, "nfd.worker.nodeSelector", {}),
                            affinity_or(v, "nfd.worker.affinity", std::nullopt)));
    }
  } else if (addon == "nodeFeatureDiscovery") {
    // node-feature-discovery chart: worker.tolerations default [], so tainted GPU nodes get no
    // worker unless the user adds a toleration.
    std::string full = release.find("node-feature-discovery") != std::string::npos
                           ? release
                           : release + "-node-feature-discovery";
    out.push_back(make_ds(full + "-worker", ns, kRoleNfdWorker, "registry.k8s.io/nfd/node-feature-discovery:v" + version,
                          tolerations_or(v, "worker.tolerations", {}), node_selector_or(v, "worker.nodeSelector", {}),
                          affinity_or(v, "worker.affinity", std::nullopt)));
  } else if (addon == "gpuOperator") {
    for (auto& ds : build_gpu_operator(version, v, release, ns).daemon_sets) out.push_back(std::move(ds.first));
  } else {
    throw std::invalid_argument("unknown add-on \"" + addon + "\"");
  }
  return out;
}

AddonController::AddonController(ApiServer& api, DaemonSetController& daemon_sets, Kubelet& kubelet,
                                 AddonTimings timings, DeploymentController* deployments)
    : api_(api), daemon_sets_(daemon_sets), kubelet_(kubelet), timings_(timings), deployments_(deployments) {
  kubelet_.on_container_started.push_back([this](PodId id) { on_started(id); });
  kubelet_.container_run_override = [this](PodId id) -> std::optional<ContainerRun> {
    if (gpu_operator_)
      if (auto run = gpu_operator_->container_run(id)) return run;
    return device_plugin_run(id);
  };
  kubelet_.device_allocate = [this](PodId id) { return allocate(id); };
}

std::vector<std::size_t> AddonController::install(const std::string& addon, const std::string& version,
                                                  const FlatValues& values, std::string release, std::string ns) {
  if (release.empty()) release = addon == "gpuOperator" ? "gpu-operator" : addon == "nodeFeatureDiscovery" ? "nfd" : "nvdp";
  if (ns.empty()) ns = addon == "gpuOperator" ? "gpu-operator" : addon == "nodeFeatureDiscovery" ? "node-feature-discovery" : "nvidia";
  if (addon == "gpuOperator") {
    GpuOperatorObjects objects = build_gpu_operator(version, values, release, ns);
    std::map<std::string, GpuOperand> operands;
    for (const auto& [ds, op] : objects.daemon_sets)
      if (op != GpuOperand::None) operands[ds.meta.name] = op;
    gpu_operator_ = std::make_unique<GpuOperatorOperands>(api_, kubelet_, ns, std::move(operands),
                                                          objects.toolkit_enabled, objects.timings,
                                                          std::move(objects.validator_workload));
    kubelet_.init_wait = [this](PodId id) { return gpu_operator_->init_wait(id); };
    if (deployments_)
      for (auto& d : objects.deployments) deployments_->apply(std::move(d));
    for (auto& s : objects.services) api_.apply_service(std::move(s));
    std::vector<std::size_t> out;
    for (auto& [ds, op] : objects.daemon_sets) out.push_back(daemon_sets_.apply(std::move(ds)));
    return out;
  }
  // The chart's own ConfigMap from config.map (unless config.name names an existing one).
  if (addon == "nvidiaDevicePlugin" && get(values, "config.name").empty())
    if (auto data = device_plugin_config_map_data(values); !data.empty())
      api_.put_config_map(ns, device_plugin_config_map(values, release), std::move(data));
  std::vector<std::size_t> out;
  for (auto& ds : build_addon_daemonsets(addon, version, values, release, ns)) out.push_back(daemon_sets_.apply(std::move(ds)));
  return out;
}

namespace {
int hardware_count(const Node& n, const char* annotation) {
  auto it = n.meta.annotations.find(annotation);
  return it == n.meta.annotations.end() ? 0 : std::atoi(it->second.c_str());
}
}  // namespace

std::optional<ContainerRun> AddonController::device_plugin_run(PodId id) const {
  // NVML is there only where an NVIDIA GPU is; elsewhere the plugin's platform check fails and,
  // by default, it exits (nvidia_device_plugin_outcome).
  auto start = nvidia_device_plugin_start(id);
  if (!start || nvidia_device_plugin_outcome(*start) != NvidiaDevicePluginOutcome::Exits) return std::nullopt;
  ContainerRun run;
  run.duration = timings_.device_plugin_init_failure;
  run.exit_code = 1;
  return run;
}

std::optional<NvidiaDevicePluginRun> AddonController::nvidia_device_plugin_start(PodId id) const {
  const PodRecord& rec = api_.pod(id);
  if (!rec.node.valid()) return std::nullopt;
  const Container* c = addon_container(rec.pod);
  if (!c || addon_role(rec.pod) != AddonRole::NvidiaDevicePlugin) return std::nullopt;
  NvidiaDevicePluginRun run;
  if (auto colon = c->image.rfind(':'); colon != std::string::npos && c->image.find('/', colon) == std::string::npos)
    run.image_tag = c->image.substr(colon + 1);
  run.flags = nvidia_device_plugin_flags(*c);
  run.config = plugin_config(rec, *c, &run.config_error);
  const int gpus = hardware_count(api_.node(rec.node).node, kAnnotationGpuCount);
  run.nvml = gpus > 0;
  if (run.config) run.advertised = advertised_gpus(*run.config, gpus);
  return run;
}

void AddonController::on_started(PodId id) {
  const PodRecord& rec = api_.pod(id);
  if (!rec.node.valid()) return;
  const AddonRole role = addon_role(rec.pod);
  if (role == AddonRole::None) return;
  NodeId node = rec.node;
  const Node& n = api_.node(node).node;
  // Registration with the kubelet, then its next node status update (as for nvidia.com/gpu).
  auto later = [this, node](std::vector<std::pair<std::string_view, const char*>> resources) {
    api_.sim().schedule(timings_.device_plugin_delay, [this, node, resources] {
      for (const auto& [resource, annotation] : resources) advertise_devices(api_, node, resource, annotation);
    });
  };
  if (role == AddonRole::EfaDevicePlugin) {
    if (hardware_count(n, kAnnotationEfaCount) > 0) later({{kEfaResource, kAnnotationEfaCount}});
    return;
  }
  if (role == AddonRole::NeuronDevicePlugin) {
    if (hardware_count(n, kAnnotationNeuronDeviceCount) > 0)
      later({{kNeuronResource, kAnnotationNeuronDeviceCount}, {kNeuronCoreResource, kAnnotationNeuronCoreCount}});
    return;
  }
  int gpus = hardware_count(n, kAnnotationGpuCount);
  if (gpus <= 0) return;  // nothing NVIDIA on this machine: no labels, no GPUs
  auto label = [this, node](Labels labels) {
    NodeRecord& r = api_.node(node);
    if (r.deleted) return;
    bool changed = false;
    for (auto& [k, v] : labels) {
      auto& slot = r.node.meta.labels[k];
      if (slot != v) {
        slot = v;
        changed = true;
      }
    }
    if (changed) api_.node_changed(node, NodeChange::Updated);
  };
  if (role == AddonRole::NfdWorker) {
    api_.sim().schedule(timings_.nfd_label_delay, [this, label, node] {
      label({{kLabelPci10de, "true"}});
      // The operator's ClusterPolicy controller labels GPU nodes for its operands.
      if (gpu_operator_ && !api_.node(node).deleted) gpu_operator_->label_gpu_node(node);
    });
  } else if (role == AddonRole::GpuFeatureDiscovery) {
    // GFD reads the same config as the plugin (the chart and the operator give both the same
    // config-manager): the replicas and sharing strategy labels follow it (internal/lm).
    std::string error;
    const Container* c = addon_container(rec.pod);
    NvidiaPluginConfig config = c ? plugin_config(rec, *c, &error).value_or(NvidiaPluginConfig{}) : NvidiaPluginConfig{};
    AdvertisedGpus adv = advertised_gpus(config, gpus);
    const int replicas = adv.shared ? adv.count / gpus : 1;
    api_.sim().schedule(timings_.nfd_label_delay, [label, gpus, replicas] {
      label({{kLabelGpuPresent, "true"},
             {"nvidia.com/gpu.count", std::to_string(gpus)},
             {"nvidia.com/gpu.replicas", std::to_string(replicas)},
             {"nvidia.com/gpu.sharing-strategy", replicas > 1 ? "time-slicing" : "none"}});
    });
  } else if (role == AddonRole::NvidiaDevicePlugin) {
    api_.sim().schedule(timings_.device_plugin_delay, [this, node] { try_advertise(node); });
  } else if (role == AddonRole::NvidiaDriver || role == AddonRole::NvidiaToolkit) {
    if (gpu_operator_) gpu_operator_->on_started(id);
  }
}

void AddonController::try_advertise(NodeId node) {
  NodeRecord& r = api_.node(node);
  if (r.deleted) return;
  std::optional<PodId> plugin;
  for (PodId p : r.pods) {
    const PodRecord& rec = api_.pod(p);
    if (rec.pod.status.phase == PodPhase::Running && rec.pod.status.reason != "CrashLoopBackOff" &&
        addon_role(rec.pod) == AddonRole::NvidiaDevicePlugin) {
      plugin = p;
      break;
    }
  }
  if (!plugin) return;
  auto start = nvidia_device_plugin_start(*plugin);
  if (!start || nvidia_device_plugin_outcome(*start) != NvidiaDevicePluginOutcome::Serves) return;
  const NvidiaPluginConfig& config = *start->config;
  const AdvertisedGpus& adv = start->advertised;
  if (adv.shared && config.fail_requests_greater_than_one) strict_sharing_[node] = {config, adv};
  else strict_sharing_.erase(node);
  // Under the GPU Operator the plugin's own init container already waited for the driver and the
  // toolkit (toolkit-ready): see gpu_operator.hpp.
  if (advertise_count(api_, node, adv.resource, adv.count) && gpu_operator_) gpu_operator_->on_gpus_advertised(node);
}

std::optional<NvidiaPluginConfig> AddonController::plugin_config(const PodRecord& rec, const Container& c,
                                                                 std::string* error) const {
  if (!parse_plugin_config) return NvidiaPluginConfig{};
  auto text = nvidia_plugin_config_text(api_, rec.pod, c, api_.node(rec.node).node.meta.labels);
  if (!text) return NvidiaPluginConfig{};
  return parse_plugin_config(*text, error);
}

std::optional<std::string> AddonController::allocate(PodId id) const {
  if (strict_sharing_.empty()) return std::nullopt;
  const PodRecord& rec = api_.pod(id);
  auto it = strict_sharing_.find(rec.node);
  if (it == strict_sharing_.end()) return std::nullopt;
  const auto& [config, adv] = it->second;
  // The kubelet asks the plugin per container, in order.
  for (const auto& ctr : rec.pod.spec.containers)
    if (auto err = validate_allocation(config, adv, ctr.requests.get(adv.resource))) return err;
  return std::nullopt;
}

bool advertise_devices(ApiServer& api, NodeId node, std::string_view resource, const char* count_annotation) {
  NodeRecord& r = api.node(node);
  if (r.deleted) return false;
  return advertise_count(api, node, resource, hardware_count(r.node, count_annotation));
}

bool advertise_count(ApiServer& api, NodeId node, std::string_view resource, int count) {
  NodeRecord& r = api.node(node);
  if (r.deleted || count <= 0 || r.node.allocatable.get(resource) == count) return false;
  r.node.capacity.set(resource, count);
  r.node.allocatable.set(resource, count);
  api.node_changed(node, NodeChange::Updated);
  return true;
}

bool advertise_gpus(ApiServer& api, NodeId node) { return advertise_devices(api, node, kNvidiaGpu, kAnnotationGpuCount); }

}  // namespace eksim::k8s
