#include "models/aws/ec2.hpp"

#include <algorithm>
#include <cstdio>
#include <set>

#include "models/aws/subnet_addresses.hpp"

namespace eksim::aws {

const char* to_string(InstanceState s) {
  switch (s) {
    case InstanceState::Pending: return "pending";
    case InstanceState::Running: return "running";
    case InstanceState::ShuttingDown: return "shutting-down";
    case InstanceState::Terminated: return "terminated";
  }
  return "unknown";
}

Ec2::Ec2(engine::Simulator& sim, engine::RngStreams& rng, std::string region, std::vector<Subnet> subnets)
    : sim_(sim), rng_(rng), region_(std::move(region)), subnets_(std::move(subnets)) {}

const Subnet* Ec2::subnet(const std::string& id) const {
  for (const auto& s : subnets_)
    if (s.id == id) return &s;
  return nullptr;
}

std::vector<std::string> Ec2::zones() const {
  std::vector<std::string> out;
  for (const auto& s : subnets_)
    if (std::find(out.begin(), out.end(), s.az) == out.end()) out.push_back(s.az);
  return out;
}

std::string Ec2::new_instance_id() {
  auto& r = rng_.get("ec2/instance-ids");
  char buf[24];
  std::snprintf(buf, sizeof buf, "i-0%016llx", static_cast<unsigned long long>(r.next_u64() >> 4));
  return buf;
}

std::uint32_t Ec2::next_host_offset(Subnet& s) const {
  // Offsets 4 .. size-2 are assignable (AWS keeps the first four and the last). Hand them out
  // round-robin from next_host, never giving an address a live instance holds, and preferring
  // ones no instance has had yet (a reused address would reuse a node name).
  const std::int64_t size = cidr_block_size(s.cidr).value_or(std::int64_t{1} << 16);
  if (size < 8) return s.next_host++;
  const std::uint32_t first = 4, count = static_cast<std::uint32_t>(size - kSubnetReservedAddresses);
  auto h = holders_.find(s.id);
  static const std::unordered_set<std::string> kNone;
  const auto& ever = h == holders_.end() ? kNone : h->second.ever;
  const auto& live = h == holders_.end() ? kNone : h->second.live;
  unsigned a = 10, b = 0, c = 0, d = 0;
  std::sscanf(s.cidr.c_str(), "%u.%u.%u.%u", &a, &b, &c, &d);
  const std::uint32_t base = a << 24 | b << 16 | c << 8 | d;
  auto text = [&](std::uint32_t off) {
    std::uint32_t ip = base + off;
    char buf[32];
    std::snprintf(buf, sizeof buf, "%u.%u.%u.%u", ip >> 24, (ip >> 16) & 255, (ip >> 8) & 255, ip & 255);
    return std::string(buf);
  };
  const std::uint32_t start = s.next_host < first ? 0 : (s.next_host - first) % count;
  for (const std::unordered_set<std::string>* taken : {&ever, &live}) {
    for (std::uint32_t k = 0; k < count; ++k) {
      std::uint32_t off = first + (start + k) % count;
      if (taken->count(text(off))) continue;
      s.next_host = off + 1;
      return off;
    }
  }
  return s.next_host++;  // every address is held (only pre-existing instances are never refused)
}

std::int64_t Ec2::available_addresses(const std::string& subnet_id) const {
  const Subnet* s = subnet(subnet_id);
  if (!s) return 0;
  std::int64_t left = usable_subnet_addresses(s->cidr) - s->used_addresses;
  if (auto h = holders_.find(subnet_id); h != holders_.end()) {
    refresh_held(h->second);
    left -= h->second.held;
  }
  return std::max<std::int64_t>(0, left);
}

void Ec2::refresh_held(SubnetHolders& h) const {
  for (std::size_t idx : h.stale) {
    held_stale_[idx] = 0;
    if (!h.live_instances.count(idx)) continue;
    const std::int64_t now = std::max<std::int64_t>(1, addresses_of ? addresses_of(instances_[idx]) : 1);
    h.held += now - held_[idx];
    held_[idx] = now;
  }
  h.stale.clear();
}

void Ec2::addresses_changed(const std::string& instance_id) {
  auto it = index_.find(instance_id);
  if (it == index_.end() || held_stale_[it->second]) return;
  const Instance& inst = instances_[it->second];
  auto h = holders_.find(inst.subnet_id);
  if (h == holders_.end()) return;
  held_stale_[it->second] = 1;
  h->second.stale.push_back(it->second);
}

Instance& Ec2::create(const LaunchRequest& req, InstanceState state) {
  Instance inst;
  inst.id = new_instance_id();
  inst.type = req.type;
  inst.subnet_id = req.subnet_id;
  inst.spot = req.spot;
  inst.state = state;
  inst.launched_at = sim_.now();
  inst.security_groups = req.security_groups;
  inst.iam_role = req.iam_role;
  inst.tags = req.tags;
  inst.owner = req.owner;
  inst.template_version = req.template_version;
  for (auto& s : subnets_) {
    if (s.id != req.subnet_id) continue;
    inst.az = s.az;
    // Addresses are handed out in order inside the subnet's CIDR: a.b.c.d/n -> base + next_host.
    unsigned a = 10, b = 0, c = 0, d = 0;
    std::sscanf(s.cidr.c_str(), "%u.%u.%u.%u", &a, &b, &c, &d);
    std::uint32_t ip = (a << 24 | b << 16 | c << 8 | d) + next_host_offset(s);
    char buf[64];
    std::snprintf(buf, sizeof buf, "%u.%u.%u.%u", ip >> 24, (ip >> 16) & 255, (ip >> 8) & 255, ip & 255);
    inst.private_ip = buf;
    std::snprintf(buf, sizeof buf, "ip-%u-%u-%u-%u", ip >> 24, (ip >> 16) & 255, (ip >> 8) & 255, ip & 255);
    // us-east-1 keeps the legacy ec2.internal domain; other regions use <region>.compute.internal.
    inst.private_dns_name = std::string(buf) + (region_ == "us-east-1" ? ".ec2.internal" : "." + region_ + ".compute.internal");
  }
  index_[inst.id] = instances_.size();
  if (!inst.subnet_id.empty()) {
    SubnetHolders& h = holders_[inst.subnet_id];
    h.ever.insert(inst.private_ip);
    h.live.insert(inst.private_ip);
    h.live_instances.insert(instances_.size());
    // Its primary address now; what else it holds is asked at the next count.
    h.held += 1;
    h.stale.push_back(instances_.size());
  }
  held_.push_back(1);
  held_stale_.push_back(inst.subnet_id.empty() ? 0 : 1);
  instances_.push_back(std::move(inst));
  return instances_.back();
}

std::variant<std::string, AwsError> Ec2::run_instance(const LaunchRequest& req) {
  const Subnet* sn = subnet(req.subnet_id);
  if (auto err = quotas_.try_reserve(req.type->quota_bucket, req.spot, req.type->vcpu)) return *err;
  // The new instance's primary ENI needs one free address in the subnet. (Checked after the
  // account's vCPU quota and before the AZ's capacity; AWS does not document the order.)
  if (sn && available_addresses(sn->id) < 1) {
    quotas_.release(req.type->quota_bucket, req.spot, req.type->vcpu);
    return insufficient_free_addresses_error(sn->id);
  }
  if (auto err = capacity_.try_acquire(req.type->name, sn ? sn->az : "", req.spot, zones())) {
    quotas_.release(req.type->quota_bucket, req.spot, req.type->vcpu);
    return *err;
  }
  Instance& inst = create(req, InstanceState::Pending);
  std::string id = inst.id;
  double delay = rng_.get("ec2/boot/" + id).lognormal_median(timings_.pending_to_running_median_s, timings_.pending_to_running_sigma);
  sim_.schedule(engine::Duration::from_seconds(delay), [this, id] {
    Instance* i = find(id);
    if (!i || i->state != InstanceState::Pending) return;
    i->state = InstanceState::Running;
    i->running_at = sim_.now();
    for (auto& fn : on_running) fn(*i);
  });
  return id;
}

std::string Ec2::adopt_running_instance(const LaunchRequest& req) {
  const Subnet* sn = subnet(req.subnet_id);
  // Pre-existing instances count against quota and capacity but are never refused: the account
  // already runs them.
  quotas_.reserve_unchecked(req.type->quota_bucket, req.spot, req.type->vcpu);
  capacity_.acquire_unchecked(req.type->name, sn ? sn->az : "", req.spot);
  Instance& inst = create(req, InstanceState::Running);
  inst.running_at = sim_.now();
  for (auto& fn : on_running) fn(inst);
  return inst.id;
}

void Ec2::terminate(std::string id) {
  Instance* inst = find(id);
  if (!inst || inst->state == InstanceState::ShuttingDown || inst->state == InstanceState::Terminated) return;
  inst->state = InstanceState::ShuttingDown;
  quotas_.release(inst->type->quota_bucket, inst->spot, inst->type->vcpu);
  capacity_.release(inst->type->name, inst->az, inst->spot);
  // Billing stops when shutting-down begins; the record turns terminated a little later.
  inst->terminated_at = sim_.now();
  for (auto& fn : on_terminated) fn(*inst);
  sim_.schedule(engine::Duration::seconds(30), [this, id] {
    if (Instance* i = find(id)) mark_terminated(*i);
  });
}

void Ec2::mark_terminated(Instance& inst) {
  inst.state = InstanceState::Terminated;
  auto h = holders_.find(inst.subnet_id);
  if (h == holders_.end()) return;
  // Another live instance cannot hold the same address (next_host_offset never hands it out).
  h->second.live.erase(inst.private_ip);
  const std::size_t idx = index_.at(inst.id);
  if (h->second.live_instances.erase(idx)) {
    h->second.held -= held_[idx];
    held_[idx] = 0;
  }
}

Instance* Ec2::find(const std::string& id) {
  auto it = index_.find(id);
  return it == index_.end() ? nullptr : &instances_[it->second];
}

const Instance* Ec2::find(const std::string& id) const {
  auto it = index_.find(id);
  return it == index_.end() ? nullptr : &instances_[it->second];
}

}  // namespace eksim::aws
