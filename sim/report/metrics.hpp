#pragma once
// `--metrics FILE`: a CSV time series sampled every simulated interval (default one minute).
// Fixed columns first, then one `nodes:GROUP:CAPACITY` column per node group (or NodePool) and
// capacity type seen during the run, sorted by name; a group absent at a sample counts 0.
//
//   time_s,nodes,nodes_ready,pods_pending,pods_running,gpus_allocatable,gpus_allocated,gpus_idle,cost_usd,nodes:gpu:on-demand,...
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "models/cluster/cluster.hpp"

namespace eksim::report {

struct MetricsSample {
  double time_s = 0;
  int nodes = 0, nodes_ready = 0;
  int pods_pending = 0, pods_running = 0;  // workload pods; pending = not yet bound to a node
  std::int64_t gpus_allocatable = 0, gpus_allocated = 0, gpus_idle = 0;  // on Ready nodes
  double cost_usd = 0;
  std::map<std::string, int> nodes_by_group;  // "gpu:on-demand" -> live nodes
};

MetricsSample sample_metrics(const Cluster& cluster);

class MetricsRecorder {
 public:
  void sample(const Cluster& cluster) { samples_.push_back(sample_metrics(cluster)); }
  const std::vector<MetricsSample>& samples() const { return samples_; }
  // The CSV, handed to out a line at a time: a year of samples is never one string.
  void write_csv(const std::function<void(std::string_view)>& out) const;
  std::string csv() const;

 private:
  std::vector<MetricsSample> samples_;
};

}  // namespace eksim::report
