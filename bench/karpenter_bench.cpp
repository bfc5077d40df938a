// Karpenter provisioning pass: 10,000 pending pods across 50 instance types (the catalog's 15
// plus synthesised c/m/r families), one NodePool, no existing nodes. Karpenter's own scheduling
// benchmark (kubernetes-sigs/karpenter pkg/controllers/provisioning/scheduling
// scheduling_benchmark_test.go) reports on the order of 660 pods/s for comparable batches;
// items_per_second here is pods per second of simulated provisioning work.
#include <benchmark/benchmark.h>

#include <deque>
#include <string>
#include <vector>

#include "models/autoscaling/karpenter/provisioning/scheduling/scheduler.hpp"
#include "models/aws/instance_catalog.hpp"

namespace {

using namespace eksim;
using namespace eksim::autoscaling::karpenter;

std::deque<aws::InstanceType>& synthetic_types() {
  static std::deque<aws::InstanceType> types = [] {
    std::deque<aws::InstanceType> out;
    for (const auto& t : aws::InstanceCatalog::builtin().all()) out.push_back(t);
    const char* families[] = {"c6i", "m6i", "r6i", "c7i", "m7i", "r7i", "c6a", "m6a"};
    const char* sizes[] = {"large", "xlarge", "2xlarge", "4xlarge", "8xlarge"};
    const int vcpus[] = {2, 4, 8, 16, 32};
    for (const char* fam : families) {
      for (int s = 0; s < 5 && out.size() < 50; ++s) {
        aws::InstanceType t;
        t.name = std::string(fam) + "." + sizes[s];
        aws::split_instance_type_name(t.name, t);
        t.vcpu = vcpus[s];
        int mem_per_cpu = t.category == "c" ? 2048 : t.category == "m" ? 4096 : 8192;
        t.memory_mib = static_cast<std::int64_t>(t.vcpu) * mem_per_cpu;
        t.kubelet_memory_ki = t.memory_mib * 1024 * 95 / 100;
        t.arch = "amd64";
        t.default_card_enis = t.vcpu >= 16 ? 8 : 4;
        t.max_enis = t.default_card_enis;
        t.ipv4_per_eni = t.vcpu >= 16 ? 30 : 15;
        t.quota_bucket = "Standard";
        t.on_demand_usd_per_hour["us-east-1"] = 0.0425 * t.vcpu * (mem_per_cpu / 2048.0 + 1) / 2;
        t.spot_price_factor = 0.35;
        out.push_back(t);
      }
    }
    return out;
  }();
  return types;
}

void BM_KarpenterProvision10kPods(benchmark::State& state) {
  const int n_pods = static_cast<int>(state.range(0));
  InstanceTypeOptions opts;
  opts.region = "us-east-1";
  opts.zones = {"us-east-1a", "us-east-1b", "us-east-1c"};
  std::vector<InstanceTypeInfo> types;
  for (const auto& t : synthetic_types()) types.push_back(build_instance_type(t, opts, NodeClass{}));
  NodePool pool;
  pool.name = "default";
  pool.requirements = {{"kubernetes.io/arch", "In", {"amd64"}}, {"karpenter.sh/capacity-type", "In", {"spot", "on-demand"}}};
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
