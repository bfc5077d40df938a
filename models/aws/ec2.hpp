#pragma once
// EC2 as the simulated cluster sees it: RunInstances with quota and capacity checks, the
// pending -> running transition, termination, and the instance records billing reads.
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <unordered_set>
#include <unordered_map>
#include <set>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "models/aws/aws_error.hpp"
#include "models/aws/capacity.hpp"
#include "models/aws/instance_catalog.hpp"
#include "models/aws/quotas.hpp"
#include "sim/engine/rng.hpp"
#include "sim/engine/simulator.hpp"

namespace eksim::aws {

enum class InstanceState { Pending, Running, ShuttingDown, Terminated };
const char* to_string(InstanceState s);

struct Subnet {
  std::string id;
  std::string az;
  std::string cidr;
  std::uint32_t next_host = 10;  // next private address to hand out (the first few are AWS's)
  // Addresses taken by things outside the simulation (other ENIs, load balancers, endpoints):
  // the scenario's `usedAddresses`.
  std::int64_t used_addresses = 0;
  // DescribeSubnets Tags: what Karpenter's subnetSelectorTerms match (karpenter.sh/discovery).
  std::map<std::string, std::string> tags{};
};

struct Instance {
  std::string id;  // i-0123456789abcdef0
  const InstanceType* type = nullptr;
  std::string subnet_id;
  std::string az;
  bool spot = false;
  InstanceState state = InstanceState::Pending;
  engine::SimTime launched_at;
  std::optional<engine::SimTime> running_at;
  std::optional<engine::SimTime> terminated_at;
  std::string private_ip;
  std::string private_dns_name;  // ip-10-0-1-23.ap-northeast-2.compute.internal
  std::vector<std::string> security_groups;
  std::string iam_role;
  std::map<std::string, std::string> tags;
  std::string owner;  // ASG name or NodeClaim name: who launched it, for billing and reports
  std::int64_t template_version = 1;
  // DescribeInstances StateReason.Message when EC2 itself ended the instance (Spot interruption).
  std::string state_reason;
  // Pending or running: what DescribeInstances callers count as a live instance.
  bool alive() const { return state == InstanceState::Pending || state == InstanceState::Running; }
};

struct LaunchRequest {
  const InstanceType* type = nullptr;
  std::string subnet_id;
  bool spot = false;
  std::vector<std::string> security_groups;
  std::string iam_role;
  std::map<std::string, std::string> tags;
  std::string owner;
  std::int64_t template_version = 1;
};

// Default timings (FACTS.md): RunInstances answers in ~1.5 s; pending -> running ~16 s.
struct Ec2Timings {
  double pending_to_running_median_s = 16.0;
  double pending_to_running_sigma = 0.15;
};

class Ec2 {
 public:
  Ec2(engine::Simulator& sim, engine::RngStreams& rng, std::string region, std::vector<Subnet> subnets);

  const std::string& region() const { return region_; }
  VcpuQuotaLedger& quotas() { return quotas_; }
  CapacityPools& capacity() { return capacity_; }
  Ec2Timings& timings() { return timings_; }
  const std::vector<Subnet>& subnets() const { return subnets_; }
  const Subnet* subnet(const std::string& id) const;
  // DescribeSubnets AvailableIpAddressCount: the CIDR's addresses minus AWS's 5 reserved, the
  // subnet's used_addresses and what live instances hold (subnet_addresses.hpp). Each instance
  // holds its primary address; the addresses it holds beyond that (addresses_of, e.g. the VPC
  // CNI's warm ENI) are taken in launch order from what is left, so they never overdraw the subnet.
  std::int64_t available_addresses(const std::string& subnet_id) const;
  // Addresses an instance wants to hold (its primary included); unset = 1 (the primary ENI's
  // address only). The cluster sets it to the VPC CNI's count once the node has joined, and
  // calls addresses_changed when its answer for an instance may move.
  std::function<std::int64_t(const Instance&)> addresses_of;
  // What addresses_of says for the instance may have changed (its node's pods, its node): it is
  // asked again the next time the subnet's count is read.
  void addresses_changed(const std::string& instance_id);
  std::vector<std::string> zones() const;  // the region's AZs that have subnets, in order

  // RunInstances for one instance: reserves quota and capacity or returns EC2's error. The
  // instance is pending now and running after the boot delay; on_running fires then.
  std::variant<std::string, AwsError> run_instance(const LaunchRequest& request);
  // An instance that exists from the start of the simulation (already running at t=0).
  std::string adopt_running_instance(const LaunchRequest& request);
  // TerminateInstances: shutting-down now, terminated shortly after; quota and capacity return.
  // By value: on_terminated listeners may erase the string the caller passed.
  void terminate(std::string instance_id);

  Instance* find(const std::string& id);
  const Instance* find(const std::string& id) const;
  const std::deque<Instance>& instances() const { return instances_; }

  std::vector<std::function<void(Instance&)>> on_running;
  std::vector<std::function<void(Instance&)>> on_terminated;

 private:
  Instance& create(const LaunchRequest& request, InstanceState state);
  std::uint32_t next_host_offset(Subnet& subnet) const;
  std::string new_instance_id();

  engine::Simulator& sim_;
  engine::RngStreams& rng_;
  std::string region_;
  std::vector<Subnet> subnets_;
  VcpuQuotaLedger quotas_;
  CapacityPools capacity_;
  Ec2Timings timings_;
  std::deque<Instance> instances_;
  std::map<std::string, std::size_t> index_;
  // Per subnet, kept as instances launch and terminate (a launch must not scan every instance):
  // every private address ever handed out, the ones live instances hold, and the live instances
  // in launch order.
  struct SubnetHolders {
    std::unordered_set<std::string> ever, live;
    std::set<std::size_t> live_instances;  // indices into instances_
    // The addresses live instances hold (max(1, addresses_of)), summed as last asked, and the
    // instances to ask again. (Held counts taken in launch order from what is left add up to
    // the same total, floored at zero.)
    std::int64_t held = 0;
    std::vector<std::size_t> stale;
  };
  // Per instance index: its addresses as counted in SubnetHolders::held, and whether it is in
  // its subnet's stale list.
  mutable std::vector<std::int64_t> held_;
  mutable std::vector<char> held_stale_;
  void refresh_held(SubnetHolders& h) const;
  mutable std::unordered_map<std::string, SubnetHolders> holders_;
  void mark_terminated(Instance& inst);
};

}  // namespace eksim::aws
