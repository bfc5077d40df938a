#include "sim/report/metrics.hpp"

#include <fmt/format.h>

#include <set>

#include "sim/report/run_metrics.hpp"

namespace eksim::report {

MetricsSample sample_metrics(const Cluster& c) {
  MetricsSample s;
  s.time_s = c.sim.now().to_seconds();
  for (std::size_t i = 0; i < c.api.node_slots(); ++i) {
    const k8s::NodeRecord& rec = c.api.node(k8s::NodeId{static_cast<std::uint32_t>(i)});
    if (rec.deleted) continue;
    ++s.nodes;
    std::string group = !rec.node_group.empty() ? rec.node_group : !rec.node_pool.empty() ? rec.node_pool : "none";
    ++s.nodes_by_group[group + ":" + (rec.capacity_type.empty() ? "on-demand" : rec.capacity_type)];
    if (!rec.node.ready) continue;
    ++s.nodes_ready;
    s.gpus_allocatable += rec.node.allocatable.get(k8s::kNvidiaGpu);
    for (k8s::PodId id : rec.pods) {
      const k8s::PodRecord& p = c.api.pod(id);
      if (p.deleted || p.pod.status.phase == k8s::PodPhase::Succeeded || p.pod.status.phase == k8s::PodPhase::Failed) continue;
      s.gpus_allocated += k8s::pod_requests(p.pod.spec).get(k8s::kNvidiaGpu);
    }
  }
  s.gpus_idle = std::max<std::int64_t>(0, s.gpus_allocatable - s.gpus_allocated);
  for (const auto& [key, id] : c.api.live_pods()) {
    const k8s::PodRecord& p = c.api.pod(id);
    if (p.deleted || !is_workload_pod(p.pod)) continue;
    if (p.pod.status.phase == k8s::PodPhase::Pending && !p.node.valid()) ++s.pods_pending;
    if (p.pod.status.phase == k8s::PodPhase::Running) ++s.pods_running;
  }
  s.cost_usd = c.billing().total_usd() + c.cross_az_transfer_usd;
  return s;
}

void MetricsRecorder::write_csv(const std::function<void(std::string_view)>& out) const {
  std::set<std::string> groups;
  for (const auto& s : samples_)
    for (const auto& [g, n] : s.nodes_by_group) groups.insert(g);
  std::string line = "time_s,nodes,nodes_ready,pods_pending,pods_running,gpus_allocatable,gpus_allocated,gpus_idle,cost_usd";
  for (const auto& g : groups) line += ",nodes:" + g;
  line += "\n";
  out(line);
  for (const auto& s : samples_) {
    line = fmt::format("{},{},{},{},{},{},{},{},{:.4f}", s.time_s, s.nodes, s.nodes_ready, s.pods_pending,
                       s.pods_running, s.gpus_allocatable, s.gpus_allocated, s.gpus_idle, s.cost_usd);
    for (const auto& g : groups) {
      auto it = s.nodes_by_group.find(g);
      line += fmt::format(",{}", it == s.nodes_by_group.end() ? 0 : it->second);
    }
    line += "\n";
    out(line);
  }
}

std::string MetricsRecorder::csv() const {
  std::string text;
  write_csv([&text](std::string_view line) { text.append(line); });
  return text;
}

}  // namespace eksim::report
