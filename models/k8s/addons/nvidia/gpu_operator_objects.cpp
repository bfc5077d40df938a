#include "models/k8s/addons/nvidia/gpu_operator_objects.hpp"

#include <stdexcept>

#include "models/k8s/addons/chart_values.hpp"
#include "models/k8s/addons/nvidia/gpu_operator_chart.hpp"
#include "models/k8s/addons/nvidia/nvidia_plugin_config.hpp"
#include "models/k8s/api/quantity.hpp"
#include "models/k8s/api/resources.hpp"

namespace eksim::k8s {

namespace {

using namespace chart;

// "<repository>/<image>:<version>" with any of the three the values override.
std::string image_of(const FlatValues& v, const std::string& key, std::string_view chart_default) {
  std::string def(chart_default);
  auto colon = def.rfind(':');
  auto slash = def.rfind('/', colon);
  std::string repo = def.substr(0, slash), image = def.substr(slash + 1, colon - slash - 1),
              tag = def.substr(colon + 1);
  return get(v, key + ".repository", repo) + "/" + get(v, key + ".image", image) + ":" + get(v, key + ".version", tag);
}

Container container(std::string name, std::string image, std::vector<std::string> command = {}) {
  Container c;
  c.name = std::move(name);
  c.image = std::move(image);
  c.command = std::move(command);
  return c;
}

void request(Container& c, const FlatValues& v, const std::string& prefix, const char* cpu, const char* memory) {
  for (bool requests : {true, false}) {
    for (std::string_view res : {kCpu, kMemory}) {
      std::string key = prefix + (requests ? ".requests." : ".limits.") + std::string(res);
      std::string def = requests ? (res == kCpu ? cpu : memory) : "";
      std::string text = get(v, key, def);
      if (text.empty()) continue;
      auto milli = parse_quantity(text);
      if (!milli) continue;
      (requests ? c.requests : c.limits).set(res, amount_from_milli(res, *milli));
    }
  }
}

Deployment deployment(const std::string& name, const std::string& ns, Container c, std::vector<Toleration> tolerations) {
  auto d = node_critical_workload<Deployment>(name, ns, "app", std::move(tolerations));
  d.tmpl.spec.containers.push_back(std::move(c));
  return d;
}

const GpuOperatorChart& chart_of(const std::string& version) {
  const GpuOperatorChart* chart = nullptr;
  if (version.empty()) chart = find_gpu_operator_chart(gpu_operator_chart_versions().back());
  else chart = find_gpu_operator_chart(version);
  if (!chart) throw std::invalid_argument("unknown gpu-operator chart version \"" + version + "\"");
  return *chart;
}

std::vector<Toleration> control_plane_only() {
  return {tol("node-role.kubernetes.io/control-plane", "Equal", "", kNoSchedule)};
}

// templates/operator.yaml: Deployment gpu-operator, operator.tolerations (default: the
// control-plane taint only) and operator.resources (requests 200m / 100Mi, limits 500m / 350Mi).
void add_operator(GpuOperatorObjects& out, const FlatValues& v, const std::string& ns, const GpuOperatorChart& chart) {
  Container c = container("gpu-operator", image_of(v, "operator", chart.operator_image), {"gpu-operator"});
  request(c, v, "operator.resources", "200m", "100Mi");
  if (!v.count("operator.resources.limits.cpu")) c.limits.set(kCpu, amount_from_milli(kCpu, 500));
  if (!v.count("operator.resources.limits.memory"))
    c.limits.set(kMemory, amount_from_milli(kMemory, 350LL * 1024 * 1024 * 1000));
  out.deployments.push_back(
      deployment("gpu-operator", ns, c, tolerations_or(v, "operator.tolerations", control_plane_only())));
}

// The operator's metrics Service and dcgm-exporter's (assets/state-*/0*_service.yaml), both
// annotated prometheus.io/scrape and selecting the pods by their app label. The operator
// creates them while reconciling ClusterPolicy; eksim puts them in with its DaemonSets.
void add_metrics_services(GpuOperatorObjects& out, const FlatValues& v, const std::string& ns) {
  auto metrics_service = [&](const std::string& name, const std::string& port_name, int port) {
    Service s;
    s.meta.name = name;
    s.meta.ns = ns;
    s.meta.labels = {{"app", name}};
    s.meta.annotations = {{"prometheus.io/scrape", "true"}};
    s.selector = {{"app", name}};
    s.ports = {ServicePort{port_name, "TCP", port, std::to_string(port), 0}};
    out.services.push_back(std::move(s));
  };
  metrics_service("gpu-operator", "gpu-operator-metrics", 8080);
  if (get_bool(v, "dcgmExporter.enabled", true)) metrics_service("nvidia-dcgm-exporter", "gpu-metrics", 9400);
}

// The NFD subchart (node-feature-discovery.*): master and gc tolerate the control-plane taint
// only (their values' defaults), the worker also nvidia.com/gpu (the GPU Operator's override).
void add_node_feature_discovery(GpuOperatorObjects& out, const FlatValues& v, const std::string& release,
                                const std::string& ns, const GpuOperatorChart& chart) {
  const std::string nfd = release + "-node-feature-discovery";
  const std::string nfd_image = image_of(v, "node-feature-discovery.image", chart.nfd_image);
  if (!get_bool(v, "nfd.enabled", true)) return;
  Container master = container("master", nfd_image, {"nfd-master"});
  request(master, v, "node-feature-discovery.master.resources", "100m", "128Mi");
  out.deployments.push_back(deployment(nfd + "-master", ns, master,
                                       tolerations_or(v, "node-feature-discovery.master.tolerations", control_plane_only())));
  Container gc = container("gc", nfd_image, {"nfd-gc"});
  request(gc, v, "node-feature-discovery.gc.resources", "10m", "128Mi");
  out.deployments.push_back(
      deployment(nfd + "-gc", ns, gc, tolerations_or(v, "node-feature-discovery.gc.tolerations", control_plane_only())));
  auto worker_tol = tolerations_or(v, "node-feature-discovery.worker.tolerations",
                                   {tol("node-role.kubernetes.io/control-plane", "Equal", "", kNoSchedule),
                                    tol("nvidia.com/gpu", "Exists", "", kNoSchedule)});
  DaemonSet worker = make_ds(nfd + "-worker", ns, kRoleNfdWorker, nfd_image, worker_tol,
                             node_selector_or(v, "node-feature-discovery.worker.nodeSelector", {}), std::nullopt);
  request(worker.tmpl.spec.containers.mut().front(), v, "node-feature-discovery.worker.resources", "5m", "64Mi");
  out.daemon_sets.emplace_back(std::move(worker), GpuOperand::None);
}

// Operands (assets/state-*/0500_daemonset.yaml): nodeSelector nvidia.com/gpu.deploy.<operand>
// = "true", daemonsets.tolerations, the init containers that order them (gpu_operator.hpp).
struct Operands {
  GpuOperatorObjects& out;
  const FlatValues& v;
  const std::string& ns;
  const GpuOperatorChart& chart;
  std::vector<Toleration> tolerations;
  std::string validator_image;

