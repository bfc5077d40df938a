// Scheduler throughput: pending pods placed onto a cluster through schedule_one + bind.
// DESIGN.md "Performance shape": 10,000 pods onto 1,000 nodes must take well under a second.
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "models/k8s/scheduling/schedule.hpp"

namespace {

using namespace eksim::k8s;
constexpr std::int64_t kGi = 1024LL * 1024 * 1024;

// 1,000 nodes over 3 zones and 2 shapes (m5.2xlarge-like and a tainted g5.2xlarge-like GPU
// node), as a mixed EKS cluster has.
std::vector<Node> make_nodes(int count) {
  std::vector<Node> nodes;
  const char* zones[] = {"ap-northeast-2a", "ap-northeast-2b", "ap-northeast-2c"};
  for (int i = 0; i < count; ++i) {
    Node n;
    n.meta.name = "ip-10-" + std::to_string(i / 62500) + "-" + std::to_string(i / 250 % 250) + "-" + std::to_string(i % 250);
    bool gpu = i % 10 == 0;
    n.meta.labels = {{kLabelHostname, n.meta.name},
                     {kLabelZone, zones[i % 3]},
                     {kLabelInstanceType, gpu ? "g5.2xlarge" : "m5.2xlarge"},
                     {kLabelOs, "linux"}};
    n.allocatable = {{"cpu", 7910}, {"memory", 28 * kGi}, {"pods", 58}};
    if (gpu) {
      n.allocatable.set("nvidia.com/gpu", 1);
      n.taints = {{"nvidia.com/gpu", "true", "NoSchedule"}};
    }
    n.ready = true;
    nodes.push_back(std::move(n));
  }
  return nodes;
}

// Pods from a handful of Deployments (same shape per Deployment), some with a nodeSelector.
std::vector<Pod> make_pods(int count, bool spread) {
  std::vector<Pod> pods;
  pods.reserve(count);
  for (int i = 0; i < count; ++i) {
    Pod p;
    int app = i % 5;
    p.meta.name = "app" + std::to_string(app) + "-" + std::to_string(i);
    p.meta.ns = "default";
    p.meta.labels = {{"app", "app" + std::to_string(app)}};
    Container c;
    c.requests = {{"cpu", 250 + 100 * app}, {"memory", (1 + app) * kGi / 2}};
    p.spec.containers.push_back(c);
    if (app == 4) p.spec.node_selector = {{kLabelInstanceType, "m5.2xlarge"}};
    if (spread) {
      TopologySpreadConstraint tsc;
      tsc.max_skew = 1;
      tsc.topology_key = kLabelZone;
      tsc.label_selector.match_labels = p.meta.labels;
      p.spec.topology_spread_constraints = {tsc};
    }
    pods.push_back(std::move(p));
  }
  return pods;
}

void schedule_all(benchmark::State& state, int n_nodes, int n_pods, bool spread) {
  auto nodes = make_nodes(n_nodes);
  auto pods = make_pods(n_pods, spread);
  std::int64_t placed = 0;
  for (auto _ : state) {
    state.PauseTiming();
    SchedulingSnapshot snap;
    for (const auto& n : nodes) snap.set_node(n);
    state.ResumeTiming();
    placed = 0;
    for (const auto& p : pods) {
      ScheduleResult r = schedule_one(p, snap);
      if (r.scheduled()) {
        snap.bind(p, r.node_name);
        ++placed;
      }
    }
    benchmark::DoNotOptimize(placed);
  }
  state.counters["pods/s"] = benchmark::Counter(static_cast<double>(n_pods), benchmark::Counter::kIsIterationInvariantRate);
  state.counters["placed"] = static_cast<double>(placed);
}

// The target: 10,000 plain pods onto 1,000 nodes through equivalence classes.
void BM_Schedule10kPodsOn1kNodes(benchmark::State& state) { schedule_all(state, 1000, 10000, false); }
BENCHMARK(BM_Schedule10kPodsOn1kNodes)->Unit(benchmark::kMillisecond);

// The fleet-scale case of the scale issue: 5,000 nodes, 50,000 pending pods (the target is at
// least 100,000 pods/s).
void BM_Schedule50kPodsOn5kNodes(benchmark::State& state) { schedule_all(state, 5000, 50000, false); }
BENCHMARK(BM_Schedule50kPodsOn5kNodes)->Unit(benchmark::kMillisecond);

// Pods with zone topology spread take the per-node path (PreFilter counts over every pod).
void BM_ScheduleSpreadPods1kOn100Nodes(benchmark::State& state) { schedule_all(state, 100, 1000, true); }
BENCHMARK(BM_ScheduleSpreadPods1kOn100Nodes)->Unit(benchmark::kMillisecond);

}  // namespace
