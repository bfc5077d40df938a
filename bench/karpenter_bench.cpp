// Karpenter provisioning pass: 10,000 pending pods over the full EC2 catalog (every type with a
// us-east-1 price, 1,364 of 1,389; both architectures, spot and on-demand), one NodePool that
// allows every type, no existing nodes. Karpenter's own scheduling
// benchmark (kubernetes-sigs/karpenter pkg/controllers/provisioning/scheduling
// scheduling_benchmark_test.go) reports on the order of 660 pods/s for comparable batches;
// items_per_second here is pods per second of simulated provisioning work.
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "models/autoscaling/karpenter/provisioning/scheduling/scheduler.hpp"
#include "models/aws/instance_catalog.hpp"

namespace {

using namespace eksim;
using namespace eksim::autoscaling::karpenter;

void BM_KarpenterProvision10kPods(benchmark::State& state) {
  const int n_pods = static_cast<int>(state.range(0));
  InstanceTypeOptions opts;
  opts.region = "us-east-1";
  opts.zones = {"us-east-1a", "us-east-1b", "us-east-1c"};
  std::vector<InstanceTypeInfo> types;
  for (const aws::InstanceType* t : aws::InstanceCatalog::builtin().priced_in(opts.region))
    types.push_back(build_instance_type(*t, opts, NodeClass{}));
  NodePool pool;
  pool.name = "default";
  pool.requirements = {{"karpenter.sh/capacity-type", "In", {"spot", "on-demand"}}};
  std::vector<k8s::Pod> pods(n_pods);
  for (int i = 0; i < n_pods; ++i) {
    k8s::Pod& p = pods[i];
    p.meta.name = "pod-" + std::to_string(i);
    p.meta.ns = "default";
    k8s::Container c;
    c.name = "app";
    // A realistic mix: 100m..1600m cpu, 128Mi..2Gi memory.
    c.requests.set(k8s::kCpu, 100 * (1 + i % 16));
    c.requests.set(k8s::kMemory, (128LL << 20) * (1 + (i / 7) % 16));
    p.spec.containers.push_back(c);
  }
  std::vector<const k8s::Pod*> ptrs;
  for (const auto& p : pods) ptrs.push_back(&p);
  std::size_t claims = 0;
  for (auto _ : state) {
    std::vector<NodeClaimTemplate> tmpls{make_template(pool, types, {}, LabelDomain::Oss, {})};
    std::vector<ExistingNode> existing;
    auto res = solve(ptrs, existing, tmpls, LabelDomain::Oss);
    claims = res.new_claims.size();
    benchmark::DoNotOptimize(res);
  }
  state.SetItemsProcessed(state.iterations() * n_pods);
  state.counters["instance_types"] = static_cast<double>(types.size());
  state.counters["nodeclaims"] = static_cast<double>(claims);
}
BENCHMARK(BM_KarpenterProvision10kPods)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond);

}  // namespace