  void add(const std::string& name, const std::string& deploy_label, GpuOperand op, Container main,
           std::vector<Container> init) {
    DaemonSet ds = make_ds(name, ns, kRoleOther, main.image, tolerations,
                           {{"nvidia.com/gpu.deploy." + deploy_label, "true"}}, std::nullopt);
    ds.meta.labels["app"] = name;
    ds.tmpl.spec.containers = {std::move(main)};
    ds.tmpl.spec.init_containers = std::move(init);
    out.daemon_sets.emplace_back(std::move(ds), op);
  }
  Container wait_toolkit() const { return container("toolkit-validation", validator_image, {"sh", "-c"}); }
};

void add_driver_and_toolkit(Operands& o) {
  if (o.out.driver_enabled) {
    // The operator appends the node's OS to the tag (-ubuntu22.04, ...); the template's shown.
    o.add("nvidia-driver-daemonset", "driver", GpuOperand::Driver,
          container("nvidia-driver-ctr", image_of(o.v, "driver", o.chart.driver_image), {"nvidia-driver"}),
          {container("k8s-driver-manager", image_of(o.v, "driver.manager", o.chart.driver_manager_image),
                     {"driver-manager"})});
  }
  if (o.out.toolkit_enabled)
    o.add("nvidia-container-toolkit-daemonset", "container-toolkit", GpuOperand::Toolkit,
          container("nvidia-container-toolkit-ctr", image_of(o.v, "toolkit", o.chart.toolkit_image)),
          {container("driver-validation", o.validator_image, {"sh", "-c"})});
}

// The device plugin and GFD. devicePlugin.config {name, default}: their config-manager reads
// that ConfigMap (controllers/object_controls.go handleDevicePluginConfig, FALLBACK_STRATEGIES
// "empty"); the user applies the ConfigMap.
void add_device_plugin_and_gfd(Operands& o) {
  const std::string plugin_config = get(o.v, "devicePlugin.config.name");
  auto with_plugin_config = [&](const std::string& image) {
    if (plugin_config.empty()) return;
    PodSpec& spec = o.out.daemon_sets.back().first.tmpl.spec;
    std::erase_if(spec.init_containers.mut(), [](const Container& c) { return c.name == "config-manager-init"; });
    add_config_manager(spec, image, plugin_config, get(o.v, "devicePlugin.config.default"), "empty",
                       "config-manager-init", "config-manager");
  };
  auto config_manager_init = [](const std::string& image) {
    return container("config-manager-init", image, {"config-manager"});
  };
  const std::string plugin_image = image_of(o.v, "devicePlugin", o.chart.device_plugin_image);
  if (get_bool(o.v, "devicePlugin.enabled", true)) {
    Container c = chart_container(kRoleDevicePlugin, plugin_image);
    c.name = "nvidia-device-plugin";
    o.add("nvidia-device-plugin-daemonset", "device-plugin", GpuOperand::DevicePlugin, c,
          {o.wait_toolkit(), config_manager_init(plugin_image)});
    with_plugin_config(plugin_image);
  }
  if (get_bool(o.v, "gfd.enabled", true)) {
    const std::string gfd_image = image_of(o.v, "gfd", o.chart.device_plugin_image);
    Container c = chart_container(kRoleGfd, gfd_image);
    c.name = "gpu-feature-discovery";
    o.add("gpu-feature-discovery", "gpu-feature-discovery", GpuOperand::Gfd, c,
          {o.wait_toolkit(), config_manager_init(gfd_image)});
    with_plugin_config(gfd_image);
  }
}

// The validator has no enabled switch: ClusterPolicy always deploys it. Its init containers
// run nvidia-validator with COMPONENT=...; the cuda check runs a workload pod unless
// WITH_WORKLOAD says otherwise, the plugin check only when told to (the asset sets "false").
// TransformValidatorComponent then sets validator.cuda.env / validator.plugin.env over them.
void add_validator(Operands& o) {
  o.out.validator_workload.image = o.validator_image;
  o.out.validator_workload.tolerations = o.tolerations;
  auto validation = [&](const char* component, std::vector<EnvVar> env) {
    Container c = container(std::string(component) + "-validation", o.validator_image, {"sh", "-c"});
    c.args = {"nvidia-validator"};
    c.env = std::move(env);
    const std::string values_env = std::string("validator.") + component + ".env";
    for (int i : indexes(o.v, values_env))
      set_env(c, get(o.v, idx(values_env, i) + ".name"), get(o.v, idx(values_env, i) + ".value"));
    return c;
  };
  o.add("nvidia-operator-validator", "operator-validator", GpuOperand::Validator,
        container("nvidia-operator-validator", o.validator_image),
        {validation("driver", {{"WITH_WAIT", "true"}, {"COMPONENT", "driver"}}),
         validation("toolkit", {{"NVIDIA_VISIBLE_DEVICES", "all"}, {"WITH_WAIT", "false"}, {"COMPONENT", "toolkit"}}),
         validation("cuda", {{"WITH_WAIT", "false"}, {"COMPONENT", "cuda"}}),
         validation("plugin", {{"COMPONENT", "plugin"}, {"WITH_WAIT", "false"}, {"WITH_WORKLOAD", "false"}})});
}

}  // namespace

GpuOperatorObjects build_gpu_operator(const std::string& version, const FlatValues& v, const std::string& release,
                                      const std::string& ns) {
  const GpuOperatorChart& chart = chart_of(version);
  GpuOperatorObjects out;
  out.driver_enabled = get_bool(v, "driver.enabled", true);
  out.toolkit_enabled = get_bool(v, "toolkit.enabled", true);
  if (auto d = parse_quantity(get(v, "driver.startupProbe.initialDelaySeconds", "60")))
    out.timings.driver_probe_initial_delay = engine::Duration::seconds(*d / 1000);
  add_operator(out, v, ns, chart);
  add_metrics_services(out, v, ns);
  add_node_feature_discovery(out, v, release, ns, chart);

  Operands operands{out, v, ns, chart,
                    tolerations_or(v, "daemonsets.tolerations", {tol("nvidia.com/gpu", "Exists", "", kNoSchedule)}),
                    image_of(v, "validator", chart.validator_image)};
  add_driver_and_toolkit(operands);
  add_device_plugin_and_gfd(operands);
  if (get_bool(v, "dcgmExporter.enabled", true))
    operands.add("nvidia-dcgm-exporter", "dcgm-exporter", GpuOperand::DcgmExporter,
                 container("nvidia-dcgm-exporter", image_of(v, "dcgmExporter", chart.dcgm_exporter_image)),
                 {operands.wait_toolkit()});
  add_validator(operands);
  if (get_bool(v, "migManager.enabled", true))
    operands.add("nvidia-mig-manager", "mig-manager", GpuOperand::MigManager,
                 container("nvidia-mig-manager", image_of(v, "migManager", chart.mig_manager_image)),
                 {operands.wait_toolkit()});
  return out;
}

}  // namespace eksim::k8s
